"""The image address tables of the manuals' image chapter, read into generated tables.

  * "Image Opcodes with No Sampler" / "with a Sampler" (RDNA3 10.2-10.3, pages 107-110): per
    opcode group, A16 and surface type, the ACNT and the components each address VGPR holds
    -> tables["image_addresses"]: (opcodes, a16, type, acnt, components, page), e.g.
    (('LOAD', 'LOAD_PCK', ...), 0, '3D', 2, ('s', 't', 'r'), 108). With A16 a VGPR holds two
    components, written "hi, lo" ("t, s": s in the low half, "-" none); the components are
    listed low half first, so both A16 rows of a type list the same ones.
  * "32-bit derivatives" (10.4, page 111) -> tables["image_derivatives"]: (type, slopes, page),
    ('2D/cube', ('dx/dh', 'dy/dh', 'dx/dv', 'dy/dv'), 111).
  * the DIM field ("Surface Dimension: 0: 1D ... 7: 2d msaa array", 10.1's Instruction Fields)
    -> tables["image_dims"]: (code, name, coordinates, derivatives, page): a type's coordinates
    are the components every row of its type holds but the mip level, lod and clamp the opcode
    adds; its derivatives the 32-bit table's row with one axis per spatial coordinate (s, t, r;
    a cube's face, an array's slice and a fragment id take none), held against the row labels
    ('2D/cube') and the 16-bit table's ("2 (2D, 2D Array, Cubemap)").

The Markdown conversion (RDNA4) keeps the rows but moves cells: an opcode label after the type
("0 1D LOAD LOAD_PCK"), columns merged ("t r"), and whole column groups stacked in one row ("ATOMIC 0
| 1D 2D 3D ... | 0 1 2 ... | s s s ... | t t slice ..."), which `_unstack` deals out again row by row
by each row's VGPR count; labels it lost leave the group's opcodes empty. Rows whose counts or
components do not add up stop the generator (SpecParseError naming the page)."""
from __future__ import annotations

import re

from ..errata import for_arch
from .parse import TABLE_TEXT_MAX_SIZE, Section, SpecParseError

_TYPE_RE = re.compile(r"(?<!\S)(2D Array MSAA|Cube/Cube Array|Cube\(Array\)|1D Array|2D Array|2D MSAA|1D|2D|3D|Any)(?!\S)")
_TOKEN_RE = re.compile(r"[^\s,]+, [^\s,]+|\S+")            # "t, s" is one A16 VGPR
_LABEL_RE = re.compile(r'^(?:[A-Z][A-Za-z0-9_]*|"_[A-Z0-9]+":?)$')
_NUMBER_RE = re.compile(r"^(?:\d|x)$")
_COMPONENT_RE = re.compile(r"^[a-z]+$")
OPCODE_ADDS = ("mipid", "lod", "clamp")    # components an opcode adds to its type's coordinates
SPATIAL = ("s", "t", "r")                   # the coordinates a slope is taken along
_SLOPE_RE = re.compile(r"^d([xyz])/d([hv])$")


def type_key(name: str) -> tuple[str, ...]:
    """One spelling of a surface type for the DIM field's names and the tables' ('2d msaa array',
    '2D Array MSAA'; 'cube', 'Cube/Cube Array', 'Cube(Array)', 'Cubemap')."""
    words = name.lower().replace("cube/cube array", "cube").replace("cube(array)", "cube").replace("cubemap", "cube")
    return tuple(sorted(words.split()))


def _label(token: str) -> str:
    return token.strip('":')             # Sample "_L": -> Sample, _L


class _Group:
    def __init__(self, opcodes):
        self.opcodes = list(opcodes)


def _components(tokens: list[str], a16: int, where: str) -> tuple[tuple[str, ...], int]:
    """(components low half first, VGPRs) of a row's VGPR tokens."""
    out = []
    for tok in tokens:
        parts = [p.strip() for p in tok.split(",")]
        if (len(parts) == 2) != bool(a16) or not all(_COMPONENT_RE.match(p) or p == "-" for p in parts):
            raise SpecParseError(f"{where}: {tok!r} is no {'A16 pair' if a16 else 'component'}")
        out += [p for p in reversed(parts) if p != "-"]
    return tuple(out), len(tokens)


def _check(row, vgprs: int, where: str) -> None:
    _, a16, kind, acnt, comps, _ = row
    words = -(-(acnt + 1) // 2) if a16 == 1 else acnt + 1
    if len(comps) != acnt + 1 or vgprs != words:
        raise SpecParseError(f"{where}: {kind} acnt {acnt} (A16 {a16}) but components {comps} in {vgprs} VGPRs")


def _unstack(cells, sampler: bool, group, a16_now, page, where):
    """Rows of one Markdown row that holds a column group stacked: types in one cell, their ACNTs
    in another, then one cell per VGPR column holding the entries of the rows that reach it."""
    at = next(i for i, c in enumerate(cells) if len(_TYPE_RE.findall(c)) > 1)
    kinds = _TYPE_RE.findall(cells[at])
    pre = _TOKEN_RE.findall(" ".join(cells[:at]))
    post = list(cells[at + 1:])
    labels = [t for t in pre if _LABEL_RE.match(t)]
    numbers = [t for t in pre if _NUMBER_RE.match(t)]
    if not sampler:
        numbers += post.pop(0).split()
    a16s, acnts = numbers[:len(numbers) - len(kinds)], [int(n) for n in numbers[len(numbers) - len(kinds):]]
    if len(acnts) != len(kinds) or len(a16s) > 2 or (a16s and len(kinds) % len(a16s)):
        raise SpecParseError(f"{where}: stacked row {cells!r}: {len(kinds)} types, numbers {numbers}")
    if labels or (a16s and a16s[0] == "0"):
        group = _Group([_label(t) for t in labels])
    a16s = [int(a) for a in a16s] or [a16_now]
    per = len(kinds) // len(a16s)
    a16_of = [a16s[i // per] for i in range(len(kinds))]
    words = [-(-(n + 1) // 2) if a else n + 1 for n, a in zip(acnts, a16_of)]
    entries: list[list[str]] = [[] for _ in kinds]
    for k, cell in enumerate(post):
        reach = [i for i in range(len(kinds)) if words[i] > k]
        toks = _TOKEN_RE.findall(cell)
        if len(toks) != len(reach):
            raise SpecParseError(f"{where}: VGPR column {k} {cell!r} has {len(toks)} entries for {len(reach)} rows")
        for i, tok in zip(reach, toks):
            entries[i].append(tok)
    rows = []
    for i, kind in enumerate(kinds):
        comps, vgprs = _components(entries[i], a16_of[i], where)
        row = (group, a16_of[i], kind, acnts[i], comps, page)
        _check(row, vgprs, where)
        rows.append(row)
    return rows, group, a16_of[-1]


def parse_address_table(section: Section, fixes: dict, applied: list) -> list[tuple]:
    """The rows of one "Image Opcodes with ..." section's table(s), as the module docstring says;
    a group without an opcode label takes it from its image_opcodes erratum (`fixes`: {(section
    title, first row's components): Erratum}, each one used appended to `applied`)."""
    rows, group, a16 = [], None, None
    sampler, started = False, False
    for ln in section.lines:
        where = f"'{section.title}' page {ln.page}"
        if ln.font == "bold" and ln.text.startswith("Opcode"):
            words = ln.text.split()
            sampler = words.index("acnt") < words.index("type")     # its columns: a16, acnt, type
            started = True
            continue
        if not started:
            continue
        if ln.size >= TABLE_TEXT_MAX_SIZE:
            break
        text = ln.text
        kinds = _TYPE_RE.findall(text)
        if len(kinds) > 1:
            new, group, a16 = _unstack(ln.cells, sampler, group, a16, ln.page, where)
            rows += new
            continue
        if not kinds:
            toks = text.split()
            if "[31:0]" in text:               # the Markdown's second header row
                continue
            if group is None or not all(_LABEL_RE.match(t) for t in toks):
                raise SpecParseError(f"{where}: unreadable image address row {text!r}")
            group.opcodes += [_label(t) for t in toks]    # a label cell of its own (LOAD_PCK_SGN)
            continue
        m = _TYPE_RE.search(text)
        pre, post = _TOKEN_RE.findall(text[:m.start()]), _TOKEN_RE.findall(text[m.end():])
        labels = [t for t in pre if _LABEL_RE.match(t)]
        numbers = [t for t in pre if _NUMBER_RE.match(t)]
        if len(labels) + len(numbers) != len(pre):
            raise SpecParseError(f"{where}: unreadable image address row {text!r}")
        if not sampler:
            while post and _LABEL_RE.match(post[0]):      # the Markdown's "3D STORE | 2 | ..."
                labels.append(post.pop(0))
            if not post or not post[0].isdigit():
                raise SpecParseError(f"{where}: no ACNT after the type in {text!r}")
            numbers.append(post.pop(0))
        if not 1 <= len(numbers) <= 2:
            raise SpecParseError(f"{where}: {numbers} in {text!r}: expected [A16] and ACNT")
        if len(numbers) == 2:                   # a group's first row, or its A16 half's
            a16_text = numbers[0]
            if labels or a16_text in ("0", "x") or group is None:
                group = _Group([])
            a16 = None if a16_text == "x" else int(a16_text)
        group.opcodes += [_label(t) for t in labels]
        comps, vgprs = _components(post, a16 or 0, where)
        row = (group, a16, m.group(1), int(numbers[-1]), comps, ln.page)
        _check(row, vgprs, where)
        rows.append(row)
    if not rows:
        raise SpecParseError(f"'{section.title}' (page {section.page}): no image address table")
    _check_a16_halves(rows)
    firsts: dict = {}
    for group, *rest in rows:
        firsts.setdefault(id(group), (group, rest))
    for group, (_, _, _, comps, page) in firsts.values():
        e = fixes.pop((section.title, comps), None)
        if e is None and not group.opcodes:
            raise SpecParseError(f"'{section.title}' page {page}: the rows from {comps} have no opcode label; "
                                 f"add an image_opcodes erratum")
        if e is not None:
            if tuple(group.opcodes) != e.pdf:
                raise SpecParseError(f"erratum {e.id} is stale: the rows from {comps} are labelled {group.opcodes}")
            group.opcodes = list(e.fix)
            applied.append({"id": e.id, "page": page, "target": f"{section.title}.{' '.join(comps)}",
                            "evidence": e.evidence})
    return [(tuple(g.opcodes), *rest) for g, *rest in rows]


def _table_after(sections: list[Section], marker: str):
    """(rows, page) of the table after the line `marker` (a run-in heading)."""
    for sec in sections:
        for i, ln in enumerate(sec.lines):
            if ln.text == marker:
                rows = []
                for row in sec.lines[i + 2:]:           # past the column headers
                    if row.size >= TABLE_TEXT_MAX_SIZE or row.font == "bold":
                        break
                    rows.append(row)
                return rows, ln.page
    raise SpecParseError(f"'{marker}' table not found")


def parse_derivatives(sections: list[Section]) -> list[tuple[str, tuple[str, ...], int]]:
    """The 32-bit derivatives table: (type, slopes, page); each row's slopes are dX/dh for each
    of its axes, then dX/dv."""
    rows, _ = _table_after(sections, "32-bit derivatives:")
    out = []
    for row in rows:
        slopes = tuple(c for c in row.cells[1:] if c not in ("-", "—", ""))
        axes = [m.group(1) for m in map(_SLOPE_RE.match, slopes) if m and m.group(2) == "h"]
        if any(not _SLOPE_RE.match(s) for s in slopes) or slopes != tuple(
                f"d{a}/d{h}" for h in "hv" for a in axes):
            raise SpecParseError(f"32-bit derivatives (page {row.page}): row {row.cells!r}")
        out.append((row.cells[0], slopes, row.page))
    return out


def _derivative_types(sections: list[Section]) -> dict[tuple, int]:
    """The 16-bit derivatives table's labels, "2 (2D, 2D Array, Cubemap)": {type: axes}."""
    rows, _ = _table_after(sections, "16-bit derivatives:")
    out = {}
    for row in rows:
        m = re.match(r"^(\d) \((.+)\)$", row.cells[0])
        if not m:
            raise SpecParseError(f"16-bit derivatives (page {row.page}): label {row.cells[0]!r}")
        for name in m.group(2).split(","):
            out[type_key(name)] = int(m.group(1))
    return out


def parse_dim_field(sections: list[Section]) -> tuple[list[tuple[int, str]], int]:
    """The DIM field's codes in the image chapter's Instruction Fields table ('DIM' '3' 'Surface
    Dimension:' and its '0: 1D' '4: 1d array' lines, or all in one cell): ([(code, name)], page)."""
    sec = next((s for s in sections if s.title == "Image Instructions"), None)
    if sec is not None:
        for i, ln in enumerate(sec.lines):
            if ln.cells[:2] == ("DIM", "3") and ln.size < TABLE_TEXT_MAX_SIZE:
                text = " ".join(ln.cells[2:])
                for more in sec.lines[i + 1:]:
                    if more.x0 <= ln.x0 or more.size >= TABLE_TEXT_MAX_SIZE:
                        break
                    text += " " + " ".join(more.cells)
                codes = sorted((int(c), n.strip()) for c, n in re.findall(r"(\d): (.+?)(?=\s+\d:|$)", text))
                if [c for c, _ in codes] != list(range(8)):
                    raise SpecParseError(f"DIM field (page {ln.page}): codes {codes}")
                return codes, ln.page
    raise SpecParseError("the image chapter's DIM field ('Surface Dimension: 0: 1D ...') not found")


def image_tables(sections: list[Section], arch: str) -> tuple[dict[str, list], list[dict]]:
    """(tables["image_addresses"], ["image_derivatives"] and ["image_dims"], the errata applied)
    of a manual with an image chapter (none for one without: CDNA)."""
    titled = {s.title: s for s in sections}
    if "Image Opcodes with No Sampler" not in titled:
        return {}, []
    fixes = {e.target: e for e in for_arch(arch) if e.kind == "image_opcodes"}
    applied: list[dict] = []
    rows = (parse_address_table(titled["Image Opcodes with No Sampler"], fixes, applied) +
            parse_address_table(titled["Image Opcodes with a Sampler"], fixes, applied))
    if fixes:
        raise SpecParseError(f"erratum {next(iter(fixes.values())).id}: no such group of image address rows")
    derivatives = parse_derivatives(sections)
    axes_of = _derivative_types(sections)
    codes, page = parse_dim_field(sections)
    dims = []
    for code, name in codes:
        key = type_key(name)
        seen = {tuple(c for c in comps if c not in OPCODE_ADDS) for _, _, kind, _, comps, _ in rows
                if type_key(kind) == key}
        if len(seen) != 1:
            raise SpecParseError(f"DIM {code} ({name}): the address tables give its coordinates as {sorted(seen)}")
        coords = seen.pop()
        spatial = sum(c in SPATIAL for c in coords)
        slopes = [s for label, s, _ in derivatives if len(s) == 2 * spatial]
        labelled = [s for label, s, _ in derivatives if key in {type_key(n) for n in label.split("/")}]
        if len(slopes) != 1 or (labelled and labelled != slopes) or axes_of.get(key, spatial) != spatial:
            raise SpecParseError(f"DIM {code} ({name}): {spatial} spatial coordinates {coords}, but the derivative "
                                 f"tables give {labelled or slopes} / {axes_of.get(key)} axes")
        dims.append((code, name, coords, len(slopes[0]), page))
    return {"image_addresses": rows, "image_derivatives": derivatives, "image_dims": dims}, applied


def _check_a16_halves(rows) -> None:
    """Both A16 rows of a group's type list the same components (the pairs are read right)."""
    seen: dict = {}
    for group, a16, kind, _, comps, page in rows:
        if a16 is None:
            continue
        other = seen.setdefault((id(group), kind, a16), comps)
        twin = seen.get((id(group), kind, 1 - a16))
        if other != comps or (twin is not None and twin != comps):
            raise SpecParseError(f"image address table page {page}: {group.opcodes} {kind} A16 {a16} {comps} "
                                 f"against the other A16 row {twin}")
