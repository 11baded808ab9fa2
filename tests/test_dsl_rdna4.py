"""The DSL for RDNA4 (gfx1201): dsl.rdna4 writes LLVM 22's bytes for the corpus rows LLVM
re-encodes, and an allocated kernel's text assembles with llvm-mc-22 to the DSL's bytes; the
allocator reads RDNA4's split wait counters (s_wait_loadcnt, s_wait_dscnt, s_wait_kmcnt) when it
decides where a load's result registers may be reused."""
from __future__ import annotations

import collections

import pytest

import dsl.rdna4 as r4
import dsl
from dsl import assemble
from dsl.asm import Instr, parse
from dsl.operands import OperandError
from .llvm_tools import run, tool
from .test_dsl_llvm_corpus import corpus

NS = vars(r4)


def _dsl_call(st: Instr):
    """The DSL call for a parsed line: its function with the parser's operand values and modifiers
    (a VOPD pair through vopd())."""
    if st.dual is not None:
        x = NS[st.mnemonic](*st.operands, **st.modifiers)
        y = NS[st.dual.mnemonic](*st.dual.operands, **st.dual.modifiers)
        return NS["vopd"](x, y)
    return NS[st.mnemonic](*st.operands, **st.modifiers)


def test_gfx1201_dsl_bytes_match_llvm_corpus():
    """Every row of LLVM 22's gfx1201 corpus LLVM re-encodes, parsed and passed to the DSL
    function of its mnemonic: the bytes against LLVM's, per family; the DSL and dsl.assemble differ
    only where no DSL function exists (v_illegal, which the manual does not list)."""
    ok, total, only_asm = collections.Counter(), collections.Counter(), []
    bad = collections.defaultdict(list)
    for fam, _hx, text, reenc in corpus("gfx1201"):
        if reenc == "-":
            continue
        total[fam] += 1
        try:
            st = next(x for x in parse(text) if isinstance(x, Instr))
            out = _dsl_call(st).data.hex()
        except (OperandError, KeyError) as e:
            out = f"{type(e).__name__}: {e}"
        if out == reenc:
            ok[fam] += 1
            continue
        bad[fam].append(f"{text!r}: want {reenc} got {out}")
        try:
            if assemble(text, "gfx1201").hex() == reenc:
                only_asm.append(text)
        except ValueError:
            pass
    n_ok, n = sum(ok.values()), sum(total.values())
    print(f"\nDSL gfx1201: {n_ok}/{n} = {100 * n_ok / n:.3f}% of the rows LLVM re-encodes give LLVM's bytes")
    for f in sorted(total):
        print(f"  {f:14s} {ok[f]:5d}/{total[f]:5d}")
    for f, rows in sorted(bad.items()):
        for row in rows[:2]:
            print(f"  mismatch {f}: {row}")
    assert n > 40000 and n_ok / n >= 0.999
    assert all(t.startswith("v_illegal") for t in only_asm), only_asm[:5]


def _kernel(wait):
    """x is loaded and never read, z is loaded after it; after `wait`, y is written. If the wait
    guarantees x has arrived, y may take x's register."""
    v, s = r4.v, r4.s
    k = r4.Kernel("gfx1201")
    x, z, y = k.vreg(name="x"), k.vreg(name="z"), k.vreg(name="y")
    k += r4.s_load_b64(s[2:3], s[0:1], 0)
    k += r4.s_wait_kmcnt(0)
    k += r4.global_load_b32(x, v[0], s[2:3])
    k += r4.global_load_b32(z, v[0], s[2:3], offset=4)
    k += wait
    k += r4.v_mov_b32(y, 2.0)
    k += r4.s_wait_loadcnt(0)
    k += r4.v_add_f32(y, y, z)
    k += r4.global_store_b32(v[0], y, s[2:3], th="TH_STORE_NT")
    k += r4.s_endpgm()
    return k


@pytest.mark.parametrize("wait, released", [(r4.s_wait_loadcnt(1), True), (r4.s_wait_loadcnt_dscnt(0x100), True),
                                            (r4.s_wait_loadcnt(2), False), (r4.s_wait_dscnt(0), False),
                                            (r4.s_wait_kmcnt(0), False)])
def test_split_wait_counters_release_loads(wait, released):
    """RDNA4 ISA (its counter table): LOADcnt counts vector memory loads and decrements in issue
    order, so s_wait_loadcnt 1 with one load issued after x guarantees x (and so does
    s_wait_loadcnt_dscnt with LOADcnt in SIMM16[13:8] = 1); a wait for 2, or on DScnt or KMcnt,
    does not."""
    lines = str(_kernel(wait).physical()).splitlines()
    x_reg = lines[2].split()[1].rstrip(",")
    y_reg = lines[5].split()[1].rstrip(",")
    assert (x_reg == y_reg) == released, "\n".join(lines)


def _llvm_mc_text(text, tmp_path):
    """The .text bytes llvm-mc-22 assembles `text` to for gfx1201."""
    src = tmp_path / "k.s"
    src.write_text(text + "\n")
    run(tool("llvm-mc"), "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1201", "-filetype=obj", "-o", str(tmp_path / "k.o"),
        str(src))
    run(tool("llvm-objcopy"), "-O", "binary", "--only-section=.text", str(tmp_path / "k.o"), str(tmp_path / "k.bin"))
    return (tmp_path / "k.bin").read_bytes()


def test_allocated_rdna4_kernel_assembles_like_llvm_mc(tmp_path):
    k = _kernel(r4.s_wait_loadcnt(1))
    text = str(k.physical())
    assert k.assemble() == _llvm_mc_text(text, tmp_path)


def _sum_of_squares(max_vgprs=None):
    """out[i] = sum of x[j][i]^2 over four loads, with `max_vgprs` forcing a spill to scratch."""
    v, s = r4.v, r4.s
    k = r4.Kernel("gfx1201", name="squares", max_vgprs=max_vgprs)
    pin = k.sreg(2, name="pin")
    k += r4.s_load_b64(pin, s[0:1], 0)
    k += r4.s_wait_kmcnt(0)
    off = k.vreg(name="off")
    k += r4.v_lshlrev_b32(off, 2, v[0])
    xs = [k.vreg(name=f"x{i}") for i in range(4)]
    for i, x in enumerate(xs):
        k += r4.global_load_b32(x, off, pin, offset=256 * i)
    k += r4.s_wait_loadcnt(0)
    acc = k.vreg(name="acc")
    k += r4.v_mov_b32(acc, 0)
    for x in xs:
        k += r4.v_fmac_f32(acc, x, x)
    k += r4.global_store_b32(off, acc, pin, offset=1024)
    k += r4.s_endpgm()
    return k


def test_rdna4_spill_to_scratch_assembles_like_llvm_mc_and_runs(tmp_path):
    """With 5 VGPRs allowed a value goes to scratch, reloaded behind s_wait_loadcnt 0 (RDNA4's
    counter for scratch loads); the text assembles with llvm-mc-22 to the DSL's bytes, and on the
    gfx1201 emulator the kernel gives numpy's sums."""
    import numpy as np
    k = _sum_of_squares(5)
    text = str(k.physical())
    assert k.vgprs <= 5 and k.scratch_bytes == 4 and "scratch_load_b32" in text and "s_wait_loadcnt 0x0" in text
    assert k.assemble() == _llvm_mc_text(text, tmp_path)
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel
    dev = Device("emu", arch="gfx1201")
    x = np.random.default_rng(4).uniform(-2, 2, 256 + 64).astype(np.float32)
    buf = dev.alloc(x.nbytes, "buf").copyin(x)
    hsaco = from_dsl_kernel(k, "squares", [KernelArg(0, 8, "global_buffer", "buf", "global")],
                            user_sgpr_kernarg_segment_ptr=1)
    dev.load(hsaco).launch("squares", grid=(1, 1, 1), block=(64, 1, 1), args=[buf])
    want = np.zeros(64, np.float32)
    for j in range(4):
        want = (x[64 * j:64 * j + 64].astype(np.float64) ** 2 + want).astype(np.float32)
    np.testing.assert_allclose(buf.copyout(np.float32)[256:320], want, rtol=1e-6)


_DOT4_FP8 = ("v_dot4_f32_fp8_bf8", "v_dot4_f32_bf8_fp8", "v_dot4_f32_fp8_fp8", "v_dot4_f32_bf8_bf8")


def test_dot4_f32_fp8_negates_src2_only_as_llvm():
    """RDNA4 ISA p. 90 (DOT4_F32_{FP8,BF8}_{FP8,BF8}): "OPSEL must be zero, and OPSEL_HI must be 7.
    Only SRC2 can apply NEG/NEG_HI". llvm-mc-22 takes neg_lo/neg_hi on src2 alone and no op_sel /
    op_sel_hi; ours must take and refuse the same lines, with LLVM's bytes, and name the list."""
    from .llvm_tools import mc_encodings
    lines = [f"{mn} v0, v1, v2, v3 {mod}" for mn in _DOT4_FP8 for mod in (
        "", "neg_lo:[0,0,1]", "neg_hi:[0,0,1]", "neg_lo:[0,0,1] neg_hi:[0,0,1]", "neg_lo:[0,0,0]",
        "neg_lo:[1,0,0]", "neg_lo:[0,1,0]", "neg_hi:[1,0,0]", "neg_hi:[0,1,1]", "op_sel_hi:[1,1,1]",
        "op_sel_hi:[0,1,1]", "op_sel:[1,0,0]")]
    want = mc_encodings(lines, "gfx1201")
    assert sum(w is not None for w in want) == 5 * len(_DOT4_FP8)      # the oracle is not all-refusing
    for line, w in zip(lines, want):
        if w is not None:
            assert assemble(line, "gfx1201") == w, line
            continue
        with pytest.raises(dsl.AsmError) as e:
            assemble(line, "gfx1201")
        key = line.split()[-1].split(":")[0]
        assert f"{key}:" in str(e.value), (line, str(e.value))
        if key.startswith("neg"):
            assert "only src2 may" in str(e.value), str(e.value)


def test_dot4_f32_fp8_neg_bits_decode_where_llvm_decodes_them():
    """The same rule read back: bytes with NEG / NEG_HI bits on src0 or src1 are no instruction to
    llvm-mc-22 --disassemble ("invalid instruction encoding") nor to ours (DecodeError: no text
    says them); src2's decode to LLVM's text."""
    import subprocess
    from dsl.decode import DecodeError
    from dsl.disasm import decode_instr
    from dsl.instr_text import instr_text
    import isa
    base = bytes.fromhex("004024cc01050e1c")        # llvm-mc-22: v_dot4_f32_fp8_bf8 v0, v1, v2, v3
    for neg in range(8):
        for neg_hi in range(8):
            data = (int.from_bytes(base[:4], "little") | neg_hi << 8).to_bytes(4, "little") + \
                (int.from_bytes(base[4:], "little") | neg << 29).to_bytes(4, "little")
            done = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", "-mcpu=gfx1201", "--disassemble"],
                                  input=" ".join(f"0x{b:02x}" for b in data), capture_output=True, text=True)
            llvm_ok = "invalid instruction encoding" not in done.stderr
            assert llvm_ok == (neg & 3 == 0 and neg_hi & 3 == 0), (neg, neg_hi, done.stderr)
            if llvm_ok:
                x, _ = decode_instr(data, "gfx1201")
                text = [ln.strip() for ln in done.stdout.splitlines() if ln.strip() and not ln.strip().startswith(".")]
                assert [instr_text(x, isa.load("gfx1201"))] == text, (neg, neg_hi)
            else:
                with pytest.raises(DecodeError, match="only src2 may"):
                    decode_instr(data, "gfx1201")
