#!/usr/bin/env python3
"""The figures of docs/multi-host.md "Slurm": the cost of one srun step and
the wall time of `datcts run --slurm` on 2, 3 and 4 nodes, ring and all,
on clusters of tools/slurm/cluster.py (root; a few minutes).

    tools/slurm/measure.py BUILD [--nodes 2,3,4] [--steps 40] [datcts selection...]

The selection defaults to the pages dat_ep_connect and dat_ep_create (52
cases, 15 of them two-node).  Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster import Cluster  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def step_cost(c: Cluster, job: str, n: int) -> tuple:
    """(median, p90) seconds of one `srun --overlap` step running `true`."""
    env = c.client_env()
    times = []
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(["srun", f"--jobid={job}", "--overlap", "--nodelist=node1", "--nodes=1",
                        "--ntasks=1", "--quiet", "true"], env=env, check=True)
        times.append(time.monotonic() - t0)
    times.sort()
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def datcts_wall(c: Cluster, build: Path, pairs: str, selection: list, out: Path) -> tuple:
    env = c.client_env()
    env["PYTHONPATH"] = f"{REPO}/runners:{REPO}/reports"
    argv = ["/usr/bin/python3", "-m", "datcts", "run", "--slurm", "--nodes",
            str(len(c.nodes)), "--pairs", pairs, "--build-dir", str(build), "--out", str(out),
            "--provider", str(build / "lib" / "libdaplref.so"), "--instance-data",
            "sock:{node_addr}", "-q", *selection]
    t0 = time.monotonic()
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    summary = next((line for line in p.stderr.splitlines() if " passed, " in line), "")
    return wall, p.returncode, summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("--nodes", default="2,3,4")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("selection", nargs="*")
    args = ap.parse_args()
    selection = args.selection or ["--page", "dat_ep_connect", "--page", "dat_ep_create"]
    build = args.build.resolve()
    print("| nodes | pairs | directions | wall time | result |")
    print("|---|---|---|---|---|")
    for n in map(int, args.nodes.split(",")):
        d = Path(tempfile.mkdtemp(prefix="datcts-measure-"))
        c = Cluster(d, n)
        t0 = time.monotonic()
        c.up()
        up = time.monotonic() - t0
        try:
            if n == 2:
                p = subprocess.run(["salloc", "--no-shell", "--nodes=1"], env=c.client_env(),
                                   capture_output=True, text=True, check=True)
                job = p.stderr.split("Granted job allocation ")[1].split()[0]
                med, p90 = step_cost(c, job, args.steps)
                subprocess.run(["scancel", job], env=c.client_env())
                print(f"<!-- cluster up {up:.2f} s; srun step median {med * 1000:.0f} ms, "
                      f"p90 {p90 * 1000:.0f} ms over {args.steps} -->")
            for pairs in ("ring", "all"):
                dirs = n * (n - 1) if pairs == "all" else (2 if n == 2 else 2 * n)
                wall, rc, summary = datcts_wall(c, build, pairs, selection, d / f"out-{pairs}")
                print(f"| {n} | {pairs} | {dirs} | {wall:.1f} s | rc {rc}: "
                      f"{summary.removeprefix('datcts: ')} |", flush=True)
        finally:
            c.down()
    return 0


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("measure.py: needs root (a Slurm cluster on network namespaces)")
    sys.exit(main())
