"""Each image opcode's address components as the generator matches it to the manuals' image address
tables (isa/gen/image_opcodes.py -> isa.memory_access.image_address): every image opcode of
gfx1100, gfx1151 and gfx1201 belongs to a row group of "Image Opcodes with No Sampler" / "with a
Sampler" but the ray queries, whose entries lay out their address register by register (none
falls back to reading its name or description), the groups
are the ones the manuals' pages label, the descriptions' own words on mip levels, resource
info, gathers and MSAA loads agree with them (the generator's readings: readers use the groups'), and the address VGPRs they give are the ones llvm-mc-22 takes for every
opcode at every surface type its group's rows list, with and without A16, and for the ray
queries at each layout their entries give: the assembler writes llvm-mc-22's bytes and the
disassembler prints its text (RDNA4's dual and BVH8 queries with their ten results)."""
from __future__ import annotations

import pytest

import isa
from isa.gen import image_opcodes
from isa.gen.image_addresses import type_key
from isa.gen.memory_access import mip_level, resource_info      # the descriptions' readings: a cross-check only
from isa.memory_access import gathers_four, image_address, memory_access, memory_effects, ray_query, takes_sampler
from isa.memory_registers import image_address_words, image_data_dwords, image_dims

from .asm_mutations import llvm_encodings, llvm_mc
from .test_isa_image_addresses import _address

TARGETS = {"gfx1100": "rdna3", "gfx1151": "rdna3.5", "gfx1201": "rdna4"}
# image opcodes and ray queries per target (the BVH intersections: RDNA4 adds the dual and BVH8 ones)
COUNTS = {"gfx1100": (84, 2), "gfx1151": (84, 2), "gfx1201": (91, 4)}


def _image(spec):
    return [d for d in spec.instructions if d.format in spec.traits.roles.image]


@pytest.mark.parametrize("target", TARGETS)
def test_every_image_opcode_has_a_table_group(target):
    """None fell back: the generator's match (a fresh one over the committed tables) finds a group
    for every image opcode but the ray queries, whose address the manual lays out in their entries
    (ImageAddress.ray, isa.memory_registers.ray_address_groups), and the generated fact is that group."""
    spec = isa.load(target)
    groups = image_opcodes.groups(spec.tables["image_addresses"])
    opcodes, rays = COUNTS[target]
    got = {"matched": 0, "ray": 0}
    for d in _image(spec):
        group = image_opcodes.match(d.name.removeprefix("IMAGE_"), groups)
        a = image_address(d)
        if group is None:
            assert ray_query(d) and a.group == () and a.ray, (target, d.name)
            assert d.name.startswith("IMAGE_BVH"), (target, d.name)
            got["ray"] += 1
            continue
        assert not ray_query(d), (target, d.name)
        assert a.group == group.labels and a.types == group.types and a.page == group.page, (target, d.name)
        got["matched"] += 1
    assert got == {"matched": opcodes - rays, "ray": rays}


# opcode -> (group labels, extra components, derivatives packing, coordinates, adds), as the pages
# read: RDNA3 10.2 (page 108: "LOAD LOAD_PCK LOAD_PCK_SGN STORE STORE_PCK", "ATOMIC", the mipid rows
# "LOAD_MIP ... STORE_MIP_PCK"; page 107: "GET_RESINFO x Any 0 mipid", MSAA_LOAD), 10.3 (page 109:
# Sample / GetLod, Sample "_L", Sample "_CL"; page 110: Gather, Gather "_L", "_CL") and its suffix
# key (Table 49, page 110: _B "1: lod bias", _C "1: z-comp", _O "1: offsets", _D "2,4 or 6: slopes",
# _G16 "packed 2 gradients per VGPR", _LZ none)
_LOAD = ("LOAD", "LOAD_PCK", "LOAD_PCK_SGN", "STORE", "STORE_PCK")
_MIP = ("LOAD_MIP", "LOAD_MIP_PCK", "LOAD_MIP_PCK_SGN", "STORE_MIP", "STORE_MIP_PCK")
BY_HAND = {
    "IMAGE_LOAD_PCK_SGN": (_LOAD, (), 0, True, ()),
    "IMAGE_STORE_MIP_PCK": (_MIP, (), 0, True, ("mipid",)),
    "IMAGE_ATOMIC_CMPSWAP": (("ATOMIC",), (), 0, True, ()),
    "IMAGE_GET_RESINFO": (("GET_RESINFO",), (), 0, False, ("mipid",)),
    "IMAGE_MSAA_LOAD": (("MSAA_LOAD",), (), 0, True, ()),
    "IMAGE_GET_LOD": (("Sample", "GetLod"), (), 0, True, ()),
    "IMAGE_SAMPLE_LZ_O": (("Sample", "GetLod"), ("offsets",), 0, True, ()),
    "IMAGE_SAMPLE_C_B_CL_O": (("Sample", "_CL"), ("lod bias", "z-comp", "offsets"), 0, True, ("clamp",)),
    "IMAGE_SAMPLE_C_L_O": (("Sample", "_L"), ("z-comp", "offsets"), 0, True, ("lod",)),
    "IMAGE_SAMPLE_D_CL_O_G16": (("Sample", "_CL"), ("offsets",), 2, True, ("clamp",)),
    "IMAGE_SAMPLE_C_D": (("Sample", "GetLod"), ("z-comp",), 1, True, ()),
    "IMAGE_GATHER4H": (("Gather",), (), 0, True, ()),
    "IMAGE_GATHER4_C_LZ_O": (("Gather",), ("z-comp", "offsets"), 0, True, ()),
    "IMAGE_GATHER4_B_CL": (("Gather", "_CL"), ("lod bias",), 0, True, ("clamp",)),
    "IMAGE_GATHER4_C_L": (("Gather", "_L"), ("z-comp",), 0, True, ("lod",)),
}


@pytest.mark.parametrize("target", TARGETS)
def test_groups_by_hand(target):
    spec = isa.load(target)
    for name, want in BY_HAND.items():
        a = image_address(spec.lookup(name)[0])
        assert (a.group, a.extra, a.derivatives, a.coordinates, a.adds) == want, (target, name)
    atomic = image_address(spec.lookup("IMAGE_ATOMIC_SWAP")[0])
    assert "Cube/Cube Array" not in atomic.types and "2D Array MSAA" in atomic.types    # the ATOMIC rows
    assert image_address(spec.lookup("IMAGE_MSAA_LOAD")[0]).types == ("2D MSAA", "2D Array MSAA")
    # what readers take from the group: mipid, GET_RESINFO, Gather, its MSAA surface types
    for name, want in {"IMAGE_LOAD_MIP": (True, False, False, "none"), "IMAGE_GET_RESINFO": (True, True, False, "also"),
                       "IMAGE_GATHER4_C_L": (False, False, True, "none"), "IMAGE_MSAA_LOAD": (False, False, False, "only"),
                       "IMAGE_ATOMIC_SWAP": (False, False, False, "also"), "IMAGE_SAMPLE_D": (False, False, False, "none"),
                       "IMAGE_LOAD": (False, False, False, "also")}.items():
        a = image_address(spec.lookup(name)[0])
        assert (a.mip_level, a.resource_info, a.gather, a.msaa) == want, (target, name)


@pytest.mark.parametrize("target", TARGETS)
def test_descriptions_agree_with_the_tables(target):
    """Two readings of the manual: the descriptions' "user-specified miplevel" / "for a given mip
    level" (the generator's mip_level) and "resource info" (resource_info) are the opcodes whose
    table group adds a mip level, and the one whose body holds no coordinates (GET_RESINFO's "Any"
    row); the sampling ones returning four texels of one channel (gathers_four: "Gather 4 single
    component elements") the Gather group's, the sampler-less one (image_msaa_load) the group
    whose rows list MSAA types alone. (The generator holds the same: gen/instruction_facts.py.)"""
    spec = isa.load(target)
    for d in _image(spec):
        a = image_address(d)
        if not a.group:
            continue
        assert mip_level(d) == ("mipid" in a.adds) == a.mip_level, (target, d.name)
        assert resource_info(d) == (not a.coordinates) == a.resource_info, (target, d.name)
        assert (takes_sampler(d) and gathers_four(d)) == ("Gather" in a.group) == a.gather, (target, d.name)
        msaa_only = all("MSAA" in t for t in a.types)
        assert (gathers_four(d) and not takes_sampler(d)) == msaa_only == (a.msaa == "only"), (target, d.name)


def _dim_codes(spec) -> dict:
    return {type_key(name): code for code, name, *_ in spec.tables["image_dims"]}


@pytest.mark.skipif(llvm_mc() is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("target", TARGETS)
def test_address_counts_are_llvms_for_every_group_type(target):
    """Every image opcode but the ray queries, at every surface type its group's rows list (GET_RESINFO's
    "Any": 1D), with and without A16: llvm-mc-22 assembles the address VGPRs image_address_words
    gives and refuses one fewer ('image address size does not match dim and a16')."""
    spec = isa.load(target)
    codes = _dim_codes(spec)
    names = {code: name for code, name, *_ in spec.tables["image_dims"]}
    lines, expect = [], []
    for d in _image(spec):
        a = image_address(d)
        if not a.group:
            continue
        access = memory_access(d, True)
        dmask = (1 << (access.data_dwords or 1)) - 1 if access.direction == "atomic" else 1
        data = image_data_dwords(d, dmask, False, 0)
        vdata = "v0" if data == 1 else f"v[0:{data - 1}]"
        fields = 4 if d.format == "VSAMPLE" else 5
        sampler = ", s[8:11]" if takes_sampler(d) else ""
        for kind in a.types:
            code = 0 if kind == "Any" else codes[type_key(kind)]
            dim = "SQ_RSRC_IMG_" + names[code].upper().replace(" ", "_")
            for a16 in (False, True):
                count = image_address_words(d, *image_dims(d)[code], a16)
                for n in (count - 1, count):
                    if n < 1:
                        continue
                    lines.append(f"{d.name.lower()} {vdata}, {_address(8, n, fields)}, s[0:7]{sampler} "
                                 f"dmask:{dmask:#x} dim:{dim}" + (" a16" if a16 else ""))
                    expect.append(n == count)
    answers = llvm_encodings(lines, target)
    assert len(answers) == len(lines) and len(lines) > 1500
    wrong = [(line, answer) for line, answer, ok in zip(lines, answers, expect) if (answer is not None) != ok]
    assert not wrong, (len(wrong), wrong[:10])


# the ray queries' layouts as the entries give them: (A16 0, A16 1); RDNA4's dual and BVH8 take no A16
# ("A16 is not supported")
RAYS = {"IMAGE_BVH_INTERSECT_RAY": ((1, 1, 3, 3, 3), (1, 1, 3, 3)),
        "IMAGE_BVH64_INTERSECT_RAY": ((2, 1, 3, 3, 3), (2, 1, 3, 3)),
        "IMAGE_BVH_DUAL_INTERSECT_RAY": ((2, 2, 3, 3, 2),), "IMAGE_BVH8_INTERSECT_RAY": ((2, 2, 3, 3, 1),)}


def _regs(first: int, n: int) -> str:
    return f"v{first}" if n == 1 else f"v[{first}:{first + n - 1}]"


@pytest.mark.parametrize("target", TARGETS)
def test_ray_layouts_by_hand(target):
    spec = isa.load(target)
    rays = {d.name: image_address(d).ray for d in _image(spec) if ray_query(d)}
    assert rays == {name: layouts for name, layouts in RAYS.items() if spec.lookup(name)}, target


@pytest.mark.skipif(llvm_mc() is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("target", TARGETS)
def test_ray_layouts_are_llvms(target):
    """Each ray query at each layout, as an address list (and on MIMG as one VGPR range too):
    llvm-mc-22 assembles it, our assembler writes its bytes, our disassembler prints the line; a
    list one VGPR short in its last group is refused."""
    from dsl.asm import assemble
    from dsl.asm_parse import AsmError
    from dsl.disasm import disassemble
    spec = isa.load(target)
    lines, expect = [], []
    for d in _image(spec):
        for a16, groups in enumerate(image_address(d).ray):
            results = dict((f, n) for f, n, _ in memory_effects(d).writes)["VDATA"]
            head = f"{d.name.lower()} {_regs(0, results)}, "
            tail = ", s[0:3]" + (" a16" if a16 else "")
            for shape, ok in ((groups, True), (groups[:-1] + (groups[-1] - 1,), False)):
                at, regs = 20, []
                for n in shape:
                    regs.append(_regs(at, n))
                    at += n
                lines.append(head + "[" + ", ".join(regs) + "]" + tail)
                expect.append(ok)
            if d.format == "MIMG":
                lines.append(head + _regs(20, sum(groups)) + tail)
                expect.append(True)
            if len(image_address(d).ray) == 1:    # no A16 layout: "A16 is not supported"
                lines.append(lines[-2] + " a16")
                expect.append(False)
    answers = llvm_encodings(lines, target)
    assert len(lines) == {"gfx1201": 14}.get(target, 12) and len(answers) == len(lines)
    for line, answer, ok in zip(lines, answers, expect):
        assert (answer is not None) == ok, (target, line)
        if ok:
            assert assemble(line, target) == answer, (target, line)
            assert disassemble(answer, target).strip() == line, (target, line)
        else:
            with pytest.raises(AsmError):
                assemble(line, target)


def test_rays_without_an_a16_layout_decode_as_llvm():
    """RDNA4's dual and BVH8 queries with the A16 bit set: llvm-mc-22 calls the bytes an invalid
    encoding (and reads on from the next dword); so does our disassembler."""
    from dsl.disasm import disassemble
    from .llvm_tools import mc_disassembly
    for line in ("image_bvh_dual_intersect_ray v[0:9], [v[10:11], v[12:13], v[14:16], v[17:19], v[20:21]], s[0:3]",
                 "image_bvh8_intersect_ray v[0:9], [v[10:11], v[12:13], v[14:16], v[17:19], v20], s[0:3]"):
        if llvm_mc() is None:
            pytest.skip("llvm-mc-22 not installed")
        (code,) = llvm_encodings([line], "gfx1201")
        a16 = bytes([code[0] | 0x40]) + code[1:]          # A16: bit 6 of the first dword
        ours = disassemble(a16, "gfx1201").strip().splitlines()
        assert ours[0] == f".long {int.from_bytes(a16[:4], 'little'):#010x}", ours
        assert ours[1:] == mc_disassembly([a16[4:8]], "gfx1201") + mc_disassembly([a16[8:]], "gfx1201"), ours
