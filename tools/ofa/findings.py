#!/usr/bin/env python3
"""The reproducers of the OFA dapl 2.1.10 findings (docs/certification/ofa-dapl-2.1.10/,
tests/ofa/repro/), run against IAs and judged by their output line and exit status.

  findings.py --build BUILD --dat-conf CONF --ia IA [--ia IA ...] --expect shows|absent
  findings.py --table      the findings as a Markdown table (docs/certification/ofa-dapl-2.1.10.md)

--expect shows: every finding listed for the IA (tests/ofa/repro/findings.toml, `ias`)
must still show its defect (inside the VM, against OFA's providers): a reproducer that shows
nothing is no longer a finding, and the finding has to be revisited.
--expect absent: every finding must be absent (the control, on the reference provider).
--rotate N: each finding on one IA only, not on every one: with --expect shows one of the
IAs its entry lists (among the --ia given), with --expect absent one of the --ia; the k-th
finding takes the (N + k)-th of them, so that N counting up (the VM job's ci scope gives the
commit count) walks every (finding, IA) pair over successive commits. Without it, all of them.
--shard I/N: only the findings whose place k in the manifest (counted from 0) is I modulo N.
Exit status 0 when every reproducer answered as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "runners"))
from datcts.discovery import parse_shard  # noqa: E402  (datcts run's --shard I/N)

MANIFEST = REPO / "tests" / "ofa" / "repro" / "findings.toml"
DOCS = REPO / "docs" / "certification" / "ofa-dapl-2.1.10"
ANSWER = {0: "SHOWS", 1: "ABSENT", 77: "CANNOT"}


def load(manifest: Path = MANIFEST) -> list[dict]:
    """The manifest, checked against the tree: each finding has its document and its
    reproducer, names clauses of the catalog, and each document has its entry."""
    findings = tomllib.loads(manifest.read_text())["finding"]
    clauses = set()
    for toml in (REPO / "clauses").glob("dat_*.toml"):
        clauses |= {c["id"] for c in tomllib.loads(toml.read_text()).get("clause", [])}
    problems = []
    for f in findings:
        name = f.get("name", "?")
        problems += [f"finding {name} lacks {k}" for k in ("name", "title", "clauses", "ias")
                     if not f.get(k)]
        for what in (DOCS / f"{name}.md", manifest.parent / f"{name}.c"):
            if not what.exists():
                problems.append(f"finding {name}: no {what.relative_to(REPO)}")
        problems += [f"finding {name}: no clause {c} in the catalog"
                     for c in f.get("clauses") or [] if c not in clauses]
    named = {f.get("name") for f in findings}
    problems += [f"{d.relative_to(REPO)}: no entry in {manifest.relative_to(REPO)}"
                 for d in sorted(DOCS.glob("*.md")) if d.stem not in named]
    if problems:
        raise SystemExit(f"{manifest}: " + "; ".join(problems))
    return findings


def load_open(manifest: Path = MANIFEST) -> dict:
    """The failing clauses the manifest names as open (docs/clauses.md, "Failing clauses of a
    certification": reviewed again, no finding yet): clause -> why."""
    out = {}
    for o in tomllib.loads(manifest.read_text()).get("open", []):
        if not o.get("clause") or not str(o.get("why", "")).strip():
            raise SystemExit(f"{manifest}: an [[open]] entry needs clause and why: {o}")
        out[o["clause"]] = o["why"]
    return out


def run_one(binary: Path, ia: str, conf: Path, timeout: float) -> tuple[str, str]:
    """(answer, the reproducer's line) from its exit status and output, which must agree."""
    env = dict(os.environ, DAT_OVERRIDE=str(conf))
    try:
        p = subprocess.run([str(binary), ia], env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "ERROR", f"no answer within {timeout:.0f} s"
    lines = [ln for ln in p.stdout.splitlines() if ln.split(":", 1)[0] in ANSWER.values()]
    said = ANSWER.get(p.returncode)
    if not lines or said is None or not lines[-1].startswith(said + ":"):
        return "ERROR", (f"exit {p.returncode}, output {p.stdout.strip()[-300:]!r}, "
                         f"stderr {p.stderr.strip()[-300:]!r}")
    return said, lines[-1]


def table(findings: list[dict]) -> str:
    """The findings as the certification document lists them (Markdown)."""
    short = {"ofa-v2-cma-rxe0": "cma-rxe0", "ofa-v2-cma-siw0": "cma-siw0",
             "ofa-v2-scm-rxe0": "scm-rxe0", "ofa-v2-ucm-rxe0": "ucm-rxe0"}
    rows = ["| finding | clauses | shows on |", "|---|---|---|"]
    for f in sorted(findings, key=lambda f: (-len(f["clauses"]), f["name"])):
        ias = "all four IAs" if len(f["ias"]) == 4 else ", ".join(short.get(i, i) for i in f["ias"])
        rows.append(f"| [{f['title']}](ofa-dapl-2.1.10/{f['name']}.md) | {len(f['clauses'])}: "
                    + ", ".join(f"`{c}`" for c in f["clauses"]) + f" | {ias} |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    if (argv if argv is not None else sys.argv[1:]) == ["--table"]:
        sys.stdout.write(table(load()))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, required=True)
    ap.add_argument("--dat-conf", type=Path, required=True)
    ap.add_argument("--ia", action="append", required=True)
    ap.add_argument("--expect", choices=("shows", "absent"), required=True)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=1,
                    help="reproducers run side by side (their qualifiers are their own); "
                         "a second try runs alone")
    ap.add_argument("--rotate", type=int, metavar="N",
                    help="each finding on one of its IAs, the (N + k)-th for the k-th finding")
    ap.add_argument("--shard", metavar="I/N",
                    help="only the k-th findings with k modulo N equal to I (0-based)")
    ap.add_argument("--allow-cannot", action="store_true",
                    help="with --expect absent: CANNOT passes too (a device on which the "
                         "reproducer cannot reach its calls; never SHOWS)")
    a = ap.parse_args(argv)
    try:
        shard = parse_shard(a.shard) if a.shard else None
    except ValueError as e:
        ap.error(str(e))
    bad = 0
    runs = []   # (finding name, binary, ia), in the order they are reported
    for k, f in enumerate(load()):
        if shard and k % shard[1] != shard[0]:
            continue
        binary = a.build / "bin" / "ofa-repro" / f["name"]
        if not binary.exists():
            print(f"{f['name']}: no reproducer binary {binary}")
            bad += 1
            continue
        where = [ia for ia in a.ia if a.expect == "absent" or ia in f["ias"]]
        if a.rotate is not None and where:
            where = [where[(a.rotate + k) % len(where)]]
        runs += [(f["name"], binary, ia) for ia in where]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        first = list(pool.map(lambda r: run_one(r[1], r[2], a.dat_conf, a.timeout), runs))
    want = a.expect.upper()
    for (name, binary, ia), (answer, line) in zip(runs, first):
        if a.expect == "shows" and answer != want:
            # a defect that depends on timing still shows if a second try shows it (alone);
            # a control gets no second try: a SHOWS there is never chance
            print(f"     {name} on {ia}: {line} (first try; trying again)")
            answer, line = run_one(binary, ia, a.dat_conf, a.timeout)
        ok = answer == want or (a.allow_cannot and a.expect == "absent" and answer == "CANNOT")
        bad += not ok
        print(f"{'ok  ' if ok else 'BAD '} {name} on {ia}: {line}"
              + ("" if ok else f"  [expected {want}]"))
    print(f"findings.py: {'every reproducer answered as expected' if not bad else f'{bad} did not'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
