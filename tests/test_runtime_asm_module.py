"""Kernel sources with .amdhsa_kernel blocks (examples/*.s) assemble to code objects whose
.text is byte-identical to llvm-mc-22 -filetype=obj on the same source and whose kernel
descriptors have the same bytes (the entry offset, a relocation in LLVM's object, is
checked to point at the kernel); directive errors name line:column."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsl.asm import AsmError
from runtime.asm_module import assemble_module
from runtime.codeobj import read_code_object
from .llvm_tools import run, tool

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SOURCES = sorted(p.name for p in EXAMPLES.glob("*.s"))


def _wave(text: str) -> int | None:
    return 64 if "--wave64" in text else None


def _llvm_object(src: Path, tmp_path: Path) -> tuple[dict[str, bytes], dict[str, int]]:
    """({section: bytes} for .text/.rodata/.data, {symbol: value}) of llvm-mc-22's object for `src`."""
    text = src.read_text()
    target = re.search(r"--(gfx\w+)", text).group(1)
    obj = tmp_path / (src.stem + ".o")
    argv = [tool("llvm-mc"), "-triple", "amdgcn-amd-amdhsa", f"-mcpu={target}", "-filetype=obj", str(src), "-o", str(obj)]
    if _wave(text) == 64:
        argv.insert(4, "-mattr=+wavefrontsize64")
    run(*argv)
    sections = {}
    for name in (".text", ".rodata", ".data"):
        out = tmp_path / (src.stem + name)
        run(tool("llvm-objcopy"), "-O", "binary", f"--only-section={name}", str(obj), str(out))
        sections[name] = out.read_bytes() if out.exists() else b""
    symbols = {}
    for line in run(tool("llvm-readelf"), "-s", str(obj)).splitlines():
        m = re.match(r"\s*\d+:\s+([0-9a-f]+)\s+\d+\s+\w+\s+\w+\s+\w+\s+\d+\s+(\S+)$", line)
        if m:
            symbols[m.group(2)] = int(m.group(1), 16)
    return sections, symbols


@pytest.mark.parametrize("name", SOURCES)
def test_text_and_descriptors_match_llvm_mc(name, tmp_path):
    src = EXAMPLES / name
    text = src.read_text()
    co = read_code_object(assemble_module(text, wave_size=_wave(text), filename=name))
    llvm, llvm_syms = _llvm_object(src, tmp_path)
    ours_text, llvm_text, llvm_rodata = co.elf.section(".text").data, llvm[".text"], llvm[".rodata"]
    assert ours_text == llvm_text, f"{name}: .text differs from llvm-mc at byte " \
        f"{next(i for i, (a, b) in enumerate(zip(ours_text + b'?', llvm_text + b'!')) if a != b)}"
    ours_data = co.elf.section(".data")
    assert (ours_data.data if ours_data else b"") == llvm[".data"], name
    assert co.kernels, name
    for k in co.kernels.values():
        at = llvm_syms[k.name + ".kd"]
        theirs = llvm_rodata[at:at + 64]
        assert k.descriptor_bytes[:16] + k.descriptor_bytes[24:] == theirs[:16] + theirs[24:], (name, k.name)
        assert k.entry == co.functions[k.name][0]                       # entry offset points at the code
        assert k.entry - co.elf.section(".text").addr == llvm_syms[k.name]
        assert len(k.code) == co.functions[k.name][1] > 0


def test_metadata_block_and_generated_metadata():
    vector_add = read_code_object(assemble_module((EXAMPLES / "vector_add.s").read_text()))
    k = vector_add.kernels["vector_add"]
    assert [(a.name, a.offset, a.value_kind) for a in k.args] == \
        [("a", 0, "global_buffer"), ("b", 8, "global_buffer"), ("c", 16, "global_buffer"), ("n", 24, "by_value")]
    assert k.metadata[".max_flat_workgroup_size"] == 256
    lds = read_code_object(assemble_module((EXAMPLES / "lds_reduce.s").read_text()))   # no block: generated
    meta = lds.kernels["lds_reduce"].metadata
    assert meta[".group_segment_fixed_size"] == 1024 and meta[".kernarg_segment_size"] == 16
    assert meta[".vgpr_count"] == 8 and meta[".sgpr_count"] == 11 + 2 and meta[".wavefront_size"] == 32


def test_data_directives_symbols_and_relocations():
    src = """\
.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
.text
.globl k
.p2align 8
k:
  s_endpgm
.set answer, 6 * 7
.data
.p2align 3
table:
  .byte 1, 2, answer
  .p2align 2
  .short 0x1234
  .p2align 2
  .long answer << 8, .Lafter - table
  .quad k + 4
.Lafter:
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 1
.end_amdhsa_kernel
"""
    co = read_code_object(assemble_module(src))
    data = co.elf.section(".data")
    want = bytes([1, 2, 42, 0]) + (0x1234).to_bytes(2, "little") + bytes(2) + (42 << 8).to_bytes(4, "little") + \
        (24).to_bytes(4, "little")
    assert data.data[:16] == want
    base = 0x40000
    image = co.load_image(base)
    got = int.from_bytes(image[data.addr + 16:data.addr + 24], "little")
    assert got == base + co.kernels["k"].entry + 4        # R_AMDGPU_RELATIVE64 applied at load


@pytest.mark.parametrize("src,message", [
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\nk:\n s_endpgm\n.rodata\n.amdhsa_kernel k\n"
     " .amdhsa_next_free_vgpr 1\n .amdhsa_bogus 1\n .amdhsa_next_free_sgpr 1\n.end_amdhsa_kernel\n",
     r"^10:1: .amdhsa_kernel k: .amdhsa_bogus is not a kernel descriptor directive"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\nk:\n s_endpgm\n.rodata\n.amdhsa_kernel k\n"
     " .amdhsa_next_free_vgpr 1\n", r"amdhsa_kernel k has no .end_amdhsa_kernel"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\n .frobnicate 3\n", r"^3:2: unknown directive .frobnicate"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.data\n .long undefined_thing + 1\n",
     r"^3:2: .long: undefined symbol 'undefined_thing'"),
    (".text\n s_endpgm\n", r"no target"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\n .rept 2\n s_nop 0\n", r"^3:2: .rept has no .endr"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\n s_nop 0\n .endr\n", r"^4:2: .endr without .rept"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\n .rept 2\nx:\n s_nop 0\n .endr\n",
     r"^4:1: symbol 'x' defined twice"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.amdgpu_metadata\n---\namdhsa.kernels: [\n.end_amdgpu_metadata\n",
     r"^\d+:\d+: .amdgpu_metadata is not valid YAML"),
    (".amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\"\n.text\n.rodata\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 1\n"
     " .amdhsa_next_free_sgpr 1\n.end_amdhsa_kernel\n", r"no label 'k' marks its code"),
])
def test_errors_name_the_line(src, message):
    with pytest.raises(AsmError, match=message):
        assemble_module(src)


# The AMDGPU functions LLVM writes into register-count expressions, with target-dependent meaning.
MC_FUNCTION_CASES = ["extrasgprs(1, 0, 1)", "extrasgprs(0, 1, 1)", "extrasgprs(0, 0, 1)", "extrasgprs(1, 0, 0)",
                     "extrasgprs(0, 0, 0)", "totalnumvgprs(3, 5)", "totalnumvgprs(0, 7)", "totalnumvgprs(9, 2)",
                     "alignto(5, 4)", "alignto(8, 4)", "or(1, 6, 8)", "max(1, 7, 3)", "max(k.n+extrasgprs(1, 0, 0), 1, 0)"]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx90a"])
def test_amdgpu_expression_functions_match_llvm_mc(arch, tmp_path):
    src = tmp_path / "f.s"
    src.write_text("\n.set k.n, 5\n" + "".join(f".set v{i}, {e}\n" for i, e in enumerate(MC_FUNCTION_CASES)))
    out = run(tool("llvm-mc"), "-triple", "amdgcn-amd-amdhsa", f"-mcpu={arch}", str(src))
    theirs = {int(i): int(v) for i, v in re.findall(r"\.set v(\d+), (-?\d+)", out)}
    assert len(theirs) == len(MC_FUNCTION_CASES)
    co = read_code_object(assemble_module(f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"\n' + src.read_text()))
    ours = {int(s.name[1:]): s.value for s in co.elf.symbols if re.fullmatch(r"v\d+", s.name)}
    assert ours == theirs, arch


def test_set_may_name_symbols_defined_later():
    src = ('.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.set a, b*2\n.set b, c+1\n.set c, 3\n'
           '.set loop1, loop2\n.set loop2, loop1\n')
    with pytest.raises(AsmError, match="5:1: .*loop1 is defined in terms of itself"):
        assemble_module(src)
    with pytest.raises(AsmError, match="2:1: .*undefined symbol 'nothere'"):
        assemble_module(src.split("\n")[0] + "\n.set a, nothere+1\n")
    co = read_code_object(assemble_module(src.rsplit(".set loop1", 1)[0]))
    assert {s.name: s.value for s in co.elf.symbols if s.name in ("a", "b", "c")} == {"a": 8, "b": 4, "c": 3}


@pytest.mark.parametrize("fill, expected", [(".fill 3", "01000000"), (".fill 2, 2", "0100000000"),
                                            (".fill 2, 4, 0x11223344", "014433221144332211"),
                                            (".p2alignl 3, 0xbf9f0000", "01000000" "00009fbf"),
                                            (".p2alignw 2, 0xabcd", "0100" "cdab")])
def test_fill_and_word_alignment(fill, expected):
    text = f'.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.data\n.byte 1\n.byte 0, 0, 0\n{fill}\n' \
        if "alignl" in fill else f'.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.data\n.byte 1\n{fill}\n'
    if "alignw" in fill:
        text = text.replace(".byte 1\n", ".byte 1, 0\n")
    assert read_code_object(assemble_module(text)).elf.section(".data").data.hex() == expected
