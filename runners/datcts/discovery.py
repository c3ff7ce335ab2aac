"""Finding case binaries and the cases they hold (``--list``)."""

from __future__ import annotations

import concurrent.futures as cf
import fnmatch
import hashlib
import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path


class DiscoveryError(Exception):
    """The case binaries could not be listed."""


@dataclass(frozen=True)
class Case:
    id: str
    page: str
    area: str
    clauses: tuple
    summary: str
    requires: tuple
    two_node: bool
    file: str
    line: int
    binary: str
    no_ia: bool = False
    needs: tuple = ()   # the suite's own hooks/attributes it needs ("hook:NAME")

    def listing(self) -> dict:
        return {
            "id": self.id,
            "page": self.page,
            "area": self.area,
            "clauses": list(self.clauses),
            "summary": self.summary,
            "requires": list(self.requires),
            "needs": list(self.needs),
            "two_node": self.two_node,
            "file": self.file,
            "line": self.line,
            "binary": self.binary,
        }


def find_binaries(cases_dir: Path) -> list[Path]:
    """Every executable ``datcts-cases-*`` in cases_dir, sorted by name."""
    if not cases_dir.is_dir():
        return []
    return sorted(
        p
        for p in cases_dir.glob("datcts-cases-*")
        if p.is_file() and os.access(p, os.X_OK)
    )


def list_binary(binary: Path, env: dict | None = None) -> list[Case]:
    try:
        proc = subprocess.run(
            [str(binary), "--list"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise DiscoveryError(f"{binary}: --list failed: {e}") from e
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip()
        raise DiscoveryError(
            f"{binary}: --list exited with {proc.returncode}: {err}"
        )
    try:
        items = json.loads(proc.stdout)
    except ValueError as e:
        raise DiscoveryError(f"{binary}: --list printed no JSON array: {e}") from e
    cases = []
    for it in items:
        cases.append(
            Case(
                id=it["id"],
                page=it["page"],
                area=it["area"],
                clauses=tuple(it.get("clauses") or (it["id"],)),
                summary=it.get("summary", ""),
                requires=tuple(it.get("requires") or ()),
                two_node=bool(it.get("two_node")),
                file=it.get("file", ""),
                line=int(it.get("line", 0)),
                binary=str(binary),
                no_ia=bool(it.get("no_ia")),
                needs=tuple(it.get("needs") or ()),
            )
        )
    return cases


def discover(cases_dir: Path, env: dict | None = None) -> list[Case]:
    """All cases of all binaries; ids must be unique across binaries."""
    seen: dict[str, Case] = {}
    out = []
    binaries = find_binaries(cases_dir)
    # the binaries are asked at once (each --list is a process start):
    # the listing order stays the binaries' order
    with cf.ThreadPoolExecutor(max_workers=min(8, max(1, len(binaries)))) as pool:
        listings = list(pool.map(lambda b: list_binary(b, env), binaries))
    for b, cases in zip(binaries, listings):
        for c in cases:
            if c.id in seen:
                raise DiscoveryError(
                    f"case id {c.id} is in both {seen[c.id].binary} and {c.binary}"
                )
            seen[c.id] = c
            out.append(c)
    return out


@dataclass
class Filters:
    areas: list = field(default_factory=list)
    pages: list = field(default_factory=list)
    clauses: list = field(default_factory=list)
    globs: list = field(default_factory=list)
    shard: tuple | None = None  # (index, count): the cases whose id hashes to index mod count

    def describe(self) -> dict:
        return {
            "area": self.areas,
            "page": self.pages,
            "clause": self.clauses,
            "k": self.globs,
            "shard": [f"{self.shard[0]}/{self.shard[1]}"] if self.shard else [],
        }

    def match(self, c: Case) -> bool:
        """AND across kinds, OR within a kind; glob patterns everywhere."""

        def any_match(pats, values):
            return any(fnmatch.fnmatchcase(v, p) for p in pats for v in values)

        if self.areas and not any_match(self.areas, [c.area]):
            return False
        if self.pages and not any_match(self.pages, [c.page]):
            return False
        if self.clauses and not any_match(self.clauses, c.clauses):
            return False
        if self.globs and not any_match(self.globs, [c.id]):
            return False
        if self.shard and shard_of(c.id, self.shard[1]) != self.shard[0]:
            return False
        return True


def shard_of(case_id: str, count: int) -> int:
    """The shard of a case among count: a hash of its id alone, so a case keeps its shard
    whatever else is added or selected."""
    return int.from_bytes(hashlib.sha256(case_id.encode()).digest()[:8], "big") % count


def parse_shard(spec: str) -> tuple:
    """'I/N' (0 <= I < N) -> (I, N)"""
    try:
        i, n = (int(x) for x in spec.split("/"))
    except ValueError:
        raise ValueError(f"--shard {spec!r}: expected I/N, e.g. 0/4") from None
    if not 0 <= i < n:
        raise ValueError(f"--shard {spec!r}: I must be in 0..N-1")
    return i, n


def split_multi(values) -> list:
    """--area a,b --area c -> [a, b, c]"""
    out = []
    for v in values or ():
        out.extend(x for x in v.split(",") if x)
    return out
