"""The register widths of the ray queries (image_bvh*_intersect_ray) against LLVM 22 and the
manuals: each ray query's address groups and results (the generated
isa.memory_access.image_address(d).ray, one layout per A16 setting, and its memory_effects'
results; RDNA4's dual and BVH8 queries have one layout, they take no A16) hold the counts the
descriptions state ("11 address VGPRs", "only 9 address VGPRs are used", "The first of 12
VGPRs", "DATA is the first of 10 destination VGPRs"; no A16 layout exactly where "A16 is not
supported"). Against llvm-mc-22 (skipped without it): each query's line with those widths, with
and without a16, as an NSA list and (MIMG) one VGPR tuple, and every variant one VGPR wider or
narrower in one operand: our assembler takes exactly the lines LLVM takes, with its bytes, and
refuses the others at llvm-mc-22's line:column (an NSA list's group as wide as it should not be;
not where BVH64's node pointer is written as one VGPR, which LLVM reports at the origin); our disassembly of LLVM's bytes is LLVM's text; and the
bytes with one fixed field changed (DMASK, R128, UNRM, DIM, TFE, LWE, D16, A16, GLC/SLC/DLC, TH,
SCOPE) are an instruction to our disassembler exactly where they are one to LLVM's."""
from __future__ import annotations

import re
import warnings

import pytest

import isa
from dsl import assemble, disassemble
from dsl.asm_parse import AsmError
from isa.memory_access import image_address, memory_effects, ray_query

from .llvm_tools import mc_disassembly_each, mc_encodings, mc_errors

TARGETS = ("gfx1100", "gfx1151", "gfx1201")


def ray_address_groups(d, a16: bool) -> list[int] | None:
    """The address groups of ray query `d` with or without A16 (isa.memory_access.image_address(d).ray,
    which isa.memory_registers.ray_address_groups reads), None where its entry gives no A16 layout."""
    layouts = image_address(d).ray
    return list(layouts[1 if a16 else 0]) if len(layouts) > a16 else None


def ray_data_dwords(d) -> int:
    """The results its memory record writes (VDATA)."""
    return dict((field, n) for field, n, _ in memory_effects(d).writes)["VDATA"]


def _rays(arch: str) -> list:
    return [d for d in isa.load(arch).instructions if ray_query(d)]


def _said(d) -> tuple[list[int], int]:
    """(address VGPRs the description states, without then with A16; results it states: "DATA is
    the first of 10 destination VGPRs", "returns all four DWORDs", BVH64's "See
    IMAGE_BVH_INTERSECT_RAY for basic information" four too)."""
    text = (d.description or "") + " " + (d.pcode or "")
    addresses = [int(a or b) for a, b in re.findall(r"\b(\d+) address VGPRs\b|\bfirst of (\d+) VGPRs\b", text)]
    results = re.search(r"\bfirst of (\d+) destination VGPRs\b", text)
    return addresses, int(results.group(1)) if results else 4


def test_widths_are_the_descriptions():
    seen = {}
    for arch in TARGETS:
        for d in _rays(arch):
            addresses, results = _said(d)
            widths = [sum(ray_address_groups(d, False))]
            if ray_address_groups(d, True) is not None:
                widths.append(sum(ray_address_groups(d, True)))
            assert widths == addresses, (arch, d.name, widths, addresses)
            assert (len(widths) == 1) == ("A16 is not supported" in (d.description or "")), (arch, d.name)
            assert ray_data_dwords(d) == results, (arch, d.name)
            seen[(arch, d.name)] = widths, results
    assert seen[("gfx1201", "IMAGE_BVH_DUAL_INTERSECT_RAY")] == ([12], 10)
    assert seen[("gfx1201", "IMAGE_BVH8_INTERSECT_RAY")] == ([11], 10)
    assert seen[("gfx1100", "IMAGE_BVH64_INTERSECT_RAY")] == ([12, 9], 4)
    assert len(seen) == 8


def _v(first: int, n: int) -> str:
    return f"v{first}" if n == 1 else f"v[{first}:{first + n - 1}]"


def _lines(arch: str, d) -> list[tuple[str, bool]]:
    """(line, whether it has the widths our facts give) for each form of `d` and its +-1 variants."""
    mn = d.name.lower()
    rsrc = "s[4:7]" if arch != "gfx1201" else "s[0:3]"
    out = []
    for a16 in (False, True):
        groups = ray_address_groups(d, a16) or ray_address_groups(d, False)    # (no a16 form: LLVM refuses it)
        ok = ray_address_groups(d, a16) is not None
        data = ray_data_dwords(d)
        variants = [(data, list(groups), ok)]
        for delta in (-1, 1):
            variants.append((data + delta, list(groups), False))
            for i in range(len(groups)):
                if groups[i] + delta:
                    variants.append((data, groups[:i] + [groups[i] + delta] + groups[i + 1:], False))
        suffix = " a16" if a16 else ""
        for n_data, gs, good in variants:
            first = 20
            regs = []
            for n in gs:
                regs.append(_v(first, n))
                first += n
            out.append((f"{mn} {_v(0, n_data)}, [{', '.join(regs)}], {rsrc}{suffix}", good))
            if d.format == "MIMG":    # one VGPR tuple: the sum of the groups
                out.append((f"{mn} {_v(0, n_data)}, {_v(20, sum(gs))}, {rsrc}{suffix}", good))
    return out


@pytest.mark.parametrize("arch", TARGETS)
def test_widths_are_llvms(arch):
    lines = [(line, good) for d in _rays(arch) for line, good in _lines(arch, d)]
    want = mc_encodings([line for line, _ in lines], arch)
    refused = mc_errors([line for line, _ in lines], arch)
    wrong, taken, columns = [], [], 0
    for i, ((line, good), code) in enumerate(zip(lines, want)):
        try:
            ours = assemble(line, arch)
        except AsmError as e:
            ours = None
            column = int(re.match(r"1:(\d+): ", str(e)).group(1))
            # llvm-mc-22's column: the address group as wide as it should not be, the data, ... but
            # where BVH64's node pointer is written as one VGPR, it points past it, at the origin
            if i in refused and column != refused[i][0]:
                columns += 1
                assert "bvh64" in line and ", [v20, v21," in line, (line, str(e), refused[i])
        if ours != code or (code is not None) != good:
            wrong.append(f"{line}: llvm-mc-22 {code.hex() if code else 'refuses'}, ours "
                         f"{ours.hex() if ours else 'refuses'}, widths of our facts: {good}")
        if code is not None:
            taken.append((line, code))
    assert not wrong, "\n".join(wrong)
    assert columns == 2, columns      # (those two lines: with and without a16)
    n_defs = len(_rays(arch))
    assert len(taken) == {"gfx1201": 2 * n_defs - 2}.get(arch, 4 * n_defs)   # (dual, BVH8: no a16)
    texts = mc_disassembly_each([code for _, code in taken], arch)
    for (line, code), text in zip(taken, texts):
        assert text is not None and disassemble(code, arch) == text, (line, code.hex(), text)
        if "[" in line:   # LLVM prints an NSA line as it was written
            assert text == line


# each ray query's fields that are no register operand or opcode: their lowest bit flipped
_REGISTERS = re.compile(r"V?ADDR\d?|VDATA|S?RSRC|SSAMP|OP|ENCODING|NSA")


@pytest.mark.parametrize("arch", TARGETS)
def test_fixed_fields_decode_as_llvm(arch):
    spec = isa.load(arch)
    codes, labels = [], []
    for d in _rays(arch):
        for a16 in (False, True):
            if ray_address_groups(d, a16) is None:
                continue
            line = next(line for line, good in _lines(arch, d) if good and ("a16" in line) == a16 and "[" in line)
            base = assemble(line, arch)
            for name, hi, lo in spec.formats[d.format].fields:
                if _REGISTERS.fullmatch(name):
                    continue
                value = int.from_bytes(base, "little") ^ (1 << lo)
                codes.append(value.to_bytes(len(base), "little"))
                labels.append(f"{line} ^ {name}")
    texts = mc_disassembly_each(codes, arch)
    wrong = []
    for label, code, text in zip(labels, codes, texts):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = disassemble(code, arch)
        if (text if text is not None else ".long") != ours and not (text is None and ours.startswith(".long")):
            wrong.append(f"{label}: llvm-mc-22 {text}, ours {ours}")
    assert not wrong, "\n".join(wrong)
