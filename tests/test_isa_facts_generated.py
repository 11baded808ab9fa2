"""isa.facts: the facts about each instruction are generated (isa/generated/<family>/facts.py) and
read from there. The committed tables are what the generator works out from the committed
instructions (what `wavesmith gen --check` checks with the manuals at hand); every answer read from
them equals parsing the code and description afresh; and a process that assembles, disassembles
or emulates never imports the modules that parse (isa.code_facts, isa.float_modes, isa.gen)."""
from __future__ import annotations

import dataclasses
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import isa
from isa import code_facts, errata, facts, float_modes
from isa.spec import family_of
from isa.gen import descriptions, modifiers
from isa.gen.facts import build as instruction_facts
from isa.gen.source_limits import source_limits

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")
ROOT = Path(__file__).resolve().parent.parent


def _generated(family: str, name: str):
    return importlib.import_module(f"isa.generated.{family.replace('.', '_')}{name}")


@pytest.mark.parametrize("family", FAMILIES)
def test_committed_tables_are_what_the_generator_writes(family):
    module = _generated(family, "")
    assert _generated(family, ".facts").FACTS == instruction_facts(module.INSTRUCTIONS, family)[0]
    assert module.TABLES["export_targets"] == descriptions.export_targets(module.FORMATS, module.OPERANDS)
    assert module.TABLES["saddr_off"] == descriptions.saddr_off(module.FORMATS)
    assert module.TABLES["aperture_codes"] == descriptions.aperture_codes(module.OPERANDS)


def _parsed(name: str, d):
    """Fact `name` of d parsed afresh by the module that works it out."""
    if name == "float_modes":
        return float_modes.float_modes(d.pcode, d.description)
    if name == "accumulates":
        return code_facts.accumulates(d.pcode, d.description)
    if name == "modifier_use":      # and the modifier_use errata of d's family (LLVM's syntax; one
        # scoped 'e64' leaves the 32-bit encodings, VOP1/VOP2/VOPC, the entry's value)
        use = facts.ModifierUse(*modifiers.modifier_use(d.pcode, d.description, d.notes, d.operand_types))
        for e in errata.for_arch(family_of(d)):
            if e.kind == "modifier_use" and e.target[0] == d.name and getattr(use, e.target[1]) == e.pdf \
                    and not (e.target[2:] == ("e64",) and d.format in ("VOP1", "VOP2", "VOPC")):
                use = dataclasses.replace(use, **{e.target[1]: e.fix})
        return use
    if name == "opsel_flags":       # and the opsel_flags errata of d's family (LLVM's syntax)
        fix = [e.fix for e in errata.for_arch(family_of(d)) if e.kind == "opsel_flags" and e.target[0] == d.name]
        return fix[0] if fix else descriptions.opsel_flags(d.pcode, d.description)
    if name == "source_limits":     # (isa/gen/source_limits.py) and the source_limits errata (LLVM's)
        fix = [e.fix for e in errata.for_arch(family_of(d)) if e.kind == "source_limits" and e.target[0] == d.name]
        return fix[0] if fix else source_limits(d.pcode, d.description)
    if hasattr(descriptions, name):
        return getattr(descriptions, name)(d.pcode, d.description)
    return getattr(code_facts, name)(d.pcode)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_fact_of_every_instruction_read_equals_parsing(family):
    """The reader's answer for each instruction (from the table, or the default where the table
    leaves it out) is what the parsing modules say of its code and description, of the same type."""
    for d in isa.load(family).instructions:
        for name in facts.DEFAULTS:
            got, parsed = getattr(facts, name)(d), _parsed(name, d)
            assert got == parsed and type(got) is type(parsed), (family, d.format, d.name, name, got, parsed)


def test_some_facts_by_hand():
    """A few values as the manuals read (independent of the generator's tables)."""
    rdna3, rdna4, cdna3 = isa.load("rdna3"), isa.load("rdna4"), isa.load("cdna3")
    add = rdna3.lookup("ds_add_rtn_u32")[0]
    assert facts.atomic_update(add) == facts.AtomicUpdate("add", "u", True, ())      # MEM[ADDR].u += DATA.u
    assert facts.offset_pattern(rdna3.lookup("ds_swizzle_b32")[0]) is True           # offset = offset1:offset0
    assert facts.offset_pattern(add) is False
    assert facts.first_nan_test(cdna3.lookup("v_min_f32")[0]) == "S0"
    assert facts.first_nan_test(rdna3.lookup("v_min_f32")[0]) == "S1"
    readlane = rdna3.lookup("v_readlane_b32")[0]
    assert facts.register_files(readlane) == frozenset({"VGPR"})
    # D0.b32 = VGPR[lane][SRC0.u32] with lane = S1.u32[4 : 0]
    assert facts.register_number_sources(readlane) == frozenset({0}) and facts.lane_select_sources(readlane) == frozenset({1})
    assert facts.reads_other_lanes(readlane) and facts.lane_value_result(readlane)
    assert facts.byte_select(rdna4.lookup("v_cvt_f32_fp8")[0]) == (0, 1)             # "Byte select bits are reversed"
    assert facts.pc_relative_immediate(rdna3.lookup("s_branch")[0])
    assert not facts.pc_relative_immediate(rdna3.lookup("s_nop")[0])
    assert facts.float_modes(rdna3.lookup("v_trunc_f32")[0]).rounds is False          # exact
    assert facts.float_modes(rdna3.lookup("v_add_f32")[0]) == facts.FloatModes(True, True, "arithmetic")
    # "Calculate 2 raised to the power of the input and store the result into a scalar register"
    assert facts.scalar_result(rdna4.lookup("v_s_exp_f32")[0])
    assert facts.opsel_flags(rdna3.lookup("v_permlane16_b32")[0]) == 2               # OPSEL[0], OPSEL[1] overloaded
    assert facts.cache_control(rdna3.lookup("s_dcache_inv")[0]) and not facts.cache_control(add)
    assert facts.source_is_immediate(rdna3.lookup("s_sendmsg_rtn_b32")[0])
    assert facts.loads_to_lds(cdna3.lookup("global_load_lds_dword")[0])
    assert facts.accumulates(rdna3.lookup("v_fmac_f32")[0]) and not facts.accumulates(rdna3.lookup("v_fma_f32")[0])


def test_export_targets_are_the_manuals_list():
    """RDNA4's TARGET field text: '0..7 MRT 0..7 8 Z 12-16 Position 0-4 20 Primitive data 21 Dual
    Source Blend Left 22 Dual Source Blend Right'; RDNA3 lists the rows after MRT as codes."""
    want = [(0, 7, "MRT"), (8, 8, "Z"), (12, 16, "Position"), (20, 20, "Primitive data"),
            (21, 21, "Dual Source Blend Left"), (22, 22, "Dual Source Blend Right")]
    for family in ("rdna3", "rdna3.5", "rdna4"):
        assert isa.load(family).tables["export_targets"] == want, family
    assert isa.load("cdna3").tables["export_targets"] == []


def test_copies_and_code_no_family_has():
    """A copy of an instruction is answered as the instruction; code that no loaded family has is
    refused, naming the instruction; an entry without code that no family has gets the defaults."""
    readlane = isa.load("rdna3").lookup("v_readlane_b32")[0]
    assert facts.lane_value_result(dataclasses.replace(readlane))
    made_up = dataclasses.replace(readlane, name="V_MADE_UP", pcode="D0.b32 = S0.b32 + 1")
    with pytest.raises(facts.FactsError, match="V_MADE_UP"):
        facts.lane_value_result(made_up)
    assert facts.lane_value_result(dataclasses.replace(readlane, pcode=None, description="nothing")) is False


# a program that asks the assembler, the disassembler and the emulator for every moved fact:
# op_sel refused / byte_sel (byte_select), v_readlane (register numbers, lanes, an SGPR result),
# ds_swizzle (offset_pattern), a branch (pc_relative_immediate), s_sendmsg_rtn (source_is_immediate),
# an export (export_targets), v_permlane16 (opsel_flags), cache invalidation (cache_control)
PROGRAM = """
import sys
import numpy as np
import dsl
text = '''
    s_load_b64 s[2:3], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    v_mul_u32_u24 v2, v0, v0
    v_readlane_b32 s4, v1, 3
    v_writelane_b32 v3, s4, 1
    v_permlane16_b32 v3, v3, s4, s5
    v_add_f32 v4, v2, 1.0
    v_trunc_f32 v4, v4
    ds_swizzle_b32 v5, v1 offset:swizzle(SWAP,16)
    s_sendmsg_rtn_b32 s6, sendmsg(MSG_RTN_GET_DOORBELL)
    buffer_gl0_inv
    s_waitcnt lgkmcnt(0)
    global_store_b32 v1, v2, s[2:3]
    s_cbranch_scc0 1
    s_nop 0
    s_endpgm'''
code = dsl.assemble(text, "gfx1100")
listing = dsl.disassemble(code, "gfx1100")
assert "v_readlane_b32 s4, v1, 3" in listing and "s_cbranch_scc0 1" in listing, listing
# llvm-mc-22 -mcpu=gfx1100: exp pos0 v1, v2, v3, v4 done (gfx1201 spells it export and assembles it)
assert dsl.disassemble(bytes.fromhex("cf0800f801020304"), "gfx1100").split()[:2] == ["exp", "pos0"]
assert dsl.assemble("export pos0 v1, v2, v3, v4 done", "gfx1201") == bytes.fromhex("cf0800f801020304")
assert dsl.disassemble(dsl.assemble("v_cvt_f32_fp8_e64 v1, v2 byte_sel:2", "gfx1201"), "gfx1201")
from emu.launch import Dispatch
from emu.machine import Machine
from emu.memory import DeviceMemory
code = dsl.assemble('''
    s_load_b64 s[2:3], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    v_mul_u32_u24 v2, v0, v0
    v_cvt_f32_u32 v3, v2
    v_trunc_f32 v3, v3
    v_cvt_u32_f32 v2, v3
    s_waitcnt lgkmcnt(0)
    global_store_b32 v1, v2, s[2:3]
    s_endpgm''', "gfx1100")
mem = DeviceMemory()
out = mem.alloc(64 * 4, "out")
args = mem.alloc(8, "kernarg"); mem.write(args, np.uint64(out).tobytes())
at = mem.alloc(len(code), "code"); mem.write(at, code)
Machine("gfx1100", mem).run(Dispatch("squares", at, grid=(1, 1, 1), block=(64, 1, 1), vgprs=8,
                                     user_sgprs=[args & 0xFFFFFFFF, args >> 32]))
assert (np.frombuffer(mem.read(out, 256), np.uint32) == np.arange(64) ** 2).all()
print(" ".join(sorted(m for m in sys.modules if m in ("isa.code_facts", "isa.float_modes", "isa.gen", "isa.facts")
                      or m.startswith("isa.gen.") or m.endswith(".facts") and m.startswith("isa.generated."))))
"""


def test_assembling_disassembling_and_emulating_parse_no_facts(tmp_path):
    """A fresh process (empty caches) that assembles, disassembles and emulates reads the facts from
    the generated tables (isa.facts) and imports none of the modules that parse code or prose for
    them (isa.code_facts, isa.float_modes, isa.gen: its descriptions' regular expressions)."""
    env = dict(os.environ, WAVESMITH_CACHE=str(tmp_path), PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["isa.facts", "isa.generated.rdna3.facts", "isa.generated.rdna4.facts"], r.stdout
