"""Code objects we write are accepted by LLVM 22's tools: llvm-readelf-22 reads headers,
segments, symbols and the metadata note without complaint and sees what we wrote;
llvm-objdump-22 disassembles .text to exactly our instructions and decodes our descriptors
to the .amdhsa settings we asked for. Our reader reads them back."""
from __future__ import annotations

import pytest

import dsl
from runtime.codeobj import KernelArg, read_code_object
from runtime.descriptor import directive_values
from runtime.writer import KernelSpec, from_dsl_kernel, write_code_object
from .llvm_tools import objdump_symbols, run, tool

SOURCE = """\
s_load_b64 s[2:3], s[0:1], 0x0
v_lshlrev_b32 v1, 2, v0
v_mov_b32 v5, 1.0
v_cmp_gt_u32 vcc_lo, 16, v0
s_and_saveexec_b32 s4, vcc_lo
s_waitcnt lgkmcnt(0)
global_store_b32 v1, v5, s[2:3]
s_or_b32 exec_lo, exec_lo, s4
s_endpgm
"""
ARGS = [KernelArg(0, 8, "global_buffer", "out", "global", "float*"), KernelArg(8, 4, "by_value", "n")]


def _write(tmp_path, target="gfx1100", wave=32, **directives):
    code = dsl.assemble(SOURCE.replace("vcc_lo", "vcc" if wave == 64 else "vcc_lo")
                        .replace("exec_lo", "exec" if wave == 64 else "exec_lo")
                        .replace("_b32 s4", "_b64 s[4:5]" if wave == 64 else "_b32 s4")
                        .replace("s_or_b32 exec, exec, s4", "s_or_b64 exec, exec, s[4:5]"), target, wave_size=wave)
    specs = [KernelSpec("first", code, ARGS, {"user_sgpr_kernarg_segment_ptr": 1, **directives}, wave),
             KernelSpec("second", code + dsl.assemble("s_nop 0", target), [], {"group_segment_fixed_size": 512}, wave)]
    path = tmp_path / f"{target}-{wave}.hsaco"
    path.write_bytes(write_code_object(target, specs))
    return path, code


@pytest.mark.parametrize("target,wave", [("gfx1100", 32), ("gfx1100", 64), ("gfx1151", 32)])
def test_llvm_reads_what_we_write(tmp_path, target, wave):
    path, code = _write(tmp_path, target, wave, system_vgpr_workitem_id=1)
    out = run(tool("llvm-readelf"), "-h", "-l", "-S", "-s", "-d", "--notes", str(path))
    assert "warning" not in out.lower() and "error" not in out.lower()
    assert f"Flags:                             0x{ {'gfx1100': 0x41, 'gfx1151': 0x4a}[target]:x}, {target}" in out
    assert "AMDGPU - HSA" in out and "ABI Version:                       3" in out
    for sym in ("first", "second"):
        assert f"FUNC    GLOBAL PROTECTED   6 {sym}\n" in out
        assert f"OBJECT  GLOBAL PROTECTED   5 {sym}.kd\n" in out
    from .llvm_tools import readelf_metadata
    meta = readelf_metadata(path)
    assert meta["amdhsa.target"] == f"amdgcn-amd-amdhsa--{target}" and meta["amdhsa.version"] == [1, 2]
    first = next(k for k in meta["amdhsa.kernels"] if k[".name"] == "first")
    assert [(a[".offset"], a[".size"], a[".value_kind"]) for a in first[".args"]] == \
        [(0, 8, "global_buffer"), (8, 4, "by_value")]
    assert first[".kernarg_segment_size"] == 12 and first[".wavefront_size"] == wave
    assert first[".vgpr_count"] == 6 and first[".sgpr_count"] == (6 if wave == 64 else 5) + 2   # s0..s4/5, VCC

    mattr = "+wavefrontsize64" if wave == 64 else None
    dump = objdump_symbols(path, ["first", "first.kd", "second.kd"], mattr)
    assert bytes(dump["first"]["bytes"]) == code
    assert len(dump["first"]["text"]) == len(SOURCE.strip().splitlines())
    assert not any("unknown" in t or t.startswith(".long") for t in dump["first"]["text"])
    co = read_code_object(path.read_bytes())
    for name in ("first", "second"):
        kd = dump[name + ".kd"]
        printed = {d: v for d, v in kd["directives"].items() if not d.startswith(".amdhsa_reserve")}
        assert directive_values(co.kernels[name].descriptor, co.target_info) == \
            {**directive_values(co.kernels[name].descriptor, co.target_info), **printed}
    d1 = dump["first.kd"]["directives"]
    assert d1[".amdhsa_user_sgpr_kernarg_segment_ptr"] == 1 and d1[".amdhsa_system_vgpr_workitem_id"] == 1
    assert d1[".amdhsa_wavefront_size32"] == (wave == 32) and d1[".amdhsa_kernarg_size"] == 12
    assert dump["second.kd"]["directives"][".amdhsa_group_segment_fixed_size"] == 512
    assert d1[".amdhsa_next_free_vgpr"] >= 6


def test_read_back_what_we_write(tmp_path):
    path, code = _write(tmp_path)
    co = read_code_object(path.read_bytes())
    assert co.target == "gfx1100" and co.version == 5 and set(co.kernels) == {"first", "second"}
    k = co.kernels["first"]
    assert k.code == code and k.entry % 256 == 0 and k.wave_size == 32
    assert [(a.name, a.offset, a.size) for a in k.args] == [("out", 0, 8), ("n", 8, 4)]
    assert k.descriptor.user_sgpr_count == 2 and k.descriptor.enable_sgpr_kernarg_segment_ptr == 1
    assert co.load_image(0x10000)[k.entry:k.entry + len(code)] == code


def test_dsl_kernel_to_code_object():
    from dsl.rdna3 import Kernel, s, v, s_endpgm, v_add_f32, s_load_b64
    k = Kernel("gfx1100", name="add")
    k += s_load_b64(s[4:5], s[0:1], 0)
    k += v_add_f32(v[9], v[1], v[2])
    k += s_endpgm()
    co = read_code_object(from_dsl_kernel(k, args=[KernelArg(0, 8, "global_buffer", "x", "global")],
                                          user_sgpr_kernarg_segment_ptr=1))
    info = co.kernels["add"]
    assert info.code == k.assemble() and info.vgpr_count == 10 and info.kernarg_size == 8


def test_bad_settings_are_named():
    code = dsl.assemble("s_endpgm", "gfx1100")
    with pytest.raises(ValueError, match="kernel 'k': .amdhsa_tg_split does not exist on gfx1100"):
        write_code_object("gfx1100", [KernelSpec("k", code, directives={"tg_split": 1})])
    with pytest.raises(ValueError, match="kernel 'k': .amdhsa_bogus is not a kernel descriptor directive"):
        write_code_object("gfx1100", [KernelSpec("k", code, directives={"bogus": 1})])
    with pytest.raises(ValueError, match="user_sgpr_count 1 is less than the 2"):
        write_code_object("gfx1100", [KernelSpec("k", code, directives={"user_sgpr_count": 1,
                                                                          "user_sgpr_dispatch_ptr": 1})])
    with pytest.raises(ValueError, match="float_denorm_mode_32 = 4 does not fit in 2 bits"):
        write_code_object("gfx1100", [KernelSpec("k", code, directives={"float_denorm_mode_32": 4})])


@pytest.mark.parametrize("version,abi", [(4, 2), (5, 3), (6, 4)])
def test_code_object_versions(tmp_path, version, abi):
    code = dsl.assemble("s_endpgm", "gfx1151")
    path = tmp_path / f"v{version}.hsaco"
    path.write_bytes(write_code_object("gfx1151", [KernelSpec("k", code)], version=version))
    assert f"ABI Version:                       {abi}\n" in run(tool("llvm-readelf"), "-h", str(path))
    co = read_code_object(path.read_bytes())
    assert co.version == version and co.metadata["amdhsa.version"] == ([1, 1] if version == 4 else [1, 2])
