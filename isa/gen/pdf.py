"""Read an ISA PDF with pdfplumber into typed text lines.

The parser never sees PDF objects: this module turns every page into `Line`s that
carry what the layout tells us — the font class (pseudocode is set in a monospace
font, headings in bold), the size, the indentation and the table cells (runs of text
separated by wide gaps). Pages are read by a pool of processes because pdfminer's
character extraction dominates the generator's run time.
"""
from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass

# Running header and footer ("RDNA3" Instruction Set Architecture / "16.1. ... 188 of 600")
# sit in these bands of a US-letter page; everything between is content.
HEADER_BOTTOM = 36.0
FOOTER_TOP = 760.0
SAME_LINE_TOLERANCE = 2.5  # points between glyph bottoms on one text line
CELL_GAP_EM = 1.2          # a gap wider than this many ems separates table cells
WORD_GAP_EM = 0.12         # a gap wider than this (without a space glyph) is a space


@dataclass(frozen=True)
class Line:
    page: int              # physical page number, 1-based
    top: float
    x0: float
    text: str              # cells joined by single spaces, whitespace normalised
    font: str              # 'mono' | 'bold' | 'italic' | 'regular'
    size: float
    cells: tuple[str, ...]

    @property
    def is_heading(self) -> bool:
        return self.font == "bold" and self.size >= 12


def _font_class(name: str) -> str:
    if "Mono" in name or "Courier" in name:
        return "mono"
    if "Bold" in name:
        return "bold"
    if "Italic" in name:
        return "italic"
    return "regular"


def _majority(values):
    counts: dict = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=counts.get)


def _build_line(page_no: int, chars: list[dict]) -> Line | None:
    chars.sort(key=lambda c: c["x0"])
    glyphs = [c for c in chars if not c["text"].isspace()]
    if not glyphs:
        return None
    size = _majority(round(c["size"], 1) for c in glyphs)
    font = _font_class(_majority(c["fontname"] for c in glyphs))
    if font == "mono" and _font_class(glyphs[0]["fontname"]) != "mono":
        # prose that quotes code inline (RDNA3.5 v_fma_mix*: "Size and location of the three
        # inputs are controlled by { OPSEL_HI[i], OPSEL[i] }: 0=src[31:0], ...") is still prose;
        # pseudocode lines are monospace from their first glyph
        font = _font_class(_majority(c["fontname"] for c in glyphs if _font_class(c["fontname"]) != "mono"))
    cells: list[str] = []
    current: list[str] = []
    prev = None
    saw_space = False
    for c in chars:
        if c["text"].isspace():
            saw_space = prev is not None
            continue
        if prev is not None:
            gap = c["x0"] - prev["x1"]
            if gap > CELL_GAP_EM * size:
                cells.append("".join(current))
                current = []
            elif saw_space or gap > WORD_GAP_EM * size:
                current.append(" ")
        current.append(c["text"])
        prev, saw_space = c, False
    cells.append("".join(current))
    cells = [" ".join(cell.split()) for cell in cells]
    return Line(page_no, round(glyphs[0]["top"], 1), round(glyphs[0]["x0"], 1),
                " ".join(cells), font, size, tuple(cells))


def page_lines(page_no: int, chars: list[dict]) -> list[Line]:
    """Group one page's characters into lines, top to bottom."""
    body = [c for c in chars if HEADER_BOTTOM < c["top"] < FOOTER_TOP]
    body.sort(key=lambda c: (c["bottom"], c["x0"]))
    groups: list[list[dict]] = []
    for c in body:
        if groups and c["bottom"] - groups[-1][0]["bottom"] <= SAME_LINE_TOLERANCE:
            groups[-1].append(c)
        else:
            groups.append([c])
    lines = [_build_line(page_no, g) for g in groups]
    return [ln for ln in lines if ln is not None]


_worker_pdf = None


def _open_in_worker(path: str) -> None:
    global _worker_pdf
    import pdfplumber
    _worker_pdf = pdfplumber.open(path)


def _read_pages(page_numbers: list[int]) -> list[Line]:
    out: list[Line] = []
    for n in page_numbers:
        page = _worker_pdf.pages[n - 1]
        out.extend(page_lines(n, page.chars))
        page.close()  # drop pdfminer's layout cache; memory stays flat
    return out


def read_lines(path: str, progress: bool = True, workers: int | None = None) -> list[Line]:
    """All content lines of the PDF in reading order, using a process pool."""
    import pdfplumber
    with pdfplumber.open(path) as pdf:
        n_pages = len(pdf.pages)
    workers = workers or min(os.cpu_count() or 1, 4)
    chunk = 8
    batches = [list(range(s, min(s + chunk, n_pages + 1))) for s in range(1, n_pages + 1, chunk)]
    bar = _progress_bar(n_pages, os.path.basename(path)) if progress else None
    lines: list[Line] = []
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with ctx.Pool(workers, initializer=_open_in_worker, initargs=(path,)) as pool:
        for batch, result in zip(batches, pool.imap(_read_pages, batches)):
            lines.extend(result)
            if bar:
                bar.update(len(batch))
    if bar:
        bar.close()
    return lines


def _progress_bar(total: int, label: str):
    from tqdm import tqdm
    return tqdm(total=total, desc=f"reading {label}", unit="page", file=sys.stderr,
                disable=None)  # disable=None: silent when stderr is not a terminal
