"""Where the ISA PDFs are, and whether they are the ones the manifest names.

AMD's licence forbids redistributing the PDFs, so the repository holds only
spec_pdfs/manifest.json (title, date, URL, file name, sha256, pages). Lookup order:
an explicit directory (--pdf-dir), $WAVESMITH_SPEC_DIR, spec_pdfs/, ../shared/spec_pdfs.
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
    """Path of the arch's PDF; raises SpecSourceError naming every place looked."""
    entries = manifest()
    if arch not in entries:
        raise SpecSourceError(f"no manifest entry for '{arch}' (known: {', '.join(entries)})")
    entry = entries[arch]
    if not entry.get("sha256"):
        raise SpecSourceError(f"{arch}: the manifest has no sha256 for {entry['file']} yet — the PDF "
                              f"has not been reviewed for this project (see spec_pdfs/README.md)")
    tried = search_dirs(pdf_dir)
    for d in tried:
        path = d / entry["file"]
        if path.is_file():
            if verify:
                actual = sha256_of(path)
                if actual != entry["sha256"]:
                    raise SpecSourceError(
                        f"{path}: sha256 mismatch for {arch}\n  expected {entry['sha256']} (spec_pdfs/manifest.json)\n"
                        f"  actual   {actual}\nThis is a different revision of the manual; download the one "
                        f"the manifest names ({entry['url']}) or update the manifest and regenerate.")
            return path
    raise SpecSourceError(f"{entry['file']} ({arch}) not found; looked in:\n" +
                          "\n".join(f"  {d}" for d in tried) +
                          f"\nDownload it from {entry['url']} (see spec_pdfs/README.md).")
