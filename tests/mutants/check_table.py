#!/usr/bin/env python3
"""Checks the mutant tables of the reference provider and of libdat, the
registry (docs/mutants.md), each:

- `datref-mutants` prints it from the built library (schema datref-mutants/1),
  ids unique, each with at least one clause;
- every clause id it names is in the catalog (clauses/*.toml);
- every mutant id the provider sources test (ref_mutant("..."),
  ref_mutant_enter/leave) is in the table, and every table id is tested
  somewhere (no dead entry, no switch that can never be turned on);
- the quick subset (CI) is not empty;
- a mutant's variant (the conforming variant its cases run under) is one
  the provider has;
and that no id is in both tables, and that the registry's mutants name only
clauses of the registry (catalog subject "registry").

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


def source_ids(root: Path, calls: str) -> dict:
    """mutant id -> first file:line that tests it (@calls: the regex of the
    switch functions)."""
    found: dict = {}
    for path in sorted(root.rglob("*.c")):
        text = path.read_text(errors="replace")
        # comments out (kept as blanks so line numbers stay right)
        text = re.sub(r"/\*.*?\*/|//[^\n]*",
                      lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
        for m in re.finditer(r"\b(?:" + calls + r")\s*\(", text):
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


def catalog_ids(root: Path) -> dict:
    """clause id -> subject."""
    ids = {}
    for f in root.glob("dat_*.toml"):
        with f.open("rb") as fh:
            for c in tomllib.load(fh).get("clause", []):
                ids[c["id"]] = c.get("subject", "provider")
    return ids


def variant_ids(build: Path) -> set:
    """The conforming variants of the built provider (core/profile.c)."""
    sys.path.insert(0, str(REPO / "runners"))
    from datcts.variants import load_variants
    return {v["id"] for v in load_variants(build / "lib" / "libdaplref.so")}


# subject -> (datref-mutants arguments, sources, switch functions)
TABLES = {
    "provider": ([], "reference-provider", r"ref_mutant(?:_enter|_leave)?|REF_MUTANT_ID"),
    "registry": (["--registry"], "libdat", r"dat_mutant"),
}


def check(build: Path, subject: str, clauses: dict, errors: list) -> dict:
    args, src, calls = TABLES[subject]
    p = subprocess.run([str(build / "bin" / "datref-mutants")] + args, capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        errors.append(f"datref-mutants {' '.join(args)} exited with {p.returncode}")
        return {}
    doc = json.loads(p.stdout)
    if doc.get("schema") != "datref-mutants/1":
        errors.append(f"{subject}: schema {doc.get('schema')!r}")
    if doc.get("subject") != subject:
        errors.append(f"{subject}: the table says subject {doc.get('subject')!r}")
    table = {m["id"]: m for m in doc["mutants"]}
    if len(table) != len(doc["mutants"]):
        errors.append(f"{subject}: duplicate mutant ids")
    for m in doc["mutants"]:
        if not ID.match(m["id"]):
            errors.append(f"{m['id']}: id must be lower-case words joined by '-'")
        if not m["clauses"]:
            errors.append(f"{m['id']}: names no clause")
        for c in m["clauses"]:
            if c not in clauses:
                errors.append(f"{m['id']}: clause {c} is not in clauses/*.toml")
            elif subject == "registry" and clauses[c] != "registry":
                errors.append(f"{m['id']}: a registry mutant names {c}, a provider clause")
        if not m["what"]:
            errors.append(f"{m['id']}: says nothing about what it breaks")
        if m.get("variant") and m["variant"] not in variant_ids(build):
            errors.append(f"{m['id']}: variant {m['variant']} is not a variant of the provider")
    used = source_ids(REPO / src, calls)
    for mid, where in sorted(used.items()):
        if mid not in table:
            errors.append(f"{where}: tests mutant {mid}, which is not in the table")
    for mid in sorted(table):
        if mid not in used:
            errors.append(f"mutant {mid} is in the table but no source tests it")
    if not any(m["quick"] for m in doc["mutants"]):
        errors.append(f"{subject}: no mutant is marked .quick (the CI subset is empty)")
    print(f"check_table: {subject}: {len(table)} mutants, {len(used)} ids in the sources, "
          f"{sum(1 for m in doc['mutants'] if m['quick'])} quick")
    return table


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = Path(argv[1])
    errors: list = []
    clauses = catalog_ids(REPO / "clauses")
    tables = {subj: check(build, subj, clauses, errors) for subj in TABLES}
    for mid in sorted(set(tables["provider"]) & set(tables["registry"])):
        errors.append(f"mutant id {mid} is in both tables")
    for e in errors:
        print(f"check_table: {e}", file=sys.stderr)
    print(f"check_table: {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
