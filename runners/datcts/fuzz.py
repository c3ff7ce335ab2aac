"""datcts fuzz: runs the libFuzzer targets of the fuzz build (docs/fuzzing.md).

  api       the API-sequence fuzzer against the provider under test (--ia /
            --dat-conf / --provider as for `datcts run`); its DAT API picks
            datcts-fuzz-api (1.2) or datcts-fuzz-api2 (2.0)
  dat-conf  libdat's dat.conf parser
  sock      the reference provider's sock transport, fed by a raw TCP peer

libFuzzer runs in fork mode: a crash, hang or leak costs one input, which is
saved in OUT; each finding is then minimised and printed as the C call
sequence that reproduces it.  The exit status is 1 when there is a finding.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from datcts.provider import ProviderError, resolve

TARGETS = ("api", "dat-conf", "sock")
REPO = Path(__file__).resolve().parents[2]
FINDING_PREFIXES = ("crash-", "timeout-", "leak-", "oom-", "slow-unit-")


class FuzzError(Exception):
    pass


def add_parser(sub) -> None:
    p = sub.add_parser("fuzz", help="run the fuzzers (libFuzzer) against a provider")
    p.add_argument("--target", choices=TARGETS + ("all",), default="api",
                   help="what to fuzz (default: api)")
    p.add_argument("--fuzz-build", default="build-fuzz",
                   help="the fuzz build tree (tools/build-fuzz.sh; default: ./build-fuzz)")
    g = p.add_argument_group("provider under test (target api)")
    g.add_argument("--ia", help="IA name in dat.conf (default: the first default entry)")
    g.add_argument("--dat-conf", help="dat.conf (default: $DAT_OVERRIDE, else FUZZ_BUILD/dat.conf)")
    g.add_argument("--provider", help="a provider library; a dat.conf is written for it")
    g.add_argument("--instance-data", help="instance data for --provider's entry")
    p.add_argument("--runs", type=int, help="stop after N executions")
    p.add_argument("--max-time", type=int, help="stop after S seconds (default without --runs: 60)")
    p.add_argument("--jobs", type=int, default=1,
                   help="parallel fuzzing processes (libFuzzer -fork; default 1)")
    p.add_argument("--timeout", type=int, default=60,
                   help="seconds one input may take before it is a hang (default 60)")
    p.add_argument("--out", default="out-fuzz", help="corpus, findings and summary (default ./out-fuzz)")
    p.add_argument("--repro", metavar="FILE",
                   help="replay one saved input and print its C call sequence (no fuzzing)")
    p.add_argument("--no-minimize", action="store_true", help="do not minimise findings")


def _api_setup(args, fuzz_build: Path, out: Path):
    setup = resolve(build_dir=fuzz_build, out_dir=out, ia=args.ia, dat_conf=args.dat_conf,
                    provider=args.provider, instance_data=args.instance_data)
    binary = "datcts-fuzz-api2" if setup.api == "2.0" else "datcts-fuzz-api"
    env = setup.env()
    if setup.library:
        # loaded before any registry call: libFuzzer must never see it unloaded
        env["DATCTS_FUZZ_PROVIDER"] = setup.library
    return binary, env, setup


def _binary(fuzz_build: Path, name: str) -> Path:
    b = fuzz_build / "fuzz" / name
    if not os.access(b, os.X_OK):
        raise FuzzError(f"no {b}: build the fuzz tree first (tools/build-fuzz.sh, "
                        "or BUILD_DIR=... tools/build-fuzz.sh and --fuzz-build)")
    return b


def _findings(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir()
                  if p.is_file() and p.name.startswith(FINDING_PREFIXES)
                  and not p.name.endswith((".min", ".c.txt")))


def _replay(binary: Path, env: dict, unit: Path, timeout: int) -> str:
    try:
        r = subprocess.run([str(binary), f"-timeout={timeout}", str(unit)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout * 4)
        return r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
        return (out.decode(errors="replace") if isinstance(out, bytes) else out) + \
            f"\n[datcts fuzz: the replay did not end within {timeout * 4} s]\n"


def _echoed_calls(text: str) -> str:
    """The calls a replay with DATCTS_FUZZ_ECHO=1 printed as it made them
    (each `r = ...;` line, then its result), the last one unanswered when
    the process died inside it."""
    text = text.split("\nRunning: ", 1)[-1]
    lines, answered = [], True
    for ln in text.splitlines():
        if ln.startswith("r = "):
            lines.append(ln)
            answered = False
        elif ln.startswith("\t/* ") and lines and not answered:
            lines[-1] += ln
            answered = True
    if lines and not answered:
        lines[-1] += "\t/* <- did not return */"
    return "".join(ln + "\n" for ln in lines)


# libFuzzer's and the sanitizers' reports, and _replay's own note of a hang
ERROR_REPORT = r"(==\d+== ?ERROR: .*?SUMMARY: [^\n]*\n|\[datcts fuzz: the replay did not end[^\n]*\n)"
NOT_REPRODUCED = ("==== datcts fuzz: NOT REPRODUCED: the input ran without a finding when "
                  "replayed; the finding depends on timing ====")


def _reproducer(binary: Path, env: dict, unit: Path, timeout: int) -> str:
    """The C call sequence (and the report) printed by replaying unit."""
    text = _replay(binary, env, unit, timeout)
    m = re.search(r"==== datcts fuzz: FINDING.*?(?=\n==\d+== ERROR: libFuzzer|\Z)", text, re.S)
    if m:
        return m.group(0).rstrip() + "\n"
    m = re.search(ERROR_REPORT, text, re.S)
    repro = re.search(r"==== datcts fuzz: C reproducer.*?==== end of reproducer ====\n", text, re.S)
    if m and repro:
        return m.group(1) + repro.group(0)
    # A death the sequence printer never saw (an abort() in the provider is
    # libFuzzer's, not the sanitizer's), or none at all this time (a race):
    # replay once more, echoing each call as it is made, so the sequence
    # survives however the process ends.
    echoed = _replay(binary, dict(env, DATCTS_FUZZ_ECHO="1"), unit, timeout)
    calls = _echoed_calls(echoed)
    m = m or re.search(ERROR_REPORT, echoed, re.S)
    if not m:
        return (NOT_REPRODUCED + "\n"
                + ("==== datcts fuzz: the calls of the input (replays that did not fail) ====\n"
                   + calls.replace("\t/* <- did not return */", "")
                   + "==== end of calls ====\n" if calls else ""))
    if not calls:
        return m.group(1)
    return (m.group(1) + "==== datcts fuzz: C reproducer (echoed by a second replay) ====\n"
            + calls + "==== end of reproducer ====\n")


def _minimize(binary: Path, env: dict, unit: Path, timeout: int) -> Path:
    out = unit.with_name(unit.name + ".min")
    subprocess.run([str(binary), "-minimize_crash=1", "-runs=2000", f"-timeout={timeout}",
                    f"-exact_artifact_path={out}", str(unit)], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout * 40)
    return out if out.is_file() else unit


def _executions(log: str) -> int:
    runs = [int(n) for n in re.findall(r"^#(\d+)[:\s]", log, re.M)]
    done = re.findall(r"Done (\d+) runs", log)
    return max(runs + [int(d) for d in done] + [0])


def run_target(args, target: str, fuzz_build: Path, out_root: Path) -> dict:
    out = out_root / target
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("DATCTS_FUZZ_ECHO", None)
    described = {}
    if target == "api":
        name, env, setup = _api_setup(args, fuzz_build, out)
        seeds = REPO / "fuzz" / "api" / "corpus"
        described = {"ia": setup.ia, "dat_conf": str(setup.dat_conf),
                     "library": setup.library, "api": setup.api}
    elif target == "dat-conf":
        name, seeds = "datcts-fuzz-dat-conf", REPO / "fuzz" / "conf" / "corpus"
    else:
        name, seeds = "datcts-fuzz-sock", REPO / "fuzz" / "sock" / "corpus"
        env["DAT_OVERRIDE"] = str(fuzz_build / "dat.conf")
    binary = _binary(fuzz_build, name)
    if args.repro:
        print(_reproducer(binary, env, Path(args.repro), args.timeout), end="")
        return {"target": target, "findings": []}
    corpus = out / "corpus"
    corpus.mkdir(exist_ok=True)
    cmd = [str(binary), f"-timeout={args.timeout}", "-max_len=4096",
           f"-artifact_prefix={out}/", f"-fork={max(args.jobs, 1)}",
           "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1", "-print_final_stats=1"]
    if args.runs is not None:
        cmd.append(f"-runs={args.runs}")
    if args.max_time is not None or args.runs is None:
        cmd.append(f"-max_total_time={args.max_time or 60}")
    # the seeds are in a checkout (an installed datcts starts from its corpus)
    cmd += [str(corpus)] + ([str(seeds)] if seeds.is_dir() else [])
    print(f"datcts fuzz: {target}: {' '.join(cmd)}", file=sys.stderr)
    log_path = out / "fuzz.log"
    with open(log_path, "w") as log:
        subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=out)
    text = log_path.read_text(errors="replace")
    findings = []
    for unit in _findings(out):
        small = unit if args.no_minimize else _minimize(binary, env, unit, args.timeout)
        repro = _reproducer(binary, env, small, args.timeout)
        (out / (unit.name + ".c.txt")).write_text(repro)
        findings.append({"input": str(small), "reproducer": str(out / (unit.name + ".c.txt")),
                         "reproduced": not repro.startswith(NOT_REPRODUCED)})
        print(f"datcts fuzz: {target}: FINDING {unit.name}\n{repro}", file=sys.stderr)
    summary = {"target": target, "binary": str(binary), "executions": _executions(text),
               "findings": findings, "log": str(log_path), **described}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    racy = sum(1 for f in findings if not f["reproduced"])
    print(f"datcts fuzz: {target}: {summary['executions']} executions, "
          f"{len(findings)} finding(s)" + (f" ({racy} not reproduced)" if racy else "")
          + f"; log {log_path}", file=sys.stderr)
    return summary


def cmd_fuzz(args) -> int:
    fuzz_build = Path(args.fuzz_build).resolve()
    out_root = Path(args.out).resolve()
    out_root.mkdir(parents=True, exist_ok=True)
    if args.jobs < 1 or args.timeout < 1:
        raise FuzzError("--jobs and --timeout must be at least 1")
    targets = TARGETS if args.target == "all" else (args.target,)
    if args.repro and len(targets) != 1:
        raise FuzzError("--repro needs one --target")
    try:
        results = [run_target(args, t, fuzz_build, out_root) for t in targets]
    except ProviderError as e:
        raise FuzzError(str(e)) from e
    return 1 if any(r["findings"] for r in results) else 0
