"""What a launch works out from a kernel's machine code, kept on disk per code image: one
file for what a first launch would otherwise gather from several dozen.

A first launch decodes each PC it reaches (dsl.decode), reads each instruction's facts
(emu/facts.py: one file per instruction, keyed by a digest of the instruction's text) and its
translation (emu/table.py: one file per instruction, keyed by a digest of its pseudocode,
operand types and callees), ~7 ms of a fresh process's 2^20-lane elementwise launch, most of it
working out the keys and opening the files. A `ProgramRecord` keeps, for one code image (the
allocation the machine fetches instructions from, up to CODE_BYTES_LIMIT): the decoded
instruction at every offset the launches reached, and for every instruction definition whose
facts or translation they asked for, its facts and translations with the keys they are stored
under. A later process reads the record at the image's first fetch, takes the decoded
instructions from it and hands the facts and translations to their caches as if it had read
their files, so neither keys nor files are needed for them.

The record's file is `programs-<digest>-<python>/<sha256 of the target and the image>.bin`
under the emulator's cache folder, the digest covering the sources whose output it holds
(the decoder, the fact and translation caches' own digests). It is used only when it holds
this very image (the bytes are compared, not only their digest), was made from the same
generated ISA files (their sizes and modification times, as Python checks its bytecode) and
every instruction definition it names has the text it had (name, encoding, pseudocode,
description, operand types); anything else, or a file that is missing, cut short or not
marshal data, is ignored and written again whole (under a temporary name, then renamed) at
the end of the launch. Switch: EmuOptions.program_cache (off: no record is read or written).
"""
from __future__ import annotations

import hashlib
import marshal
import os
import pickle
import sys
from functools import lru_cache
from importlib.util import MAGIC_NUMBER

from .cache_folder import cache_dir, sources_digest, write_atomically
from .options import current

# larger images (code in a big buffer) are decoded as they run, without a record: hashing and
# comparing them would cost more than it saves
CODE_BYTES_LIMIT = 1 << 20
_VERSION = 2
# the modules whose output a record holds besides the fact and translation caches (which
# name their own sources' digests in their folders)
_SOURCES = ("dsl/decode.py", "emu/dialect.py", "emu/program_cache.py", "emu/table.py", "emu/facts.py")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# {id(InstrDef): InstrDef} of the definitions whose facts or translation keys were asked for
# while a machine runs with records (Machine.run sets it; emu/facts.py and emu/table.py add to it)
touched: dict | None = None


def touch(d) -> None:
    """Note that d's facts or translation key were asked for (while a machine runs with records)."""
    if touched is not None:
        touched[id(d)] = d


def _identity(d) -> tuple:
    """Everything of an InstrDef the facts, translations and decodes read."""
    return (d.name, d.format, d.opcode, d.slot, d.promoted_from, d.pcode, d.description, d.notes,
            tuple(sorted(d.operand_types.items())))


@lru_cache(maxsize=None)
def _folder(facts_folder: str, translations_folder: str) -> str:
    label = f"{_VERSION} {os.path.basename(facts_folder)} {os.path.basename(translations_folder)}"
    paths = [os.path.join(_ROOT, name) for name in _SOURCES]

    def digest():
        h = hashlib.sha256(label.encode())
        for path in paths:
            with open(path, "rb") as f:
                h.update(f.read())
        return h.hexdigest()[:16]
    return os.path.join(str(cache_dir()), f"programs-{sources_digest('programs ' + label, paths, digest, current().source_stamps)}"
                        f"-{sys.implementation.cache_tag}")


def _generated_stamp(spec) -> tuple:
    """(file, size, modification time) of the generated ISA package `spec` was loaded from."""
    module = sys.modules.get(f"isa.generated.{spec.arch.replace('.', '_')}")
    if module is None or not getattr(module, "__file__", None):
        return ()
    folder = os.path.dirname(module.__file__)
    out = []
    for entry in os.scandir(folder):
        if entry.name.endswith(".py"):
            st = entry.stat()
            out.append((entry.name, st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


@lru_cache(maxsize=None)
def _positions(spec) -> dict[int, int]:
    """{id(d): its place in spec.instructions}: how a record names a definition (the generated
    files, which fix the order, are checked by their stamp, each definition by its text)."""
    return {id(d): i for i, d in enumerate(spec.instructions)}


def _within(counts: tuple, held: tuple) -> bool:
    return all(n <= h for n, h in zip(counts, held))


class ProgramRecord:
    """The record of one code image on `spec`'s target. `instructions`: {offset in the image:
    decoded instruction (machine field names added)} read from the file; `add` what the
    launch decoded besides; `save(touched, image)` at the launch's end writes the record again when it
    learned something. `facts` (emu.facts.FactCache, None: facts are not kept on disk) and
    `sources` (emu.table's translation cache) receive the record's entries when it is read."""

    def __init__(self, spec, image: bytes, facts, sources):
        self.spec, self.image, self.fact_cache, self.sources = spec, image, facts, sources
        self.folder = _folder(facts.folder if facts is not None and facts.folder else "-", str(sources.folder))
        self.path = os.path.join(self.folder, hashlib.sha256(spec.arch.encode() + b"\0" + image).hexdigest() + ".bin")
        self.stamp = _generated_stamp(spec)
        self.instructions: dict[int, object] = {}
        self.held: dict[int, tuple] = {}    # id(d): (facts, translations) of d the file holds (_holds); d of the spec's list
        self.read = False                   # the file was read and used
        self.dirty = False
        try:
            self._load()
            self.read = True
        except Exception:       # absent, unreadable, damaged, another image's, another ISA's: made again
            self.instructions, self.held = {}, {}

    # ------------------------------------------------------------------ reading
    def _load(self) -> None:
        with open(self.path, "rb") as f:
            data = f.read()
        if not data.startswith(MAGIC_NUMBER):
            raise ValueError("not this Python's record")
        version, image, stamp, defs, code = marshal.loads(data[len(MAGIC_NUMBER):])
        if version != _VERSION or image != self.image or stamp != self.stamp:
            raise ValueError("another image or ISA")
        spec, live = self.spec, []
        instructions = spec.instructions
        for position, identity, *_ in defs:
            d = instructions[position]
            if _identity(d) != identity:
                raise ValueError("an instruction's text changed")
            live.append(d)
        from dsl.decode import Instruction
        formats = spec.formats
        decoded = {offset: Instruction(tuple(live[i] for i in which), formats[fmt], dict(fields), literal,
                                       None if dpp is None else dict(dpp), dpp_kind, dict(extra), size)
                   for offset, which, fmt, fields, literal, dpp, dpp_kind, extra, size in code}
        # every check passed: hand the facts and translations to their caches
        held = {}
        for d, (_, _, facts_key, facts_blob, translations) in zip(live, defs):
            facts = pickle.loads(facts_blob) if facts_blob is not None else {}
            if facts_key is not None and self.fact_cache is not None:
                self.fact_cache.prefill(d, facts_key, facts)
            for scalar, saturate, narrow, key, t in translations:
                self.sources.prefill(d, scalar, saturate, narrow, key, t)
            held[id(d)] = (len(facts), len(translations))
        self.instructions, self.held = decoded, held

    # ------------------------------------------------------------------ writing
    def add(self, offset: int, inst) -> None:
        self.instructions[offset] = inst
        self.dirty = True

    def save(self, touched: dict, image: bytes) -> None:
        """Write the record if this launch decoded an instruction or asked for a definition it
        did not hold. Only the spec's own definitions are kept (a record names them by their place).
        `image`: the code image's bytes now; if the launch changed them (code that stores into
        itself), what it decoded after the change is not the record's image's, and nothing is written."""
        if image != self.image:
            return
        if not self.dirty and all(_within(self._holds(d), self.held.get(i, (0, 0))) for i, d in touched.items()):
            return
        try:
            payload = self._payload(touched)
        except Exception:       # a value marshal or pickle refuses: the launch goes on
            return
        if not write_atomically(self.path, MAGIC_NUMBER + payload):    # a read-only home
            return
        positions = _positions(self.spec)
        self.held = {i: self._holds(d) for i, d in touched.items() if i in positions}
        self.held.update((id(d), self._holds(d)) for inst in self.instructions.values() for d in inst.defs
                         if id(d) in positions)
        self.dirty = False

    def _holds(self, d) -> tuple[int, int]:
        """(facts, translations) of d this process holds, as many as a record of it would keep
        (a definition of the spec's list; another, none)."""
        if id(d) not in self.held and id(d) not in _positions(self.spec):    # (held: read from the spec's list)
            return 0, 0
        facts = self.fact_cache.stored(d) if self.fact_cache is not None else None
        return len(facts[1]) if facts is not None else 0, len(self.sources.stored(d))

    def _payload(self, touched: dict) -> bytes:
        """The file's marshal data."""
        positions = _positions(self.spec)
        index: dict[int, int] = {}
        defs = []

        def add_def(d) -> int | None:
            if id(d) in index:
                return index[id(d)]
            if id(d) not in positions:
                return None
            facts_key = facts_blob = None
            if self.fact_cache is not None:
                got = self.fact_cache.stored(d)
                if got is not None:
                    facts_key, facts = got
                    facts_blob = pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)
            defs.append((positions[id(d)], _identity(d), facts_key, facts_blob, self.sources.stored(d)))
            index[id(d)] = len(defs) - 1
            return index[id(d)]
        code = []
        for offset, inst in sorted(self.instructions.items()):
            which = [add_def(d) for d in inst.defs]
            if None in which:
                continue        # not the spec's own definition (v_illegal's filler): decoded again
            code.append((offset, tuple(which), inst.fmt.name, inst.fields, inst.literal, inst.dpp, inst.dpp_kind,
                         inst.extra, inst.size))
        for d in touched.values():
            add_def(d)
        return marshal.dumps((_VERSION, self.image, self.stamp, defs, code))
