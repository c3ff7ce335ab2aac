#!/usr/bin/env python3
"""ctest store.ci_runs: the runs this build's tests made go into a results store
(docs/store.md, "The project's own runs"), beside the committed OFA certification
bundles, so that one store holds the reference provider's runs, each variant's and
OFA's, as the store would for a site.

    ci_store.py BUILD_DIR STORE_FILE

Stores (each where it exists; ctest runs this test after the ones that make them):
the suite on ref-sock in 1.2 and 2.0 and without the suite's facilities, each
conforming variant of variants-quick, vm.verbs_suite's device runs and its OFA
certification subset, and docs/certification/ofa-dapl-2.1.10/bundles/. A run the
store holds already is recognised, not stored twice (the file is kept between local
runs: that is the history). Fails when an input is refused, or when the verdict the
store computed for a run directory is not the one its own verdict.json says (the
store judges results by the rules of this checkout, as the run did). Prints the
store's size per run held in full and the time to ingest one.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from datcts_reports.store import ingest as ingest_mod
from datcts_reports.store.db import Store, StoreError

REPO = Path(__file__).resolve().parents[2]


def inputs(build: Path) -> list[Path]:
    t = build / "tests"
    dirs = [t / "suite" / "out", t / "suite" / "out-no-facilities", t / "dat2" / "suite" / "dat20"]
    dirs += sorted((t / "mutants" / "out-variants-quick").glob("*/"))
    vm = t / "vm-suite" / "out"
    # a device's run and its DAT 2.0 run; a retry of its flaky cases is not a run of its own
    dirs += sorted(p for p in vm.glob("*/") if not p.name.endswith("-retry"))
    dirs += sorted((vm / "certify-ofa").glob("*/"))
    runs = [d for d in dirs if (d / "results.json").is_file() and (d / "verdict.json").is_file()]
    bundles = sorted((REPO / "docs" / "certification").glob("*/bundles/*.tar.gz"))
    return runs + bundles


def main() -> int:
    build, store_file = Path(sys.argv[1]), Path(sys.argv[2])
    store_file.parent.mkdir(parents=True, exist_ok=True)
    problems, seconds, new = [], [], 0
    paths = inputs(build)
    with Store(str(store_file)) as st:
        for path in paths:
            try:
                got = ingest_mod.ingest_path(st, path)
            except StoreError as e:
                problems.append(f"{path}: refused: {e}")
                continue
            if got.new:
                new += 1
                seconds.append(got.seconds)
            stored = st.read("SELECT verdict, ia FROM runs WHERE id = ?", (got.run_id,))[0]
            if path.is_dir():
                own = json.loads((path / "verdict.json").read_text())["verdict"]
                if stored[0] != own:
                    problems.append(f"{path}: the store judged it {stored[0]}, its verdict.json "
                                    f"says {own}")
            print(f"{'stored' if got.new else 'held  '} run {got.run_id:<4} {stored[1] or '?':<18} "
                  f"{stored[0]:<16} {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
        full = st.read("SELECT COUNT(*) FROM runs WHERE pruned = 0")[0][0]
        total = st.read("SELECT COUNT(*) FROM runs")[0][0]
        size = st.size()
    print(f"store {store_file}: {total} runs ({full} in full), {size / 1024:.0f} KiB, "
          f"{size / 1024 / max(full, 1):.0f} KiB per run in full; {new} stored now"
          + (f", ingest median {statistics.median(seconds):.2f} s, longest {max(seconds):.2f} s"
             if seconds else ""))
    for p in problems:
        print(p, file=sys.stderr)
    if not paths:
        print("SKIPPED: no runs and no bundles to store", file=sys.stderr)
        return 77
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
