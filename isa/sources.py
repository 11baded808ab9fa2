"""Where the ISA manuals are, and whether they are the ones the manifest names.

AMD's licence forbids redistributing the manuals, so the repository holds only
spec_pdfs/manifest.json (title, date, URL, file name, sha256, pages). A family is
generated from its PDF when the manifest pins the PDF's sha256, otherwise from the
Markdown conversion its `markdown` entry pins (CDNA3 today): switching to a PDF later is
a manifest change. PDF lookup order: an explicit directory (--pdf-dir), $WAVESMITH_SPEC_DIR,
spec_pdfs/, ../shared/spec_pdfs; Markdown: the explicit directory, $WAVESMITH_SPEC_TEXT_DIR,
spec_text/, $WAVESMITH_SHARED/spec_text, ../shared/spec_text.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MANIFEST_PATH = REPO_ROOT / "spec_pdfs" / "manifest.json"


class SpecSourceError(Exception):
    """A PDF is missing, or is not the document the manifest describes."""


def manifest() -> dict[str, dict]:
    with open(MANIFEST_PATH, encoding="utf-8") as f:
        return json.load(f)


def source(arch: str) -> dict | None:
    """What the arch is generated from: {'kind': 'pdf' | 'markdown', 'file', 'sha256', 'pages',
    'title', 'date', 'url'}, or None when the manifest pins no document for it."""
    entry = manifest().get(arch)
    if entry is None:
        return None
    common = {k: entry.get(k) for k in ("title", "date", "url")}
    if entry.get("sha256"):
        return {"kind": "pdf", "file": entry["file"], "sha256": entry["sha256"], "pages": entry["pages"], **common}
    text = entry.get("markdown")
    if text and text.get("sha256"):
        return {"kind": "markdown", "file": text["file"], "sha256": text["sha256"], "pages": text["pages"], **common}
    return None


def text_search_dirs(text_dir: str | os.PathLike | None = None) -> list[Path]:
    dirs = []
    if text_dir:
        dirs.append(Path(text_dir))
    if os.environ.get("WAVESMITH_SPEC_TEXT_DIR"):
        dirs.append(Path(os.environ["WAVESMITH_SPEC_TEXT_DIR"]))
    dirs.append(REPO_ROOT / "spec_text")
    if os.environ.get("WAVESMITH_SHARED"):
        dirs.append(Path(os.environ["WAVESMITH_SHARED"]) / "spec_text")
    dirs.append(REPO_ROOT.parent / "shared" / "spec_text")
    return dirs


def search_dirs(pdf_dir: str | os.PathLike | None = None) -> list[Path]:
    dirs = []
    if pdf_dir:
        dirs.append(Path(pdf_dir))
    if os.environ.get("WAVESMITH_SPEC_DIR"):
        dirs.append(Path(os.environ["WAVESMITH_SPEC_DIR"]))
    dirs += [REPO_ROOT / "spec_pdfs", REPO_ROOT.parent / "shared" / "spec_pdfs"]
    return dirs


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def locate(arch: str, pdf_dir: str | os.PathLike | None = None, verify: bool = True) -> Path:
    """Path of the arch's manual (PDF or Markdown, see source()); raises SpecSourceError
    naming every place looked."""
    entries = manifest()
    if arch not in entries:
        raise SpecSourceError(f"no manifest entry for '{arch}' (known: {', '.join(entries)})")
    entry = entries[arch]
    src = source(arch)
    if src is None:
        raise SpecSourceError(f"{arch}: the manifest has no sha256 for {entry['file']} yet — the PDF "
                              f"has not been reviewed for this project (see spec_pdfs/README.md)")
    tried = search_dirs(pdf_dir) if src["kind"] == "pdf" else text_search_dirs(pdf_dir)
    for d in tried:
        path = d / src["file"]
        if path.is_file():
            if verify:
                actual = sha256_of(path)
                if actual != src["sha256"]:
                    raise SpecSourceError(
                        f"{path}: sha256 mismatch for {arch}\n  expected {src['sha256']} (spec_pdfs/manifest.json)\n"
                        f"  actual   {actual}\nThis is a different revision of the manual; use the one "
                        f"the manifest names ({entry['url']}) or update the manifest and regenerate.")
            return path
    raise SpecSourceError(f"{src['file']} ({arch}) not found; looked in:\n" +
                          "\n".join(f"  {d}" for d in tried) +
                          f"\nDownload it from {entry['url']} (see spec_pdfs/README.md).")


def read_lines(arch: str, pdf_dir: str | os.PathLike | None = None, progress: bool = True) -> list:
    """The manual's typed lines, from the PDF or from the Markdown conversion."""
    path = locate(arch, pdf_dir)
    if source(arch)["kind"] == "markdown":
        from .gen.markdown import read_lines as read_markdown
        return read_markdown(str(path))
    from .gen.pdf import read_lines as read_pdf
    return read_pdf(str(path), progress=progress)
