"""The only hand-written semantics: instructions whose manual entry has no usable pseudocode.

Everything else is generated from the PDF (emu/pcode). Entries here are either control
events the machine acts on (no data effect: s_endpgm, s_barrier, waits, hints), MODE
writers, or data-parallel operations the manual describes in prose, C or matrix notation
(`lanes.py`: ds_bpermute/permute/swizzle; `wmma.py`: WMMA; `mfma.py`: CDNA's MFMA/SMFMAC; `buffer_format.py`: the buffer
loads/stores with format conversion; `append.py`: ds_append/ds_consume; `hwreg.py`: s_setreg;
`interp.py`: VINTERP, whose RDNA3 pseudocode is garbled or missing). Each module is imported
when an instruction it implements is first asked for (by its name's prefix or, for MFMA, the
family's mfma table): a first launch of a kernel that uses none of them imports none.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from .. import facts as instruction_facts
from ..semantics import Operand, Semantic


# instruction -> control event for the machine; the semantic itself writes nothing
CONTROL = {
    "S_ENDPGM": "end", "S_ENDPGM_SAVED": "end", "S_CODE_END": "end",
    "S_BARRIER": "barrier",
    "S_WAITCNT": "wait", "S_WAITCNT_VSCNT": "wait", "S_WAITCNT_VMCNT": "wait", "S_WAITCNT_EXPCNT": "wait",
    "S_WAITCNT_LGKMCNT": "wait", "S_WAITCNT_DEPCTR": "wait", "S_WAIT_IDLE": "wait", "S_WAIT_EVENT": "wait",
    # RDNA4's split counters (load, store, sample, BVH, export, LDS, scalar memory, ALU
    # dependencies): memory operations complete in program order, so no wait has an effect
    "S_WAIT_LOADCNT": "wait", "S_WAIT_STORECNT": "wait", "S_WAIT_SAMPLECNT": "wait", "S_WAIT_BVHCNT": "wait",
    "S_WAIT_EXPCNT": "wait", "S_WAIT_DSCNT": "wait", "S_WAIT_KMCNT": "wait", "S_WAIT_ALU": "wait",
    "S_WAIT_LOADCNT_DSCNT": "wait", "S_WAIT_STORECNT_DSCNT": "wait",
    # RDNA4 splits s_barrier into signal and wait: the machine parks a wave at the wait until
    # every live wave of its work-group reached it (so each signalled first; the machine checks
    # the barrier id is the work-group's, -1)
    "S_BARRIER_SIGNAL": "barrier_signal", "S_BARRIER_WAIT": "barrier",
    "S_SLEEP": "sleep", "S_WAKEUP": "wakeup", "S_SLEEP_VAR": "sleep",
    "S_ENDPGM_ORDERED_PS_DONE": "end", "S_SETHALT": "halt", "S_TRAP": "trap",
    "S_SENDMSG": "message", "S_SENDMSGHALT": "message",
    "S_SETKILL": "nop",             # pixel-shader kill mask: no effect on compute waves
    # scheduling and cache hints: no architectural effect in an emulator that executes in order
    "S_NOP": "nop", "S_CLAUSE": "nop", "S_DELAY_ALU": "nop", "S_SET_INST_PREFETCH_DISTANCE": "nop",
    "S_SETPRIO": "nop", "S_INCPERFLEVEL": "nop", "S_DECPERFLEVEL": "nop", "S_ICACHE_INV": "nop",
    "S_TTRACEDATA": "nop", "S_TTRACEDATA_IMM": "nop", "S_DCACHE_INV": "nop", "S_GL1_INV": "nop",
    "BUFFER_GL0_INV": "nop", "BUFFER_GL1_INV": "nop", "V_NOP": "nop", "V_PIPEFLUSH": "nop",
    "DS_NOP": "nop",                # "Do nothing."
    # probes of the address translation cache: no destination, no effect on data
    "S_ATC_PROBE": "nop", "S_ATC_PROBE_BUFFER": "nop",
    # RDNA4 cache write-back / invalidate and prefetches: memory here has no caches
    "GLOBAL_WB": "nop", "GLOBAL_INV": "nop", "GLOBAL_WBINV": "nop",
    "S_PREFETCH_INST": "nop", "S_PREFETCH_INST_PC_REL": "nop", "S_PREFETCH_DATA": "nop",
    "S_BUFFER_PREFETCH_DATA": "nop", "S_PREFETCH_DATA_PC_REL": "nop",
    # CDNA cache write-backs and invalidations (the emulator's memory has no caches), and
    # V_CLREXCP ("clear this wave's exception state": exceptions are not modelled)
    "S_DCACHE_WB": "nop", "S_DCACHE_WB_VOL": "nop", "S_DCACHE_INV_VOL": "nop", "BUFFER_WBL2": "nop",
    "BUFFER_INV": "nop", "V_CLREXCP": "nop",
}


def _nothing(ctx):
    return {}


def _set_mode_field(lo: int, width: int):
    """s_round_mode / s_denorm_mode: SIMM16[width-1:0] replaces MODE[lo+width-1:lo]
    (FP_ROUND is MODE[3:0], FP_DENORM MODE[7:4]; isa tables 'mode')."""
    mask = ((1 << width) - 1) << lo

    def fn(ctx):
        simm = int(ctx.get("SIMM16")) & ((1 << width) - 1)
        mode = np.asarray(ctx.mode, np.uint64).reshape(-1, 1)
        return {"MODE": (mode & np.uint64(~mask & 0xFFFFFFFF)) | np.uint64(simm << lo)}
    return fn


MODE_WRITERS = {"S_ROUND_MODE": _set_mode_field(0, 4), "S_DENORM_MODE": _set_mode_field(4, 4)}


def _op(name: str, bits: int = 32, ty: str = "b32") -> Operand:
    return Operand(name, bits, ty)


# data-parallel hand-written semantics: name -> (function, reads, writes, what it does)
_ADDR, _DATA, _RET = _op("ADDR", 64, "u64"), _op("DATA"), _op("RETURN_DATA")
# (functions named in lanes.py)
DATA_PARALLEL = {
    "DS_BPERMUTE_B32": ("ds_bpermute", (_ADDR, _DATA), (_RET,), "lane i <- DATA[lane (ADDR/4) % 32 of its half]"),
    "DS_PERMUTE_B32": ("ds_permute", (_ADDR, _DATA), (_RET,), "DATA -> lane (ADDR/4) % 32 of its half"),
    "DS_SWIZZLE_B32": ("ds_swizzle", (_op("OFFSET", 16, "u16"), _DATA), (_RET,),
                       "lane i <- DATA[swizzle pattern of OFFSET]"),
}


_BUFFER_INPUTS = (_ADDR, _op("FORMAT", 32, "u32"), _op("DST_SEL", 32, "u32"), _op("FORMATS", 0, "table"))


def _buffer_format(name: str, scalar: bool, shape: tuple) -> Semantic:
    """Loads write VDATA (and read its old value where a D16 half stays); stores read it.
    shape: (direction, components, d16, high), the instruction's format_conversion fact."""
    from . import buffer_format
    direction, components, d16, hi = shape
    dwords = (components + 1) // 2 if d16 else components
    vdata = _op("VDATA", 32 * dwords, f"b{32 * dwords}")
    if direction == "load":
        reads = _BUFFER_INPUTS + ((vdata,) if d16 and (hi or components % 2) else ())
        fn, writes = buffer_format.load(name, components, d16, hi), (vdata,)
    else:
        reads, fn, writes = _BUFFER_INPUTS + (vdata,), buffer_format.store(name, components, d16, hi), ()
    return Semantic(name, fn, "hand-written", {o.name: o for o in reads}, {o.name: o for o in writes},
                    scalar=scalar, memory=direction,
                    source="format conversion per the buffer data format (emu/handwritten/buffer_format.py)")


_IMAGE_INPUTS = _BUFFER_INPUTS + (_op("DMASK", 4, "u32"), _op("D16", 1, "u32"), _op("UNBOUND", 1, "u32"),
                                  _op("VDATA", 128, "b128"))


def _image_format(name: str, spec) -> Semantic | None:
    """IMAGE_LOAD(_MIP) / IMAGE_STORE(_MIP) (emu/handwritten/image_format.py): an image-format
    load or store that takes no sampler, gathers no four texels, returns no resource info and
    intersects no ray, and converts its data through the resource's format (isa.memory_access.takes_d16:
    the D16 field's opcodes); not the packed (_PCK) forms, moved "without format conversion", whose
    packing the manual does not define. The data VGPRs' count comes from the encoding (DMASK, D16):
    VDATA as wide as four."""
    if spec is None:
        return None
    from isa.memory_access import gathers_four, image_address, memory_access, ray_query, takes_d16, takes_sampler
    image = spec.traits.roles.image
    for d in spec.lookup(name):
        if d.format in image and takes_d16(d) and not (takes_sampler(d) or gathers_four(d)
                                                       or image_address(d).resource_info or ray_query(d)):
            direction = memory_access(d, True).direction
            if direction in ("load", "store"):
                from . import image_format
                vdata = _IMAGE_INPUTS[-1]
                fn = image_format.load(name) if direction == "load" else image_format.store(name)
                return Semantic(name, fn, "hand-written", {o.name: o for o in _IMAGE_INPUTS},
                                {"VDATA": vdata} if direction == "load" else {}, memory=direction,
                                source="image texel load/store with format conversion by the T# "
                                       "(emu/image.py, emu/handwritten/image_format.py)")
    return None


def _format_conversion(name: str, spec) -> tuple | None:
    """The format_conversion fact of the buffer instruction `name` of spec, or None."""
    if spec is None:
        return None
    buffer = spec.traits.roles.buffer
    return next((shape for d in spec.lookup(name)
                 if d.format in buffer and (shape := instruction_facts.format_conversion(d))), None)


def semantic(name: str, scalar: bool, spec=None, encoding=None) -> Semantic | None:
    """The hand-written semantic of `name`, or None. `spec` (isa.Spec) supplies the instruction's
    definitions, whose facts pick some of them (a format conversion, whole matrices: WMMA, the
    VINTERP format), and the tables some read (s_setreg's writable bits). `encoding` (one of
    those definitions: the one being prepared) narrows the whole-matrix test to it, so preparing
    a kernel reads the facts of the encodings it runs, not of every encoding of the name."""
    shape = _format_conversion(name, spec)
    if shape is not None:
        return _buffer_format(name, scalar, shape)
    if name.startswith("IMAGE_"):
        image = _image_format(name, spec)
        if image is not None:
            return image
    if name in ("DS_APPEND", "DS_CONSUME"):
        from . import append
        return Semantic(name, append.counter(name, +1 if name == "DS_APPEND" else -1), "hand-written",
                        {"M0": _op("M0"), "OFFSET": _op("OFFSET", 16, "u16")}, {"RETURN_DATA": _RET},
                        scalar=scalar, memory="atomic",
                        source="LDS[M0[15:0] + offset] += / -= countbits(EXEC) once per wave; lanes get the old value")
    if name in ("S_SETREG_B32", "S_SETREG_IMM32_B32") and spec is not None:
        from . import hwreg
        source = _op(hwreg.source(name, spec))
        return Semantic(name, hwreg.setreg(name, spec), "hand-written",
                        {"SIMM16": Operand("SIMM16", 16, "u16"), source.name: source}, {}, scalar=True,
                        source="HW_REGISTERS[id][offset+size-1:offset] <- source (writable bits only)")
    defs = spec.lookup(name) if spec is not None else ()
    matrix = next((d for d in ((encoding,) if encoding is not None else defs) if instruction_facts.matrix(d)), None)
    if matrix is not None:   # WMMA
        wmma_semantic = _wmma(name, spec, matrix)
        if wmma_semantic is not None:
            return wmma_semantic
    if spec is not None and spec.tables.get("mfma"):
        from . import mfma
        matrix = mfma.shapes(spec).get(name)
        if matrix is not None:
            reads, writes = mfma.operands(matrix)
            family = spec.arch
            overflow = next((lo for field, _, lo, _ in spec.tables.get("mode", ()) if field == "FP16_OVFL"), None)
            return Semantic(name, lambda ctx: mfma.execute(name, matrix, family, ctx, overflow), "hand-written",
                            reads, writes,
                            all_lanes=True, source="D = A x B + C on blocks of matrices across the wave64 (manual "
                            "ch. 7; CBSZ/ABID/BLGP raw, see emu/handwritten/mfma.py)")
    if any(d.format in spec.traits.roles.interp for d in defs):     # RDNA's VINTERP
        from . import interp
        if name in interp.VARIANTS:
            reads, writes = interp.operands(name)
            from ..rounding import directed_calls
            return Semantic(name, lambda ctx: interp.execute(name, ctx), "hand-written", reads, writes,
                            rounds_packed=interp.round_widths(name), directed=directed_calls(interp.ROUNDS_THROUGH),
                            source="fma of attribute data from fixed lanes of the quad (manual's VINTERP entries; "
                                   "see emu/handwritten/interp.py)")
    if name in DATA_PARALLEL:
        from . import lanes
        fn, reads, writes, what = DATA_PARALLEL[name]
        fn = getattr(lanes, fn)
        if name in ("DS_BPERMUTE_B32", "DS_PERMUTE_B32") and spec is not None:
            # the lane modulus of the architecture's pseudocode in each wave size (`/ 4 % 32`: RDNA3;
            # `/ 4U % 64U`: CDNA3; `% num_lanes`, the wave size: RDNA4), 32 where it gives none
            # (the lane_modulus fact)
            lds = spec.traits.roles.lds
            modulus = next((instruction_facts.lane_modulus(d) for d in spec.lookup(name) if d.format in lds),
                           None) or (32, 32)
            fn, what = partial(fn, modulus=modulus), what.replace(
                "% 32 of its half", f"% {modulus[0]} in wave32, % {modulus[1]} in wave64, of its group of that many")
        return Semantic(name, fn, "hand-written", {o.name: o for o in reads}, {o.name: o for o in writes},
                        scalar=scalar, source=what)
    if name in MODE_WRITERS:
        return Semantic(name, MODE_WRITERS[name], "hand-written", reads={"SIMM16": Operand("SIMM16", 16, "u16")},
                        writes={"MODE": Operand("MODE", 32, "u32")}, scalar=True,
                        source="MODE field <- SIMM16 (the manual describes it in prose)")
    if name in CONTROL:
        return Semantic(name, _nothing, "hand-written", scalar=scalar, control=CONTROL[name],
                        source=f"machine event: {CONTROL[name]}")
    return None


def _wmma(name: str, spec, d) -> Semantic | None:
    """RDNA4's striped WMMA layout, or RDNA3's replicated one (emu/handwritten/wmma*.py), of `d`,
    computing in the element types of its code's shapes (emu.facts.matrix_shapes: `S0.f16(16x16)`);
    None for a form the layout does not implement. The sources whose NEG bit says signed are its
    signed_by_neg fact (emu.facts)."""
    from dsl.syntax import WMMA_REPLICATED
    from . import wmma, wmma_rdna4
    shapes = instruction_facts.matrix_shapes(d)
    if spec is not None and spec.traits.family not in WMMA_REPLICATED:
        types = wmma_rdna4.variant(shapes)
        if types is None:
            return None
        reads, writes = wmma_rdna4.operands(types)
        return Semantic(name, lambda ctx: wmma_rdna4.execute(name, types, ctx), "hand-written", reads, writes,
                        source="D = A x B + C, 16x16 matrices striped across the wave (RDNA4 manual 7.12.2; "
                               "see emu/handwritten/wmma_rdna4.py)")
    types = wmma.variant(shapes)
    if types is None:
        return None
    reads, writes = wmma.operands(types)
    signed = instruction_facts.signed_by_neg(d)
    return Semantic(name, lambda ctx: wmma.execute(name, types, ctx, signed), "hand-written", reads, writes,
                    cross_lane=False, source="D = A x B + C, 16x16 matrices across the wave "
                    "(manual 7.9; OPSEL/NEG bits raw, see emu/handwritten/wmma.py)")
