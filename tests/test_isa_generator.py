"""The generator against the PDFs themselves (skipped only where the PDFs are absent;
they are present in CI through ../shared/spec_pdfs)."""
from __future__ import annotations

import re

import pytest

import isa
from isa import sources
from isa.gen import GENERATED_ARCHS, generate
from isa.gen.emit import diff


@pytest.mark.parametrize("arch", GENERATED_ARCHS)
def test_committed_files_match_a_fresh_generation(arch, pdf_lines):
    """`wavesmith gen --check`: regenerating from the PDF reproduces the committed files."""
    files = generate(arch, lines=pdf_lines(arch))
    assert diff(arch, files) == [], "run `wavesmith gen` and commit isa/generated/"
    for text in files.values():
        assert "DO NOT EDIT" in text and sources.source(arch)["sha256"] in text


def _instruction_headers_with_code(lines):
    """Names of instruction entries in the Instructions chapter followed by any
    monospace text before the next entry or its Notes (whose code is examples, not the
    entry's pseudocode: RDNA4's V_S_RSQ_F32) — counted straight from the PDF layout."""
    in_chapter, current, out, all_names = False, None, set(), set()
    for ln in lines:
        if ln.is_heading and re.match(r"^Chapter \d+\.", ln.text):
            in_chapter = ln.text.endswith(". Instructions")
            current = None
        if not in_chapter:
            continue
        if ln.font == "bold" and len(ln.cells) == 2 and ln.cells[1].isdigit() and re.match(r"^[A-Z][A-Z0-9_]+$", ln.cells[0]):
            current = ln.cells[0]
            all_names.add(current)
        elif ln.font == "bold" and ln.text == "Notes":
            current = None
        elif ln.font == "mono" and current:
            out.add(current)
    return out, all_names


@pytest.mark.parametrize("arch", GENERATED_ARCHS)
def test_pseudocode_captured(arch, pdf_lines):
    with_block, entries = _instruction_headers_with_code(pdf_lines(arch))
    spec = isa.load(arch)
    captured = {d.name for d in spec.instructions if d.pcode}
    missing = sorted(with_block - captured)
    coverage = len(with_block & captured) / len(with_block)
    print(f"\n{arch}: {len(entries)} instruction entries, {len(with_block)} with a code block, "
          f"pseudocode captured for {100 * coverage:.2f}%")
    print(f"  without captured pseudocode: {', '.join(missing) or 'none'}")
    assert coverage >= 0.95
    from isa import errata   # pseudocode the document lost, supplied by add_pcode errata
    supplied = {e.target[1] for e in errata.for_arch(arch) if e.kind == "add_pcode"}
    assert captured - supplied <= with_block and not supplied & with_block


@pytest.mark.parametrize("arch", GENERATED_ARCHS)
def test_every_table_instruction_is_described(arch):
    """Opcode-table rows and Instructions-chapter entries cover each other; the only
    names without a chapter entry are the ones errata added (and EXP's single opcode)."""
    spec = isa.load(arch)
    from_errata = {e["target"].split(".")[1] for e in spec.errata if e["id"].startswith(("missing-", "rdna3-", "rdna35-"))}
    assert set(spec.report["without_description"]) <= from_errata | {"EXPORT"} | TABLE_ONLY.get(arch, set())


# Opcode-table rows the manual's Instructions chapter has no entry for (the RDNA4 SOPP table
# lists S_WAIT_ALU at opcode 8, page 181; chapter 16's SOPP section goes from S_DELAY_ALU to S_WAITCNT)
TABLE_ONLY = {"rdna4": {"S_WAIT_ALU"}}


def test_sha_mismatch_is_a_clear_error(tmp_path):
    (tmp_path / "AMD_rdna3_isa.pdf").write_bytes(b"%PDF-1.7 not the manual")
    with pytest.raises(sources.SpecSourceError, match="(?s)sha256 mismatch.*expected d87bdd09.*actual"):
        sources.locate("rdna3", tmp_path)


def test_missing_pdf_names_the_places_looked(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "search_dirs", lambda pdf_dir=None: [tmp_path])
    with pytest.raises(sources.SpecSourceError, match="not found; looked in"):
        sources.locate("rdna3")


def test_pdf_dir_and_env_come_first(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESMITH_SPEC_DIR", str(tmp_path / "env"))
    dirs = sources.search_dirs(tmp_path / "cli")
    assert dirs[:2] == [tmp_path / "cli", tmp_path / "env"]
    assert dirs[2].name == "spec_pdfs" and dirs[3].parts[-2:] == ("shared", "spec_pdfs")


def test_manifest_describes_every_family():
    m = sources.manifest()
    assert set(m) == set(isa.FAMILY_TARGETS)
    for arch in GENERATED_ARCHS:
        assert {"title", "date", "url", "file", "sha256", "pages"} <= set(m[arch])
        assert isa.load(arch).source["sha256"] == sources.source(arch)["sha256"]
        assert isa.load(arch).source["file"] == sources.source(arch)["file"]
