"""Which image instructions take D16 (isa.memory_access.takes_d16), generated from the image
chapter's D16 field ("Allowed only with these opcodes: ...", isa/gen/image_d16.py) with the
image_d16 errata: the lists as the manuals print them, the descriptions' own words for the
instructions left out (the *_PCK* forms "without format conversion", get_lod's two 32-bit LOD
values), and every image instruction of gfx1100, gfx1151 and gfx1201 against llvm-mc-22: it takes
`d16` exactly where the fact says so, our assembler takes and refuses the same lines (refusing at
d16's column), and the D16 bit set in its bytes is an instruction to both disassemblers exactly
there (skipped without llvm-mc-22)."""
from __future__ import annotations

import re
import warnings

import pytest

import isa
from dsl import assemble, disassemble
from dsl.asm_parse import AsmError
from dsl.signature import ray_address_groups
from isa.memory_access import (gathers_four, image_address, memory_access, memory_effects, ray_query, takes_d16,
                               takes_sampler)
from isa.memory_registers import image_address_words, image_data_dwords, image_dims

from .llvm_tools import mc_disassembly_each, mc_items

TARGETS = ("gfx1100", "gfx1151", "gfx1201")

# the D16 field of each manual's image chapter, as printed (RDNA3 page 105 and RDNA3.5 page 107 of
# the PDFs: bullets; RDNA4: the Markdown conversion's Instruction Fields table, one cell)
LISTED = {
    "gfx1100": ("IMAGE_SAMPLE*", "IMAGE_GATHER4", "IMAGE_LOAD", "IMAGE_LOAD_MIP", "IMAGE_STORE", "IMAGE_STORE_MIP"),
    "gfx1151": ("IMAGE_SAMPLE*", "IMAGE_GATHER4", "IMAGE_MSAA_LOAD", "IMAGE_LOAD", "IMAGE_LOAD_MIP", "IMAGE_STORE",
                "IMAGE_STORE_MIP"),
    "gfx1201": ("IMAGE_SAMPLE*", "IMAGE_GATHER4", "IMAGE_MSAA_LOAD", "IMAGE_LOAD", "IMAGE_LOAD_MIP", "IMAGE_STORE",
                "IMAGE_STORE_MIP"),
}


def _images(arch: str) -> list:
    spec = isa.load(arch)
    return [d for d in spec.instructions if d.format in spec.traits.roles.image]


@pytest.mark.parametrize("arch", TARGETS)
def test_d16_field_lists_as_printed(arch):
    opcodes, page = isa.load(arch).tables["image_d16_opcodes"]
    assert tuple(opcodes) == LISTED[arch]
    assert page == {"gfx1100": 105, "gfx1151": 107}.get(arch, page)


# the descriptions' words for data that are no converted texels: RDNA3 "without format conversion"
# (the *_PCK* forms), RDNA3.5 / RDNA4 "components are zero-extended" / "sign-extended" (loads) and
# "already packed and the format specified in the resource is ignored" (stores); get_lod's "two
# 32-bit floating point values" / "two single-precision float values"; and for converted ones
# "with format conversion" / "Perform the format conversion" / "converted using the format conversion"
_UNCONVERTED = re.compile(r"without format conversion|components are (?:zero|sign)-extended|already packed|"
                          r"LOD\)? .*as two (?:32-bit floating point|single-precision float) values", re.I)
_CONVERTED = re.compile(r"with format conversion|perform the format conversion|converted using the format conversion",
                        re.I)


@pytest.mark.parametrize("arch", TARGETS)
def test_descriptions_agree(arch):
    """Where a description says its data are moved without conversion (or are LOD values), the
    instruction takes no D16; where it says they are converted, it does; atomics, resource info
    and ray queries take none; samples and gathers do."""
    said_not = said = 0
    for d in _images(arch):
        text = d.description or ""
        if _UNCONVERTED.search(text):
            said_not += 1
            assert not takes_d16(d), d.name
        elif _CONVERTED.search(text):
            said += 1
            assert takes_d16(d), d.name
        if memory_access(d, True).direction == "atomic" or image_address(d).resource_info or ray_query(d):
            assert not takes_d16(d), d.name
        elif takes_sampler(d) and "LOD" not in d.name:
            assert takes_d16(d), d.name
    assert said_not == 7 and said == 4       # load(_mip)_pck(_sgn), store(_mip)_pck, get_lod; load/store(_mip)


def _vgprs(first: int, n: int) -> str:
    return f"v{first}" if n == 1 else f"v[{first}:{first + n - 1}]"


def _line(d, fields: int, d16: bool) -> str:
    """A line of image instruction `d`: dim 2D (2D MSAA for image_msaa_load), DMASK 0x1 (0x3 for
    a 64-bit atomic's data: cmpswap), the data as wide as DMASK / D16 ask, one address VGPR per
    address field (`fields` of them), the last one a range."""
    mn = d.name.lower()
    if ray_query(d):     # its results and address groups (all widths: tests/test_dsl_asm_image_ray.py)
        groups = ray_address_groups(d, False)
        data = _vgprs(0, dict((f, n) for f, n, _ in memory_effects(d).writes)["VDATA"])
        body = (f"{data}, {_vgprs(9, sum(groups))}, s[4:7]" if d.format == "MIMG" else
                f"{data}, [" + ", ".join(_vgprs(12 + sum(groups[:i]), n) for i, n in enumerate(groups)) + "], s[0:3]")
        return f"{mn} {body}" + (" d16" if d16 else "")
    msaa = gathers_four(d) and not takes_sampler(d)
    dim = 6 if msaa else 1
    access = memory_access(d, True)
    dmask = 0x3 if access.direction == "atomic" and (access.data_dwords or 1) == 2 else 0x1
    data = image_data_dwords(d, dmask, d16, 0)
    coords, gradients = image_dims(d)[dim]
    words = image_address_words(d, coords, gradients, False)
    n = min(words, fields)
    addrs = [f"v{20 + i}" for i in range(n - 1)] + [_vgprs(20 + n - 1, words - n + 1)]
    address = addrs[0] if len(addrs) == 1 else "[" + ", ".join(addrs) + "]"
    sampler = ", s[8:11]" if takes_sampler(d) else ""
    name = ("2D_MSAA" if msaa else "2D")
    return f"{mn} {_vgprs(0, data)}, {address}, s[0:7]{sampler} dmask:0x{dmask:x} dim:SQ_RSRC_IMG_{name}" + \
        (" d16" if d16 else "")


def _address_fields(spec, d) -> int:
    names = [f[0] for f in spec.formats[d.format].fields]
    return 5 if d.format == "MIMG" else sum(1 for n in names if re.fullmatch(r"VADDR\d", n))


@pytest.mark.parametrize("arch", TARGETS)
def test_d16_is_taken_where_llvm_takes_it(arch):
    """Each image instruction's line without d16 is LLVM's (its bytes); with d16, llvm-mc-22 and
    our assembler both take it where takes_d16 says so and both refuse it elsewhere, LLVM with
    "invalid operand for instruction", ours at d16's column. The D16 bit set in the line's bytes
    is an instruction to llvm-mc-22's disassembler and ours (printed with d16) exactly there."""
    spec = isa.load(arch)
    defs = _images(arch)
    base = [_line(d, _address_fields(spec, d), False) for d in defs]
    with_d16 = [_line(d, _address_fields(spec, d), True) for d in defs]
    llvm_base = mc_items(base, arch)
    llvm_d16 = mc_items(with_d16, arch)
    taken = refused = 0
    wrong, encodings = [], []
    for d, line, line16, (enc, err), (enc16, err16) in zip(defs, base, with_d16, llvm_base, llvm_d16):
        assert enc and not err, f"{line!r}: llvm-mc-22 refuses the line without d16: {err}"
        want = bytes(int(b, 16) for w in enc for b in w.split(","))
        encodings.append(want)
        llvm_takes = bool(enc16) and not err16
        try:
            ours_base = assemble(line, arch)
        except AsmError as e:
            ours_base = e
        assert ours_base == want, f"{line!r}: ours {ours_base}, llvm-mc-22 {want.hex()}"
        try:
            ours = assemble(line16, arch)
        except AsmError as e:
            ours = e
        if llvm_takes != takes_d16(d) or llvm_takes != isinstance(ours, bytes):
            wrong.append(f"{line16!r}: llvm-mc-22 {'takes' if llvm_takes else err16}, takes_d16 {takes_d16(d)}, "
                         f"ours {ours.hex() if isinstance(ours, bytes) else str(ours).splitlines()[0]}")
            continue
        if llvm_takes:
            taken += 1
            assert ours == bytes(int(b, 16) for w in enc16 for b in w.split(",")), line16
        else:
            refused += 1
            assert [m for _, m in err16] == ["invalid operand for instruction"], (line16, err16)
            column = line16.rindex(" d16") + 2
            assert str(ours).startswith(f"1:{column}: ") and "d16" in str(ours).splitlines()[0], (line16, str(ours))
    assert not wrong, "\n".join(wrong)
    print(f"\n{arch}: {len(defs)} image instructions, d16 taken by {taken}, refused by {refused}, as by llvm-mc-22")
    assert taken > 50 and refused > 15

    flipped = []
    for d, code in zip(defs, encodings):
        name, hi, lo = next(f for f in spec.formats[d.format].fields if f[0] == "D16")
        value = int.from_bytes(code, "little") | 1 << lo
        flipped.append(value.to_bytes(len(code), "little"))
    llvm_text = mc_disassembly_each(flipped, arch)
    for d, code, text in zip(defs, flipped, llvm_text):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = disassemble(code, arch)
        assert (text is not None) == takes_d16(d), (d.name, code.hex(), text)
        if text is None:
            assert ours.startswith(".long"), (d.name, code.hex(), ours)
        else:
            assert " d16" in ours and not ours.startswith(".long"), (d.name, code.hex(), ours)
