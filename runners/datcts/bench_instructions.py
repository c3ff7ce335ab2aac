"""``datcts bench-instructions``: user-space instructions per DAT call,
counted by valgrind's callgrind, for one or more providers side by side.

Runs ``<build>/bin/instrbench`` (DAT 1.2, libdat) or ``instrbench2`` (DAT
2.0, libdat2; chosen by the API field of the IA's dat.conf entry) under
``valgrind --tool=callgrind --collect-atstart=no``.  The program switches
collection on just before each measured call and off just after it, in the
calling thread only (callgrind's collection state is per thread: the
provider's progress thread is never counted), and dumps the counters once
per operation; the cost of an empty pair of toggles is taken off.
Instruction counts do not depend on the machine's load, so one run of each
provider is enough, and the ratios compare providers where timings cannot.

Columns: ``--column LABEL=IA[@DATCONF]`` (repeatable); without any, the
reference provider of the build, ``libdaplref`` (BUILD/dat.conf) and
``libdaplref2`` (BUILD/dat2.conf, when built).  The ratios are to the
``--reference`` column: by default the one whose library is OFA's
``libdaplofa``, else the first.

``--growth`` also runs each column with 1, 64, 1024 and 4096 live EPs and
LMRs on each IA (``--live``) and prints, per call, the count at each N and
the ratio of the largest to 1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from datcts.provider import ProviderError, entry_api, parse_dat_conf

# (dump name, row label)
CALLS = [
    ("ep_post_send", "dat_ep_post_send"),
    ("ep_post_recv", "dat_ep_post_recv"),
    ("ep_post_rdma_write", "dat_ep_post_rdma_write"),
    ("ep_post_rdma_read", "dat_ep_post_rdma_read"),
    ("evd_dequeue", "dat_evd_dequeue, a completion queued"),
    ("evd_dequeue_empty", "dat_evd_dequeue, empty"),
    ("evd_wait", "dat_evd_wait, a completion queued"),
]
COUNT_RE = re.compile(r"^instrbench: count (\S+) (\d+)$", re.M)
TRIGGER_RE = re.compile(r"^desc: Trigger: Client Request: (\S+)$", re.M)
TOTAL_RE = re.compile(r"^(?:summary|totals): (\d+)$", re.M)


class Column:
    def __init__(self, label: str, ia: str, conf: Path):
        self.label, self.ia, self.conf = label, ia, conf
        entries = parse_dat_conf(conf)
        match = [e for e in entries if e.ia == ia]
        if not match:
            raise ProviderError(f"{conf}: no IA {ia}")
        self.entry = match[0]
        self.api = entry_api(self.entry.api)

    @property
    def library(self) -> str:
        return os.path.basename(self.entry.library)


def _default_ia(conf: Path) -> str:
    entries = parse_dat_conf(conf)
    for e in entries:
        if e.default == "default" and e.api.startswith("u"):
            return e.ia
    if entries:
        return entries[0].ia
    raise ProviderError(f"{conf}: no IA")


def _columns(args, build: Path) -> list[Column]:
    cols = []
    for spec in args.column or []:
        label, eq, rest = spec.partition("=")
        if not eq or not label or not rest:
            raise ProviderError(f"--column {spec!r}: want LABEL=IA[@DATCONF]")
        ia, at, conf = rest.partition("@")
        path = Path(conf) if at else Path(args.dat_conf or os.environ.get("DAT_OVERRIDE")
                                          or build / "dat.conf")
        cols.append(Column(label, ia, path))
    if cols:
        return cols
    for label, name in (("libdaplref", "dat.conf"), ("libdaplref2", "dat2.conf")):
        conf = build / name
        if conf.exists():
            cols.append(Column(label, _default_ia(conf), conf))
    if not cols:
        raise ProviderError(f"no {build}/dat.conf: build the suite first")
    return cols


def count(col: Column, build: Path, calls: int, live: int, timeout: float) -> dict[str, float]:
    """Instructions per call of each measured operation, for one column."""
    prog = build / "bin" / ("instrbench2" if col.api == "2.0" else "instrbench")
    if not prog.exists():
        raise ProviderError(f"{prog} not built (valgrind's callgrind.h missing?)")
    if not shutil.which("valgrind"):
        raise ProviderError("valgrind not installed (Debian package valgrind)")
    with tempfile.TemporaryDirectory(prefix="datcts-instr-") as tmp:
        env = dict(os.environ, DAT_OVERRIDE=str(col.conf))
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               f"--callgrind-out-file={tmp}/cg.%p", str(prog), "-d", col.ia,
               "-n", str(calls), "-e", str(live)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: "
                               f"{(p.stderr or p.stdout).strip()[-400:]}")
        ncalls = {m.group(1): int(m.group(2)) for m in COUNT_RE.finditer(p.stdout)}
        totals: dict[str, int] = {}
        for f in Path(tmp).iterdir():
            text = f.read_text(errors="replace")
            t, s = TRIGGER_RE.search(text), TOTAL_RE.search(text)
            if t and s:
                totals[t.group(1)] = int(s.group(1))
    missing = [n for n, _ in CALLS + [("toggle", "")] if n not in totals or n not in ncalls]
    if missing:
        raise RuntimeError(f"{col.label}: no count for {', '.join(missing)}")
    toggle = totals["toggle"] / ncalls["toggle"]
    return {n: totals[n] / ncalls[n] - toggle for n, _ in CALLS}


def _reference(cols: list[Column], name: str | None) -> int:
    if name:
        for i, c in enumerate(cols):
            if c.label == name:
                return i
        raise ProviderError(f"--reference {name}: no such column")
    for i, c in enumerate(cols):
        if "libdaplofa" in c.library:
            return i
    return 0


def _table(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(rows[0]))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(out)


def bench_instructions(args) -> int:
    build = Path(args.build_dir)
    try:
        cols = _columns(args, build)
        ref = _reference(cols, args.reference)
    except ProviderError as e:
        print(f"datcts: {e}", file=sys.stderr)
        return 2
    doc = {"calls": args.calls, "reference": cols[ref].label, "columns": []}
    counts = []
    try:
        for c in cols:
            print(f"datcts: counting {c.label} ({c.ia}, {c.library}, DAT {c.api})",
                  file=sys.stderr)
            counts.append(count(c, build, args.calls, 1, args.timeout))
    except (ProviderError, RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"datcts: {e}", file=sys.stderr)
        return 1
    growth: dict = {}
    failed = []
    if args.growth:
        # one N that fails (a timeout under emulation) leaves the others
        for c in cols:
            growth[c.label] = {}
            for n in args.live:
                print(f"datcts: counting {c.label} with {n} live EPs and LMRs",
                      file=sys.stderr)
                try:
                    growth[c.label][n] = count(c, build, args.calls, n, args.timeout)
                except (ProviderError, RuntimeError, subprocess.TimeoutExpired) as e:
                    print(f"datcts: {e}", file=sys.stderr)
                    failed.append(f"{c.label} N={n}")
    for c, k in zip(cols, counts):
        doc["columns"].append({"label": c.label, "ia": c.ia, "dat_conf": str(c.conf),
                               "library": c.entry.library, "api": c.api,
                               "per_call": {n: round(k[n], 1) for n, _ in CALLS},
                               "growth": {str(n): {m: round(v, 1) for m, v in g.items()}
                                          for n, g in growth.get(c.label, {}).items()}})
    doc["growth_failed"] = failed
    if args.json:
        print(json.dumps(doc, indent=1))
        return 1 if failed else 0
    others = [i for i in range(len(cols)) if i != ref]
    head = ["instructions per call"] + [f"{c.label} ({c.ia})" for c in cols]
    head += [f"{cols[i].label} / {cols[ref].label}" for i in others]
    rows = [head]
    for n, label in CALLS:
        r = [label] + [f"{k[n]:.0f}" for k in counts]
        r += [f"{counts[i][n] / counts[ref][n]:.2f}x" for i in others]
        rows.append(r)
    print(_table(rows))
    for c in cols:
        if c.label not in growth:
            continue
        g = growth[c.label]
        ns = sorted(g)
        if not ns:
            continue
        print(f"\nGrowth, {c.label} ({c.ia}): instructions per call with N live EPs "
              "and LMRs on each IA")
        rows = [["instructions per call"] + [f"N = {n}" for n in ns]
                + [f"{ns[-1]} / {ns[0]}"]]
        for n, label in CALLS:
            rows.append([label] + [f"{g[m][n]:.0f}" for m in ns]
                        + [f"{g[ns[-1]][n] / g[ns[0]][n]:.2f}x"])
        print(_table(rows))
    if failed:
        print(f"\nNot counted: {', '.join(failed)}")
    return 1 if failed else 0


def add_parser(sub, add_build_opts):
    p = sub.add_parser("bench-instructions",
                       help="user-space instructions per DAT call (callgrind), providers side by side")
    add_build_opts(p)
    p.add_argument("--dat-conf", help="dat.conf of the --column IAs without @DATCONF "
                                      "(default: $DAT_OVERRIDE, else BUILD/dat.conf)")
    p.add_argument("--column", action="append", metavar="LABEL=IA[@DATCONF]",
                   help="a provider to count (repeatable; default: libdaplref and "
                        "libdaplref2 of the build)")
    p.add_argument("--reference", metavar="LABEL",
                   help="the column the ratios are to (default: libdaplofa's, else the first)")
    p.add_argument("--calls", type=int, default=1024,
                   help="measured calls of each kind (default: 1024)")
    p.add_argument("--growth", action="store_true",
                   help="also count with 1, 64, 1024 and 4096 live EPs and LMRs")
    p.add_argument("--live", type=lambda s: [int(x) for x in s.split(",")],
                   default=[1, 64, 1024, 4096], help="with --growth: the Ns (default: 1,64,1024,4096)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per program run")
    p.add_argument("--json", action="store_true")
