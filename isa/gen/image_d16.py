"""Which image instructions take D16 (16-bit data, converted to and from the resource's format),
from the image chapter's Instruction Fields table, whose D16 row ends with the opcodes it allows:

    D16 1 VGPR-Data-16bit. On loads, convert data in memory to 16-bit format before storing it in
    VGPRs. For stores, convert 16-bit data in VGPRs to the memory format before going to memory.
    ... Allowed only with these opcodes: IMAGE_SAMPLE* IMAGE_GATHER4 [IMAGE_MSAA_LOAD] IMAGE_LOAD
    IMAGE_LOAD_MIP IMAGE_STORE IMAGE_STORE_MIP

(RDNA3 10.1 page 105, RDNA3.5 page 107, RDNA4 10.1 in the Markdown conversion; RDNA3 lists no
IMAGE_MSAA_LOAD) -> tables["image_d16_opcodes"]: (opcodes as listed, page). An instruction takes
D16 (isa.memory_access.takes_d16) where the list names it: `X*` every name starting with X, `X`
the name X and X with suffixes of the manual's "Sample Instruction Suffix Key"
(tables["sample_suffixes"]: the naming rule of sample and gather variants, so IMAGE_GATHER4
covers IMAGE_GATHER4_C_LZ_O, while IMAGE_LOAD does not cover IMAGE_LOAD_PCK: _PCK is no suffix of
the key). The rest -- atomics, IMAGE_GET_RESINFO, IMAGE_GET_LOD ("two 32-bit floating point
values"), the *_PCK* forms ("without format conversion"), ray queries -- take none.
`image_d16` errata (isa/errata.py) add what the list leaves out though LLVM 22 takes d16 there
(IMAGE_GATHER4H, RDNA3's IMAGE_MSAA_LOAD); tests/test_isa_image_d16.py holds every image
instruction's answer against LLVM 22."""
from __future__ import annotations

import re

from .. import errata as errata_mod
from .parse import TABLE_TEXT_MAX_SIZE, Section, SpecParseError

_ALLOWED = re.compile(r"\bAllowed only with these opcodes:\s*(.*)$")
_OPCODE = re.compile(r"^IMAGE_[A-Z0-9_]+\*?$")


def parse_d16_field(sections: list[Section]) -> tuple[tuple[str, ...], int] | None:
    """(the opcodes the image chapter's D16 field allows, as listed, page), or None for a manual
    without an image chapter (CDNA). The row is the first 'D16' '1' table row from the
    "Image Instructions" section on whose text lists them; its bullets continue it."""
    start = next((i for i, s in enumerate(sections) if s.title == "Image Instructions"), None)
    if start is None:
        return None
    for sec in sections[start:]:
        for i, ln in enumerate(sec.lines):
            if ln.cells[:2] != ("D16", "1") or ln.size >= TABLE_TEXT_MAX_SIZE:
                continue
            text = " ".join(ln.cells[2:])
            for more in sec.lines[i + 1:]:
                if more.x0 <= ln.x0 or more.size >= TABLE_TEXT_MAX_SIZE:
                    break
                text += " " + " ".join(more.cells)
            m = _ALLOWED.search(text)
            if m is None:
                continue
            opcodes = tuple(w for w in m.group(1).replace("•", " ").split())
            if not opcodes or any(not _OPCODE.match(w) for w in opcodes):
                raise SpecParseError(f"D16 field (page {ln.page}): allowed opcodes {opcodes}")
            return opcodes, ln.page
    raise SpecParseError("the image chapter's D16 field ('Allowed only with these opcodes: ...') not found")


def takes_d16(name: str, opcodes, suffixes) -> bool:
    """Whether the D16 field's list (`opcodes`) names instruction `name`: `X*` any name starting
    with X; `X` X itself and X followed by suffixes of the suffix key (`suffixes`: '_L', '_C', ...)."""
    for listed in opcodes:
        if listed.endswith("*"):
            if name.startswith(listed[:-1]):
                return True
        elif name == listed or (name.startswith(listed + "_") and
                                all("_" + p in suffixes for p in name[len(listed) + 1:].split("_"))):
            return True
    return False


def facts(instructions: list[dict], tables: dict, image_formats) -> dict[int, bool]:
    """{position: True} of the image instructions the D16 field's list names."""
    listed = tables.get("image_d16_opcodes")
    if not listed:
        return {}
    suffixes = {row[0] for row in tables.get("sample_suffixes", ())}
    return {i: True for i, d in enumerate(instructions)
            if d["format"] in image_formats and takes_d16(d["name"], listed[0], suffixes)}


def apply_errata(arch: str, instructions: list[dict], tables: dict, table: dict[int, bool]) -> list[dict]:
    """image_d16 errata: the erratum's instruction (FORMAT, NAME) takes D16 (fix True) where the
    list still leaves it out (pdf False) on the erratum's page (the D16 field's)."""
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind != "image_d16":
            continue
        fmt, name = e.target
        hits = [i for i, d in enumerate(instructions) if (d["format"], d["name"]) == (fmt, name)]
        listed = tables.get("image_d16_opcodes")
        if not hits or not listed:
            raise SpecParseError(f"erratum {e.id}: no {fmt} {name} or no D16 field in the {arch} manual")
        if listed[1] != e.page[arch]:
            raise SpecParseError(f"erratum {e.id}: the D16 field is on page {listed[1]} of the {arch} manual, "
                                 f"the errata table says {e.page[arch]}")
        if any(table.get(i, False) != e.pdf for i in hits):
            raise SpecParseError(f"erratum {e.id} is stale: the {arch} manual's D16 field now lists {name}")
        for i in hits:
            if e.fix:
                table[i] = True
            else:
                table.pop(i, None)
        applied.append({"id": e.id, "page": e.page[arch], "target": ".".join(e.target), "evidence": e.evidence})
    ordered = sorted(table.items())          # (by position, as the generated table lists them)
    table.clear()
    table.update(ordered)
    return applied
