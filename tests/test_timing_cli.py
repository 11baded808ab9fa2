"""`wavesmith emu --time/--timeline`: the timing model from the command line, on the built-in
DSL kernel and on a shared clang kernel, and its HTML timeline's embedded data; and the usage
errors for arguments a mode of `emu` (or of another command) would silently ignore."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))
CONV = SHARED / "kernels" / "conv1d" / "gfx1100.hsaco"


def wavesmith(*args):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, str(REPO / "wavesmith.py"), *args], capture_output=True, text=True, env=env,
                          timeout=600)


def timeline_data(path: Path) -> dict:
    text = path.read_text()
    m = re.search(r'<script id="timeline-data" type="application/json">(.*?)</script>', text, re.S)
    assert m, "no embedded data"
    assert "http://" not in text and "https://" not in text      # self-contained: nothing fetched
    return json.loads(m.group(1))


def test_demo_kernel_time_and_timeline(tmp_path):
    out = tmp_path / "t.html"
    r = wavesmith("emu", "--time", "--timeline", str(out), "--grid", "4", "--block", "64", "--waves")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    m = re.match(r"saxpy \(gfx1100\): ([\d,]+) cycles = ([\d.]+) us at 2.5 GHz, 8 waves", first)
    assert m, first
    cycles = int(m.group(1).replace(",", ""))
    assert abs(cycles / 2.5e3 - float(m.group(2))) < 0.01
    assert "s_waitcnt" in r.stdout and "stall" in r.stdout
    d = timeline_data(out)
    assert len(d["rows"]) == 8
    # every row ends with s_endpgm and its bars are in issue order
    for row in d["rows"]:
        times = [it[1] for it in row["items"]]
        assert times == sorted(times) and d["texts"][row["items"][-1][0]].startswith("s_endpgm")


@pytest.mark.skipif(not CONV.exists(), reason="shared kernel corpus absent")
def test_clang_kernel_timeline(tmp_path):
    out = tmp_path / "conv.html"
    r = wavesmith("emu", str(CONV), "--grid", "4", "--block", "128", "--arg", "float32:512:uniform(-1,1)",
                  "--arg", "float32:15:uniform(-1,1)", "--arg", "float32:512", "--arg", "uint32=512", "--arg", "uint32=7",
                  "--timeline", str(out), "--top", "5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("conv1d (gfx1100):")
    d = timeline_data(out)
    assert len(d["rows"]) == 16          # 4 groups x 128 work-items / 32 lanes
    assert any(t.startswith("global_load") for t in d["texts"])


def test_bad_arguments_are_one_line_errors(tmp_path):
    r = wavesmith("emu", "--time", "--arg", "float99:3")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "float99" in r.stderr
    r = wavesmith("emu", "--time", "--grid", "0")
    assert r.returncode == 2 and "--grid" in r.stderr
    r = wavesmith("emu", "--timeline", str(tmp_path / "missing" / "x.html"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    assert not (tmp_path / "missing").exists()
    r = wavesmith("emu", "--help")
    assert r.returncode == 0 and "--timeline" in r.stdout and "TYPE:COUNT" in r.stdout


@pytest.mark.skipif(not __import__("shutil").which("node"), reason="node (JavaScript) not installed")
def test_timeline_script_draws_and_hovers(tmp_path):
    """The page's own script, run by node against a stub canvas: it draws a bar per
    instruction and a tooltip naming PC, instruction and cause under the mouse."""
    out = tmp_path / "t.html"
    r = wavesmith("emu", "--timeline", str(out), "--grid", "2", "--block", "64")
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    data = re.search(r'<script id="timeline-data" type="application/json">(.*?)</script>', text, re.S).group(1)
    script = re.findall(r"<script>(.*?)</script>", text, re.S)[0]
    stub = """
const calls = {fillRect: 0}, handlers = {};
const ctx = {clearRect() {}, fillRect() { calls.fillRect++; }, fillText() {}, set fillStyle(v) {}, set font(v) {}};
const canvas = {width: 1400, height: 400, getContext() { return ctx; }, getBoundingClientRect() { return {left: 0, top: 0}; },
                addEventListener(k, f) { handlers[k] = f; }};
const TIP = {style: {}, textContent: ''};
const document = {getElementById(id) { return id === 'timeline-data' ? {textContent: DATA} : id === 'c' ? canvas : TIP; }};
const window = {addEventListener() {}};
"""
    probe = """
const r = D.rows[0], it = r.items[r.items.length - 1];
const x = LEFT + (it[1] + 0.5 - a) * (canvas.width - LEFT - 10) / (b - a);
handlers.mousemove({clientX: x, clientY: TOP + 5});
console.log(JSON.stringify({rects: calls.fillRect, items: D.rows.reduce((n, r) => n + r.items.length, 0), tip: TIP.textContent}));
"""
    js = tmp_path / "check.js"
    js.write_text("const DATA = " + json.dumps(data) + ";\n" + stub + script + probe)
    res = subprocess.run(["node", str(js)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["rects"] >= got["items"] > 0
    assert "pc 0x" in got["tip"] and "s_endpgm" in got["tip"]


# (argv, the arguments the refusal must name): combinations whose mode would silently ignore them
IGNORED = [
    (["emu", "--coverage", "kernel.s", "--grid", "4"], ["'kernel.s'", "--grid"]),
    (["emu", "--cov", "--time", "--block", "64"], ["--time", "--block"]),     # abbreviations count too
    (["emu", "--coverage", "--seed", "0"], ["--seed"]),                       # a value equal to the default too
    (["emu", "--coverage", "--arg", "uint32=1", "--waves", "--top", "3"], ["--arg", "--waves", "--top"]),
    (["emu", "--coverage", "--timeline", "t.html"], ["--timeline"]),
    (["emu", "--time", "-v"], ["-v/--verbose"]),
    (["emu", "--time", "--kernel", "k"], ["--kernel"]),
    (["debug", "--kernel", "k"], ["--kernel"]),
    (["demo", "--isa", "--dsl", "--seconds", "3"], ["--dsl", "--seconds"]),
    (["demo", "--dsl", "--no-disasm"], ["--no-disasm"]),
    (["gen", "--stats", "--pdf-dir", "x", "--quiet"], ["--pdf-dir", "--quiet"]),
]


@pytest.mark.parametrize("argv,named", IGNORED, ids=[" ".join(a) for a, _ in IGNORED])
def test_arguments_a_mode_would_ignore_are_a_usage_error(argv, named, capsys, tmp_path, monkeypatch):
    import wavesmith as cli
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:        # argparse's usage error: exit status 2, before anything runs
        cli.main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"usage: wavesmith {argv[0]} ")
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"wavesmith {argv[0]}: error: ") and "ignored" in last
    assert all(name in last for name in named), last
    assert not list(tmp_path.iterdir())          # no timeline (or anything else) written


def test_options_a_mode_uses_are_still_accepted(capsys, tmp_path):
    import wavesmith as cli
    assert cli.main(["emu", "--coverage", "--arch", "gfx1100", "-v"]) == 0
    assert "rdna3:" in capsys.readouterr().out
    assert cli.main(["emu", "--time", "--grid", "1", "--block", "32", "--seed", "1", "--waves", "--top", "2"]) == 0
    table = capsys.readouterr().out
    assert "cycles" in table
    # --top with --timeline alone prints the same stall table as with --time (it was silently dropped)
    assert cli.main(["emu", "--timeline", str(tmp_path / "t.html"), "--grid", "1", "--block", "32", "--seed", "1",
                     "--waves", "--top", "2"]) == 0
    assert capsys.readouterr().out == table and (tmp_path / "t.html").exists()


def test_emu_help_says_coverage_runs_no_kernel():
    r = wavesmith("emu", "--help")
    text = " ".join(r.stdout.split())
    assert r.returncode == 0 and "it runs no kernel" in text and "usage error" in text
