"""Every clang-22 code object in ../shared/kernels reads back as LLVM's own tools see it:
kernel names, argument layouts and register counts as llvm-readelf-22 --notes prints them,
descriptor fields as llvm-objdump-22 prints the .kd symbol (.amdhsa_* directives and
'; FIELD value' comments), and each kernel's code bytes and entry address as
llvm-objdump-22 disassembles the kernel symbol."""
from __future__ import annotations

import json

import pytest

from runtime.codeobj import read_code_object
from runtime.descriptor import directive_values
from .conftest import SHARED, shared_path
from .llvm_tools import objdump_symbols, readelf_metadata

KERNELS = sorted(p.parent.name for p in (SHARED / "kernels").glob("*/manifest.json"))
# Directives objdump prints that only restate its own reconstruction of the SGPR count
# (the descriptor does not record which extra SGPRs were reserved).
RECONSTRUCTED = {".amdhsa_reserve_vcc", ".amdhsa_reserve_xnack_mask", ".amdhsa_reserve_flat_scratch"}


@pytest.mark.parametrize("kernel", KERNELS or ["(no kernels)"])
def test_clang_code_objects_read_like_llvm_sees_them(kernel):
    folder = shared_path("kernels", kernel)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["code_objects"], f"{kernel}: manifest lists no code objects"
    for target_dir, filename in manifest["code_objects"].items():
        path = folder / filename
        co = read_code_object(path.read_bytes())
        assert co.target == target_dir.split("-")[0]
        assert co.version == 6
        sym = manifest["kernel"]
        assert set(co.kernels) == {sym}, f"{path}: kernels {sorted(co.kernels)}"
        k = co.kernels[sym]
        assert f"__clang_ocl_kern_imp_{sym}" in co.functions     # a function, not a kernel

        # metadata as llvm-readelf prints it
        meta = readelf_metadata(path)
        assert meta["amdhsa.target"].startswith(f"amdgcn-amd-amdhsa--{co.target}")
        (want,) = [m for m in meta["amdhsa.kernels"] if m[".name"] == sym]
        got_args = [(a.offset, a.size, a.value_kind, a.address_space) for a in k.args]
        want_args = [(a[".offset"], a[".size"], a[".value_kind"], a.get(".address_space")) for a in want[".args"]]
        assert got_args == want_args, path
        assert len(k.args) == len(manifest["args"])
        assert (k.sgpr_count, k.vgpr_count, k.wave_size) == (want[".sgpr_count"], want[".vgpr_count"],
                                                             want[".wavefront_size"]), path
        assert k.kernarg_size == want[".kernarg_segment_size"]
        assert k.descriptor.group_segment_fixed_size == want[".group_segment_fixed_size"]
        assert k.descriptor.private_segment_fixed_size == want[".private_segment_fixed_size"]
        assert k.wave_size == (64 if target_dir.endswith("w64") or target_dir.startswith("gfx9") else 32)

        # descriptor and code as llvm-objdump disassembles them
        dump = objdump_symbols(path, [sym, sym + ".kd"],
                               "+wavefrontsize64" if target_dir.endswith("w64") else None)
        kd, code = dump[sym + ".kd"], dump[sym]
        assert k.descriptor_address == kd["address"] and k.entry == code["address"], path
        ours = directive_values(k.descriptor, co.target_info)
        printed = {d: v for d, v in kd["directives"].items() if d not in RECONSTRUCTED}
        assert len(printed) > 25, path
        assert {d: ours.get(d) for d in printed} == printed, path
        for field, value in kd["comments"].items():
            assert getattr(k.descriptor, field.lower()) == value, (path, field)
        assert k.code == bytes(code["bytes"]), path
