"""Per-architecture traits: the facts about a family every package needs besides its
instruction tables -- operand codes of the special registers and inline constants,
register-file sizes, wave sizes, which formats play which role.

    import isa
    t = isa.traits("gfx1151")          # the family's Traits (one object per family)
    t.null, t.m0, t.vcc_lo, t.exec_lo, t.scc, t.literal      # 124 125 106 126 253 255
    t.sgprs, t.vgprs, t.ttmps, t.wave_size                   # 106 256 16 32
    t.roles.valu_e32                  # frozenset({'VOP1', 'VOP2', 'VOPC'})
    t.inline_int(-3)                  # 195
    t.vgpr_file("gfx1151", 32)        # 1536

Operand codes and register counts are read from the generated operand tables
(isa/generated/<arch>/operands.py, i.e. from the manual); what the manual does not tabulate
per family is one entry in `_ENTRIES` below, each number with its source. A new family is
its generated data plus one entry here."""
from __future__ import annotations

import math
import struct
from dataclasses import field
from functools import cached_property

from .records import dataclass
from .targets import FAMILY_TARGETS


@dataclass(frozen=True)
class FormatRoles:
    """Format names by the part of the machine they drive."""
    salu: frozenset            # scalar ALU and program control (SOP*)
    smem: frozenset            # scalar memory
    valu_e32: frozenset        # 32-bit VALU encodings (LLVM's _e32)
    valu_e64: frozenset        # 64-bit VALU encodings (LLVM's _e64)
    vopd: frozenset            # dual-issue VALU
    interp: frozenset          # VALU parameter interpolation
    lds: frozenset             # LDS / GDS
    flat: frozenset            # FLAT and its GLOBAL / SCRATCH segments
    buffer: frozenset          # buffer loads and stores
    image: frozenset
    export: frozenset
    lds_param: frozenset       # LDS parameter / direct loads
    dpp: frozenset             # the DPP words a VALU instruction may carry

    @cached_property
    def valu(self) -> frozenset:
        """Every encoding of a VALU instruction."""
        return self.valu_e32 | self.valu_e64 | self.vopd | self.interp

    @cached_property
    def scalar(self) -> frozenset:
        """Instructions executed once per wave (SALU and scalar memory)."""
        return self.salu | self.smem

    @cached_property
    def vmem(self) -> frozenset:
        """Vector memory: counted by the VM counter."""
        return self.flat | self.buffer | self.image

    @cached_property
    def memory(self) -> frozenset:
        """Formats that address memory (data-dword rules, cache bits)."""
        return self.smem | self.lds | self.flat | self.buffer

    @cached_property
    def graphics(self) -> frozenset:
        """Formats of the graphics pipeline (the emulator runs compute kernels)."""
        return self.image | self.export | self.lds_param | self.interp


@dataclass(frozen=True)
class _Entry:
    """What the operand tables do not say, per family."""
    wave_sizes: tuple[int, ...]        # supported, the default first
    roles: FormatRoles
    vgpr_file_wave32: dict             # device -> VGPRs per SIMD in wave32
    family_device: str                 # the device a bare family name stands for
    agprs: int = 0
    dialect: str = "gfx11"             # the text syntax generation: "gfx11" (true16, DPP16/DPP8,
                                       # VOPD) or "gfx9" (SDWA, GFX9 DPP, AGPRs, cache bits sc0/sc1/nt)
    workgroup_id_ttmps: bool = False   # a compute wave's work-group ids are in TTMP9 (X) and TTMP7
                                       # ({Z, Y}), not in system SGPRs after the user SGPRs


_RDNA3_ROLES = FormatRoles(
    salu=frozenset({"SOP1", "SOP2", "SOPC", "SOPK", "SOPP"}), smem=frozenset({"SMEM"}),
    valu_e32=frozenset({"VOP1", "VOP2", "VOPC"}), valu_e64=frozenset({"VOP3", "VOP3SD", "VOP3P"}),
    vopd=frozenset({"VOPD"}), interp=frozenset({"VINTERP"}), lds=frozenset({"DS"}),
    flat=frozenset({"FLAT", "GLOBAL", "SCRATCH"}), buffer=frozenset({"MUBUF", "MTBUF"}),
    image=frozenset({"MIMG"}), export=frozenset({"EXP"}), lds_param=frozenset({"LDSDIR"}),
    dpp=frozenset({"DPP16", "DPP8"}))

# RDNA4's manual names the memory, export and LDS-direct formats with a V prefix (VDS, VFLAT,
# VBUFFER for MUBUF and MTBUF alike, VIMAGE and VSAMPLE for MIMG, VEXPORT, VDSDIR)
_RDNA4_ROLES = FormatRoles(
    salu=_RDNA3_ROLES.salu, smem=_RDNA3_ROLES.smem, valu_e32=_RDNA3_ROLES.valu_e32,
    valu_e64=_RDNA3_ROLES.valu_e64, vopd=_RDNA3_ROLES.vopd, interp=_RDNA3_ROLES.interp,
    lds=frozenset({"VDS"}), flat=frozenset({"VFLAT", "VGLOBAL", "VSCRATCH"}), buffer=frozenset({"VBUFFER"}),
    image=frozenset({"VIMAGE", "VSAMPLE"}), export=frozenset({"VEXPORT"}), lds_param=frozenset({"VDSDIR"}),
    dpp=_RDNA3_ROLES.dpp)

_CDNA3_ROLES = FormatRoles(
    salu=frozenset({"SOP1", "SOP2", "SOPC", "SOPK", "SOPP"}), smem=frozenset({"SMEM"}),
    valu_e32=frozenset({"VOP1", "VOP2", "VOPC"}), valu_e64=frozenset({"VOP3A", "VOP3B", "VOP3P", "VOP3P-MAI"}),
    vopd=frozenset(), interp=frozenset(), lds=frozenset({"DS"}),
    flat=frozenset({"FLAT", "GLOBAL", "SCRATCH"}), buffer=frozenset({"MUBUF", "MTBUF"}),
    image=frozenset(), export=frozenset(), lds_param=frozenset(),
    dpp=frozenset({"DPP", "SDWA", "SDWAB"}))

# Sources of the numbers below:
#  [ISA-1.3]   AMD "RDNA3" / "RDNA3.5" ISA reference, 1.3 / 3.2: wave32 and wave64, wave32 the
#              default of LLVM's code generation for gfx11 (its `wavefrontsize64` is opt-in).
#  [CDNA3-ISA] AMD "CDNA3" ISA reference: wave64 only; 256 VGPRs and 256 AGPRs per wave
#              (ACC bits select the AGPR file); 512 unified VGPRs+AGPRs per SIMD lane in
#              wave64, i.e. 1024 in wave32 units.
#  [CDNA4-ISA] AMD "CDNA4" ISA reference (2025-08-05), 3.3.1-3.3.2: as [CDNA3-ISA] (16 to 102 SGPRs,
#              "up to 512 total VGPRs, 256 of each type"); the same formats, so CDNA3's roles.
#  [LLVM-FULL] LLVM AMDGPU target (AMDGPU.td, FeatureGFX11FullVGPRs): the devices with 1536 wave32
#              VGPRs (768 wave64) per SIMD are gfx1100, gfx1101 and gfx1151; the other gfx11
#              devices have 1024 (512).
#  [ISA-RDNA4] AMD "RDNA4" ISA reference (2025-04-07), 2.1 and 3.3.2.1: wave32 and wave64; "devices
#              that have 1536 VGPRs per SIMD allocate in blocks of 24". LLVM 22 gives gfx1200 and
#              gfx1201 that file: its code generator reports occupancy 16 (1536 / 96) for a kernel
#              using 96 VGPRs on both, 10 on gfx1102 (1024). 3.5.3.4 Table 12 "CS SGPR Load": user
#              SGPRs, then the work-group size in waves; TTMP7 = {Z[15:0], Y[15:0]}, TTMP8 =
#              {DebugMark, GridYZvalid, waveIDinGroup[4:0], dispatchIndex[24:0]}, TTMP9 = X.
# A new family: its generated operand tables give the codes; add one entry here (wave sizes,
# format roles by its manual's format names, VGPR file per device, AGPRs) and its test rows
# in tests/test_isa_traits.py.
# The manuals' operand tables name the inline constant 1/(2*pi) by its value only; the bits
# an operand of each format reads are LLVM 22's (it encodes exactly these as the inline code,
# and refuses the f64 one rounded to nearest, 0x3fc45f306dc9c883, as a literal: see
# tests/test_isa_traits.py): f64 is rounded toward zero, bf16 is the f32's high half.
_INV_2PI_BITS = {16: 0x3118, 32: 0x3e22f983, 64: 0x3fc45f306dc9c882, "bf16": 0x3e22}

# Registers a scalar memory instruction may not load into or store from: every manual's SMEM
# field table says "SDATA must be: SGPR or VCC. Not: EXEC, M0 ..." (RDNA3 and RDNA3.5 "Scalar
# Memory Operations" field table, pages 85 / 87; RDNA4 chapter 8, SMEM fields; CDNA3 and CDNA4
# "Not: exec or m0"). Manual names; a pair (EXEC) is excluded with its halves.
_SMEM_DATA_EXCLUDED = ("M0", "EXEC_LO", "EXEC_HI")

_ENTRIES: dict[str, _Entry] = {
    "rdna3": _Entry((32, 64), _RDNA3_ROLES,
                    {"gfx1100": 1536, "gfx1101": 1536, "gfx1102": 1024, "gfx1103": 1024}, "gfx1100"),
    "rdna3.5": _Entry((32, 64), _RDNA3_ROLES, {"gfx1150": 1024, "gfx1151": 1536, "gfx1152": 1024}, "gfx1151"),
    "cdna3": _Entry((64,), _CDNA3_ROLES, {"gfx940": 1024, "gfx941": 1024, "gfx942": 1024}, "gfx942",
                    agprs=256, dialect="gfx9"),
    "cdna4": _Entry((64,), _CDNA3_ROLES, {"gfx950": 1024}, "gfx950", agprs=256, dialect="gfx9"),
    "rdna4": _Entry((32, 64), _RDNA4_ROLES, {"gfx1200": 1536, "gfx1201": 1536}, "gfx1201",
                    workgroup_id_ttmps=True),
}


class TraitsError(ValueError):
    """A family without a traits entry or without generated operand tables."""


@dataclass(frozen=True, eq=False)       # one object per family: compared and hashed by identity
class Traits:
    """A family's per-family facts: special operand codes, register files, wave sizes, format roles."""
    family: str
    wave_sizes: tuple[int, ...]        # supported wave sizes, the default first
    codes: dict                        # special operand name -> code: NULL, M0, VCC_LO, EXEC_LO, SCC, ...
    sgprs: int                         # addressable SGPRs per wave (s0 .. s<sgprs-1>)
    ttmp_base: int                     # operand code of ttmp0
    ttmps: int
    vgpr_base: int                     # operand code of v0 in a 9-bit source field
    vgprs: int                         # addressable VGPRs per wave
    agprs: int
    inline_ints: tuple                 # ((first code, last code, value of the first code, step), ...)
    inline_floats: dict                # code -> float value (1/(2*pi) included)
    roles: FormatRoles
    vgpr_file_wave32: dict = field(repr=False)
    family_device: str = ""
    dialect: str = "gfx11"             # text syntax generation (see _Entry)
    source_format: str = "VOP3"        # the format whose SRC0 table names every source code
    saddr_off: tuple = ()              # SADDR codes that mean "no SGPR address" (FLAT/GLOBAL/SCRATCH),
    #                                    the one an assembler writes for `off` first
    workgroup_id_ttmps: bool = False   # work-group ids in TTMP9 / TTMP7 (see _Entry)
    aperture_codes: frozenset = frozenset()    # source codes the operand tables call "Memory Aperture
    #                                            definition" (SHARED_BASE .. PRIVATE_LIMIT): 64-bit addresses;
    #                                            the generated tables["aperture_codes"]

    # the codes every package names, as attributes
    @property
    def vgpr_halves(self) -> bool:
        """A VOP1/VOP2/VOPC field names a 16-bit VGPR operand's half in its bit 7 (RDNA 7.4 '16-bit
        Math and VGPRs': 'SRC/DST[7] = (1=hi, 0=lo half)', LLVM's true16 v1.h): the gfx11 dialect's;
        CDNA's fields name v0-v255 (its 16-bit operands are bits 15:0, or SDWA's selects)."""
        return self.dialect == "gfx11"

    @property
    def wave_size(self) -> int:
        return self.wave_sizes[0]

    @property
    def null(self) -> int | None:
        """NULL's code (RDNA); None where the family has no NULL register (GCN/CDNA)."""
        return self.codes.get("NULL")

    @property
    def m0(self) -> int:
        return self.codes["M0"]

    @property
    def vcc_lo(self) -> int:
        return self.codes["VCC_LO"]

    @property
    def vcc_hi(self) -> int:
        return self.codes["VCC_HI"]

    @property
    def exec_lo(self) -> int:
        return self.codes["EXEC_LO"]

    @property
    def exec_hi(self) -> int:
        return self.codes["EXEC_HI"]

    @property
    def scc(self) -> int:
        return self.codes["SCC"]

    @property
    def literal(self) -> int:
        return self.codes["LITERAL"]

    @cached_property
    def scalar_codes(self) -> range:
        """Codes of the 32-bit scalar register file: SGPRs, VCC, TTMPs, NULL, M0, EXEC."""
        return range(0, max(self.codes[n] for n in ("VCC_HI", "NULL", "M0", "EXEC_HI") if n in self.codes) + 1)

    @cached_property
    def special_registers(self) -> dict:
        """{manual name: registers} of each named scalar register: 1 for a 32-bit one (M0,
        VCC_LO, EXEC_HI, ...), 2 for a pair whose halves the operand table names X_LO and X_HI at
        consecutive codes (VCC, EXEC, FLAT_SCRATCH, XNACK_MASK), written at X_LO's code. NULL has
        no width: it reads as zero and discards what is written, as any number of registers."""
        out = {name: 1 for name, code in self.codes.items() if code in self.scalar_codes and name != "NULL"}
        out.update({name[:-3]: 2 for name in list(out)
                    if name.endswith("_LO") and self.codes.get(name[:-3] + "_HI") == self.codes[name] + 1})
        return out

    @cached_property
    def smem_data_excluded(self) -> frozenset:
        """Codes of the registers scalar memory may not load into or store from (M0, EXEC)."""
        return frozenset(self.codes[name] for name in _SMEM_DATA_EXCLUDED if name in self.codes)

    @cached_property
    def constant_codes(self) -> frozenset:
        """The inline constants' codes and the literal's."""
        ints = {c for first, last, _, _ in self.inline_ints for c in range(first, last + 1)}
        return frozenset(ints | set(self.inline_floats) | {self.literal})

    @cached_property
    def inline_float_bits(self) -> dict:
        """{format: {code: bit pattern}} of the inline float constants as an operand of that
        format reads them: 16, 32, 64 or 'bf16' (the f32 pattern's high half). Exact values
        are themselves in every format; 1/(2*pi) is the hardware's pattern (_INV_2PI_BITS)."""
        out = {}
        for fmt, pack in ((16, "<e"), (32, "<f"), (64, "<d"), ("bf16", "<f")):
            codes = {}
            for code, x in self.inline_floats.items():
                if math.isclose(x, 1 / (2 * math.pi), rel_tol=1e-9):
                    codes[code] = _INV_2PI_BITS[fmt]
                else:
                    bits = int.from_bytes(struct.pack(pack, x), "little")
                    codes[code] = bits >> 16 if fmt == "bf16" else bits
            out[fmt] = codes
        return out

    def inline_int(self, value: int) -> int | None:
        """The inline-constant code of integer `value`, None if it has none."""
        for first, last, v0, step in self.inline_ints:
            k = (value - v0) * step
            if 0 <= k <= last - first:
                return first + k
        return None

    def is_inline(self, code: int) -> bool:
        """An inline integer or float constant."""
        return code != self.literal and code in self.constant_codes

    def is_constant(self, code: int) -> bool:
        """An inline constant or the literal."""
        return code in self.constant_codes

    def vgpr_file(self, target: str, wave_size: int | None = None) -> int:
        """VGPRs per SIMD of a device ('gfx1151'; a family name means its `family_device`)
        for `wave_size` (wave64 registers are twice as wide, so half as many)."""
        device = target.strip().lower().split(":")[0].split("-")[0]
        device = device if device in self.vgpr_file_wave32 else self.family_device
        if device not in self.vgpr_file_wave32:
            raise TraitsError(f"the VGPR file size of {target!r} is not known; known: {', '.join(self.vgpr_file_wave32)}")
        return self.vgpr_file_wave32[device] * 32 // (wave_size or self.wave_size)

    def device(self, target: str) -> str:
        """The device a target names ('rdna3' -> its family_device)."""
        device = target.strip().lower().split(":")[0].split("-")[0]
        return device if device in self.vgpr_file_wave32 else self.family_device


def entry(family: str) -> _Entry:
    """The family's traits entry; TraitsError if it has none."""
    e = _ENTRIES.get(family)
    if e is None:
        raise TraitsError(f"no traits entry for {family!r} (targets {', '.join(FAMILY_TARGETS.get(family, ()))}); "
                          f"families with traits: {', '.join(_ENTRIES)}")
    return e


def build_traits(family: str, operands: dict, tables: dict | None = None) -> Traits:
    """The Traits of `family` from its generated operand tables (Spec.operands), its other tables
    (Spec.tables: the SADDR codes that disable it, the aperture codes) and its entry. Spec.traits calls this once per family;
    use isa.traits(target) or spec.traits."""
    entry_ = entry(family)
    # the widest source field's table: every code a source can name (VOP3 on RDNA, VOP3A on CDNA)
    table = next((f for f in ("VOP3", "VOP3A", "VOP1", "VOP2", "VOPC") if operands.get(f, {}).get("SRC0")), None)
    if table is None:
        raise TraitsError(f"{family}: the generated operand tables have no SRC0 table (VOP3/VOP3A/VOP1) "
                          f"to read codes from")
    rows = operands[table]["SRC0"]
    saddr_off = _saddr_off(tables or {}, entry_.roles.flat, operands[table]["SRC0"])
    codes, ints, floats = {}, [], {}
    sgprs = ttmps = vgprs = ttmp_base = vgpr_base = None
    for lo, hi, kind, base, text in rows:
        if kind == "special":
            codes[base] = lo
        elif kind == "literal":
            codes["LITERAL"] = lo
        elif kind == "sgpr":
            sgprs = hi - lo + 1
        elif kind == "ttmp":
            ttmp_base, ttmps = lo, hi - lo + 1
        elif kind == "vgpr":
            vgpr_base, vgprs = lo, hi - lo + 1
        elif kind == "int":
            ints.append((lo, hi, base, 1 if base >= 0 else -1))
        elif kind == "float":
            floats[lo] = base
    missing = [n for n in ("M0", "VCC_LO", "VCC_HI", "EXEC_LO", "EXEC_HI", "SCC", "LITERAL") if n not in codes]
    if missing or None in (sgprs, ttmps, vgprs):
        raise TraitsError(f"{family}: the {table} SRC0 operand table lacks {', '.join(missing) or 'register ranges'} "
                          f"(special names are the manual's, e.g. VCC_LO, M0, EXEC_LO, SCC)")
    return Traits(family, entry_.wave_sizes, codes, sgprs, ttmp_base, ttmps, vgpr_base, vgprs, entry_.agprs,
                  tuple(ints), floats, entry_.roles, entry_.vgpr_file_wave32, entry_.family_device,
                  entry_.dialect, table, saddr_off=saddr_off, workgroup_id_ttmps=entry_.workgroup_id_ttmps,
                  aperture_codes=frozenset(code for code, _name in (tables or {}).get("aperture_codes", ())))


def _saddr_off(tables: dict, flat_formats, src_rows: list) -> tuple:
    """The SADDR codes the manual's FLAT/GLOBAL/SCRATCH SADDR description names as disabling it
    ("Set this field to NULL or 0x7f to disable use" on RDNA3, "... to NULL ..." on RDNA4,
    "... to 0x7f ..." on CDNA3: the generated tables["saddr_off"]), in its order, NULL as its code."""
    by_format = dict(tables.get("saddr_off", ()))
    named = next((by_format[f] for f in sorted(flat_formats) if f in by_format), ())
    null = next((lo for lo, _hi, kind, base, _ in src_rows if kind == "special" and base == "NULL"), None)
    return tuple(null if code == "NULL" else code for code in named if code != "NULL" or null is not None)
