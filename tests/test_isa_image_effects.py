"""isa.memory_access.memory_effects for image instructions (MIMG; RDNA4's VIMAGE, VSAMPLE) and
memory_registers resolving them for one encoding (isa.memory_registers: address VGPRs by DIM, A16,
the opcode's generated address components and NSA; data VGPRs by DMASK, D16 and TFE; the resource by R128; the
sampler). The register counts are held against LLVM 22's operands in the differential corpora
(../shared/conformance/llvm: bytes LLVM decoded and printed); the memory direction and the
R128, return and compare-and-swap rules against the manuals' text. The image instructions the
emulator runs (loads, stores and atomics without a sampler) are checked empirically too:
tests/effects_check_memory.py (tests/effects_check_image.py)."""
from __future__ import annotations

import gzip
import re
import shutil
from collections import Counter

import pytest

import isa
from isa.memory_access import memory_effects
from isa.memory_registers import memory_registers
from .conftest import shared_path

IMAGE_TARGETS = ("gfx1100", "gfx1151", "gfx1201")
_OPERAND = re.compile(r"\[(?:[^\[\]]|\[[^\]]*\])*\]|(?:v|s|ttmp)\[\d+:\d+\]|(?:v|s|ttmp)\d+")


def _width(token: str) -> int:
    m = re.search(r"\[(\d+):(\d+)\]", token)
    return int(m.group(2)) - int(m.group(1)) + 1 if m else 1


def _llvm_operands(text: str) -> list:
    """LLVM's operands of an image instruction's text: widths, a list of them for an address list."""
    out = []
    for token in _OPERAND.findall(text.split(" ", 1)[1]):
        out.append([_width(t) for t in _OPERAND.findall(token[1:-1])] if token.startswith("[") else _width(token))
    return out


def _rows(target: str):
    path = shared_path("conformance", "llvm", f"{target}.tsv.gz")
    with gzip.open(path, "rt") as fh:
        for line in fh:
            family, data, text, reenc = line.rstrip("\n").split("\t")[:4]
            # the rows LLVM assembles back to the same bytes: its operand widths are the encoding's
            # (elsewhere its disassembler may print the widths of its first form)
            if family in ("MIMG", "VIMAGE", "VSAMPLE") and reenc == data:
                yield bytes.fromhex(data), text


@pytest.mark.parametrize("target", IMAGE_TARGETS)
def test_register_counts_are_llvms(target):
    """Each image instruction of LLVM's corpus that it assembles back to its bytes: the data,
    address (per NSA field), resource (R128=0: 8 SGPRs; a ray query's 4) and sampler registers of
    memory_registers for the decoded fields are LLVM's operand widths."""
    from dsl.decode import decode_one
    spec = isa.load(target)
    checked, bad = Counter(), []
    for data, text in _rows(target):
        inst = decode_one(spec, data)
        d, fields = inst.defs[0], {**inst.fields, **inst.extra}
        e = memory_effects(d)
        if e.space is None:
            continue
        reads, writes = memory_registers(d, fields, spec.traits)
        ops = _llvm_operands(text)
        addresses = [f for f, count, _ in e.reads if count == "address" and f in reads]
        rsrc = "SRSRC" if "SRSRC" in fields else "RSRC"
        samp = next((f for f in ("SSAMP", "SAMP") if f in reads), None)
        got = [max(reads.get("VDATA", 0), writes.get("VDATA", 0)),
               reads[addresses[0]] if len(addresses) == 1 and not isinstance(ops[1], list)
               else [reads[f] for f in addresses]]
        want = ops[:2]
        if not fields.get("R128") or len(ops) == 3 and ops[2] == 4:
            got.append(reads[rsrc])
            want.append(ops[2])
        if samp:
            got.append(reads[samp])
            want.append(ops[3])
        checked[d.name.split("_")[1]] += 1
        if got != want:
            bad.append((text, got, want))
    assert not bad, f"{len(bad)} disagree, e.g. {bad[:5]}"
    assert sum(checked.values()) > 400, checked


def _one(spec, name):
    return spec.lookup(name)[0]


def test_memory_direction_by_the_manual():
    """RDNA3: IMAGE_LOAD "Load element from largest miplevel" reads, IMAGE_STORE writes,
    IMAGE_ATOMIC_ADD ("tmp = MEM[ADDR].u32; MEM[ADDR].u32 += DATA.u32") read-modify-writes,
    image_sample* reads (through a sampler), IMAGE_GET_RESINFO returns the descriptor's
    "{num_mip_levels, depth, height, width}": no memory."""
    spec = isa.load("rdna3")
    for name, memory in (("image_load", "read"), ("image_store", "write"), ("image_atomic_add", "read-modify-write"),
                         ("image_sample", "read"), ("image_gather4", "read"), ("image_get_resinfo", None)):
        e = memory_effects(_one(spec, name))
        assert (e.space, e.memory, e.implicit) == ("image", memory, ("EXEC",)), name
    assert any(f == "SSAMP" for f, _, _ in memory_effects(_one(spec, "image_sample")).reads)
    assert not any(f == "SSAMP" for f, _, _ in memory_effects(_one(spec, "image_load")).reads)


def test_resource_by_r128_and_returns_by_glc():
    """The MIMG field table: R128 "Resource constant size: 1 = 128bit, 0 = 256bit", SRSRC "in 4 or 8
    consecutive SGPRs" (LLVM writes s[n:n+7] either way: a spelling, not what the hardware
    reads); an atomic returns the old value with GLC (RDNA4: TH bit 0), a compare-and-swap only
    its first half ("RETURN_DATA[31 : 0] = tmp" of DATA[63 : 32] value and compare)."""
    spec = isa.load("rdna3")
    t = spec.traits
    base = {"DIM": 1, "DMASK": 0b11, "A16": 0, "NSA": 0, "VADDR": 8, "VDATA": 16, "SRSRC": 3, "GLC": 0}
    d = _one(spec, "image_atomic_cmpswap")
    assert memory_registers(d, base, t) == ({"VADDR": 2, "SRSRC": 8, "VDATA": 2}, {})
    assert memory_registers(d, {**base, "GLC": 1, "R128": 1}, t) == ({"VADDR": 2, "SRSRC": 4, "VDATA": 2}, {"VDATA": 1})
    # NSA: one VGPR an address field ("an additional instruction DWORD exists holding up to 4 unique VGPR addresses")
    d = _one(spec, "image_load")
    nsa = {**base, "DIM": 2, "NSA": 1, "DMASK": 0b1111, "ADDR1": 30, "ADDR2": 40, "ADDR3": 0, "ADDR4": 0}
    assert memory_registers(d, nsa, t) == ({"VADDR": 1, "ADDR1": 1, "ADDR2": 1, "SRSRC": 8}, {"VDATA": 4})
    r4 = isa.load("rdna4")
    d = _one(r4, "image_atomic_add_uint")
    f = {"DIM": 0, "DMASK": 1, "A16": 0, "VADDR0": 8, "VADDR1": 0, "VADDR2": 0, "VADDR3": 0, "VADDR4": 0,
         "VDATA": 16, "RSRC": 12, "TH": 1}
    assert memory_registers(d, f, r4.traits) == ({"VADDR0": 1, "RSRC": 8, "VDATA": 1}, {"VDATA": 1})
    assert memory_registers(d, {**f, "TH": 0}, r4.traits)[1] == {}


def test_ray_queries():
    """IMAGE_BVH_INTERSECT_RAY: "11 address VGPRs" (A16: 8), "returns all four DWORDs", "must be
    encoded with R128=1" (4 SGPRs)."""
    spec = isa.load("rdna3")
    d = _one(spec, "image_bvh_intersect_ray")
    f = {"NSA": 0, "A16": 0, "VADDR": 8, "VDATA": 0, "SRSRC": 1, "R128": 1, "DMASK": 0xF}
    assert memory_registers(d, f, spec.traits) == ({"VADDR": 11, "SRSRC": 4}, {"VDATA": 4})
    assert memory_registers(d, {**f, "A16": 1}, spec.traits)[0]["VADDR"] == 8
    r4 = isa.load("rdna4")
    assert memory_effects(_one(r4, "image_bvh64_intersect_ray")).writes == (("VDATA", 4, None),)


LLVM_MC = shutil.which("llvm-mc-22")


@pytest.mark.skipif(not LLVM_MC, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("line", [
    "image_bvh8_intersect_ray v[0:9], [v[10:11], v[12:13], v[14:16], v[17:19], v20], s[0:3]",
    "image_bvh_dual_intersect_ray v[0:9], [v[10:11], v[12:13], v[14:16], v[17:19], v[20:21]], s[0:3]",
    "image_bvh64_intersect_ray v[0:3], [v[4:5], v6, v[7:9], v[10:12], v[13:15]], s[0:3]",
    "image_bvh_intersect_ray v[0:3], [v4, v6, v[7:9], v[10:12]], s[0:3] a16",
])
def test_rdna4_ray_query_operands_are_llvms(line):
    """RDNA4's ray queries as llvm-mc-22 assembles them for gfx1201: the address fields' VGPRs
    (dual and BVH8: the manual's layout, "0 VADDR0[0] = bvh_base[31:0]" ... ), 10 or 4 results,
    a 4-SGPR resource; dual and BVH8 write the ray's origin and direction back ("the ray origin
    and ray direction components of vgpr_a are modified"), in part."""
    import subprocess

    from dsl.decode import decode_one
    out = subprocess.run([LLVM_MC, "-triple=amdgcn", "-mcpu=gfx1201", "-show-encoding"], input=line,
                         capture_output=True, text=True, check=True).stdout
    code = bytes(int(x, 16) for x in out.split("encoding: [")[1].split("]")[0].split(","))
    spec = isa.load("gfx1201")
    inst = decode_one(spec, code)
    d = inst.defs[0]
    reads, writes = memory_registers(d, inst.fields, spec.traits)
    vdata, vaddr, rsrc = _llvm_operands(line)
    assert (writes["VDATA"], [reads[f"VADDR{i}"] for i in range(len(vaddr))], reads["RSRC"]) == (vdata, vaddr, rsrc)
    e = memory_effects(d)
    wide = vdata == 10
    assert (set(writes) - {"VDATA"}, set(e.partial)) == (({"VADDR2", "VADDR3"},) * 2 if wide else (set(), set()))
