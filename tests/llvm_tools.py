"""LLVM 22 tools as test oracles: locate them (tests skip without them), parse their output, and
our side of the comparison in the same shape."""
from __future__ import annotations

import re
import shutil
import subprocess
import warnings

import pytest
import yaml

from dsl import disassemble


def tool(name: str) -> str:
    """Path of an LLVM 22 tool, e.g. tool('llvm-objdump'); skips the test when absent."""
    path = shutil.which(f"{name}-22") or shutil.which(name)
    if path is None:
        pytest.skip(f"{name}-22 not installed (apt-get install llvm-22)")
    return path


def run(*argv, stdin: bytes | None = None) -> str:
    done = subprocess.run(argv, input=stdin, capture_output=True, check=False)
    if done.returncode:
        raise AssertionError(f"{' '.join(map(str, argv))} failed:\n{done.stderr.decode()}")
    return done.stdout.decode()


def readelf_metadata(path) -> dict:
    """The NT_AMDGPU_METADATA note as llvm-readelf --notes prints it (YAML)."""
    out = run(tool("llvm-readelf"), "--notes", str(path))
    m = re.search(r"^\s*---\n(.*?)^\.\.\.$", out, re.S | re.M)
    assert m, f"no metadata in llvm-readelf --notes output of {path}"
    return yaml.safe_load(m.group(1))


def objdump_symbols(path, symbols: list[str], mattr: str | None = None) -> dict[str, dict]:
    """llvm-objdump -D restricted to `symbols`: for code symbols {'address', 'bytes', 'text'},
    for <name>.kd {'address', 'directives': {'.amdhsa_x': value}, 'comments': {'FIELD': value}}."""
    argv = [tool("llvm-objdump"), "-D", "--disassemble-symbols=" + ",".join(symbols), str(path)]
    if mattr:
        argv.insert(1, f"--mattr={mattr}")
    out, cur = {}, None
    for line in run(*argv).splitlines():
        head = re.match(r"^([0-9a-f]{16}) <(.+)>:$", line)
        if head:
            cur = out[head.group(2)] = {"address": int(head.group(1), 16), "bytes": bytearray(), "text": [],
                                       "directives": {}, "comments": {}}
            continue
        if cur is None or not line.strip():
            continue
        d = re.match(r"^\s*(\.amdhsa_\w+)\s+(-?\d+)$", line)
        c = re.match(r"^\s*;\s*([A-Z_0-9]+)\s+(\d+)$", line)
        ins = re.match(r"^\s+(\S.*?)\s*//\s*[0-9A-F]+:((?:\s[0-9A-F]{8})+)", line)
        if d:
            cur["directives"][d.group(1)] = int(d.group(2))
        elif c:
            cur["comments"][c.group(1)] = int(c.group(2))
        elif ins:
            cur["text"].append(ins.group(1))
            for word in ins.group(2).split():
                cur["bytes"] += int(word, 16).to_bytes(4, "little")
    return out


MARK = "wavesmith_mc_item_"      # a label before each item: llvm-mc prints it back, so its output splits by item


def mc_items(lines: list[str], arch: str, mattr: str | None = None, mc: str | None = None
             ) -> list[tuple[list[str], list[tuple[int, str]]]]:
    """llvm-mc's answer per item of `lines` (an item may span several lines), in one run:
    (the `encoding: [...]` word lists it printed for the item, [(column, message)] of the errors
    it reported on the item's lines). A label ahead of every item splits the output, so an item
    that llvm-mc reads as two statements, or one it both reports and encodes, can never shift its
    neighbours' answers; an output the labels do not explain fails loudly."""
    argv = [mc or tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"] + ([f"-mattr={mattr}"] if mattr else [])
    text, owner = [], {}
    for i, item in enumerate(lines):
        text.append(f"{MARK}{i}:")
        for part in item.split("\n"):
            text.append(part)
            owner[len(text)] = i
    done = subprocess.run(argv, input="\n".join(text) + "\n", capture_output=True, text=True)
    out: list[tuple[list[str], list[tuple[int, str]]]] = [([], []) for _ in lines]
    for no, col, message in re.findall(r"^<stdin>:(\d+):(\d+): error: (.*)$", done.stderr, re.M):
        if int(no) not in owner:
            raise AssertionError(f"llvm-mc reported an error on its marker line {no}: {message}")
        out[owner[int(no)]][1].append((int(col), message))
    chunks = re.split(rf"^{MARK}(\d+):$", done.stdout, flags=re.M)
    seen = [int(n) for n in chunks[1::2]]
    if seen != list(range(len(lines))) or re.search("encoding:", chunks[0]):
        raise AssertionError(f"llvm-mc's output does not follow the {len(lines)} items (markers {seen[:5]}...); "
                             f"stderr: {done.stderr[:500]}")
    for i, body in zip(seen, chunks[2::2]):
        out[i][0].extend(w for w in re.findall(r"encoding: \[([^\]]*)\]", body))
    return out


def mc_encodings(lines: list[str], arch: str, mattr: str | None = None) -> list[bytes | None]:
    """llvm-mc's bytes for each assembly line (all its statements' encodings, in order), None
    where it reports an error on that line (warnings are not errors; an error llvm-mc reports
    while still printing an encoding refuses the line too: it exits with failure). A symbol
    left to the linker fails loudly: pass such lines to tests.asm_mutations.llvm_encodings."""
    out = []
    for item, (words, errors) in zip(lines, mc_items(lines, arch, mattr)):
        if errors:
            out.append(None)
            continue
        bytes_ = [w for enc in words for w in enc.split(",")]
        if any(not w.startswith("0x") for w in bytes_):
            raise AssertionError(f"{item!r}: llvm-mc leaves a fixup in {words}")
        out.append(bytes(int(w, 16) for w in bytes_))
    return out


def mc_errors(lines: list[str], arch: str) -> dict[int, tuple[int, str]]:
    """{line index: (column, message)} of the lines llvm-mc refuses (indexes from 0; its first error)."""
    return {i: errors[0] for i, (_, errors) in enumerate(mc_items(lines, arch)) if errors}


def mc_disassembly(encodings: list[bytes], arch: str, mattr: str | None = None) -> list[str]:
    """llvm-mc --disassemble's text of each instruction's bytes (one instruction each)."""
    import subprocess
    argv = [tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble"] + ([f"-mattr={mattr}"] if mattr else [])
    text = "\n".join(" ".join(f"0x{b:02x}" for b in e) for e in encodings) + "\n"
    out = subprocess.run(argv, input=text, capture_output=True, text=True).stdout
    lines = [ln.strip() for ln in out.splitlines() if ln.strip() and not ln.strip().startswith(".")]
    assert len(lines) == len(encodings), f"llvm-mc printed {len(lines)} instructions for {len(encodings)}"
    return lines


def compare_with_mc(arch: str, lines: list[str], want: list[bytes | None],
                    got: list[tuple[bytes | None, str]], known: list) -> tuple[int, dict, list[str]]:
    """Line-by-line agreement of our (bytes or None, error) with llvm-mc's bytes (None: refused).

    `known` holds (arch prefix, test(line, llvm bytes, our error), reason) for differences we keep
    on purpose; a differing line no entry explains is returned in `bad`. Returns (lines that
    agree, {reason: count}, bad)."""
    from collections import Counter
    known_here = [(test, why) for prefix, test, why in known if arch.startswith(prefix)]
    counts, bad = Counter(), []
    for line, w, (g, err) in zip(lines, want, got):
        if w == g:
            continue
        why = next((why for test, why in known_here if test(line, w, err)), None)
        if why:
            counts[why] += 1
        else:
            bad.append(f"{line}: llvm {w.hex() if w else 'refused'}, ours {g.hex() if g else err.splitlines()[0]}")
    return sum(w == g for w, (g, _) in zip(want, got)), dict(counts), bad


def mc_disassembly_each(encodings: list[bytes], arch: str, mattr: str | None = None) -> list[str | None]:
    """llvm-mc --disassemble's text of each instruction's bytes, None where LLVM refuses them (a
    warning on its line, or bytes it reads as anything but one instruction), in one run: three
    markers `s_nop 3N+1`, `3N+2`, `3N+3` after the N-th item split the output. Where LLVM refuses
    an item's first word it goes on decoding from the next one, and an instruction read there may
    take up to two words past the item's end (a 64-bit encoding and its literal): those can only
    be the first two markers, and an item counts only where its first marker closes it alone, so
    no item's bytes can shift its neighbours' answers."""
    assert 3 * len(encodings) < 0x10000, "too many items for one run's s_nop markers"
    argv = [tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble"] + ([f"-mattr={mattr}"] if mattr else [])
    lines = []
    for i, e in enumerate(encodings):
        marks = [" ".join(f"0x{b:02x}" for b in (3 * i + k).to_bytes(2, "little")) + " 0x80 0xbf" for k in (1, 2, 3)]
        lines += [" ".join(f"0x{b:02x}" for b in e), " ".join(marks)]
    done = subprocess.run(argv, input="\n".join(lines) + "\n", capture_output=True, text=True)
    refused = {(int(n) - 1) // 2 for n in re.findall(r"^<stdin>:(\d+):\d+: warning", done.stderr, re.M)}
    groups, cur = {}, []
    for line in done.stdout.splitlines():
        text = re.sub(r"\s+", " ", line.split("//")[0]).strip()
        if not text or text.startswith("."):
            continue
        m = re.fullmatch(r"s_nop (0x[0-9a-f]+|\d+)", text)
        if m:
            item, k = divmod(int(m.group(1), 0) - 1, 3)
            if k == 0:
                groups[item] = cur
            elif cur:                               # text between an item's markers: it took some
                refused.add(item)
            cur = []
        else:
            cur.append(text)
    return [groups[i][0] if i not in refused and len(groups.get(i, ())) == 1 else None
            for i in range(len(encodings))]


def ours_disassembly(b: bytes, target: str) -> str:
    """Our disassembler's text of `b` (warnings silenced), or `error: <message>` where it refuses
    the bytes: the side compared with mc_disassembly_each's text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return disassemble(b, target)
        except ValueError as e:
            return f"error: {e}"
