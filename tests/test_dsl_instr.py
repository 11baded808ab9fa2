"""dsl.instr.Instr, the instruction value: the parser and the DSL build equal values for the same
instruction, it is immutable and hashes by value (not by where it was written), and once
encoded its definition and encoding are the format LLVM 22's corpus lists for the same line."""
from __future__ import annotations

import dataclasses
import gzip
import os
import random
from pathlib import Path

import pytest

from dsl.asm import encoder, parse
from dsl.instr import Instr, Modifiers
from dsl.operands import Reg, Special
from dsl.rdna3 import Kernel, s, v, v_add_f32, v_cndmask_b32, s_load_b64

SHARED = Path(os.environ.get("WAVESMITH_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def test_the_parser_and_a_constructed_value_agree():
    parsed = parse("  v_add_f32 v1, v2, 1.0 clamp  // comment")[0]
    built = Instr("v_add_f32", (Reg("v", 1), Reg("v", 2), 1.0), Modifiers(clamp=True))
    assert parsed == built and hash(parsed) == hash(built)
    assert (parsed.line, parsed.column) == (1, 3) and (built.line, built.column) == (0, 0)
    # the same instruction written elsewhere is the same value; another operand is not
    elsewhere = parse("\n\nv_add_f32 v1, v2, 1.0 clamp")[0]
    assert elsewhere == parsed and len({parsed, elsewhere, built}) == 1
    assert parse("v_add_f32 v1, v2, 2.0 clamp")[0] != parsed


def test_lists_in_operands_and_modifiers_hash():
    i = parse("v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]")[0]
    assert i.modifiers["op_sel"] == [1, 0]
    assert hash(i) == hash(parse("v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]")[0])


def test_an_instr_cannot_be_changed_in_place():
    i = parse("s_load_b64 s[2:3], s[0:1], 0x10 glc")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        i.mnemonic = "s_load_b32"
    with pytest.raises(TypeError, match="read-only"):
        i.modifiers["glc"] = False
    with pytest.raises(TypeError, match="read-only"):
        i.modifiers.pop("glc")
    changed = dataclasses.replace(i, operands=(Reg("s", 4, 2),) + i.operands[1:])
    assert changed != i and i.operands[0] == Reg("s", 2, 2)


def test_a_dsl_call_builds_the_value_the_parser_reads():
    k = Kernel("gfx1100")
    k += v_cndmask_b32(v[1], v[2], v[3], Special("vcc_lo"))
    k += s_load_b64(s[2:3], s[0:1], 16)
    for item, line in zip(k.items, ["v_cndmask_b32 v1, v2, v3, vcc_lo", "s_load_b64 s[2:3], s[0:1], 16"]):
        parsed = parse(line)[0]
        assert dataclasses.replace(item.instr, defn=None, encoding=None) == parsed
        assert encoder("gfx1100").encode(parsed)[0] == item.data


def test_effects_need_a_chosen_instruction():
    with pytest.raises(ValueError, match="v_add_f32: no instruction chosen"):
        parse("v_add_f32 v1, v2, v3")[0].effects
    k = Kernel("gfx1100")
    k += v_add_f32(v[1], v[2], v[3])
    e = k.items[0].instr.effects
    assert e.reads == {"S0", "S1"} and e.full == {"D0"}


@pytest.mark.skipif(not (SHARED / "conformance/llvm/gfx1100.tsv.gz").exists(), reason="shared corpus absent")
def test_the_chosen_encoding_is_the_format_llvm_lists():
    """A Kernel item's Instr names the format LLVM 22's corpus gives the same line (its first
    column), for a sample of the scalar and vector rows LLVM re-encodes."""
    from dsl.kernel import build_namespace
    ns = build_namespace("gfx1100")
    rows = []
    with gzip.open(SHARED / "conformance/llvm/gfx1100.tsv.gz", "rt") as f:
        next(f)
        for line in f:
            family, _, text, reenc = line.rstrip("\n").split("\t")
            if reenc != "-" and family in ("SOP1", "SOP2", "SOPC", "VOP1", "VOP2", "VOP3", "VOPC", "SMEM", "DS"):
                rows.append((family, text))
    checked = 0
    for family, text in random.Random(7).sample(rows, 400):
        st = parse(text)[0]
        fn = ns.get(st.mnemonic)
        if fn is None or st.dual is not None:
            continue
        try:
            inst = fn(*st.operands, **st.modifiers)
        except (ValueError, TypeError):
            continue              # spellings the DSL writes differently (keywords, symbols)
        assert inst.instr.encoding == family, text
        assert inst.instr.defn.format == family
        checked += 1
    assert checked > 300
