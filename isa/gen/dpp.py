"""Which instructions may not take a DPP word, from the manual's DPP section.

Read from three places of the section "Data Parallel Processing (DPP)" (RDNA3 7.7, Table 30
page 79; RDNA3.5 the same, page 81; RDNA4 7.9, Table 38 page 94) and one beside it:
  * the table "Which instructions support DPP": per encoding, opcodes (names, `NAME*`
    prefixes, "All 64-bit opcodes") with the rule NO DPP or Allow DPP;
  * the sentence 'DPP may be used only with: VOP1, VOP2, VOPC, VOP3 and VOP3P (but not
    "packed math" ops)': the packed math ops (V_PK_*) of every encoding;
  * RDNA4's "Pseudo-scalar Transcendental ALU ops" (7.10): "both the source and destination
    are SGPRs", while a DPP word's SRC0 is a VGPR ("Real SRC0 operand (VGPR)").
The result, tables["no_dpp"], is one row per excluded instruction encoding:
(format, name, the rule as the manual writes it, page). isa.facts.no_dpp reads it.

The table's layouts differ: the RDNA3 PDFs set two column groups side by side (VOP1/VOP2/VOP3P/
VINTERP/VOPD left, VOP3/VOPC right), one row per line and a rule cell spanning the rows below it;
the RDNA4 Markdown conversion packs each encoding's opcodes into one cell and its rules into the
next ("... PERMLANE All Others | NO DPP NO DPP ... Allow DPP"). Both are read as groups of
opcodes followed by their rules; a group with fewer rules than opcodes pairs them from the end
(the first rule takes the leading opcodes: "V_DOT4_I32_IU8 ... WMMA V_FMA_MIX* | NO DPP Allow
DPP"), a group with none takes its column's rule above (a spanning cell)."""
from __future__ import annotations

import fnmatch
import re

from .. import errata as errata_mod
from .effects import effects
from .parse import SpecParseError

_RULE = re.compile(r"\b(NO DPP|Allow DPP)\b")
_ALL64 = re.compile(r"^All 64-?bit opcodes$", re.I)
_OTHERS = re.compile(r"^(?:(?:All|The) )?others:?$", re.I)
# an opcode as the table names it: "All 64-bit opcodes", "All Others", "ALL", READLANE*,
# MUL_HI_{U32, I32}, FMAMK/AK_F32/F16, V_FMA_MIX*
_ITEM = re.compile(r"(?i:all 64-?bit opcodes)|(?:ALL|All|The) [Oo]thers:?|Others|"
                   r"[A-Z][A-Z0-9_/]*(?:\{[^}]*\}[A-Z0-9_/]*)?\*?")
_PACKED_MATH = re.compile(r'DPP may be used only with: ([A-Z0-9, and]+) \(but not "packed math" ops\)')
_RULE_TABLE = "Which instructions support DPP"


def no_dpp(arch: str, sections, tables, instructions: list[dict], formats) -> tuple[list[tuple], list[dict], list]:
    """(rows (format, name, rule, page) of the instruction encodings the manual gives no DPP
    form, errata applied, the NO DPP opcodes that name no instruction of the manual (for the
    report: RDNA3's WRITELANE_REGWR_B32)) for the VALU formats the table names; ([], [], [])
    without the table."""
    table = next((t for t in tables if t.title == _RULE_TABLE), None)
    if table is None:
        return [], [], []
    rules, applied = _apply_name_errata(arch, _table_rules(table, formats), table.page)
    excluded: dict[tuple[str, str], tuple] = {}

    def exclude(d, rule, page):
        excluded.setdefault((d["format"], d["name"]), (d["format"], d["name"], rule, page))

    names = {d["name"].removeprefix("V_") for d in instructions}
    unmatched = []
    for fmt, item, rule, page in rules:
        if rule != "NO DPP":
            continue
        hits = [d for d in instructions if fmt in _formats_of(d) and _matches(item, d, names)]
        for d in hits:
            exclude(d, f"{fmt} {item}: NO DPP (Table {table.number})", page)
        if not hits:
            unmatched.append(f"{fmt} {item} (page {page})")
    sentence = next((ln for sec in sections if sec.title.endswith("(DPP)") for ln in sec.lines
                     if _PACKED_MATH.search(ln.text)), None)
    if sentence is not None:
        for d in instructions:
            if d["name"].startswith("V_PK_") and d["format"] in formats and not d["format"].startswith("VOP3P-"):
                exclude(d, 'DPP may be used only with VOP1, VOP2, VOPC, VOP3 and VOP3P (but not "packed math" '
                           'ops)', sentence.page)
    for sec in sections:
        if sec.title.startswith("Pseudo-scalar Transcendental"):
            names = {c for ln in sec.lines for c in ln.cells if re.fullmatch(r"V_S_[A-Z0-9_]+", c)}
            for d in instructions:
                if d["name"] in names:
                    exclude(d, f"{sec.number} {sec.title}: both the source and destination are SGPRs, and a DPP "
                               f"word's SRC0 is a VGPR", sec.page)
    more = _apply_instruction_errata(arch, excluded, instructions)
    return sorted(excluded.values()), applied + more, unmatched


def _formats_of(d: dict) -> tuple[str, ...]:
    """The encodings a rule of the table names `d` under: its own (VOP3SD is VOP3 with SDST)
    and, for a promoted VOP3 form, the encoding it comes from."""
    own = "VOP3" if d["format"] == "VOP3SD" else d["format"]
    return (own, d["promoted_from"]) if d["promoted_from"] else (own,)


def _table_rules(table, formats) -> list[tuple[str, str, str, int]]:
    """(format, opcode as written, rule, page) of each opcode the table names."""
    names = sorted((f for f in formats if f.startswith(("VOP", "VINTERP"))), key=len, reverse=True)
    out = []
    column_format: dict[int, str] = {}
    column_rule: dict[int, str] = {}
    for row in table.rows:
        pieces = [p.strip() for cell in row.cells for p in _RULE.split(cell) if p.strip()]
        groups, items = [], []
        for p in pieces:
            if _RULE.fullmatch(p):
                if groups and not items and groups[-1][1]:
                    groups[-1][1].append(p)         # "NO DPP" cells one after another: "NO DPP NO DPP"
                else:
                    groups.append((items, [p]))
                    items = []
            else:
                items.append(p)
        if items:
            groups.append((items, []))
        for col, (cells, group_rules) in enumerate(groups):
            text = " ".join(cells)
            fmt = next((f for f in names if text == f or text.startswith(f + " ")), None)
            if fmt:
                column_format[col] = fmt
                text = text[len(fmt):].strip()
            if col not in column_format:
                raise SpecParseError(f"{_RULE_TABLE} (page {row.page}): {text!r} under no encoding")
            found = _ITEM.findall(text)
            if " ".join(found).replace(" ", "") != text.replace(" ", ""):
                raise SpecParseError(f"{_RULE_TABLE} (page {row.page}): cannot read the opcodes {text!r}")
            if not group_rules:
                group_rules = [column_rule.get(col)] if col in column_rule else []
                if not group_rules:
                    raise SpecParseError(f"{_RULE_TABLE} (page {row.page}): {text!r} has no rule")
            if len(group_rules) > len(found):
                raise SpecParseError(f"{_RULE_TABLE} (page {row.page}): more rules than opcodes in {text!r}")
            lead = len(found) - len(group_rules) + 1
            paired = [(found[:lead], group_rules[0])] + [([i], r) for i, r in zip(found[lead:], group_rules[1:])]
            for its, rule in paired:
                out += [(column_format[col], item, rule, row.page) for item in its]
            column_rule[col] = group_rules[-1]
    return out


def _alternatives(item: str) -> list[str]:
    """The instruction names (without V_, glob patterns) one table entry stands for:
    MUL_HI_{U32, I32} -> MUL_HI_U32, MUL_HI_I32; FMAMK/AK_F32/F16 -> FMAMK_F32, FMAAK_F32, ...
    (an alternative after '/' replaces as many trailing letters of the one before it)."""
    brace = re.search(r"\{([^}]*)\}", item)
    if brace:
        return [n for alt in brace.group(1).split(",")
                for n in _alternatives(item[:brace.start()] + alt.strip() + item[brace.end():])]
    out = [""]
    for part in item.removeprefix("V_").split("_"):
        first, *rest = part.split("/")
        words = [first] + [first[:len(first) - len(r)] + r for r in rest]
        out = [o + ("_" if o else "") + w for o in out for w in words]
    return out


def _matches(item: str, d: dict, names: set) -> bool:
    name = d["name"].removeprefix("V_")
    if _OTHERS.match(item):
        return False
    if item == "ALL":
        return True
    if _ALL64.match(item):
        return _has_64bit_operand(d)
    if item == "WMMA":      # the matrix instructions: WMMA and RDNA4's sparse SWMMAC, (MxN) operands in the code
        return bool(d["pcode"]) and effects(d["pcode"]).matrix
    for pattern in _alternatives(item):
        if fnmatch.fnmatchcase(name, pattern):
            return True
        # a name without '*' that is no instruction's whole name is a prefix (RDNA4 VOP1's
        # SWAP, PERMLANE; WMMA): the manual's "SWAP*" of the VOP3 rows
        if "*" not in pattern and pattern not in names and name.startswith(pattern):
            return True
    return False


def _has_64bit_operand(d: dict) -> bool:
    """A 64-bit source or result (not a compare's lane mask, not VCC): "All 64-bit opcodes". A
    64-bit type (S0.f64, D0.u64) or bits above 31 of an operand (D0[63 : 32].f32 = ...:
    v_cvt_pk_f32_fp8's pair of results)."""
    compare = (d["promoted_from"] or d["format"]) == "VOPC"
    wide = {key for key, t in (d.get("operand_types") or {}).items() if t and t.endswith("64")}
    if d["pcode"]:
        wide |= {key for key, _, hi, _ in effects(d["pcode"]).uses if hi is not None and hi >= 32}
    return bool(wide - {"VCC", "EXEC"} - ({"D0"} if compare else set()))


def _apply_name_errata(arch, rules, page) -> tuple[list[tuple], list[dict]]:
    """dpp_table_name errata: an opcode the table misspells (RDNA3's PERMUTE64)."""
    fixes = {e.target[1]: e for e in errata_mod.for_arch(arch) if e.kind == "dpp_table_name"}
    seen, out = set(), []
    for fmt, item, rule, p in rules:
        e = fixes.get(item)
        if e is not None and e.target[0] == fmt and e.pdf == item:
            seen.add(item)
            item = e.fix
        out.append((fmt, item, rule, p))
    for item, e in fixes.items():
        if item not in seen:
            raise SpecParseError(f"erratum {e.id}: the {_RULE_TABLE} table (page {page}) no longer names "
                                 f"{e.target[0]} {item}; remove the erratum")
    return out, [{"id": e.id, "page": e.page[arch], "target": ".".join(e.target), "evidence": e.evidence}
                 for e in fixes.values()]


def _apply_instruction_errata(arch, excluded, instructions) -> list[dict]:
    """no_dpp errata: an instruction the table allows DPP that has none (evidence in the entry)."""
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind != "no_dpp":
            continue
        fmt, name = e.target
        hits = [d for d in instructions if d["name"] == name and (fmt in _formats_of(d))]
        if not hits:
            raise SpecParseError(f"erratum {e.id}: no {fmt} instruction {name} in the {arch} manual")
        for d in hits:
            key = (d["format"], d["name"])
            if key in excluded:
                raise SpecParseError(f"erratum {e.id}: the manual already gives {name} ({d['format']}) no DPP "
                                     f"({excluded[key][2]}); remove the erratum")
            excluded[key] = (d["format"], d["name"], f"erratum {e.id}: {e.fix}", e.page[arch])
        applied.append({"id": e.id, "page": e.page[arch], "target": ".".join(e.target), "evidence": e.evidence})
    return applied


# CDNA's "Instruction Limitations" (CDNA3 12.16, page 518; CDNA4 page 564): a subsection per second
# dword, "DPP" and "SDWA", each "The following instructions cannot use DPP:" and a list "- V_CLREXCP",
# "- V_CMP_*_F64". A DPP or SDWA word follows a VOP1, VOP2 or VOPC instruction (13.3.7, 13.3.9), so
# the list names those encodings.
_LIMITATIONS = "Instruction Limitations"
_CANNOT_USE = re.compile(r"^The following instructions cannot use (DPP|SDWA):$")
_LISTED = re.compile(r"^- (V_[A-Z0-9_*]+)$")


def limitations(arch: str, sections, instructions: list[dict], e32: frozenset) -> tuple[dict, list[dict], list]:
    """({'DPP': rows, 'SDWA': rows} of the instruction encodings (of the `e32` formats) the
    "Instruction Limitations" lists say cannot use that second dword, rows (format, name, rule,
    page) as no_dpp's; dpp_limitation errata applied: a listed instruction the reference assembler
    takes DPP on stays out), the errata applied, the listed names matching no instruction. Empty
    without the section (the RDNA manuals)."""
    parent = next((s.number for s in sections if s.title == _LIMITATIONS), None)
    if parent is None:
        return {}, [], []
    fixes = {e.target[1]: e for e in errata_mod.for_arch(arch) if e.kind == "dpp_limitation"}
    out: dict[str, list] = {}
    seen, unmatched = set(), []
    for sec in sections:
        if not sec.number.startswith(parent + "."):
            continue
        kind = None
        for ln in sec.lines:
            m = _CANNOT_USE.match(ln.text)
            if m:
                kind = m.group(1)
                continue
            item = _LISTED.match(ln.text)
            if kind is None or item is None:
                continue
            pattern = item.group(1)
            if kind == "DPP" and pattern in fixes:
                seen.add(pattern)
                continue
            hits = [d for d in instructions if d["format"] in e32 and fnmatch.fnmatchcase(d["name"], pattern)]
            if not hits:
                unmatched.append(f"{kind} {pattern} (page {ln.page})")
            rule = f"{sec.number} {sec.title}: the following instructions cannot use {kind}"
            out.setdefault(kind, []).extend((d["format"], d["name"], rule, ln.page) for d in hits)
    for name, e in fixes.items():
        if name not in seen:
            raise SpecParseError(f"erratum {e.id} is stale: the {arch} manual's {_LIMITATIONS} no longer say "
                                 f"{name} cannot use DPP")
    applied = [{"id": e.id, "page": e.page[arch], "target": ".".join(e.target), "evidence": e.evidence}
               for e in fixes.values()]
    return {k: sorted(set(v)) for k, v in out.items()}, applied, unmatched
