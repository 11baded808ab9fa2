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


def _text_relocations(obj: Path) -> list[tuple[int, str, str, int]]:
    """(offset, type, symbol, addend) of each .rela.text entry of llvm-mc-22's object, as llvm-readelf-22 shows them."""
    out, in_text = [], False
    for line in run(tool("llvm-readelf"), "-r", str(obj)).splitlines():
        if line.startswith("Relocation section"):
            in_text = "'.rela.text'" in line
        m = re.match(r"([0-9a-f]{16})\s+[0-9a-f]+\s+(R_AMDGPU_\w+)\s+[0-9a-f]+\s+(\S+)\s*([-+])\s*([0-9a-f]+)", line)
        if in_text and m:
            out.append((int(m.group(1), 16), m.group(2), m.group(3), int(m.group(5), 16) * (-1 if m.group(4) == "-" else 1)))
    return out


# S + A - P halves, as LLVM's AMDGPUUsage relocation table defines them (independent of runtime/link.py)
_APPLY = {"R_AMDGPU_REL32_LO": lambda v: v & 0xFFFFFFFF, "R_AMDGPU_REL32_HI": lambda v: (v >> 32) & 0xFFFFFFFF}


def _linked_llvm_text(co, llvm_text: bytes, relocations) -> bytes:
    """llvm-mc's .text with its relocations applied at the addresses of our linked code object."""
    text = bytearray(llvm_text)
    base = co.elf.section(".text").addr
    ours = {s.name: s.value for s in co.elf.symbols if s.name}
    for offset, rtype, symbol, addend in relocations:
        S = co.elf.section(symbol).addr if co.elf.section(symbol) else ours[symbol]
        text[offset:offset + 4] = _APPLY[rtype](S + addend - (base + offset)).to_bytes(4, "little")
    return bytes(text)


@pytest.mark.parametrize("name", SOURCES)
def test_text_and_descriptors_match_llvm_mc(name, tmp_path):
    src = EXAMPLES / name
    text = src.read_text()
    co = read_code_object(assemble_module(text, wave_size=_wave(text), filename=name))
    llvm, llvm_syms = _llvm_object(src, tmp_path)
    llvm_text = _linked_llvm_text(co, llvm[".text"], _text_relocations(tmp_path / (src.stem + ".o")))
    ours_text, llvm_rodata = co.elf.section(".text").data, llvm[".rodata"]
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
     r"^8:2: .amdhsa_bogus is not a kernel descriptor directive"),
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


def test_rodata_table_through_rel32_runs_on_the_emulator(tmp_path):
    """examples/rodata_table.s: the same relocations as llvm-mc-22 (type, symbol's place + addend),
    and the linked kernel reads its .rodata table through s_getpc_b64 + sym@rel32@lo/hi."""
    import numpy as np
    from runtime import Device
    src = EXAMPLES / "rodata_table.s"
    hsaco = assemble_module(src.read_text(), filename=src.name)
    co = read_code_object(hsaco)
    _llvm_object(src, tmp_path)
    llvm_relocs = _text_relocations(tmp_path / "rodata_table.o")
    assert [(o, t) for o, t, _, _ in llvm_relocs] == [(0x18, "R_AMDGPU_REL32_LO"), (0x20, "R_AMDGPU_REL32_HI")]
    table = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3], np.uint32)
    n = 100
    dev = Device("emu", arch="gfx1100")
    out = dev.alloc(4 * 128, "out").copyin(np.full(128, 0xDEAD, np.uint32))
    dev.load(hsaco).launch("table_lookup", grid=(2, 1, 1), block=(64, 1, 1), args=[out, np.uint32(n)])
    got = out.copyout(np.uint32)
    expected = table[np.arange(n) % 16] + table.nbytes
    assert (got[:n] == expected).all() and (got[n:] == 0xDEAD).all()


@pytest.mark.parametrize("src, message", [
    ("s_add_u32 s0, s0, table@rel32@lo+4", "@rel32@lo is a relocation, known only when the code is placed"),
    ("s_mov_b32 s0, .Lnowhere-.La\n.La:\n", "undefined symbol '.Lnowhere'"),
    (".La:\ns_mov_b32 s0, .La+4", "is an address, known only when the code is placed"),
])
def test_symbolic_literal_errors_without_a_code_object(src, message):
    import dsl
    with pytest.raises(AsmError, match=re.escape(message)):
        dsl.assemble(src, "gfx1100")


def test_label_difference_literal_matches_llvm_mc(tmp_path):
    import dsl
    src = tmp_path / "diff.s"
    src.write_text(".Lstart:\ns_mov_b32 s0, .Lend-.Lstart+4\nv_add_nc_u32 v0, .Lend - .Lstart, v1\n"
                   "s_sub_u32 s1, s1, .Lend-.Lstart-100\n.Lend:\ns_endpgm\n")
    obj, text = tmp_path / "diff.o", tmp_path / "diff.text"
    run(tool("llvm-mc"), "-triple", "amdgcn-amd-amdhsa", "-mcpu=gfx1100", "-filetype=obj", str(src), "-o", str(obj))
    run(tool("llvm-objcopy"), "-O", "binary", "--only-section=.text", str(obj), str(text))
    assert dsl.assemble(src.read_text(), "gfx1100") == text.read_bytes()


def test_unsupported_relocations_name_their_type():
    src = (EXAMPLES / "rodata_table.s").read_text().replace("table@rel32@hi+12", "table@abs32@hi")
    with pytest.raises(AsmError, match="R_AMDGPU_ABS32_HI against 'table'"):
        assemble_module(src)


def test_local_labels_relocate_against_their_section_and_run_on_the_emulator(tmp_path):
    """examples/local_rodata_table.s: REL32 and .quad references to .L labels become, as in
    llvm-mc-22's object, relocations against the label's section; the kernel then reads its
    .rodata table and the .data pointer to a .L constant on Device('emu')."""
    import numpy as np
    from runtime import Device
    src = EXAMPLES / "local_rodata_table.s"
    hsaco = assemble_module(src.read_text(), filename=src.name)
    _llvm_object(src, tmp_path)
    llvm_relocs = _text_relocations(tmp_path / "local_rodata_table.o")
    assert [(t, s) for _, t, s, _ in llvm_relocs] == [("R_AMDGPU_REL32_LO", ".rodata"), ("R_AMDGPU_REL32_HI", ".rodata"),
                                                     ("R_AMDGPU_REL32_LO", ".data"), ("R_AMDGPU_REL32_HI", ".data")]
    co = read_code_object(hsaco)
    assert not any(s.name.startswith(".L") for s in co.elf.symbols)
    squares, bias, n = np.arange(8, dtype=np.uint32) ** 2, 1000, 150
    dev = Device("emu", arch="gfx1100")
    out = dev.alloc(4 * 192, "out").copyin(np.full(192, 0xDEAD, np.uint32))
    dev.load(hsaco).launch("local_lookup", grid=(3, 1, 1), block=(64, 1, 1), args=[out, np.uint32(n)])
    got = out.copyout(np.uint32)
    assert (got[:n] == squares[np.arange(n) % 8] + bias).all() and (got[n:] == 0xDEAD).all()
