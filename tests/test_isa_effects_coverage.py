"""Every instruction the emulator runs is covered by an empirical check of the operand-effects
model or left out with a reason (tests/effects_coverage.py): the table per target and format
is printed; an instruction that is neither fails, so a new one cannot slip through."""
from __future__ import annotations

import pytest

from tests.effects_coverage import TARGETS, coverage, emulator_supports, table


@pytest.mark.parametrize("target", TARGETS)
def test_every_emulated_instruction_is_checked_or_listed(target):
    rows = coverage(target)
    print(f"\n{target}:\n{table(rows)}")
    unlisted = [f"{fmt} {name}" for fmt, r in rows.items() for name in r["unlisted"]]
    assert not unlisted, "emulated instructions no effects check covers and no reason lists:\n" + "\n".join(unlisted)
    assert all(why for r in rows.values() for _, why in r["listed"])
    # the table counts each emulated instruction (name, format) once
    assert sum(r["supported"] for r in rows.values()) == len(emulator_supports(target.split("-")[0]))


def test_an_unchecked_instruction_without_a_reason_fails(monkeypatch):
    """With the control check gone, the branches show up as unlisted."""
    import tests.effects_coverage as cov
    real = cov.checkers
    monkeypatch.setattr(cov, "checkers", lambda: [c for c in real() if c[0] != "control"])
    rows = coverage("gfx1100")
    assert "S_CBRANCH_SCC0" in rows["SOPP"]["unlisted"] and "S_SETPC_B64" in rows["SOP1"]["unlisted"]


@pytest.mark.parametrize("target", ("gfx1100", "gfx1151", "gfx1201"))
def test_the_machine_runs_the_image_instructions_it_counts(target):
    """The image instructions the coverage counts as emulated (emu/image.py: image_load/_mip,
    image_store/_mip, the atomics) run: each name's first encoding in LLVM 22's corpus (bytes
    it decoded; TFE only on a load; some names have none the manual allows) runs on an all-zero, unbound T# (the manual: "returns all zeros and not
    generate a memory transaction"), which loads zeros; an encoding the manual calls illegal (an
    atomic's DMASK other than 0x1 / 0x3 for cmpswap, RDNA3 10.4) or the emulator refuses (stores with
    DMASK 0, D16 stores of other DMASKs, TFE on a store or atomic) is passed over. A sampling one stays refused with its reason."""
    import gzip

    import numpy as np

    import isa
    from dsl import assemble
    from dsl.decode import DecodeError, decode_one
    from emu.launch import Dispatch
    from emu.machine import Machine
    from emu.memory import DeviceMemory
    from isa.memory_access import memory_access
    from tests.conftest import shared_path
    spec = isa.load(target)
    image = spec.traits.roles.image
    counted = {name for name, fmt in emulator_supports(target) if fmt in image}
    assert {"IMAGE_LOAD", "IMAGE_STORE", "IMAGE_LOAD_MIP", "IMAGE_STORE_MIP", "IMAGE_ATOMIC_CMPSWAP"} <= counted
    assert not any("SAMPLE" in name or "GATHER" in name or "_PCK" in name for name in counted)
    firsts = {}
    with gzip.open(shared_path("conformance", "llvm", f"{target}.tsv.gz"), "rt") as fh:
        for line in fh:
            family, data = line.split("\t")[:2]
            if family in ("MIMG", "VIMAGE", "VSAMPLE"):
                try:
                    inst = decode_one(spec, bytes.fromhex(data))
                except DecodeError:         # (a row LLVM decoded from fewer bytes than the format has)
                    continue
                name = inst.defs[0].name
                f = inst.fields
                access = memory_access(inst.defs[0], True)
                legal = f.get("DMASK") == (1 << (access.data_dwords or 1)) - 1 if access.direction == "atomic" \
                    else not (access.direction == "store" and (f.get("DMASK") == 0 or f.get("D16")
                                                               and f.get("DMASK") not in (1, 3, 7, 15)))
                legal = legal and not (f.get("TFE") and access.direction != "load")    # TFE: a fetch's status
                if name not in firsts and legal and (name in counted or name == "IMAGE_SAMPLE"):
                    firsts[name] = bytes.fromhex(data)
    assert len(set(firsts) & counted) >= 8 and {"IMAGE_LOAD", "IMAGE_STORE"} <= set(firsts)
    for name, code in firsts.items():
        mem = DeviceMemory()
        prog = code + assemble("s_endpgm", target)
        addr = mem.alloc(len(prog), "code")
        mem.write(addr, np.frombuffer(prog, np.uint8))
        run = lambda: Machine(target, mem).run(Dispatch("image", addr, grid=(1, 1, 1), block=(32, 1, 1),  # noqa: E731
                                                        wave_size=32, vgprs=256))
        if name == "IMAGE_SAMPLE":
            with pytest.raises(Exception, match="image_sample .*has no semantics"):
                run()
        else:
            run()
