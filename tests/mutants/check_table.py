#!/usr/bin/env python3
"""Checks the hand-written mutants, tests/mutants/hand/*.toml (docs/mutants.md,
"The table"):

- every entry is well formed, its id unique (over all the files), lower-case
  words joined by '-', with at least one clause and a text;
- every clause id it names is in the catalog (clauses/*.toml), and a mutant
  of registry.toml names only registry clauses;
- every edit applies to the sources as they are: its anchor occurs exactly
  once in its function (or in its context), the state it declares has its
  place (the same check the schemata build makes);
- a mutant's variant (the conforming variant its cases run under) is one
  the provider has;
- each subject's quick subset (CI) is not empty;
- the provider and the registry hold no mutant code: no switch
  (ref_mutant, op_mutant, shadow_mutant, REF_MUTANT_ID, dat_mutant) and no
  member or static marked "mutants only".

usage: check_table.py BUILD_DIR
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "runners"))

from datcts import handmut  # noqa: E402

LEFTOVER = re.compile(r"ref_mutant|op_mutant|shadow_mutant|REF_MUTANT_ID|\bdat_mutant\b|"
                      r"mutants only", re.I)


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
    from datcts.variants import load_variants
    return {v["id"] for v in load_variants(build / "lib" / "libdaplref.so")}


def leftovers() -> list:
    out = []
    for folder in ("reference-provider", "libdat"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix not in (".c", ".h", ".map", ".txt") or not path.is_file():
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if LEFTOVER.search(line):
                    out.append(f"{path.relative_to(REPO)}:{n}: mutant code in the sources: "
                               f"{line.strip()}")
    return out


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = Path(argv[1])
    errors: list = []
    try:
        mutants, states = handmut.load(REPO)
    except handmut.HandError as e:
        print(f"check_table: {e}", file=sys.stderr)
        return 1
    clauses = catalog_ids(REPO / "clauses")
    seen: dict = {}
    variants = None
    for m in mutants:
        if m.id in seen:
            errors.append(f"{m.source}: mutant {m.id} is also in {seen[m.id]}")
        seen[m.id] = m.source
        if not handmut.ID.match(m.id):
            errors.append(f"{m.id}: id must be lower-case words joined by '-'")
        if not m.clauses:
            errors.append(f"{m.id}: names no clause")
        for c in m.clauses:
            if c not in clauses:
                errors.append(f"{m.id}: clause {c} is not in clauses/*.toml")
            elif m.subject == "registry" and clauses[c] != "registry":
                errors.append(f"{m.id}: a registry mutant names {c}, a provider clause")
        if not m.text.strip():
            errors.append(f"{m.id}: says nothing about what it breaks")
        for e in m.edits:
            want = handmut.SUBJECTS[m.subject][1] + "/"
            if not e.file.startswith(want):
                errors.append(f"{m.id}: edits {e.file}, outside {want} ({m.subject})")
        if m.variant:
            variants = variants if variants is not None else variant_ids(build)
            if m.variant not in variants:
                errors.append(f"{m.id}: variant {m.variant} is not a variant of the provider")
    try:
        handmut.schemata_files(REPO)
    except handmut.HandError as e:
        errors.extend(str(e).splitlines()[1:] or [str(e)])
    for subject in handmut.SUBJECTS:
        mine = [m for m in mutants if m.subject == subject]
        if not any(m.quick for m in mine):
            errors.append(f"{subject}: no mutant is marked quick (the CI subset is empty)")
        print(f"check_table: {subject}: {len(mine)} mutants, "
              f"{sum(len(m.edits) for m in mine)} edits, {sum(1 for m in mine if m.quick)} quick")
    errors.extend(leftovers())
    for e in errors:
        print(f"check_table: {e}", file=sys.stderr)
    print(f"check_table: {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
