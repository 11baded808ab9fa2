"""Assemble parsed pieces of one manual into the data the generated modules hold."""
from __future__ import annotations

import re

from .. import errata as errata_mod
from . import dpp, facts, image_d16, instruction_facts
from ..traits import entry
from . import parse as P
from .descriptions import aperture_codes, export_targets, hwreg_writable, saddr_off
from .image_addresses import image_tables
from .inline_replicated import inline_replicated
from .vopd_twins import twin_name, vopd_twins
from .pdf import Line

MONO_CHAR_WIDTH = 4.5   # RobotoMono at 7.5pt: 0.6 em per character
# the 64-bit VALU encodings that also hold VOP1/VOP2/VOPC opcodes (RDNA: VOP3/VOP3SD, CDNA: VOP3A/VOP3B)
PROMOTED_FORMATS = ("VOP3", "VOP3SD", "VOP3A", "VOP3B")



_STATED_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)\.?\s*$")


def _stated_ranges(fields: list[tuple]) -> dict[str, tuple[int, int]]:
    """{field: (low, high)} for the fields whose text ends by stating their values' range (the
    LDSDIR/VDSDIR ATTR field: "Attribute number: 0 - 32."; RDNA4's RSRC: "in the range 0-120.")."""
    return {n: (int(m.group(1)), int(m.group(2)))
            for n, _, _, text in fields if (m := _STATED_RANGE.search(text))}

def build_spec(lines: list[Line], arch: str) -> dict:
    sections = P.split_sections(lines)
    tables = P.find_tables(sections)
    summary = P.parse_format_summary(tables)
    field_tables = P.tables_by_suffix(tables, "Fields")
    opcode_tables = P.tables_by_suffix(tables, "Opcodes")
    descriptions = _format_descriptions(sections, summary)

    own_table = {name: P.table_for_format(name, field_tables, summary) for name in summary}
    raw_fields = {name: P.parse_field_table(field_tables[key]) for name, key in own_table.items() if key}
    opcode_tables = {name: opcode_tables[key] for name in summary
                     if (key := P.table_for_format(name, opcode_tables, summary))} | \
        {key: t for key, t in opcode_tables.items() if key not in summary and "V" + key not in summary}
    # a field table whose format the summary does not list (CDNA3's SDWAB, the VOPC form of the
    # SDWA dword): its width is the dwords its fields span
    for name in sorted(set(field_tables) - set(summary) - set(own_table.values())):
        raw_fields[name] = P.parse_field_table(field_tables[name])
        lo = min(f.lo for f in raw_fields[name])
        span = max(f.hi for f in raw_fields[name]) + 1 - lo // 32 * 32
        width = -(-span // 32) * 32
        summary[name] = {"width": width, "widths": [width], "page": field_tables[name].page}
    # formats read from one shared table (RDNA4's FLAT, GLOBAL and SCRATCH Fields): an erratum
    # naming one of them corrects the table, so all of them
    sharing = {name: [n for n, k in own_table.items() if k and field_tables[k] is field_tables[key]]
               for name, key in own_table.items() if key}
    applied = _apply_errata(arch, raw_fields, sharing)

    formats = {}
    for name, info in summary.items():
        fields = raw_fields.get(name)
        fixed = {}
        if fields is None:
            fields, fixed = _inherit_segment_format(name, raw_fields)
        encoding = P.encoding_of(fields, name)
        if encoding and fixed:
            value, mask = encoding
            for fname, fvalue in fixed.items():
                f = next(f for f in fields if f.name == fname)
                value |= fvalue << f.lo
                mask |= ((1 << (f.hi - f.lo + 1)) - 1) << f.lo
            encoding = (value, mask)
        formats[name] = {
            "width": info["width"], "widths": info["widths"], "page": info["page"],
            "description": descriptions.get(name, ""),
            "encoding": encoding, "fixed": fixed,
            "fields": [(f.name, f.hi, f.lo, " ".join(f.text)) for f in sorted(fields, key=lambda f: f.lo)],
        }
        ranges = _stated_ranges(formats[name]["fields"])
        if ranges:
            formats[name]["ranges"] = ranges

    operands = {}
    for fmt, fields in raw_fields.items():
        for f in fields:
            if f.codes:
                operands.setdefault(fmt, {})[f.name] = P.classify_operand_codes(
                    f.codes, f"{fmt}.{f.name} (page {f.page})")

    _resolve_operand_references(raw_fields, operands)
    instructions, report, more_errata = _build_instructions(arch, sections, formats, raw_fields, opcode_tables)
    applied += more_errata
    tables_out, dpp_errata = _aux_tables(arch, sections, tables, instructions)
    tables_out["literal_dword"] = _literal_dwords(instructions, formats)
    tables_out["export_targets"] = export_targets(formats, operands)
    tables_out["saddr_off"] = saddr_off(formats)
    tables_out["aperture_codes"] = aperture_codes(operands)
    replicated = inline_replicated(lines, instructions)
    if replicated:
        tables_out["inline_replicated"] = replicated
    twins = vopd_twins(instructions)
    if twins:
        tables_out["vopd_twins"] = twins
    applied += dpp_errata
    no_dpp, no_dpp_errata, unmatched = dpp.no_dpp(arch, sections, tables, instructions, formats)
    if no_dpp:
        tables_out["no_dpp"] = no_dpp
    if unmatched:
        report["dpp_table_names_no_instruction"] = unmatched
    applied += no_dpp_errata
    limited, limitation_errata, unlisted = dpp.limitations(arch, sections, instructions, entry(arch).roles.valu_e32)
    if limited.get("DPP"):
        tables_out["no_dpp"] = sorted(set(tables_out.get("no_dpp", [])) | set(limited["DPP"]))
    if limited.get("SDWA"):
        tables_out["no_sdwa"] = limited["SDWA"]
    if unlisted:
        report["limitation_names_no_instruction"] = unlisted
    applied += limitation_errata
    facts_out, modifier_errata = facts.build(instructions, arch)
    applied += modifier_errata
    worked_out = instruction_facts.build(arch, instructions, tables_out, entry(arch).roles)
    applied += image_d16.apply_errata(arch, instructions, tables_out, worked_out["memory_access"]["takes_d16"])
    return {"formats": formats, "operands": operands, "instructions": instructions,
            "tables": tables_out, "errata": applied, "report": report,
            "facts": facts_out, **worked_out}


_SAME_AS_RE = re.compile(r"(?:Same (?:codes|options) as|See) ([A-Z][A-Z0-9_]*)\b")
_ONLY_CODES_RE = re.compile(r"only codes (\d+)\s*-\s*(\d+) are valid")


def _resolve_operand_references(raw_fields, operands) -> None:
    """Fields described as 'Same codes as SSRC0, above except only codes 0-127 are valid'
    (SDST), 'Same options as SRC0' (SRC1/SRC2) or 'See SRCX0 for enumerations' (VOPD SRCY0)
    get the referenced field's code table, cut to the valid range where one is stated."""
    for fmt, fields in raw_fields.items():
        for f in fields:
            text = " ".join(f.text)
            ref = _SAME_AS_RE.search(text)
            if f.codes or not ref or ref.group(1) not in operands.get(fmt, {}):
                continue
            codes = operands[fmt][ref.group(1)]
            only = _ONLY_CODES_RE.search(text)
            if only:
                lo, hi = int(only.group(1)), int(only.group(2))
                codes = [(max(c[0], lo), min(c[1], hi)) + c[2:] for c in codes if c[0] <= hi and c[1] >= lo]
            operands[fmt][f.name] = codes


def _format_descriptions(sections, summary) -> dict[str, str]:
    out = {}
    for sec in P.chapter(sections, "Microcode Formats"):
        if sec.title in summary and sec.lines and sec.lines[0].cells[0] == "Description":
            text = [" ".join(sec.lines[0].cells[1:])]
            for ln in sec.lines[1:]:
                if P.CAPTION_RE.match(ln.text) or ln.x0 < sec.lines[0].x0 + 20:
                    break
                text.append(ln.text)
            out[sec.title] = " ".join(text)
    return out


def _inherit_segment_format(name, raw_fields):
    """GLOBAL and SCRATCH have no field table of their own: the FLAT table says they
    share its layout and differ only in SEG ('0 = flat, 1 = scratch, 2 = global')."""
    for fmt, fields in raw_fields.items():
        for f in fields:
            for value, seg_name in re.findall(r"(\d+) = (\w+)", " ".join(f.text)):
                if seg_name.upper() == name:
                    return fields, {f.name: int(value)}
    raise P.SpecParseError(f"format {name} has neither a field table nor a segment value in another table")


def _apply_errata(arch, raw_fields, sharing) -> list[dict]:
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind not in ("field_bits", "code_text", "add_field"):
            continue
        fmt, fname = e.target[0], e.target[1]
        if fmt not in raw_fields:
            raise P.SpecParseError(f"erratum {e.id}: format {fmt} not in the {arch} manual")
        for each in sharing.get(fmt, [fmt]):
            page = _apply_field_erratum(e, arch, each, raw_fields[each])
        if page != e.page[arch]:
            raise P.SpecParseError(f"erratum {e.id}: the text is on page {page} of the {arch} manual, "
                                   f"the errata table says {e.page[arch]}")
        applied.append({"id": e.id, "page": page, "target": ".".join(map(str, e.target)), "evidence": e.evidence})
    return applied


def _apply_field_erratum(e, arch, fmt, fields) -> int:
    """Apply a field erratum to one format's fields; the page of the corrected text."""
    fname = e.target[1]
    field = next((f for f in fields if f.name == fname), None)
    if e.kind == "add_field":
        if field is not None:
            raise P.SpecParseError(f"erratum {e.id} is stale: the {arch} manual now lists {fmt}.{fname}")
        hi, lo, text = e.fix
        page = fields[-1].page
        fields.append(P.RawField(fname, hi, lo, [text], [], page))
    elif field is None:
        raise P.SpecParseError(f"erratum {e.id}: field {fmt}.{fname} not found")
    elif e.kind == "field_bits":
        page = field.page
        if (field.hi, field.lo) != e.pdf:
            raise P.SpecParseError(f"erratum {e.id} is stale: {fmt}.{fname} is now [{field.hi}:{field.lo}]")
        field.hi, field.lo = e.fix
    elif e.kind == "code_text":
        code = e.target[2]
        idx = next((i for i, c in enumerate(field.codes) if c[0] == code == c[1]), None)
        if idx is None or field.codes[idx][2] != e.pdf:
            raise P.SpecParseError(f"erratum {e.id} is stale: {fmt}.{fname} code {code} no longer reads '{e.pdf}'")
        field.codes[idx] = (code, code, e.fix)
        page = field.page
    else:
        raise P.SpecParseError(f"erratum {e.id}: unknown kind {e.kind}")
    return page


def _opcode_lists(raw_fields, opcode_tables):
    """Opcode tables by key ('SOP2', 'VOPDX', ...), and the enumerations some OP fields
    carry inline (LDSDIR: '0: LDS_DIRECT_LOAD'), which are only cross-checked."""
    lists = {key: P.parse_opcode_table(t) for key, t in opcode_tables.items()}
    enums = {}
    for fmt, fields in raw_fields.items():
        for f in fields:
            if f.name == "OP" and fmt not in lists:
                found = dict((m.group(2), int(m.group(1))) for m in
                             (re.match(r"^(\d+): ([A-Z][A-Z0-9_]+)$", t) for t in f.text) if m)
                if found:
                    enums[fmt] = (found, f.page)
    return lists, enums


def _single_opcode_formats(sections, formats) -> list[tuple[str, str, int]]:
    """'The export format has only a single opcode, "EXPORT".' -> [('EXP', 'EXPORT', page)]"""
    out = []
    for sec in P.chapter(sections, "Microcode Formats"):
        if sec.title in formats:
            for ln in sec.lines:
                m = re.search(r'only a single opcode, "([A-Z_]+)"', ln.text)
                if m:
                    out.append((sec.title, m.group(1), ln.page))
    return out


def _apply_opcode_errata(arch, lists, opcode_tables):
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind != "add_opcode":
            continue
        fmt, name = e.target
        if fmt not in lists:
            raise P.SpecParseError(f"erratum {e.id}: no {fmt} opcode table in the {arch} manual")
        if any(n == name or op == e.fix for op, n, _ in lists[fmt]):
            raise P.SpecParseError(f"erratum {e.id} is stale: the {arch} {fmt} table now lists {name} or opcode {e.fix}")
        page = opcode_tables[fmt].page
        if page != e.page[arch]:
            raise P.SpecParseError(f"erratum {e.id}: the {fmt} opcode table is on page {page} of the {arch} "
                                   f"manual, the errata table says {e.page[arch]}")
        lists[fmt].append((e.fix, name, page))
        applied.append({"id": e.id, "page": page, "target": ".".join(e.target), "evidence": e.evidence})
    return applied


def _native_opcodes(lists) -> dict[str, tuple[str, int]]:
    """{name: (VOP1/VOP2/VOPC, opcode)} of the instructions with a 32-bit VALU encoding."""
    return {name: (key, opcode) for key in ("VOP1", "VOP2", "VOPC") for opcode, name, _ in lists.get(key, [])}


def _apply_promotion_errata(arch, lists, opcode_tables, native_of):
    """promoted_offset errata: a VOP3 opcode table whose rows for one native format sit at
    another offset than the one the text states (CDNA3 lists VOP1 at +0x180, not +0x140).
    Applied only if every such row is at the quoted wrong offset."""
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind != "promoted_offset":
            continue
        fmt, native = e.target
        rows = [(i, op, name) for i, (op, name, _) in enumerate(lists.get(fmt, []))
                if native_of.get(name, (None,))[0] == native]
        if not rows or any(op != native_of[name][1] + e.pdf for _, op, name in rows):
            raise P.SpecParseError(f"erratum {e.id} is stale: the {arch} {fmt} table no longer lists "
                                   f"{native} opcodes at +{e.pdf:#x}")
        page = opcode_tables[fmt].page
        if page != e.page[arch]:
            raise P.SpecParseError(f"erratum {e.id}: the {fmt} opcode table is on page {page} of the "
                                   f"{arch} manual, the errata table says {e.page[arch]}")
        for i, op, name in rows:
            lists[fmt][i] = (native_of[name][1] + e.fix, name, lists[fmt][i][2])
        applied.append({"id": e.id, "page": page, "target": ".".join(e.target), "evidence": e.evidence})
    return applied


def _check_opcode_enums(arch, enums, instructions):
    applied = []
    by_fmt = {(d["format"], d["name"]): d["opcode"] for d in instructions}
    for e in errata_mod.for_arch(arch):
        if e.kind == "opcode_enum" and (e.target[0] not in enums or enums[e.target[0]][0] != e.pdf):
            raise P.SpecParseError(f"erratum {e.id} is stale: {e.target[0]}.OP no longer reads {e.pdf}")
    for fmt, (enum, page) in enums.items():
        actual = {name: by_fmt.get((fmt, name)) for name in enum}
        if actual == enum:
            continue
        e = next((e for e in errata_mod.for_arch(arch) if e.kind == "opcode_enum" and e.target[0] == fmt), None)
        if e is None or e.pdf != enum or e.page[arch] != page:
            raise P.SpecParseError(f"{fmt}.OP enumeration on page {page} says {enum} but the Instructions "
                                   f"chapter gives {actual}; add or fix an opcode_enum erratum")
        applied.append({"id": e.id, "page": page, "target": ".".join(e.target), "evidence": e.evidence})
    return applied


def _section_format(section_title: str, sections, formats) -> str | None:
    """Format of an Instructions-chapter section: the format section under the Microcode
    Formats section of the same title ('Parameter and Direct Load from LDS' -> LDSDIR), or
    a format named by a word of the title ('EXPORT Instructions' -> EXP)."""
    title = re.sub(r"\s+Instructions$", "", section_title)
    fmt_chapter = P.chapter(sections, "Microcode Formats")
    for sec in fmt_chapter:
        if sec.title.lower() == title.lower():
            children = [s.title for s in fmt_chapter if s.number.startswith(sec.number + ".") and s.title in formats]
            if len(children) == 1:
                return children[0]
    for w in re.findall(r"[A-Za-z0-9]+", title.upper()):
        for fmt in sorted(formats, key=len, reverse=True):
            if w == fmt or (w.startswith(fmt) and len(fmt) >= 3):
                return fmt
    return None


def _build_instructions(arch, sections, formats, raw_fields, opcode_tables):
    raw = P.parse_instructions(sections)
    by_name: dict[str, list[P.RawInstruction]] = P.group_by(raw, lambda r: r.name)
    lists, enums = _opcode_lists(raw_fields, opcode_tables)
    applied = _apply_promotion_errata(arch, lists, opcode_tables, _native_opcodes(lists))
    applied += _apply_opcode_errata(arch, lists, opcode_tables)
    for fmt, name, page in _single_opcode_formats(sections, formats):
        lists.setdefault(fmt, []).append((0, name, page))
    promoted_offset = _promotion_offsets(sections)

    native_of = _native_opcodes(lists)

    out, seen = [], set()
    for key in sorted(lists):
        fmt, slot = (key[:-1], key[-1]) if key in ("VOPDX", "VOPDY") else (key, None)
        for opcode, name, page in lists[key]:
            if (fmt, slot, opcode) in seen:
                raise P.SpecParseError(f"{key} opcode {opcode} listed twice (page {page})")
            seen.add((fmt, slot, opcode))
            out.append(_instr(name, fmt, opcode, page, slot, by_name, native_of, promoted_offset))

    # Entries of the Instructions chapter that no opcode table lists (EXP's single opcode).
    listed = {d["name"] for d in out}
    only_in_chapter = []
    for r in raw:
        if r.name in listed:
            continue
        fmt = _section_format(r.section.split(" ", 1)[1], sections, formats)
        if fmt is None:
            raise P.SpecParseError(f"{r.name} (page {r.page}) is in no opcode table and its section "
                                   f"'{r.section}' names no format")
        only_in_chapter.append(r.name)
        out.append(_instr(r.name, fmt, r.opcode, r.page, None, by_name, native_of, promoted_offset))
        listed.add(r.name)

    mismatched = [(d["name"], d["format"], d["opcode"], d["promoted_from"])
                  for d in out if d["promoted_from"] and
                  d["opcode"] != native_of[d["name"]][1] + promoted_offset.get(d["promoted_from"], d["opcode"])]
    if mismatched:
        raise P.SpecParseError(f"VOP3 opcodes of promoted instructions disagree with the stated offsets: {mismatched[:5]}")

    applied += _check_opcode_enums(arch, enums, out)
    applied += _apply_pcode_errata(arch, out)
    _check_code(arch, out)
    same_as = _inherit_same_as_types(out)
    compare_family = _inherit_compare_family_types(out)
    vopd_twins = _inherit_vopd_twin_types(out)
    report = {
        "without_description": sorted({d["name"] for d in out if d["description"] is None}),
        "only_in_instructions_chapter": only_in_chapter,
        "promotion_offsets": promoted_offset,
        "chapter_entries": len(raw),
        "chapter_entries_with_pcode_block": sorted({r.name for r in raw if r.pcode}),
        "operand_types_from_same_as": same_as,
        "operand_types_from_compare_family": compare_family,
        "operand_types_from_vopd_twin": vopd_twins,
    }
    return out, report, applied


def _instr(name, fmt, opcode, page, slot, by_name, native_of, promoted_offset):
    entries = by_name.get(name, [])
    # The entry at this opcode; where it has no pseudocode, the same instruction's entry in
    # another encoding's section that has (the CDNA3 conversion lost some VOPC/VOP1 code blocks
    # that the VOP3A section keeps)
    entry = next((r for r in entries if r.opcode == opcode and r.pcode),
                 next((r for r in entries if r.opcode == opcode), entries[0] if entries else None))
    if entry is not None and not entry.pcode:
        entry = next((r for r in entries if r.pcode), entry)
    pcode = P.normalise_pcode(entry.pcode, MONO_CHAR_WIDTH) if entry else None
    promoted = native_of[name][0] if fmt in PROMOTED_FORMATS and name in native_of else None
    return {
        "name": name, "format": fmt, "opcode": opcode, "slot": slot, "page": page,
        "promoted_from": promoted,
        "description": " ".join(entry.description) if entry else None,
        "notes": "\n".join(entry.notes) if entry and entry.notes else None,
        "pcode": pcode,
        "pcode_page": entry.page if entry else None,
        "operand_types": P.operand_types(pcode),
    }


def _apply_pcode_errata(arch, instructions) -> list[dict]:
    """pcode_text errata: replace the quoted text of an instruction's pseudocode (all its
    encodings) and type its operands again from the corrected text."""
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind == "add_description":
            applied.append(_apply_description_erratum(arch, e, instructions))
            continue
        if e.kind not in ("pcode_text", "add_pcode"):
            continue
        fmt, name = e.target
        hits = [d for d in instructions if d["name"] == name and d["format"] in (fmt,) + PROMOTED_FORMATS]
        if e.kind == "add_pcode":
            if not hits or any(d["pcode"] for d in hits):
                raise P.SpecParseError(f"erratum {e.id} is stale: the {arch} manual now gives {name} pseudocode")
        elif not hits or any(e.pdf not in (d["pcode"] or "") for d in hits):
            raise P.SpecParseError(f"erratum {e.id} is stale: {name}'s pseudocode no longer reads {e.pdf!r}")
        page = hits[0]["pcode_page"] or hits[0]["page"]     # (an undescribed instruction: its opcode table's)
        if page != e.page[arch]:
            raise P.SpecParseError(f"erratum {e.id}: {name}'s pseudocode is on page {page} of the {arch} "
                                   f"manual, the errata table says {e.page[arch]}")
        for d in hits:
            d["pcode"] = e.fix if e.kind == "add_pcode" else d["pcode"].replace(e.pdf, e.fix)
            d["operand_types"] = P.operand_types(d["pcode"])
        applied.append({"id": e.id, "page": page, "target": ".".join(e.target), "evidence": e.evidence})
    return applied


def _check_code(arch, instructions) -> None:
    """Every pseudocode block parses (isa/pcode/pcode.lark, as gen/effects.code_text reads it)
    unless isa.errata.NOT_CODE says on which page it is not code, and what it is instead."""
    from ..errata import NOT_CODE
    from ..pcode.grammar import PcodeSyntaxError, parse
    from .effects import code_text, tree
    for d in instructions:
        if not d["pcode"]:
            continue
        pages, kind, start = NOT_CODE.get(d["name"], ({}, None, None))
        page = d["pcode_page"] or d["page"]
        if arch in pages and page != pages[arch]:
            raise P.SpecParseError(f"isa.errata.NOT_CODE: {d['name']}'s pseudocode is on page {page} of the "
                                   f"{arch} manual, the table says {pages[arch]}")
        parsed = tree(d["pcode"]) is not None
        if arch in pages and (parsed != (kind == "prose before code") or start and start not in d["pcode"]):
            raise P.SpecParseError(f"isa.errata.NOT_CODE is stale: {d['name']}'s pseudocode (page {page} of the "
                                   f"{arch} manual) {'now parses' if parsed else 'does not parse after ' + repr(start)}")
        if arch not in pages and not parsed:
            try:
                parse(code_text(d["pcode"]), d["name"])
            except PcodeSyntaxError as e:
                raise P.SpecParseError(f"{e} (page {page} of the {arch} manual): extend isa/pcode/pcode.lark, or "
                                       f"say in isa.errata.NOT_CODE what the block is if it is not code") from None


def _apply_description_erratum(arch, e, instructions) -> dict:
    """add_description: an instruction the manual does not describe (its opcode added by an
    add_opcode erratum) gets the erratum's description; its page is the opcode table's."""
    fmt, name = e.target
    hits = [d for d in instructions if d["name"] == name and d["format"] == fmt]
    if not hits or any(d["description"] for d in hits):
        raise P.SpecParseError(f"erratum {e.id} is stale: the {arch} manual now describes {name}")
    if hits[0]["page"] != e.page[arch]:
        raise P.SpecParseError(f"erratum {e.id}: {name}'s opcode table is on page {hits[0]['page']} of the "
                               f"{arch} manual, the errata table says {e.page[arch]}")
    for d in hits:
        d["description"] = e.fix
    return {"id": e.id, "page": hits[0]["page"], "target": ".".join(e.target), "evidence": e.evidence}


_SAME_AS_INSTR_RE = re.compile(r"^Same as ([A-Z][A-Z0-9_]+) except\b")


def _inherit_same_as_types(instructions) -> dict[str, str]:
    """Entries without pseudocode whose description reads 'Same as V_INTERP_P10_F16_F32 except
    rounding mode is ...' take the operand types of the instruction they name (only the types:
    the pseudocode stays absent, since the behaviour differs)."""
    by_key = {(d["format"], d["name"]): d for d in instructions}
    out = {}
    for d in instructions:
        m = _SAME_AS_INSTR_RE.match(d["description"] or "")
        base = by_key.get((d["format"], m.group(1))) if m and not d["pcode"] else None
        if base and base["operand_types"]:
            d["operand_types"] = dict(base["operand_types"])
            out[d["name"]] = base["name"]
    return dict(sorted(out.items()))


# a compare whose code sets every lane to a constant (F: 1'0U, TRU/T: 1'1U) and names no source
_CONSTANT_COMPARE_RE = re.compile(r"^(?:EXEC\.u64\[laneId\] = )?(?:D0\.u64\[laneId\] = )?1'([01])U;?(?:\n//[^\n]*)?$")


def _inherit_compare_family_types(instructions) -> dict[str, str]:
    """Compares whose code names no source (V_CMP_F_*, V_CMP_T(RU)_*: 'D0.u64[laneId] = 1'0U')
    take the source types of the next compare of their family. The manuals' VOPC section: 'The
    final opcode number is determined by adding the base for the opcode family plus the offset
    from the compare op', a family being one data type, and its Comparison Operations table puts
    F at offset 0 and TRU at the last offset: F's family goes on at the next opcode, TRU's ended
    at the previous one (RDNA3 pages 164-165, Table 81; RDNA3.5 pages 166-167; CDNA3 Table 80;
    RDNA4 Table 90). The types are recorded in the report's operand_types_from_compare_family."""
    by_opcode = {(d["format"], d["opcode"]): d for d in instructions}
    out = {}
    for d in instructions:
        m = _CONSTANT_COMPARE_RE.match(d["pcode"] or "")
        if not m or "S0" in d["operand_types"]:
            continue
        step = 1 if m.group(1) == "0" else -1
        family = by_opcode.get((d["format"], d["opcode"] + step))
        typed = family and {k: family["operand_types"].get(k) for k in ("S0", "S1")}
        if not typed or None in typed.values() or "laneId" not in (family["pcode"] or ""):
            raise P.SpecParseError(f"{d['name']} ({d['format']} opcode {d['opcode']}): the compare at opcode "
                                   f"{d['opcode'] + step} names no typed sources to take")
        d["operand_types"] = {**d["operand_types"], **typed}
        out[d["name"]] = family["name"]
    return dict(sorted(out.items()))


def _inherit_vopd_twin_types(instructions) -> dict[str, str]:
    """A VOPD half, which has no code of its own, performs the VOP1/VOP2 instruction of its name
    without V_DUAL_ (the manuals describe the two in the same words: V_DUAL_MUL_F32 and V_MUL_F32
    'Multiply two floating point inputs and store the result into a vector register'): it takes
    that instruction's operand types (only the types, as for 'Same as'; the decoder reads the
    twin's code the same way, _literal_dwords). A half without one (V_DUAL_DOT2ACC_F32_BF16) keeps
    its own."""
    twins = {}
    for d in instructions:
        if d["format"] in ("VOP2", "VOP1", "VOP3") and d["operand_types"]:
            twins.setdefault(d["name"], d)
    out = {}
    for d in instructions:
        twin = twins.get(twin_name(d["name"])) if d["format"] == "VOPD" else None
        if twin and not d["pcode"] and not d["operand_types"]:
            d["operand_types"] = dict(twin["operand_types"])
            out[d["name"]] = twin["name"]
    return dict(sorted(out.items()))


def _promotion_offsets(sections) -> dict[str, int]:
    """'16.8.1. VOP1 using VOP3 encoding ... The VOP3 opcode is: VOP2 opcode + 0x180.'"""
    out = {}
    for sec in P.chapter(sections, "Instructions"):
        m = re.match(r"^([A-Z0-9]+) using VOP3", sec.title)
        if m:
            text = " ".join(ln.text for ln in sec.lines)
            off = re.search(r"VOP3 opcode is: \w+ opcode \+ (0x[0-9A-Fa-f]+)", text)
            if off:
                out[m.group(1)] = int(off.group(1), 16)
    return out


def _aux_tables(arch, sections, tables, instructions) -> tuple[dict, list[dict]]:
    hwreg = P.parse_hwreg_table(sections)
    out = {"hwreg": [row[:3] for row in hwreg], "hwreg_writable": hwreg_writable(hwreg)}
    applied = []
    by_title = {t.title: t for t in tables}
    for key, title in (("status", "Status Register Fields"), ("mode", "Mode Register Fields")):
        if title in by_title:
            out[key] = P.parse_register_fields(by_title[title])
    if "DPP_CTRL Enumeration" in by_title:
        table = by_title["DPP_CTRL Enumeration"]
        # the Markdown conversions keep a name cell per row but move the codes about
        dpp_ctrl = P.parse_dpp_ctrl(table) or P.parse_dpp_ctrl_cells(table)
        dpp_ctrl, applied = _apply_dpp_ctrl_errata(arch, table, dpp_ctrl)
        out["dpp_ctrl"] = dpp_ctrl
    if "Sample Instruction Suffix Key" in by_title:
        out["sample_suffixes"] = P.parse_sample_suffixes(by_title["Sample Instruction Suffix Key"], sections)
    images, image_errata = image_tables(sections, arch)
    out.update(images)
    d16 = image_d16.parse_d16_field(sections)
    if d16:
        out["image_d16_opcodes"] = d16
    applied = applied + image_errata
    if "Buffer and Image Data Formats" in by_title:
        out["data_formats"] = P.parse_data_formats(by_title["Buffer and Image Data Formats"])
    elif dfmt := P.parse_field_codes(tables, "DFMT"):
        # GFX9 (CDNA): a data format (DFMT) and a number format (NFMT), from the field descriptions
        out["data_formats"] = [(code, name, *P.data_format_layout(name), page) for code, name, page in dfmt]
        out["number_formats"] = P.parse_field_codes(tables, "NFMT")
    mfma = P.parse_mfma(instructions)
    if mfma:
        out["mfma"] = mfma
    waitcnt = next((d for d in instructions if d["name"] == "S_WAITCNT"), None)
    if waitcnt and waitcnt["description"]:
        layout = P.parse_simm16_layout(_split_sentences(waitcnt))
        if not layout and waitcnt["pcode"]:
            layout = P.parse_simm16_counters(waitcnt["pcode"].splitlines())
        out["waitcnt"] = layout
    return out, applied


def _literal_dwords(instructions, formats) -> list[tuple[str, str]]:
    """(format, name) of each instruction a 32-bit literal dword always follows, whatever its
    operands: its code reads SIMM32 (s_fmaak_f32, s_setreg_imm32_b32, v_fmaak_f32), or a constant K
    (SIMM16) its format has no field for (CDNA's v_madmk_f16: VOP2 has none); a VOPD half, which
    has no code of its own, as the instruction it performs (V_DUAL_FMAAK_F32: V_FMAAK_F32's code).
    The decoder reads this instead of the pseudocode (isa.effects' literal and constant_at)."""
    from .effects import effects
    code = {}
    for d in instructions:
        if d["pcode"] and d["format"] != "VOPD":
            code.setdefault(d["name"], d["pcode"])
    out = set()
    for d in instructions:
        pcode = d["pcode"] or (code.get(twin_name(d["name"])) if d["format"] == "VOPD" else None)
        if not pcode:
            continue
        fx = effects(pcode)
        fields = {name for name, *_ in formats[d["format"]]["fields"]}
        if fx.literal or (fx.constant_at is not None and not fields & {"SIMM16", "SIMM32"}):
            out.add((d["format"], d["name"]))
    return sorted(out)


def _apply_dpp_ctrl_errata(arch, table, rows):
    """dpp_ctrl_range errata: a DPP_CTRL row whose code range the document does not state
    completely (rows with hi None); every such row must have an erratum."""
    applied, out = [], []
    fixes = {e.target[1]: e for e in errata_mod.for_arch(arch) if e.kind == "dpp_ctrl_range"}
    for name, lo, hi, desc in rows:
        e = fixes.pop(name, None)
        if e is not None:
            if hi is not None or lo != e.pdf:
                raise P.SpecParseError(f"erratum {e.id} is stale: {name} now reads {lo:#x}-{hi}")
            if table.page != e.page[arch]:
                raise P.SpecParseError(f"erratum {e.id}: the DPP_CTRL table is on page {table.page} of the "
                                       f"{arch} manual, the errata table says {e.page[arch]}")
            lo, hi = e.fix
            applied.append({"id": e.id, "page": table.page, "target": ".".join(e.target), "evidence": e.evidence})
        elif hi is None:
            raise P.SpecParseError(f"DPP_CTRL {name} (page {table.page}): the code range {lo:#x}- has no end; "
                                   f"add a dpp_ctrl_range erratum")
        out.append((name, lo, hi, desc))
    if fixes:
        raise P.SpecParseError(f"erratum {next(iter(fixes.values())).id}: no DPP_CTRL row {next(iter(fixes))}")
    return out, applied


def _split_sentences(instr) -> list[str]:
    # descriptions are joined with spaces; the layout lines are recognisable by 'X = SIMM16[..]'
    return re.findall(r"\w+ = SIMM16\[\d+:\d+\]", instr["description"])
