"""isa.effects, isa.memory_access and isa.control answer from the tables the generator writes
(isa/generated/<family>/effects.py, memory_access.py, control.py): the committed tables are what
the generator works out from the committed instructions (what `wavesmith gen --check` checks with
the manuals at hand), every answer read from them equals reading the manual entry afresh, and a
process that assembles, disassembles, allocates registers and runs a kernel on the emulator never
reads pseudocode or descriptions for these facts."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import isa
from isa import control, effects, memory_access
from isa.gen import control as control_reader
from isa.gen import effects as effects_reader
from isa.gen import image_d16, image_opcodes
from isa.gen import memory_access as memory_reader
from isa.gen.instruction_facts import control_facts, half_results, memory_facts, operand_effects

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")
REPO = Path(__file__).resolve().parent.parent


def _generated(family: str, name: str):
    return importlib.import_module(f"isa.generated.{family.replace('.', '_')}.{name}")


@pytest.mark.parametrize("family", FAMILIES)
def test_committed_tables_are_what_the_generator_writes(family):
    rows = importlib.import_module(f"isa.generated.{family.replace('.', '_')}").INSTRUCTIONS
    records, by_instruction = operand_effects(rows)
    assert (_generated(family, "effects").EFFECTS, _generated(family, "effects").BY_INSTRUCTION) == \
        (tuple(records), tuple(by_instruction))
    spec = isa.load(family)
    memory = memory_facts(rows, spec.tables, spec.traits.roles.image)
    image_d16.apply_errata(family, rows, spec.tables, memory["takes_d16"])     # (the D16 field's errata)
    assert _generated(family, "memory_access").MEMORY_ACCESS == memory
    assert _generated(family, "control").CONTROL == control_facts(rows)
    assert _generated(family, "effects").HALF_RESULTS == half_results(family, rows, spec.traits.roles)


@pytest.mark.parametrize("family", FAMILIES)
def test_answers_from_the_tables_equal_reading_the_manual(family):
    spec = isa.load(family)
    image = spec.traits.roles.image
    key = tuple(spec.tables.get("sample_suffixes", ()))
    groups = image_opcodes.groups(spec.tables.get("image_addresses", ()))
    for d in spec.instructions:
        assert effects.effects(d.pcode) == effects_reader.effects(d.pcode), (family, d.format, d.name)
        for flag in (False, d.format in image):
            assert memory_access.memory_access(d, flag) == memory_reader.memory_access(d, flag), (family, d.name, flag)
        for name in memory_reader.FACTS:
            if name not in ("memory_access", "image_loads"):
                got, read = getattr(memory_access, name)(d), memory_reader.compute(name, d)
                if name in memory_reader.IMAGE_ONLY and d.format not in image:
                    read = False        # stored for image instructions only: no other one takes a sampler
                assert got == read and type(got) is type(read), (family, d.format, d.name, name)
        # the address tables and suffix key are read by the generator alone: the table's answer is a fresh reading
        got = memory_access.image_address(d)
        read = image_opcodes.image_address(d, groups, key, memory_reader.ray_query(d)) if d.format in image \
            else memory_access.ImageAddress()
        assert got == read and type(got) is type(read), (family, d.name)
        for tables in (spec.tables, None):
            assert control.control(d, tables) == control_reader.read_control(d, tables), (family, d.name)


def test_some_answers_by_hand():
    """A few values as the manuals' entries read (independent of the generator's tables)."""
    rdna3, rdna4 = isa.load("rdna3"), isa.load("rdna4")
    mad = rdna3.lookup("v_mad_u64_u32")[0]           # { D1.u1, D0.u64 } = 65'B(... S0 * S1 + S2)
    fx = effects.effects(mad.pcode)
    assert (fx.full, fx.reads) == ({"D0", "D1"}, {"S0", "S1", "S2"})
    load = rdna3.lookup("global_load_b96")[0]         # VDATA[95 : 64] = MEM[ADDR + 8U].b32
    a = memory_access.memory_access(load)
    assert (a.direction, a.result_dwords, a.d16) == ("load", 3, False)
    assert memory_access.memory_access(rdna3.lookup("global_load_d16_hi_b16")[0]).d16 is True
    assert memory_access.memory_access(rdna3.lookup("ds_cmpstore_rtn_b32")[0]).direction == "atomic"
    sample = rdna3.lookup("image_sample")[0]         # no code: "Sample texture map"
    assert memory_access.memory_access(sample).direction is None
    assert memory_access.memory_access(sample, True).direction == "load"
    waitcnt = rdna3.lookup("s_waitcnt")[0]           # the s_waitcnt table's fields
    assert control.control(waitcnt, rdna3.tables).waits == tuple(rdna3.tables["waitcnt"])
    assert control.control(waitcnt, rdna3.tables).all_ones_skips is True
    assert control.control(waitcnt, None).waits == ()
    wait = rdna4.lookup("s_wait_loadcnt_dscnt")[0]   # "Wait until LOADCNT is ... SIMM16[13:8] and DSCNT ... SIMM16[5:0]"
    assert control.control(wait, rdna4.tables).waits == (("LOAD", 13, 8), ("DS", 5, 0))
    assert control.control(rdna3.lookup("s_endpgm")[0]).ends_wave is True


def test_image_only_facts_are_stored_for_image_instructions_alone():
    """takes_sampler, image_loads and image_address are stored only for the image formats'
    instructions (image_sample_c_l_o: the sampler table's Sample "_L" rows, lod past the
    coordinates, and z-compare and offsets a VGPR each by the manual's suffix key)."""
    for family in FAMILIES:
        spec = isa.load(family)
        table = _generated(family, "memory_access").MEMORY_ACCESS
        for name in (*memory_reader.IMAGE_ONLY, "takes_d16"):
            assert {spec.instructions[i].format for i in table[name]} <= spec.traits.roles.image, (family, name)
        assert {spec.instructions[i].format for i in table["image_address"]} <= spec.traits.roles.image, family
    rdna3 = isa.load("rdna3")
    a = memory_access.image_address(rdna3.lookup("image_sample_c_l_o")[0])
    assert (a.group, a.extra, a.derivatives, a.coordinates, a.adds, a.page) == \
        (("Sample", "_L"), ("z-comp", "offsets"), 0, True, ("lod",), 109)
    assert memory_access.takes_sampler(rdna3.lookup("image_sample_c_l_o")[0]) is True
    assert memory_access.takes_sampler(rdna3.lookup("image_load")[0]) is False
    assert memory_access.takes_sampler(rdna3.lookup("v_add_f32")[0]) is False


def test_one_rule_for_copies_and_code_no_family_has():
    """Every reader of generated facts (isa.effects, isa.memory_access, isa.control, isa.facts)
    answers a copy of an instruction as the instruction, gives an entry without code that no family
    holds the defaults, and refuses code that no loaded family has (FactsError naming it) instead
    of parsing it; the generator's readers read such code."""
    import dataclasses
    from isa import facts
    from isa.fact_tables import FactsError
    rdna3 = isa.load("rdna3")
    load = rdna3.lookup("global_load_b96")[0]
    copy = dataclasses.replace(load)
    assert memory_access.memory_access(copy) == memory_access.memory_access(load)
    assert memory_access.memory_access(copy).result_dwords == 3
    end = rdna3.lookup("s_endpgm")[0]
    assert control.control(dataclasses.replace(end)).ends_wave is True
    code = "D0.u32 = S0.u32 + S1.u32;\nSCC = 1'1U"
    assert effects_reader.effects(code).full == {"D0", "SCC"}
    with pytest.raises(FactsError, match="D0.u32 = S0.u32 \\+ S1.u32;' ..."):
        effects.effects(code)
    made_up = dataclasses.replace(load, name="GLOBAL_LOAD_MADE_UP", pcode="VDATA[31 : 0] = MEM[ADDR].b32")
    for ask in (memory_access.memory_access, memory_access.value_dwords, memory_access.image_address,
                control.control, facts.atomic_update):
        with pytest.raises(FactsError, match="GLOBAL_LOAD_MADE_UP"):
            ask(made_up)
    assert memory_reader.memory_access(made_up).result_dwords == 1
    no_code = dataclasses.replace(load, name="V_NOTHING", pcode=None, description="nothing")
    assert memory_access.memory_access(no_code) == memory_access.DEFAULTS["memory_access"]
    assert control.control(no_code) == control.Control()
    assert effects.effects(None).reads == frozenset()


_WORK = r"""
import sys
import numpy as np
import dsl
from dsl.rdna3 import *
from emu.launch import Dispatch
from emu.machine import Machine
from emu.memory import DeviceMemory

text = '''
    s_load_b64 s[2:3], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    v_mul_u32_u24 v2, v0, v0
    s_waitcnt lgkmcnt(0)
    global_store_b32 v1, v2, s[2:3]
    s_endpgm'''
code = dsl.assemble(text, "gfx1100")
listing = dsl.disassemble(code, "gfx1100")
assert "global_store_b32" in listing, listing

k = Kernel("gfx1100")                        # virtual registers: the allocator's liveness
acc, t, n = k.vreg(name="acc"), k.vreg(4, name="t"), k.sreg(name="n")
k += v_mov_b32(acc, 0)
k += s_mov_b32(n, 8)
k.label("loop")
k += global_load_b128(t, v[0], s[0:1])
k += s_waitcnt(0)
k += v_fmac_f32(acc, t[0], t[1])
k += s_sub_u32(n, n, 1)
k += s_cmp_lg_u32(n, 0)
k += s_cbranch_scc1("loop")
k += global_store_b32(v[0], acc, s[0:1])
k += s_endpgm()
k.assemble()

mem = DeviceMemory()
out = mem.alloc(64 * 4, "out")
args = mem.alloc(8, "kernarg"); mem.write(args, np.uint64(out).tobytes())
at = mem.alloc(len(code), "code"); mem.write(at, code)
Machine("gfx1100", mem).run(Dispatch("squares", at, grid=(1, 1, 1), block=(64, 1, 1), vgprs=8,
                                     user_sgprs=[args & 0xFFFFFFFF, args >> 32]))
assert (np.frombuffer(mem.read(out, 256), np.uint32) == np.arange(64) ** 2).all()
readers = sorted(m for m in sys.modules if m == "isa.gen" or m.startswith("isa.gen."))
assert not readers, readers
"""


def test_a_normal_process_reads_the_tables_not_the_manual(tmp_path):
    """Assembling, disassembling, allocating and a launch on the emulator (with an empty fact
    cache, so the emulator asks isa/ for every fact) never import the generator (isa/gen: the
    readers of pseudocode and descriptions for these facts)."""
    env = {**__import__("os").environ, "WAVESMITH_CACHE": str(tmp_path)}
    subprocess.run([sys.executable, "-c", _WORK], cwd=REPO, env=env, check=True)
