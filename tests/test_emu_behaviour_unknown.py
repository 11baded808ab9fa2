"""Instructions whose behaviour no manual describes (isa.errata.BEHAVIOUR_UNKNOWN, read as
isa.facts.behaviour_unknown): the emulator refuses them -- at prepare time, naming the
instruction, its PC and the reason -- instead of running a guess, while the assembler and
disassembler keep handling them as LLVM 22 does.

The intended set is RDNA4's three barrier instructions the manual's tables call Reserved:
s_barrier_init and s_barrier_join (SOP1 81/82: errata add them with code that only reads their
barrier-number operand) and s_barrier_leave (SOPP 21: no code, no description). Each changes a
barrier's state or membership, which the modelled work-group barrier depends on, so a no-op would
answer wrongly. And CDNA's s_rfe_restore_b64 (SOP2 43, omitted by the manuals; an erratum's code
only reads its 64-bit and 32-bit sources): a return from the trap handler restoring state no
manual names. And CDNA's v_screen_partition_4se_b32 and v_exp/log_legacy_f32 (VOP1 55, 75, 76 and
their VOP3A forms, omitted by the manuals): an erratum's code states their source and their VGPR
result, whose value it leaves to `undescribed(...)`, a function no manual defines. Not in it, though also undescribed: s_ttracedata_imm and s_atc_probe* (no
destination operand; they touch only the thread trace and the address translation cache, which
the emulator does not have: it runs them as no-ops)."""
from __future__ import annotations

import numpy as np
import pytest

import isa
from dsl.asm import assemble
from emu.machine import UnsupportedInstruction
from isa.facts import behaviour_unknown
from isa.effects import effects
from tests.test_emu_rdna4 import run

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")
INTENDED = {("rdna4", "SOP1", "S_BARRIER_INIT"), ("rdna4", "SOP1", "S_BARRIER_JOIN"),
            ("rdna4", "SOPP", "S_BARRIER_LEAVE"), ("cdna3", "SOP2", "S_RFE_RESTORE_B64"),
            ("cdna4", "SOP2", "S_RFE_RESTORE_B64")} | {
    (family, fmt, name) for family in ("cdna3", "cdna4") for fmt in ("VOP1", "VOP3A")
    for name in ("V_SCREEN_PARTITION_4SE_B32", "V_EXP_LEGACY_F32", "V_LOG_LEGACY_F32")}

# LLVM 22 (gfx1201) encodings: ../shared/conformance/llvm/gfx1201.tsv.gz rows quoted by the errata
LLVM_BYTES = {"s_barrier_init -1": "c15180be", "s_barrier_join m0": "7d5280be", "s_barrier_leave": "000095bf"}


def test_the_fact_is_set_for_exactly_the_undescribed_state_changing_instructions():
    flagged = {(family, d.format, d.name) for family in FAMILIES for d in isa.load(family).instructions
               if behaviour_unknown(d)}
    assert flagged == INTENDED


def test_the_manual_says_nothing_of_what_the_flagged_instructions_do():
    """Each has no entry in the manual's Instructions chapter, and the code an erratum gives it (if
    any) writes nothing, or writes its result only as `undescribed(...)` of its source: only its
    operands are known."""
    for family, fmt, name in INTENDED:
        d = next(d for d in isa.load(family).lookup(name) if d.format == fmt)
        assert d.pcode_page is None, name
        if d.pcode:
            e = effects(d.pcode)
            assert not (e.full | e.partial) or "= undescribed(S0." in d.pcode, (name, e.full, e.partial)
            assert "S0" in e.reads         # the barrier number (or trap return state) the allocator sees read


def test_undescribed_no_destination_instructions_still_run_as_no_ops():
    """s_ttracedata_imm and s_atc_probe are not flagged: the program runs past them."""
    spec = isa.load("rdna4")
    for name in ("S_TTRACEDATA_IMM", "S_ATC_PROBE", "S_ATC_PROBE_BUFFER"):
        assert not any(behaviour_unknown(d) for d in spec.lookup(name)), name
    src = """
        s_load_b64 s[4:5], s[0:1], 0
        s_wait_kmcnt 0
        s_ttracedata_imm 0x2c08
        s_atc_probe 0, s[4:5], 0
        v_lshlrev_b32 v1, 2, v0
        v_mov_b32 v2, 7
        global_store_b32 v1, v2, s[4:5]
        s_endpgm"""
    got, _ = run(src, {"y": np.zeros(64, np.uint32)})
    assert (got["y"] == 7).all()


@pytest.mark.parametrize("line", sorted(LLVM_BYTES))
def test_assembler_keeps_llvms_bytes(line):
    assert assemble(line, "gfx1201").hex() == LLVM_BYTES[line]


@pytest.mark.parametrize("line", sorted(LLVM_BYTES))
def test_emulator_refuses_naming_instruction_pc_and_reason(line):
    """The instruction sits after two others (PC = code start + 8); the refusal comes before any
    store: the output buffer keeps its contents."""
    src = f"""
        s_mov_b32 m0, 0
        s_nop 0
        {line}
        s_endpgm"""
    with pytest.raises(UnsupportedInstruction) as caught:
        run(src, {"y": np.zeros(64, np.uint32)})
    message = str(caught.value)
    name = line.split()[0]
    assert f"`{line}`" in message
    assert "the manual does not describe what it does" in message
    pc = int(message.split("PC 0x")[1].split(":")[0], 16)
    assert pc % 0x100 == 8, message         # code start (page aligned) + s_mov_b32 m0 + s_nop
    assert name.upper() in message
