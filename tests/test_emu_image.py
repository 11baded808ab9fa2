"""Image loads, stores and atomics without a sampler on the emulator (emu/image.py,
emu/handwritten/image_format.py) against numpy references: the image a numpy array of texels
(rows of `pitch` texels; 3D and array images (slices, height, width, channels)), each lane's
texel found by explicit index math from the manuals' T#
(RDNA3 Table 50 p. 103-104, RDNA4 Table 60 p. 126) and its out-of-range rule (loads read 0,
stores and atomics write nothing). The kernels, image instructions included, are our
assembler's; test_image_instructions_assemble_as_llvm_mc holds the image lines they use to
llvm-mc-22's bytes (skipped without it)."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import dsl
from emu.launch import Dispatch
from emu.machine import EmuError, Machine
from emu.memory import DeviceMemory

from .llvm_tools import tool

LANES = 32
DIM = {"1D": "SQ_RSRC_IMG_1D", "2D": "SQ_RSRC_IMG_2D", "3D": "SQ_RSRC_IMG_3D", "1D_ARRAY": "SQ_RSRC_IMG_1D_ARRAY",
       "2D_ARRAY": "SQ_RSRC_IMG_2D_ARRAY"}


def image_bytes(text: str, arch: str) -> bytes:
    """Our assembler's encoding of one image instruction (dsl/encode_image.py)."""
    return dsl.assemble(text, arch)


def llvm_bytes(text: str, arch: str) -> bytes:
    """llvm-mc-22's encoding of one instruction."""
    done = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"], input=text.encode(),
                          capture_output=True, check=False)
    m = re.search(r"encoding: \[([^\]]*)\]", done.stdout.decode())
    assert m, f"llvm-mc-22 refused {text!r}: {done.stderr.decode()}"
    return bytes(int(b, 16) for b in m.group(1).split(","))


def tsharp(arch: str, base: int, fmt: int, width: int, height: int = 1, *, kind: int = 9, pitch: int | None = None,
           dst_sel=(4, 5, 6, 7), extra: dict | None = None) -> list[int]:
    """The eight dwords of an image resource, field by field from the manual's table."""
    if arch.startswith("gfx12"):
        fields = {(39, 0): base >> 8, (56, 49): fmt, (77, 62): width - 1, (93, 78): height - 1, (127, 124): kind}
        pitch_fields = ((141, 128), (143, 142), 14)
    else:
        fields = {(39, 0): base >> 8, (59, 52): fmt, (75, 62): width - 1, (91, 78): height - 1, (127, 124): kind}
        pitch_fields = ((140, 128), (141, 141), 13)
    for i, s in enumerate(dst_sel):
        fields[(98 + 3 * i, 96 + 3 * i)] = s
    if pitch is not None:
        fields[pitch_fields[0]] = (pitch - 1) & ((1 << pitch_fields[2]) - 1)
        fields[pitch_fields[1]] = (pitch - 1) >> pitch_fields[2]
    fields.update(extra or {})
    value = 0
    for (hi, lo), v in fields.items():
        assert 0 <= v < 1 << (hi - lo + 1)
        value |= v << lo
    return [(value >> (32 * i)) & 0xFFFFFFFF for i in range(8)]


def run(arch: str, image_text: str, rsrc: list[int], image: np.ndarray, coords: list, data: np.ndarray | None = None,
        wave: int = 32, exec_mask: int | None = None, options=None, lanes: int = LANES):
    """One wave of `lanes` (LANES): v4.. = coords[i][lane], v[8:11] = data[lane] (4 dwords), then the image
    instruction, then v[8:11] stored. `image`: the bytes the T# points at
    (its base is filled in). Returns (image bytes after, v[8:11] per lane (lanes, 4))."""
    mem = DeviceMemory()
    img = mem.alloc(max(image.nbytes, 256) + 256, "image")
    base = (img + 255) & ~255
    mem.write(base, image)
    rsrc = list(rsrc)
    full = sum(w << (32 * i) for i, w in enumerate(rsrc))
    full |= (base >> 8) if full else 0          # an all-zero T# stays unbound
    rsrc = [(full >> (32 * i)) & 0xFFFFFFFF for i in range(8)]
    cbuf = mem.alloc(4 * 4 * lanes, "coords")
    cw = np.zeros((4, lanes), np.uint32)
    for i, c in enumerate(coords):
        cw[i] = np.asarray(c, np.int64).astype(np.uint32)
    mem.write(cbuf, cw)
    dbuf = mem.alloc(16 * lanes, "data")
    mem.write(dbuf, np.zeros((lanes, 4), np.uint32) if data is None else np.asarray(data, np.uint32).reshape(lanes, 4))
    args = mem.alloc(64, "kernarg")
    mem.write(args, np.array(rsrc + [cbuf & 0xFFFFFFFF, cbuf >> 32, dbuf & 0xFFFFFFFF, dbuf >> 32], np.uint32))
    head = dsl.assemble(f"""
        s_load_b256 s[8:15], s[0:1], 0x0
        s_load_b128 s[16:19], s[0:1], 0x20
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v1, 2, v0
        v_lshlrev_b32 v2, 4, v0
        global_load_b32 v4, v1, s[16:17]
        global_load_b32 v5, v1, s[16:17] offset:{4 * lanes}
        global_load_b32 v6, v1, s[16:17] offset:{8 * lanes}
        global_load_b32 v7, v1, s[16:17] offset:{12 * lanes}
        global_load_b128 v[8:11], v2, s[18:19]
        s_waitcnt vmcnt(0)
        {'' if exec_mask is None else f's_mov_b32 exec_lo, {exec_mask}'}
    """, arch, wave)
    tail = dsl.assemble(f"""
        s_waitcnt vmcnt(0)
        s_mov_b32 exec_lo, -1
        global_store_b128 v2, v[8:11], s[18:19]
        s_endpgm
    """ if not arch.startswith("gfx12") else """
        s_wait_loadcnt 0
        s_mov_b32 exec_lo, -1
        global_store_b128 v2, v[8:11], s[18:19]
        s_endpgm
    """, arch, wave)
    code = head + image_bytes(image_text, arch) + tail
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    Machine(arch, mem, **({"options": options} if options is not None else {})).run(Dispatch("image_kernel", at, grid=(1, 1, 1), block=(lanes, 1, 1), wave_size=wave,
                                    vgprs=16, user_sgprs=[args & 0xFFFFFFFF, args >> 32]))
    after = np.frombuffer(mem.read(base, image.nbytes), np.uint8).copy()
    return after, np.frombuffer(mem.read(dbuf, 16 * lanes), np.uint32).reshape(lanes, 4).copy()


ARCHS = ("gfx1100", "gfx1151", "gfx1201")


def _image_lines(arch: str) -> list[str]:
    """The image lines the tests below run (each shape once)."""
    one, two, three = (addr_text(arch, n) for n in (1, 2, 3))
    atomic = ("image_atomic_add_uint", "th:TH_ATOMIC_RETURN") if arch.startswith("gfx12") else ("image_atomic_add", "glc")
    return [f"image_load v[8:11], {two}, s[8:15] dmask:0xf dim:{DIM['2D']}",
            f"image_load v[8:9], {two}, s[8:15] dmask:0xa dim:{DIM['2D']}",
            f"image_load v8, {two}, s[8:15] dmask:0x1 dim:{DIM['2D']}",
            f"image_load v[8:11], {one}, s[8:15] dmask:0xf dim:{DIM['1D']}",
            f"image_load v[8:9], {two}, s[8:15] dmask:0x7 dim:{DIM['2D']} d16",
            f"image_load_mip v8, {three}, s[8:15] dmask:0x1 dim:{DIM['2D']}",
            f"image_load v8, {three}, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_3D",
            f"image_store v[8:9], {two}, s[8:15] dmask:0x3 dim:{DIM['2D']}",
            f"image_store v8, {one}, s[8:15] dmask:0x1 dim:{DIM['1D']}",
            f"{atomic[0]} v8, {two}, s[8:15] dmask:0x1 dim:{DIM['2D']} {atomic[1]}",
            f"image_atomic_cmpswap v[8:9], {one}, s[8:15] dmask:0x3 dim:{DIM['1D']}",
            f"image_sample v8, {two}, s[8:15], s[16:19] dmask:0x1 dim:{DIM['2D']}",
            f"image_load v8, {three}, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_CUBE",
            *[f"image_load v[8:9], {addr_text(arch, n)}, s[8:15] dmask:0x3 dim:{DIM[kind]}"
              for kind, (n, _) in SLICED.items()],
            *[f"image_store v[8:9], {addr_text(arch, n)}, s[8:15] dmask:0x3 dim:{DIM[kind]}"
              for kind, (n, _) in SLICED.items()],
            *[f"{atomic[0]} v8, {addr_text(arch, n)}, s[8:15] dmask:0x1 dim:{DIM[kind]} {atomic[1]}"
              for kind, (n, _) in SLICED.items()]]


@pytest.mark.parametrize("arch", ("gfx1100", "gfx1151", "gfx1201"))
def test_image_instructions_assemble_as_llvm_mc(arch):
    """The cross-check of the kernels' image instructions: our bytes are llvm-mc-22's."""
    for line in _image_lines(arch):
        assert image_bytes(line, arch) == llvm_bytes(line, arch), line


def addr_text(arch: str, n: int) -> str:
    regs = [f"v{4 + i}" for i in range(n)]
    if arch.startswith("gfx12"):
        return "[" + ", ".join(regs) + "]"
    return regs[0] if n == 1 else f"v[4:{3 + n}]"


def rng_coords(rng, width, height):
    """Lane coordinates: mostly inside, some just outside, some far (negative as uint)."""
    x = rng.integers(0, width, LANES)
    y = rng.integers(0, height, LANES)
    x[::7], y[3::9] = width, height
    x[5] = -1
    return x, y


def texels(image: np.ndarray, x, y, width, height):
    """Reference gather: image[y, x] ((H, pitch, C) channels) per lane and whether it is in range
    (x < width, y < height as uint: a negative coordinate is a large uint)."""
    x, y = np.asarray(x, np.int64) & 0xFFFFFFFF, np.asarray(y, np.int64) & 0xFFFFFFFF
    inside = (x < width) & (y < height)
    got = image[np.where(inside, y, 0), np.where(inside, x, 0)]
    return np.where(inside[:, None], got, 0), inside


def selected(channels: np.ndarray, inside, dst_sel, dmask, one) -> np.ndarray:
    """RGBA by dst_sel (0 -> 0, 1 -> `one`, 4+c -> channel c, 0 past the format's channels), then
    DMASK's components in order: (LANES, k)."""
    cols = []
    for slot in range(4):
        if dmask >> slot & 1:
            s = dst_sel[slot]
            if s == 1:
                cols.append(np.full(LANES, one, np.uint32))
            elif s >= 4 and s - 4 < channels.shape[1]:
                cols.append(np.where(inside, channels[:, s - 4], 0).astype(np.uint32))
            else:
                cols.append(np.zeros(LANES, np.uint32))
    return np.stack(cols, 1)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dmask", [0xF, 0xA, 0x1])
def test_load_32bit_2d_pitch_and_range(arch, dmask):
    """32_32_32_32_UINT, 256-bit T# with a pitch wider than the image: VGPR k holds the k-th
    DMASK component; lanes outside width x height read 0 (dst_sel 1 reads 1)."""
    rng = np.random.default_rng(dmask)
    width, height, pitch = 13, 6, 16
    image = rng.integers(0, 2**32, (height, pitch, 4), dtype=np.uint64).astype(np.uint32)
    x, y = rng_coords(rng, width, height)
    dst_sel = (4, 5, 1, 7)
    rsrc = tsharp(arch, 0, 61, width, height, pitch=pitch, dst_sel=dst_sel)
    n = bin(dmask).count("1")
    vdata = "v8" if n == 1 else f"v[8:{7 + n}]"
    _, out = run(arch, f"image_load {vdata}, {addr_text(arch, 2)}, s[8:15] dmask:0x{dmask:x} dim:{DIM['2D']}",
                 rsrc, image, [x, y], data=np.full((LANES, 4), 0xDEAD, np.uint32))
    channels, inside = texels(image, x, y, width, height)
    want = selected(channels, inside, dst_sel, dmask, 1)
    np.testing.assert_array_equal(out[:, :n], want)
    np.testing.assert_array_equal(out[:, n:], 0xDEAD)     # registers past the data untouched


@pytest.mark.parametrize("arch", ARCHS)
def test_load_unorm8_swizzled_1d(arch):
    """8_8_8_8_UNORM through dst_sel (B, G, R, 1) on a 1D image: floats v / 255 (10.4.1: "others:
    32-bit float"), out of range 0 and 1.0."""
    rng = np.random.default_rng(5)
    width = 40
    image = rng.integers(0, 256, (1, width, 4), dtype=np.uint8)
    x = rng.integers(0, width + 8, LANES)
    dst_sel = (6, 5, 4, 1)
    rsrc = tsharp(arch, 0, 42, width, kind=8, dst_sel=dst_sel)
    _, out = run(arch, f"image_load v[8:11], {addr_text(arch, 1)}, s[8:15] dmask:0xf dim:{DIM['1D']}",
                 rsrc, image, [x])
    channels, inside = texels(image, x, np.zeros(LANES), width, 1)
    f = (channels.astype(np.float32) / np.float32(255)).view(np.uint32)
    want = selected(f, inside, dst_sel, 0xF, 0x3F800000)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("arch", ARCHS)
def test_load_d16_half_floats(arch):
    """16_16_16_16_FLOAT with D16: two f16 components a VGPR, low half first (10.1.2); three
    components leave the second VGPR's high half as it was."""
    rng = np.random.default_rng(7)
    width, height = 9, 5
    image = rng.integers(0, 2**16, (height, width, 4), dtype=np.uint16)
    x, y = rng_coords(rng, width, height)
    rsrc = tsharp(arch, 0, 57, width, height)
    _, out = run(arch, f"image_load v[8:9], {addr_text(arch, 2)}, s[8:15] dmask:0x7 dim:{DIM['2D']} d16",
                 rsrc, image, [x, y], data=np.full((LANES, 4), 0xABCD1234, np.uint32))
    channels, inside = texels(image, x, y, width, height)
    want = selected(channels, inside, (4, 5, 6, 7), 0x7, 0x3C00)
    np.testing.assert_array_equal(out[:, 0], want[:, 0] | want[:, 1] << 16)
    np.testing.assert_array_equal(out[:, 1], want[:, 2] | 0xABCD0000)


@pytest.mark.parametrize("arch", ARCHS)
def test_load_mip_level_zero(arch):
    """image_load_mip with mip level 0 in its last address component reads mip 0."""
    rng = np.random.default_rng(9)
    width, height = 8, 8
    image = rng.integers(0, 2**32, (height, width, 1), dtype=np.uint64).astype(np.uint32)
    x, y = rng_coords(rng, width, height)
    rsrc = tsharp(arch, 0, 20, width, height)
    _, out = run(arch, f"image_load_mip v8, {addr_text(arch, 3)}, s[8:15] dmask:0x1 dim:{DIM['2D']}",
                 rsrc, image, [x, y, np.zeros(LANES)])
    channels, inside = texels(image, x, y, width, height)
    np.testing.assert_array_equal(out[:, 0], np.where(inside, channels[:, 0], 0))


@pytest.mark.parametrize("arch", ARCHS)
def test_store_16bit_two_channels(arch):
    """16_16_UINT store with DMASK 0x3: each lane's texel written (low 16 bits of each VGPR);
    out-of-range lanes write nothing; DMASK 0x2 writes red as 0 on RDNA3 ("missing components get
    0", p. 96 / 102); RDNA4 ("replicating the first VGPR", 10.4.2 p. 124-125; "the value of the X
    component", p. 116-118) writes green from DMASK 0x1's VGPR too and refuses DMASK 0x2 (no X)."""
    rng = np.random.default_rng(11)
    width, height = 10, 4
    image = rng.integers(0, 2**16, (height, width, 2), dtype=np.uint16)
    x = rng.permutation(width * height)[:LANES] % width      # distinct texels (one lane each)
    y = rng.permutation(width * height)[:LANES] // width
    pos = rng.permutation(width * height)[:LANES]
    x, y = pos % width, pos // width
    x[::6] = width + 3
    data = rng.integers(0, 2**32, (LANES, 4), dtype=np.uint64).astype(np.uint32)
    rdna4 = arch.startswith("gfx12")
    for dmask in (0x3, 0x2, 0x1):
        rsrc = tsharp(arch, 0, 27, width, height)
        vdata = "v[8:9]" if dmask == 3 else "v8"
        if dmask == 0x2 and rdna4:
            _refused(arch, f"image_store v8, {addr_text(arch, 2)}, s[8:15] dmask:0x2 dim:{DIM['2D']}", rsrc,
                     [x, y], "DMASK 0x2 on a 2-channel format.*X component")
            continue
        after, _ = run(arch, f"image_store {vdata}, {addr_text(arch, 2)}, s[8:15] dmask:0x{dmask:x} dim:{DIM['2D']}",
                       rsrc, image, [x, y], data=data)
        want = image.copy()
        inside = x < width
        r = data[:, 0] & 0xFFFF if dmask & 1 else np.zeros(LANES, np.uint32)
        g = data[:, 1] & 0xFFFF if dmask == 3 else data[:, 0] & 0xFFFF if dmask == 2 or rdna4 else np.zeros(LANES, np.uint32)
        want[y[inside], x[inside], 0] = r[inside]
        want[y[inside], x[inside], 1] = g[inside]
        np.testing.assert_array_equal(after.view(np.uint16).reshape(want.shape), want)


@pytest.mark.parametrize("arch", ARCHS)
def test_store_unorm8_rounds(arch):
    """8_UNORM store: the f32 in [0, 1] times 255, rounded to nearest, clamped."""
    rng = np.random.default_rng(13)
    width = LANES
    image = np.zeros((1, width, 1), np.uint8)
    values = np.linspace(-0.25, 1.25, LANES).astype(np.float32)
    data = np.zeros((LANES, 4), np.uint32)
    data[:, 0] = values.view(np.uint32)
    after, _ = run(arch, f"image_store v8, {addr_text(arch, 1)}, s[8:15] dmask:0x1 dim:{DIM['1D']}",
                   tsharp(arch, 0, 1, width, kind=8), image, [np.arange(LANES)], data=data)
    np.testing.assert_array_equal(after, np.rint(np.clip(values, 0, 1) * 255).astype(np.uint8))
    del rng


@pytest.mark.parametrize("reference", [False, True])
@pytest.mark.parametrize("arch", ARCHS)
def test_atomic_add_shared_texels_and_return(arch, reference):
    """image_atomic_add on 32_UINT with return: lanes sharing a texel add in lane order (each
    returns the sum before it); out-of-range lanes add nothing and return 0. In fast mode (the
    atomics' grouping and scans, out-of-range lanes apart) and reference mode (every switch off)."""
    from emu.options import FAST, REFERENCE
    rng = np.random.default_rng(17)
    width, height = 4, 2
    image = rng.integers(0, 1000, (height, width, 1), dtype=np.uint32)
    x, y = rng.integers(0, width, LANES), rng.integers(0, height, LANES)
    x[::5] = width
    data = np.zeros((LANES, 4), np.uint32)
    data[:, 0] = rng.integers(1, 100, LANES)
    name, ret = ("image_atomic_add_uint", "th:TH_ATOMIC_RETURN") if arch.startswith("gfx12") else \
        ("image_atomic_add", "glc")
    after, out = run(arch, f"{name} v8, {addr_text(arch, 2)}, s[8:15] dmask:0x1 dim:{DIM['2D']} {ret}",
                     tsharp(arch, 0, 20, width, height), image, [x, y], data=data,
                     options=REFERENCE if reference else FAST)
    want, returned = image.copy(), np.zeros(LANES, np.uint32)
    for lane in range(LANES):                       # the reference's lane order, one lane at a time
        if x[lane] < width:
            returned[lane] = want[y[lane], x[lane], 0]
            want[y[lane], x[lane], 0] += data[lane, 0]
    np.testing.assert_array_equal(after.view(np.uint32).reshape(want.shape), want)
    np.testing.assert_array_equal(out[:, 0], returned)


@pytest.mark.parametrize("arch", ARCHS)
def test_atomic_cmpswap_without_return(arch):
    """image_atomic_cmpswap (DMASK 0x3: data, compare) without return: the texel takes the data
    where it equals the compare value; the data VGPRs keep their values."""
    rng = np.random.default_rng(19)
    width = LANES
    image = rng.integers(0, 4, (1, width, 1), dtype=np.uint32)
    data = np.zeros((LANES, 4), np.uint32)
    data[:, 0] = 100 + np.arange(LANES)
    data[:, 1] = rng.integers(0, 4, LANES)
    after, out = run(arch, f"image_atomic_cmpswap v[8:9], {addr_text(arch, 1)}, s[8:15] dmask:0x3 dim:{DIM['1D']}",
                     tsharp(arch, 0, 21, width, kind=8), image, [np.arange(LANES)], data=data)
    want = np.where(image[0, :, 0] == data[:, 1], data[:, 0], image[0, :, 0])
    np.testing.assert_array_equal(after.view(np.uint32), want)
    np.testing.assert_array_equal(out, data)


def test_inactive_lanes_and_unbound_resource():
    """EXEC-off lanes neither load nor store; an all-zero T# loads zeros and stores nothing."""
    arch = "gfx1100"
    width = LANES
    image = np.arange(width, dtype=np.uint32).reshape(1, width, 1) + 7
    _, out = run(arch, f"image_load v8, v4, s[8:15] dmask:0x1 dim:{DIM['1D']}", tsharp(arch, 0, 20, width, kind=8),
                 image, [np.arange(LANES)], data=np.full((LANES, 4), 5, np.uint32), exec_mask=0x0000FFFF)
    np.testing.assert_array_equal(out[:, 0], np.where(np.arange(LANES) < 16, image[0, :, 0], 5))
    zero = [0] * 8
    _, out = run(arch, f"image_load v8, v4, s[8:15] dmask:0x1 dim:{DIM['1D']}", zero, image,
                 [np.arange(LANES)], data=np.full((LANES, 4), 5, np.uint32))
    np.testing.assert_array_equal(out[:, 0], 0)


def _refused(arch, text, rsrc, coords, match):
    image = np.zeros((4, 16, 4), np.uint32)
    with pytest.raises(EmuError, match=match) as e:
        run(arch, text, rsrc, image, coords)
    assert "PC 0x" in str(e.value)
    return str(e.value)


@pytest.mark.parametrize("arch", ARCHS)
def test_refusals_name_the_field(arch):
    """Unmodelled inputs raise errors naming PC, instruction and field: a nonzero undefined T#
    bit (a tiled swizzle mode's place), an MSAA image (naming the fragid component and the page),
    a nonzero mip level or base_level (naming the T#'s table), a sampler instruction, an
    unmodelled format, a type that does not match DIM."""
    xs = [np.arange(LANES) % 8, np.zeros(LANES), np.zeros(LANES)]
    load2d = f"image_load v8, {addr_text(arch, 2)}, s[8:15] dmask:0x1 dim:{DIM['2D']}"
    msg = _refused(arch, load2d, tsharp(arch, 0, 20, 16, 4, extra={(120, 116): 9}), xs, "T# bits 120:116")
    assert "image_load" in msg and "linear" in msg
    msg = _refused(arch, f"image_load v8, {addr_text(arch, 3)}, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA",
                   tsharp(arch, 0, 20, 16, 4, kind=14), xs, "DIM 6 \\(2d-msaa\\)")
    assert "fragid" in msg and ("p. 120" if arch.startswith("gfx12") else "p. 98") in msg
    xs_mip = [np.zeros(LANES), np.zeros(LANES), np.arange(LANES) % 2]
    _refused(arch, f"image_load_mip v8, {addr_text(arch, 3)}, s[8:15] dmask:0x1 dim:{DIM['2D']}",
             tsharp(arch, 0, 20, 16, 4), xs_mip, "mip level 1.*(Table 60 p. 126|Table 50 p. 103-104)")
    _refused(arch, load2d, tsharp(arch, 0, 20, 16, 4, extra={(61, 57) if arch.startswith("gfx12") else (111, 108): 1}),
             xs, "base_level is 1.*(Table 60 p. 126|Table 50 p. 103-104)")
    _refused(arch, load2d, tsharp(arch, 0, 30, 16, 4), xs, "data format 30")
    _refused(arch, load2d, tsharp(arch, 0, 20, 16, 4, kind=8), xs, "does not match DIM 1")
    _refused(arch, f"image_sample v8, {addr_text(arch, 2)}, s[8:15], s[16:19] dmask:0x1 dim:{DIM['2D']}",
             tsharp(arch, 0, 20, 16, 4), xs, "image_sample")


def test_rdna4_image_atomics_translate():
    """RDNA4's image atomics spell their address `addr = CalcImageAddr(v_addr.b128)`: it
    translates (as ADDR, the texel's address), so every VIMAGE atomic has generated semantics."""
    from emu.table import load_semantics
    table = load_semantics("gfx1201")
    atomics = [d for d in table.spec.instructions if d.format == "VIMAGE" and d.name.startswith("IMAGE_ATOMIC")]
    assert sum("CalcImageAddr" in (d.pcode or "") for d in atomics) >= 12
    for d in atomics:
        entry = table.entry(d)
        assert entry.status == "generated", (d.name, entry.reason)


_CLANG_KERNELS = r"""
typedef float v4f __attribute__((ext_vector_type(4)));
__attribute__((amdgpu_kernel)) void load2d(const __amdgpu_texture_t *t, const int *xy, v4f *out) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_image_load_2d_v4f32_i32(15, xy[i], xy[i + 32], *t, 0, 0);
}
__attribute__((amdgpu_kernel)) void store2d(const __amdgpu_texture_t *t, const int *xy, const v4f *in) {
  int i = __builtin_amdgcn_workitem_id_x();
  __builtin_amdgcn_image_store_2d_v4f32_i32(in[i], 15, xy[i], xy[i + 32], *t, 0, 0);
}
"""


@pytest.mark.parametrize("arch", ARCHS)
def test_clang_image_builtins_on_device(tmp_path, arch):
    """clang-22's own code for __builtin_amdgcn_image_load_2d / image_store_2d (a pointer to
    the T#'s pointer as the argument: clang loads the 8 dwords with s_load_b256) on
    Device("emu"): a 32_32_32_32_FLOAT image with pitch 12 > width 10, lanes in and out of
    range, against numpy index math; then the stores, read back from the image's bytes."""
    import subprocess
    clang, lld = tool("clang"), tool("ld.lld")
    src, obj, co = tmp_path / "k.c", tmp_path / "k.o", tmp_path / "k.hsaco"
    src.write_text(_CLANG_KERNELS)
    for argv in ([clang, "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}", "-nogpulib", "-O2", "-c", str(src),
                  "-o", str(obj)], [lld, "-shared", str(obj), "-o", str(co)]):
        subprocess.run(argv, check=True, capture_output=True)
    from runtime import Device
    dev = Device("emu", arch=arch)
    prg = dev.load(co.read_bytes())
    rng = np.random.default_rng(23)
    width, height, pitch = 10, 6, 12
    image = rng.standard_normal((height, pitch, 4)).astype(np.float32)
    img = dev.alloc(image.nbytes + 256, "image")
    base = (img.address + 255) & ~255
    dev.memory.write(base, image)
    rsrc = np.array(tsharp(arch, base, 63, width, height, pitch=pitch), np.uint32)
    tbuf = dev.alloc(32, "tsharp").copyin(rsrc)
    tptr = dev.alloc(8, "tsharp pointer").copyin(np.array([tbuf.address], np.uint64))
    x, y = rng_coords(rng, width, height)
    xy = dev.alloc(8 * LANES, "xy").copyin(np.concatenate([x, y]).astype(np.int32))
    out = dev.alloc(16 * LANES, "out")
    prg.launch("load2d", grid=(1, 1, 1), block=(LANES, 1, 1), args=[tptr, xy, out])
    channels, inside = texels(image, x, y, width, height)
    want = np.where(inside[:, None], channels, 0)
    np.testing.assert_array_equal(out.copyout(np.float32).reshape(LANES, 4), want)
    # stores: one lane a texel (the lanes' texels distinct), out-of-range lanes write nothing
    pos = rng.permutation(width * height)[:LANES]
    x, y = pos % width, pos // width
    x[::4] = width + 1
    data = rng.standard_normal((LANES, 4)).astype(np.float32)
    xy.copyin(np.concatenate([x, y]).astype(np.int32))
    prg.launch("store2d", grid=(1, 1, 1), block=(LANES, 1, 1), args=[tptr, xy, dev.alloc(data.nbytes).copyin(data)])
    inside = x < width
    want = image.copy()
    want[y[inside], x[inside]] = data[inside]
    got = np.frombuffer(dev.memory.read(base, image.nbytes), np.float32).reshape(image.shape)
    np.testing.assert_array_equal(got, want)


def test_timing_classifies_images_by_their_memory_record():
    """The timing model's classifier (emu/timing/classify.py) reads an image instruction's
    registers from its memory record for the encoding: NSA address VGPRs, the T#, the data
    written (a load: counter vm) or read (an atomic without return: a store, counter vs)."""
    import isa
    from dsl.decode import decode_one
    from emu.table import load_semantics
    from emu.timing.classify import Classifier
    from emu.wave import VGPR_BASE
    arch = "gfx1100"
    spec = isa.load(arch)
    cl = Classifier(spec, load_semantics(arch))
    v = lambda *regs: {VGPR_BASE + r for r in regs}       # noqa: E731
    load = cl.classify(decode_one(spec, image_bytes(
        "image_load v[0:3], [v4, v7], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D", arch)), 0)
    assert (load.kind, load.counter) == ("vmem_load", "vm")
    assert load.reads == v(4, 7) | set(range(8, 16)) and load.writes == v(0, 1, 2, 3)
    add = cl.classify(decode_one(spec, image_bytes(
        "image_atomic_add v5, v4, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D", arch)), 0)
    assert (add.kind, add.counter) == ("vmem_store", "vs")
    assert add.reads == v(4, 5) | set(range(8, 16)) and add.writes == set()


# The sliced images: T# type, address components (in DIM's order: s, t, r / slice)
SLICED = {"3D": (3, 10), "1D_ARRAY": (2, 12), "2D_ARRAY": (3, 13)}


def sliced_tsharp(arch: str, kind: str, fmt: int, width: int, height: int, last: int, base_array: int = 0,
                  uav: int = 0) -> list[int]:
    """A 256-bit T# of a 3D / array image, its slice fields by the manual's table: depth
    ("(depth-1) of mip 0" for 3D, "last array slice" for arrays), base array, and 3D's SRV / UAV
    bit (RDNA3 array pitch bit 0 at 160, RDNA4 UAV3D at 164)."""
    rdna4 = arch.startswith("gfx12")
    extra = {(141 if rdna4 else 140, 128): last, (156, 144): base_array}
    if uav:
        extra[(164, 164) if rdna4 else (160, 160)] = 1
    return tsharp(arch, 0, fmt, width, height, kind=SLICED[kind][1], extra=extra)


def sliced_coords(rng, kind, width, height, nslices, lanes):
    """Random (s, t, k) per lane, some of each just past its range and some far (negative as
    uint); for a 1D array t is 0 and not an address component."""
    s = rng.integers(0, width, lanes)
    t = rng.integers(0, height, lanes) if kind != "1D_ARRAY" else np.zeros(lanes, np.int64)
    k = rng.integers(0, nslices, lanes)
    s[::11] = width
    if kind != "1D_ARRAY":
        t[4::13] = height
    k[2::7] = nslices
    k[6] = -1
    comps = [s, k] if kind == "1D_ARRAY" else [s, t, k]
    return s, t, k, comps


def sliced_reference(image, first, s, t, k, width, height, nslices):
    """image[first + k, t, s] ((slices, height, pitch, C)) by explicit index math and whether
    each lane is in range (every coordinate as uint)."""
    s, t, k = (np.asarray(c, np.int64) & 0xFFFFFFFF for c in (s, t, k))
    inside = (s < width) & (t < height) & (k < nslices)
    got = image[np.where(inside, first + k, 0), np.where(inside, t, 0), np.where(inside, s, 0)]
    return np.where(inside[:, None], got, 0), inside


SLICE_CASES = [("3D", 0, 0), ("3D", 2, 1), ("1D_ARRAY", 3, 0), ("2D_ARRAY", 2, 0)]


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("kind,base_array,uav", SLICE_CASES)
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_sliced_load_store_load(arch, kind, base_array, uav, wave):
    """3D (SRV: base_array ignored; UAV: r from base_array) and 1D / 2D array images
    (slice k is base_array + k, the last slice the depth field's) of 32_32_UINT: loads against
    numpy index math with coordinates in and out of range in each component (out of range
    reads 0), then stores of distinct texels (out of range writes nothing) against the numpy
    image, then the stored texels loaded back; fast and reference mode bit for bit."""
    from emu.options import FAST, REFERENCE
    rng = np.random.default_rng([ord(c) for c in kind] + [base_array, uav, wave])
    lanes = wave
    width, height = (20, 1) if kind == "1D_ARRAY" else (7, 5)
    total = 9                                       # slices in memory
    last = 6 if kind != "3D" or uav else 4          # the depth field
    first = 0 if kind == "3D" and not uav else base_array
    nslices = last - first + 1
    image = rng.integers(0, 2**32, (total, height, width, 2), dtype=np.uint64).astype(np.uint32)
    rsrc = sliced_tsharp(arch, kind, 48, width, height, last, base_array, uav)       # 32_32_UINT
    n = SLICED[kind][0]
    addr = addr_text(arch, n)
    s, t, k, comps = sliced_coords(rng, kind, width, height, nslices, lanes)
    outs = []
    for options in (FAST, REFERENCE):
        _, out = run(arch, f"image_load v[8:9], {addr}, s[8:15] dmask:0x3 dim:{DIM[kind]}", rsrc, image, comps,
                     data=np.full((lanes, 4), 0xDEAD, np.uint32), wave=wave, lanes=lanes, options=options)
        outs.append(out)
    want, inside = sliced_reference(image, first, s, t, k, width, height, nslices)
    assert inside.any() and not inside.all()
    np.testing.assert_array_equal(outs[0][:, :2], want)
    np.testing.assert_array_equal(outs[0][:, 2:], 0xDEAD)
    np.testing.assert_array_equal(outs[1], outs[0])
    # stores: distinct texels of the view, some lanes pushed out of range in one component
    pos = rng.permutation(width * height * nslices)[:lanes]
    s, t, k = pos % width, pos // width % height, pos // (width * height)
    s[::9] = width + 2
    k[5::10] = nslices + int(rng.integers(0, 3))
    comps = [s, k] if kind == "1D_ARRAY" else [s, t, k]
    data = rng.integers(0, 2**32, (lanes, 4), dtype=np.uint64).astype(np.uint32)
    afters = [run(arch, f"image_store v[8:9], {addr}, s[8:15] dmask:0x3 dim:{DIM[kind]}", rsrc, image, comps,
                  data=data, wave=wave, lanes=lanes, options=options)[0] for options in (FAST, REFERENCE)]
    inside = (s < width) & (k < nslices)
    want = image.copy()
    want[first + k[inside], t[inside], s[inside]] = data[inside, :2]
    np.testing.assert_array_equal(afters[0].view(np.uint32).reshape(want.shape), want)
    np.testing.assert_array_equal(afters[1], afters[0])
    _, out = run(arch, f"image_load v[8:9], {addr}, s[8:15] dmask:0x3 dim:{DIM[kind]}", rsrc,
                 afters[0].view(np.uint32).reshape(want.shape), comps, wave=wave, lanes=lanes)
    np.testing.assert_array_equal(out[:, :2], np.where(inside[:, None], data[:, :2], 0))


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("kind", ["3D", "2D_ARRAY", "1D_ARRAY"])
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_sliced_atomic_add_with_return(arch, kind, wave):
    """image_atomic_add on a 32_UINT 3D / array image with return: lanes sharing a texel add in
    lane order; lanes out of range in any component (a slice past the last one too) add
    nothing and return 0; fast and reference mode bit for bit."""
    from emu.options import FAST, REFERENCE
    rng = np.random.default_rng([ord(c) for c in kind] + [wave])
    lanes = wave
    width, height, total, base_array = 3, (1 if kind == "1D_ARRAY" else 2), 5, (0 if kind == "3D" else 1)
    last = 3
    nslices = last - base_array + 1
    image = rng.integers(0, 1000, (total, height, width, 1), dtype=np.uint32)
    s, t, k = rng.integers(0, width, lanes), rng.integers(0, height, lanes), rng.integers(0, nslices, lanes)
    s[::7] = width
    k[3::8] = nslices
    comps = [s, k] if kind == "1D_ARRAY" else [s, t, k]
    data = np.zeros((lanes, 4), np.uint32)
    data[:, 0] = rng.integers(1, 100, lanes)
    name, ret = ("image_atomic_add_uint", "th:TH_ATOMIC_RETURN") if arch.startswith("gfx12") else \
        ("image_atomic_add", "glc")
    rsrc = sliced_tsharp(arch, kind, 20, width, height, last, base_array)
    results = [run(arch, f"{name} v8, {addr_text(arch, SLICED[kind][0])}, s[8:15] dmask:0x1 dim:{DIM[kind]} {ret}",
                   rsrc, image, comps, data=data, wave=wave, lanes=lanes, options=options)
               for options in (FAST, REFERENCE)]
    want, returned = image.copy(), np.zeros(lanes, np.uint32)
    for lane in range(lanes):                       # the reference's lane order, one lane at a time
        if s[lane] < width and k[lane] < nslices:
            at = (base_array + k[lane], t[lane], s[lane], 0)
            returned[lane] = want[at]
            want[at] += data[lane, 0]
    np.testing.assert_array_equal(results[0][0].view(np.uint32).reshape(want.shape), want)
    np.testing.assert_array_equal(results[0][1][:, 0], returned)
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_sliced_refusals_name_the_field(arch):
    """3D / array T#s the manual's table does not define for them are refused naming the
    field: a 128-bit T# (R128: Image.of directly), pitch bits, a 1D array of height > 1, (RDNA3) array pitch
    bits other than 3D's bit 0; a 2D-array T# with DIM 3D does not match."""
    xs = [np.zeros(LANES)] * 3
    load3d = f"image_load v8, {addr_text(arch, 3)}, s[8:15] dmask:0x1 dim:{DIM['3D']}"
    pitch_msb = (143, 142) if arch.startswith("gfx12") else (141, 141)
    bad = tsharp(arch, 0, 20, 16, 4, kind=10, extra={(140, 128): 3, pitch_msb: 1})
    _refused(arch, load3d, bad, xs, "pitch_msb")
    _refused(arch, f"image_load v8, {addr_text(arch, 2)}, s[8:15] dmask:0x1 dim:{DIM['1D_ARRAY']}",
             sliced_tsharp(arch, "1D_ARRAY", 20, 16, 4, 3), xs, "height is 4 for a 1d-array")
    _refused(arch, load3d, sliced_tsharp(arch, "2D_ARRAY", 20, 16, 4, 3), xs, "does not match DIM 2")
    if not arch.startswith("gfx12"):
        _refused(arch, load3d, tsharp(arch, 0, 20, 16, 4, kind=10, extra={(163, 160): 2}), xs, "array_pitch is 2")
    from emu.image import Image           # R128: the T#'s first four dwords only
    from emu.semantics import SemanticsError
    words = np.array([sliced_tsharp(arch, "3D", 20, 16, 4, 3)[:4]], np.uint32)
    with pytest.raises(SemanticsError, match="128-bit T#"):
        Image.of(words, "VIMAGE" if arch.startswith("gfx12") else "MIMG", 2)


_CLANG_SLICED = r"""
typedef float v4f __attribute__((ext_vector_type(4)));
__attribute__((amdgpu_kernel)) void load3d(const __amdgpu_texture_t *t, const int *c, v4f *out) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_image_load_3d_v4f32_i32(15, c[i], c[i + 32], c[i + 64], *t, 0, 0);
}
__attribute__((amdgpu_kernel)) void load2darray(const __amdgpu_texture_t *t, const int *c, v4f *out) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_image_load_2darray_v4f32_i32(15, c[i], c[i + 32], c[i + 64], *t, 0, 0);
}
__attribute__((amdgpu_kernel)) void store2darray(const __amdgpu_texture_t *t, const int *c, const v4f *in) {
  int i = __builtin_amdgcn_workitem_id_x();
  __builtin_amdgcn_image_store_2darray_v4f32_i32(in[i], 15, c[i], c[i + 32], c[i + 64], *t, 0, 0);
}
"""


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_clang_sliced_image_builtins_on_device(tmp_path, arch):
    """clang-22's code for __builtin_amdgcn_image_load_3d, image_load_2darray and
    image_store_2darray on Device("emu"): a 32_32_32_32_FLOAT 3D image and a 2D array (view
    from base_array 1) against numpy index math, lanes in and out of range in each coordinate;
    then 2D-array stores of distinct texels, read back from the image's bytes."""
    import subprocess
    clang, lld = tool("clang"), tool("ld.lld")
    src, obj, co = tmp_path / "k.c", tmp_path / "k.o", tmp_path / "k.hsaco"
    src.write_text(_CLANG_SLICED)
    for argv in ([clang, "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}", "-nogpulib", "-O2", "-c", str(src),
                  "-o", str(obj)], [lld, "-shared", str(obj), "-o", str(co)]):
        subprocess.run(argv, check=True, capture_output=True)
    from runtime import Device
    dev = Device("emu", arch=arch)
    prg = dev.load(co.read_bytes())
    rng = np.random.default_rng(29)
    width, height, total = 6, 4, 5
    image = rng.standard_normal((total, height, width, 4)).astype(np.float32)
    img = dev.alloc(image.nbytes + 256, "image")
    base = (img.address + 255) & ~255
    dev.memory.write(base, image)
    out = dev.alloc(16 * LANES, "out")
    coords = dev.alloc(12 * LANES, "coords")
    tptr = dev.alloc(8, "tsharp pointer")
    for name, kind, last, base_array in (("load3d", "3D", 3, 0), ("load2darray", "2D_ARRAY", 4, 1)):
        rsrc = np.array(sliced_tsharp(arch, kind, 63, width, height, last, base_array), np.uint32)
        rsrc[0] |= np.uint32((base >> 8) & 0xFFFFFFFF)
        rsrc[1] |= np.uint32(base >> 40)
        tbuf = dev.alloc(32, "tsharp").copyin(rsrc)
        tptr.copyin(np.array([tbuf.address], np.uint64))
        nslices = last - base_array + 1
        s, t, k, _ = sliced_coords(rng, kind, width, height, nslices, LANES)
        coords.copyin(np.concatenate([s, t, k]).astype(np.int32))
        prg.launch(name, grid=(1, 1, 1), block=(LANES, 1, 1), args=[tptr, coords, out])
        want, inside = sliced_reference(image, base_array, s, t, k, width, height, nslices)
        assert inside.any() and not inside.all()
        np.testing.assert_array_equal(out.copyout(np.float32).reshape(LANES, 4), want, err_msg=name)
    pos = rng.permutation(width * height * nslices)[:LANES]
    s, t, k = pos % width, pos // width % height, pos // (width * height)
    k[::5] = nslices
    data = rng.standard_normal((LANES, 4)).astype(np.float32)
    coords.copyin(np.concatenate([s, t, k]).astype(np.int32))
    prg.launch("store2darray", grid=(1, 1, 1), block=(LANES, 1, 1),
               args=[tptr, coords, dev.alloc(data.nbytes).copyin(data)])
    inside = k < nslices
    want = image.copy()
    want[base_array + k[inside], t[inside], s[inside]] = data[inside]
    got = np.frombuffer(dev.memory.read(base, image.nbytes), np.float32).reshape(image.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_sliced_a16_coordinates(arch):
    """A16 on a 2D-array image: s and t share the first address VGPR (low half first), the
    slice the low half of the second (10.1.3); each component out of range somewhere (a 16-bit
    0xFFFF too). Our bytes are llvm-mc-22's for the line."""
    rng = np.random.default_rng(31)
    width, height, last, base_array = 5, 3, 5, 2
    nslices = last - base_array + 1
    image = rng.integers(0, 2**32, (last + 1, height, width, 1), dtype=np.uint64).astype(np.uint32)
    s, t, k, _ = sliced_coords(rng, "2D_ARRAY", width, height, nslices, LANES)
    s, t, k = (np.asarray(c, np.int64) & 0xFFFF for c in (s, t, k))
    addr = "[v4, v5]" if arch.startswith("gfx12") else "v[4:5]"
    line = f"image_load v8, {addr}, s[8:15] dmask:0x1 dim:{DIM['2D_ARRAY']} a16"
    assert image_bytes(line, arch) == llvm_bytes(line, arch)
    _, out = run(arch, line, sliced_tsharp(arch, "2D_ARRAY", 20, width, height, last, base_array), image,
                 [s | t << 16, k])
    want, inside = sliced_reference(image, base_array, s, t, k, width, height, nslices)
    assert inside.any() and not inside.all()
    np.testing.assert_array_equal(out[:, 0], want[:, 0])
