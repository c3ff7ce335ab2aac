"""``datcts bench-overhead``: what a case costs besides its own checks.

Runs the trivial cases of <build>/bench/datcts-cases-bench many times,
--jobs at a time, through the same engine as ``datcts run`` (runner process
spawn, the case binary's supervisor, the case process, IA open and query,
teardown, result parsing; for two-node cases also the second process and
the relay), and reports wall time per case, also with the single-node
case --batch at a time through one supervisor.  It also times one whole
``datcts run`` of a single case, the fixed cost of an invocation."""

from __future__ import annotations

import concurrent.futures as cf
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from datcts.discovery import find_binaries, list_binary
from datcts.execute import (SUPERVISOR_GRACE_S, LocalLauncher, ProcessTable, Runner,
                            result_line, stream_supervised)
from datcts.provider import resolve

GOALS_MS = {"bench.single": 20.0, "bench.two_node": 50.0, "bench.two_node_connect": 50.0}
LABELS = {
    "bench.single": "single-node",
    "bench.two_node": "two-node (handshake + 1 message)",
    "bench.two_node_connect": "two-node, connected EP pair",
}


def _mean_phase(results, key):
    vals = [r["phases"].get(key) for r in results if r.get("phases")]
    vals = [v for v in vals if isinstance(v, (int, float))]
    return statistics.mean(vals) if vals else None


def measure(runner: Runner, case, count: int, jobs: int, batch: int = 1) -> dict:
    """`count` runs of `case`, `jobs` at a time; with `batch` > 1 that many
    a supervisor (``--run ID ID ...``, as ``datcts run --batch``)."""
    def batch_of_runs() -> list:
        got: list = []

        def line(text: str) -> None:
            r = result_line(text, (case.id,))
            if r is not None:
                got.append(r)

        p = runner.launcher.start([case.binary, "--run", *[case.id] * batch,
                                   "--timeout", f"{runner.timeout:g}"],
                                  stdin=subprocess.DEVNULL)
        stream_supervised(runner.procs, p, batch * runner.timeout + SUPERVISOR_GRACE_S, line)
        return got

    def runs(_) -> list:
        return [runner.run(case)] if batch == 1 else batch_of_runs()

    for _ in range(min(2, count)):  # warm the page cache and the loader
        runs(_)
    units = max(1, count // batch)
    t0 = time.monotonic()
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        results = [r for unit in ex.map(runs, range(units)) for r in unit]
    wall = time.monotonic() - t0
    count = units * batch
    states = Counter(r["state"] for r in results)
    bad = [r for r in results if r["state"] != "PASS"]
    return {
        "case": case.id,
        "batch": batch,
        "count": count,
        "jobs": jobs,
        "wall_s": round(wall, 4),
        "ms_per_case": round(wall * 1000.0 / count, 3),
        "mean_case_ms": round(statistics.mean(r["duration_ms"] for r in results), 3),
        "mean_ia_open_ms": _mean_phase(results, "ia_open_ms"),
        "mean_teardown_ms": _mean_phase(results, "teardown_ms"),
        "states": dict(states),
        "first_problem": (bad[0]["state"] + ": " + bad[0]["message"]) if bad else None,
        "goal_ms": GOALS_MS.get(case.id) if batch == 1 else None,
    }


def bench_overhead(args) -> int:
    build = Path(args.build_dir).resolve()
    bench_dir = Path(args.cases_dir) if args.cases_dir else build / "bench"
    bins = [b for b in find_binaries(bench_dir) if b.name == "datcts-cases-bench"]
    if not bins:
        print(f"datcts: error: no datcts-cases-bench in {bench_dir} (build the project)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="datcts-bench-") as tmp:
        setup = resolve(build_dir=build, out_dir=Path(tmp), ia=args.ia,
                        dat_conf=args.dat_conf, provider=args.provider,
                        instance_data=args.instance_data)
        env = setup.env()
        cases = {c.id: c for c in list_binary(bins[0], env)}
        runner = Runner(LocalLauncher(env), args.timeout, ProcessTable())
        ids = ["bench.single", "bench.two_node"]
        if args.connect:
            ids.append("bench.two_node_connect")
        rows = [measure(runner, cases[i], args.count, args.jobs) for i in ids]
        if args.batch > 1:
            rows.insert(1, measure(runner, cases["bench.single"], args.count, args.jobs,
                                   args.batch))

        # The fixed cost of one `datcts run` invocation (start-up, discovery,
        # pytest, JUnit), measured on a single trivial case.
        t0 = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "datcts", "run", "--cases-dir", str(bench_dir),
             "--dat-conf", str(setup.dat_conf), "--ia", setup.ia, "-k", "bench.single",
             "--out", str(Path(tmp) / "out"), "--jobs", "1", "--quiet"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        fixed = time.monotonic() - t0

    report = {"provider": setup.describe(), "jobs": args.jobs, "count": args.count,
              "kinds": rows, "fixed_run_cost_ms": round(fixed * 1000.0, 1)}
    ok = all(r["first_problem"] is None for r in rows)
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(f"bench-overhead: IA {setup.ia} ({setup.dat_conf}), "
              f"--jobs {args.jobs}, {args.count} runs of each case")
        for r in rows:
            goal = r["goal_ms"]
            verdict = ""
            if goal is not None:
                verdict = f"  goal <= {goal:g} ms: {'met' if r['ms_per_case'] <= goal else 'MISSED'}"
            phases = []
            if r["mean_ia_open_ms"] is not None:
                phases.append(f"IA open {r['mean_ia_open_ms']:.2f} ms")
            if r["mean_teardown_ms"] is not None:
                phases.append(f"teardown {r['mean_teardown_ms']:.2f} ms")
            label = LABELS.get(r["case"], r["case"])
            if r["batch"] > 1:
                label = f"single-node, {r['batch']} a supervisor"
            print(f"  {label:<34} {r['ms_per_case']:7.2f} ms/case"
                  f"  (one case alone: {r['mean_case_ms']:.2f} ms; {', '.join(phases)}){verdict}")
            if r["first_problem"]:
                print(f"    not all runs passed: {r['states']}; first: {r['first_problem']}")
        print(f"  fixed cost of one `datcts run` (start-up, discovery, pytest): "
              f"{report['fixed_run_cost_ms']:.0f} ms")
    return 0 if ok else 1
