"""Memory instructions with the modifiers each format takes, per RDNA and CDNA target: the lines whose
acceptance (modifier order, negated flags `noglc`...) tests/test_dsl_asm_memflags.py checks
against llvm-mc-22."""
from __future__ import annotations

import itertools
import random

_CPOL11 = ["glc", "slc", "dlc"]
_CPOL12 = ["th:TH_LOAD_NT", "scope:SCOPE_SYS"]
_FMT = "format:[BUF_FMT_32_FLOAT]"
_CPOL9 = ["sc0", "nt", "sc1"]
_FMT9 = "format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]"

# (format, instruction without its modifiers, the modifiers it takes in LLVM's printed order)
CASES = {
    "rdna3": [
        ("FLAT", "flat_load_b32 v1, v[2:3]", ["offset:16", *_CPOL11]),
        ("GLOBAL", "global_load_b32 v1, v2, s[0:1]", ["offset:16", *_CPOL11]),
        ("SCRATCH", "scratch_load_b32 v1, v2, off", ["offset:16", *_CPOL11]),
        ("MUBUF", "buffer_load_b32 v[1:2], v2, s[4:7], s0", ["offen", "offset:16", *_CPOL11, "tfe"]),
        ("MTBUF", "tbuffer_load_format_x v1, v2, s[4:7], s0", [_FMT, "offen", "offset:16", *_CPOL11]),
        ("DS", "ds_add_u32 v1, v2", ["offset:16", "gds"]),
        ("DS", "ds_write2_b32 v1, v2, v3", ["offset0:4", "offset1:8", "gds"]),
        ("SMEM", "s_load_b32 s1, s[2:3], 0x10", ["glc", "dlc"]),
        ("MIMG", "image_load v[1:3], v2, s[4:11]", ["dmask:0x3", "dim:SQ_RSRC_IMG_1D", "unorm", *_CPOL11, "a16", "tfe"]),
        ("MIMG", "image_load v[1:2], v2, s[4:11]", ["dmask:0x3", "dim:SQ_RSRC_IMG_1D", "glc", "r128", "lwe"]),
        ("MIMG", "image_load v1, v2, s[4:11]", ["dmask:0x1", "dim:SQ_RSRC_IMG_1D", "slc", "d16"]),
        ("MIMG", "image_sample v1, v[2:3], s[4:11], s[12:15]", ["dmask:0x1", "dim:SQ_RSRC_IMG_2D", "unorm", "glc", "r128", "d16"]),
    ],
    "rdna4": [
        ("VFLAT", "flat_load_b32 v1, v[2:3]", ["offset:16", *_CPOL12]),
        ("VGLOBAL", "global_load_b32 v1, v2, s[0:1]", ["offset:16", *_CPOL12]),
        ("VSCRATCH", "scratch_load_b32 v1, v2, off", ["offset:16", *_CPOL12]),
        ("VBUFFER", "buffer_load_b32 v[1:2], v2, s[4:7], s0", ["offen", "offset:16", *_CPOL12, "tfe"]),
        ("VBUFFER", "tbuffer_load_format_x v1, v2, s[4:7], s0", [_FMT, "offen", "offset:16", *_CPOL12]),
        ("VDS", "ds_add_u32 v1, v2", ["offset:16"]),
        ("VDS", "ds_write2_b32 v1, v2, v3", ["offset0:4", "offset1:8"]),
        ("SMEM", "s_load_b32 s1, s[2:3], 0x10", _CPOL12),
        ("VIMAGE", "image_load v[1:3], v2, s[4:11]", ["dmask:0x3", "dim:SQ_RSRC_IMG_1D", *_CPOL12, "r128", "a16", "tfe"]),
        ("VIMAGE", "image_load v1, v2, s[4:11]", ["dmask:0x1", "dim:SQ_RSRC_IMG_1D", "th:TH_LOAD_NT", "d16"]),
        ("VSAMPLE", "image_sample v1, v[2:3], s[4:11], s[12:15]", ["dmask:0x1", "dim:SQ_RSRC_IMG_2D", "unorm", "scope:SCOPE_SYS", "d16"]),
        ("VSAMPLE", "image_sample v[1:4], v2, s[4:11], s[12:15]",
         ["dmask:0x7", "dim:SQ_RSRC_IMG_1D", "unorm", *_CPOL12, "a16", "tfe"]),
    ],
    "cdna": [       # gfx942 and gfx950: the sc0/nt/sc1 cache policy (LLVM prints sc0 nt sc1), no tfe
        ("FLAT", "flat_load_dword v1, v[2:3]", ["offset:16", *_CPOL9]),
        ("GLOBAL", "global_load_dword v1, v[2:3], off", ["offset:16", *_CPOL9]),
        ("SCRATCH", "scratch_load_dword v1, off, s2", ["offset:16", *_CPOL9]),
        ("MUBUF", "buffer_load_dword v1, v2, s[4:7], s0", ["offen", "offset:16", *_CPOL9]),
        ("MUBUF", "buffer_store_dword v1, v[2:3], s[4:7], s0", ["idxen", "offen", "offset:16", "sc0", "sc1"]),
        ("MUBUF", "buffer_load_dword v2, s[4:7], s0", ["offen", "offset:16", *_CPOL9, "lds"]),
        ("MTBUF", "tbuffer_load_format_x v1, v2, s[4:7], s0", [_FMT9, "offen", "offset:16", *_CPOL9]),
        ("DS", "ds_add_u32 v1, v2", ["offset:16"]),
        ("DS", "ds_add_u32 v1, v2", ["offset:16", "gds"]),        # gds: the wave-sync instructions only
        ("DS", "ds_gws_barrier v20", ["offset:16", "gds"]),
        ("DS", "ds_write2_b32 v1, v2, v3", ["offset0:4", "offset1:8"]),
        ("SMEM", "s_load_dword s1, s[2:3], 0x10", ["glc"]),
        ("SMEM", "s_load_dword s1, s[2:3], 0x10", ["glc", "nv"]),  # LLVM 22 takes no nv on CDNA
        ("SMEM", "s_atomic_add s1, s[2:3], 0x10", ["glc"]),
    ],
}
FAMILY = {"gfx1100": "rdna3", "gfx1151": "rdna3", "gfx1201": "rdna4", "gfx942": "cdna", "gfx950": "cdna"}

# every flag spelling LLVM's AMDGPU assembler might take negated (its named bits and cache flags)
NEGATABLE = ["glc", "slc", "dlc", "scc", "nt", "gds", "tfe", "lwe", "unorm", "d16", "a16", "r128", "da",
             "nv", "lds", "offen", "idxen", "addr64", "clamp", "done", "vm", "compr", "sc0", "sc1"]


def order_lines(arch: str, full_samples: int = 24) -> list[str]:
    """Each case's modifiers with two of them swapped, and permutations of all of them (all of
    them up to 5 modifiers, else a seeded sample)."""
    out = []
    rng = random.Random(18)
    for _, base, mods in CASES[FAMILY[arch]]:
        for i, j in itertools.combinations(range(len(mods)), 2):
            swapped = list(mods)
            swapped[i], swapped[j] = mods[j], mods[i]
            out.append(f"{base} {' '.join(swapped)}")
        perms = list(itertools.permutations(mods)) if len(mods) <= 5 else \
            [tuple(rng.sample(mods, len(mods))) for _ in range(full_samples)]
        out += [f"{base} {' '.join(p)}" for p in perms]
    return list(dict.fromkeys(out))


def negated_lines(arch: str) -> list[str]:
    """Each flag negated (`noglc`) at every place among each case's modifiers, beside the flag
    itself and in its stead."""
    out = []
    for _, base, mods in CASES[FAMILY[arch]]:
        for f in NEGATABLE:
            for ms in (mods, [m for m in mods if m != f]):
                out += [f"{base} {' '.join([*ms[:i], 'no' + f, *ms[i:]])}" for i in range(len(ms) + 1)]
    return list(dict.fromkeys(out))
