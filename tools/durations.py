#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes runners/datcts/durations.json, the expected case durations the
runner's scheduler uses to start the longest cases first when the out dir
holds no earlier run (docs/runner.md, "How a run works"):

    tools/durations.py RUN/results.json [--min-ms 100]

Only the cases that took at least --min-ms are kept (the rest start in
discovery order after them); the figures are rounded to 10 ms.
"""
import argparse
import json
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "runners" / "datcts" / "durations.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--min-ms", type=float, default=100.0)
    ap.add_argument("-o", "--output", default=str(TABLE))
    a = ap.parse_args()
    doc = json.loads(Path(a.results).read_text())
    ms = {r["id"]: round(r["duration_ms"], -1) for r in doc["results"]
          if r.get("duration_ms") is not None and r["duration_ms"] >= a.min_ms}
    ms = dict(sorted(ms.items(), key=lambda kv: (-kv[1], kv[0])))
    Path(a.output).write_text(json.dumps(ms, indent=1) + "\n")
    print(f"{a.output}: {len(ms)} cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
