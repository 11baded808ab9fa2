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


@pytest.mark.parametrize("target", ("gfx1100", "gfx1201"))
def test_the_machine_runs_no_image_instruction(target):
    """The image atomics have generated semantics (emu/table.py), yet the machine refuses their
    formats, so the coverage does not count them as emulated: one of them, from LLVM 22's
    corpus (bytes it decoded), stops the launch with the refusal. When the
    machine runs images, this fails and effects_coverage.emulator_supports must count them."""
    import gzip

    import numpy as np

    import isa
    from dsl import assemble
    from dsl.decode import decode_one
    from emu.launch import Dispatch
    from emu.machine import Machine
    from emu.memory import DeviceMemory
    from emu.table import load_semantics
    from tests.conftest import shared_path
    spec = isa.load(target)
    semantics = load_semantics(target)
    with_semantics = {d.name for d, e in semantics.entries()
                      if e.status != "unsupported" and d.format in spec.traits.roles.image}
    assert with_semantics, "no image instruction has a semantic: drop this test and the exclusion"
    with gzip.open(shared_path("conformance", "llvm", f"{target}.tsv.gz"), "rt") as fh:
        rows = [line.split("\t") for line in fh if line.split("\t")[0] in ("MIMG", "VIMAGE", "VSAMPLE")]
    code = next(bytes.fromhex(data) for _, data, *_ in rows
                if decode_one(spec, bytes.fromhex(data)).defs[0].name in with_semantics)
    mem = DeviceMemory()
    prog = code + assemble("s_endpgm", target)
    addr = mem.alloc(len(prog), "code")
    mem.write(addr, np.frombuffer(prog, np.uint8))
    with pytest.raises(Exception, match="does not run (MIMG|VIMAGE) instructions"):
        Machine(target, mem).run(Dispatch("image", addr, grid=(1, 1, 1), block=(32, 1, 1), wave_size=32, vgprs=64))
