"""`datcts mutate --generated`: generated mutants of the reference provider
(docs/mutants.md, "Generated mutants").

1. The mutants of reference-provider/core/*.c (datcts.mutgen, libclang, with
   the build's compile_commands.json).
2. The coverage map: every selected case run once, alone, on a --coverage
   build of libdaplref (OUT/coverage-build), each with its own GCOV_PREFIX
   (a scratch directory in /dev/shm);
   gcov says which provider lines it executed.  Cached in
   OUT/coverage-map.json, keyed by the provider sources and the case binaries.
   The same runs are the baseline (what passes without a mutant).
3. One mutant build: a scratch copy of the tree (OUT/mutant-src) whose
   selected files are their mutant schemata, libdaplref built from it alone
   (OUT/mutant-build); a mutant is chosen at run time by DATCTS_GENMUT.
   A mutant whose code does not compile is `build-failed`.
4. Each mutant runs the cases that reach its lines, its function's page
   first, until one ends FAIL or CRASH: single-node cases in batches, one
   case binary run for several cases (`--run ID ID ...`: the binary's own
   supervisor still forks each case alone), two-node cases one at a time.
5. OUT/generated-mutants.json (datcts-generated-mutants/1) and a summary.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import datetime as dt
import fnmatch
import functools
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

from datcts import handmut, mutgen, tce
from datcts.discovery import discover, find_binaries, split_multi
from datcts.execute import (SUPERVISOR_GRACE_S, LocalLauncher, ProcessTable, Runner,
                            communicate_supervised, normalize, result_line,
                            synthesized)
from datcts.mutate import MutateError
from datcts.provider import parse_dat_conf, resolve, write_dat_conf

SCHEMA = "datcts-generated-mutants/1"
COVERAGE_SCHEMA = "datcts-coverage-map/1"
# identical: the mutant compiles to its file's original object code (tce.py), settled
# without a run and out of the score
STATUSES = ("killed", "survived", "not-reached", "timed-out", "build-failed", "identical")
# LEAK: the case passed, but LeakSanitizer found memory its process lost
# (the asan configuration, leak_verdict below)
# RACE: the case passed, but ThreadSanitizer saw a data race in its process
# (the tsan configuration, race_verdict below)
KILL_STATES = ("FAIL", "CRASH", "LEAK", "RACE")  # a TIMEOUT kills too, but the next case may FAIL
# the states of a case run that detect a mutant: a kill, or a hang
DETECTING_STATES = KILL_STATES + ("TIMEOUT",)
VALID_BASELINE = ("PASS", "UNSUPPORTED")
# A survivor's triage.  "killed-in-config": it survives the default
# configuration and dies in another one of the provider's (--config, or the
# DAT 2.0 build, "dat2"): a run without that configuration lists it as
# triaged, and it stays in the score as a survivor there.
TRIAGE_KINDS = {"equivalent": ("reason",), "unspecified": ("page", "section", "words"),
                "gap": ("closes",), "killed-in-config": ("config", "killed_by")}
PROVIDER_DIR = "reference-provider/core"
# The hand-written mutant table is test machinery, not provider behaviour.
EXCLUDED_FILES = ("mutants.c",)
# The library each DAT API's provider is built as: the 1.2 build
# (libdaplref, the cases of BUILD/cases) or the 2.0 one (libdaplref2 from the
# same core/ plus abi20.c instead of abi12.c, the cases of BUILD/cases2).
TARGETS = {"1.2": "daplref", "2.0": "daplref2"}
TARGET = TARGETS["1.2"]
# A hanging mutant is given up after this many of its case runs timed out, or
# at once when a TIMEOUT at the full limit has its control (the case without
# the mutant passed within that limit).
MAX_TIMEOUTS = 2
# Cases per run of a case binary, batch after batch (the last repeats), and the
# least timeout of a case in a batch (a lone case keeps 10 s): with the
# binary's supervisor a case costs ~3 ms, through a process of its own ~19 ms.
BATCH_SIZES = (2, 8, 32, 128)
BATCH_MIN_TIMEOUT_S = 5.0
# The deadline ladder: a case first runs with a short deadline (SHORT_FACTOR
# times its baseline time, at least SHORT_FLOOR_S); a result that ran into
# it (a TIMEOUT, or a FAIL after a wait that used up half of it) decides
# nothing until the same case, run again with the full limit above, says the
# same.  A mutant that makes a set-up wait never end then costs the short
# deadline per case, not the full one.
SHORT_FLOOR_S = 1.5
SHORT_FACTOR = 3
DEADLINE_BOUND = 0.5
# A result at the limit that the case without the mutant also fails to beat
# gets both runs once more with this many times the limit (at most
# --timeout) before it is left undecided.
ESCALATION = 4
# A survivor's cases UNRESOLVED at the short deadline: this many run again
# with the full limit (a FAIL there is a kill the short deadline hid).
MAX_UNRESOLVED_RECHECKS = 2
# A survivor's cases that passed without it and ended UNSUPPORTED with it at
# the short deadline (a case's own time bound): this many run again with the
# full limit.  The whole run of 2026-11-29 counted seven mutants as survivors
# that dat_ia_close.no_memory_growth FAILs with its full limit: at 1.5 s it
# had no time for its cycles and ended UNSUPPORTED.
MAX_UNSUPPORTED_RECHECKS = 4
# A survivor's cases that passed at the short deadline after sizing their work
# down to it (a result's work_fraction, dc_work_shortened): this many run again
# with the full limit.  CI's sample of 2026-11-29 counted
# lmr.c:lmr_release:call-del:5 (an LMR's slot never freed) as a survivor: on a
# machine loaded by the VM suite, dat_ia_close.no_memory_growth_out_of_memory
# shortened its cycles to fit 3.7 s, and memory kept a 64 KiB slab at a time
# did not grow in every half of so few cycles.
MAX_SHORTENED_RECHECKS = 2
# Mutants the triage says survive, run together in a run that re-checks it
# (--group; settle_group).
GROUP_SIZE = 96
# A case run holds one of --jobs slots until it has run this long; then,
# unless its processes keep a CPU busy (a thread runnable, or BUSY_SHARE of
# a CPU used over the last such period: a wait that spins, as a mutant that
# breaks the waiter's descriptor makes every wait do), it is waiting (a
# hang running out its limit, a case's own timed wait) and lets another run
# start, up to WAITING_WORKERS times --jobs at once (CaseRunner.slot).  The
# whole run of 2026-11-29 evening sat at a load of 10 on two CPUs in its
# groups, a spinning mutant's runs having let go of their slots; with busy
# runs keeping theirs and 4 waiting workers, the single mutants then sat at
# 10-20 % of the CPUs, every worker waiting out a hang's full limit.  With a
# second here, the groups of the default configuration left the CPUs 40 %
# idle (2026-11-29 22:38-22:44, load 2-3): most batch runs last about a
# second, held their slot all along and waited in their cases' timed waits.
WAITING_AFTER_S = 0.25
WAITING_WORKERS = 8
BUSY_SHARE = 0.5
# A mutant the triage says survives runs all of its cases, one batch after
# another: the whole run's default configuration ended in a few such mutants,
# each alone on a CPU, the others idle (2026-11-29, 20:13-20:17).  Its
# batches (and a group's) start up to --jobs ahead, their results still
# taken in order (BatchesAhead).
AHEAD_POOL = cf.ThreadPoolExecutor(max_workers=64, thread_name_prefix="ahead")
# A case a group ends otherwise: the members that reach it are halved, each
# half run on it together, until a part this small, whose members then run
# it alone (a group of 96 on a hot case: about a dozen runs of the case,
# not 96).
ALONE_PART = 4


class GeneratedError(MutateError):
    """A usage or configuration problem (exit 2)."""


def add_arguments(p) -> None:
    g = p.add_argument_group("generated mutants (--generated)")
    g.add_argument("--generated", action="store_true",
                   help="mutants generated from reference-provider/core/*.c with libclang")
    g.add_argument("--files", action="append",
                   help="source files (glob on the path or the name, e.g. pz.c; default: all)")
    g.add_argument("--functions", action="append", help="function name globs")
    g.add_argument("--operators", action="append",
                   help="operators (comma-separated; default: all of " +
                        ", ".join(mutgen.OPERATORS) + ")")
    g.add_argument("--page", action="append",
                   help="only the cases of these pages (globs) run, for coverage and kills")
    g.add_argument("--case", action="append",
                   help="only the cases of these ids (globs) run, e.g. '*.mt_safe*' for the "
                        "tsan configuration (with --page: both)")
    g.add_argument("--max-cases", type=int,
                   help="run at most N reaching cases per mutant, fastest first (default: all; "
                        "a survivor then says how many it ran)")
    g.add_argument("--sample", type=int, help="a random sample of N mutants (fixed by --seed)")
    g.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    g.add_argument("--threshold", type=float,
                   help="exit 1 when the score (percent) is below this or a survivor is "
                        "untriaged")
    g.add_argument("--triage", help="triage file (default: tests/mutants/generated-triage.toml)")
    g.add_argument("--check-triage", action="store_true", default=None,
                   help="run nothing: exit 1 when a triage entry names no mutant, or its "
                        "mutant's code is not the code the entry was judged on (its `code`), "
                        "or it does not say")
    g.add_argument("--trust-triage", action="store_true", default=None,
                   help="do not re-run mutants the triage file lists: count them as it says "
                        "(equivalent/unspecified excluded, gap survived); for the CI sample, "
                        "where a survivor would run every case that reaches it")
    g.add_argument("--recheck-triaged", type=int, default=None, metavar="N",
                   help="with --trust-triage: still run N of the mutants triaged equivalent "
                        "or unspecified (drawn with --seed); one that is killed is a triage "
                        "error and fails the run")
    g.add_argument("--group", type=int, default=None, metavar="N",
                   help="without --trust-triage: the mutants the triage says survive run in "
                        "groups of up to N, all on at once; a group whose cases all end as "
                        "without a mutant settles each member, a member that changes a case "
                        "alone runs alone (default " + str(GROUP_SIZE) + "; 1: every mutant "
                        "alone)")
    g.add_argument("--history", default=None, metavar="FILE",
                   help="the case that killed each mutant in an earlier run (that run's "
                        "killers.json; default: tests/mutants/generated-killers.json; none: "
                        "no history) runs first for it: only the order of its cases changes, "
                        "never what counts as a kill")
    g.add_argument("--identical-code", choices=("triaged", "all", "none"), default=None,
                   help="compile mutants alone and settle those whose object code is the "
                        "original's without a run (trivial compiler equivalence): the triaged "
                        "ones a run re-checks (default: not with --trust-triage), all selected, "
                        "or none")
    g.add_argument("--source-dir",
                   help="source tree to mutate (default: the tree bin/datcts belongs to)")
    g.add_argument("--config", action="append",
                   help="a provider configuration a mutant that survives the default one is "
                        "run under too, with the cases that reach its lines only there or go "
                        "another way through its function there: "
                        "no-consumer-poll (DAPLREF_NO_CONSUMER_POLL=1), variant:GLOB "
                        "(conforming variants, DATREF_VARIANT), variants (all of them), "
                        "asan (ASan+UBSan build; lost memory is LEAK), tsan (ThreadSanitizer "
                        "build; a race is RACE), dat2 (the DAT 2.0 library, its known killers), "
                        "ipv6 (the IA on sock:::1); repeat or comma-separate")


GENERATED_ONLY = ("files", "functions", "operators", "page", "case", "max_cases", "sample",
                  "threshold", "triage", "check_triage", "trust_triage", "recheck_triaged",
                  "group", "history", "identical_code", "source_dir", "config")


def refuse_generated_options(args) -> None:
    """The options of --generated mean nothing to the hand-written flow."""
    given = [o for o in GENERATED_ONLY if getattr(args, o, None) is not None]
    if given:
        raise GeneratedError(", ".join("--" + o.replace("_", "-") for o in given) +
                             " only with --generated")


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


# The provider's documented modes other than its default: code that runs only
# there (the sleeping wait of DAPLREF_NO_CONSUMER_POLL, docs/reference-provider.md
# "Progress and performance"; what a conforming variant changes, docs/mutants.md
# "Conforming variants") is reached only when a mutant's cases run there too.
MODES = {"no-consumer-poll": {"DAPLREF_NO_CONSUMER_POLL": "1"}}
# Configurations with a library of their own: the mutant library built again
# with these CMake options, loaded with this environment.  `asan`: the
# sanitizer build (DATCTS_SANITIZE: ASan + UBSan, the same flags as CI's
# sanitizer pass) under the plain case binaries, its runtimes preloaded; a
# memory error aborts the case (CRASH), what a plain build may survive (a
# write through a pointer into a freed pool block).
# `tsan`: the ThreadSanitizer build (DATCTS_TSAN), its runtime preloaded the
# same way; a data race it reports in a case that passed is RACE.
REBUILT = {"asan": ["-DDATCTS_SANITIZE=ON"], "tsan": ["-DDATCTS_TSAN=ON"]}
# The other ABI: the same schemata built as the DAT 2.0 library (daplref2,
# abi20.c instead of abi12.c) under Debian's libdat2, with the 2.0 case
# binaries.  A run of the 1.2 library takes it for the killed-in-config
# mutants whose triage names it and a case that killed them there (the
# known killer); a whole 2.0 run is `--dat-conf build/dat2.conf`.
OTHER_API = {"dat2": "2.0"}
# The same library on an IA of the other address family: the sock transport
# on IPv6 loopback (instance data sock:::1), where the address copies and
# checks of an AF_INET6 IA run (cr.c, ep.c); the coverage run has its own map.
ADDRESSES = {"ipv6": "sock:::1"}
# In a run that re-checks the triage, the configurations re-check what
# their build or environment can change (configuration_checks): every
# untriaged survivor and gap, each killed-in-config mutant in its own, and
# under a memory-checking build the equivalence claims that rest on an
# index, a bound or what memory holds (the default run re-checked them all).
MEMORY_CONFIGS = ("asan",)
MEMORY_OPERATORS = ("const-plus1", "const-minus1", "rel-boundary", "call-del", "field-assign-del")


def sanitizer_env(config: str = "asan") -> dict:
    """The environment that loads a sanitized library into plain binaries."""
    def lib(name):
        p = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True,
                           text=True, timeout=60).stdout.strip()
        if not p or not Path(p).is_file():
            raise GeneratedError(f"--config {config}: no {name} (gcc -print-file-name)")
        return p
    if config == "tsan":
        # reports go to the case's output and the case goes on (a race is
        # judged after its verdict, race_verdict); the exit status stays the case's
        return {"LD_PRELOAD": lib("libtsan.so"),
                "TSAN_OPTIONS": "halt_on_error=0:exitcode=0:report_signal_unsafe=0",
                RACE_ENV: "1"}
    # leaks: the harness's check in each case process after its verdict
    # (harness/supervise.c), not LeakSanitizer's own at exit
    return {"LD_PRELOAD": lib("libasan.so") + ":" + lib("libubsan.so"),
            "ASAN_OPTIONS": "detect_leaks=1:leak_check_at_exit=0:abort_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1", LEAK_ENV: "1"}


# The line harness/supervise.c writes into a case's output when LeakSanitizer
# finds memory the case process lost (sanitizer builds, or the asan
# configuration's preloaded runtime).  Memory a case's provider loses is a
# failure of dat_ia_close.no_leaks (dat_ia_close(3DAT) USAGE: closing leaves
# no hidden resources that accumulate): lost memory is never given back, so
# it grows with every repetition of the path that lost it.
LEAK_MARKER = "[datcts] LeakSanitizer: leaks in the case process"
LEAK_ENV = "DATCTS_MUTGEN_LEAKS"    # set in the environment of a run that judges leaks


def _judged(r: dict | None, env: dict, env_key: str, marker: str) -> bool:
    """A passing (or UNSUPPORTED) case with the sanitizer's report in its
    output, in a run that judges that sanitizer.  Other states stay: a FAIL
    or CRASH says more, and a case that ended UNRESOLVED left its set-up by
    a path of the harness's own, which is not the provider's."""
    return (r is not None and env.get(env_key) == "1" and marker in (r.get("output") or "")
            and r.get("state") in ("PASS", "UNSUPPORTED"))


def leak_verdict(r: dict | None, env: dict) -> dict | None:
    """Such a case with a leak report is LEAK (dat_ia_close.no_leaks)."""
    if not _judged(r, env, LEAK_ENV, LEAK_MARKER):
        return r
    return dict(r, state="LEAK", message=("LeakSanitizer: memory lost in the case process "
                                          f"(dat_ia_close.no_leaks); was {r.get('state')}: "
                                          + (r.get("message") or ""))[:300])


# The line ThreadSanitizer writes into a case's output for each report.  A
# data race in the provider is a failure of the MT-Level the pages give its
# calls (ATTRIBUTES: Safe), and in C11 its behaviour is undefined, so what the
# case saw was luck: as a leak, it counts as a kill where the case passed.
RACE_MARKER = "WARNING: ThreadSanitizer:"
RACE_ENV = "DATCTS_MUTGEN_RACES"    # set in the environment of a run that judges races


def race_verdict(r: dict | None, env: dict) -> dict | None:
    """Such a case with a ThreadSanitizer report is RACE."""
    if not _judged(r, env, RACE_ENV, RACE_MARKER):
        return r
    summary = next((ln for ln in r["output"].splitlines()
                    if ln.startswith("SUMMARY: ThreadSanitizer")), RACE_MARKER)
    return dict(r, state="RACE", message=(f"{summary}; was {r.get('state')}: "
                                          + (r.get("message") or ""))[:300])


def sanitizer_verdict(r: dict | None, env: dict) -> dict | None:
    return race_verdict(leak_verdict(r, env), env)


def configurations(names: list, variant_ids: list) -> list:
    """[(name, env)] of the --config names, in order, without repeats."""
    out: dict = {}
    for name in names:
        if name in MODES:
            out[name] = MODES[name]
            continue
        if name in REBUILT:
            out[name] = {}      # its environment is sanitizer_env(), taken when it runs
            continue
        if name in OTHER_API or name in ADDRESSES:
            out[name] = {}
            continue
        if name == "variants":
            name = "variant:*"
        if not name.startswith("variant:"):
            raise GeneratedError(f"--config {name}: one of " +
                                 ", ".join([*MODES, *REBUILT, *OTHER_API, *ADDRESSES]) +
                                 ", variant:GLOB, variants")
        glob = name[len("variant:"):]
        picked = [v for v in variant_ids if fnmatch.fnmatchcase(v, glob)]
        if not picked:
            raise GeneratedError(f"--config {name}: no conforming variant matches")
        for v in picked:
            out["variant:" + v] = {"DATREF_VARIANT": v}
    return list(out.items())


# ---------------------------------------------------------------- generation

def source_files(root: Path, globs: list, commands: dict) -> list:
    """The provider's core files the target compiles, matching globs."""
    built = {k.rsplit("/", 1)[-1] for k in commands if f"/{PROVIDER_DIR}/" in k}
    files = sorted(p for p in (root / PROVIDER_DIR).glob("*.c")
                   if p.name not in EXCLUDED_FILES and p.name in built)
    if globs:
        files = [p for p in files
                 if any(fnmatch.fnmatchcase(p.name, g) or
                        fnmatch.fnmatchcase(str(p.relative_to(root)), g) for g in globs)]
    return files


def generate_all(root: Path, commands: dict, files: list, operators: list) -> dict:
    """rel path -> [Mutant] (all operators asked for, every function)."""
    ci = mutgen.load_clang()
    out = {}
    for path in files:
        rel = str(path.relative_to(root))
        entry = command_for(commands, root, rel)
        out[rel] = mutgen.generate(path, mutgen.compile_args(entry), rel, operators, ci)
    return out


def command_for(commands: dict, root: Path, rel: str) -> dict:
    """The compile command of root/rel; when root is another copy of the
    tree than the build's (--source-dir), the build's command for the same
    file, its paths moved to root."""
    entry = commands.get(str((root / rel).resolve()))
    if entry is not None:
        return entry
    for key, e in commands.items():
        if key.endswith("/" + rel):
            build_root = key[: -len(rel) - 1]
            moved = {k: (v.replace(build_root, str(root)) if isinstance(v, str) else
                         [a.replace(build_root, str(root)) for a in v])
                     for k, v in e.items() if k in ("command", "arguments", "file")}
            return dict(e, **moved)
    raise GeneratedError(f"{rel}: not in compile_commands.json for {TARGET}")


def select(by_file: dict, functions: list, sample: int | None, seed: int,
           ids: list | None = None) -> list:
    """The mutants of the given functions and ids (globs; none: all), or a
    sample of them fixed by the seed: the N whose ids rank first by a hash
    of seed and id (a bottom-k sample), so that an edit which adds or
    removes mutants changes the sample by about as many, not all of it."""
    chosen = [m for ms in by_file.values() for m in ms
              if (not functions or any(fnmatch.fnmatchcase(m.function, g) for g in functions))
              and (not ids or any(fnmatch.fnmatchcase(m.id, g) for g in ids))]
    if sample is not None and sample < len(chosen):
        keep = set(sorted((m.id for m in chosen), key=lambda i: sample_rank(seed, i))[:sample])
        chosen = [m for m in chosen if m.id in keep]
    return chosen


def sample_rank(seed: int, mutant_id: str) -> str:
    """Where a mutant falls in the sample's order (select)."""
    return hashlib.sha256(f"{seed}:{mutant_id}".encode()).hexdigest()


# ---------------------------------------------------------------- builds

def tree_files(root: Path) -> list:
    """The tracked files of the source tree (what a build needs); every file
    but build directories when root is not the top of a git work tree (a
    copy of the tree, which may lie inside another work tree)."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, check=True, timeout=60)
        if Path(top.stdout.decode().strip()).resolve() == root.resolve():
            p = subprocess.run(["git", "-C", str(root), "ls-files", "-z"],
                               capture_output=True, check=True, timeout=60)
            return [f for f in p.stdout.decode().split("\0") if f]
    except (OSError, subprocess.SubprocessError):
        pass
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not any(part == ".git" or part.startswith("build")
                                       for part in p.relative_to(root).parts)]


def write_if_changed(path: Path, data: bytes) -> bool:
    """Writes only changed content, so that the mutant build stays incremental."""
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".datcts-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def sync_tree(root: Path, dest: Path, replaced: dict) -> None:
    """dest becomes a copy of root's tracked files, with replaced (rel ->
    bytes) instead of those files.  In the copy's top CMakeLists.txt
    warnings do not fail the build: a schemata mixes types a mutant makes
    suspicious (a constant minus one compared with an unsigned)."""
    for rel in tree_files(root):
        src = root / rel
        if not src.is_file():
            continue
        data = replaced.get(rel)
        if data is None:
            data = src.read_bytes()
            if rel == "CMakeLists.txt":
                data = data.replace(b"-Werror", b"-Wno-error")
        write_if_changed(dest / rel, data)


def run_logged(argv: list, log: Path, cwd: Path | None = None, timeout: float = 3600) -> None:
    with log.open("ab") as f:
        f.write(("$ " + " ".join(argv) + "\n").encode())
        f.flush()
        p = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=cwd, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise GeneratedError(f"{' '.join(argv[:4])}...: exit {p.returncode} (see {log})")


def build_library(src: Path, build: Path, log: Path, extra: list, jobs: int,
                  target: str = TARGET) -> Path:
    """lib<target>.so of source tree src, built alone in build."""
    if not (build / "CMakeCache.txt").is_file():
        run_logged(["cmake", "-S", str(src), "-B", str(build)] + extra, log)
    run_logged(["cmake", "--build", str(build), "--target", target, "-j", str(jobs)], log)
    lib = build / "lib" / f"lib{target}.so"
    if not lib.is_file():
        raise GeneratedError(f"the build made no {lib}")
    return lib


# An error's own line, and the lines of the macro uses it came through (the
# mutant is at the use; the error points into the macro's definition).
COMPILE_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:(?:fatal )?error:|"
                           r"note: in expansion of macro)", re.M)


def schemata_for(path: Path, entry: dict, mutants: list, log: Path, hand=None,
                 include_first: Path | None = None) -> tuple:
    """(schemata bytes, [mutants that do not compile]).  A mutant whose
    guarded code a compiler error points at is left out, and the file is
    checked again, until it compiles.  hand: the file's hand-written
    mutants (handmut.schemata_sources: text with their state, placements,
    ids, variable; and the state insertions), guarded in the same copy."""
    source = path.read_bytes()
    hand_pre = b""
    places = []
    if hand is not None:
        (text, places, ids, variable), shifts = hand
        source = text.encode()
        hand_pre = handmut.prelude(ids, variable).encode() if places else b""
        for m in mutants:
            m.start, m.end = handmut._shifted(m.start, m.end, shifts)
    live = list(mutants)
    failed = []
    for i, m in enumerate(mutants):
        m.index = i
    argv0 = (entry.get("arguments") or entry["command"].split())[0]
    args = [a for a in mutgen.compile_args(entry) if a != "-Werror"]
    for _ in range(50):
        text, crossing = mutgen.render(source, live + handmut.byte_ranges(
            source.decode(errors="replace"), places))
        text = hand_pre + text if hand_pre else text
        failed.extend(crossing)
        live = [m for m in live if m not in crossing]
        # the copy's headers first: they hold the hand-written mutants' state
        first = ["-iquote", str(include_first)] if include_first else []
        p = subprocess.run([argv0, *args, "-Wno-error", "-fsyntax-only", "-x", "c",
                            *first, "-iquote", str(path.parent), "-"],
                           input=text, capture_output=True, timeout=300)
        if p.returncode == 0:
            return text, failed
        err = p.stderr.decode(errors="replace")
        with log.open("a") as f:
            f.write(f"--- {path.name}: schemata does not compile\n{err[:4000]}\n")
        lines = {int(mm.group("line")) for mm in COMPILE_ERROR.finditer(err)}
        bad = [m for m in live if any(m.line <= n <= m.end_line for n in lines)]
        if not bad:
            raise GeneratedError(f"{path}: the schemata does not compile, and no mutant is "
                                 f"at the error (see {log})")
        failed.extend(bad)
        live = [m for m in live if m not in bad]
    raise GeneratedError(f"{path}: the schemata still does not compile (see {log})")


# ---------------------------------------------------------------- coverage

def digest(paths: list) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p).encode())
        h.update(Path(p).read_bytes())
    return h.hexdigest()[:16]


def gcov_lines(run_dir: Path, objdir: Path, root: Path) -> dict:
    """rel source path -> sorted executed lines of the mutated sources
    (PROVIDER_DIR and the headers they include), from the .gcda files a
    case run left under run_dir (GCOV_PREFIX, with GCOV_PREFIX_STRIP taking
    off objdir's own components: run_dir/core/ep.c.gcda is objdir/core/ep.c's).
    gcov's JSON names every line of every file, about a megabyte a case; a
    grep after it keeps the executed lines' numbers and the file names, so
    the runner's one Python thread at a time (the GIL) does not parse it all
    (gcov_fast_check: the same answer as the JSON, or the JSON is read)."""
    objs = run_dir / MUTATED_OBJDIR
    linked = False
    for g in objs.glob("*.gcda"):
        gcno = objdir / MUTATED_OBJDIR / g.with_suffix(".gcno").name
        if not gcno.is_file():
            continue
        link = g.with_suffix(".gcno")
        if not link.exists():
            link.symlink_to(gcno)
        linked = True
    if not linked:
        return {}
    if GCOV_FAST[0] is None:
        with GCOV_FAST_LOCK:
            if GCOV_FAST[0] is None:
                GCOV_FAST[0] = gcov_fast_check(objs, root)
    return gcov_hits_fast(objs, root) if GCOV_FAST[0] else gcov_hits_json(objs, root)


# the objects of the mutated sources (PROVIDER_DIR): no mutant is in transport/,
# and its files (sock.c, engine.c) were a third of gcov's output
MUTATED_OBJDIR = Path(PROVIDER_DIR).name
GCOV_FAST: list = [None]        # gcov_fast_check's answer, once per process
GCOV_FAST_LOCK = threading.Lock()
GCOV = "gcov -j -t -o . *.gcda"
# an executed line of gcov 12's JSON (its keys in this order), or a file name
# (a count can be negative: the coverage build's counters are not atomic, and
# threads race on them; as for the JSON, any count but 0 is executed)
GCOV_TOKEN = re.compile(r'"count": (-?[0-9]+), "line_number": ([0-9]+)|"file": "([^"]*)"')
GCOV_GREP = (GCOV + " | LC_ALL=C grep -oE "
             """'"count": -?[1-9][0-9]*, "line_number": [0-9]+|"file": "[^"]*"'""")


def gcov_run(script: str, objs: Path) -> str:
    p = subprocess.run(["sh", "-c", script], cwd=objs, capture_output=True, timeout=300)
    return p.stdout.decode(errors="replace")


def add_hits(out: dict, name: str, cwd: Path, root: Path, hit: set) -> None:
    rel = source_rel(name, str(cwd), str(root))
    if rel is not None and hit:
        out[rel] = sorted(set(out.get(rel, [])) | hit)


def gcov_hits_fast(objs: Path, root: Path) -> dict:
    # a file's lines come before its name in each of gcov's documents
    out: dict = {}
    pending: set = set()
    for m in GCOV_TOKEN.finditer(gcov_run(GCOV_GREP, objs)):
        if m.group(3) is None:
            if m.group(1) != "0":
                pending.add(int(m.group(2)))
        else:
            add_hits(out, m.group(3), objs, root, pending)
            pending = set()
    return out


def gcov_hits_json(objs: Path, root: Path) -> dict:
    out: dict = {}
    for line in gcov_run(GCOV, objs).splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        for f in doc.get("files", []):
            add_hits(out, f["file"], objs, root,
                     {ln["line_number"] for ln in f.get("lines", []) if ln.get("count")})
    return out


def gcov_fast_check(objs: Path, root: Path) -> bool:
    """Whether the grep of gcov's JSON finds what the JSON says, for one
    case's files (another gcov may order its keys otherwise)."""
    fast, full = gcov_hits_fast(objs, root), gcov_hits_json(objs, root)
    if fast != full:
        print("datcts: gcov's JSON is not in the order gcov 12 writes it; "
              "reading all of it (slower)", file=sys.stderr)
    return fast == full


@functools.lru_cache(maxsize=None)
def source_rel(name: str, cwd: str, root: str) -> str | None:
    """A source file gcov names, relative to the repository root (None:
    outside it, a system header)."""
    path = Path(name)
    try:
        return str((path if path.is_absolute() else Path(cwd) / path).resolve()
                   .relative_to(root))
    except ValueError:
        return None


def scratch_dir(prefix: str, beside: Path) -> Path:
    """A directory for short-lived files: in /dev/shm when there is one (a
    coverage run makes and deletes some fifty files per case, and on a disk
    file system their metadata took a third of the run's CPU time), else
    under `beside`."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else beside
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def run_tree_usage(leaders: list) -> tuple:
    """(CPU time in clock ticks, whether a thread is running or runnable now)
    of the processes of a run: each leader and its descendants alive now,
    with the children they have reaped.  On a loaded machine a spinning
    thread gets a small share of a CPU, but it is runnable, where a
    waiting one sleeps."""
    total, running, todo, seen = 0, False, list(leaders), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            fields = stat[stat.rfind(")") + 2:].split()
            total += sum(int(x) for x in fields[11:15])     # utime stime cutime cstime
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    task = f.read()
                running = running or task[task.rfind(")") + 2] == "R"
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total, running


class CaseRunner:
    """Runs cases on a pool, each with an environment of its own."""

    def __init__(self, base_env: dict, timeout: float, jobs: int, quiet: bool):
        self.base_env = base_env
        self.timeout = timeout
        self.jobs = jobs
        self.procs = ProcessTable()
        self.quiet = quiet
        self.runs = 0
        self.lock = threading.Lock()
        self.slots = threading.Semaphore(jobs)

    @contextlib.contextmanager
    def slot(self):
        """One of --jobs slots for a case run, given back when the run ends
        or once it has run WAITING_AFTER_S without keeping a CPU busy: such
        a run is waiting, a hang for its limit or a case for its own timed
        wait, with the CPUs idle (run_pool has WAITING_WORKERS times --jobs
        threads to use them).  A run that spins keeps its slot, checked
        again each WAITING_AFTER_S."""
        self.slots.acquire()
        worker = threading.get_ident()
        self.procs.started_here()       # what this thread started before is not this run's
        held = [True]
        guard = threading.Lock()
        last = [0, time.monotonic()]

        def let_go():
            with guard:
                if held[0]:
                    held[0] = False
                    self.slots.release()

        def check():
            ticks, running = run_tree_usage(self.procs.started_by(worker))
            now = time.monotonic()
            busy = running or (ticks - last[0]) / CLOCK_TICKS >= BUSY_SHARE * (now - last[1])
            last[:] = [ticks, now]
            with guard:
                if busy and held[0]:
                    timer[0] = threading.Timer(WAITING_AFTER_S, check)
                    timer[0].daemon = True
                    timer[0].start()
                    return
            let_go()

        timer = [threading.Timer(WAITING_AFTER_S, check)]
        timer[0].daemon = True
        timer[0].start()
        try:
            yield
        finally:
            with guard:
                timer[0].cancel()
            let_go()

    def run(self, case, extra_env: dict, timeout: float | None = None) -> dict:
        env = dict(self.base_env, **extra_env)
        with self.slot():
            r = Runner(LocalLauncher(env), timeout or self.timeout, self.procs).run(case)
        with self.lock:
            self.runs += 1
        return sanitizer_verdict(r, env) or {"state": "UNRESOLVED", "message": "interrupted"}

    def run_batch(self, cases: list, extra_env: dict, timeout: float) -> list:
        """Single-node cases of one binary in one run of it (each case still
        in a process of its own, under the binary's supervisor, with
        `timeout` each): a result per case, in order.  A case the binary
        did not report on is TIMEOUT when the whole run overran, CRASH
        otherwise (the supervisor died); those after it are not run (None)."""
        if len(cases) == 1:
            return [self.run(cases[0], extra_env, timeout)]
        env = dict(self.base_env, **extra_env)
        argv = [cases[0].binary, "--run", *[c.id for c in cases], "--timeout", f"{timeout:g}"]
        with self.slot():
            t0 = time.monotonic()
            p = LocalLauncher(env).start(argv, stdin=subprocess.DEVNULL)
            out, _, overran = communicate_supervised(self.procs, p,
                                                     len(cases) * timeout + SUPERVISOR_GRACE_S)
        ids = {c.id for c in cases}
        got = {}
        for line in out.decode(errors="replace").splitlines():
            obj = result_line(line, ids)
            if obj is not None:
                got[obj["id"]] = obj
        results = []
        for c in cases:
            r = got.get(c.id)
            if r is None:
                if self.procs.stopping:
                    r = synthesized(c, "UNRESOLVED", "interrupted", 0.0)
                else:
                    state = "TIMEOUT" if overran else "CRASH"
                    r = synthesized(c, state, "the case binary gave no result for it "
                                    f"(batch of {len(cases)}, rc {p.returncode})",
                                    (time.monotonic() - t0) * 1000.0)
                results.append(normalize(c, r))
                break
            results.append(sanitizer_verdict(normalize(c, r), env))
        with self.lock:
            self.runs += len(results)
        return results + [None] * (len(cases) - len(results))


def run_pool(runner: CaseRunner, jobs: int, fn, items):
    """fn over items on WAITING_WORKERS times `jobs` threads, results in
    order (the runner's slots keep `jobs` case runs busy at once, more only
    while some wait: CaseRunner.slot); an interrupt stops the case processes
    still running."""
    pool = cf.ThreadPoolExecutor(max_workers=jobs * WAITING_WORKERS)
    try:
        yield from pool.map(fn, items)
    except KeyboardInterrupt:
        runner.procs.stop_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def coverage_map(args, root: Path, out: Path, cases: list, runner: CaseRunner,
                 dat_entry, say, config: tuple = ("default", {})) -> dict:
    """{"cases": {id: {"state", "duration_ms", "lines": {rel: [lines]}}}} for
    every case of `cases` run in the configuration (name, env), from the
    cache when the sources, the case binaries and the environment are
    unchanged."""
    name, config_env = config
    target = TARGETS[dat_entry["api"]]
    sources = sorted((root / PROVIDER_DIR).glob("*.c")) + sorted((root / PROVIDER_DIR).glob("*.h"))
    binaries = sorted({c.binary for c in cases})
    key = digest(sources) + "-" + digest(binaries) + ("" if target == TARGET else "-" + target)
    if name in ADDRESSES:
        key += "-" + dat_entry["instance_data"]
    if config_env:
        key += "-" + hashlib.sha256(json.dumps(config_env, sort_keys=True)
                                    .encode()).hexdigest()[:8]
    cache = out / ("coverage-map.json" if name == "default" else
                   f"coverage-map-{name.replace(':', '-')}.json")
    doc = {"schema": COVERAGE_SCHEMA, "key": key, "cases": {}, "elapsed_s": 0.0}
    if cache.is_file():
        try:
            old = json.loads(cache.read_text())
            if old.get("schema") == COVERAGE_SCHEMA and old.get("key") == key:
                doc = old
        except ValueError:
            pass
    todo = [c for c in cases if c.id not in doc["cases"]]
    if not todo:
        say(f"coverage map ({name}): {len(cases)} case(s) from the cache")
        return doc
    build = out / "coverage-build"
    t0 = time.monotonic()
    say(f"coverage build: {build}")
    lib = build_library(root, build, out / "coverage-build.log",
                        ["-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_C_FLAGS=--coverage",
                         "-DCMAKE_SHARED_LINKER_FLAGS=--coverage"], args.jobs, target)
    conf = out / "coverage-dat.conf"
    write_dat_conf(conf, dat_entry["ia"], lib, dat_entry["instance_data"], dat_entry["api"])
    objdir = (build / "reference-provider" / "CMakeFiles" / f"{target}_obj.dir").resolve()
    runs = scratch_dir("datcts-coverage-", out)
    strip = str(len(objdir.parts) - 1)
    say(f"coverage run ({name}): {len(todo)} case(s), --jobs {args.jobs}")

    def one(i_case):
        i, case = i_case
        d = runs / str(i)
        d.mkdir(parents=True, exist_ok=True)
        r = runner.run(case, dict(config_env, DAT_OVERRIDE=str(conf), GCOV_PREFIX=str(d),
                                  GCOV_PREFIX_STRIP=strip))
        lines = gcov_lines(d, objdir, root)
        shutil.rmtree(d, ignore_errors=True)
        return case.id, {"state": r["state"], "duration_ms": r.get("duration_ms", 0.0),
                         "lines": lines}

    try:
        for cid, rec in run_pool(runner, args.jobs, one, enumerate(todo)):
            doc["cases"][cid] = rec
    finally:
        shutil.rmtree(runs, ignore_errors=True)
    doc["elapsed_s"] = round(doc.get("elapsed_s", 0.0) + time.monotonic() - t0, 1)
    doc["last_run_s"] = round(time.monotonic() - t0, 1)
    doc["key"] = key
    tmp = cache.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc))
    os.replace(tmp, cache)
    say(f"coverage run ({name}): {time.monotonic() - t0:.1f} s")
    return doc


def reaching(m, cov: dict) -> list:
    """Case ids whose run executed a line of the mutant's code, in the map's
    order."""
    order, by_line = line_index(cov)
    found = set()
    for ln in m.reach_lines():
        found.update(by_line.get((m.file, ln), ()))
    return sorted(found, key=order.__getitem__)


LINE_INDEX = "_line_index"      # a coverage map's own, in memory (never written)


def line_index(cov: dict) -> tuple:
    """({case id: its place in the map}, {(file, line): [case ids]}) of a
    coverage map, made once per map: a look-up per line of a mutant, where
    a walk of every case's lines took the runner's one Python thread 2.6 ms
    a call, some fifteen calls a mutant over a whole run's configurations."""
    cases = cov["cases"]
    idx = cov.get(LINE_INDEX)
    if idx is None or idx[0] is not cases or idx[1] != len(cases):
        order = {cid: i for i, cid in enumerate(cases)}
        by_line: dict = {}
        for cid, rec in cases.items():
            for f, lines in rec["lines"].items():
                for ln in lines:
                    by_line.setdefault((f, ln), []).append(cid)
        idx = (cases, len(cases), order, by_line)
        cov[LINE_INDEX] = idx
    return idx[2], idx[3]


# ---------------------------------------------------------------- triage

def load_triage(path: Path) -> dict:
    """mutant id -> {"kind", ...}; raises GeneratedError on a malformed entry."""
    if not path.is_file():
        return {}
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise GeneratedError(f"{path}: {e}") from e
    out = {}
    for mid, t in doc.items():
        if not isinstance(t, dict) or t.get("kind") not in TRIAGE_KINDS:
            raise GeneratedError(f"{path}: [{mid!r}] needs kind = one of "
                                 + ", ".join(TRIAGE_KINDS))
        missing = [k for k in TRIAGE_KINDS[t["kind"]] if not t.get(k)]
        if missing:
            raise GeneratedError(f"{path}: [{mid!r}] ({t['kind']}) needs " + ", ".join(missing))
        out[mid] = t
    return out


def stale_triages(triage: dict, generated: dict) -> list:
    """Triaged ids of the generated files whose mutant no longer exists."""
    ids = {m.id for ms in generated.values() for m in ms}
    files = {mutgen.id_file(rel) for rel in generated}
    return sorted(mid for mid in triage
                  if mid.split(":", 1)[0] in files and mid not in ids)


def check_triage(path: Path, triage: dict, stale: list, moved: list, unanchored: list) -> int:
    """--check-triage: 0 when every entry names an existing mutant and the
    code it was judged on is that mutant's code now; else 1, saying which."""
    for mid in stale:
        print(f"STALE triage {mid}: no such mutant", file=sys.stderr)
    for t in moved:
        print(f"MOVED triage {t['id']}: judged on `{t['judged_on']}`, the code is now "
              f"`{t['code_now']}`", file=sys.stderr)
    for mid in unanchored:
        print(f"UNANCHORED triage {mid}: no `code` (what it was judged on)", file=sys.stderr)
    bad = len(stale) + len(moved) + len(unanchored)
    print(f"{path}: {len(triage) + len(moved)} entries, {len(stale)} stale, {len(moved)} "
          f"moved, {len(unanchored)} without their code")
    return 1 if bad else 0


def moved_triages(triage: dict, generated: dict) -> list:
    """The triage entries whose id now names other code than the entry was
    judged on (its `code`): an edit before it in its function that adds a
    mutant of the same operator moves the ordinal, and the hash of a `0` or
    a `1` matches another `0` or `1`.  Such an entry says nothing of the
    mutant its id names now."""
    by_id = {m.id: m for ms in generated.values() for m in ms}
    return [{"id": mid, "judged_on": t["code"], "code_now": by_id[mid].code}
            for mid, t in sorted(triage.items())
            if mid in by_id and t.get("code") and t["code"] != by_id[mid].code]


def unanchored_triages(triage: dict, generated: dict) -> list:
    """The entries of existing mutants that do not say what code they were
    judged on (no `code`): moved_triages cannot check them."""
    ids = {m.id for ms in generated.values() for m in ms}
    return sorted(mid for mid, t in triage.items() if mid in ids and not t.get("code"))


# ---------------------------------------------------------------- running the mutants

def name_words(name: str) -> set:
    """The words of a function or page name that say what it is about."""
    return set(name.lower().split("_")) - {"ref", "dat", "daplref", "", "common"}


KILLERS_SCHEMA = "datcts-mutant-killers/1"


def load_history(path: Path | None) -> dict:
    """{mutant id: the case that killed it} of an earlier run: its
    killers.json, or its generated-mutants.json; {} without one.  A mutant
    whose code changed has another id, so what it says of it is not used."""
    if path is None or not path.is_file():
        return {}
    doc = json.loads(path.read_text())
    if doc.get("schema") == KILLERS_SCHEMA:
        return dict(doc["killers"])
    return killers_of(doc.get("mutants") or [])


def killers_of(results: list) -> dict:
    """{mutant id: its first killing case} of the default configuration's
    kills (and hangs) of a run."""
    return {r["id"]: r["killed_by"][0] for r in results
            if r["status"] in DETECTED and r.get("killed_by") and not r.get("config")}


class Killers:
    """The cases that killed mutants of each function so far in this run: a
    sibling mutant tries them first (three mutants of one condition in
    ref_cr_deliver each ran the same 29 cases UNRESOLVED before the same
    FAIL).  Only the order changes, never what counts as a kill."""

    def __init__(self, previous: dict | None = None):
        self.by_function: dict = {}
        self.lock = threading.Lock()
        # an earlier run's (load_history): the case that killed the mutant then
        self.previous = previous or {}

    def of(self, m) -> dict:
        with self.lock:
            return dict(self.by_function.get((m.file, m.function), {}))

    def note(self, m, rec) -> None:
        if rec.get("status") != "killed":
            return
        with self.lock:
            seen = self.by_function.setdefault((m.file, m.function), {})
            for cid in rec["killed_by"]:
                seen[cid] = seen.get(cid, 0) + 1


class BatchesAhead:
    """A CaseQueue's batches with their first run (run_batch(batch, env,
    limit(batch))) started up to `ahead` batches before they are taken, so
    that the runs of one mutant or group fill idle slots; the results come
    in the queue's order.  close() cancels the runs not started (those
    started end within their limits, their results dropped).  The queue may
    still be reordered (promote) for the batches not started yet."""

    def __init__(self, queue, runner, env: dict, limit, ahead: int):
        self.batches = iter(queue)
        self.runner, self.env, self.limit, self.ahead = runner, env, limit, max(0, ahead)
        self.window: list = []

    def _start(self):
        batch = next(self.batches, None)
        if batch is None:
            return False
        self.window.append((batch, AHEAD_POOL.submit(self.runner.run_batch, batch, self.env,
                                                     self.limit(batch))))
        return True

    def __iter__(self):
        while True:
            if self.ahead:
                while len(self.window) < self.ahead and self._start():
                    pass
                if not self.window:
                    return
                batch, fut = self.window.pop(0)
                yield batch, fut.result()
            else:
                batch = next(self.batches, None)
                if batch is None:
                    return
                yield batch, self.runner.run_batch(batch, self.env, self.limit(batch))

    def close(self):
        for _, fut in self.window:
            fut.cancel()
        self.window = []


def run_mutant(m, reach: list, cov: dict, case_by_id: dict, runner: CaseRunner,
               conf: Path, timeout: float, max_cases: int | None = None,
               killers: Killers | None = None, config_env: dict | None = None,
               first: str | None = None, ahead: int = 0) -> dict:
    """Runs the mutant's reaching cases (`first` first, then those of its
    function's page), until a FAIL or CRASH (at most max_cases of them), in
    the environment of a provider configuration (config_env; none: the
    default); with `ahead`, that many batches at once (BatchesAhead: for a
    mutant expected to survive, which runs them all)."""
    valid = [cid for cid in reach if cov["cases"][cid]["state"] in VALID_BASELINE]
    words = name_words(m.function)
    known = killers.of(m) if killers else {}
    # the cases that killed this function's other mutants first, then those
    # of its own page (ref_cr_accept: dat_cr_accept's), then by the words
    # they share with it, each group by binary, fastest first (the cases of
    # one binary together within a group, for the batches)
    valid.sort(key=lambda cid: (cid != first, -known.get(cid, 0),
                                -len(words & name_words(case_by_id[cid].page)),
                                case_by_id[cid].binary, cov["cases"][cid]["duration_ms"], cid))
    rec = {"cases_reaching": len(reach), "cases_valid": len(valid), "runs": [],
           "killed_by": [], "kill_states": [], "reason": None}
    if max_cases:
        valid = valid[:max_cases]
    if not valid:
        rec["status"] = "not-reached"
        rec["reason"] = ("no case executes its line" if not reach else
                         "only cases that do not pass without a mutant reach it: " +
                         ", ".join(sorted(reach)[:5]))
        return rec
    env = dict(config_env or {}, DAT_OVERRIDE=str(conf), **{mutgen.ENV_VAR: m.id})

    def limits(batch):
        return short_limit(batch, cov, timeout), case_limit(batch, cov, timeout)

    def record(c, r, limit, full):
        rec["runs"].append({"id": c.id, "state": r["state"],
                            "message": (r.get("message") or "")[:300],
                            "duration_ms": r.get("duration_ms", 0.0), "limit_s": limit,
                            "full_s": full})
        if r.get("work_fraction"):
            rec["runs"][-1]["work_fraction"] = r["work_fraction"]
        return rec["runs"][-1]

    def bound(r, short, full):
        return short < full and (r["state"] == "TIMEOUT" or (
            r["state"] in ("FAIL", "UNRESOLVED") and
            r.get("duration_ms", 0.0) >= DEADLINE_BOUND * short * 1000.0))

    def again(c, run):
        # the short deadline's result gives way to the full limit's (that of
        # its batch: the limit a kill was decided by before the ladder)
        run["superseded"] = True
        r = runner.run_batch([c], env, run["full_s"])[0]
        return record(c, r, run["full_s"], run["full_s"])

    def widened(c, run):
        # the case needs more time than the limit gives it now (a set-up
        # wait that the case's own deadline cut short on a loaded machine,
        # or a result the case without the mutant cannot beat either): it
        # runs again with more, once, and that run decides (controlled)
        wider = min(timeout, run["limit_s"] * ESCALATION)
        if wider <= run["limit_s"] or run.get("escalated"):
            return run
        run["superseded"] = True
        again_r = runner.run_batch([c], env, wider)[0] or {"state": "UNRESOLVED"}
        nxt = record(c, again_r, wider, wider)
        nxt["escalated"] = True
        return controlled(c, nxt)

    def controlled(c, run):
        # a result that ran into the full limit (a TIMEOUT, or a FAIL after
        # half of it) stands only if the case, run the same way without the
        # mutant, passes within that limit now: a loaded machine slows both,
        # and a wait the deadline cut short fails a case for want of time
        if run["state"] == "UNRESOLVED" and run["limit_s"] == run["full_s"] and \
                run.get("duration_ms", 0.0) >= DEADLINE_BOUND * run["limit_s"] * 1000.0:
            return widened(c, run)
        if run["state"] not in DETECTING_STATES or run["limit_s"] != run["full_s"] or \
                (run["state"] != "TIMEOUT" and not run.get("escalated") and
                 run.get("duration_ms", 0.0) < DEADLINE_BOUND * run["limit_s"] * 1000.0):
            return run
        plain = {k: v for k, v in env.items() if k != mutgen.ENV_VAR}
        r = runner.run_batch([c], plain, run["limit_s"])[0] or {"state": "UNRESOLVED"}
        run["control"] = {"state": r["state"], "duration_ms": r.get("duration_ms", 0.0)}
        if r["state"] in VALID_BASELINE:
            return run
        wider = widened(c, run)
        if wider is not run:
            return wider
        run["undecided"] = run["state"]
        run["state"] = "UNRESOLVED"
        run["message"] = (f"no decision: {run['undecided']} at the limit, and without the mutant "
                          f"the case ended {r['state']} within it too (the machine's load)")
        return run

    timeouts = 0
    full_timeout_seen = False
    done = False
    queue = CaseQueue([case_by_id[cid] for cid in valid])
    ahead = BatchesAhead(queue, runner, env, lambda b: limits(b)[0], ahead)
    for batch, first_results in ahead:
        short, full = limits(batch)
        pending = batch
        while pending and not done:
            results = first_results if first_results is not None else \
                runner.run_batch(pending, env, short)
            first_results = None
            for c, r in zip(pending, results):
                if r is None:
                    break
                run = record(c, r, short, full)
                if bound(r, short, full) and r["state"] != "UNRESOLVED" and \
                        (r["state"] == "FAIL" or not full_timeout_seen):
                    run = again(c, run)
                run = controlled(c, run)
                if run["state"] in KILL_STATES:
                    done = True
                    break
                if run["state"] == "TIMEOUT":
                    full_timeout_seen = full_timeout_seen or run["limit_s"] == full
                    timeouts += 1
                    # a hang at the full limit that the case without the
                    # mutant beat just now is settled: no further case
                    if timeouts >= MAX_TIMEOUTS or (run["limit_s"] == full and
                                                    run.get("control", {}).get("state")
                                                    in VALID_BASELINE):
                        done = True
                        break
            # the cases a batch did not reach after a hang run in the next one
            pending = [c for c, r in zip(pending, results) if r is None]
        if done:
            ahead.close()
            break
        queue.promote(m_.group(1) for x in rec["runs"][-len(batch) * 3:]
                      if x["state"] == "UNRESOLVED" and not x.get("superseded")
                      for m_ in [SETUP_CALL.search(x.get("message") or "")] if m_)
    if not done:
        # a survivor: a few of its cases that the short deadline may have cut
        # short are asked again with the full one: those that ran out of it
        # UNRESOLVED, and those that passed without the mutant and ended
        # UNSUPPORTED with it (a case that sizes its work by the time it has,
        # as dat_ia_close.no_memory_growth's cycles, judges nothing in too
        # short a time), and those that passed after sizing their work down
        # to the short deadline (work_fraction: they judged less than they can)
        live = [x for x in rec["runs"] if not x.get("superseded")]
        unresolved = [x for x in live if x["state"] == "UNRESOLVED"
                      and bound(x, x["limit_s"], x["full_s"])]
        unsupported = [x for x in live if x["state"] == "UNSUPPORTED"
                       and x["limit_s"] < x["full_s"]
                       and cov["cases"][x["id"]]["state"] == "PASS"]
        shortened = [x for x in live if x["state"] == "PASS" and x.get("work_fraction")
                     and x["limit_s"] < x["full_s"]]
        for run in (unresolved[:MAX_UNRESOLVED_RECHECKS] +
                    unsupported[:MAX_UNSUPPORTED_RECHECKS] +
                    shortened[:MAX_SHORTENED_RECHECKS]):
            c = case_by_id[run["id"]]
            if controlled(c, again(c, run))["state"] in DETECTING_STATES:
                break
    final = [x for x in rec["runs"] if not x.get("superseded")]
    rec["killed_by"] = [x["id"] for x in final if x["state"] in DETECTING_STATES]
    states = {x["state"] for x in final}
    if any(s in KILL_STATES for s in states):
        rec["status"] = "killed"
    elif "TIMEOUT" in states and states <= {"TIMEOUT"}:
        rec["status"] = "timed-out"
    elif "TIMEOUT" in states:
        rec["status"] = "killed"
    else:
        rec["status"] = "survived"
        unresolved = [x["id"] for x in final if x["state"] == "UNRESOLVED"]
        # a set-up step noticed, not a check: no kill (docs/mutants.md, Classification)
        ran = f"{len(final)} of {rec['cases_valid']} reaching case(s)"
        rec["reason"] = (f"{ran} pass" if not unresolved else
                         f"noticed only by set-up steps: {len(unresolved)} case(s) UNRESOLVED "
                         f"({', '.join(unresolved[:3])}), the others of {ran} pass")
    rec["kill_states"] = sorted({x["state"] for x in final if x["id"] in rec["killed_by"]})
    return rec


# ---------------------------------------------------------------- survivors in groups

def survivor_groups(mutants: list, reach: dict, size: int) -> list:
    """The mutants expected to survive (their triage says so), cut into
    groups of at most `size` that run together: no two whose code overlaps
    (the guards of one expression nest, and the outer one would hide the
    inner), and each joins the group whose cases it adds fewest to, if that
    is at most a quarter of its own (the group's cases are the union of its
    members')."""
    groups: list = []
    for m in sorted(mutants, key=lambda m: (-len(reach[m.id]), m.id)):
        own = set(reach[m.id])
        best, best_new = None, None
        for g in groups:
            if len(g["members"]) >= size or overlaps_any(m, g["spans"]):
                continue
            new = len(own - g["cases"])
            if new <= len(own) // 4 and (best is None or new < best_new):
                best, best_new = g, new
                if new == 0:
                    break
        if best is None:
            best = {"members": [], "spans": {}, "cases": set()}
            groups.append(best)
        best["members"].append(m)
        best["spans"].setdefault(m.file, []).append((m.start, m.end))
        best["cases"] |= own
    return [g["members"] for g in groups]


def overlaps_any(m, spans: dict) -> bool:
    """Whether m's code overlaps (or holds, or lies in) a span of its file."""
    return any(m.start < end and start < m.end for start, end in spans.get(m.file, ()))


def run_group(members: list, reach: dict, cov: dict, case_by_id: dict,
              runner: CaseRunner, conf: Path, timeout: float, first: str | None = None,
              passed: frozenset = frozenset(), config_env: dict | None = None,
              short: bool = False) -> tuple:
    """Runs every case that reaches a member, but those in `passed`, with all
    members on at once (`first` first), each within its full limit, or its
    short one (short_limit).  (None, runs) when each case ends as it did
    without a mutant; else (the id of the first case that did not, runs),
    and the run stops there."""
    ids = sorted({cid for m in members for cid in reach[m.id]} - passed,
                 key=lambda cid: (cid != first, case_by_id[cid].binary,
                                  cov["cases"][cid]["duration_ms"], cid))
    env = dict(config_env or {}, DAT_OVERRIDE=str(conf),
               **{mutgen.ENV_VAR: ",".join(m.id for m in members)})
    runs = []

    def limit(batch):
        return (short_limit if short else case_limit)(batch, cov, timeout)

    def record(c, r, limit_s):
        runs.append({"id": c.id, "state": r["state"], "limit_s": limit_s,
                     "message": (r.get("message") or "")[:300],
                     "duration_ms": r.get("duration_ms", 0.0)})
        return runs[-1]

    ahead = BatchesAhead(CaseQueue([case_by_id[cid] for cid in ids]), runner, env, limit,
                         getattr(runner, "jobs", 1))
    for batch, results in ahead:
        for c, r in zip(batch, results):
            if r is None:
                break
            run = record(c, r, limit(batch))
            if short and r.get("work_fraction") and r["state"] == cov["cases"][c.id]["state"]:
                full = case_limit([c], cov, timeout)
                if run["limit_s"] < full:
                    # it sized its work down to the short deadline: as it ends
                    # with the full limit's work (run_mutant's shortened rechecks)
                    run.update(superseded=True, work_fraction=r["work_fraction"])
                    r = runner.run_batch([c], env, full)[0] or {"state": "UNRESOLVED"}
                    record(c, r, full)
            if r["state"] != cov["cases"][c.id]["state"]:
                ahead.close()
                return c.id, runs
    return None, runs


# The runs of one case that settle_group's search makes at once (at_once).
SETTLE_POOL = cf.ThreadPoolExecutor(max_workers=32, thread_name_prefix="settle")


def at_once(fn, items: list) -> list:
    """fn over items at once (SETTLE_POOL), the results in order; fn must not
    itself wait for SETTLE_POOL."""
    if len(items) <= 1:
        return [fn(x) for x in items]
    return list(SETTLE_POOL.map(fn, items))


def case_limit(batch: list, cov: dict, timeout: float) -> float:
    """The full limit of a case in a batch: a hang costs the case's own time a
    few times over, not the whole budget."""
    base_s = max(cov["cases"][c.id]["duration_ms"] for c in batch) / 1000.0
    return min(timeout, max(BATCH_MIN_TIMEOUT_S if len(batch) > 1 else 10.0, 5 * base_s))


def short_limit(batch: list, cov: dict, timeout: float) -> float:
    """The short deadline of a batch: a few times the cases' own time, at
    least SHORT_FLOOR_S, at most the full limit (case_limit)."""
    base_s = max(cov["cases"][c.id]["duration_ms"] for c in batch) / 1000.0
    return min(case_limit(batch, cov, timeout), max(SHORT_FLOOR_S, SHORT_FACTOR * base_s))


def settle_group(members: list, reach: dict, cov: dict, case_by_id: dict,
                 runner: CaseRunner, conf: Path, timeout: float, single,
                 config_env: dict | None = None) -> list:
    """[(mutant, record)] for a group of expected survivors, all members on
    at once: when every case that reaches a member ends as without a
    mutant, each member survived.  The group's runs and the halves' take the
    short limit (short_limit); a case that runs out of it is run again with
    the full one before it counts as ending otherwise (a slow run on a
    loaded machine is settled), and once one has passed so, the group's runs
    take the full limit, its halves' and left-out runs too.  A case that
    ends otherwise is run again with the members it reaches halved, each
    half on together, down to parts
    of ALONE_PART whose members run it alone, within the full limit
    (suspects).  A member that FAILs, CRASHes or hangs
    it alone, and does so again when asked once more, leaves the group and
    runs as any mutant does, that case first (single(m, case): run_mutant's
    record); a member that ends it otherwise alone (UNRESOLVED: a set-up step
    noticed, which kills nothing; or a kill that did not recur) has that
    case settled: the case runs again with the other members on and, if it
    ends as without a mutant, the whole group goes on.  The others go on
    from that case (those that passed with it on stay passed).  When no
    member changes it alone, the case is asked once more with the whole group
    on: if it ends as without a mutant now (a case that varies), it is
    settled and the group goes on whole; else it is run without one member
    at a time, and the first member without which it ends as without a
    mutant settles it (that member passed it alone, the others without it)
    and the whole group goes on; only when none is found is the group
    halved.  A kill is only ever decided by a mutant alone."""
    out = []
    env = dict(config_env or {}, DAT_OVERRIDE=str(conf))
    alone_runs: dict = {}
    asked_again: set = set()
    # a case ran out of the short limit with the group on and passed within
    # the full one: the group's runs take the full limit from then on
    slow = [False]
    without_one: dict = {}

    def alone(m, cid):
        c = case_by_id[cid]
        limit = case_limit([c], cov, timeout)
        r = runner.run_batch([c], dict(env, **{mutgen.ENV_VAR: m.id}), limit)[0]
        run = {"id": cid, "state": r["state"] if r else "TIMEOUT", "alone": True,
               "message": ((r or {}).get("message") or "")[:300],
               "duration_ms": (r or {}).get("duration_ms", limit * 1000.0)}
        alone_runs.setdefault(m.id, []).append(run)
        return run["state"]

    def reach_of(group):
        return {cid for m in group for cid in reach[m.id]}

    def suspects(members, cid):
        # {id: state alone} of the members found by halving: a part that
        # ends cid as without a mutant with all of its members on is let go
        # (a member it would hide behind another is found when the group runs
        # cid again); parts of ALONE_PART or fewer run each member alone.
        # The parts of one level run at once, as do the members run alone:
        # each is a run of the one case, and in turn they left the CPUs idle
        # at the end of a configuration (a hang's full limit each)
        found = {}
        level = [members]
        while level:
            lone = [m for part in level if len(part) <= ALONE_PART for m in part]
            halves = [h for part in level if len(part) > ALONE_PART
                      for h in (part[:len(part) // 2], part[len(part) // 2:])]
            found.update(zip((m.id for m in lone), at_once(lambda m: alone(m, cid), lone)))
            ended = at_once(lambda part: only(part, cid, short=not slow[0])[0], halves)
            level = [part for part, differs in zip(halves, ended) if differs is not None]
        return found

    def only(group, cid, short=False):
        # the one case cid with every member of group on: run_group's answer
        return run_group(group, reach, cov, case_by_id, runner, conf, timeout, cid,
                         frozenset(reach_of(group) - {cid}), config_env, short)

    def survived(group, history):
        for m in group:
            own = set(reach[m.id])
            mine = [r for r in history if r["id"] in own and m.id not in r.get("without", ()) and
                    r["state"] == cov["cases"][r["id"]]["state"]] + alone_runs.get(m.id, [])
            noticed = [r["id"] for r in alone_runs.get(m.id, [])
                       if r["state"] not in DETECTING_STATES
                       and r["state"] != cov["cases"][r["id"]]["state"]]
            fleeting = [r["id"] for r in alone_runs.get(m.id, [])
                        if r["state"] in DETECTING_STATES]
            reason = (f"its {len(own)} reaching case(s) pass with the {len(group) - 1} other "
                      f"mutant(s) of its group on too" if len(group) > 1 else
                      f"its {len(own)} reaching case(s) pass")
            if noticed:
                reason += (f", but {', '.join(noticed)}, which it alone ends UNRESOLVED "
                           "(a set-up step noticed)")
            if fleeting:
                reason += (f", and {', '.join(fleeting)}, which it alone ended "
                           "in a kill or a hang once and not when run again")
            if m.id in without_one:
                reason += (f"; {without_one[m.id]} ends as without a mutant with it alone and "
                           "with the other members on without it, but not with all of them "
                           "on: settled for the group, which went on with it")
            out.append((m, {"cases_reaching": len(own), "cases_valid": len(own),
                            "runs": mine, "killed_by": [], "kill_states": [],
                            "status": "survived", "group": [x.id for x in group],
                            "reason": reason}))

    def settle(group, first, passed, history):
        # history: the runs made with every member of group on (but those a
        # run names in "without");
        # passed: the cases settled for every member.
        # Returns what is to be settled next, in order (settle_all): a group
        # going on after a case was settled is the next step, not a call
        # one level deeper per case (a group whose cases each end otherwise
        # went past Python's recursion limit: the run of 2026-11-30 00:02)
        then = []
        if len(group) == 1 and not passed:
            out.append((group[0], single(group[0], first)))
            return then
        differs, done = run_group(group, reach, cov, case_by_id, runner, conf, timeout,
                                  first, passed, config_env, short=not slow[0])
        if differs is not None and done[-1]["state"] == "TIMEOUT" and \
                done[-1]["limit_s"] < case_limit([case_by_id[differs]], cov, timeout):
            # out of the short limit: a hang only if the full limit agrees
            # (else a slow run on a loaded machine, and the case is settled)
            again, more = only(group, differs)
            if again is None:
                # slow with these members on, not hung: so are its neighbours,
                # most likely, and a short limit would stop the group at each
                # of them for a run with the full one, the CPUs idle in
                # between (every SRQ two-node case in turn, the run of
                # 2026-11-30 05:26); a hang costs the full limit either way
                slow[0] = True
                return [(group, None, passed | {r["id"] for r in done},
                         history + done[:-1] + more)]
            done = done[:-1] + more
        history = history + done
        passed = passed | {r["id"] for r in done if r["id"] != differs}
        if differs is None:
            survived(group, history)
            return then
        baseline = cov["cases"][differs]["state"]
        states = suspects([m for m in group if differs in reach[m.id]], differs)
        # a kill alone must recur before the member leaves the group: one
        # that does not (the case varies under the load) has the case
        # settled, as a set-up step's notice has, where running the member
        # alone would run each of its cases alone
        # (each asked at once, and the killers' own runs too: a hang is a
        # wait for the full limit, and in turn they left the CPUs idle at the
        # end of the default configuration of the run of 2026-11-30 05:26)
        first_kill = [m for m in group if states.get(m.id) in DETECTING_STATES]
        killing = [m for m, state in zip(first_kill, at_once(lambda m: alone(m, differs),
                                                             first_kill))
                   if state in DETECTING_STATES]
        noticing = [m for m in group if m.id in states and m not in killing and
                    states[m.id] != baseline]
        rest = [m for m in group if m not in killing and m not in noticing]
        out.extend(zip(killing, at_once(lambda m: single(m, differs), killing)))
        if noticing and rest:
            # the case is settled for the noticing members; with the others
            # on it must still end as without a mutant, and then the whole
            # group goes on together
            again, done = only(rest, differs)
            if again is None:
                off = [m.id for m in noticing]
                return [(noticing + rest, None, passed | {differs},
                         history + [dict(r, without=off) for r in done])]
        if noticing:
            then.append((noticing, None, passed | {differs}, history))
        if killing or noticing:
            if rest:
                then.append((rest, differs, passed, history))
        elif len(rest) == 1:
            # a group of one: its run of the case was the member alone, and
            # the member alone just ended it as without a mutant; a case that
            # varies, settled (as "asked again" settles one), where a run of
            # the member alone would run each of its cases alone
            then.append((rest, None, passed | {differs}, history))
        else:
            # no member alone: a case that varies (timing), or two members
            # together.  Asked once more with the whole group on, a case
            # that ends as without a mutant now is settled and the group goes
            # on whole (halving runs its other cases twice); else it halves
            if differs not in asked_again:
                asked_again.add(differs)
                again, done = only(rest, differs)
                if again is None:
                    return [(rest, None, passed | {differs}, history + done)]
            # two or more members together, or a case that varies: a member
            # without which the case ends as without a mutant settles it for
            # every member (it passed the case alone, the others without
            # it) and the whole group goes on, a few runs of one case.
            # Halving runs the group's other cases twice, and a member split
            # off to go on by itself ran all of its other cases alone: a
            # whole suite for a member reaching every case, as twelve did in
            # the default configuration of the run of 2026-11-29 19:55 (most
            # at dat_ia_close.no_memory_growth, a case the load varies)
            # (asked --jobs members at a time, at once: the first in order
            # without which it ends as without a mutant is the one taken).
            # Each run has the short limit, as the halves': a pair that hangs
            # a case together costs the full limit (10 s) a member otherwise,
            # and the run of 2026-11-30 01:25 spent eight minutes with one CPU
            # so on dat_evd_wait.threshold_met_by_flushed_completions (59 ms
            # without a mutant); a run that ends as without a mutant within the
            # short limit would within the full one too
            candidates = [x for x in rest if differs in reach[x.id]]
            step = max(1, getattr(runner, "jobs", 1))
            for i in range(0, len(candidates), step):
                chunk = candidates[i:i + step]
                asked = at_once(lambda m: only([x for x in rest if x is not m], differs,
                                               short=not slow[0]), chunk)
                for m, (again, done) in zip(chunk, asked):
                    if again is None:
                        without_one[m.id] = differs
                        return [(rest, None, passed | {differs},
                                 history + [dict(r, without=[m.id]) for r in done])]
            half = len(rest) // 2
            then.append((rest[:half], differs, passed, history))
            then.append((rest[half:], differs, passed, history))
        return then

    def settle_all(group):
        todo = [(group, None, frozenset(), [])]
        while todo:
            todo.extend(reversed(settle(*todo.pop())))

    settle_all(list(members))
    return out


class CaseQueue:
    """The cases in their order, cut into runs of one binary: two-node cases
    alone, single-node ones of the same binary together, BATCH_SIZES long
    (short first: a killed mutant usually dies at its first case or two).
    promote(pages) moves the cases of those pages, not yet run, to the
    front."""

    def __init__(self, cases: list):
        self.rest = list(cases)
        self.sizes = iter(BATCH_SIZES)
        self.size = next(self.sizes)
        self.promoted: set = set()

    def __iter__(self):
        while self.rest:
            c = self.rest[0]
            n = 1
            while not c.two_node and n < len(self.rest) and n < self.size and \
                    not self.rest[n].two_node and self.rest[n].binary == c.binary:
                n += 1
            batch, self.rest = self.rest[:n], self.rest[n:]
            yield batch
            if not c.two_node:
                self.size = next(self.sizes, BATCH_SIZES[-1])

    def promote(self, pages) -> None:
        new = set(pages) - self.promoted
        if new:
            self.promoted |= new
            self.rest = ([c for c in self.rest if c.page in new] +
                         [c for c in self.rest if c.page not in new])


def batches(cases: list):
    """CaseQueue's batches, in a fixed order."""
    return iter(CaseQueue(cases))


# A case that ends UNRESOLVED because a set-up call failed names that call
# (harness: "set-up dat_lmr_create returned ..."): the call its own page's
# cases check.  A mutant that breaks a call every set-up makes (an LMR, a
# PZ) fails the cases of that call's page, not the hundreds that use it.
SETUP_CALL = re.compile(r"\bset-up (dat_[a-z_]+)")


def score(counts: dict, excluded: int) -> float | None:
    """Detected over everything that could be: killed and timed-out (a hang is
    a detection, as TIMEOUT in the hand-written kill matrix) over all mutants
    but the build-failed, the identical and those triaged equivalent or
    unspecified."""
    total = sum(counts.values()) - counts.get("build-failed", 0) - counts.get("identical", 0) \
        - excluded
    if total <= 0:
        return None
    return round(100.0 * (counts.get("killed", 0) + counts.get("timed-out", 0)) / total, 2)


# Triage kinds that take a mutant out of the score: it cannot be killed (or
# the pages do not say what is right).  Only a mutant that then was not
# killed is left out: a killed one counts once, as killed, and is a triage
# error (the claim was wrong).
EXCLUDING_KINDS = ("equivalent", "unspecified")
# Triage kinds of a mutant that survives the default configuration: a run
# that re-checks the triage runs these in groups (settle_group).
SURVIVING_KINDS = EXCLUDING_KINDS + ("gap", "killed-in-config")
DETECTED = ("killed", "timed-out")


def batches_ahead_for(m, triage: dict, runner) -> int:
    """How many batches of the mutant's cases to start at once: --jobs for one
    the triage says survives (it runs them all), else one at a time (a kill
    usually comes in the first few cases, and a batch started ahead of it
    would be spent for nothing)."""
    return getattr(runner, "jobs", 1) if (triage.get(m.id) or {}).get("kind") in SURVIVING_KINDS \
        else 0


def excluded_by_triage(r: dict) -> bool:
    return r["status"] not in ("build-failed", "identical") + DETECTED and \
        (r.get("triage") or {}).get("kind") in EXCLUDING_KINDS


def triage_errors(results: list) -> list:
    """The mutants triaged as not killable that a case killed (or hung):
    {id, kind, status, killed_by}."""
    return [{"id": r["id"], "kind": r["triage"]["kind"], "status": r["status"],
             "killed_by": (r.get("killed_by") or [None])[0]}
            for r in results if r["status"] in DETECTED and
            (r.get("triage") or {}).get("kind") in EXCLUDING_KINDS]


def unconfirmed_in_config(results: list, configs_run) -> list:
    """The killed-in-config mutants that survived the configuration their
    triage names, where the run had it: {id, config, status there}, also
    when the default configuration then killed them (in_config_fallback).
    The entry's claim is refuted as an equivalence claim a kill refutes."""
    return [{"id": r["id"], "config": r["triage"]["config"],
             "status": (r.get("config_run") or r)["status"]}
            for r in results if (r.get("triage") or {}).get("kind") == "killed-in-config"
            and (r["status"] not in DETECTED or r.get("config_run"))
            and r["triage"]["config"] in configs_run]


def run_again(results: list, mutants: list, runner, jobs: int, run):
    """(mutant, its record in results, its new record) for each of `mutants`
    run once more, run(m, record) giving the new one; in order, on
    run_pool.  The three second runs of a whole run (the gate's for an
    untriaged survivor, confirm_triage_errors, in_config_fallback) go
    through it; each decides whether the new record replaces the first
    (replace_record)."""
    first_of = {r["id"]: r for r in results}
    yield from run_pool(runner, jobs,
                        lambda m: (m, first_of[m.id], run(m, first_of[m.id])), mutants)


def replace_record(results: list, first: dict, rec: dict) -> None:
    results[results.index(first)] = rec


def second_chance(results: list, triage: dict, by_id: dict, runner, jobs: int, single,
                  say) -> None:
    """A gate: an untriaged survivor gets a second run before it fails the
    gate (a kill that depends on timing, as agent_one_shot's); a kill there
    replaces its record, both runs kept in it."""
    again = [by_id[r["id"]] for r in results
             if r["status"] == "survived" and r["id"] not in triage]
    for m, first, rec in run_again(results, again, runner, jobs, lambda m, _first: single(m)):
        if rec["status"] != "survived":
            rec.update(m.listing(), second_run=True,
                       first_run={"status": "survived", "runs": len(first["runs"])})
            replace_record(results, first, rec)
            say(f"{m.id}: survived its first run, {rec['status']} in the second")


def in_config_fallback(results: list, in_config: list, runner, jobs: int, single,
                       say) -> None:
    """In a run that re-checks the triage: a killed-in-config mutant that its
    configuration did not kill runs every case that reaches it in the default
    configuration, as it would had it no entry; its record is that run's (the
    claim stays refuted: unconfirmed_in_config), the configuration's run kept
    in it."""
    by_id = {m.id: m for m in in_config}
    left = [by_id[r["id"]] for r in results if r["id"] in by_id and r.get("only_config")
            and r["status"] not in DETECTED]
    for m, first, rec in run_again(results, left, runner, jobs, lambda m, _first: single(m)):
        rec.update(m.listing(), config_run={"config": first["only_config"],
                                            "status": first["status"],
                                            "configs_tried": first.get("configs_tried", [])})
        replace_record(results, first, rec)
        say(f"{m.id}: not killed under {first['only_config']}, its triage's configuration; "
            f"{rec['status']} in the default configuration")


def confirm_triage_errors(results: list, triage: dict, by_id: dict, runner, jobs: int,
                          single, say) -> None:
    """A triage error is a claim against the triage file, so its kill must
    recur: each mutant triaged as one no case can kill that a case killed
    (or hung) runs once more, that case first (single(m, case)).  A kill
    that recurs is kept (`confirmed_by`); one that does not (a case that
    varies with the machine's load, as a heap measure can) leaves the
    mutant as its second run ends, the first run's kill kept in the record
    (`first_run`)."""
    claimed = [by_id[r["id"]] for r in results if r["status"] in DETECTED and
               (triage.get(r["id"]) or {}).get("kind") in EXCLUDING_KINDS]
    for m, first, rec in run_again(results, claimed, runner, jobs,
                                   lambda m, first: single(m, first["killed_by"][0])):
        if rec["status"] in DETECTED:
            first["confirmed_by"] = rec["killed_by"][:1]
            continue
        killer = first["killed_by"][0]
        rec.update(m.listing(), second_run=True,
                   first_run={"status": first["status"], "killed_by": first["killed_by"],
                              "runs": [x for x in first["runs"] if x["id"] == killer]})
        rec["reason"] = (f"{first['status']} by {killer} in its first run, not in its second "
                         f"({rec['reason']}): a case that varies, not a triage error")
        replace_record(results, first, rec)
        say(f"{m.id}: {first['status']} by {killer} in its first run, {rec['status']} in "
            "its second: not a triage error")


def summarise(results: list) -> dict:
    """Counts and score per file and per function."""
    files: dict = {}
    for r in results:
        f = files.setdefault(r["file"], {"counts": {s: 0 for s in STATUSES}, "excluded": 0,
                                         "functions": {}})
        fn = f["functions"].setdefault(r["function"], {"counts": {s: 0 for s in STATUSES},
                                                       "excluded": 0})
        for node in (f, fn):
            node["counts"][r["status"]] += 1
            if excluded_by_triage(r):
                node["excluded"] += 1
    for f in files.values():
        f["score"] = score(f["counts"], f["excluded"])
        for fn in f["functions"].values():
            fn["score"] = score(fn["counts"], fn["excluded"])
    return files


def function_extents(generated: dict) -> dict:
    """(file, function) -> (first, last) line of its mutants: as much of the
    function as a mutant can be in."""
    out: dict = {}
    for ms in generated.values():
        for m in ms:
            lo, hi = out.get((m.file, m.function), (m.line, m.end_line))
            out[(m.file, m.function)] = (min(lo, m.line), max(hi, m.end_line))
    return out


def cases_new_to(m, cov: dict, ccov: dict, extent: tuple | None) -> list:
    """The cases that reach the mutant in a configuration (coverage ccov)
    and either did not reach it in the default one (cov) or went another way
    through its function there: a condition whose first operand is the
    configuration's switch (`ref_profile.null_evd_needs_no_dtos && ...`)
    is executed by every case in both, and only the path after it tells."""
    ran = set(reaching(m, cov))
    lo, hi = extent or (m.line, m.end_line)

    def path(doc, cid):
        rec = doc["cases"].get(cid)
        return {ln for ln in (rec["lines"].get(m.file, ()) if rec else ()) if lo <= ln <= hi}

    return [cid for cid in reaching(m, ccov)
            if cid not in ran or path(cov, cid) != path(ccov, cid)]


def rebuilt_library(name: str, args, out: Path, src: Path, dat_entry) -> tuple:
    """The mutant library of a REBUILT configuration (a second call finds
    the build up to date): (its dat.conf, the environment that loads it)."""
    conf = out / f"mutant-dat-{name}.conf"
    env = {} if name in OTHER_API else sanitizer_env(name)
    api = OTHER_API.get(name, dat_entry["api"])
    log = out / f"mutant-build-{name}.log"
    lib = build_library(src, out / f"mutant-build-{name}", log,
                        ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", *REBUILT.get(name, [])],
                        args.jobs, TARGETS[api])
    write_dat_conf(conf, dat_entry["ia"], lib, dat_entry["instance_data"], api)
    return conf, env


def known_killers_first(name: str, config_env: dict, config_conf: Path, quick: list,
                        by_id: dict, case_by_id: dict, runner: CaseRunner, args,
                        killers) -> list:
    """A mutant whose triage says which case killed it in this configuration
    (killed-in-config, --trust-triage) runs that case first: once without
    the mutant (it must pass there: the baseline) and once with it.
    Returns [(m, first, rec)] of the kills; the others go on to the pass's
    own selection of cases."""
    def one(r):
        m, cid = by_id[r["id"]], r["known_killer"]
        if cid not in case_by_id:
            return r, None
        base = runner.run(case_by_id[cid], dict(config_env, DAT_OVERRIDE=str(config_conf)))
        if base["state"] not in VALID_BASELINE:
            return r, None
        ccov = {"cases": {cid: {"state": base["state"],
                                "duration_ms": base.get("duration_ms", 0.0)}}}
        return r, run_mutant(m, [cid], ccov, case_by_id, runner, config_conf, args.timeout,
                             None, killers, config_env)

    return [(by_id[r["id"]], r, rec) for r, rec in run_pool(runner, args.jobs, one, quick)
            if rec and rec["status"] in ("killed", "timed-out")]


def rebuilt_pass(name: str, args, out: Path, src: Path, case_by_id: dict,
                 runner: CaseRunner, dat_entry, cov: dict, alive: list, by_id: dict,
                 say) -> tuple:
    """A configuration with a mutant library of its own (REBUILT): built
    from the same schemata, its baseline is every case that reaches a mutant
    still alive, run once on it without a mutant (a case counts only where
    it passes there).  Returns (conf, env, cov, work)."""
    conf, env = rebuilt_library(name, args, out, src, dat_entry)
    lib = conf
    reach = {r["id"]: [cid for cid in reaching(by_id[r["id"]], cov)
                       if cov["cases"][cid]["state"] in VALID_BASELINE] for r in alive}
    needed = sorted({cid for ids in reach.values() for cid in ids})
    say(f"config {name}: baseline of {len(needed)} case(s) on {lib}")

    def base(cid):
        r = runner.run(case_by_id[cid], dict(env, DAT_OVERRIDE=str(conf)))
        return cid, {"state": r["state"], "duration_ms": r.get("duration_ms", 0.0)}

    ccov = {"cases": dict(run_pool(runner, args.jobs, base, needed))}
    work = []
    for r in alive:
        ids = [cid for cid in reach[r["id"]] if ccov["cases"][cid]["state"] in VALID_BASELINE]
        if ids:
            work.append((by_id[r["id"]], r, ids))
    return conf, env, ccov, work


def expand_configs(args, build_dir: Path, dat_entry) -> list:
    """[(name, env)] of the run's --config, variants expanded."""
    names = split_multi(args.config)
    if not names:
        return []
    from datcts.variants import VariantsError, load_variants
    variant_ids = []
    if any(n.startswith("variant") for n in names):
        try:
            variant_ids = [v["id"] for v in load_variants(
                build_dir / "lib" / f"lib{TARGETS[dat_entry['api']]}.so")]
        except VariantsError as e:
            raise GeneratedError(str(e)) from e
    return configurations(names, variant_ids)


def own_config(r: dict, triage: dict) -> str | None:
    """The configuration a killed-in-config mutant's triage names (or the
    one its record was set aside for, --trust-triage), else None."""
    if "only_config" in r:
        return r["only_config"]
    t = triage.get(r["id"]) or {}
    return t.get("config") if t.get("kind") == "killed-in-config" else None


def configuration_checks(r: dict, name: str, triage: dict, trusted: bool) -> bool:
    """Whether a mutant still alive after the default run runs in
    configuration `name`: a killed-in-config one in its own only; with
    --trust-triage nothing else; else an untriaged survivor and a gap in
    every one, and an equivalence claim on an index, a bound or memory
    (MEMORY_OPERATORS) under a memory-checking build (MEMORY_CONFIGS).  The
    other triaged survivors ran every reaching case in the default run; a
    configuration re-runs what it can change."""
    own = own_config(r, triage)
    if own is not None:
        return own == name
    if trusted:
        return False
    t = triage.get(r["id"])
    if not t or t["kind"] == "gap":
        return True
    return (t["kind"] == "equivalent" and name in MEMORY_CONFIGS and
            r["id"].split(":")[2] in MEMORY_OPERATORS)


def run_configurations(args, root: Path, out: Path, cases: list, case_by_id: dict,
                       runner: CaseRunner, dat_entry, cov: dict, conf: Path, killers: Killers,
                       todo: list, results: list, build_dir: Path, say,
                       extents: dict | None = None, src: Path | None = None,
                       cases_dir_for_api=None, grouped: set | None = None,
                       group_size: int = 1, triage: dict | None = None) -> dict:
    """The --config passes: each mutant still alive (survived or not reached)
    that the configuration checks (configuration_checks) runs, in each
    configuration in turn, the cases new to it there (cases_new_to; under a
    REBUILT configuration every reaching case), until one kills it; a
    killed-in-config one its known killer first.  A kill there replaces its
    record (the default run is kept in it); returns {name: {"coverage_s",
    "mutants_run", "killed", "env"}}.  The mutants of `grouped` (those the
    triage says survive, in a run that re-checks it) run in groups of
    group_size (settle_group)."""
    chosen = expand_configs(args, build_dir, dat_entry)
    if not chosen:
        return {}
    by_id = {m.id: m for m in todo}
    extents = extents or {}
    triage = triage or {}
    trusted = bool(getattr(args, "trust_triage", False))
    for r in results:
        # a killed-in-config survivor of the default run: its known killer first
        killer = (triage.get(r["id"]) or {}).get("killed_by")
        if r["status"] in ("survived", "not-reached") and own_config(r, triage) and killer:
            r.setdefault("known_killer", killer)
    done: dict = {}
    for name, config_env in chosen:
        t0 = time.monotonic()

        def still_alive():
            return [r for r in results if r["status"] in ("survived", "not-reached")
                    and configuration_checks(r, name, triage, trusted)]

        def settle(m, first, rec):
            rec.update(m.listing(), config=name,
                       default_run={"status": first["status"], "runs": len(first["runs"]),
                                    "configs_tried": first.get("configs_tried", []),
                                    "skipped": bool(first.get("only_config"))})
            replace_record(results, first, rec)
            say(f"{m.id}: " + ("not run again in the default configuration (triaged), "
                               if first.get("only_config") else
                               f"{first['status']} in the default configuration, ") +
                f"{rec['status']} under {name}" +
                (f" by {rec['killed_by'][0]}" if rec["killed_by"] else ""))

        alive = still_alive()
        config_conf = conf
        config_entry = dat_entry
        if name in ADDRESSES:
            config_entry = dict(dat_entry, instance_data=ADDRESSES[name])
            config_conf = out / f"mutant-dat-{name}.conf"
            write_dat_conf(config_conf, dat_entry["ia"], Path(parse_dat_conf(conf)[0].library),
                           config_entry["instance_data"], dat_entry["api"])
        killed = 0
        config_cases = case_by_id
        if name in OTHER_API:
            # the same case in the other API's build (cases2): its own binary
            other = cases_dir_for_api(args, OTHER_API[name]) if cases_dir_for_api else None
            config_cases = ({cid: dataclasses.replace(c, binary=str(other / Path(c.binary).name))
                             for cid, c in case_by_id.items()
                             if (other / Path(c.binary).name).is_file()} if other else {})
        quick = [r for r in alive if own_config(r, triage) == name
                 and r.get("known_killer") in config_cases]
        if quick:
            if name in REBUILT or name in OTHER_API:
                try:
                    config_conf, config_env = rebuilt_library(
                        name, args, out, src or out / "mutant-src", dat_entry)
                except GeneratedError as e:
                    say(f"config {name}: its library was not built ({e}); not run")
                    quick = []
            for m, first, rec in known_killers_first(name, config_env, config_conf, quick,
                                                     by_id, config_cases, runner, args,
                                                     killers):
                killed += 1
                settle(m, first, rec)
            say(f"config {name}: {killed} of {len(quick)} killed-in-config mutant(s) died "
                "again by the case that killed them")
            alive = still_alive()
        if not alive or name in OTHER_API:
            # the other API's coverage is a run of its own (--dat-conf)
            for r in alive:
                r.setdefault("configs_tried", []).append(name)
            done[name] = {"coverage_s": 0.0, "mutants_run": len(quick), "killed": killed,
                          "env": config_env}
            continue
        if name in REBUILT:
            # the same lines run: every reaching case, on the other library
            config_conf, config_env, ccov, work = rebuilt_pass(
                name, args, out, src or out / "mutant-src", case_by_id, runner, dat_entry,
                cov, alive, by_id, say)
            coverage_s = time.monotonic() - t0
        else:
            ccov = coverage_map(args, root, out, cases, runner, config_entry, say,
                                (name, config_env))
            ccov = {"cases": {cid: ccov["cases"][cid] for cid in case_by_id}}
            coverage_s = time.monotonic() - t0
            work = []
            for r in alive:
                m = by_id[r["id"]]
                if name in ADDRESSES:
                    # the same lines with other data (the addresses): every
                    # case that reaches the mutant there and passes there
                    new = [cid for cid in reaching(m, ccov)
                           if ccov["cases"][cid]["state"] in VALID_BASELINE]
                else:
                    new = cases_new_to(m, cov, ccov, extents.get((m.file, m.function)))
                if new:
                    work.append((m, r, new))
        say(f"config {name}: {len(work)} of {len(alive)} mutant(s) still alive have cases "
            "new to them there")

        # the mutants the triage says survive, in groups as in the default run
        new_to = {m.id: new for m, _, new in work}
        firsts = {m.id: first for m, first, _ in work}
        groups = survivor_groups([m for m, _, _ in work if m.id in grouped], new_to,
                                 group_size) if grouped and group_size > 1 else []
        in_groups = {m.id for g in groups for m in g}
        if groups:
            say(f"config {name}: {len(in_groups)} triaged survivor(s) in {len(groups)} group(s)")

        def single(m, first=None, ccov=ccov, config_env=config_env, config_conf=config_conf):
            return run_mutant(m, new_to[m.id], ccov, case_by_id, runner, config_conf,
                              args.timeout, args.max_cases, killers, config_env, first,
                              ahead=batches_ahead_for(m, triage, runner))

        def one(item, ccov=ccov, config_env=config_env, config_conf=config_conf):
            if isinstance(item, list):
                return settle_group(item, new_to, ccov, case_by_id, runner, config_conf,
                                    args.timeout, single, config_env)
            return [(item[0], single(item[0]))]

        for m, rec in (pair for pairs in run_pool(
                runner, args.jobs, one, groups + [w for w in work if w[0].id not in in_groups])
                for pair in pairs):
            first = firsts[m.id]
            if rec["status"] not in ("killed", "timed-out"):
                first.setdefault("configs_tried", []).append(name)
                continue
            killed += 1
            settle(m, first, rec)
        done[name] = {"coverage_s": round(coverage_s, 1), "mutants_run": len(work) + len(quick),
                      "killed": killed, "env": config_env}
    return done


# ---------------------------------------------------------------- the command

def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def cmd_generated(args, cases_dir_for) -> int:
    t_start = time.monotonic()
    started = _now()
    root = Path(args.source_dir).resolve() if args.source_dir else repo_root()
    build_dir = Path(args.build_dir).resolve()
    out = Path(args.out).resolve()
    if args.jobs < 1:
        raise GeneratedError("--jobs must be at least 1")
    if args.max_cases is not None and args.max_cases < 1:
        raise GeneratedError("--max-cases must be at least 1")
    if args.group is not None and args.group < 1:
        raise GeneratedError("--group must be at least 1")
    if args.sample is not None and args.sample < 1:
        raise GeneratedError("--sample must be at least 1")
    operators = split_multi(args.operators) or list(mutgen.OPERATORS)
    unknown = [o for o in operators if o not in mutgen.OPERATORS]
    if unknown:
        raise GeneratedError("unknown operator(s): " + ", ".join(unknown) +
                             " (known: " + ", ".join(mutgen.OPERATORS) + ")")
    quiet = args.quiet

    def say(msg):
        if not quiet:
            print(msg, file=sys.stderr, flush=True)

    # the provider as the build's dat.conf (or --dat-conf) names it: its DAT
    # API says which library is mutated; the mutant and coverage libraries
    # take its place in dat.conf files of their own
    setup = resolve(build_dir=build_dir, out_dir=out, ia=args.ia, dat_conf=args.dat_conf,
                    provider=None, instance_data=None)
    api = getattr(setup, "api", "1.2")
    if api not in TARGETS:
        raise GeneratedError(f"generated mutants are built for " +
                             " and ".join(f"lib{t} (DAT {a})" for a, t in TARGETS.items()))
    target = TARGETS[api]
    cc_path = build_dir / "compile_commands.json"
    if not cc_path.is_file():
        raise GeneratedError(f"no {cc_path}: configure the build with "
                             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON (the default of this project)")
    commands = mutgen.load_compile_commands(cc_path, target)
    if not commands:
        raise GeneratedError(f"{cc_path} compiles nothing for lib{target} (DAT {api}): "
                             "is the build configured for it?")
    files = source_files(root, split_multi(args.files), commands)
    if not files:
        raise GeneratedError("no source file matches --files")
    try:
        generated = generate_all(root, commands, files, operators)
    except mutgen.GenerationError as e:
        raise GeneratedError(str(e)) from e
    selected = select(generated, split_multi(args.functions), args.sample, args.seed,
                      split_multi(args.mutant))
    triage_path = Path(args.triage) if args.triage else root / "tests/mutants/generated-triage.toml"
    triage = load_triage(triage_path)
    stale = stale_triages(triage, generated)
    moved = moved_triages(triage, generated)
    for t in moved:
        # judged on other code: the mutant its id names now is untriaged
        del triage[t["id"]]
    if getattr(args, "check_triage", False):
        return check_triage(triage_path, triage, stale, moved,
                            unanchored_triages(triage, generated))
    if args.list:
        for m in selected:
            print(f"{m.id}  line {m.line}: {' '.join(m.original.split())}  ->  "
                  f"{' '.join(m.replacement.split())}")
        print(f"{len(selected)} mutant(s) of {sum(map(len, generated.values()))} generated "
              f"in {len(generated)} file(s)", file=sys.stderr)
        return 0 if selected else 5
    if not selected:
        print("datcts: no generated mutant matches the selection", file=sys.stderr)
        return 5
    out.mkdir(parents=True, exist_ok=True)
    cases_dir = cases_dir_for(api)
    if not find_binaries(cases_dir):
        raise GeneratedError(f"no datcts-cases-* binaries in {cases_dir} (build the project)")
    env = setup.env()
    env.pop(mutgen.ENV_VAR, None)
    for var in ("DATREF_MUTANT", "DATLIB_MUTANT", "DATREF_VARIANT"):
        env.pop(var, None)
    cases = discover(cases_dir, env)
    pages = split_multi(args.page)
    if pages:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.page, g) for g in pages)]
    globs = split_multi(getattr(args, "case", None))
    if globs:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.id, g) for g in globs)]
    if not cases:
        raise GeneratedError("no case matches --page / --case")
    case_by_id = {c.id: c for c in cases}
    dat_entry = {"ia": setup.ia, "instance_data": setup.instance_data or "", "api": api}
    runner = CaseRunner(env, args.timeout, args.jobs, quiet)

    # 0. identical code: before the mutant build, which moves the mutants' offsets
    t0 = time.monotonic()
    mode = args.identical_code or ("none" if args.trust_triage else "triaged")
    compiled = {}
    candidates = selected if mode == "all" else \
        [m for m in selected if m.id in triage] if mode == "triaged" else []
    if candidates:
        try:
            compiled = tce.identical(root, lambda rel: command_for(commands, root, rel),
                                     candidates, args.jobs, tce.default_cache())
        except RuntimeError as e:
            raise GeneratedError(str(e)) from e
    identical_ids = {mid for mid, same in compiled.items() if same}
    tce_s = time.monotonic() - t0
    if candidates:
        say(f"identical code: {len(identical_ids)} of {len(candidates)} mutant(s) compiled "
            f"alone ({mode}) compile to the original's object code ({tce_s:.1f} s)")

    # 1. coverage and baseline
    t0 = time.monotonic()
    cov = coverage_map(args, root, out, cases, runner, dat_entry, say)
    cov = {"cases": {cid: cov["cases"][cid] for cid in case_by_id}}
    coverage_s = time.monotonic() - t0

    # 2. the mutant build
    t0 = time.monotonic()
    log = out / "mutant-build.log"
    log.write_text("")
    replaced, failed_ids = {}, set()
    by_file: dict = {}
    for m in selected:
        by_file.setdefault(m.file, []).append(m)
    # the hand-written mutants go into the same copy (docs/mutants.md, "The
    # switch"): off, they are the original code the generated ones mutate
    shifts: dict = {}
    try:
        hand = handmut.schemata_sources(root, *handmut.load(root), shifts)
    except handmut.HandError as e:
        raise GeneratedError(str(e)) from e
    src = out / "mutant-src"
    # the headers with the state hand-written mutants declare, in the copy
    # before the files are checked against them
    sync_tree(root, src, {rel: text.encode() for rel, (text, places, _i, _v) in hand.items()
                          if not places})
    for rel, ms in by_file.items():
        path = root / rel
        h = (hand[rel], shifts.get(rel, [])) if rel in hand else None
        text, failed = schemata_for(path, command_for(commands, root, rel), ms, log, h,
                                    src / Path(rel).parent)
        replaced[rel] = text
        failed_ids.update(m.id for m in failed)
    for rel, (text, places, ids, variable) in hand.items():
        if rel not in replaced:
            replaced[rel] = handmut.render(text, places, ids, variable)[0] if places \
                else text.encode()
    sync_tree(root, src, replaced)
    lib = build_library(src, out / "mutant-build", log, ["-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                        args.jobs, target)
    conf = out / "mutant-dat.conf"
    write_dat_conf(conf, dat_entry["ia"], lib, dat_entry["instance_data"], api)
    build_s = time.monotonic() - t0
    say(f"mutant build: {len(selected) - len(failed_ids)} mutant(s) in {len(by_file)} "
        f"schemata, {len(failed_ids)} do not compile ({build_s:.1f} s)")

    # 3. the mutants
    t0 = time.monotonic()
    results = []
    todo = [m for m in selected if m.id not in failed_ids]
    trusted = []
    # killed-in-config, its configuration in this run: run there first, its
    # known killer first (run_configurations), never in the default one, where
    # its triage says it survives and whose answer would not change its count;
    # a run that re-checks the triage runs it in the default configuration
    # only if its own does not kill it (in_config_fallback)
    here = {name for name, _ in expand_configs(args, build_dir, dat_entry)}
    in_config = [m for m in todo if m.id not in identical_ids and
                 (triage.get(m.id) or {}).get("kind") == "killed-in-config" and
                 triage[m.id]["config"] in here]
    first_in_config = {m.id for m in in_config}
    todo = [m for m in todo if m.id not in first_in_config]
    if args.trust_triage:
        trusted = [m for m in todo if m.id in triage]
        todo = [m for m in todo if m.id not in triage]
        trusted = [m for m in trusted if m.id not in identical_ids]
        # a trusted claim is re-checked now and then: some excluded mutants
        # of the sample run anyway, and a kill among them fails the run
        excluded = sorted((m for m in trusted if triage[m.id]["kind"] in EXCLUDING_KINDS),
                          key=lambda m: m.id)
        recheck = random.Random(args.seed).sample(
            excluded, min(getattr(args, "recheck_triaged", 0) or 0, len(excluded)))
        trusted = [m for m in trusted if m not in recheck]
        todo += recheck
    settled = [m for m in todo if m.id in identical_ids]
    todo = [m for m in todo if m.id not in identical_ids]

    history = None if args.history == "none" else \
        Path(args.history) if args.history else root / "tests/mutants/generated-killers.json"
    killers = Killers(load_history(history))
    group_size = GROUP_SIZE if args.group is None else args.group

    def single(m, first=None):
        rec = run_mutant(m, reaching(m, cov), cov, case_by_id, runner, conf, args.timeout,
                         args.max_cases, killers, first=first or killers.previous.get(m.id),
                         ahead=batches_ahead_for(m, triage, runner))
        killers.note(m, rec)
        return rec

    # a run that re-checks the triage: the mutants it says survive run in
    # groups, all members on at once (settle_group); a group whose cases all
    # end as without a mutant settles each member
    expected = [m for m in todo if (triage.get(m.id) or {}).get("kind") in SURVIVING_KINDS] \
        if not args.trust_triage and group_size > 1 and not args.max_cases else []
    reach = {m.id: [cid for cid in reaching(m, cov)
                    if cov["cases"][cid]["state"] in VALID_BASELINE] for m in expected}
    groups = survivor_groups([m for m in expected if reach[m.id]], reach, group_size)
    alone = [m for m in todo if m not in expected or not reach[m.id]]
    if groups:
        say(f"survivors in groups: {len(expected)} mutant(s) the triage says survive, in "
            f"{len(groups)} group(s) of at most {group_size}")

    def one(item):
        if isinstance(item, list):
            t = time.monotonic()
            pairs = settle_group(item, reach, cov, case_by_id, runner, conf, args.timeout,
                                 single)
            # said as it ends: the records print in order, after the group before it
            say(f"group of {len(item)}: {sum(1 for _, r in pairs if r.get('group'))} settled "
                f"in a group, {sum(1 for _, r in pairs if not r.get('group'))} run alone "
                f"({time.monotonic() - t:.0f} s)")
            return pairs
        return [(item, single(item))]

    done = 0
    for pairs in run_pool(runner, args.jobs, one, groups + alone):
        for m, rec in pairs:
            done += 1
            rec.update(m.listing())
            results.append(rec)
            if not quiet and rec["status"] != "not-reached":
                print(f"[{done}/{len(todo)}] {rec['status']:<11} {m.id}"
                      + (f" by {rec['killed_by'][0]}" if rec["killed_by"] else "")
                      + (f" (group of {len(rec['group'])})" if rec.get("group") else ""),
                      file=sys.stderr, flush=True)
    by_id = {m.id: m for m in todo}
    if args.threshold is not None:
        second_chance(results, triage, by_id, runner, args.jobs, single, say)
    confirm_triage_errors(results, triage, by_id, runner, args.jobs, single, say)
    for m in in_config:
        # not run again where it survives, first where it died
        rec = m.listing()
        cfg = triage[m.id]["config"]
        rec.update(status="survived", rerun=False, runs=[], killed_by=[], kill_states=[],
                   cases_reaching=len(reaching(m, cov)), cases_valid=0, only_config=cfg,
                   known_killer=triage[m.id]["killed_by"],
                   reason=f"triaged killed-in-config ({cfg}): the default run skipped, "
                          "run under its configuration first")
        results.append(rec)
    configs_s = run_configurations(args, root, out, cases, case_by_id, runner, dat_entry,
                                   cov, conf, killers, todo + in_config, results, build_dir,
                                   say, function_extents(generated), src,
                                   lambda _args, a: Path(cases_dir_for(a)),
                                   {m.id for m in expected}, group_size, triage)
    if not args.trust_triage:
        in_config_fallback(results, in_config, runner, args.jobs, single, say)
    for m in trusted:
        rec = m.listing()
        rec.update(status="survived", rerun=False, runs=[], killed_by=[], kill_states=[],
                   cases_reaching=len(reaching(m, cov)), cases_valid=0,
                   reason=f"triaged {triage[m.id]['kind']}: not re-run (--trust-triage)")
        results.append(rec)
    for m in settled:
        rec = m.listing()
        rec.update(status="identical", runs=[], killed_by=[], kill_states=[],
                   cases_reaching=len(reaching(m, cov)), cases_valid=0,
                   reason="compiles alone to its file's original object code: no case "
                          "can tell it apart (trivial compiler equivalence)")
        results.append(rec)
    for m in selected:
        if m.id in failed_ids:
            rec = m.listing()
            rec.update(status="build-failed", reason="the mutant does not compile",
                       runs=[], killed_by=[], kill_states=[], cases_reaching=0, cases_valid=0)
            results.append(rec)
    order = {m.id: i for i, m in enumerate(selected)}
    results.sort(key=lambda r: order[r["id"]])
    for r in results:
        t = triage.get(r["id"])
        r["triage"] = t
    runs_s = time.monotonic() - t_start

    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    excluded = sum(1 for r in results if excluded_by_triage(r))
    total_score = score(counts, excluded)
    wrong_triage = triage_errors(results)
    not_confirmed = unconfirmed_in_config(results, configs_s)
    untriaged = [r["id"] for r in results if r["status"] == "survived" and not r.get("triage")]
    # triaged mutants whose kill did not recur (confirm_triage_errors)
    unrepeated = [{"id": r["id"], "killed_by": r["first_run"]["killed_by"][0]}
                  for r in results if r.get("second_run") and
                  r["first_run"]["status"] in DETECTED]
    unreached = [r["id"] for r in results if r["status"] == "not-reached" and not r.get("triage")]
    # a mutant triaged as one a case could kill, that compiles to the original's code
    identical_gaps = [r["id"] for r in results if r["status"] == "identical" and
                      (r.get("triage") or {}).get("kind") in ("gap", "killed-in-config")]
    doc = {
        "schema": SCHEMA,
        "run": {"argv": sys.argv, "build_dir": str(build_dir), "source_dir": str(root),
                "library": str(lib), "api": api, "ia": setup.ia, "files": sorted(generated),
                "functions": split_multi(args.functions), "operators": operators,
                "pages": pages, "history": str(history) if killers.previous else None,
                "history_used": sum(1 for r in results if r["id"] in killers.previous),
                "max_cases": args.max_cases, "sample": args.sample, "seed": args.seed, "jobs": args.jobs,
                "timeout_s": args.timeout, "started": started, "finished": _now(),
                "configs": configs_s,
                "elapsed_s": round(runs_s, 1), "coverage_s": round(coverage_s, 1),
                "build_s": round(build_s, 1), "mutant_runs_s": round(time.monotonic() - t0, 1),
                "identical_code": mode, "identical_code_s": round(tce_s, 1),
                "compiled_alone": len(candidates),
                "case_runs": runner.runs, "cases": len(cases),
                "trust_triage": bool(args.trust_triage), "not_rerun": len(trusted),
                "group": group_size, "groups": len(groups),
                "grouped": sum(map(len, groups)),
                "settled_in_group": sum(1 for r in results if r.get("group")),
                "in_config_only": len(in_config),
                "triage_file": str(triage_path)},
        "summary": {"generated": sum(map(len, generated.values())), "selected": len(selected),
                    **counts, "excluded_by_triage": excluded, "score": total_score,
                    "untriaged_survivors": len(untriaged),
                    "untriaged_not_reached": len(unreached), "stale_triages": len(stale),
                    "moved_triages": len(moved),
                    "triage_errors": len(wrong_triage),
                    "in_config_not_confirmed": len(not_confirmed),
                    "identical_gaps": len(identical_gaps)},
        "triage_errors": wrong_triage,
        "in_config_not_confirmed": not_confirmed,
        "kills_not_recurring": unrepeated,
        "identical_gaps": identical_gaps,
        "files": summarise(results),
        "stale_triages": stale,
        "moved_triages": moved,
        "untriaged_survivors": untriaged,
        "untriaged_not_reached": unreached,
        "mutants": results,
    }
    # this run's killers, for the next run's --history
    (out / "killers.json").write_text(json.dumps(
        {"schema": KILLERS_SCHEMA, "killers": dict(sorted(killers_of(results).items()))},
        indent=0) + "\n")
    tmp = out / "generated-mutants.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, out / "generated-mutants.json")

    print(text_summary(doc))
    if wrong_triage or not_confirmed:
        return 1
    if args.threshold is not None:
        if total_score is None or total_score < args.threshold or untriaged:
            return 1
    return 0


def text_summary(doc: dict) -> str:
    s, run = doc["summary"], doc["run"]
    lines = [f"generated mutants: {s['selected']} selected of {s['generated']}: "
             f"{s['killed']} killed, {s['survived']} survived, {s['not-reached']} not reached, "
             f"{s['timed-out']} timed out, {s['build-failed']} build-failed, "
             f"{s.get('identical', 0)} identical code; score "
             f"{s['score'] if s['score'] is not None else '-'} % "
             f"({s['excluded_by_triage']} excluded by triage)",
             f"  {run['elapsed_s']} s in all: coverage {run['coverage_s']} s, build "
             f"{run['build_s']} s, mutants {run['mutant_runs_s']} s; {run['case_runs']} case runs"
             + (f"; {run['not_rerun']} triaged survivor(s) counted as triaged, not re-run"
                if run.get("not_rerun") else "")
             + (f"; {run['in_config_only']} killed-in-config run in their configuration "
                + ("only" if run.get("trust_triage") else "first")
                if run.get("in_config_only") else "")
             + (f"; {run['grouped']} triaged survivor(s) run in {run['groups']} group(s) of at "
                f"most {run['group']}, {run['settled_in_group']} settled there"
                if run.get("groups") else ""),
             f"  untriaged: {s['untriaged_survivors']} survivor(s), "
             f"{s.get('untriaged_not_reached', 0)} not reached"]
    for e in doc.get("triage_errors") or []:
        lines.append(f"  triage error: {e['id']} is triaged {e['kind']} but was {e['status']}"
                     + (f" by {e['killed_by']}" if e.get("killed_by") else "")
                     + ": counted as detected; fix the triage")
    for e in doc.get("in_config_not_confirmed") or []:
        lines.append(f"  triage error: {e['id']} is triaged killed-in-config ({e['config']}) "
                     f"but {e['status']} there: fix the triage")
    for e in doc.get("kills_not_recurring") or []:
        lines.append(f"  not a triage error: {e['id']} was killed by {e['killed_by']} in its "
                     "first run but not in its second (a case that varies: see its record)")
    for mid in doc.get("identical_gaps") or []:
        lines.append(f"  triage note: {mid} is triaged as a gap a case could close, but it "
                     "compiles to the original's code: no case can kill it; triage it "
                     "equivalent")
    if run.get("compiled_alone"):
        lines.append(f"  identical code ({run['identical_code']}): {s.get('identical', 0)} of "
                     f"{run['compiled_alone']} compiled alone, {run['identical_code_s']} s")
    for name, c in (run.get("configs") or {}).items():
        lines.append(f"  config {name}: {c['mutants_run']} mutant(s) still alive ran the "
                     f"cases new to them there, {c['killed']} killed "
                     f"(coverage {c['coverage_s']} s)")
    for rel, f in sorted(doc["files"].items()):
        c = f["counts"]
        lines.append(f"  {rel}: {sum(c.values())} mutants, {c['killed']} killed, "
                     f"{c['survived']} survived, {c['not-reached']} not reached, "
                     f"{c['timed-out']} timed out, {c['build-failed']} build-failed, score "
                     f"{f['score'] if f['score'] is not None else '-'} %")
        unreached = [f"{name} {fn['counts']['not-reached']}/{sum(fn['counts'].values())}"
                     for name, fn in sorted(f["functions"].items())
                     if fn["counts"]["not-reached"]]
        if unreached:
            lines.append("    not reached (function mutants/all): " + ", ".join(unreached))
    for r in doc["mutants"]:
        if r["status"] == "survived":
            t = r.get("triage")
            lines.append(f"  SURVIVED {r['id']} line {r['line']}: "
                         f"{' '.join(r['original'].split())} -> "
                         f"{' '.join(r['replacement'].split())}"
                         + (f" [{t['kind']}]" if t else " [untriaged]"))
            if not t and r.get("code"):
                # the line its triage entry starts with
                lines.append("    code = " + json.dumps(r["code"], ensure_ascii=False))
    for mid in doc["stale_triages"]:
        lines.append(f"  STALE triage {mid}: no such mutant")
    for t in doc.get("moved_triages", []):
        lines.append(f"  MOVED triage {t['id']}: judged on `{t['judged_on']}`, the code is "
                     f"now `{t['code_now']}` (run as untriaged)")
    return "\n".join(lines)
