"""Pages of the manuals read from Markdown conversions (RDNA4, CDNA3, CDNA4: isa/gen/markdown.py),
checked against the conversions' own page marks, found here by reading the Markdown text directly:
the `<span id="page-N-k">` anchors and `assets/_page_N_...` images (0-based page N) that the
conversion kept where the PDF had a link target or a picture.

- an entry's page (InstrDef.pcode_page) lies between the marks before and after its heading;
- pages are not degenerate: a long chapter without marks inside (RDNA4's VOP3 entries, pages
  432-579) spreads over many pages, in document order;
- the estimate between marks is measured against the marks themselves: each mark of an
  Instructions chapter, dropped, is estimated from the others; the estimate is the mark's page or
  next to it, and far nearer than carrying the previous mark's page forward (what the reader did
  before, which put every RDNA4 VOP3 entry on page 432)."""
from __future__ import annotations

import re

import pytest

import isa
from isa import sources
from isa.gen import markdown

from .conftest import shared_path

FAMILIES = {"rdna4": "rdna4_isa.md", "cdna3": "cdna3_isa.md", "cdna4": "cdna4_isa.md"}
_MARK = re.compile(r'<span id="page-(\d+)-\d+"></span>|\(assets/_page_(\d+)_\w+\.\w+\)')
_HEADING = re.compile(r"^#+ \*\*([A-Z][A-Z0-9\\_]+) (\d+)\*\*$")
_CHAPTER = re.compile(r"\*\*Chapter \d+\. (.+)\*\*")


def _text(family: str) -> str:
    return shared_path("spec_text", FAMILIES[family]).read_text(encoding="utf-8")


def _headings(text: str) -> list[tuple[str, int, int, int | None]]:
    """(name, opcode, page of the last mark before, page of the next mark after or None) of every
    entry heading of the Instructions chapter, in document order."""
    out, pending, last, chapter = [], [], 1, None
    for raw in text.split("\n"):
        for m in _MARK.finditer(raw):
            page = int(m.group(1) or m.group(2)) + 1
            out += [(n, op, before, page) for n, op, before in pending]
            pending, last = [], page
        c = _CHAPTER.search(raw)
        if c and raw.startswith("#"):
            chapter = c.group(1)
        h = _HEADING.match(raw.strip())
        if h and chapter == "Instructions":
            pending.append((h.group(1).replace("\\_", "_"), int(h.group(2)), last))
    return out + [(n, op, before, None) for n, op, before in pending]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_entry_pages_lie_between_the_marks_around_their_heading(family):
    headings = _headings(_text(family))
    assert len(headings) > 1400
    where: dict[str, list] = {}
    for name, _, before, after in headings:
        where.setdefault(name, []).append((before, after))
    pages = isa.load(family).instructions
    checked = 0
    for d in pages:
        if d.pcode_page is None:
            continue
        spans = where.get(d.name, [])
        assert any(lo <= d.pcode_page <= (hi or 10 ** 6) for lo, hi in spans), (d.name, d.format, d.pcode_page, spans)
        checked += 1
    assert checked > 1400


def test_rdna4_vop3_entries_spread_over_their_chapter_in_order():
    headings = _headings(_text("rdna4"))
    # the section "16.12. VOP3 & VOP3SD Instructions" starts on page 432, the next (VINTERP) on 580
    vop3 = [h for h in headings if h[2] == 432 and h[3] == 580]
    assert len(vop3) > 400
    by_name = {}            # (a VOP1/VOP2/VOPC entry's VOP3 form may take its page from its own chapter)
    for d in isa.load("rdna4").instructions:
        if d.pcode_page is not None and 432 <= d.pcode_page <= 580:
            by_name[d.name] = d.pcode_page
    ordered = [by_name[n] for n, *_ in vop3 if n in by_name]
    assert len(ordered) > 280
    assert ordered == sorted(ordered)                       # document order is page order
    assert len(set(ordered)) > 100                          # not one page for all (was: 432)
    # V_NOP opens the section; it ends with the VOPC entries' VOP3 forms (their pages: the VOPC chapter's)
    assert ordered[0] <= 433 and 550 <= ordered[-1] <= 580


@pytest.mark.parametrize("family", list(FAMILIES))
def test_reader_pages_are_monotone_and_keep_every_mark(family):
    text = _text(family)
    lines = markdown.markdown_lines(text)
    pages = [ln.page for ln in lines]
    assert pages == sorted(pages) and pages[-1] >= sources.source(family)["pages"]   # (the manifest's: the last mark's)
    raw, marks = markdown.marked_lines(text)
    for at, page in marks:
        if at < len(lines) and all(p <= page for a, p in marks if a <= at):
            assert lines[at].page == page
    # the marks are the Markdown's own, in number and value
    found = [int(m.group(1) or m.group(2)) + 1 for m in _MARK.finditer(text)]
    assert [p for _, p in marks] == found and len(found) > 150


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_dropped_mark_is_estimated_near_its_page(family):
    """Each mark inside the Instructions chapter, dropped, is estimated from the others: within
    2 pages, a third or more on the page, and far nearer than the previous mark's page (the old reading)."""
    text = _text(family)
    lines, marks = markdown.marked_lines(text)
    chapter = [ln.page for ln in lines if ln.is_heading and re.match(r"Chapter \d+\. Instructions$", ln.text)]
    end = [ln.page for ln in lines if ln.is_heading and re.match(r"Chapter \d+\.", ln.text) and ln.page > chapter[0]] + [10 ** 6]
    errors, carried = [], []
    for k in range(1, len(marks) - 1):
        at, page = marks[k]
        if not chapter[0] < page < end[0] or marks[k - 1][0] == at or marks[k + 1][0] == at:
            continue
        estimate = markdown.spread_pages(lines, marks[:k] + marks[k + 1:])[at].page
        errors.append(abs(estimate - page))
        carried.append(page - marks[k - 1][1])
    assert len(errors) >= 20
    assert max(errors) <= 2, errors
    assert sum(e == 0 for e in errors) >= len(errors) // 3, errors
    assert sum(errors) * 5 < sum(carried), (sum(errors), sum(carried))
