"""`wavesmith demo`: a tour of what exists so far — the generated ISA and decoding."""
from __future__ import annotations

from . import load
from .gen import stats
from .mnemonics import text_mnemonic

# Real RDNA3 encodings, as LLVM 22 assembles them. The demo names them using nothing
# but the generated format and opcode tables.
SAMPLE = bytes.fromhex(
    "000404f4c785123a"   # SMEM
    "06066507"           # VOP2
    "015652dcd9001006"   # GLOBAL
    "29bfc9c89bbcc803"   # VOPD (two instructions in one)
    "0107d8d8010000a2"   # DS
    "024241cc0b13133e"   # VOP3P (WMMA)
    "0000b0bf"           # SOPP
)


def demo(target: str = "gfx1100") -> int:
    spec = load(target)
    print(f"wavesmith demo — target {target} ({spec.arch}), ISA generated from {spec.source['file']}")
    print(f"  ({spec.source['title']}, {spec.source['date']}, sha256 {spec.source['sha256'][:16]}…)\n")
    print(stats(spec.arch))
    print("\nDecoding a few instruction words with the generated tables:")
    pos = 0
    while pos < len(SAMPLE):
        fmt, defs = spec.identify(SAMPLE[pos:])
        size = fmt.width // 8
        word = SAMPLE[pos:pos + size]
        names = " :: ".join(text_mnemonic(d.name) for d in defs) or "(unused opcode)"
        print(f"  {word.hex():<16}  {fmt.name:<7} {names}")
        pos += size
    d = spec.lookup("v_fma_f32")[0]
    print(f"\nPseudocode of {d.name} ({d.format} opcode {d.opcode}, page {d.pcode_page}):")
    print("    " + (d.pcode or "").replace("\n", "\n    "))
    print("\nNext: the DSL and assembler (dsl/), code objects (runtime/), the emulator (emu/).")
    return 0
