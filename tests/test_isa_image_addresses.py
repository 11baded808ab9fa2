"""The image address tables the generator reads from the manuals (isa/gen/image_addresses.py:
tables["image_addresses"], ["image_derivatives"], ["image_dims"]), held against the other
document and against LLVM 22: RDNA4's table, read from a Markdown conversion that stacks and
merges its cells, is row for row the table the RDNA3 and RDNA3.5 PDFs print; each DIM code's
coordinates (image_load) and coordinates plus slopes (image_sample_d) are the address VGPRs
llvm-mc-22 takes for that dim (NSA lists, which it takes at exactly one length), A16 packing two a
VGPR, and its dim:SQ_RSRC_IMG_<name> encodes the manual's code."""
from __future__ import annotations

import pytest

import isa
from isa.gen.image_addresses import type_key
from isa.memory_registers import image_dims

from .asm_mutations import llvm_encodings, llvm_mc

FAMILIES = ("rdna3", "rdna3.5", "rdna4")
TARGETS = {"gfx1100": "rdna3", "gfx1151": "rdna3.5", "gfx1201": "rdna4"}


def _rows(family: str) -> set:
    return {(ops, a16, type_key(kind), acnt, comps)
            for ops, a16, kind, acnt, comps, _ in isa.load(family).tables["image_addresses"]}


def test_markdown_table_is_the_pdfs():
    """The unstacked Markdown rows (RDNA4) are the PDFs' rows (RDNA3, RDNA3.5): the same opcode
    groups (two labels from errata: the conversion lost them), A16 halves, ACNTs and components,
    101 rows each."""
    rdna3, rdna35, rdna4 = (_rows(f) for f in FAMILIES)
    assert len(rdna3) == 101
    assert rdna3 == rdna35 == rdna4
    applied = {e["id"] for e in isa.load("rdna4").errata}
    assert {"rdna4-image-mip-opcodes", "rdna4-image-sample-opcodes"} <= applied


def test_rows_agree_with_their_acnt_and_dims():
    """Every row holds ACNT + 1 components, and a type's rows hold its DIM code's coordinates plus
    what the opcode adds (mip level, lod, clamp) -- the generator's own checks, over the committed
    table; the page's "The number of components in body is the value of the ACNT field plus one"."""
    for family in FAMILIES:
        tables = isa.load(family).tables
        coords = {type_key(name): c for _, name, c, _, _ in tables["image_dims"]}
        for ops, a16, kind, acnt, comps, page in tables["image_addresses"]:
            assert len(comps) == acnt + 1, (family, page, ops, kind)
            if kind != "Any":
                assert tuple(c for c in comps if c not in ("mipid", "lod", "clamp")) == coords[type_key(kind)]
        assert [r[0] for r in tables["image_dims"]] == list(range(8))
    for family in ("cdna3", "cdna4"):
        assert "image_dims" not in isa.load(family).tables


def _address(first: int, n: int, fields: int) -> str:
    """An NSA address list of n VGPRs from v<first> over `fields` address fields (the last one a
    range if need be); a single VGPR plainly."""
    if n == 1:
        return f"v{first}"
    singles = [f"v{first + i}" for i in range(min(n, fields) - 1)]
    rest = first + len(singles)
    last = f"v{rest}" if n - len(singles) == 1 else f"v[{rest}:{first + n - 1}]"
    return "[" + ", ".join(singles + [last]) + "]"


def _dim_bits(spec, fmt: str, data: bytes) -> int:
    hi, lo = next((hi, lo) for name, hi, lo, *_ in spec.formats[fmt].fields if name == "DIM")
    return (int.from_bytes(data[:8].ljust(8, b"\0"), "little") >> lo) & ((1 << (hi - lo + 1)) - 1)


@pytest.mark.skipif(llvm_mc() is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("target", TARGETS)
def test_dims_are_llvms(target):
    """Per DIM code: image_load with the dim's coordinates (and with A16, half of them rounded
    up) and image_sample_d with coordinates plus slopes assemble, one VGPR fewer is refused ('image
    address size does not match dim and a16'), and one more where the list is single VGPRs (LLVM
    takes a last range as wide as a register class), and the DIM field of LLVM's bytes is the
    code of the manual's name for the dim."""
    spec = isa.load(target)
    family = TARGETS[target]
    load = spec.lookup("image_load")[0]
    sample_d = spec.lookup("image_sample_d")[0]
    assert image_dims(load) == image_dims(sample_d)
    lines, expect = [], []
    for code, name, coords, derivatives, _ in spec.tables["image_dims"]:
        dim = "SQ_RSRC_IMG_" + name.upper().replace(" ", "_")
        for d, count, a16, sampler in ((load, len(coords), False, False),
                                       (load, -(-len(coords) // 2), True, False),
                                       (sample_d, len(coords) + derivatives, False, True)):
            fields = 4 if d.format == "VSAMPLE" else 5
            for n in (count - 1, count, count + 1):
                if n < 1 or n > max(count, fields):   # a last field's range may be wider (its register class)
                    continue
                operands = f"v[0:3], {_address(4, n, fields)}, s[0:7]" + (", s[8:11]" if sampler else "")
                lines.append(f"{d.name.lower()} {operands} dmask:0xf dim:{dim}" + (" a16" if a16 else ""))
                expect.append((n == count, code, d.format))
    answers = llvm_encodings(lines, target)
    assert len(answers) == len(lines)
    for line, answer, (ok, code, fmt) in zip(lines, answers, expect):
        assert (answer is not None) == ok, (family, line, answer)
        if ok:
            assert _dim_bits(spec, fmt, answer) == code, (family, line, answer.hex())


_STACKED = """# **10.2. Image Opcodes with No Sampler**

| Opcode a16[0] | type | acnt | VGPR n | | | |
|---|---|---|---|---|---|---|
| | | | [31:0] | VGPR n+1 [31:0] | VGPR n+2 [31:0] | VGPR n+3 [31:0] |
| ATOMIC 0 | 1D 2D 3D 2D Array MSAA | 0 1 2 3 | s s s s | t t t | r slice | fragid |
| 1 | 1D 2D 3D 2D Array MSAA | 0 1 2 3 | -, s t, s t, s t, s | -, r fragid, slice | | |
| 0 | 1D 2D | 1 2 | s s | mipid t | mipid | |
"""


def _section(text: str):
    from isa.gen.markdown import markdown_lines
    from isa.gen.parse import split_sections
    return next(s for s in split_sections(markdown_lines(text)) if s.title == "Image Opcodes with No Sampler")


def test_stacked_markdown_rows_are_dealt_out():
    """A row holding a column group stacked (types, ACNTs, one cell per VGPR column) is dealt out
    row by row by each row's VGPR count; a group whose label the conversion lost stops the
    generator unless an image_opcodes erratum names it, and an erratum whose group has a label
    is stale."""
    from isa.errata import Erratum
    from isa.gen.image_addresses import parse_address_table
    from isa.gen.parse import SpecParseError
    with pytest.raises(SpecParseError, match="image_opcodes erratum"):
        parse_address_table(_section(_STACKED), {}, [])
    fix = Erratum("x", ("rdna4",), {"rdna4": 1}, "image_opcodes", ("Image Opcodes with No Sampler", ("s", "mipid")),
                  (), ("LOAD_MIP",), "test")
    applied: list = []
    rows = parse_address_table(_section(_STACKED), {fix.target: fix}, applied)
    assert [r[:5] for r in rows] == [
        (("ATOMIC",), 0, "1D", 0, ("s",)), (("ATOMIC",), 0, "2D", 1, ("s", "t")),
        (("ATOMIC",), 0, "3D", 2, ("s", "t", "r")), (("ATOMIC",), 0, "2D Array MSAA", 3, ("s", "t", "slice", "fragid")),
        (("ATOMIC",), 1, "1D", 0, ("s",)), (("ATOMIC",), 1, "2D", 1, ("s", "t")),
        (("ATOMIC",), 1, "3D", 2, ("s", "t", "r")), (("ATOMIC",), 1, "2D Array MSAA", 3, ("s", "t", "slice", "fragid")),
        (("LOAD_MIP",), 0, "1D", 1, ("s", "mipid")), (("LOAD_MIP",), 0, "2D", 2, ("s", "t", "mipid"))]
    assert [e["id"] for e in applied] == ["x"]
    stale = Erratum("y", ("rdna4",), {"rdna4": 1}, "image_opcodes", ("Image Opcodes with No Sampler", ("s",)),
                    (), ("LOAD",), "test")
    with pytest.raises(SpecParseError, match="stale"):
        parse_address_table(_section(_STACKED), {fix.target: fix, stale.target: stale}, [])
    with pytest.raises(SpecParseError, match="VGPR column"):
        parse_address_table(_section(_STACKED.replace("| r slice |", "| r |")), {fix.target: fix}, [])
