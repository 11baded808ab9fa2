"""The 16-bit immediates of SOPP and SOPK instructions against llvm-mc-22 (gfx1100, gfx1201,
gfx942, gfx950): the companion of test_dsl_constant_sweep.py, which sweeps ALU operands.

For each SOPP/SOPK mnemonic of LLVM 22's corpus, its immediate (a branch offset, s_nop's count,
s_movk's constant, s_cmpk_*'s operand, a hwreg(...) or sendmsg(...) written as a number, ...)
is replaced by each of EDGES, and the symbolic forms are swept too: hwreg(id, offset, size) at
and beyond each field's range, sendmsg(message, operation, stream) likewise, s_waitcnt's counts
(vmcnt(64), lgkmcnt(16), *_sat), s_delay_alu's and s_waitcnt_depctr's fields, s_version's names.
One llvm-mc run per target assembles every line; each line must be accepted with the same bytes
or refused by both, and where both accept, our disassembler's text of the bytes must be LLVM's
disassembler's. Where both refuse, our error must name line:column (inside the operands), the
instruction and say what is wrong. Differences are listed in KNOWN with their reasons (counted
and printed; an entry no line needs fails the test, so the list stays true)."""
from __future__ import annotations

import gzip
import re
from collections import Counter

import pytest

import dsl

from .conftest import shared_path
from .llvm_tools import mc_disassembly, mc_encodings, mc_errors

ARCHS = ["gfx1100", "gfx1201", "gfx942", "gfx950"]
EDGES = ["0", "1", "0x7fff", "0x8000", "0xffff", "0x10000", "-1", "-32768", "-32769", "32767", "32768",
         "65535", "65536", "-0x8000", "-0x8001", "0x1ffff"]


def _immediate_rows(arch: str) -> dict[str, str]:
    """mnemonic -> its first SOPP/SOPK row in LLVM 22's corpus."""
    rows: dict[str, str] = {}
    with gzip.open(shared_path("conformance", "llvm", f"{arch}.tsv.gz"), "rt") as f:
        next(f)
        for line in f:
            family, _, text, _ = line.rstrip("\n").split("\t")
            if family in ("SOPP", "SOPK"):
                rows.setdefault(text.split(" ")[0], text)
    return rows


def numeric_lines(arch: str) -> list[str]:
    """Each corpus row with its immediate (s_setreg*'s first operand, else the last; the whole
    operand text of SOPP) replaced by each edge value; operand-less SOPP get 0 and 1."""
    lines = []
    for mn, text in _immediate_rows(arch).items():
        ops = [o.strip() for o in text[len(mn):].split(",")] if text[len(mn):].strip() else []
        if not ops:
            lines += [f"{mn} 0", f"{mn} 1"]
            continue
        at = 0 if mn.startswith("s_setreg") else len(ops) - 1
        for v in EDGES:
            lines.append(f"{mn} " + ", ".join(ops[:at] + [v] + ops[at + 1:]))
    return lines


HWREGS = ["hwreg(HW_REG_MODE)", "hwreg(HW_REG_MODE, 0, 32)", "hwreg(HW_REG_MODE, 31, 1)", "hwreg(HW_REG_MODE, 32, 1)",
          "hwreg(HW_REG_MODE, 0, 33)", "hwreg(HW_REG_MODE, 0, 0)", "hwreg(HW_REG_MODE, 31, 2)",
          "hwreg(HW_REG_MODE, -1, 1)", "hwreg(1)", "hwreg(63)", "hwreg(64)", "hwreg(-1)", "hwreg(HW_REG_BOGUS)",
          "hwreg(0x3f, 0x1f, 0x20)", "hwreg(HW_REG_MODE, 0)", "hwreg(1, 2, 3, 4)", "hwreg(2, 4, 8)",
          "hwreg(HW_REG_STATUS, 1, 1)", "hwreg()", "hwreg(HW_REG_MODE, 1 + 2, 4)", "hwreg(HW_REG_HW_ID)",
          "hwreg(HW_REG_HW_ID1)", "hwreg(HW_REG_WAVE_MODE)", "hwreg(HW_REG_IB_STS)", "hwreg(HW_REG_SH_MEM_BASES)",
          "hwreg(HW_REG_TRAPSTS)", "hwreg(HW_REG_GPR_ALLOC)", "hwreg(HW_REG_LDS_ALLOC)", "hwreg(HW_REG_SHADER_CYCLES)"]
MESSAGES = ["sendmsg(MSG_INTERRUPT)", "sendmsg(1)", "sendmsg(15)", "sendmsg(255)", "sendmsg(256)", "sendmsg(-1)",
            "sendmsg(MSG_GS, GS_OP_EMIT)", "sendmsg(MSG_GS, GS_OP_EMIT, 0)", "sendmsg(MSG_GS, GS_OP_EMIT, 3)",
            "sendmsg(MSG_GS, GS_OP_EMIT, 4)", "sendmsg(MSG_GS_DONE, GS_OP_NOP)", "sendmsg(MSG_GS, GS_OP_NOP)",
            "sendmsg(MSG_SYSMSG, SYSMSG_OP_ECC_ERR_INTERRUPT)", "sendmsg(MSG_SYSMSG, 5)", "sendmsg(MSG_SYSMSG)",
            "sendmsg(2, 2, 1)", "sendmsg(2, 3, 3)", "sendmsg(2, 8, 0)", "sendmsg(2, 0, 4)", "sendmsg(1, 1)",
            "sendmsg(MSG_INTERRUPT, 0)", "sendmsg(MSG_DEALLOC_VGPRS)", "sendmsg(MSG_HS_TESSFACTOR)",
            "sendmsg(MSG_GS_ALLOC_REQ)", "sendmsg(MSG_BOGUS)", "sendmsg(MSG_SAVEWAVE)", "sendmsg(MSG_STALL_WAVE_GEN)",
            "sendmsg(MSG_HALT_WAVES)", "sendmsg(MSG_GET_DOORBELL)", "sendmsg(MSG_RTN_GET_DOORBELL)", "sendmsg()",
            "sendmsg(3, 0)", "sendmsg(3, 1)", "sendmsg(2, 0, 0)", "sendmsg(MSG_SYSMSG, 3)", "sendmsg(MSG_GS, 2, 3)",
            "sendmsg(MSG_GS_DONE, 0, 1)", "sendmsg(MSG_SYSMSG, 1, 0)", "sendmsg(MSG_GS, GS_OP_CUT, 0)"]
WAITCNTS = ["vmcnt(0)", "vmcnt(15)", "vmcnt(16)", "vmcnt(63)", "vmcnt(64)", "vmcnt(-1)", "expcnt(7)", "expcnt(8)",
            "lgkmcnt(15)", "lgkmcnt(16)", "lgkmcnt(63)", "lgkmcnt(64)", "vmcnt(1) & expcnt(2)", "vmcnt(1), lgkmcnt(2)",
            "vmcnt(1) expcnt(2) lgkmcnt(3)", "vmcnt_sat(100)", "lgkmcnt_sat(1000)", "expcnt_sat(9)", "vmcnt_sat(2)",
            "vmcnt(0) vmcnt(1)", "vscnt(1)", "0", "0xffff", "vmcnt(1 + 1)", "vmcnt()", "bogus(1)"]
DELAYS = ["instid0(VALU_DEP_1)", "instid0(VALU_DEP_4)", "instid0(VALU_DEP_5)", "instid0(TRANS32_DEP_3)",
          "instid0(TRANS32_DEP_4)", "instid0(SALU_CYCLE_3)", "instid0(SALU_CYCLE_4)", "instid0(NO_DEP)",
          "instskip(SAME)", "instskip(SKIP_4)", "instskip(SKIP_5)", "instid1(VALU_DEP_2)",
          "instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_2)", "instid0(VALU_DEP_1) instskip(NEXT)",
          "instid0(VALU_DEP_1) | instid0(VALU_DEP_2)", "instid0(1)", "instid0(FOO)", "foo(VALU_DEP_1)", "instid0()",
          "0", "0x7ff"]
DEPCTRS = ["depctr_va_vdst(0)", "depctr_va_vdst(15)", "depctr_va_vdst(16)", "depctr_sa_sdst(1)", "depctr_sa_sdst(2)",
           "depctr_vm_vsrc(7)", "depctr_vm_vsrc(8)", "depctr_hold_cnt(0)", "depctr_hold_cnt(2)", "depctr_va_sdst(6)",
           "depctr_va_sdst(8)", "depctr_va_ssrc(0)", "depctr_va_ssrc(2)", "depctr_va_vcc(0)", "depctr_va_vcc(2)",
           "depctr_bogus(0)", "depctr_va_vdst(1) depctr_va_vdst(2)", "depctr_va_vdst(1) & depctr_vm_vsrc(2)",
           "depctr_va_vdst(1), depctr_vm_vsrc(2)", "depctr_va_vdst(-1)", "0xffff", "0"]


def symbolic_lines(arch: str) -> list[str]:
    gfx9 = arch.startswith("gfx9")
    out = [line for h in HWREGS for line in (f"s_getreg_b32 s0, {h}", f"s_setreg_b32 {h}, s1",
                                             f"s_setreg_imm32_b32 {h}, 0x1234")]
    out += [f"{mn} {m}" for m in MESSAGES for mn in ("s_sendmsg", "s_sendmsghalt")]
    out += [f"s_waitcnt {w}" for w in WAITCNTS]
    if gfx9:
        out += [f"s_set_gpr_idx_mode {g}" for g in ("gpr_idx(SRC0)", "gpr_idx()", "gpr_idx(SRC0,SRC1,SRC2,DST)",
                                                    "gpr_idx(SRC0,SRC0)", "gpr_idx(FOO)", "15", "16", "-1")]
        return out
    out += [f"s_sendmsg_rtn_b32 s0, {m}" for m in ("sendmsg(MSG_RTN_GET_DOORBELL)", "sendmsg(MSG_RTN_GET_REALTIME)",
                                                   "sendmsg(MSG_INTERRUPT)", "sendmsg(128)", "sendmsg(256)")]
    out += [f"s_delay_alu {a}" for a in DELAYS]
    depctr = "s_wait_alu" if arch.startswith("gfx12") else "s_waitcnt_depctr"
    out += [f"{depctr} {c}" for c in DEPCTRS]
    out += [f"s_version {v}" for v in ("UC_VERSION_GFX11", "UC_VERSION_GFX12", "UC_VERSION_W64_BIT",
                                       "UC_VERSION_GFX10|UC_VERSION_W32_BIT", "UC_VERSION_BOGUS")]
    return out


def _ours(line: str, arch: str) -> tuple[bytes | None, str]:
    try:
        return dsl.assemble(line, arch), ""
    except dsl.AsmError as e:
        return None, str(e).splitlines()[0]


def _beyond_16_bits(line: str) -> bool:
    m = re.search(r"(-?(?:0x[0-9a-f]+|\d+))$", line)
    return m is not None and not -0x8000 <= int(m.group(1), 0) <= 0xffff


def _no_range_check_sopp(line: str, arch: str) -> bool:
    """SOPP instructions whose immediate LLVM reads as any integer and truncates to 16 bits."""
    return line.split(" ")[0] in ("s_nop", "s_sethalt", "s_setkill", "s_setprio", "s_sleep", "s_trap",
                                  "s_incperflevel", "s_decperflevel", "s_denorm_mode", "s_barrier_wait",
                                  "s_delay_alu", "s_waitcnt")


# (arch prefix, test(line, llvm bytes, llvm text, ours, our text or error), reason)
KNOWN = [
    ("gfx", lambda line, arch, w, wt, g, gt: w is not None and g is None and _beyond_16_bits(line)
     and _no_range_check_sopp(line, arch),
     "LLVM 22 takes any integer as these SOPP immediates (s_nop, s_sleep, s_trap, s_setprio, s_waitcnt, ...) "
     "and keeps its low 16 bits (0x10000 is 0, -32769 is 0x7fff): the value is lost; we refuse "
     "what does not fit 16 bits (-32768..65535)"),
    ("gfx1", lambda line, arch, w, wt, g, gt: line.startswith("s_delay_alu") and w == g and
     "invalid" in wt or wt == "s_delay_alu 0" and gt != wt,
     "s_delay_alu with field values the manual does not define: LLVM 22 prints /* invalid instid value */ "
     "(text that does not assemble) or, for bits above the fields, drops them (0x8000 prints as 0); we print "
     "the number"),
    ("gfx1", lambda line, arch, w, wt, g, gt: line.startswith("s_delay_alu") and w is not None and g is None
     and "given twice" in gt,
     "a field given twice in s_delay_alu: LLVM 22 ORs the values (instid0(VALU_DEP_1) | instid0(VALU_DEP_2) is "
     "VALU_DEP_3, another dependency than either); we refuse the repetition"),
    ("gfx", lambda line, arch, w, wt, g, gt: "1 + " in line and w is not None and g is None,
     "an expression inside hwreg(...)/vmcnt(...): LLVM evaluates it; our parser takes a number or a name there"),
    ("gfx1", lambda line, arch, w, wt, g, gt: "MSG_SYSMSG" in line and w is not None and g is None,
     "gfx9's MSG_SYSMSG: LLVM 22 takes the name on RDNA and encodes message 15 with the operation in bits "
     "6:4 (printed back as sendmsg(31, 0, 0): RDNA has no such message); we refuse a name the target lacks"),
]


@pytest.mark.parametrize("arch", ARCHS)
def test_simm16_immediates_match_llvm(arch):
    lines = numeric_lines(arch) + symbolic_lines(arch)
    assert len(lines) > 600
    want = mc_encodings(lines, arch)
    errors = mc_errors(lines, arch)
    accepted = sorted({w for w in want if w is not None})
    llvm_text = dict(zip(accepted, mc_disassembly(accepted, arch)))
    known, bad, agree = Counter(), [], 0
    known_here = [(test, why) for prefix, test, why in KNOWN if arch.startswith(prefix)]
    for i, (line, w) in enumerate(zip(lines, want)):
        g, err = _ours(line, arch)
        wt = llvm_text[w] if w is not None else errors[i][1]
        gt = dsl.disassemble(g, arch) if g is not None else err
        if w == g and (w is None or wt == gt):
            agree += 1
            if w is None:       # both refuse: ours names line:column in the operands and the instruction
                m = re.match(r"1:(\d+): (.*)", err)
                mn = line.split(" ")[0]
                if not (m and int(m.group(1)) > len(mn) and mn in m.group(2)):
                    bad.append(f"{line}: our error does not name the operand's column and {mn}: {err}")
            continue
        why = next((why for test, why in known_here if test(line, arch, w, wt, g, gt)), None)
        if why:
            known[why[:60]] += 1
        else:
            bad.append(f"{line}: llvm {w.hex() if w else 'refused'} {wt!r}, ours {g.hex() if g else ''} {gt!r}")
    print(f"\n{arch}: {agree}/{len(lines)} SOPP/SOPK immediate lines agree with llvm-mc-22 "
          f"({sum(w is None for w in want)} refused by LLVM); known differences: {dict(known)}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])
    unused = {why[:60] for _, why in known_here} - set(known)
    assert not unused, f"KNOWN entries no line needs: {unused}"
