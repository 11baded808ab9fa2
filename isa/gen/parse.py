"""Turn the typed lines of an AMD ISA reference guide into ISA data.

What is read, and from where (chapter numbers are RDNA3's; sections are found by
title, not by number or page):
  * "Summary of Microcode Formats" table         -> format names and widths
  * "<FMT> Fields" tables                        -> bit fields, fixed ENCODING bits,
                                                    operand code enumerations
  * "<FMT> Opcodes", "VOPD X-/Y-Opcodes" tables  -> (format, opcode, name)
  * the "Instructions" chapter                   -> description, pseudocode, notes
  * smaller tables the emulator needs            -> hardware registers, STATUS/MODE,
                                                    s_waitcnt layout, DPP_CTRL, data formats
  * "Sample Instruction Suffix Key"              -> the image suffixes' extra addresses
  * "Image Opcodes with No Sampler / a Sampler"  -> image address VGPRs per type (image_addresses.py)
Every value keeps the physical page it came from so errata and reviews can cite it.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from .pdf import Line

HEADING_RE = re.compile(r"^(?:Chapter (\d+)\.|(\d+(?:\.\d+)+)\.)\s+(.+)$")
CAPTION_RE = re.compile(r"^Table (\d+)\.\s+(.+)$")
FIELD_ROW_RE = re.compile(r"^([A-Z][A-Z0-9_]*) \[(\d+)(?::(\d+))?\]\s*(.*)$")
# "0-105 SGPR0 - SGPR105: ...", "249 - 252 Reserved.", "12-16 Position 0-4"; not "1 = clamp"
CODE_ROW_RE = re.compile(r"^(\d+)\s*(?:-\s*(\d+))?\s+(?![=:])(\S.*)$")
OPCODE_PAIR_RE = re.compile(r"(?<![\w\[])(\d+) ([A-Z][A-Z0-9_]+)\b")
INSTR_NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]+$")
TABLE_TEXT_MAX_SIZE = 9.5   # table bodies are set in 9pt, running text in 10pt


@dataclass
class Section:
    number: str
    title: str
    page: int
    lines: list[Line] = field(default_factory=list)


@dataclass
class Table:
    number: int
    title: str
    page: int
    section: str
    rows: list[Line]


@dataclass
class RawField:
    name: str
    hi: int
    lo: int
    text: list[str]
    codes: list[tuple[int, int, str]]
    page: int


@dataclass
class RawInstruction:
    name: str
    opcode: int
    section: str
    page: int
    description: list[str] = field(default_factory=list)
    pcode: list[tuple[float, str]] = field(default_factory=list)  # (x0, text)
    notes: list[str] = field(default_factory=list)


class SpecParseError(Exception):
    pass


# ---------------------------------------------------------------- document structure

def split_sections(lines: list[Line]) -> list[Section]:
    sections = [Section("0", "front matter", 1)]
    for ln in lines:
        m = HEADING_RE.match(ln.text) if ln.is_heading else None
        if m:
            sections.append(Section(m.group(1) or m.group(2), m.group(3), ln.page))
        else:
            sections[-1].lines.append(ln)
    return sections


def find_tables(sections: list[Section]) -> list[Table]:
    """Captioned tables: the caption line, then the 9pt rows that follow it."""
    tables = []
    for sec in sections:
        i = 0
        while i < len(sec.lines):
            m = CAPTION_RE.match(sec.lines[i].text)
            if not m or sec.lines[i].size > TABLE_TEXT_MAX_SIZE + 1:
                i += 1
                continue
            j = i + 1
            rows = []
            while j < len(sec.lines):
                ln = sec.lines[j]
                if ln.size >= TABLE_TEXT_MAX_SIZE:
                    break
                if ln.font != "bold":       # bold 9pt lines are the column headers
                    rows.append(ln)
                j += 1
            tables.append(Table(int(m.group(1)), m.group(2).strip(), sec.lines[i].page, sec.number, rows))
            i = j
    return tables


def chapter(sections: list[Section], title: str) -> list[Section]:
    """The sections of the chapter whose title is `title` (matched case-insensitively)."""
    for sec in sections:
        if "." not in sec.number and sec.title.lower() == title.lower():
            prefix = sec.number + "."
            return [sec] + [s for s in sections if s.number.startswith(prefix)]
    raise SpecParseError(f"chapter '{title}' not found")


# ---------------------------------------------------------------- microcode formats

def parse_format_summary(tables: list[Table]) -> dict[str, dict]:
    table = _table(tables, "Summary of Microcode Formats")
    formats, width = {}, None
    for row in table.rows:
        m = re.match(r"^([A-Z][A-Z0-9]+) ([A-Z][A-Z0-9]+)(?: (\d+)(?: or (\d+))?)?$", row.text)
        if not m and len(row.cells) >= 2:
            # the Markdown conversions run the next group's title into the name cell
            # ("SOPC Scalar Memory Format | SOPC |") and keep hyphenated names (VOP3P-MAI)
            m = re.match(r"^([A-Z][A-Z0-9]+(?:-[A-Z]+)?)\b.* ([A-Z][A-Z0-9]+(?:-[A-Z]+)?)(?: (\d+)(?: or (\d+))?)?$",
                         " ".join(row.cells))
        if not m:
            continue
        if m.group(3):
            width = int(m.group(3))
        widths = [width] + ([int(m.group(4))] if m.group(4) else [])
        formats[m.group(1)] = {"width": widths[0], "widths": widths, "page": row.page}
    if not formats:
        raise SpecParseError(f"no rows in '{table.title}' (page {table.page})")
    return formats


def parse_field_table(table: Table) -> list[RawField]:
    fields: list[RawField] = []
    for row in table.rows:
        m = FIELD_ROW_RE.match(row.text)
        if m:
            hi = int(m.group(2))
            lo = int(m.group(3)) if m.group(3) is not None else hi
            text = [m.group(4)] if m.group(4) else []
            fields.append(RawField(m.group(1), hi, lo, text, [], row.page))
            continue
        if not fields:
            continue
        code = CODE_ROW_RE.match(row.text)
        if code:
            lo = int(code.group(1))
            hi = int(code.group(2)) if code.group(2) else lo
            fields[-1].codes.append((lo, hi, code.group(3)))
        else:
            fields[-1].text.append(row.text)
    # A field may be listed twice when its row is repeated across a page break
    # (RDNA3 VINTERP SRC0): keep one entry, with the richer description.
    merged: dict[str, RawField] = {}
    for f in fields:
        old = merged.get(f.name)
        if old and (old.hi, old.lo) == (f.hi, f.lo):
            if len(f.codes) > len(old.codes):
                merged[f.name] = f
        elif old:
            raise SpecParseError(f"{table.title} (page {f.page}): field {f.name} listed twice "
                                 f"with different bits [{old.hi}:{old.lo}] and [{f.hi}:{f.lo}]")
        else:
            merged[f.name] = f
    return list(merged.values())


def parse_opcode_table(table: Table) -> list[tuple[int, str, int]]:
    out = []
    for row in table.rows:
        for num, name in OPCODE_PAIR_RE.findall(row.text):
            if name != "Reserved":
                out.append((int(num), name, row.page))
    return out


def encoding_of(fields: list[RawField], fmt: str = "") -> tuple[int, int] | None:
    """The fixed bits of format `fmt` as (value, mask), from its ENCODING field. A field
    shared by several formats names each one's value ("Flat='b11101100, Global='b11101110",
    RDNA4; VFLAT takes Flat's)."""
    for f in fields:
        if f.name == "ENCODING":
            text = " ".join(f.text)
            named = {n.upper(): v for n, v in re.findall(r"\b([A-Za-z]+)='b([01_]+)", text)}
            if named:
                key = fmt if fmt in named else fmt[1:] if fmt.startswith("V") and fmt[1:] in named else None
                if key is None:
                    raise SpecParseError(f"ENCODING field on page {f.page} names values for {', '.join(named)} "
                                         f"but not for {fmt}: {text}")
                text = "'b" + named[key]
            # RDNA writes 'b110100, CDNA "Must be: 110100"
            m = re.search(r"(?:'b|Must be: )([01_]+)\b", text)
            if not m:
                raise SpecParseError(f"ENCODING field on page {f.page} has no 'b value: {f.text}")
            bits = m.group(1).replace("_", "")
            width = f.hi - f.lo + 1
            if len(bits) != width:
                raise SpecParseError(
                    f"ENCODING field on page {f.page}: value 'b{bits} has {len(bits)} bits but "
                    f"the field [{f.hi}:{f.lo}] has {width} (needs an errata entry)")
            return int(bits, 2) << f.lo, ((1 << width) - 1) << f.lo
    return None


# ---------------------------------------------------------------- operand codes

_OPERAND_PATTERNS = [
    (re.compile(r"^SGPR(\d+) (?:-|to) SGPR(\d+)"), lambda m: ("sgpr", int(m.group(1)))),
    (re.compile(r"^TTMP(\d+) - TTMP(\d+)"), lambda m: ("ttmp", int(m.group(1)))),
    (re.compile(r"^VGPR (\d+) - (\d+)"), lambda m: ("vgpr", int(m.group(1)))),
    (re.compile(r"^Signed integer (-?\d+) to (-?\d+)"), lambda m: ("int", int(m.group(1)))),
    (re.compile(r"^(-?\d+)\.$"), lambda m: ("int", int(m.group(1)))),
    (re.compile(r"^(-?\d+\.\d+)\.(?: \(float32\))?$"), lambda m: ("float", float(m.group(1)))),
    (re.compile(r"^1/\(2\*PI\)"), lambda m: ("float", 1 / (2 * math.pi))),
    (re.compile(r"^(?:32-bit )?Literal constant"), lambda m: ("literal", None)),
    (re.compile(r"^64-bit Literal constant"), lambda m: ("literal64", None)),   # RDNA4's code 254
    (re.compile(r"^Reserved"), lambda m: None),
    (re.compile(r"^([A-Z][A-Z0-9_]+)(?=$|[\s.:(])"), lambda m: ("special", m.group(1))),
    (re.compile(r"^(.*)$"), lambda m: ("other", m.group(1))),   # e.g. EXP targets: "Primitive data"
]


def classify_operand_codes(codes: list[tuple[int, int, str]], where: str) -> list[tuple]:
    """[(lo, hi, kind, base, text)]: what each range of an operand field's codes selects.

    kind is sgpr/ttmp/vgpr (base = first register number), int (base = value at lo,
    counting up or down as the text's range says), float (base = value), literal, or
    special (base = name, e.g. VCC_LO, NULL, M0, SCC, SHARED_BASE, DPP16)."""
    out = []
    for lo, hi, text in codes:
        for pattern, make in _OPERAND_PATTERNS:
            m = pattern.match(text)
            if m:
                kind = make(m)
                if kind is not None:
                    out.append((lo, hi) + kind + (text,))
                break
        else:
            raise SpecParseError(f"{where}: cannot classify operand code {lo}-{hi} '{text}'")
    return out


# ---------------------------------------------------------------- instructions chapter

def parse_instructions(sections: list[Section]) -> list[RawInstruction]:
    out: list[RawInstruction] = []
    for sec in chapter(sections, "Instructions"):
        current: RawInstruction | None = None
        in_notes = False
        for ln in sec.lines:
            if (ln.font == "bold" and len(ln.cells) == 2 and INSTR_NAME_RE.match(ln.cells[0])
                    and ln.cells[1].isdigit()):
                current = RawInstruction(ln.cells[0], int(ln.cells[1]), sec.number + " " + sec.title, ln.page)
                out.append(current)
                in_notes = False
            elif current is None:
                continue
            elif ln.font == "bold" and ln.text == "Notes":
                in_notes = True
            elif in_notes:
                current.notes.append(ln.text if ln.font != "mono" else "    " + ln.text)
            elif ln.font == "mono":
                current.pcode.append((ln.x0, ln.text))
            else:
                current.description.append(ln.text)
    return out


def normalise_pcode(lines: list[tuple[float, str]], char_width: float) -> str | None:
    """Pseudocode lines with indentation rebuilt from their x position (2 spaces a level)."""
    if not lines:
        return None
    base = min(x for x, _ in lines)
    out = []
    for x, text in lines:
        level = round((x - base) / char_width / 2)
        out.append("  " * level + text.rstrip())
    return "\n".join(out)


_TYPE_RE = re.compile(r"\b(S0|S1|S2|D0|D1|SDATA|VDATA|DATA|DATA2|ADDR|RETURN_DATA|VCC|SCC|SRC0|SRC1|SRC2)"
                      r"(\[[^\]]*\])?\.([a-z]+\d*)\b")
_SHORT_TYPES = {"u": "u32", "i": "i32", "f": "f32", "b": "b32"}


def operand_types(pcode: str | None) -> dict[str, str]:
    """Data type of each operand as the pseudocode accesses it (S0.f16 -> f16).

    Whole-register accesses win over sliced ones (S0[31 : 16].f16 is one half of a
    packed operand; such operands are typed 'pk_f16')."""
    if not pcode:
        return {}
    whole: dict[str, str] = {}
    sliced: dict[str, str] = {}
    for name, index, typ in _TYPE_RE.findall(pcode):
        typ = _SHORT_TYPES.get(typ, typ)
        if not re.match(r"^(u|i|f|b|bf)\d+$", typ):
            continue
        if not index or "laneId" in index:
            whole.setdefault(name, typ)
        else:
            sliced.setdefault(name, "pk_" + typ)
    # RDNA3.5 reads interpolation inputs as VGPR[lane][SRC0.u32].f16: the field is a register
    # number, the value read through it is the source operand S0 and has the accessor's type
    for index, typ in _VGPR_READ_RE.findall(pcode):
        typ = _SHORT_TYPES.get(typ, typ)
        if re.match(r"^(u|i|f|b|bf)\d+$", typ):
            whole.setdefault(f"S{index}", typ)
    return {k: whole.get(k) or sliced[k] for k in sorted(set(whole) | set(sliced))}


_VGPR_READ_RE = re.compile(r"\bVGPR\[[^\]]*\]\[SRC(\d)\.u32\]\.([a-z]+\d*)\b")


# ---------------------------------------------------------------- auxiliary tables

def parse_register_fields(table: Table) -> list[tuple[str, int, int, str]]:
    """STATUS / MODE register field tables: (name, hi, lo, description)."""
    out = []
    for row in table.rows:
        m = re.match(r"^([A-Z][A-Z0-9_]*(?:_ [A-Z0-9_]+)?) (\d+)(?::(\d+))?\b\s*(.*)$", row.text)
        if m and not row.text.startswith("[") and row.x0 < 70:
            hi = int(m.group(2))
            lo = int(m.group(3)) if m.group(3) else hi
            if m.group(3):
                hi, lo = max(hi, lo), min(hi, lo)
            desc = re.sub(r"^[YN] ", "", m.group(4))
            out.append((m.group(1).replace(" ", ""), hi, lo, desc))
        elif out:
            out[-1] = out[-1][:3] + ((out[-1][3] + " " + row.text).strip(),)
    return out


def parse_hwreg_table(sections: list[Section]) -> list[tuple[int, str, str, str | None]]:
    """The S_GETREG/S_SETREG register ids ('Code | Register' table in Wave State Registers;
    RDNA4: 'Index | Writable? | Register'): (id, name, description, the Writable? cell or None
    where the table has no such column)."""
    for sec in sections:
        for i, ln in enumerate(sec.lines):
            if ln.font == "bold" and ln.cells[:2] in (("Code", "Register"), ("Index", "Writable?")):
                name_at = ln.cells.index("Register")
                writable_at = ln.cells.index("Writable?") if "Writable?" in ln.cells else None
                out = []
                for row in sec.lines[i + 1:]:
                    if row.size >= TABLE_TEXT_MAX_SIZE or row.font == "bold":
                        break
                    if row.cells[0].isdigit() and len(row.cells) > name_at:
                        if row.cells[name_at] != "Reserved":
                            out.append((int(row.cells[0]), row.cells[name_at], " ".join(row.cells[name_at + 1:]),
                                        None if writable_at is None else row.cells[writable_at]))
                    elif out:
                        out[-1] = out[-1][:2] + ((out[-1][2] + " " + row.text).strip(),) + out[-1][3:]
                return out
    raise SpecParseError("hardware register table ('Code | Register') not found")


_EXTRA_ADDRESSES_RE = re.compile(r"^\d[\d, or]*:\s")      # '1: lod bias', '2,4 or 6: slopes'
_QUOTED_SUFFIX_RE = re.compile(r'"(_[A-Z0-9]+)"')          # Sample "_L": ..., Gather "_CL" ...


def parse_sample_suffixes(table: Table, sections: list[Section]) -> list[tuple[str, str, str, str, bool, int]]:
    """The "Sample Instruction Suffix Key" (RDNA3 Table 49, page 110): (suffix, meaning, extra
    addresses, description, body, page) per row, e.g. ('_B', 'LOD BIAS', '1: lod bias', 'Add this
    BIAS to the computed LOD.', False, 110). Extra addresses is '' where the manual gives none ('-',
    or a cell the Markdown conversion dropped). body: the suffix's value is one more component of
    the address body -- the "Image Opcodes with a Sampler" table gives the suffix rows of its own
    (Sample "_L": s, lod; Gather "_CL": s, t, clamp). A row without a suffix continues the
    description above it."""
    sampler = next((sec for sec in sections if sec.title == "Image Opcodes with a Sampler"), None)
    in_body = set(_QUOTED_SUFFIX_RE.findall(" ".join(ln.text for ln in sampler.lines))) if sampler else set()
    out: list[list] = []
    for row in table.rows:
        cells = [c for c in row.cells if c != "-"]
        if not cells[0].startswith("_"):
            if out:
                out[-1][3] = f"{out[-1][3]} {row.text}".strip()
            continue
        extra = next((c for c in cells[2:] if _EXTRA_ADDRESSES_RE.match(c)), "")
        description = " ".join(c for c in cells[2:] if c != extra)
        out.append([cells[0], cells[1], extra, description, cells[0] in in_body, table.page])
    if not out:
        raise SpecParseError(f"table '{table.title}' (page {table.page}) has no suffix rows")
    return [tuple(row) for row in out]


def parse_simm16_layout(description: list[str]) -> list[tuple[str, int, int]]:
    """'EXP = SIMM16[2:0]' lines of S_WAITCNT's description: (counter, hi, lo)."""
    out = []
    for text in description:
        m = re.match(r"^(\w+) = SIMM16\[(\d+):(\d+)\]", text)
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3))))
    return out


_COUNTER_NAMES = (("vmcount", "VM"), ("export", "EXP"), ("lgkmcnt", "LGKM"))


def parse_simm16_counters(lines: list[str]) -> list[tuple[str, int, int]]:
    """CDNA's S_WAITCNT layout, 'SIMM16[3:0] = vmcount (vector memory operations) lower bits
    [3:0],' ... 'SIMM16[15:14] = vmcount ... upper bits [5:4].': (counter, hi, lo), the upper
    part of a split counter named <counter>_HI, in bit order."""
    out = []
    for text in lines:
        m = re.match(r"^SIMM16\[(\d+):(\d+)\] = (\S+)(.*)$", text.strip())
        if not m:
            continue
        name = next((n for key, n in _COUNTER_NAMES if m.group(3).lower().startswith(key)), None)
        if name is None:
            raise SpecParseError(f"S_WAITCNT: unknown counter in {text!r}")
        out.append((name + ("_HI" if "upper bits" in m.group(4) else ""), int(m.group(1)), int(m.group(2))))
    return sorted(out, key=lambda c: c[2])


# "These instructions all have names of the form V_MFMA_[output type]_[M]X[N]X[K][_[B]B]_[input type]
# where B (which is 1 if not specified) is the number of matrices (or blocks)" (CDNA3 7.1); the
# sparse V_SMFMAC_* follow the same form with a 2:4-sparse A.
_MFMA_NAME_RE = re.compile(r"^V_(S?)MFMAC?_([A-Z]+\d+)_(\d+)X(\d+)X(\d+)(?:_(\d+)B)?_([A-Z0-9_]+)$")
_MFMA_FORMULA_RE = re.compile(r"^D = A \((?:sparse )?(\d+)x(\d+)\) \* B \((\d+)x(\d+)\)")
_PASSES_RE = re.compile(r"performs (\d+) passes")


def parse_mfma(instructions: list[dict]) -> list[tuple]:
    """The matrix instructions' shapes: (name, M, N, K, blocks, sparse, output type, input type,
    passes or None), from the names by the manual's naming rule, checked against each entry's
    'D = A (MxK) * B (KxN) + C (MxN)' line where the entry has one."""
    out = []
    for d in instructions:
        m = _MFMA_NAME_RE.match(d["name"])
        if not m or not d["name"].startswith(("V_MFMA_", "V_SMFMAC_")):
            continue
        sparse, out_type, mm, nn, kk, blocks, in_type = m.groups()
        mm, nn, kk, blocks = int(mm), int(nn), int(kk), int(blocks or 1)
        formula = _MFMA_FORMULA_RE.match(d["pcode"] or "")
        if formula and (int(formula.group(1)), int(formula.group(2)), int(formula.group(3)),
                        int(formula.group(4))) != (mm, kk, kk, nn):
            raise SpecParseError(f"{d['name']} (page {d['pcode_page']}): '{formula.group(0)}' contradicts "
                                 f"the name's {mm}x{nn}x{kk}")
        passes = _PASSES_RE.search(d["notes"] or "")
        out.append((d["name"], mm, nn, kk, blocks, bool(sparse), out_type.lower(), in_type.lower(),
                    int(passes.group(1)) if passes else None))
    return out


def parse_dpp_ctrl(table: Table) -> list[tuple[str, int, int, str]]:
    """DPP_CTRL enumeration: (name, first code, last code, description)."""
    rows: list[list] = []
    for row in table.rows:
        m = re.match(r"^(DPP_[A-Z_]+\*?) ([0-9A-F]{3})(-?)$", row.cells[0])
        if m:
            rows.append([m.group(1), int(m.group(2), 16), int(m.group(2), 16), row.cells[-1] if len(row.cells) > 2 else ""])
            continue
        if "DPP_" in row.cells[0]:
            return []           # an entry in another layout (parse_dpp_ctrl_cells reads those)
        if not rows:
            continue
        for cell in row.cells:
            if re.fullmatch(r"[0-9A-F]{3}", cell):
                rows[-1][2] = int(cell, 16)
        if re.fullmatch(r"[A-Z_]+\*?", row.cells[0]) and not re.fullmatch(r"[0-9A-F]{3}", row.cells[0]):
            rows[-1][0] += row.cells[0]
        if len(row.cells) >= 3:
            rows[-1][3] = (rows[-1][3] + " " + row.cells[-1]).strip()
    return [(name.rstrip("*"), lo, hi, desc) for name, lo, hi, desc in rows]


def parse_dpp_ctrl_cells(table: Table) -> list[tuple]:
    """DPP_CTRL rows as the Markdown conversions lay them out: the name in the first cell
    (split by stray spaces: 'DPP_ROW_MIRR OR*'), the hex code or range in that cell ('DPP_ROW_SL*
    101-10F', '140 DPP_ROW_MIRR OR*', 'DPP_QUAD_PER 000- M* 0FF') or somewhere in the others
    ('101-10F if ...', '000- 0FF' at the end of the function text). A range left open at the end of
    its row ('DPP_ROW* 150 -') ends at a row holding only the end code ('15F | ...'); one whose end
    the document lost has hi None (an erratum supplies it)."""
    code = re.compile(r"(?<![\w.\[])([0-9A-F]{3})(?:\s*(-)\s*([0-9A-F]{3})?)?(?![\w\]])")
    out = []
    for row in table.rows:
        # the name cell may also hold the column's title ('DPP_Cntl Enumeration DPP_QUAD_PE RM*':
        # RDNA4's conversion merged the header with the first row) or several rows' names, their
        # codes together in the next cell ('DPP_ROW_HA LF_MIRROR* DPP_ROW_SHA RE*' | '141 150- 15F')
        pieces = [p for p in re.split(r"(?=DPP_)", row.cells[0]) if not (p.startswith("DPP_") and re.search("[a-z]", p))]
        names = [p for p in pieces if p.startswith("DPP_")]
        if len(names) > 1:
            codes = list(code.finditer(" ".join(row.cells[1:])))
            if len(codes) != len(names) or not all(m.group(3) or not m.group(2) for m in codes):
                raise SpecParseError(f"DPP_CTRL (page {row.page}): names {names} and codes "
                                     f"{[m.group(0) for m in codes]} do not pair up")
            desc = row.cells[-1] if len(row.cells) >= 3 else ""
            out += [(re.sub(r"\s+", "", n).rstrip("*"), int(m.group(1), 16), int(m.group(3) or m.group(1), 16), desc)
                    for n, m in zip(names, codes)]
            continue
        first = "".join(pieces)
        if out and out[-1][2] is None and re.fullmatch(r"[0-9A-F]{3}", first.strip()):
            name, lo, _, desc = out[-1]                    # the end of the range the row above left open
            out[-1] = (name, lo, int(first, 16), desc or (row.cells[-1] if len(row.cells) >= 3 else ""))
            continue
        if "DPP_" not in first:
            continue
        m = code.search(first)
        if m:
            name, desc = re.sub(r"\s+", "", code.sub("", first)), row.cells[-1] if len(row.cells) >= 3 else ""
        else:
            name, desc = re.sub(r"\s+", "", first), row.cells[-1] if len(row.cells) >= 4 else ""
            rest = " ".join(row.cells[1:])
            m = code.search(rest)
            if not m:
                raise SpecParseError(f"DPP_CTRL {name} (page {row.page}): no code in {rest!r}")
        lo = int(m.group(1), 16)
        hi = int(m.group(3), 16) if m.group(3) else (None if m.group(2) else lo)
        if hi is None and code.search(first, m.end()):     # a name piece inside the range: '000- M* 0FF'
            hi = int(code.search(first, m.end()).group(1), 16)
        out.append((name.rstrip("*"), lo, hi, desc))
    return out


# a data format's name as channel widths and a number-format word: '8_8_8_8_UNORM',
# '10_11_11_FLOAT'; CDNA's DFMT names have the widths only ('16_16')
DATA_FORMAT_NAME_RE = re.compile(r"(\d+(?:_\d+)*)(?:_([A-Z]+))?")
_FORMAT_NAME_RE = re.compile(r"[A-Z0-9_]+")


def data_format_layout(name: str) -> tuple[tuple[int, ...], str | None]:
    """(channel bits, number format) a data format's name spells: '8_8_8_8_UNORM' ->
    ((8, 8, 8, 8), 'UNORM'), '10_11_11_FLOAT' -> ((10, 11, 11), 'FLOAT'), CDNA's DFMT '16_16' ->
    ((16, 16), None). The widths are in the name's order. A name that is not widths followed by at
    most one word says no channels: INVALID, 32_FLOAT_CLAMP, X24_8_32_UINT, GB_GR_UNORM, BC1_UNORM
    -> ((), None)."""
    m = DATA_FORMAT_NAME_RE.fullmatch(name)
    if m is None:
        return (), None
    return tuple(int(b) for b in m.group(1).split("_")), m.group(2)


def parse_data_formats(table: Table) -> list[tuple[int, str, tuple[int, ...], str | None, int]]:
    """The "Buffer and Image Data Formats" table ('# | Format' pairs in three columns; RDNA3 Table
    52, pages 115-116): (code, name, channel bits, number format, page) per format, e.g.
    (42, '8_8_8_8_UNORM', (8, 8, 8, 8), 'UNORM', 115). A cell of several codes followed by a cell of
    as many names (RDNA4's conversion crammed 112-227 into one pair of cells) is paired in order; a
    count mismatch, or a code named twice differently, is an error."""
    out: dict[int, tuple] = {}
    for row in table.rows:
        cells = row.cells
        for i in range(len(cells) - 1):
            codes, names = cells[i].split(), cells[i + 1].split()
            if not codes or not all(c.isdigit() for c in codes) or \
                    not all(_FORMAT_NAME_RE.fullmatch(n) and not n.isdigit() for n in names):
                continue
            if len(codes) != len(names):
                raise SpecParseError(f"'{table.title}' (page {row.page}): {len(codes)} codes "
                                     f"({cells[i]}) beside {len(names)} names ({cells[i + 1]})")
            for code, name in zip(map(int, codes), names):
                if code in out and out[code][1] != name:
                    raise SpecParseError(f"'{table.title}' (page {row.page}): format {code} is named "
                                         f"both {out[code][1]} and {name}")
                out.setdefault(code, (code, name, *data_format_layout(name), row.page))
    if not out:
        raise SpecParseError(f"no formats in '{table.title}' (page {table.page})")
    return [out[code] for code in sorted(out)]


_CODE_LIST_RE = re.compile(r":((?:\s+\d+\s+\w+)+)\s*$")


def parse_field_codes(tables: list[Table], field: str) -> list[tuple[int, str, int]]:
    """(code, NAME, page) of every code the manual's rows describing `field` list: CDNA's MTBUF
    'DFMT | Data Format of data in memory buffer: 0 invalid 1 8 2 16 3 8_8 ...' and 'NFMT | Numeric
    format of data in memory: 0 unorm 1 snorm ...'. The buffer chapter's field table (CDNA3 page
    72) names DFMT 7 (11_11_10) and 15 (reserved), the MTBUF Fields table (page 555) leaves them
    out: every row counts, earlier pages first, and a code two rows name differently is an error."""
    out: dict[int, tuple] = {}
    for table in sorted(tables, key=lambda t: t.page):
        for row in table.rows:
            m = _CODE_LIST_RE.search(row.cells[-1]) if row.cells and row.cells[0] == field else None
            for code, name in re.findall(r"(\d+)\s+(\w+)", m.group(1)) if m else ():
                code, name = int(code), name.upper()
                if code in out and out[code][1] != name:
                    raise SpecParseError(f"'{table.title}' (page {row.page}): {field} {code} is {name}, "
                                         f"page {out[code][2]} says {out[code][1]}")
                out.setdefault(code, (code, name, row.page))
    return [out[code] for code in sorted(out)]


def _table(tables: list[Table], title: str) -> Table:
    for t in tables:
        if t.title.lower() == title.lower():
            return t
    raise SpecParseError(f"table '{title}' not found")


def tables_by_suffix(tables: list[Table], suffix: str) -> dict[str, Table]:
    """{'SOP2': Table 'SOP2 Fields', ...} for every caption '<X> <suffix>'."""
    out = {}
    for t in tables:
        m = re.match(rf"^([A-Z][A-Z0-9]*(?:-[A-Z]+)?)(?: ([XY]))?-? ?{suffix}$", t.title)
        if m:
            out[m.group(1) + (m.group(2) or "")] = t
            continue
        # one table for several formats: 'FLAT, GLOBAL and SCRATCH Fields' (RDNA4)
        m = re.match(rf"^((?:[A-Z][A-Z0-9]*, )*[A-Z][A-Z0-9]*) and ([A-Z][A-Z0-9]*) {suffix}$", t.title)
        if m:
            for name in m.group(1).split(", ") + [m.group(2)]:
                out[name] = t
    return out


def table_for_format(name: str, by_name: dict, formats) -> str | None:
    """The key of format `name`'s table: its own name, or the name without RDNA4's V prefix
    (the summary lists VDS, VFLAT, VEXPORT; their tables are captioned 'DS Fields',
    'FLAT, GLOBAL and SCRATCH Fields') when no format of that shorter name exists."""
    if name in by_name:
        return name
    if name.startswith("V") and name[1:] in by_name and name[1:] not in formats:
        return name[1:]
    return None


def group_by(items, key):
    out = defaultdict(list)
    for it in items:
        out[key(it)].append(it)
    return out
