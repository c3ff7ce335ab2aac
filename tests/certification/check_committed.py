#!/usr/bin/env python3
"""CI's check of the committed certification (docs/certification/ofa-dapl-2.1.10/bundles/):

1. each bundle verifies (`datcts verify`: hashes, and the verdict follows from its results
   under the rules of the schema it records);
2. the per-clause table (docs/certification/ofa-dapl-2.1.10-clauses.md) and the figures in the
   certification document (between its `generated` markers) are what
   tools/certification-findings.py makes of the bundles today, and the document's table of
   findings is what tools/ofa/findings.py --table makes of tests/ofa/repro/findings.toml;
3. no failing provider clause lacks a finding with a reproducer (`--check`).

    check_committed.py            check (exit 1 on any difference)
    check_committed.py --write    regenerate the table and the figures from the bundles
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CERT = REPO / "docs" / "certification"
BUNDLES = CERT / "ofa-dapl-2.1.10" / "bundles"
TABLE = CERT / "ofa-dapl-2.1.10-clauses.md"
DOC = CERT / "ofa-dapl-2.1.10.md"
TOOL = REPO / "tools" / "certification-findings.py"
FINDINGS = REPO / "tools" / "ofa" / "findings.py"
FINDINGS_HEAD = "| finding | clauses | shows on |"
BEGIN = "<!-- begin: generated from bundles/ by tests/certification/check_committed.py --write -->"
END = "<!-- end: generated -->"
TITLE = "Failing shall clauses of OFA dapl 2.1.10, per IA"
# the order of the document's columns
ORDER = ("ofa-v2-cma-rxe0", "ofa-v2-cma-siw0", "ofa-v2-scm-rxe0", "ofa-v2-ucm-rxe0")


def bundles() -> list[Path]:
    found = {p.name.split(".", 1)[0]: p for p in BUNDLES.glob("*.tar.gz")}
    return [found[k] for k in sorted(found, key=lambda k: (ORDER.index(k) if k in ORDER
                                                           else len(ORDER), k))]


def tool(*args: str) -> tuple[int, str]:
    p = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True)
    return p.returncode, p.stdout + (p.stderr if p.returncode not in (0, 1) else "")


def generated_doc(text: str, figures: str) -> str:
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{DOC}: no {BEGIN!r} ... {END!r} section")
    return head + BEGIN + "\n\n" + figures + "\n" + END + tail


def findings_doc(text: str) -> str:
    """text with its table of findings (the rows under FINDINGS_HEAD) as findings.py makes it."""
    p = subprocess.run([sys.executable, str(FINDINGS), "--table"], capture_output=True,
                       text=True, check=True)
    lines = text.split("\n")
    if FINDINGS_HEAD not in lines:
        raise SystemExit(f"{DOC}: no table of findings ({FINDINGS_HEAD!r})")
    start = end = lines.index(FINDINGS_HEAD)
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines[start:end] = p.stdout.rstrip("\n").split("\n")
    return "\n".join(lines)


def main() -> int:
    write = "--write" in sys.argv[1:]
    bs = [str(b) for b in bundles()]
    if not bs:
        print(f"SKIPPED: no bundles in {BUNDLES.relative_to(REPO)}", file=sys.stderr)
        return 77
    problems = []
    for b in bs:
        p = subprocess.run([sys.executable, "-m", "datcts_reports", "verify", b],
                           capture_output=True, text=True)
        if p.returncode:
            problems.append(f"{b}: does not verify:\n{p.stdout}{p.stderr}")
    rc, table = tool("--title", TITLE, *bs)
    rc2, figures = tool("--summary", *bs)
    if rc or rc2:
        problems.append(f"certification-findings.py failed:\n{table}{figures}")
    doc = findings_doc(generated_doc(DOC.read_text(), figures))
    if write:
        TABLE.write_text(table)
        DOC.write_text(doc)
    else:
        if TABLE.read_text() != table:
            problems.append(f"{TABLE.relative_to(REPO)} is not what the bundles say: run "
                            "tests/certification/check_committed.py --write")
        if DOC.read_text() != doc:
            problems.append(f"the figures or the findings in {DOC.relative_to(REPO)} are not what "
                            "the bundles and tests/ofa/repro/findings.toml say: run "
                            "tests/certification/check_committed.py --write")
    rc3, unmapped = tool("--check", *bs)
    if rc3:
        problems.append("failing clauses without a finding (docs/clauses.md, \"Failing clauses "
                        f"of a certification\"):\n{unmapped}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"check_committed: {len(bs)} bundles; {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
