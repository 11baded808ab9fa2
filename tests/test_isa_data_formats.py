"""The buffer data-format tables the generator reads from the manuals (isa tables 'data_formats',
and on CDNA 'number_formats'): rows checked against the manuals' tables by page, the names against
what llvm-mc-22 accepts and prints in format:[...] for each target, and the formats the emulator
converts against the manual's equal-channel formats."""
from __future__ import annotations

import pytest

import dsl
import isa
from emu.buffer_gfx9 import data_formats as gfx9_data_formats
from emu.handwritten.buffer_format import layout
from emu.semantics import SemanticsError
from isa.gen.parse import data_format_layout

from .llvm_tools import mc_encodings, run, tool


def rows(arch, key="data_formats"):
    return {row[0]: row for row in isa.load(arch).tables[key]}


# (arch, row): rows as the manuals print them, with the physical page of the row; for a manual read
# from its Markdown conversion, (first, last): the pages of the conversion's marks around the row
# (it keeps pages only at link targets: isa/gen/markdown.py estimates the page in between)
MANUAL_ROWS = [
    # RDNA3 Table 52 "Buffer and Image Data Formats", pages 115-116 (printed 106-107)
    ("rdna3", (0, "INVALID", (), None, 115)),
    ("rdna3", (1, "8_UNORM", (8,), "UNORM", 115)),
    ("rdna3", (30, "10_11_11_FLOAT", (10, 11, 11), "FLOAT", 115)),
    ("rdna3", (42, "8_8_8_8_UNORM", (8, 8, 8, 8), "UNORM", 115)),
    ("rdna3", (63, "32_32_32_32_FLOAT", (32, 32, 32, 32), "FLOAT", 115)),
    ("rdna3", (75, "32_FLOAT_CLAMP", (), None, 115)),
    ("rdna3", (116, "BC4_SNORM", (), None, 116)),       # after the page break
    ("rdna3", (206, "YCBCR_SRGB", (), None, 116)),
    # RDNA3.5: the same table two pages on
    ("rdna3.5", (29, "16_16_FLOAT", (16, 16), "FLOAT", 117)),
    ("rdna3.5", (206, "YCBCR_SRGB", (), None, 118)),
    # RDNA4 Table 62, from page 138 (its anchor page-137-1; section 10.8 after it: page-138-0):
    # 112-227 are one cell of codes and one of names in the conversion
    ("rdna4", (57, "16_16_16_16_FLOAT", (16, 16, 16, 16), "FLOAT", (138, 139))),
    ("rdna4", (112, "BC2_SRGB", (), None, (138, 139))),
    ("rdna4", (205, "YCBCR_UNORM", (), None, (138, 139))),
    ("rdna4", (227, "6E4_FLOAT", (), None, (138, 139))),
    # CDNA3: DFMT from the buffer chapter's field table (section 9.1.2, page 72; 9.1.3 on page 73),
    # which names 7 and 15; the MTBUF Fields table (page 555) leaves them out
    ("cdna3", (7, "11_11_10", (11, 11, 10), None, (72, 73))),
    ("cdna3", (10, "8_8_8_8", (8, 8, 8, 8), None, (72, 73))),
    ("cdna3", (15, "RESERVED", (), None, (72, 73))),
    ("cdna4", (14, "32_32_32_32", (32, 32, 32, 32), None, (83, 84))),    # (9.1.2 on 83, 9.1.3 on 84)
]


def _on(page: int, expected) -> bool:
    return expected[0] <= page <= expected[1] if isinstance(expected, tuple) else page == expected


@pytest.mark.parametrize("arch,row", MANUAL_ROWS, ids=lambda v: str(v[0]) if isinstance(v, tuple) else v)
def test_rows_as_the_manual_prints_them(arch, row):
    got = rows(arch)[row[0]]
    assert got[:-1] == row[:-1] and _on(got[-1], row[-1]), (got, row)


def test_table_sizes_and_number_formats():
    for arch in ("rdna3", "rdna3.5", "rdna4"):
        codes = set(rows(arch))
        # 0-89, the compressed 109-122 and YCbCr 205-206 (RDNA4 adds 227)
        assert codes - {227} == set(range(90)) | set(range(109, 123)) | {205, 206}, arch
        assert "number_formats" not in isa.load(arch).tables
    for arch, page in (("cdna3", (72, 73)), ("cdna4", (83, 84))):
        assert set(rows(arch)) == set(range(16))
        numbers = rows(arch, "number_formats")
        assert {c: r[1] for c, r in numbers.items() if r[0] == c} == dict(enumerate(
            ("UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "RESERVED", "FLOAT")))
        assert all(_on(r[2], page) for r in numbers.values()), numbers


def test_name_layouts():
    assert data_format_layout("2_10_10_10_SSCALED") == ((2, 10, 10, 10), "SSCALED")
    assert data_format_layout("16_16") == ((16, 16), None)
    for name in ("INVALID", "X24_8_32_UINT", "1_REVERSED_UNORM", "GB_GR_UNORM", "BC6_UFLOAT", "6E4_FLOAT"):
        assert data_format_layout(name) == ((), None), name


# ------------------------------------------------------------------ against llvm-mc-22
RDNA_TARGETS = [("gfx1100", "tbuffer_load_format_x v1, off, s[4:7], 0"),
                ("gfx1151", "tbuffer_load_format_x v1, off, s[4:7], 0"),
                ("gfx1201", "tbuffer_load_format_x v1, off, s[4:7], null")]


@pytest.mark.parametrize("target,base", RDNA_TARGETS, ids=[t for t, _ in RDNA_TARGETS])
def test_rdna_format_names_match_llvm(target, base):
    """Every format:[BUF_FMT_<manual name>] encodes as LLVM encodes it (LLVM names codes 0-63 and
    refuses the others' names), and every FORMAT code prints as LLVM prints it."""
    names = {code: row[1] for code, row in rows(target).items()}
    lines = [f"{base} format:[BUF_FMT_{name}]" for name in names.values()]
    want = mc_encodings(lines, target)
    for code, line, llvm in zip(names, lines, want):
        assert (llvm is not None) == (code < 64), line
        if llvm is not None:
            assert dsl.assemble(line, target) == llvm, line
        else:
            with pytest.raises(dsl.AsmError):
                dsl.assemble(line, target)
    numbered = [f"{base} format:{code}" for code in range(128)]
    llvm_text = [ln.split(";")[0].strip() for ln in
                 run(tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={target}", stdin="\n".join(numbered).encode()).splitlines()
                 if ln.strip().startswith("tbuffer")]
    ours = [dsl.disassemble(code, target).strip() for code in mc_encodings(numbered, target)]
    assert ours == llvm_text
    assert llvm_text[42].endswith("format:[BUF_FMT_8_8_8_8_UNORM]")


def test_cdna_format_names_match_llvm():
    """Every BUF_DATA_FORMAT_* x BUF_NUM_FORMAT_* pair of the manual's DFMT / NFMT codes encodes and
    prints as llvm-mc-22 does for gfx942 and gfx950 (a reserved code is RESERVED_<code> there)."""
    for target in ("gfx942", "gfx950"):
        dfmts, nfmts = rows(target), rows(target, "number_formats")
        spell = lambda code, name: f"RESERVED_{code}" if name == "RESERVED" else name   # noqa: E731
        lines = [f"tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_{spell(d, dr[1])},"
                 f"BUF_NUM_FORMAT_{spell(n, nr[1])}]" for d, dr in dfmts.items() for n, nr in nfmts.items()]
        want = mc_encodings(lines, target)
        assert all(w is not None for w in want)
        for line, llvm in zip(lines, want):
            assert dsl.assemble(line, target) == llvm, line
        llvm_text = [ln.split(";")[0].strip() for ln in
                     run(tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={target}", stdin="\n".join(lines).encode()).splitlines()
                     if ln.strip().startswith("tbuffer")]
        assert [dsl.disassemble(code, target).strip() for code in want] == llvm_text
        assert "format:[BUF_DATA_FORMAT_11_11_10,BUF_NUM_FORMAT_FLOAT]" in llvm_text[7 * 8 + 7]


# ------------------------------------------------------------------ what the emulator converts
def modelled(formats) -> set[int]:
    out = set()
    for code in formats:
        try:
            layout(code, formats)
            out.add(code)
        except SemanticsError:
            pass
    return out


def test_emulator_converts_the_equal_channel_formats():
    """The 8/16/32-bit equal-channel formats of the manual's table (Table 52: 1-29 and 42-63, but
    no 8-bit float) and nothing else; on CDNA the DFMTs with equal 8/16/32-bit channels with every
    named NFMT but the reserved one (no 8-bit float either)."""
    for arch in ("rdna3", "rdna3.5", "rdna4"):
        formats = {c: (r[1], r[2], r[3]) for c, r in rows(arch).items()}
        assert modelled(formats) == set(range(1, 30)) | set(range(42, 64)), arch
        assert layout(42, formats) == (4, 8, "UNORM")
        assert layout(29, formats) == (2, 16, "FLOAT")
    for arch in ("cdna3", "cdna4"):
        formats = gfx9_data_formats(isa.load(arch).tables)
        equal = (1, 2, 3, 4, 5, 10, 11, 12, 13, 14)
        eight_bit = (1, 3, 10)
        assert modelled(formats) == {d | n << 4 for d in equal for n in (0, 1, 2, 3, 4, 5, 7)
                                     if not (d in eight_bit and n == 7)}, arch
        assert layout(10 | 0 << 4, formats) == (4, 8, "UNORM")
        assert formats[7 | 7 << 4] == ("11_11_10_FLOAT", (11, 11, 10), "FLOAT")
        with pytest.raises(SemanticsError, match=r"32_RESERVED"):
            layout(4 | 6 << 4, formats)
