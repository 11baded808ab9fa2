"""V_FRACT_F16/F32/F64's clamp below 1.0, rows of isa/errata.py's `pcode_text` errata.

Every manual's pseudocode is `D0 = S0 + -floor(S0)`, whose rounded sum is 1.0 for a small negative
S0 (fract(-1e-10) in f32: 1 - 1e-10 rounds to 1.0), while the F32 and F64 entries' notes say
"Obey round mode, result clamped to 0x3f7fffff." and "... clamped to 0x3fefffffffffffff." (the
largest value below 1.0). The F16 entries state no clamp; LLVM 22 folds llvm.amdgcn.fract.f16 with
the same clamp (0xH3BFF). The fix rounds the sum by the mode, then replaces a result of 1.0 by the
largest value below it (a NaN, an infinity's NaN and every result below 1.0 pass unchanged).
tests/test_emu_fract_clamp.py checks the rule against exact rationals and LLVM 22's fold.
Each row: (family, type, page of the entry's pseudocode, what the manual's code says, the fix)."""
from __future__ import annotations

# the largest value below 1.0 and 1.0 in the pseudocode's spelling, per type
_BELOW_ONE = {"f16": ("16'F(0x3bff)", "16'1.0"), "f32": ("32'F(0x3f7fffff)", "1.0F"),
              "f64": ("64'F(0x3fefffffffffffff)", "1.0")}
_PAGES = {  # the VOP1 entry's pseudocode (RDNA4's F16 VOP1 entry has none: the VOP3 entry's)
    "rdna3": {"f16": 298, "f32": 282, "f64": 290}, "rdna3.5": {"f16": 316, "f32": 300, "f64": 308},
    "rdna4": {"f16": 456, "f32": 323, "f64": 332}, "cdna3": {"f16": 209, "f32": 193, "f64": 202},
    "cdna4": {"f16": 222, "f32": 206, "f64": 215}}
# LLVM 22 (its OpenCL front end, -O2, gfx1100) folds __builtin_amdgcn_fract*(constant)
LLVM_FOLDS = ("LLVM 22's OpenCL front end at -O2 for gfx1100 folds __builtin_amdgcn_fractf(-1e-10f), (-0x1p-25f) and "
              "(-0x1p-149f) to float 0x3f7fffff, __builtin_amdgcn_fract(-1e-20) to double 0x3fefffffffffffff, "
              "__builtin_amdgcn_fracth(-0x1p-14h) to half 0xH3BFF (its constant folding of llvm.amdgcn.fract is "
              "minimum(x - floor(x), the largest value below 1.0)), and fract(NaN) and fract(+inf) to NaN")


def _evidence(arch: str, ty: str) -> str:
    page = _PAGES[arch][ty]
    if ty == "f16":
        said = ("The entry's notes state no clamp (its F32 and F64 siblings': 'Obey round mode, result clamped "
                "to 0x3f7fffff.' / '0x3fefffffffffffff.'); the F16 result gets the same rule, 0x3bff")
    else:
        bits = "0x3f7fffff" if ty == "f32" else "0x3fefffffffffffff"
        said = f"The entry's notes (page {page}) say 'Obey round mode, result clamped to {bits}.'"
    return (f"The code S0 + -floor(S0) rounds to 1.0 for a small negative S0 (1 - 2**-30 in f32). {said}. "
            f"{LLVM_FOLDS}. The sum is rounded by the mode first, then 1.0 becomes the largest value below it. "
            f"Not measured on hardware.")


def _rows():
    for arch, pages in _PAGES.items():
        for ty in ("f16", "f32", "f64"):
            t = "f" if arch == "rdna3" and ty == "f32" else ty      # RDNA3 writes f32 as .f
            below, one = _BELOW_ONE[ty]
            pdf = f"D0.{t} = S0.{t} + -floor(S0.{t})"
            fix = f"tmp = S0.{t} + -floor(S0.{t});\nD0.{t} = tmp >= {one} ? {below} : tmp"
            yield arch, ty, pages[ty], pdf, fix, _evidence(arch, ty)


FRACT_ROWS = tuple(_rows())
