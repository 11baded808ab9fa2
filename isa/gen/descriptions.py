"""Facts the manuals state in words rather than in pseudocode: an instruction's description, the
export TARGET field's list of destinations, the SADDR codes that disable an SGPR address, the
source codes the operand tables call memory apertures and who may write each hardware register. Read once by the generator (isa/gen/facts.py,
build.py) and committed; the assembler, disassembler and emulator read the answers (isa.facts,
tables["export_targets"], tables["saddr_off"] and tables["aperture_codes"] through isa.traits)."""
from __future__ import annotations

import re

# a VALU instruction whose result goes to an SGPR (RDNA4's V_S_EXP_F32 ...: "Calculate 2 raised to
# the power of the ... input and store the result into a scalar register")
_SCALAR_RESULT = re.compile(r"\b[Ss]tore the result into a scalar register")
# "OPSEL[0] is overloaded to represent the DPP 'FI' (Fetch Inactive) bit" (v_permlane16)
_OPSEL_OVERLOAD = re.compile(r"OPSEL\[(\d)\] is overloaded")
# a memory-format instruction without code that only invalidates or writes back a cache
# (s_dcache_inv, buffer_gl0_inv, RDNA4's global_inv / global_wb)
_CACHE_CONTROL = re.compile(r"Write back|[Ii]nvalidate")
# without pseudocode a result exists if the description stores one (RDNA4's S_SLEEP_VAR only reads
# its input: 'S0[6:0] determines the sleep duration')
_STORES = re.compile(r"\b(store|write|return)", re.I)
# a memory load whose result goes to LDS instead of a VGPR (CDNA3/4 GLOBAL_LOAD_LDS_*,
# SCRATCH_LOAD_LDS_*: "... and store the result into a data share.")
_INTO_DATA_SHARE = re.compile(r"\bstore (?:the )?result into (?:a )?data share", re.I)
# the scalar source field holds the message type itself: "contains the message type encoded in the
# instruction directly (this instruction does not read an SGPR)" (s_sendmsg_rtn_b32/b64)
_SOURCE_IS_IMMEDIATE = re.compile(r"\bencoded in the instruction directly\b")

# MODE fields an instruction without code sets from its immediate: "Set floating point round mode
# using an immediate constant" (s_round_mode), "Set floating point denormal mode ..." (s_denorm_mode)
_SETS_MODE = (("MODE.FP_ROUND", re.compile(r"^Set floating point round(?:ing)? mode\b")),
              ("MODE.FP_DENORM", re.compile(r"^Set floating point denorm(?:al)? mode\b")))


# CDNA's moves between the register files, which name their operands' files in words: "Move 32 bits of
# data from an accumulator vector register into an architectural vector register" (v_accvgpr_read),
# "... from an architectural vector register into an accumulator vector register" (v_accvgpr_write),
# "Move data from one accumulator register to another accumulator register" (v_accvgpr_mov_b32)
_FROM_ACCUMULATOR = re.compile(r"\bfrom (?:an|one) accumulator (?:vector )?register\b")
_TO_ACCUMULATOR = re.compile(r"\b(?:into an|to another) accumulator (?:vector )?register\b")
# CDNA4's load-scale half of V_MFMA_SCALE_* (its description is an erratum's, from section 7.2):
# "Load-Scale factors for the V_MFMA_SCALE_... instruction that follows"
_LOADS_SCALES = re.compile(r"^Load-Scale factors for the .* instruction that follows\b")


def agpr_operands(pcode: str | None, description: str | None) -> tuple[str, ...]:
    """The operands (D0, S0) the description places in the accumulator (AGPR) register file."""
    text = description or ""
    return tuple(key for key, words in (("D0", _TO_ACCUMULATOR), ("S0", _FROM_ACCUMULATOR)) if words.search(text))


def loads_scales(pcode: str | None, description: str | None) -> bool:
    return bool(_LOADS_SCALES.search(description or ""))


def scalar_result(pcode: str | None, description: str | None) -> bool:
    return bool(_SCALAR_RESULT.search(description or ""))


def opsel_flags(pcode: str | None, description: str | None) -> int:
    """How many OPSEL bits the description redefines as flags."""
    return len(set(_OPSEL_OVERLOAD.findall(description or "")))


def cache_control(pcode: str | None, description: str | None) -> bool:
    return not pcode and bool(_CACHE_CONTROL.match(description or ""))


def result_without_code(pcode: str | None, description: str | None) -> bool:
    return not pcode and bool(_STORES.search(description or ""))


def loads_to_lds(pcode: str | None, description: str | None) -> bool:
    return bool(_INTO_DATA_SHARE.search(description or ""))


def source_is_immediate(pcode: str | None, description: str | None) -> bool:
    return bool(_SOURCE_IS_IMMEDIATE.search(description or ""))


def sets_mode(pcode: str | None, description: str | None) -> tuple[str, ...]:
    """The MODE fields the description says the instruction sets (isa.effects.wave_state's writes)."""
    return tuple(field for field, words in _SETS_MODE if words.search(description or ""))


# the lookup table a description lists where the code only declares the array: v_cvt_off_f32_i4's
# "Lookup table on S0[3:0]: S0 binary Result 1000 -0.5000f 1001 -0.4375f ..."
_LOOKUP_HEADER = re.compile(r"Lookup table on \w+\[(\d+):0\]:\s*\w+ binary Result\s*(.*)$", re.S)
_LOOKUP_ROW = re.compile(r"([01]+)\s+([+-]?\d+(?:\.\d+)?)f?\b")


def lookup_table(pcode: str | None, description: str | None) -> tuple[float, ...] | None:
    """The entries, in index order, of the lookup table the description lists (every index 0 ..
    2**bits - 1 exactly once), else None (no table, or an incomplete one)."""
    m = _LOOKUP_HEADER.search(description or "")
    if not m:
        return None
    rows = {}
    for bits, value in _LOOKUP_ROW.findall(m.group(2)):
        index = int(bits, 2)
        if index in rows:
            return None
        rows[index] = float(value)
    if sorted(rows) != list(range(1 << (int(m.group(1)) + 1))):
        return None
    return tuple(rows[i] for i in sorted(rows))


# "Set this field to NULL or 0x7f to disable use" (RDNA3), "... to NULL ..." (RDNA4), "... to 0x7f ..." (CDNA3)
_SADDR_OFF = re.compile(r"[Ss]et this field to ((?:NULL|0x[0-9A-Fa-f]+)(?: or (?:NULL|0x[0-9A-Fa-f]+))*) to disable")


def saddr_off(formats: dict) -> list[tuple[str, tuple]]:
    """(format, codes) of each format whose SADDR field's text names the codes that disable it, in
    the text's order: 'NULL' as written (the SRC0 table says its number), others as numbers:
    ('GLOBAL', ('NULL', 127))."""
    out = []
    for name, fmt in sorted(formats.items()):
        text = next((t for f, _, _, t in fmt["fields"] if f == "SADDR"), "")
        m = _SADDR_OFF.search(text)
        if m:
            out.append((name, tuple(c if c == "NULL" else int(c, 16) for c in m.group(1).split(" or "))))
    return out


# a source code the operand tables name as an aperture's address: "SHARED_BASE (Memory Aperture definition)."
_APERTURE = re.compile(r"\(Memory Aperture definition\)", re.I)


def aperture_codes(operands: dict) -> list[tuple[int, str]]:
    """(code, name) of each operand code whose row in the operand tables says "(Memory Aperture
    definition)" (SHARED_BASE .. PRIVATE_LIMIT: 64-bit aperture addresses, 235-238 in every family),
    from every format's code tables (VOP3's SRC0, SOP1's SSRC0, ...), sorted. A code two rows name
    differently is an error."""
    named: dict[int, str] = {}
    for fmt, fields in sorted(operands.items()):
        for field, rows in sorted(fields.items()):
            for lo, hi, kind, base, text in rows:
                if not _APERTURE.search(text or ""):
                    continue
                if lo != hi or kind != "special":
                    raise ValueError(f"{fmt}.{field}: aperture row {lo}-{hi} ({kind} {base!r}) is no single named code")
                if named.setdefault(lo, base) != base:
                    raise ValueError(f"{fmt}.{field}: aperture code {lo} is {base}, another table says {named[lo]}")
    return sorted(named.items())


# who may write a hardware register (s_setreg), in the register table's words: RDNA3 "read / write",
# "read / write. Only writable when priv=1", "write-only. ...", "read only (writable only while in
# trap handler)"; CDNA "R/W.", "Read only."; RDNA4's Writable? column "Yes" / "PRIV" / "No"
_WRITABLE_PRIVILEGED = re.compile(r"writable when priv|writable only (?:while in|by) (?:the )?trap handler", re.I)
_WRITABLE = re.compile(r"^(?:read ?/ ?write|r/w\b|write-only)", re.I)
_WRITABLE_CELL = {"Yes": "yes", "PRIV": "priv", "No": "no"}


def hwreg_writable(rows: list[tuple]) -> list[tuple[int, str]]:
    """(id, who may write it) of each hardware register of the table (id, name, description,
    Writable? cell or None): 'yes' (any wave), 'priv' (only in the trap handler, STATUS.PRIV = 1)
    or 'no'. RDNA4's Writable? column where the table has one; else the description's words, and a
    register whose description says nothing of writing is read-only (SHADER_CYCLES "Get the
    current graphics clock counter value", CDNA's TBA_LO "Trap base address register")."""
    out = []
    for reg, name, text, cell in rows:
        if cell is not None:
            if cell not in _WRITABLE_CELL:
                raise ValueError(f"hardware register {reg} ({name}): Writable? cell {cell!r} is none of "
                                 f"{', '.join(_WRITABLE_CELL)}")
            out.append((reg, _WRITABLE_CELL[cell]))
        elif _WRITABLE_PRIVILEGED.search(text):
            out.append((reg, "priv"))
        else:
            out.append((reg, "yes" if _WRITABLE.match(text.strip()) else "no"))
    return out


# one destination of a TARGET field's list: '0..7 MRT 0..7', '8 Z', '12-16 Position 0-4', '20 Primitive
# data' (a name's own trailing range, 'MRT 0..7', is the codes' numbering, not another row)
_TARGET_ROW = re.compile(r"(\d+)(?:(?:\.\.|-)(\d+))?\s+([A-Za-z][A-Za-z ]*?)(?:\s+\d+(?:\.\.|-)\d+)?(?=\s+\d|\s*$)")


def _target_name(text: str) -> str:
    """The destination's name without its numbering: 'Position 0-4' -> 'Position'."""
    return re.sub(r"\s*\d+(?:\.\.|-)\d+$", "", text.strip())


def export_targets(formats: dict, operands: dict) -> list[tuple[int, int, str]]:
    """(first code, last code, name) of each export destination, from the TARGET field of the
    format that has one: its text ('Export destination: 0..7 MRT 0..7 8 Z 12-16 Position 0-4 ...',
    RDNA4's conversion keeps the whole list there) and its operand code table (RDNA3's rows
    'Z', 'Position 0-4', ...). Empty for a family without exports (CDNA)."""
    rows = set()
    for name, fmt in formats.items():
        text = next((t for f, _, _, t in fmt["fields"] if f == "TARGET"), None)
        if text is None:
            continue
        listed = text.split(":", 1)[1] if ":" in text else text
        rows |= {(int(m.group(1)), int(m.group(2) or m.group(1)), _target_name(m.group(3)))
                 for m in _TARGET_ROW.finditer(listed)}
        rows |= {(lo, hi, _target_name(base)) for lo, hi, _kind, base, _text in operands.get(name, {}).get("TARGET", [])}
    return sorted(rows)
