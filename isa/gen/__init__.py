"""The ISA generator: AMD ISA PDF (or its Markdown conversion) -> isa/generated/<arch>/ (see isa/README.md)."""
from __future__ import annotations

import argparse
import sys
import time

from .. import sources

# Every manual the manifest pins with a sha256 (PDF or Markdown) is generated: adding a manual is a
# manifest entry.
GENERATED_ARCHS = tuple(arch for arch in sources.manifest() if sources.source(arch))


def generate(arch: str, pdf_dir=None, progress: bool = True, lines=None) -> dict[str, str]:
    """Read the arch's manual and return the generated files' text (nothing is written).
    `lines` (from isa.sources.read_lines) skips reading the manual again."""
    from .build import build_spec
    from .emit import render
    src = sources.source(arch)
    if lines is None:
        lines = sources.read_lines(arch, pdf_dir, progress=progress)
    spec = build_spec(lines, arch)
    source = {k: src[k] for k in ("file", "title", "date", "sha256", "pages")}
    return render(arch, source, spec)


def stats(arch: str) -> str:
    import isa
    spec = isa.load(arch)
    by_fmt: dict[str, list] = {}
    for d in spec.instructions:
        by_fmt.setdefault(d.format + (f"_{d.slot}" if d.slot else ""), []).append(d)
    with_pcode = sum(1 for d in spec.instructions if d.pcode)
    out = [f"{arch}: {len(spec.formats)} formats, {len(spec.instructions)} opcodes "
           f"({len({d.name for d in spec.instructions})} distinct names), "
           f"{with_pcode} with pseudocode, {len(spec.instructions) - with_pcode} without",
           f"  errata applied: {', '.join(e['id'] for e in spec.errata) or 'none'}",
           f"  {'format':<10} {'bits':>6} {'opcodes':>8} {'pcode':>6}"]
    for name, fmt in spec.formats.items():
        key_list = [k for k in by_fmt if k == name or k.startswith(name + "_")]
        for key in key_list or [name]:
            ds = by_fmt.get(key, [])
            out.append(f"  {key:<10} {'/'.join(map(str, fmt.widths)):>6} {len(ds):>8} "
                       f"{sum(1 for d in ds if d.pcode):>6}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="wavesmith gen",
        description="Generate isa/generated/<arch>/ from AMD's ISA reference PDF (pdfplumber), or from "
                    "the Markdown conversion the manifest pins where no PDF is (CDNA3). "
                    "PDFs are looked up in --pdf-dir, $WAVESMITH_SPEC_DIR, spec_pdfs/, ../shared/spec_pdfs; "
                    "Markdown in --pdf-dir, $WAVESMITH_SPEC_TEXT_DIR, spec_text/, ../shared/spec_text "
                    "and must match the sha256 in spec_pdfs/manifest.json.")
    add_arguments(ap)
    return run(ap.parse_args(argv))


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--arch", default="all", choices=GENERATED_ARCHS + ("all",),
                    help="architecture to generate (default: all)")
    ap.add_argument("--pdf-dir", help="directory holding the PDFs or Markdown manuals (searched first)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate in memory and fail if the committed files differ")
    ap.add_argument("--stats", action="store_true",
                    help="print per-arch counts of formats, opcodes and pseudocode (no PDF needed)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args) -> int:
    from .emit import diff, write
    archs = GENERATED_ARCHS if args.arch == "all" else (args.arch,)
    if args.stats and not args.check:
        print("\n".join(stats(a) for a in archs))
        return 0
    status = 0
    for arch in archs:
        t0 = time.perf_counter()
        try:
            files = generate(arch, args.pdf_dir, progress=not args.quiet)
        except sources.SpecSourceError as e:
            if sources.source(arch)["kind"] == "markdown" and args.arch == "all" and "not found" in str(e):
                # the Markdown conversions live outside the repository; without one the committed
                # files stand unchecked, which is said, not hidden
                print(f"{arch}: skipped, its Markdown manual is not here ({sources.source(arch)['file']})")
                continue
            print(f"error: {e}", file=sys.stderr)
            return 2
        took = time.perf_counter() - t0
        if args.check:
            bad = diff(arch, files)
            if bad:
                print(f"{arch}: generated files differ from the committed ones: {', '.join(bad)}\n"
                      f"  run `wavesmith gen --arch {arch}` and commit the result", file=sys.stderr)
                status = 1
            else:
                print(f"{arch}: committed files are up to date ({took:.1f} s)")
        else:
            out = write(arch, files)
            print(f"{arch}: wrote {len(files)} files to {out} ({took:.1f} s)")
    if args.stats:
        print("\n".join(stats(a) for a in archs))
    return status
