"""Real compiler output through our assembler: every ../shared/kernels/*/kernel.cl compiled by
clang-22 with `-S` for gfx1100, gfx1100 wave64 and gfx1151 (the corpus README's flags),
assembled by runtime.assemble_module (what `wavesmith asm` runs), must give the `.text` and
kernel descriptors of clang's own object (`clang-22 -c`, the same source and flags) byte for
byte, and the code object must run on Device("emu") to the kernel's numpy reference.

clang-22 and the LLVM tools are oracles only (skipped when absent); each kernel is compiled
once per test session (cached under the session's temporary folder)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO, SHARED
from tests.kernel_corpus import TARGETS, cases, run
from tests.llvm_tools import tool

ROOT = SHARED / "kernels"
CASES = cases(ROOT) if ROOT.exists() else []
# the corpus README's "How the code objects were produced": common flags, then per target
CLANG_FLAGS = ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2"]
TARGET_FLAGS = {"gfx1100": ["-mcpu=gfx1100", "-DKC_WAVESIZE=32"],
                "gfx1100-w64": ["-mcpu=gfx1100", "-mwavefrontsize64", "-DKC_WAVESIZE=64"],
                "gfx1151": ["-mcpu=gfx1151", "-DKC_WAVESIZE=32"],
                "gfx1201": ["-mcpu=gfx1201", "-DKC_WAVESIZE=32"],
                "gfx942": ["-mcpu=gfx942", "-DKC_WAVESIZE=64"],   # gfx942/gfx950: assembled here, emulated in test_emu_kernels
                "gfx950": ["-mcpu=gfx950", "-DKC_WAVESIZE=64"]}
_devices: dict = {}


def _params():
    for case in CASES:
        for target in TARGETS:      # CDNA: test_clang_cdna_assembly_... below; emulated in test_emu_kernels
            if target in case.manifest["code_objects"] and target not in ("gfx942", "gfx950"):
                yield pytest.param(case, target, id=f"{case.name}-{target}")


@pytest.fixture(scope="session")
def clang(tmp_path_factory):
    """clang(case, target) -> (assembly text, path of clang's object), compiled once per session."""
    out = tmp_path_factory.mktemp("clang")
    done: dict = {}

    def compile_(case, target):
        key = (case.name, target)
        if key not in done:
            exe = tool("clang")
            base = out / f"{case.name}.{target}"
            argv = [exe, *CLANG_FLAGS, *TARGET_FLAGS[target], "-I", str(ROOT), str(case.folder / "kernel.cl")]
            for flag, suffix in (("-S", ".s"), ("-c", ".o")):
                p = subprocess.run(argv + [flag, "-o", str(base) + suffix], capture_output=True, text=True)
                assert p.returncode == 0, f"clang-22 {flag} failed on {case.name} for {target}:\n{p.stderr}"
            done[key] = ((out / f"{base.name}.s").read_text(), out / f"{base.name}.o")
        return done[key]
    return compile_


def _section(obj, name: str, tmp_path) -> bytes:
    dst = tmp_path / (obj.name + name)
    subprocess.run([tool("llvm-objcopy"), "-O", "binary", f"--only-section={name}", str(obj), str(dst)], check=True)
    return dst.read_bytes()


def _symbols(obj) -> dict[str, int]:
    """{name: value} of an object's symbols as llvm-readelf-22 -s lists them."""
    out = {}
    for line in subprocess.run([tool("llvm-readelf"), "-s", str(obj)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"\s*\d+:\s+([0-9a-f]+)\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)$", line)
        if m:
            out[m.group(2)] = int(m.group(1), 16)
    return out


def _assemble(text: str, target: str, name: str) -> bytes:
    from runtime.asm_module import assemble_module
    return assemble_module(text, target.split("-")[0], wave_size=64 if target.endswith("-w64") else None,
                           filename=f"{name}.{target}.s")


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
@pytest.mark.parametrize("case, target", list(_params()))
def test_clang_assembly_assembles_to_clangs_bytes_and_runs(case, target, clang, tmp_path):
    from runtime import read_code_object
    text, obj = clang(case, target)
    data = _assemble(text, target, case.name)
    ours = read_code_object(data)
    theirs_text = _section(obj, ".text", tmp_path)
    our_text = ours.elf.section(".text").data
    assert our_text == theirs_text, (
        f"{case.name} {target}: .text differs from clang's at byte "
        f"{next(i for i, (a, b) in enumerate(zip(our_text + b'?', theirs_text + b'!')) if a != b)}")
    rodata, symbols = _section(obj, ".rodata", tmp_path), _symbols(obj)
    rod = ours.elf.section(".rodata")
    assert set(ours.kernels) == {n[:-3] for n in symbols if n.endswith(".kd")}
    for k in ours.kernels.values():
        at = symbols[k.name + ".kd"]
        mine = rod.data[k.descriptor_address - rod.addr:][:64]
        theirs = rodata[at:at + 64]
        # bytes 16..23 (kernel_code_entry_byte_offset) are a relocation in clang's object:
        # ours must hold the resolved value, the entry's distance from the descriptor
        assert mine[:16] + mine[24:] == theirs[:16] + theirs[24:], f"{k.name}.kd differs from clang's"
        assert int.from_bytes(mine[16:24], "little", signed=True) == k.entry - k.descriptor_address
        assert k.entry - ours.elf.section(".text").addr == symbols[k.name]
    results, stats = run(case, target, _devices, code_object=data)
    bad = {name: why for name, why in results.items() if why}
    assert results and not bad, f"{case.name} on {target}: {bad}"
    assert stats.instructions > 0


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
@pytest.mark.parametrize("case, target", [pytest.param(c, t, id=f"{c.name}-{t}") for t in ("gfx942", "gfx950")
                                          for c in CASES if t in c.manifest["code_objects"]])
def test_clang_cdna_assembly_assembles_to_clangs_bytes(case, target, clang, tmp_path):
    """CDNA3 and CDNA4: clang-22 -S for gfx942 / gfx950 through our gfx9-syntax assembler gives
    clang's `.text` and kernel descriptors (accum_offset, tg_split included) byte for byte."""
    text, obj = clang(case, target)
    ours = read_code_object_of(_assemble(text, target, case.name))
    assert ours.elf.section(".text").data == _section(obj, ".text", tmp_path), f"{case.name}: .text differs"
    rodata, symbols = _section(obj, ".rodata", tmp_path), _symbols(obj)
    rod = ours.elf.section(".rodata")
    assert set(ours.kernels) == {n[:-3] for n in symbols if n.endswith(".kd")}
    for k in ours.kernels.values():
        at = symbols[k.name + ".kd"]
        mine = rod.data[k.descriptor_address - rod.addr:][:64]
        assert mine[:16] + mine[24:] == rodata[at:at + 16] + rodata[at + 24:at + 64], f"{k.name}.kd differs"


def read_code_object_of(data: bytes):
    from runtime import read_code_object
    return read_code_object(data)


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
def test_wavesmith_asm_writes_the_same_code_object(clang, tmp_path):
    """The CLI (`wavesmith asm FILE.s -o FILE.hsaco --wave64`) gives what assemble_module gives."""
    case = next(c for c in CASES if c.name == "sgemm_tiled_lds")
    text, _ = clang(case, "gfx1100-w64")
    src, out = tmp_path / "k.s", tmp_path / "k.hsaco"
    src.write_text(text)
    p = subprocess.run([sys.executable, str(REPO / "wavesmith.py"), "asm", str(src), "-o", str(out), "--wave64"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() == _assemble(text, "gfx1100-w64", "k")
