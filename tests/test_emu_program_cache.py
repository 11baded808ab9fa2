"""Program records (emu/program_cache.py, switch program_cache): a code image's decoded
instructions, facts and translations kept in one file. A later machine takes its decodes from
the record (none decoded again) and a later process its facts and translations too (no key
worked out, no per-instruction file read); a record never serves another image, another ISA's
instructions or a damaged file, and launches from a record leave the same memory, registers and
fault as reference mode, bit for bit."""
from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import numpy as np
import pytest

from emu import machine as machine_module
from emu import program_cache
from emu.options import FAST, REFERENCE, options_from
from tests.conftest import SHARED
from tests.emu_differential import differences, run_outcome
from tests.kernel_corpus import Case, compare, make_inputs

ROOT = Path(__file__).resolve().parent.parent
FOLDER = SHARED / "kernels" / "ew_f32_fma_minmax"
OTHER = SHARED / "kernels" / "sgemm_naive"
pytestmark = pytest.mark.skipif(not FOLDER.exists() or not OTHER.exists(), reason="kernel corpus not found")


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    """Records in a folder of the test's own (the fact and translation caches stay the process's)."""
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path))
    program_cache._folder.cache_clear()
    yield tmp_path / "emu"
    program_cache._folder.cache_clear()


@pytest.fixture
def decodes(monkeypatch):
    """Counts the machine's calls of the decoder (a list of one int)."""
    count = [0]
    real = machine_module.decode_one

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(machine_module, "decode_one", counting)
    return count


def run(folder: Path, options=FAST, n: int = 2048):
    """(outcome, machine) of one launch of a corpus kernel on a new device (fresh machine): the
    elementwise kernel over n elements, another on its manifest's grid."""
    from runtime import Device
    manifest = json.loads((folder / "manifest.json").read_text())
    elementwise = folder == FOLDER
    if elementwise:
        manifest = dict(manifest, params=dict(manifest["params"], N=n))
    dev = Device("emu", arch="gfx1100", options=options)
    inputs = make_inputs(manifest)
    prg = dev.load((folder / manifest["code_objects"]["gfx1100"]).read_bytes())
    args = [inputs[a["name"]] if a["kind"] == "scalar" else
            dev.alloc(inputs[a["name"]].nbytes, a["name"]).copyin(inputs[a["name"]]) for a in manifest["args"]]
    grid = [-(-n // 256), 1, 1] if elementwise else manifest["launch"]["grid"]
    outcome = run_outcome(dev.machine, lambda: prg.launch(manifest["kernel"], grid=grid,
                                                          block=manifest["launch"]["block"], args=args))
    return outcome, dev.machine


def records(home: Path) -> list[Path]:
    return sorted(home.glob("programs-*/*"))


def the_record(machine):
    (record,) = [r for r in machine._records.values() if r is not None]
    return record


def test_a_later_machine_decodes_nothing_and_agrees_with_reference_mode(cache_home, decodes):
    first, m1 = run(FOLDER)
    assert not the_record(m1).read and decodes[0] > 0
    (path,) = records(cache_home)
    assert path.suffix == ".bin"                    # written whole: no temporary file left
    made = decodes[0]
    second, m2 = run(FOLDER)
    assert the_record(m2).read and decodes[0] == made       # every PC from the record
    assert m2._decoded and {pc - m2.memory.base for pc in m2._decoded} == {pc - m1.memory.base for pc in m1._decoded}
    # the same decodes as the decoder's
    for pc, inst in m2._decoded.items():
        assert inst == m1._decoded[pc - m2.memory.base + m1.memory.base]
    reference, _ = run(FOLDER, REFERENCE)
    assert not differences(second, reference) and not differences(first, reference)


def test_the_switch_off_reads_and_writes_no_record(cache_home, decodes):
    run(FOLDER)
    made = decodes[0]
    _, m = run(FOLDER, options_from(off=["program_cache"]))
    assert decodes[0] == 2 * made and not m._records
    for path in records(cache_home):
        path.unlink()
    run(FOLDER, options_from(off=["program_cache"]))
    assert not records(cache_home)


def _tamper(path: Path, change) -> None:
    version, image, stamp, defs, code = marshal.loads(path.read_bytes()[len(MAGIC_NUMBER):])
    version, image, stamp, defs, code = change(version, image, stamp, [list(d) for d in defs], code)
    path.write_bytes(MAGIC_NUMBER + marshal.dumps((version, image, stamp, [tuple(d) for d in defs], code)))


def _changed_pcode(version, image, stamp, defs, code):
    identity = list(defs[0][1])
    identity[5] = (identity[5] or "") + "\nD0.u32 = 1"        # the pseudocode the record was made from differs
    defs[0][1] = tuple(identity)
    return version, image, stamp, defs, code


def _another_definition(version, image, stamp, defs, code):
    defs[0][0] = (defs[0][0] + 1) % 1000                    # names the definition by another's place
    return version, image, stamp, defs, code


def _other_isa_files(version, image, stamp, defs, code):
    return version, image, tuple((name, size + 1, mtime) for name, size, mtime in stamp), defs, code


def _other_image(version, image, stamp, defs, code):
    return version, image[:-1] + bytes([image[-1] ^ 1]), stamp, defs, code


@pytest.mark.parametrize("damage", ["empty", "garbage", "cut", "other python", "not a tuple", "other version",
                                    "changed pseudocode", "another definition", "other ISA files", "other image"])
def test_a_damaged_stale_or_foreign_record_is_made_again(cache_home, decodes, damage):
    run(FOLDER)
    (path,) = records(cache_home)
    good = path.read_bytes()
    made = decodes[0]
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbage":
        path.write_bytes(b"garbage\x00\xff" * 10)
    elif damage == "cut":
        path.write_bytes(good[:len(good) // 2])
    elif damage == "other python":
        path.write_bytes(bytes([good[0] ^ 0xFF]) + good[1:])
    elif damage == "not a tuple":
        path.write_bytes(MAGIC_NUMBER + marshal.dumps([1, 2, 3]))
    elif damage == "other version":
        _tamper(path, lambda v, *rest: (v + 1, *rest))
    else:
        _tamper(path, {"changed pseudocode": _changed_pcode, "another definition": _another_definition,
                       "other ISA files": _other_isa_files,
                       "other image": _other_image}[damage])
    again, m = run(FOLDER)
    assert not the_record(m).read and decodes[0] == 2 * made      # decoded again, not taken from the file
    reference, _ = run(FOLDER, REFERENCE)
    assert not differences(again, reference)
    assert path.read_bytes() == good                # written again whole
    _, m = run(FOLDER)
    assert the_record(m).read and decodes[0] == 3 * made


def test_different_code_never_shares_a_record(cache_home, decodes):
    _, m1 = run(FOLDER)
    _, m2 = run(OTHER)
    a, b = the_record(m1), the_record(m2)
    assert a.path != b.path and len(records(cache_home)) == 2
    # another image's record under this image's name (a forged or colliding name) is not used
    Path(b.path).write_bytes(Path(a.path).read_bytes())
    made = decodes[0]
    outcome, m = run(OTHER)
    assert not the_record(m).read and decodes[0] > made
    reference, _ = run(OTHER, REFERENCE)
    assert not differences(outcome, reference)


def test_code_changed_by_its_launch_writes_no_record(cache_home):
    """A launch whose code image changed meanwhile (code storing into itself) may have decoded
    the changed bytes: its record is not written."""
    _, m = run(FOLDER)
    record = the_record(m)
    (path,) = records(cache_home)
    path.unlink()
    record.dirty = True
    record.save({}, record.image[:-1] + bytes([record.image[-1] ^ 1]))
    assert not records(cache_home)
    record.save({}, record.image)
    assert records(cache_home) == [path]


CHILD = r"""
import json, sys, hashlib
import numpy as np
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from tests.kernel_corpus import make_inputs
import emu.facts, emu.table
keys = {"facts": 0, "translations": 0}
real_fact_key, real_key = emu.facts._instruction_key, emu.table._SourceCache.key
def fact_key(d):
    keys["facts"] += 1
    return real_fact_key(d)
def key(self, d, *args, **kwargs):
    if (id(d), *args[:3]) not in {(i, *v) for i, vs in self._keys.items() for v in vs}:
        keys["translations"] += 1
    return real_key(self, d, *args, **kwargs)
emu.facts._instruction_key, emu.table._SourceCache.key = fact_key, key
from runtime import Device
folder = Path(sys.argv[2])
manifest = json.loads((folder / "manifest.json").read_text())
manifest = dict(manifest, params=dict(manifest["params"], N=4096))
inputs = make_inputs(manifest)
dev = Device("emu", arch="gfx1100")
prg = dev.load((folder / manifest["code_objects"]["gfx1100"]).read_bytes())
bufs = {a["name"]: dev.alloc(inputs[a["name"]].nbytes, a["name"]).copyin(inputs[a["name"]])
        for a in manifest["args"] if a["kind"] == "buffer"}
args = [inputs[a["name"]] if a["kind"] == "scalar" else bufs[a["name"]] for a in manifest["args"]]
prg.launch(manifest["kernel"], grid=[16, 1, 1], block=manifest["launch"]["block"], args=args)
records = [r for r in dev.machine._records.values() if r is not None]
print(json.dumps({"read": [r.read for r in records], "keys": keys,
                  "out": {a["name"]: bufs[a["name"]].copyout(np.dtype(a["dtype"])).tobytes().hex()
                          for a in manifest["args"] if a.get("role") == "out"}}))
"""


def _child(home: Path, *env_off: str) -> dict:
    env = dict(os.environ, WAVESMITH_CACHE=str(home), PYTHONPATH=str(ROOT))
    env.pop("WAVESMITH_EMU_OFF", None)
    env.pop("WAVESMITH_EMU_REFERENCE", None)
    if env_off == ("reference",):
        env["WAVESMITH_EMU_REFERENCE"] = "1"
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(FOLDER)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_fresh_process_takes_facts_and_translations_from_the_record(tmp_path):
    """A process whose caches are cold works out no fact or translation key for the kernel's
    instructions when the record holds them, and its results are numpy's and reference mode's."""
    first = _child(tmp_path)
    assert first["read"] == [False] and first["keys"]["facts"] > 0 and first["keys"]["translations"] > 0
    second = _child(tmp_path)
    assert second["read"] == [True] and second["keys"] == {"facts": 0, "translations": 0}
    reference = _child(tmp_path, "reference")
    assert second["out"] == first["out"] == reference["out"]
    manifest = json.loads((FOLDER / "manifest.json").read_text())
    manifest = dict(manifest, params=dict(manifest["params"], N=4096))
    inputs = make_inputs(manifest)
    want = Case(FOLDER.name, FOLDER, manifest).reference(dict(inputs), dict(manifest["params"], wave_size=32,
                                                                               target="gfx1100"))
    for a in manifest["args"]:
        if a.get("role") == "out":
            got = np.frombuffer(bytes.fromhex(second["out"][a["name"]]), a["dtype"])
            assert not compare(got, want[a["name"]], a.get("tolerance", manifest["tolerance"])), a["name"]
