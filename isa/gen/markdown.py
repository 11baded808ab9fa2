"""Read a Markdown conversion of an ISA manual into the typed lines the parser reads.

AMD publishes some manuals (CDNA3, CDNA4, RDNA4) here only as Markdown conversions of
the PDF. This reader turns such a file into the same `Line`s `pdf.read_lines` makes, so
one parser and one builder serve both: headings become bold 14pt lines, "Table N."
captions 10pt lines, table rows 8pt lines with their cells (header rows bold), fenced
code blocks monospace lines whose x position carries the indentation, instruction
headers ("S_ADD_U32 0") bold lines with two cells, prose regular 10pt lines.

What the conversion lost is restored from what it kept, never invented:
  * page numbers: the conversion kept a page only where the PDF had a link target (the
    `<span id="page-N-k">` anchors of section headings: 0-based page index, so the physical
    page is N + 1) or an image (`assets/_page_N_Figure_k.jpeg`); a line at such a mark is on
    that page. Between two marks the page is interpolated by how much room the lines take
    (`_room`: wrapped prose, table rows, code lines, headings) -- a long chapter such as
    RDNA4's VOP3 instructions (pages 432 to 579) has no mark inside, so an entry's page there is
    an estimate: each of the 78 marks inside the three conversions' Instructions chapters,
    dropped and estimated from the others, comes out on its page for 47, one page off for 28,
    two for 3 (carrying the previous mark's page forward is off by 1348 pages in all, this by 34:
    tests/test_isa_markdown_pages.py); after the last mark it runs on at the document's mean
    room per page (RDNA4's VGLOBAL entries follow its last mark, page 691: the manifest's page
    count for the conversions is that last mark's page, a lower bound);
  * a field table's operand codes, which the conversion crammed into one "Bits" cell
    ("[7:0] 0 - 101 102 ...") and one description cell ("Source 0. ... SGPR0 to SGPR101:
    ... FLAT_SCRATCH_LO. ..."), are paired again code by code (`split_operand_codes`);
    a field whose codes and entries do not pair up one to one is an error;
  * an entry's "Functional examples:" start its notes (a Notes heading is emitted before
    them; the conversion dropped some, and the examples' code would read as pseudocode);
  * a format's field or opcode table whose caption the conversion dropped (CDNA3: the SDWA
    fields between Tables 89 and 91, the VOP3B opcodes between Tables 85 and 87) gets the
    caption "<format> Fields" / "<format> Opcodes" with the next number; reading fails if
    the document has a caption with that number after all.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .pdf import Line

HEADING_SIZE = 14.0      # Line.is_heading: bold and >= 12pt
SUBHEADING_SIZE = 10.0   # bold run-in headings: instruction headers, "Notes", "Format"
TEXT_SIZE = 10.0         # prose and table captions
TABLE_SIZE = 8.0         # table rows (the parser reads rows below 9.5pt)
TEXT_X0 = 50.0
MONO_X0 = 100.0
MONO_CHAR_WIDTH = 4.5    # must match build.MONO_CHAR_WIDTH: indentation is rebuilt from x

_PAGE_RE = re.compile(r'<span id="page-(\d+)-\d+"></span>|\(assets/_page_(\d+)_\w+\.\w+\)')
_TAG_RE = re.compile(r"</?[a-zA-Z][^>]*>")
_SECTION_RE = re.compile(r"^(?:Chapter \d+\.|\d+(?:\.\d+)+\.)\s+\S")
_CAPTION_RE = re.compile(r"^Table (\d+)\.\s+(.+)$")
_EXAMPLE_RE = re.compile(r"^[A-Z][A-Z0-9_]*\(.*\)\s*=>")      # S_ABS_I32(0x00000001) => 0x00000001
_INSTR_HEADER_RE = re.compile(r"^([A-Z][A-Z0-9_]+) (\d+)$")
_BITS_RE = re.compile(r"^\[?(\d+)(?::(\d+))?\]?(?:\s+(.*))?$")
_CODE_RANGE_RE = re.compile(r"(\d+)(?:\s*-\s*(\d+))?")


class MarkdownReadError(Exception):
    pass


def clean(text: str) -> str:
    """Markdown inline markup removed: emphasis, escapes, HTML tags and entities."""
    text = _TAG_RE.sub("", text)
    text = text.replace("**", "").replace("\\_", "_").replace("\\*", "*").replace("\\[", "[").replace("\\]", "]")
    text = text.replace("&#124;", "|").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = re.sub(r"(?<!\w)\*([^*]+)\*(?!\w)", r"\1", text)   # *italic*
    return " ".join(text.split())


# ---------------------------------------------------------------- operand code cells

# Where one operand entry of a crammed description starts: a register range, a constant,
# "Reserved", or a register/constant name in capitals (M0, VCC_LO:, SDWA, SHARED_BASE ...).
_ENTRY_START_RE = re.compile(
    r"^(?:SGPR\d+|TTMP\d+|VGPR|Signed|Literal|(?:32|64)-bit|Reserved\.?|RESERVED|-?\d+(?:\.\d+)?\.|1/\(2\*PI\)\.?"
    r"|[A-Z][A-Z0-9_]*[A-Z0-9]:?\.?)$")


def split_operand_codes(bits_rest: str, description: str, where: str) -> tuple[str, list[tuple[str, str]]]:
    """('0 - 101 102 ...', 'Source 0. First operand ... SGPR0 to SGPR101: ... Reserved EXEC_LO: ...')
    -> ('Source 0. First operand for the instruction.', [('0-101', 'SGPR0 to SGPR101: ...'), ...])."""
    codes = [f"{lo}-{hi}" if hi else lo for lo, hi in _CODE_RANGE_RE.findall(bits_rest)]
    words = re.sub(r"\.\(", ". (", description).split()
    field_text: list[str] = []
    entries: list[list[str]] = []
    for i, w in enumerate(words):
        prev = words[i - 1] if i else ""
        bare_previous = bool(entries) and len(entries[-1]) == 1 and not entries[-1][0].endswith((".", ":"))
        starts = _ENTRY_START_RE.match(w) and (prev.endswith((".", ")")) or bare_previous)
        if re.fullmatch(r"\d+-bit", prev):
            starts = False          # "64-bit Literal constant." is one entry (RDNA4)
        if starts and not entries and not re.match(r"^(SGPR|TTMP|VGPR|Reserved|RESERVED|Signed|Literal|(?:32|64)-bit|-?\d)", w) \
                and not re.match(r"^[A-Z][A-Z0-9_]*[A-Z0-9]:?\.?$", w):
            starts = False
        if starts:
            entries.append([w])
        elif entries:
            entries[-1].append(w)
        else:
            field_text.append(w)
    if len(entries) != len(codes):
        raise MarkdownReadError(f"{where}: {len(codes)} operand codes but {len(entries)} entries in the "
                                f"description ({[' '.join(e) for e in entries]})")
    return " ".join(field_text), [(c, " ".join(e)) for c, e in zip(codes, entries)]


# ---------------------------------------------------------------- the document

_HEX_RANGE = re.compile(r"\b(?=[0-9A-F]*\d)[0-9A-F]{3}\s*-\s*[0-9A-F]{3}\b")


def _table_cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [clean(c) for c in body.split("|")]


def read_lines(path: str, progress: bool = False) -> list[Line]:
    """All content lines of the Markdown file, typed as pdf.read_lines types a PDF's."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return markdown_lines(text)


# ---------------------------------------------------------------- pages between the marks

# the room a line takes, in lines of 10pt prose (the PDF's body text, about 105 characters wide);
# relative sizes only matter, the marks on both sides scale them to pages
_PROSE_CHARS = 105
_TABLE_CHARS = 150
_CODE_LINE = 0.72        # 7.5pt monospace
_TABLE_ROW = 0.8
_TABLE_PADDING = 0.6
_PARAGRAPH_GAP = 0.6
_HEADING = 3.0
_SUBHEADING = 2.5


def _room(line: Line) -> float:
    if line.font == "mono":
        return _CODE_LINE
    if line.size == TABLE_SIZE:
        wide = max(len(c) * len(line.cells) for c in line.cells) if line.cells else 0
        return _TABLE_ROW * max(1, -(-wide // _TABLE_CHARS)) + _TABLE_PADDING
    if line.size >= 12:
        return _HEADING
    if line.font == "bold":
        return _SUBHEADING
    return max(1, -(-len(line.text) // _PROSE_CHARS)) + _PARAGRAPH_GAP


def spread_pages(lines: list[Line], marks: list[tuple[int, int]]) -> list[Line]:
    """`lines` with their pages: `marks` are (index of a line, the page it is on), in document
    order; a line between two marks gets the page its place in their room falls on (the marks'
    own lines taken as mid-page), a line before the first mark page 1 onwards, one after the last
    mark the page the document's mean room per page puts it on."""
    if not lines:
        return lines
    kept: list[tuple[int, int]] = [(0, 1)]
    for at, page in marks:
        if at >= len(lines) or page < kept[-1][1]:
            continue
        if at == kept[-1][0]:
            kept[-1] = (at, page)
        else:
            kept.append((at, page))
    room = [0.0]
    for line in lines:
        room.append(room[-1] + _room(line))
    per_page = room[kept[-1][0]] / max(1, kept[-1][1] - 1) if len(kept) > 1 else 50.0
    out = list(lines)
    for n, (at, page) in enumerate(kept):
        end, last = kept[n + 1] if n + 1 < len(kept) else (len(lines), None)
        span = room[end] - room[at]
        for k in range(at, end):
            done = room[k] - room[at]
            if last is None:
                estimate = int(page + 0.5 + done / per_page)
            else:
                estimate = min(last, int(page + 0.5 + (last - page) * done / span)) if span else page
            out[k] = replace(lines[k], page=estimate)
    return out


def markdown_lines(text: str) -> list[Line]:
    """The typed lines of a Markdown manual, each with its page (`spread_pages`)."""
    return spread_pages(*marked_lines(text))


def marked_lines(text: str) -> tuple[list[Line], list[tuple[int, int]]]:
    """(the typed lines, their page marks): (index of a line, the page it is on) where the
    conversion kept a page; the lines' own pages are the last mark's."""
    out: list[Line] = []
    marks: list[tuple[int, int]] = []
    page = 1
    top = 0.0
    in_code = False
    table_rows: list[list[str]] = []
    last_caption: int | None = None
    section_title = ""
    previous_header: list = [None]
    restored: list[int] = []
    captions: set[int] = set()

    def emit(text: str, font: str, size: float, cells=None, x0: float = TEXT_X0):
        nonlocal top
        top += 1.0
        cells = tuple(cells) if cells is not None else (text,)
        out.append(Line(page, round(top, 1), x0, text, font, size, cells))

    def flush_table():
        nonlocal table_rows, last_caption
        rows, table_rows = table_rows, []
        if not rows:
            return
        header = rows[0]
        is_fields = header[:2] == ["Field Name", "Bits"]
        kind = "Fields" if is_fields else "Opcodes" if header[:2] == ["Opcode #", "Name"] else None
        prev = out[-1] if out else None
        after_table = prev is not None and prev.size == TABLE_SIZE
        same_header = after_table and previous_header[0] == header
        if kind and not same_header and (prev is None or not _CAPTION_RE.match(prev.text)) \
                and re.fullmatch(r"[A-Z][A-Z0-9]*(?:-[A-Z]+)?", section_title) and last_caption is not None:
            # a format's field or opcode table that lost its caption (CDNA3: SDWA Fields, VOP3B
            # Opcodes): restore it with the next number; checked against the real captions below
            last_caption += 1
            restored.append(last_caption)
            emit(f"Table {last_caption}. {section_title} {kind}", "regular", TEXT_SIZE)
        previous_header[0] = header
        if header and re.fullmatch(r"\d+", header[0]):
            # a table without a header row, whose first data row the conversion made the header
            # (RDNA4's VOPD X-/Y-opcode tables: "| 0 | V_DUAL_FMAC_F32 | 7 | ... |")
            rows = [[]] + rows
        else:
            emit(" ".join(c for c in header if c), "bold", TABLE_SIZE, [c for c in header if c])
            if any(_HEX_RANGE.search(c) for c in header):
                # a header that also holds the first data row (RDNA4's DPP_CTRL table:
                # "| DPP_Cntl Enumeration DPP_QUAD_PE RM* | Hex Value 000- 0FF | ..."): that row is
                # emitted as data too, its parser skipping the column titles
                rows = [[], header] + rows[1:]
        for row in rows[1:]:
            cells = [c for c in row if c]
            if not cells:
                continue
            if is_fields and len(row) >= 3:
                _emit_field_row(row, emit)
            else:
                emit(" ".join(cells), "regular", TABLE_SIZE, cells)

    code_block: list[str] = []
    examples_labelled = False       # the last text emitted was an "Examples:" label

    def flush_code():
        # the conversions indent by 2, 4 or 6 spaces; each distinct depth is one level, laid out
        # as the PDF's monospace lines are (two characters a level)
        nonlocal code_block, examples_labelled
        if not examples_labelled and code_block and all(_EXAMPLE_RE.match(r.strip()) for r in code_block):
            # functional examples (S_ABS_I32(0x80000000) => 0x80000000) whose label the
            # conversion dropped (RDNA4 S_ABS_I32): notes, not more pseudocode
            emit("Notes", "bold", SUBHEADING_SIZE)
        examples_labelled = False
        depths = sorted({len(r) - len(r.lstrip(" ")) for r in code_block})
        for r in code_block:
            level = depths.index(len(r) - len(r.lstrip(" ")))
            emit(r.strip(), "mono", 7.5, x0=MONO_X0 + 2 * MONO_CHAR_WIDTH * level)
        code_block = []

    for raw in text.split("\n"):
        for m in _PAGE_RE.finditer(raw):
            page = int(m.group(1) or m.group(2)) + 1
            marks.append((len(out), page))
        stripped = raw.strip()
        if stripped.startswith("```"):
            flush_table()
            if in_code:
                flush_code()
            in_code = not in_code
            continue
        if in_code:
            if stripped:
                code_block.append(raw)
            continue
        if stripped.startswith("|"):
            if re.fullmatch(r"\|?[\s:|-]+\|?", stripped):
                continue
            table_rows.append(_table_cells(stripped))
            continue
        flush_table()
        if not stripped:
            continue
        examples_labelled = False
        if stripped.startswith("#"):
            body = clean(stripped.lstrip("#"))
            cap = _CAPTION_RE.match(body)
            if cap:
                last_caption = int(cap.group(1))
                captions.add(last_caption)
                emit(body, "regular", TEXT_SIZE)
            elif _SECTION_RE.match(body):
                emit(body, "bold", HEADING_SIZE)
                section_title = re.sub(r"^(?:Chapter \d+\.|[\d.]+\.)\s+", "", body)
            elif _INSTR_HEADER_RE.match(body):
                name, opcode = _INSTR_HEADER_RE.match(body).groups()
                emit(body, "bold", SUBHEADING_SIZE, (name, opcode))
            elif body:
                emit(body, "bold", SUBHEADING_SIZE, body.split(" ", 1) if body.startswith("Format ") else None)
            continue
        body = clean(stripped)
        if not body:
            continue
        cap = _CAPTION_RE.match(body)
        if cap:
            last_caption = int(cap.group(1))
            captions.add(last_caption)
            emit(body, "regular", TEXT_SIZE)
        elif stripped.startswith("`") and stripped.endswith("`") and stripped.count("`") == 2:
            emit(stripped.strip("`").strip(), "mono", 7.5, x0=MONO_X0)
        elif re.fullmatch(r"\*\*[^*]+\*\*:?", stripped):
            emit(body.rstrip(":"), "bold", SUBHEADING_SIZE)   # a run-in heading such as Notes
        elif stripped.startswith(("**Description**", "**Format**")):
            label, rest = body.split(" ", 1) if " " in body else (body, "")
            emit(body, "regular", TEXT_SIZE, (label, rest) if rest else (label,))
        else:
            if re.fullmatch(r"(?:Functional )?[Ee]xamples:", body):
                # examples belong to an entry's notes; where the conversion dropped the Notes
                # heading before them (CDNA3 V_SQRT_F16, V_SIN_F32) they would read as pseudocode
                emit("Notes", "bold", SUBHEADING_SIZE)
            emit(body, "regular", TEXT_SIZE)
            examples_labelled = bool(re.fullmatch(r"(?:Functional )?[Ee]xamples:", body))
    flush_table()
    clash = sorted(set(restored) & captions)
    if clash:
        raise MarkdownReadError(f"restored a missing caption as Table {clash[0]}, but the document "
                                f"has its own Table {clash[0]}: the numbering has no hole there")
    return out, marks


def _emit_field_row(row: list[str], emit) -> None:
    """A 'Field Name | Bits | Description' row as the PDF lays it out: the field line,
    then one line per operand code when the conversion crammed codes into the Bits cell."""
    name, bits, desc = row[0], row[1], " ".join(c for c in row[2:] if c)
    m = _BITS_RE.match(bits)
    if not m or not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
        emit(" ".join(c for c in row if c), "regular", TABLE_SIZE, [c for c in row if c])
        return
    hi, lo, rest = m.group(1), m.group(2), m.group(3)
    bits_text = f"[{hi}:{lo}]" if lo else f"[{hi}]"
    if rest and _CODE_RANGE_RE.match(rest):
        field_text, codes = split_operand_codes(rest, desc, f"field {name} {bits_text}")
        emit(f"{name} {bits_text} {field_text}".rstrip(), "regular", TABLE_SIZE, (name, bits_text, field_text))
        for code, entry in codes:
            emit(f"{code} {entry}", "regular", TABLE_SIZE, (code, entry))
    else:
        emit(f"{name} {bits_text} {desc}".rstrip(), "regular", TABLE_SIZE, (name, bits_text, desc))
