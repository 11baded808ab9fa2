"""Image loads with TFE / LWE and cube images on the emulator (emu/image.py, emu/machine_prepare.py
`_image`) against numpy references and the manuals' words (printed pages):

- TFE: the status VGPR after the data is TEXEL_FAIL | LOD_WARNING << 1 | LOD << 16 (10.1.1:
  RDNA3 p. 96-97, RDNA3.5 p. 98-99, RDNA4 p. 119): no unmapped page, no LOD warning without a
  sampler, mip 0: zero. RDNA3 / 3.5 write it, RDNA4 returns "nothing ... if no thread
  experiences a texture fault"; with DMASK 0 "TFE status is not generated" (Table 48). LWE "is
  ignored for non-sampler ops". An out-of-range texel's status is not given: refused.
- cubes: "For cubemaps, face_id = slice * 6 + face" (10.2: RDNA3 p. 98, RDNA4 p. 120): the face
  component addresses slice face_id; depth / base_array in faces or in cubes is left open, so
  base_array 0 and the face ids both readings agree on run, the rest is refused.

The lines are our assembler's; test_lines_assemble_as_llvm_mc holds them to llvm-mc-22's bytes."""
from __future__ import annotations

import numpy as np
import pytest

from .llvm_tools import tool
from .test_emu_image import (ARCHS, DIM, LANES, _refused, addr_text, image_bytes, llvm_bytes, rng_coords, run,
                             texels, tsharp)

DEAD = 0xDEAD


def _modes(arch, line, rsrc, image, coords, **kw):
    """run() in fast and in reference mode; asserts they agree bit for bit, returns the fast one."""
    from emu.options import FAST, REFERENCE
    got = [run(arch, line, rsrc, image, coords, options=o, **kw) for o in (FAST, REFERENCE)]
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
    return got[0]


def _tfe_lines(arch):
    two = addr_text(arch, 2)
    return [f"image_load v[8:11], {two}, s[8:15] dmask:0x7 dim:{DIM['2D']} tfe",
            f"image_load v[8:9], {two}, s[8:15] dmask:0x1 dim:{DIM['2D']} tfe",
            f"image_load v[8:9], {two}, s[8:15] dim:{DIM['2D']} tfe",
            f"image_load v[8:10], {two}, s[8:15] dmask:0x7 dim:{DIM['2D']} tfe d16",
            f"image_load_mip v[8:9], {addr_text(arch, 3)}, s[8:15] dmask:0x1 dim:{DIM['2D']} tfe"]


def _cube_lines(arch):
    three, atomic = addr_text(arch, 3), ("image_atomic_add_uint", "th:TH_ATOMIC_RETURN") \
        if arch.startswith("gfx12") else ("image_atomic_add", "glc")
    return [f"image_load v[8:9], {three}, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_CUBE",
            f"image_store v[8:9], {three}, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_CUBE",
            f"image_load_mip v[8:9], {addr_text(arch, 4)}, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_CUBE",
            f"{atomic[0]} v8, {three}, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_CUBE {atomic[1]}"]


@pytest.mark.parametrize("arch", ARCHS)
def test_lines_assemble_as_llvm_mc(arch):
    lines = _tfe_lines(arch) + _cube_lines(arch)
    if not arch.startswith("gfx12"):
        lines += [f"image_load v8, v[4:5], s[8:15] dmask:0x1 dim:{DIM['2D']} lwe",
                  f"image_store v[8:9], v[4:5], s[8:15] dmask:0x1 dim:{DIM['2D']} tfe"]
    for line in lines:
        assert image_bytes(line, arch) == llvm_bytes(line, arch), line


@pytest.mark.parametrize("arch", ARCHS)
def test_tfe_load_status(arch):
    """TFE loads of a 32_32_32_32_UINT image, every active lane in range: the data as without
    TFE (numpy index math), then the status VGPR: 0 on RDNA3 / 3.5, untouched on RDNA4;
    EXEC-off lanes untouched. D16 and image_load_mip (mip 0) too; fast and reference agree."""
    rdna4 = arch.startswith("gfx12")
    rng = np.random.default_rng(41)
    width, height = 9, 7
    image = rng.integers(0, 2**32, (height, width, 4), dtype=np.uint64).astype(np.uint32)
    x, y = rng.integers(0, width, LANES), rng.integers(0, height, LANES)
    rsrc = tsharp(arch, 0, 61, width, height)
    status = DEAD if rdna4 else 0
    channels, _ = texels(image, x, y, width, height)
    exec_mask = 0xF0FF_FF0F
    on = (exec_mask >> np.arange(LANES)) & 1 == 1
    keep = np.full((LANES, 4), DEAD, np.uint32)
    two = addr_text(arch, 2)
    _, out = _modes(arch, f"image_load v[8:11], {two}, s[8:15] dmask:0x7 dim:{DIM['2D']} tfe", rsrc, image,
                    [x, y], data=keep, exec_mask=exec_mask)
    np.testing.assert_array_equal(out[:, :3], np.where(on[:, None], channels[:, :3], DEAD))
    np.testing.assert_array_equal(out[:, 3], np.where(on, status, DEAD))
    _, out = _modes(arch, f"image_load_mip v[8:9], {addr_text(arch, 3)}, s[8:15] dmask:0x1 dim:{DIM['2D']} tfe",
                    rsrc, image, [x, y, np.zeros(LANES)], data=keep)
    np.testing.assert_array_equal(out[:, 0], channels[:, 0])
    np.testing.assert_array_equal(out[:, 1], status)
    np.testing.assert_array_equal(out[:, 2:], DEAD)
    half = rng.integers(0, 2**16, (height, width, 4), dtype=np.uint16)      # 16_16_16_16_FLOAT, D16
    h = texels(half, x, y, width, height)[0].astype(np.uint32)
    _, out = _modes(arch, f"image_load v[8:10], {two}, s[8:15] dmask:0x7 dim:{DIM['2D']} tfe d16",
                    tsharp(arch, 0, 57, width, height), half, [x, y], data=np.full((LANES, 4), 0xABCD0000, np.uint32))
    np.testing.assert_array_equal(out[:, 0], h[:, 0] | h[:, 1] << 16)
    np.testing.assert_array_equal(out[:, 1], h[:, 2] | 0xABCD0000)
    np.testing.assert_array_equal(out[:, 2], 0xABCD0000 if rdna4 else 0)      # RDNA4: untouched


@pytest.mark.parametrize("arch", ARCHS)
def test_tfe_dmask0_unbound_and_lwe(arch):
    """DMASK 0 with TFE: one zero VGPR, the status "not generated" (untouched); an all-zero
    (unbound) T#: zero data, no transaction so no NACK (status 0 on RDNA3 / 3.5, untouched on
    RDNA4); RDNA3's LWE on image_load: ignored, no extra VGPR written."""
    rdna4 = arch.startswith("gfx12")
    rng = np.random.default_rng(43)
    width, height = 8, 8
    image = rng.integers(1, 2**32, (height, width, 1), dtype=np.uint64).astype(np.uint32)
    x, y = rng.integers(0, width, LANES), rng.integers(0, height, LANES)
    keep = np.full((LANES, 4), DEAD, np.uint32)
    two = addr_text(arch, 2)
    _, out = _modes(arch, f"image_load v[8:9], {two}, s[8:15] dim:{DIM['2D']} tfe",
                    tsharp(arch, 0, 20, width, height), image, [x, y], data=keep)
    np.testing.assert_array_equal(out[:, 0], 0)
    np.testing.assert_array_equal(out[:, 1:], DEAD)
    _, out = _modes(arch, f"image_load v[8:9], {two}, s[8:15] dmask:0x1 dim:{DIM['2D']} tfe", [0] * 8, image,
                    [x + 100, y], data=keep)           # unbound: no range to be out of
    np.testing.assert_array_equal(out[:, 0], 0)
    np.testing.assert_array_equal(out[:, 1], DEAD if rdna4 else 0)
    if not rdna4:
        _, out = _modes(arch, f"image_load v8, v[4:5], s[8:15] dmask:0x1 dim:{DIM['2D']} lwe",
                        tsharp(arch, 0, 20, width, height), image, [x, y], data=keep)
        np.testing.assert_array_equal(out[:, 0], image[y, x, 0])
        np.testing.assert_array_equal(out[:, 1:], DEAD)


@pytest.mark.parametrize("arch", ARCHS)
def test_tfe_refusals(arch):
    """TFE with an active lane out of range (its status is defined by a NACK, not by the range)
    and TFE on a store are refused naming TFE, a status VGPR past the allocation naming it; an
    out-of-range lane EXEC leaves off runs."""
    rng = np.random.default_rng(47)
    x, y = rng_coords(rng, 16, 4)
    line = f"image_load v[8:9], {addr_text(arch, 2)}, s[8:15] dmask:0x1 dim:{DIM['2D']} tfe"
    msg = _refused(arch, line, tsharp(arch, 0, 20, 16, 4), [x, y], "TFE: lane 0 .*out of range")
    assert "image_load" in msg
    inside = (((x & 0xFFFFFFFF) < 16) & ((y & 0xFFFFFFFF) < 4)).astype(int)
    mask = int(sum(int(b) << i for i, b in enumerate(inside)))
    _, out = run(arch, line, tsharp(arch, 0, 20, 16, 4), np.zeros((4, 16, 1), np.uint32), [x, y],
                 exec_mask=mask, data=np.full((LANES, 4), DEAD, np.uint32))
    np.testing.assert_array_equal(out[:, 0], np.where(inside == 1, 0, DEAD))
    # the status VGPR past the kernel's 16 (RDNA4 3.3.4 checks it "no matter whether the texture
    # system actually returns this value"): an error, not a run that leaves it out
    _refused(arch, f"image_load v[14:16], {addr_text(arch, 2)}, s[8:15] dmask:0x3 dim:{DIM['2D']} tfe",
             tsharp(arch, 0, 20, 16, 4), [x % 16, y % 4], "v14 is beyond the 16 VGPRs")
    if not arch.startswith("gfx12"):
        _refused(arch, f"image_store v[8:9], v[4:5], s[8:15] dmask:0x1 dim:{DIM['2D']} tfe",
                 tsharp(arch, 0, 20, 16, 4), [x % 16, y % 4], "TFE on an image store")


def cube_tsharp(arch, fmt, width, last, base_array=0):
    """A 256-bit T# of type 11 (cube): depth (the last array slice) and base array fields."""
    rdna4 = arch.startswith("gfx12")
    return tsharp(arch, 0, fmt, width, width, kind=11,
                  extra={(141 if rdna4 else 140, 128): last, (156, 144): base_array})


def cube_coords(rng, width, faces, lanes=LANES):
    """(s, t, face_id) per lane: inside, or out of range for either reading of the depth field
    (s or t = width, face_id >= 6 * faces: past six faces a slice, or -1 as uint)."""
    s, t, f = rng.integers(0, width, lanes), rng.integers(0, width, lanes), rng.integers(0, faces, lanes)
    s[::9], t[4::11] = width, width
    f[2::7] = 6 * faces + rng.integers(0, 5)
    f[6] = -1
    return s, t, f


def cube_reference(image, s, t, f, width, faces):
    s, t, f = (np.asarray(c, np.int64) & 0xFFFFFFFF for c in (s, t, f))
    inside = (s < width) & (t < width) & (f < faces)
    got = image[np.where(inside, f, 0), np.where(inside, t, 0), np.where(inside, s, 0)]
    return np.where(inside[:, None], got, 0), inside


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("arch", ARCHS)
def test_cube_load_store_atomic(arch, wave):
    """A 32_32_UINT cube array of two cubes (12 faces, depth 11): face_id addresses slice face_id
    (10.2: face_id = slice * 6 + face) against numpy index math, lanes out of range in s, t or
    face_id reading 0; stores of distinct texels (out of range: nothing); image_load_mip at mip
    0; then 32_UINT atomics adding in lane order. Fast and reference mode bit for bit."""
    rng = np.random.default_rng([wave, len(arch)])
    lanes, width, faces = wave, 5, 12
    image = rng.integers(0, 2**32, (faces, width, width, 2), dtype=np.uint64).astype(np.uint32)
    rsrc = cube_tsharp(arch, 48, width, faces - 1)
    s, t, f = cube_coords(rng, width, faces, lanes)
    three = addr_text(arch, 3)
    _, out = _modes(arch, f"image_load v[8:9], {three}, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_CUBE", rsrc, image,
                    [s, t, f], data=np.full((lanes, 4), DEAD, np.uint32), wave=wave, lanes=lanes)
    want, inside = cube_reference(image, s, t, f, width, faces)
    assert inside.any() and not inside.all()
    np.testing.assert_array_equal(out[:, :2], want)
    np.testing.assert_array_equal(out[:, 2:], DEAD)
    _, out = _modes(arch, f"image_load_mip v[8:9], {addr_text(arch, 4)}, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_CUBE",
                    rsrc, image, [s, t, f, np.zeros(lanes)], wave=wave, lanes=lanes)
    np.testing.assert_array_equal(out[:, :2], want)
    pos = rng.permutation(width * width * faces)[:lanes]
    s, t, f = pos % width, pos // width % width, pos // (width * width)
    s[::8] = width
    f[3::10] = 6 * faces
    data = rng.integers(0, 2**32, (lanes, 4), dtype=np.uint64).astype(np.uint32)
    after, _ = _modes(arch, f"image_store v[8:9], {three}, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_CUBE", rsrc, image,
                      [s, t, f], data=data, wave=wave, lanes=lanes)
    inside = (s < width) & (f < faces)
    want = image.copy()
    want[f[inside], t[inside], s[inside]] = data[inside, :2]
    np.testing.assert_array_equal(after.view(np.uint32).reshape(want.shape), want)
    counts = rng.integers(0, 1000, (faces, width, width, 1), dtype=np.uint32)
    s, t, f = rng.integers(0, 2, lanes), rng.integers(0, 2, lanes), rng.integers(0, faces, lanes)
    f[1::6] = 6 * faces + 1
    add = np.zeros((lanes, 4), np.uint32)
    add[:, 0] = rng.integers(1, 100, lanes)
    name, ret = ("image_atomic_add_uint", "th:TH_ATOMIC_RETURN") if arch.startswith("gfx12") else \
        ("image_atomic_add", "glc")
    after, out = _modes(arch, f"{name} v8, {three}, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_CUBE {ret}",
                        cube_tsharp(arch, 20, width, faces - 1), counts, [s, t, f], data=add, wave=wave, lanes=lanes)
    want, returned = counts.copy(), np.zeros(lanes, np.uint32)
    for lane in range(lanes):                       # the reference's lane order, one lane at a time
        if f[lane] < faces:
            returned[lane] = want[f[lane], t[lane], s[lane], 0]
            want[f[lane], t[lane], s[lane], 0] += add[lane, 0]
    np.testing.assert_array_equal(after.view(np.uint32).reshape(want.shape), want)
    np.testing.assert_array_equal(out[:, 0], returned)


@pytest.mark.parametrize("arch", ARCHS)
def test_cube_refusals_name_the_field(arch):
    """What the manual leaves open about a cube's T# is refused naming it: a face_id past the
    depth field but below 6 * (depth + 1) (in range if depth counts cubes, out if faces), a
    base_array other than 0; a cube T# with DIM 2D array does not match."""
    width = 4
    three = addr_text(arch, 3)
    load = f"image_load v8, {three}, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_CUBE"
    z = np.zeros(LANES)
    f = np.arange(LANES) % 6
    msg = _refused(arch, load, cube_tsharp(arch, 20, width, 0), [z, z, f], "face_id 1 past the T#'s depth 0")
    assert "cubes" in msg and "faces" in msg
    _refused(arch, load, cube_tsharp(arch, 20, width, 11, base_array=6), [z, z, f], "base_array is 6 for a cube")
    _refused(arch, f"image_load v8, {three}, s[8:15] dmask:0x1 dim:{DIM['2D_ARRAY']}", cube_tsharp(arch, 20, width, 5),
             [z, z, f], "T# type 11 \\(cube\\) does not match DIM 5")
    from emu.image import Image          # R128: a cube's T# is a 256-bit one
    from emu.semantics import SemanticsError
    with pytest.raises(SemanticsError, match="cube image with a 128-bit T#"):
        Image.of(np.array([cube_tsharp(arch, 20, width, 5)[:4]], np.uint32), "VIMAGE" if arch.startswith("gfx12")
                 else "MIMG", 3)


_CLANG = r"""
typedef float v4f __attribute__((ext_vector_type(4)));
__attribute__((amdgpu_kernel)) void loadcube(const __amdgpu_texture_t *t, const int *c, v4f *out) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_image_load_cube_v4f32_i32(15, c[i], c[i + 32], c[i + 64], *t, 0, 0);
}
__attribute__((amdgpu_kernel)) void storecube(const __amdgpu_texture_t *t, const int *c, const v4f *in) {
  int i = __builtin_amdgcn_workitem_id_x();
  __builtin_amdgcn_image_store_cube_v4f32_i32(in[i], 15, c[i], c[i + 32], c[i + 64], *t, 0, 0);
}
__attribute__((amdgpu_kernel)) void loadtfe(const __amdgpu_texture_t *t, const int *c, v4f *out) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_image_load_2d_v4f32_i32(15, c[i], c[i + 32], *t, 1, 0);
}
"""


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_clang_cube_and_tfe_builtins_on_device(tmp_path, arch):
    """clang-22's code for __builtin_amdgcn_image_load_cube / image_store_cube (dim:
    SQ_RSRC_IMG_CUBE) and image_load_2d with texfailctrl 1 (image_load ... tfe, five data
    VGPRs) on Device("emu"): a 32_32_32_32_FLOAT cube of 6 faces against numpy index math, the
    stores read back from the image's bytes, the TFE load's data as numpy's."""
    import subprocess
    clang, lld = tool("clang"), tool("ld.lld")
    src, obj, co = tmp_path / "k.c", tmp_path / "k.o", tmp_path / "k.hsaco"
    src.write_text(_CLANG)
    for argv in ([clang, "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}", "-nogpulib", "-O2", "-c", str(src),
                  "-o", str(obj)], [lld, "-shared", str(obj), "-o", str(co)]):
        subprocess.run(argv, check=True, capture_output=True)
    assert b"dim:SQ_RSRC_IMG_CUBE" in subprocess.run([tool("llvm-objdump"), "-d", f"--mcpu={arch}", str(co)],
                                                     check=True, capture_output=True).stdout
    from runtime import Device
    dev = Device("emu", arch=arch)
    prg = dev.load(co.read_bytes())
    rng = np.random.default_rng(53)
    width, faces = 4, 6
    image = rng.standard_normal((faces, width, width, 4)).astype(np.float32)
    img = dev.alloc(image.nbytes + 256, "image")
    base = (img.address + 255) & ~255
    dev.memory.write(base, image)

    def tsharp_at(words):
        words = np.array(words, np.uint32)
        words[0] |= np.uint32((base >> 8) & 0xFFFFFFFF)
        words[1] |= np.uint32(base >> 40)
        return dev.alloc(32, "tsharp").copyin(words)
    tptr = dev.alloc(8, "tsharp pointer").copyin(np.array([tsharp_at(cube_tsharp(arch, 63, width, faces - 1)).address],
                                                          np.uint64))
    out, coords = dev.alloc(16 * LANES, "out"), dev.alloc(12 * LANES, "coords")
    s, t, f = cube_coords(rng, width, faces)
    coords.copyin(np.concatenate([s, t, f]).astype(np.int32))
    prg.launch("loadcube", grid=(1, 1, 1), block=(LANES, 1, 1), args=[tptr, coords, out])
    want, inside = cube_reference(image, s, t, f, width, faces)
    assert inside.any() and not inside.all()
    np.testing.assert_array_equal(out.copyout(np.float32).reshape(LANES, 4), want)
    pos = rng.permutation(width * width * faces)[:LANES]
    s, t, f = pos % width, pos // width % width, pos // (width * width)
    f[::5] = 6 * faces
    data = rng.standard_normal((LANES, 4)).astype(np.float32)
    coords.copyin(np.concatenate([s, t, f]).astype(np.int32))
    prg.launch("storecube", grid=(1, 1, 1), block=(LANES, 1, 1), args=[tptr, coords, dev.alloc(data.nbytes).copyin(data)])
    inside = f < faces
    want = image.copy()
    want[f[inside], t[inside], s[inside]] = data[inside]
    got = np.frombuffer(dev.memory.read(base, image.nbytes), np.float32).reshape(image.shape)
    np.testing.assert_array_equal(got, want)
    # TFE: a 2D view of the first face (every lane in range: an out-of-range status is refused)
    tptr.copyin(np.array([tsharp_at(tsharp(arch, 0, 63, width, width)).address], np.uint64))
    s, t = rng.integers(0, width, LANES), rng.integers(0, width, LANES)
    coords.copyin(np.concatenate([s, t, t]).astype(np.int32))
    prg.launch("loadtfe", grid=(1, 1, 1), block=(LANES, 1, 1), args=[tptr, coords, out])
    np.testing.assert_array_equal(out.copyout(np.float32).reshape(LANES, 4), got[0, t, s])
