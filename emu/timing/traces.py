"""Measured thread traces (../shared/timing/<arch>/*.json, README there) as model input:
decode a capture's code with our decoder, classify it, and replay its measured waves
through the engine with their measured launch cycles and SIMDs.

A capture: `code_hex` is the raw code placed at `text_offset` (the PCs of `insts`); `waves`
hold per-instruction issue cycles `t` of the traced waves; `wave_lifetimes` every wave's
start/end. The 7900 XTX trace of `discover_ops` carries a few RDNA3.5 SALU encodings
(s_ceil_f16, s_cmp_*_f16/f32, ...) that the RDNA3 manual does not define; they decode with
the RDNA3.5 tables (`fallback`)."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import isa
from dsl.decode import DecodeError, decode_one
from isa.records import dataclass

from .arch import ArchTiming
from .classify import Classifier, OpInfo
from .engine import Engine, WaveSpec, WaveTiming

FALLBACK = {"gfx1100": "gfx1151"}

# Distinct 128-byte lines one wave's vector memory instruction touches (the traces hold no
# addresses), by kernel and offset from the code's start; an instruction not listed touches
# one line (the one-wave kernels: E_3 adds 3 contiguous floats). The 32x32 matmul, as
# tests/test_timing_traces.py runs it on the functional emulator (grid 32x32 of 16 lanes,
# A and B 32x32 floats; the recorder counts the lines its addresses touch): the
# global_load_b64 of A's row 1 line, each global_load_b32 of a column of B 16 lines, the
# store of lane 0 1 line.
LINES = {"r_32_32_16_2": {0x6c: 1, 0x78: 16, 0x80: 16, 0x160: 1}}


@dataclass
class Capture:
    kernel: str
    source: str
    ops: dict              # pc -> OpInfo
    text: dict             # pc -> disassembly
    waves: list            # measured: dicts se/cu/simd/wave/insts
    lifetimes: list        # measured: dicts se/cu/simd/wave/start/end
    straight: list         # the PCs from the entry to the first s_endpgm (kernels without branches)


def _decode_all(code: bytes, base: int, arch: str, semantics_for) -> tuple[dict, dict]:
    from dsl.disasm import instruction_text
    ops, text = {}, {}
    specs = [(arch, isa.load(arch))]
    if arch in FALLBACK:
        specs.append((FALLBACK[arch], isa.load(FALLBACK[arch])))
    classifiers = {}
    pos = 0
    while pos + 4 <= len(code):
        inst, spec_arch = None, None
        for a, spec in specs:
            try:
                inst, spec_arch = decode_one(spec, code, pos), a
                break
            except DecodeError:
                continue
        if inst is None:
            pos += 4
            continue
        if spec_arch not in classifiers:
            classifiers[spec_arch] = Classifier(dict(specs)[spec_arch], semantics_for(spec_arch))
        ops[base + pos] = classifiers[spec_arch].classify(inst, base + pos)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                text[base + pos] = instruction_text(dict(specs)[spec_arch], inst, 32)
            except DecodeError:     # operand codes that name no operand: the name alone
                text[base + pos] = inst.name.lower()
        pos += inst.size
    return ops, text


def load_captures(path: Path, arch: str = "gfx1100", semantics_for=None) -> list[Capture]:
    if semantics_for is None:
        from ..table import load_semantics
        semantics_for = load_semantics
    out = []
    for e in json.loads(Path(path).read_text()):
        base = int(e["text_offset"])
        ops, text = _decode_all(bytes.fromhex(e["code_hex"]), base, arch, semantics_for)
        straight, pc = [], base
        while pc in ops and len(straight) < 100000:
            straight.append(pc)
            if ops[pc].kind == "end":
                break
            pc += ops[pc].size
        for offset, lines in LINES.get(e["kernel"], {}).items():
            ops[base + offset].lines = lines
        out.append(Capture(e["kernel"], e["source"], ops, text, e["waves"], e["wave_lifetimes"], straight))
    return out


def _key(w: dict) -> tuple:
    return (w["se"], w["cu"], w["simd"], w["wave"])


def replay_traced(cap: Capture, params: ArchTiming, release_waits: bool = True) -> list[tuple[dict, WaveTiming]]:
    """Every traced wave replayed with the waves of its SIMD, each launched so that its first
    instruction issues when the trace has it (measured first issue minus the model's launch
    latency: the traces' wave start times depend on the decoder, their README says to measure
    from a wave's first instruction); returns (measured wave, predicted timing) pairs."""
    specs, measured = [], []
    for w in cap.waves:
        stream = [i["pc"] for i in w["insts"]]
        start = w["insts"][0]["t"] - params.launch_latency
        # memory return times are not in the traces; an s_waitcnt's issue shows when they came back
        released = {k: i["t"] for k, i in enumerate(w["insts"]) if cap.ops.get(i["pc"]) is not None
                    and cap.ops[i["pc"]].kind == "wait"} if release_waits else None
        specs.append(WaveSpec(stream, start, (w["se"], w["cu"], w["simd"]), None, f"se{w['se']} wave{w['wave']}",
                              released))
        measured.append(w)
    # each wave's first issue where the trace has it, whether or not another fetched its code
    result = Engine(cap.ops, params.with_(launch_setup=params.launch_latency)).run(specs)
    return list(zip(measured, result))


def replay_lifetimes(cap: Capture, params: ArchTiming, stream: list | None = None) -> list[tuple[dict, WaveTiming]]:
    """Every wave of the capture (wave_lifetimes) replayed with its measured start and SIMD,
    running `stream` (default: a traced wave's PCs, else the straight-line code)."""
    if stream is None:
        stream = [i["pc"] for i in cap.waves[0]["insts"]] if cap.waves else cap.straight
    specs = [WaveSpec(stream, lt["start"], (lt["se"], lt["cu"], lt["simd"]), None, str(_key(lt))) for lt in cap.lifetimes]
    return list(zip(cap.lifetimes, Engine(cap.ops, params).run(specs)))
