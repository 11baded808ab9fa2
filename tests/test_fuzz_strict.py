"""A bounded fuzz suite (issue 15, "Done when"): random and mutated input to the module
assembler, the device API and the `wavesmith` command. Every input either succeeds or gets
one of the project's own errors with a location (assembler: line:column; device: the
kernel, argument or buffer it concerns); the command never prints a traceback, exits 0, 1
or 2 and keeps every error line short. Seeds are fixed, so a failure reproduces; each part
prints its counts. WAVESMITH_FUZZ_SCALE (default 1) multiplies the number of inputs."""
from __future__ import annotations

import os
import random
import re
import time

import numpy as np
import pytest

from tests.test_runtime_device_strict import STORE

SCALE = float(os.environ.get("WAVESMITH_FUZZ_SCALE", "1"))
HEAD = '.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n'

# ----------------------------------------------------------------------------- module assembler

# blocks of directive lines the mutations start from, each well-formed alone (instructions
# stay valid: the text assembler's own fuzzing is elsewhere)
BLOCKS = [
    [".set a, 5"], [".set b, a * 3 - 1"], [".set c, (b << 2) | 1"], [".equ d, max(a, b, 7)"], [".set e, -7 / 2 % 3"],
    [".set f, later + 1", ".set later, 2"], [".set g, alignto(a, 4)"], [".set h, or(1, 2) ! 4"],
    [".if a > 3", ".byte 1", ".elseif b", ".byte 2", ".else", ".byte 3", ".endif"], [".ifdef a", ".long 1", ".endif"],
    [".ifndef zz", ".short 2", ".endif"], [".ifc x, x", ".byte 4", ".endif"], [".ifb", ".endif"],
    [".ifeqs \"a\", \"a\"", ".byte 5", ".endif"], [".rept 3", ".byte 1", ".endr"],
    [".rept 2", ".rept 2", ".short 7", ".endr", ".endr"],
    [".macro m x, y=2", ".byte \\x, \\y", ".endm", "m 1", "m 3, 4", ".purgem m"],
    [".macro n x", ".if \\x", ".exitm", ".endif", ".long \\x", ".endm", "n 0", "n 1", ".purgem n"],
    [".data"], [".text"], [".rodata"], [".section .foo, \"a\""], [".section \".bar\", \"aw\", @nobits"], [".bss"],
    [".byte 1, 2, 255"], [".short -1"], [".long a + b"], [".quad sym + 8", "sym:"], [".long 0x12345678"],
    [".zero 16"], [".zero 4, 0xff"], [".fill 3, 2, 0x1234"], [".p2align 3"], [".p2alignl 2, 0xbf800000"],
    [".balign 16"], [".ascii \"abc\\n\""], [".asciz \"x\\101\\x41\""], [".string \"q\""],
    [".globl obj", ".type obj, @object", "obj:", ".long 1", ".size obj, 4"], [".hidden h1", "h1:"],
    [".weak w1", "w1:"], [".Ltmp:", ".long .Ltmp - ."], [" s_nop 0"], [" v_mov_b32 v1, v2"], [" s_mov_b32 s0, 5"],
    [".amdgpu_metadata", "---", "amdhsa.version: [1, 2]", "amdhsa.kernels:", "  - {.name: k, .symbol: k.kd}",
     "a: &a [1, 2]", "b: [*a, *a]", "...", ".end_amdgpu_metadata"],
]
KERNEL_BLOCK = [".rodata", ".amdhsa_kernel k", " .amdhsa_next_free_vgpr 4", " .amdhsa_next_free_sgpr 8",
                " .amdhsa_reserve_vcc 0", " .amdhsa_user_sgpr_kernarg_segment_ptr 1",
                " .amdhsa_group_segment_fixed_size 256", ".end_amdhsa_kernel"]
TOKENS = ["0", "-1", "1 << 63", "0xffffffffffffffff", "18446744073709551616", "99999999999999999999999",
          "100000000000", "(", ")", ",", "\"", "\\", "'", "max(", "alignto(1,0)", "a", "sym", ".", "-", "~", "!",
          "/0", "%0", ">>", "<<", "&&", "||", "==", "\\x", "\\400", "@", "#", ";", "//", ":", "é", "\x00", " " * 3]


def _mutate_line(rng: random.Random, line: str) -> str:
    choice = rng.random()
    if choice < 0.3 and line:
        at = rng.randrange(len(line) + 1)
        return line[:at] + rng.choice(TOKENS) + line[at:]
    if choice < 0.45 and line:
        at = rng.randrange(len(line))
        return line[:at] + line[at + rng.randint(1, 4):]
    if choice < 0.6:
        return re.sub(r"\d+", lambda m: rng.choice(TOKENS[:8]), line, count=1)
    if choice < 0.7:
        return line + " " + " ".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 4)))
    return line


def _random_source(rng: random.Random) -> str:
    lines = [".set a, 5", ".set b, 2", ".text", "k:", " s_endpgm"]
    for _ in range(rng.randint(1, 8)):
        lines += rng.choice(BLOCKS)
    if rng.random() < 0.7:          # a kernel descriptor, so its checks run too
        lines += KERNEL_BLOCK[:4] + rng.sample(KERNEL_BLOCK[4:-1], rng.randint(0, 3)) + [KERNEL_BLOCK[-1]]
    lines = [_mutate_line(rng, line) if rng.random() < 0.08 and not INSTRUCTION.match(line) else line
             for line in lines]
    if rng.random() < 0.05:
        rng.shuffle(lines)
    return HEAD + "\n".join(lines) + "\n"


INSTRUCTION = re.compile(r"\s+[sv]_")
LOCATED = re.compile(r"^(<source>:)?\d+:\d+: \S")


def test_fuzz_module_assembler():
    from dsl.asm import AsmError
    from runtime.asm_module import assemble_module
    from runtime.codeobj import read_code_object
    rng = random.Random(1515)
    counts = {"assembled": 0, "refused": 0}
    start, slowest = time.perf_counter(), 0.0
    for i in range(int(1500 * SCALE)):
        src = _random_source(rng)
        t = time.perf_counter()
        try:
            data = assemble_module(src)
        except AsmError as e:
            assert LOCATED.match(str(e)), f"input {i}: error without a location: {str(e)[:200]!r}\n{src}"
            assert max(map(len, str(e).split("\n"))) < 400, f"input {i}: an error line of {len(str(e))} chars"
            counts["refused"] += 1
        except Exception as e:          # noqa: BLE001 - the property under test
            pytest.fail(f"input {i}: raw {type(e).__name__}: {e}\n{src}")
        else:
            read_code_object(data)
            counts["assembled"] += 1
        slowest = max(slowest, time.perf_counter() - t)
    print(f"\nmodule assembler fuzz: {counts['assembled']} assembled, {counts['refused']} refused with a location "
          f"({time.perf_counter() - start:.1f} s, slowest input {slowest:.2f} s)")
    assert counts["assembled"] > 100 and counts["refused"] > 100
    assert slowest < 10


def test_fuzz_expressions():
    """Token soup for the expression evaluator: a value or an ExprError, never anything else."""
    from runtime.expr import ExprError, evaluate
    rng = random.Random(1515151)
    pieces = TOKENS + ["1", "2", "x", "max", "or", "alignto", "(", ")", ",", "+", "*", "<", "<=", "<>", "!=", "'a'",
                       "'\\n'", "0b1", "0x", "08", "\"q\"", "$y", "  "]
    counts = {"value": 0, "refused": 0}
    for i in range(int(20000 * SCALE)):
        operands, operators = ["1", "x", "0x10", "'a'", "017", "sym", "(2)", "max(1, x)", "-3", "~a"], \
            ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "!", "==", "<", ">=", "&&", "||"]
        words = [rng.choice(operands)]
        for _ in range(rng.randint(0, 6)):
            words += [rng.choice(operators), rng.choice(operands)]
        for _ in range(rng.choice([0, 0, 1, 2])):          # some damage
            at = rng.randrange(len(words) + 1)
            words[at:at + rng.randint(0, 1)] = [rng.choice(pieces)]
        text = " ".join(words)
        try:
            v = evaluate(text, {"x": 3, "a": -1, "sym": 8}.__getitem__)
            assert isinstance(v, int) and -(1 << 63) <= v < 1 << 63, (text, v)
            counts["value"] += 1
        except ExprError:
            counts["refused"] += 1
        except Exception as e:          # noqa: BLE001 - the property under test
            pytest.fail(f"{text!r}: raw {type(e).__name__}: {e}")
    print(f"\nexpression fuzz: {counts['value']} values, {counts['refused']} refused")
    assert counts["value"] > 1000


# ----------------------------------------------------------------------------- device API

# out[i] = x, the device-API tests' kernel
KERNEL = STORE.format(kernarg=12, scratch=0, flat=256, space="global")

VALUES = [0, 1, -1, 7, 32, 256, 1025, 2 ** 31, 2 ** 32, 2 ** 64, 10 ** 13, 1.7, -0.0, float("nan"), "256", "", None,
          True, b"abc", bytearray(3), [1, 2, 300], (1, 1), (1, 1, 1, 1), (0, 1, 1), (2, 2, 2), [32], {}, object(),
          np.float32(2), np.uint32(5), np.int64(-3), np.uint64(2 ** 63), np.array([1, 2], np.uint8),
          np.array([object()]), np.array(["ab"]), np.zeros(0, np.float32), np.zeros(40, np.float32), np.bool_(True)]


def test_fuzz_device_api():
    """Random calls on a device; after each failure the device still runs a correct launch."""
    from emu.machine import EmuError
    from runtime import CodeObjectError, Device, DeviceError
    from runtime.asm_module import assemble_module
    rng = random.Random(151515)
    code = assemble_module(KERNEL)
    dev, other = Device(memory_bytes=256 << 20), Device(memory_bytes=16 << 20)
    prg = dev.load(code)
    counts = {"ok": 0, "refused": 0}
    start = time.perf_counter()

    def pick():
        return rng.choice(VALUES)

    def buffers():
        return [dev.alloc(rng.choice([0, 4, 128, 4096])), other.alloc(64)]

    for i in range(int(1500 * SCALE)):
        kind = rng.choice(["alloc", "copyin", "copyout", "free", "launch", "launch", "launch", "load"])
        live = buffers()
        try:
            if kind == "alloc":
                dev.alloc(pick())
            elif kind == "copyin":
                rng.choice(live).copyin(pick())
            elif kind == "copyout":
                rng.choice(live).copyout(rng.choice([None, np.float32, np.uint8, "V3", "x", object, np.dtype("O")]))
            elif kind == "free":
                b = rng.choice(live)
                b.free()
                b.free() if rng.random() < 0.3 else None
            elif kind == "load":
                data = bytearray(code)
                for _ in range(rng.randint(0, 6)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                dev.load(rng.choice([bytes(data), bytes(data[:rng.randrange(len(data))]), pick()]))
            else:
                args = rng.choice([[live[0], np.uint32(3)], [pick(), pick()], [live[1], np.uint32(1)], pick(),
                                   [live[0]], [live[0], np.uint32(1), np.uint32(2)]])
                prg.launch(rng.choice(["k", "nope", pick()]), rng.choice([1, 2, pick()]), rng.choice([32, 64, pick()]),
                           args, **rng.choice([{}, {"budget": pick()}, {"seconds": pick()}]))
            counts["ok"] += 1
        except (DeviceError, CodeObjectError, EmuError) as e:
            assert str(e), f"call {i} ({kind}): an empty message"
            counts["refused"] += 1
        except Exception as e:          # noqa: BLE001 - the property under test
            pytest.fail(f"call {i} ({kind}): raw {type(e).__name__}: {e}")
        for b in live:
            if not b.freed:
                b.free()
        if i % 50 == 0:                 # nothing corrupted: a correct launch still gives the right answer
            out = dev.alloc(128)
            prg.launch("k", 1, 32, [out, np.uint32(i)])
            assert out.copyout(np.uint32).tolist() == [i] * 32
    print(f"\ndevice API fuzz: {counts['ok']} calls succeeded, {counts['refused']} refused with a DeviceError/"
          f"CodeObjectError ({time.perf_counter() - start:.1f} s)")
    assert counts["ok"] > 50 and counts["refused"] > 200


# ----------------------------------------------------------------------------- the command

def test_fuzz_cli(tmp_path, capsys):
    import wavesmith
    rng = random.Random(15151515)
    files = {"good.s": HEAD + ".text\nk:\n s_endpgm\n", "plain.s": "s_nop 0\ns_endpgm\n",
             "bad.s": HEAD + ".text\n .set x, 1/0\n", "garbage.bin": bytes(range(256)) * 4,
             "hex.txt": "0x00 0x00 0x80 0xbf", "empty.s": ""}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content.encode() if isinstance(content, str) else content)
    (tmp_path / "dir").mkdir()
    assert wavesmith.main(["asm", str(tmp_path / "good.s"), "-o", str(tmp_path / "good.hsaco")]) == 0
    good = (tmp_path / "good.hsaco").read_bytes()
    cut = bytearray(good)
    for _ in range(8):
        cut[rng.randrange(len(cut))] = rng.randrange(256)
    (tmp_path / "mutated.hsaco").write_bytes(bytes(cut))
    paths = [str(tmp_path / n) for n in list(files) + ["good.hsaco", "mutated.hsaco", "dir", "missing.s"]] \
        + ["/proc/self/mem", "-"]
    outputs = [str(tmp_path / "out.hsaco"), str(tmp_path / "out.bin"), str(tmp_path / "nowhere" / "x.hsaco"),
               str(tmp_path / "dir"), "/proc/x.hsaco"]
    counts = {0: 0, 1: 0, 2: 0}
    start = time.perf_counter()
    for i in range(int(150 * SCALE)):
        command = rng.choice(["asm", "asm", "disasm", "readobj", "demo", "emu", "frobnicate"])
        argv = [command]
        if command in ("asm", "disasm", "readobj"):
            argv.append(rng.choice(paths))
        extra = {"asm": ["--arch", "gfx1151", "--arch", "gfx9999", "--wave64", "--hex", "-o"],
                 "disasm": ["--arch", "gfx942", "--offsets", "--wave64"], "demo": ["--arch", "gfx942", "--arch"],
                 "emu": ["--bogus"], "readobj": ["--x"], "frobnicate": []}[command]
        for _ in range(rng.randint(0, 2)):
            opt = rng.choice(extra or [""])
            argv += [opt] + ([rng.choice(outputs)] if opt == "-o" else [])
        argv = [a for a in argv if a]
        if command == "demo" and "--arch" not in argv[1:-1]:
            argv = ["demo", "--arch", "gfx942"]           # the real demo takes seconds: only its refusal
        try:
            rc = wavesmith.main(argv)
        except SystemExit as e:                            # argparse's usage errors
            rc = e.code
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "Warning:" not in err and rc in (0, 1, 2), f"{argv}: rc {rc}\n{err[-2000:]}"
        if rc:
            assert err.strip(), f"{argv}: exit {rc} without a message"
        assert all(len(line) < 400 for line in err.split("\n")), f"{argv}: an error line is too long"
        counts[rc] += 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]
    print(f"\nCLI fuzz: {sum(counts.values())} invocations, exit 0/1/2: {counts[0]}/{counts[1]}/{counts[2]}, "
          f"no traceback ({time.perf_counter() - start:.1f} s)")
