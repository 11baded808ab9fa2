"""The ISA generated from a Markdown conversion (CDNA3, isa/gen/markdown.py), checked against
LLVM 22's gfx942 disassembly (../shared/conformance/llvm/gfx942.tsv.gz): operand codes and the
s_waitcnt layout read from the manual must say what LLVM prints for the same bits."""
from __future__ import annotations

import gzip
import math

import pytest

import isa
from isa import sources
from isa.gen import markdown

from .conftest import shared_path


def _rows(target: str, mnemonic: str | None = None, family: str | None = None):
    with gzip.open(shared_path("conformance", "llvm", f"{target}.tsv.gz"), "rt") as f:
        next(f)
        for line in f:
            fam, hexbytes, text, _ = line.rstrip("\n").split("\t")
            if text.split()[0] == mnemonic or fam == family:
                yield bytes.fromhex(hexbytes), text


def _meaning(codes, code: int, data: bytes):
    """What our operand table says code selects, as a value comparable with LLVM's text."""
    for lo, hi, kind, base, _ in codes:
        if lo <= code <= hi:
            if kind in ("sgpr", "ttmp", "vgpr"):
                return {"sgpr": "s", "ttmp": "ttmp", "vgpr": "v"}[kind] + str(base + code - lo)
            if kind == "int":
                return base + (code - lo) * (1 if base >= 0 else -1)
            if kind == "float":
                return base
            if kind == "literal":
                return int.from_bytes(data[4:8], "little")
            if kind == "special":
                return base.lower()
    return None


def _llvm_value(text: str):
    if text.startswith("0x"):
        return int(text, 16)
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text.removeprefix("src_")


# Codes the CDNA3 manual lists as reserved that LLVM's disassembler decodes for gfx942 anyway, with
# the names it uses for other GFX9/GFX10 targets: nothing says the hardware implements them, so the
# generated tables keep the manual's "reserved" and the difference is listed here.
LLVM_NAMES_RESERVED = {125: "null", 230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi",
                       239: "src_pops_exiting_wave_id", 254: "src_lds_direct"}


@pytest.mark.parametrize("fmt, field", [("SOP1", "SSRC0"), ("VOP1", "SRC0")])
def test_source_operand_codes_agree_with_llvm(fmt, field):
    """Every SOP1 / VOP1 row whose source is a single register or a constant: the code's
    meaning in the generated table is what LLVM prints for it."""
    spec = isa.load("gfx942")
    codes = spec.operands[fmt][field]
    checked, wrong = 0, []
    for data, text in _rows("gfx942", family=fmt):
        operands = text.split(" ", 1)[1].split(", ") if " " in text else []
        if len(operands) != 2 or "[" in operands[1] or " " in operands[1]:
            continue   # register ranges, modifiers: not a single operand code's meaning
        if text.startswith("v_accvgpr_mov_b32"):
            continue   # its SRC0 VGPR codes select AGPRs (a0..a255): the instruction's meaning, not the field's
        word = int.from_bytes(data[:4], "little")
        code = spec.formats[fmt].get(word, field)
        ours, llvm = _meaning(codes, code, data), _llvm_value(operands[1])
        if isinstance(llvm, float) and isinstance(ours, (int, float)):
            same = math.isclose(ours, llvm, rel_tol=1e-6)
        elif code == 255 and isinstance(ours, int) and isinstance(llvm, int):
            same = llvm in (ours, ours & 0xFFFF)   # a 16-bit operand prints the literal's low half
        else:   # 64-bit operands print a register pair's name without _lo (vcc, exec)
            same = ours == llvm or (isinstance(ours, str) and ours.endswith("_lo") and ours[:-3] == llvm)
        checked += 1
        if not same:
            wrong.append((code, ours, operands[1]))
    reserved_named = sorted({(c, llvm) for c, _, llvm in wrong if LLVM_NAMES_RESERVED.get(c) == llvm})
    wrong = [w for w in wrong if LLVM_NAMES_RESERVED.get(w[0]) != w[2]]
    print(f"\n{fmt}.{field}: {checked} rows agree with LLVM except codes the manual reserves "
          f"and LLVM names: {reserved_named}")
    assert checked > 500
    assert not wrong, wrong[:10]


def test_waitcnt_layout_agrees_with_llvm():
    """CDNA3 splits vmcnt: SIMM16[3:0] low bits, [15:14] high bits (LLVM prints vmcnt(0..63))."""
    fields = {name: (hi, lo) for name, hi, lo in isa.load("gfx942").tables["waitcnt"]}
    assert set(fields) == {"VM", "VM_HI", "EXP", "LGKM"}
    get = lambda imm, name: (imm >> fields[name][1]) & ((1 << (fields[name][0] - fields[name][1] + 1)) - 1)  # noqa: E731
    n = 0
    for data, text in _rows("gfx942", "s_waitcnt"):
        imm = int.from_bytes(data[:2], "little")
        # LLVM omits a counter that is at its maximum (no wait on it)
        counts = {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 15}
        counts.update(part.rstrip(")").split("(") for part in text.split()[1:])
        assert int(counts["vmcnt"]) == get(imm, "VM") | get(imm, "VM_HI") << 4, text
        assert int(counts["expcnt"]) == get(imm, "EXP"), text
        assert int(counts["lgkmcnt"]) == get(imm, "LGKM"), text
        n += 1
    assert n > 20


def test_crammed_operand_codes_are_paired_or_refused():
    text, pairs = markdown.split_operand_codes(
        "0 - 101 102 124 125 126", "Source 0. First operand. SGPR0 to SGPR101: Scalar registers. "
        "FLAT_SCRATCH_LO. M0. Memory register 0. Reserved EXEC_LO: exec[31:0].", "SSRC0")
    assert text == "Source 0. First operand."
    assert pairs == [("0-101", "SGPR0 to SGPR101: Scalar registers."), ("102", "FLAT_SCRATCH_LO."),
                     ("124", "M0. Memory register 0."), ("125", "Reserved"), ("126", "EXEC_LO: exec[31:0].")]
    with pytest.raises(markdown.MarkdownReadError, match="SSRC0: 3 operand codes but 2 entries"):
        markdown.split_operand_codes("0 1 2", "Source. VCCZ. SCC.", "SSRC0")


def test_gen_check_skips_an_absent_markdown_manual(tmp_path, monkeypatch, capsys):
    import isa.gen as gen
    monkeypatch.setattr(gen, "GENERATED_ARCHS", ("cdna3",))
    monkeypatch.setattr(sources, "text_search_dirs", lambda text_dir=None: [tmp_path])
    assert gen.main(["--check", "--quiet"]) == 0
    assert "cdna3: skipped" in capsys.readouterr().out
    # asked for by name, the missing manual is an error naming where it was looked for
    assert gen.main(["--check", "--quiet", "--arch", "cdna3"]) == 2
    assert "cdna3_isa.md (cdna3) not found; looked in" in capsys.readouterr().err


def test_markdown_sha_mismatch_is_refused(tmp_path):
    (tmp_path / "cdna3_isa.md").write_text("# not the manual\n")
    with pytest.raises(sources.SpecSourceError, match="sha256 mismatch for cdna3"):
        sources.locate("cdna3", tmp_path)


_BYTES = {"f64": 8, "f32": 4, "xf32": 4, "i32": 4, "f16": 2, "bf16": 2, "i8": 1,
          "bf8_bf8": 1, "bf8_fp8": 1, "fp8_bf8": 1, "fp8_fp8": 1}


def _registers(operand: str) -> int | None:
    """How many registers an operand names: v[4:7] -> 4, a3 -> 1; None for a constant."""
    if "[" in operand:
        lo, hi = operand[operand.index("[") + 1:-1].split(":")
        return int(hi) - int(lo) + 1
    return 1 if operand[:1] in "va" and operand[1:].isdigit() else None


def test_mfma_shapes_give_llvms_register_counts():
    """tables['mfma'] (M, N, K, blocks from the names by the manual's naming rule, passes from the
    notes) must give, for every MFMA row LLVM decoded, the register counts LLVM prints: D and C
    hold M*N*blocks results over 64 lanes, A M*K*blocks inputs (half for the 2:4-sparse SMFMAC),
    B N*K*blocks."""
    spec = isa.load("gfx942")
    shapes = {row[0]: row[1:] for row in spec.tables["mfma"]}
    assert len(shapes) >= 40 and all(name in {d.name for d in spec.instructions} for name in shapes)
    seen, n = set(), 0
    for data, text in _rows("gfx942", family="MFMA"):
        name = isa.llvm_base_mnemonic(text.split()[0]).upper()
        m, nn, k, blocks, sparse, out_type, in_type, _ = shapes[name]
        ops = text.split(" ", 1)[1].split(", ", 3)
        ops[3] = ops[3].split()[0]      # modifiers follow the fourth operand (cbsz:, abid:, blgp:, neg:)
        regs = [_registers(o.lstrip("-")) for o in ops[:4]]
        per_lane = lambda elements, size: elements * size // 4 // 64   # noqa: E731
        want = [per_lane(m * nn * blocks, _BYTES[out_type]),
                per_lane(m * k * blocks, _BYTES[in_type]) // (2 if sparse else 1),
                per_lane(nn * k * blocks, _BYTES[in_type]),
                1 if sparse else per_lane(m * nn * blocks, _BYTES[out_type])]
        got = [r if r is not None else w for r, w in zip(regs, want)]   # an inline-constant C
        assert got == want, f"{text}: {got} registers, the shape {m}x{nn}x{k} x{blocks} gives {want}"
        seen.add(name)
        n += 1
    print(f"\n{n} MFMA rows, {len(seen)} of {len(shapes)} matrix instructions, register counts agree")
    assert n > 1000 and len(seen) >= 40


# Where LLVM's hwreg names for gfx942 are not the manual's: a prefix, and SH_MEM_BASES, which
# LLVM names at id 15 where the CDNA3 table reads "8 - 15 reserved".
LLVM_HWREG_ONLY = {15: "SH_MEM_BASES"}


def test_hwreg_ids_agree_with_llvm():
    """s_getreg/s_setreg rows LLVM prints with a register name: the id in SIMM16[5:0] is the one
    the manual's hardware-register table gives that name (LLVM adds HW_REG_, and SQ_ for the
    performance-snapshot registers)."""
    names = {code: name for code, name, _ in isa.load("gfx942").tables["hwreg"]}
    n = 0
    for fmt in ("SOPK",):
        for data, text in _rows("gfx942", family=fmt):
            if "hwreg(HW_REG_" not in text:
                continue
            reg_id = int.from_bytes(data[:2], "little") & 0x3F
            llvm = text.split("hwreg(HW_REG_")[1].split(",")[0].split(")")[0]
            ours = LLVM_HWREG_ONLY.get(reg_id) or names.get(reg_id, "")
            assert llvm in (ours, "SQ_" + ours), f"{text}: id {reg_id} is {ours!r} in the manual's table"
            n += 1
    print(f"\n{n} named hwreg operands agree with the manual's register ids")
    assert n > 30


# LLVM's DPP control spellings and the manual's DPP_CTRL names (the test's own table)
_LLVM_DPP = {"quad_perm": "DPP_QUAD_PERM", "row_shl": "DPP_ROW_SL", "row_shr": "DPP_ROW_SR",
             "row_ror": "DPP_ROW_RR", "wave_shl": "DPP_WF_SL1", "wave_rol": "DPP_WF_RL1",
             "wave_shr": "DPP_WF_SR1", "wave_ror": "DPP_WF_RR1", "row_mirror": "DPP_ROW_MIRROR",
             "row_half_mirror": "DPP_ROW_HALF_MIRROR", "row_bcast:15": "DPP_ROW_BCAST15",
             "row_bcast:31": "DPP_ROW_BCAST31", "row_newbcast": "DPP_ROW", "row_share": "DPP_ROW_SHARE",
             "row_xmask": "DPP_ROW_XMASK"}


@pytest.mark.parametrize("target,family", [("gfx942", "DPP"), ("gfx1201", "DPP16")])
def test_dpp_ctrl_agrees_with_llvm(target, family):
    """Every DPP row: the DPP_CTRL code in the second dword lies in the range of the manual's
    row LLVM's control spelling corresponds to, at the offset LLVM prints (row_shl:5 = 0x105).
    (RDNA4's Markdown table has its first row in the header and three rows in one.)"""
    ranges = {name: (lo, hi) for name, lo, hi, _ in isa.load(target).tables["dpp_ctrl"]}
    n = 0
    for data, text in _rows(target, family=family):
        ctrl = (int.from_bytes(data[4:8], "little") >> 8) & 0x1FF
        spelled = next(w for w in text.split() if w.split(":")[0] in _LLVM_DPP or w in _LLVM_DPP)
        key = spelled if spelled in _LLVM_DPP else spelled.split(":")[0]
        lo, hi = ranges[_LLVM_DPP[key]]
        assert lo <= ctrl <= hi, f"{text}: DPP_CTRL {ctrl:#x} outside {_LLVM_DPP[key]} {lo:#x}-{hi:#x}"
        if key in ("row_shl", "row_shr", "row_ror", "row_newbcast", "row_share", "row_xmask"):
            assert ctrl - (lo & ~0xF) == int(spelled.split(":")[1]), text
        n += 1
    print(f"\n{n} DPP rows: DPP_CTRL agrees with the manual's enumeration")
    assert n > 1000


def test_rdna4_hardware_register_ids_are_what_llvm_encodes():
    """The RDNA4 manual's hwreg table ('Index | Writable? | Register', section 3.4) against
    LLVM 22's assembler: each register's id is what s_getreg_b32 encodes for its name (LLVM
    prefixes the wave-state ones with WAVE_); the printer's gfx12 names encode to their ids too."""
    from dsl import syntax
    from tests.llvm_tools import mc_encodings
    table = isa.load("gfx1201").tables["hwreg"]
    assert len(table) >= 17
    lines = [f"s_getreg_b32 s0, hwreg(HW_REG_{prefix}{name})" for _, name, _ in table for prefix in ("", "WAVE_")]
    got = mc_encodings(lines, "gfx1201")
    unnamed = {"IB_STS2"}   # id 28: LLVM 22 has no name for it (prints hwreg(28, ...))
    for i, (rid, name, _) in enumerate(table):
        ids = {b[0] & 0x3f for b in got[2 * i:2 * i + 2] if b is not None}
        assert ids == (set() if name in unnamed else {rid}), (name, rid, ids)
    names = syntax.hwreg_names("rdna4")
    got = mc_encodings([f"s_getreg_b32 s0, hwreg({n})" for n in names.values()], "gfx1201")
    assert [b[0] & 0x3f if b else None for b in got] == list(names)
