"""The semantics contract's own mechanics: batch shapes, EXEC lanes, output fitting."""
import numpy as np
import pytest

from emu.semantics import Ctx, Operand, Semantic, SemanticsError


def test_active_lanes_follow_exec_bits():
    ctx = Ctx(lanes=32, exec_mask=np.array([[0b1011], [1 << 31]], np.uint64))
    assert ctx.shape == (2, 32)
    assert np.flatnonzero(ctx.active[0]).tolist() == [0, 1, 3]
    assert np.flatnonzero(ctx.active[1]).tolist() == [31]


def test_execute_broadcasts_outputs_to_the_batch_and_keeps_lane_bits_bool():
    sem = Semantic("T", lambda c: {"D0": np.uint32(7), "VCC": c.lane_id % 2 == 1}, "hand-written",
                   writes={"D0": Operand("D0", 32, "u32"), "VCC": Operand("VCC", 64, "u64", lane_bit=True)})
    out = sem.execute(Ctx(lanes=64, exec_mask=np.full((3, 1), ~np.uint64(0))))
    assert out["D0"].shape == (3, 64) and out["D0"].dtype == np.uint32 and (out["D0"] == 7).all()
    assert out["VCC"].dtype == bool and out["VCC"][2].sum() == 32


def test_missing_operand_is_named():
    with pytest.raises(SemanticsError, match="V_X: operand S1 was not supplied"):
        Ctx(lanes=32, exec_mask=np.zeros((1, 1), np.uint64), inputs={"S0": 1}).get("S1", "V_X")


def test_coverage_command_reports_per_format_and_total(capsys):
    import wavesmith
    assert wavesmith.main(["emu", "--coverage", "--arch", "gfx1100"]) == 0
    out = capsys.readouterr().out
    assert "VOPC" in out and "(graphics)" in out
    pct = float(out.strip().splitlines()[-1].split("(")[-1].rstrip("%)"))
    assert pct >= 95.0


def test_unsupported_pseudocode_is_reported_not_crashing():
    from emu.table import load_semantics
    tab = load_semantics("gfx1100")
    d = tab.spec.lookup("v_wmma_f32_16x16x16_f16")[0]
    e = tab.entry(d)
    assert e.status in ("unsupported", "hand-written")
    if e.status == "unsupported":
        assert "V_WMMA_F32_16X16X16_F16" in e.reason
