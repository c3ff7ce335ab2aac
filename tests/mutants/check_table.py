#!/usr/bin/env python3
"""Checks the mutant table of the reference provider (docs/mutants.md):

- `datref-mutants` prints it from the built library (schema datref-mutants/1),
  ids unique, each with at least one clause;
- every clause id it names is in the catalog (clauses/*.toml);
- every mutant id the provider sources test (ref_mutant("..."),
  ref_mutant_enter/leave) is in the table, and every table id is tested
  somewhere (no dead entry, no switch that can never be turned on);
- the quick subset (CI) is not empty.

usage: check_table.py BUILD_DIR
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


def source_ids(root: Path) -> dict:
    """mutant id -> first file:line that tests it."""
    found: dict = {}
    for path in sorted(root.rglob("*.c")):
        text = path.read_text(errors="replace")
        # comments out (kept as blanks so line numbers stay right)
        text = re.sub(r"/\*.*?\*/|//[^\n]*",
                      lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
        for m in re.finditer(r"\b(?:ref_mutant(?:_enter|_leave)?|REF_MUTANT_ID)\s*\(", text):
            i, depth = m.end(), 1
            while i < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            args = text[m.end():i - 1]
            for lit in re.findall(r'"([^"\\]*)"', args):
                if ID.match(lit):
                    line = text.count("\n", 0, m.start()) + 1
                    found.setdefault(lit, f"{path.relative_to(REPO)}:{line}")
    return found


def catalog_ids(root: Path) -> set:
    ids = set()
    for f in root.glob("*.toml"):
        with f.open("rb") as fh:
            for c in tomllib.load(fh).get("clause", []):
                ids.add(c["id"])
    return ids


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = Path(argv[1])
    p = subprocess.run([str(build / "bin" / "datref-mutants")], capture_output=True, text=True)
    errors = []
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        errors.append(f"datref-mutants exited with {p.returncode}")
    doc = json.loads(p.stdout)
    if doc.get("schema") != "datref-mutants/1":
        errors.append(f"schema {doc.get('schema')!r}")
    table = {m["id"]: m for m in doc["mutants"]}
    if len(table) != len(doc["mutants"]):
        errors.append("duplicate mutant ids")
    clauses = catalog_ids(REPO / "clauses")
    for m in doc["mutants"]:
        if not ID.match(m["id"]):
            errors.append(f"{m['id']}: id must be lower-case words joined by '-'")
        if not m["clauses"]:
            errors.append(f"{m['id']}: names no clause")
        for c in m["clauses"]:
            if c not in clauses:
                errors.append(f"{m['id']}: clause {c} is not in clauses/*.toml")
        if not m["what"]:
            errors.append(f"{m['id']}: says nothing about what it breaks")
    used = source_ids(REPO / "reference-provider")
    for mid, where in sorted(used.items()):
        if mid not in table:
            errors.append(f"{where}: tests mutant {mid}, which is not in the table")
    for mid in sorted(table):
        if mid not in used:
            errors.append(f"mutant {mid} is in the table but no source tests it")
    if not any(m["quick"] for m in doc["mutants"]):
        errors.append("no mutant is marked .quick (the CI subset is empty)")
    for e in errors:
        print(f"check_table: {e}", file=sys.stderr)
    print(f"check_table: {len(table)} mutants, {len(used)} ids in the sources, "
          f"{sum(1 for m in doc['mutants'] if m['quick'])} quick, "
          f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
