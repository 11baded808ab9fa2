"""The image part of the memory effects check (tests/effects_check_memory.py): the image
instructions the emulator runs (image_load/_mip, image_store/_mip, the image atomics: a linear
1D / 2D / 3D / 1D-array / 2D-array image through a T#, emu/image.py), encoded with random DIM
(those, cube too), A16, NSA (RDNA3, for more than one address VGPR), R128 (0 for 3D, cube and
arrays: their T# is 256 bits), DMASK, D16, a load's TFE and an atomic's return, and run on a
state whose T# (s[12:19])
describes an image in the global buffer and whose address VGPRs hold coordinates inside it (a
mip level 0; a 3D / cube / array image COORDS texels wide with COORDS slices or faces: every
lane in range, as TFE's status asks). The instruction word is packed here from random
values of the format's fields (isa's format table, not the assembler: the decoder reads it
back, and the model's counts come from the decoded fields as for every other format).

    python -m tests.effects_check_memory --target gfx1201       # images included
"""
from __future__ import annotations

import numpy as np

from isa.memory_access import image_address, memory_access, memory_effects
from isa.memory_registers import image_dims, memory_registers

IMAGE_WIDTH, IMAGE_HEIGHT, COORDS = 16, 8, 8     # texels; coordinates drawn below COORDS (inside)
DIMS = (0, 1, 2, 3, 4, 5)                        # 1D, 2D, 3D, cube, 1D array, 2D array
SLICED = (2, 3, 4, 5)                            # the DIMs with slices (r / face / slice: the last coordinate)
S_RSRC = 12
V_ADDR, V_NSA = 8, (24, 26, 27, 9)         # first address VGPR; RDNA3 NSA's ADDR1..4, RDNA4's VADDR1..4
V_DATA, V_RESULT = 16, 40
FORMATS = {"load": "32_32_32_32_UINT", "store": "32_32_32_32_UINT", "atomic": "32_UINT"}
TEXEL_BYTES = {"32_32_32_32_UINT": 16, "32_UINT": 4}


def instructions(spec, arch: str) -> list:
    """The image-format instructions the emulator has a semantic for."""
    from emu.table import load_semantics
    image = spec.traits.roles.image
    return [d for d, e in load_semantics(arch).entries() if d.format in image and e.status != "unsupported"]


def encode(spec, d, rng) -> tuple[bytes, str]:
    """(instruction bytes, a description) of `d` with random encoding choices."""
    direction = memory_access(d, True).direction
    fmt = spec.formats[d.format]
    names = {name for name, *_ in fmt.fields}
    rdna4 = "VADDR0" in names
    dim = int(rng.choice(DIMS))
    r128 = 0 if dim in SLICED else int(rng.integers(0, 2))
    f = {"DIM": dim, "A16": int(rng.integers(0, 2)), "R128": r128, "OP": d.opcode}
    if direction == "atomic":
        f["DMASK"] = (1 << (memory_access(d, True).data_dwords or 1)) - 1
        f["TH" if rdna4 else "GLC"] = int(rng.integers(0, 2))
    else:
        f["DMASK"] = int(rng.integers(1, 16))
        if rdna4 and direction == "store":      # X supplied: what RDNA4 fills missing channels with
            f["DMASK"] |= 1
        # D16 stores: DMASKs both of RDNA3's readings agree on; RDNA4 every channel (its fill of
        # missing components from "the first VGPR" is not modelled for D16)
        f["D16"] = int(rng.integers(0, 2)) if direction == "load" or f["DMASK"] in ((15,) if rdna4 else (1, 3, 7, 15)) \
            else 0
        if direction == "load":
            f["TFE"] = int(rng.integers(0, 2))
    if not rdna4:
        f["UNRM"] = 1       # "Must be set to 1 for Image stores & atomics" (RDNA3 Table 48)
    f["VDATA"] = V_RESULT if direction == "load" else V_DATA
    f["SRSRC" if "SRSRC" in names else "RSRC"] = S_RSRC // 4 if "SRSRC" in names else S_RSRC
    words = sum(memory_registers(d, {**f, "NSA": 0, "VADDR": V_ADDR}, spec.traits)[0].get(k, 0)
                for k in ("VADDR", "VADDR0"))
    if rdna4:       # one VGPR a field, the last taking the rest
        f.update({"VADDR0": V_ADDR, **{f"VADDR{i + 1}": V_NSA[i] for i in range(4)}})
    else:
        f["VADDR"] = V_ADDR
        if words > 1 and rng.integers(0, 2):
            f.update({"NSA": 1, **{f"ADDR{i + 1}": V_NSA[i] for i in range(4)}})
    value = fmt.encoding[0]
    for name, hi, lo in fmt.fields:
        if name in f:
            assert 0 <= f[name] < 1 << (hi - lo + 1), (name, f[name])
            value |= f[name] << lo
    nbytes = 12 if rdna4 or f.get("NSA") else 8        # RDNA3's NSA dword holds ADDR1..4 (bits 95:64)
    text = " ".join(f"{k.lower()}:{v}" for k, v in f.items() if k not in ("OP",) and not k.startswith(("ADDR", "VADDR")))
    return value.to_bytes(nbytes, "little"), f"{d.name.lower()} {text}"


def aligned(buffer: int) -> int:
    return (buffer + 255) & ~255


def resource(spec, d, fields: dict, base: int) -> np.ndarray:
    """The T# (8 dwords; R128 uses 4) of a linear image of 32_32_32_32_UINT (32_UINT for
    atomics) texels at `base`, by the manual's table (emu/image.py LAYOUTS)."""
    from emu.image import LAYOUTS
    table = LAYOUTS["VIMAGE" if "VADDR0" in fields else "MIMG"][1]
    codes = {row[1]: row[0] for row in spec.tables["data_formats"]}
    kind = FORMATS[memory_access(d, True).direction]
    dim = fields.get("DIM", 0) & 7
    width, height = shape(dim)
    values = {"base": base >> 8, "format": codes[kind], "width": width - 1, "height": height - 1,
              "dst_sel": 4 | 5 << 3 | 6 << 6 | 7 << 9, "type": 8 + dim}
    if dim in SLICED:       # depth: 3D's (depth - 1), an array's or cube's last slice; base_array 0
        values["depth"] = COORDS - 1
    full = 0
    for name, v in values.items():
        full |= v << table[name][1]
    return np.array([(full >> (32 * i)) & 0xFFFFFFFF for i in range(8)], np.uint32)


def shape(dim: int) -> tuple[int, int]:
    """(width, height) of the image of DIM `dim` (a 3D / array one narrower, to fit its slices)."""
    width = COORDS if dim in SLICED else IMAGE_WIDTH
    return width, (1 if dim in (0, 4) else IMAGE_HEIGHT)


def state(checker, d, fields: dict, vg, sg, rng, memory: np.ndarray) -> None:
    """Fill the T# and the coordinate VGPRs of `vg`/`sg` in place and note their roles. A
    compare-and-swap's compare value (its second data VGPR) is the texel's dword in `memory`
    (the global buffer's bytes) in every other lane, so that some lanes swap."""
    base = aligned(checker.buffer) + 256 * int(rng.integers(0, 8))
    sg[S_RSRC:S_RSRC + 8] = resource(checker.spec, d, fields, base)
    checker.roles[("s", S_RSRC)] = "image_base"
    reads = memory_registers(d, fields, checker.traits)[0]
    e = memory_effects(d)
    regs = []
    for field, count, _ in e.reads:
        if count == "address" and field in reads:
            regs += range(fields[field], fields[field] + reads[field])
    a16 = bool(fields.get("A16"))
    for r in regs:
        checker._addr(vg, ("v", r), "coord16" if a16 else "coord", rng)
    dim = fields.get("DIM", 0) & 7
    if image_address(d).mip_level:        # the mip level component: 0 (only mip 0 is modelled)
        k = image_dims(d)[dim][0]
        word = regs[k // 2 if a16 else k]
        vg[word] &= np.uint32(0x0000FFFF if a16 and k % 2 else 0xFFFF0000 if a16 else 0)
    if memory_access(d, True).data_dwords == 2:
        words = vg[regs].astype(np.int64)
        comps = [(words[i // 2] >> 16 * (i % 2)) & 0xFFFF if a16 else words[i] for i in range(image_dims(d)[dim][0])]
        width, height = shape(dim)
        s = comps[0]
        t = comps[1] if dim in (1, 2, 3, 5) else 0
        k = comps[-1] if dim in SLICED else 0
        at = base - checker.buffer + ((k * height + t) * width + s) * TEXEL_BYTES[FORMATS["atomic"]]
        texel = memory[at[:, None] + np.arange(4)].copy().view(np.uint32)[:, 0]
        vg[V_DATA + 1, ::2] = texel[::2]


def address_values(checker, role: str, rng):
    """The values a perturbation gives an image operand (None: not an image role)."""
    L = checker.wave
    if role == "coord":
        return rng.integers(0, COORDS, L).astype(np.uint32)
    if role == "coord16":
        return (rng.integers(0, COORDS, L) | rng.integers(0, COORDS, L) << 16).astype(np.uint32)
    if role == "image_base":
        return np.uint32(((aligned(checker.buffer) + 256 * int(rng.integers(0, 8))) >> 8) & 0xFFFFFFFF)
    return None
