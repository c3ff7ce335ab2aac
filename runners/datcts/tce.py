"""Trivial compiler equivalence (docs/mutants.md, "Identical code"): a generated
mutant whose file, with that one mutant applied, compiles to the same object code
as the file without it cannot be told apart from the provider by any case, under
any configuration built with the same flags. It is settled without a run.

Each mutant is compiled alone (not the schemata: there the conditional that
holds both the mutant and the original can change the original's types), with
the file's own compile command, its optimisation level, no debug information and
no warnings, from standard input, as the original is, and the objects are
compared byte for byte (GCC's output is deterministic for one input and command).
The mutated text keeps the original's line breaks, so that nothing that depends
on a line number moves.

The digests of the objects are kept in a cache keyed by the compiler command and
the text, so a run compiles only what changed since the last one."""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import json
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from datcts import mutgen


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "datcts" / "tce-objects.json"


def compile_argv(entry: dict, path: Path) -> list:
    """The compiler command of the file's compile_commands entry, reading C from
    standard input (its quote includes from the file's folder), without debug
    information or warnings, at the entry's optimisation level."""
    argv = entry.get("arguments") or shlex.split(entry["command"])
    opt = [a for a in argv[1:] if a.startswith("-O")][-1:] or ["-O0"]
    args = [a for a in mutgen.compile_args(entry) if not a.startswith("-W")]
    return [argv[0], *args, *opt, "-g0", "-w", "-c", "-x", "c",
            "-iquote", str(path.parent), "-"]


def mutated(source: bytes, m) -> bytes:
    """source with mutant m applied, on the original's lines."""
    original = source[m.start:m.end]
    replacement = mutgen.one_line(m.replacement).encode()
    return source[:m.start] + replacement + b"\n" * original.count(b"\n") + source[m.end:]


class ObjectCache:
    """sha256(command, text) -> sha256 of the object (or "error: ..." when the
    text does not compile), in a JSON file."""

    def __init__(self, path: Path | None):
        self.path = path
        self.data: dict = {}
        if path and path.is_file():
            try:
                self.data = json.loads(path.read_text())
            except (OSError, ValueError):
                self.data = {}
        self.added = 0

    @staticmethod
    def key(argv: list, text: bytes) -> str:
        h = hashlib.sha256("\0".join(argv).encode())
        h.update(b"\0")
        h.update(text)
        return h.hexdigest()

    def save(self) -> None:
        if not self.path or not self.added:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tce-")
        with os.fdopen(fd, "w") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)


def object_digest(argv: list, text: bytes, cache: ObjectCache) -> str:
    key = cache.key(argv, text)
    if key in cache.data:
        return cache.data[key]
    with tempfile.TemporaryDirectory(prefix="datcts-tce-") as tmp:
        obj = Path(tmp) / "m.o"
        p = subprocess.run(argv + ["-o", str(obj)], input=text, capture_output=True,
                           timeout=300)
        if p.returncode != 0:
            digest = "error: " + p.stderr.decode(errors="replace").strip()[:200]
        else:
            digest = hashlib.sha256(obj.read_bytes()).hexdigest()
    cache.data[key] = digest
    cache.added += 1
    return digest


def identical(root: Path, commands_for, mutants: list, jobs: int,
              cache_path: Path | None = None) -> dict:
    """{mutant id: True when it compiles to its file's original object code,
    False otherwise (different code, or it does not compile alone)}.
    commands_for(rel) -> the compile_commands entry of that file."""
    cache = ObjectCache(cache_path)
    by_file: dict = {}
    for m in mutants:
        by_file.setdefault(m.file, []).append(m)
    work = []
    baseline = {}
    for rel, ms in by_file.items():
        path = root / rel
        source = path.read_bytes()
        argv = compile_argv(commands_for(rel), path)
        baseline[rel] = (argv, source)
        work += [(m, argv, mutated(source, m)) for m in ms]
    out = {}
    with cf.ThreadPoolExecutor(max(1, jobs)) as pool:
        base = dict(zip(baseline, pool.map(lambda rel: object_digest(*baseline[rel], cache),
                                           baseline)))
        for rel, d in base.items():
            if d.startswith("error: "):
                raise RuntimeError(f"{rel} does not compile alone: {d[7:]}")
        digests = pool.map(lambda w: object_digest(w[1], w[2], cache), work)
        for (m, _argv, _text), d in zip(work, digests):
            out[m.id] = d == base[m.file]
    cache.save()
    return out
