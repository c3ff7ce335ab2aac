"""`datcts mutate`: proves that the suite can fail.

Every hand-written mutant (tests/mutants/hand/*.toml, applied to a copy of
the sources that this command builds, OUT/hand-src; switched on with
DATREF_MUTANT=<id>, DATLIB_MUTANT=<id> for libdat's) breaks one rule and
names the clause(s) of that rule.  For each mutant the cases of those clauses run
with the mutant on; the mutant is

  killed        a case of one of its own clauses ends FAIL, CRASH or TIMEOUT
                (a crash or a hang is a detection; the state is recorded);
  killed-other  no case of its own clauses does, but a case of another
                clause of the same area(s) fails (any bad state), or one of
                its own cases ends UNRESOLVED (the suite noticed, but not at
                the clause's check);  with --full the rest of the suite is
                tried too;
  survived      everything passes: a missing or weak case, or an equivalent
                mutant (then the table says why, `survives`);
  no-case       no case names any of its clauses.

A case that does not PASS without a mutant (the baseline, run in the same
session) never counts as a kill.  Output: OUT/mutants.json
(datcts-mutants/1), OUT/mutants.html, and OUT/mutants.jsonl (one line per
finished run, written as they finish).  Format and workflow:
docs/mutants.md.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import fnmatch
import itertools
import json
import os
import sys
import threading
import time
from pathlib import Path

from datcts.discovery import Case, discover, find_binaries, split_multi
from datcts.execute import LocalLauncher, ProcessTable, Runner
from datcts.provider import resolve
from datcts.session import batched

SCHEMA = "datcts-mutants/1"
KILL_STATES = ("FAIL", "CRASH", "TIMEOUT")
BAD_STATES = ("FAIL", "CRASH", "TIMEOUT", "UNRESOLVED")
STATUSES = ("killed", "killed-other", "survived", "no-case")
# Baseline states in which a case can witness a mutant: it passes, or it
# does not apply to the provider as it is (UNSUPPORTED) - a mutant that
# changes the provider's attributes can make it apply, and then fail.
VALID_BASELINE = ("PASS", "UNSUPPORTED")
# single-node cases of one binary run at most this many through one
# supervisor under one mutant (Runner.run_batch, as datcts run --batch)
BATCH = 8


class MutateError(Exception):
    """A usage or configuration problem (exit 2)."""


def add_parser(sub, add_build_opts) -> None:
    p = sub.add_parser(
        "mutate",
        help="run the cases of each mutant's clauses with that reference-provider "
             "mutant on and write the kill matrix")
    add_build_opts(p)
    p.add_argument("--ia", help="IA of the reference provider (default: the build's dat.conf default)")
    p.add_argument("--dat-conf", help="dat.conf (default: $DAT_OVERRIDE, else BUILD/dat.conf)")
    p.add_argument("--mutant", "-m", action="append",
                   help="mutant id glob (repeat or comma-separate; default: all)")
    p.add_argument("--quick", action="store_true",
                   help="only the CI subset (mutants marked quick in the table)")
    p.add_argument("--full", action="store_true",
                   help="a mutant no case of its own area kills is tried on the whole suite")
    p.add_argument("--collateral", action="store_true",
                   help="run every mutant on the other cases of its area(s) too, to find "
                        "mutants that break more than their rule")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="case runs in parallel (default: number of CPUs)")
    p.add_argument("--timeout", type=float, default=20.0,
                   help="seconds per case run (default: 20)")
    p.add_argument("--out", default="out", help="output directory (default: ./out)")
    p.add_argument("--list", action="store_true",
                   help="print the mutants with their clauses and cases, run nothing")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary")
    from datcts import mutgen_run  # imports this module: not at the top
    mutgen_run.add_arguments(p)


# ---------------------------------------------------------------- the table

# The two subjects' switches: the provider's (libdaplref, core/mutants.c) and
# the registry's (libdat, libdat/dat_mutants.c).
VARIABLES = {"provider": "DATREF_MUTANT", "registry": "DATLIB_MUTANT"}
# A mutant of a clause about a provider that lacks a feature (its table
# entry's .variant) runs its cases under that conforming variant, and their
# baseline is the variant without the mutant: journal id "@<variant>",
# baseline key "<case id>@<variant>".
VARIANT_VAR = "DATREF_VARIANT"
VARIANT_BASELINE = "@"


def baseline_key(m: dict, cid: str) -> str:
    """The baseline a case of mutant m is judged against."""
    return f"{cid}{VARIANT_BASELINE}{m['variant']}" if m.get("variant") else cid


def baseline_of(m: dict, baseline: dict) -> dict:
    """case id -> baseline record, as mutant m's cases ran without it."""
    if not m.get("variant"):
        return baseline
    tail = VARIANT_BASELINE + m["variant"]
    return {k[:-len(tail)]: r for k, r in baseline.items() if k.endswith(tail)}


def baseline_task(key: str, case_by_id: dict) -> tuple:
    cid, _, variant = key.partition(VARIANT_BASELINE)
    return (VARIANT_BASELINE + variant if variant else None, case_by_id[cid])


def load_tables(root: Path) -> dict:
    """subject -> the mutant table (tests/mutants/hand/*.toml): {"subject",
    "variable", "mutants": [{"id", "clauses", "what", "quick", "survives",
    "variant", "subject", "variable"}]}."""
    from datcts import handmut
    try:
        return handmut.table(root)
    except handmut.HandError as e:
        raise MutateError(str(e)) from e


def registry_tables(tables: dict, dat: dict) -> tuple:
    """The registry's table when the case build loads datcts's libdat (the
    mutants are built into a copy of it), or (None, why not): OFA's libdat2
    is not ours to mutate."""
    reg = dat.get("registry") or {}
    if reg.get("name") != "libdat":
        return None, (f"the registry {reg.get('name') or '?'} ({reg.get('resolved') or reg.get('library')}) "
                      "has no mutants: only datcts's libdat is built with them")
    return tables["registry"], None


def load_catalog():
    try:
        from datcts_reports import DEFAULT_CATALOG
        from datcts_reports import catalog as catalog_mod
    except ImportError:  # pragma: no cover - bin/datcts puts reports/ on the path
        return None
    try:
        return catalog_mod.load(DEFAULT_CATALOG)
    except Exception:  # noqa: BLE001 - a broken catalog only loses the checks
        return None


def catalog_clauses(cat) -> dict:
    """clause id -> level."""
    if cat is None:
        return {}
    return {cid: c.level for cid, c in cat.clauses.items()}


def catalog_subjects(cat) -> dict:
    """clause id -> subject (provider | registry)."""
    if cat is None:
        return {}
    return {cid: getattr(c, "subject", "provider") for cid, c in cat.clauses.items()}


# ---------------------------------------------------------------- planning

def own_cases(mutant: dict, cases: list) -> list:
    want = set(mutant["clauses"])
    return [c for c in cases if want.intersection(c.clauses)]


def area_cases(own: list, cases: list) -> list:
    areas = {c.area for c in own}
    ids = {c.id for c in own}
    return [c for c in cases if c.area in areas and c.id not in ids]


def select(mutants: list, globs: list, quick: bool) -> list:
    out = []
    for m in mutants:
        if quick and not m.get("quick"):
            continue
        if globs and not any(fnmatch.fnmatchcase(m["id"], g) for g in globs):
            continue
        out.append(m)
    return out


# ---------------------------------------------------------------- execution

class Executor:
    """Runs (mutant, case) pairs on a pool; mutant None is the baseline.
    Each finished run is appended to the journal."""

    def __init__(self, env: dict, timeout: float, jobs: int, journal: Path, quiet: bool,
                 variables: dict | None = None, variants: dict | None = None):
        self.env = env
        self.variables = variables or {}   # mutant id -> its environment variable
        self.variants = variants or {}     # mutant id -> the variant its cases run under
        self.timeout = timeout
        self.jobs = jobs
        self.procs = ProcessTable()
        self.journal = journal.open("a", encoding="utf-8")
        self.lock = threading.Lock()
        self.quiet = quiet
        self.runs = 0
        self.busy_s = 0.0

    def _runner(self, mutant: str | None) -> Runner:
        return Runner(LocalLauncher(self.env_of(mutant)), self.timeout, self.procs)

    def env_of(self, mutant: str | None) -> dict:
        """The environment of a run of `mutant` (None: the baseline)."""
        env = dict(self.env)
        for var in VARIABLES.values():
            env.pop(var, None)
        if mutant and mutant.startswith(VARIANT_BASELINE):
            # the baseline of a variant mutant's cases: the variant alone
            env[VARIANT_VAR] = mutant[len(VARIANT_BASELINE):]
        elif mutant:
            env[self.variables.get(mutant, "DATREF_MUTANT")] = mutant
            if self.variants.get(mutant):
                env[VARIANT_VAR] = self.variants[mutant]
        return env

    def _unit(self, mutant: str | None, cases: list) -> list:
        """Records of `cases` under `mutant`: one case alone, several
        single-node cases of one binary through one supervisor
        (Runner.run_batch, as datcts run --batch)."""
        t0 = time.monotonic()
        runner = self._runner(mutant)
        if len(cases) == 1:
            got = {cases[0].id: runner.run(cases[0])}
        else:
            got = runner.run_batch(cases)
        dur = (time.monotonic() - t0) / len(cases)
        return [self._record(mutant, c, got.get(c.id), dur) for c in cases]

    def _record(self, mutant: str | None, case: Case, r: dict | None, dur: float) -> dict:
        if r is None:  # interrupted
            return None
        rec = {"mutant": mutant, "id": case.id, "state": r["state"],
               "message": r.get("message", ""), "duration_ms": r.get("duration_ms", 0.0),
               "file": r.get("file"), "line": r.get("line")}
        if r.get("clause_at"):  # DC_FOR_CLAUSE: whose check missed (_case_entry)
            rec["clause_at"] = r["clause_at"]
        with self.lock:
            self.runs += 1
            self.busy_s += dur
            self.journal.write(json.dumps(rec) + "\n")
            self.journal.flush()
        return rec

    def run(self, tasks: list) -> list:
        """tasks: [(mutant or None, Case)] -> records in the same order."""
        if not tasks:
            return []
        out = [None] * len(tasks)
        units: list = []   # [(mutant, [(index, case)])]
        for m, run in itertools.groupby(enumerate(tasks), key=lambda t: t[1][0]):
            run = [(i, c) for i, (_, c) in run]
            for unit in batched([c for _, c in run], {}, BATCH):
                units.append((m, run[:len(unit)]))
                run = run[len(unit):]
        with cf.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futs = {pool.submit(self._unit, m, [c for _, c in unit]): [i for i, _ in unit]
                    for m, unit in units}
            try:
                for f in cf.as_completed(futs):
                    for i, rec in zip(futs[f], f.result()):
                        out[i] = rec
            except KeyboardInterrupt:
                self.procs.stop_all()
                for f in futs:
                    f.cancel()
                raise
        return out

    def close(self):
        self.journal.close()


# ---------------------------------------------------------------- classification

def _case_entry(case: Case, rec: dict, baseline: dict, own: bool) -> dict:
    b = baseline.get(case.id)
    return {
        "id": case.id,
        "clauses": list(case.clauses),
        # the clauses its failure speaks for: all of the case's, or the one
        # whose check missed (DC_FOR_CLAUSE in a case of several clauses)
        "proves": [at] if (at := (rec.get("clause_at") or {}).get("clause")) else
                  list(case.clauses),
        "own": own,
        "state": rec["state"],
        "baseline": b["state"] if b else None,
        "message": rec["message"],
        "duration_ms": rec["duration_ms"],
    }


def classify(m: dict, own: list, own_recs: dict, other_recs: dict, baseline: dict,
             case_by_id: dict, levels: dict) -> dict:
    """Fills status, killers, reason of mutant record m."""
    def valid(cid):  # a case that passes (or does not apply) without the mutant
        b = baseline.get(cid)
        return b is not None and b["state"] in VALID_BASELINE

    entries = [_case_entry(c, own_recs[c.id], baseline, True) for c in own if c.id in own_recs]
    killers = [e for e in entries if e["state"] in KILL_STATES and valid(e["id"])]
    unresolved = [e for e in entries if e["state"] == "UNRESOLVED" and valid(e["id"])]
    others = []
    for cid, rec in other_recs.items():
        if rec["state"] in BAD_STATES and valid(cid):
            others.append(_case_entry(case_by_id[cid], rec, baseline, False))
    m["cases"] = entries + sorted(others, key=lambda e: e["id"])
    m["killed_by"] = [e["id"] for e in killers]
    # which of its clauses a failing case proves (a case may name several):
    # proof means FAIL, the case's own check; a CRASH or a TIMEOUT detects
    # the mutant but proves no clause (clauses_detected_only)
    fails = [e for e in killers if e["state"] == "FAIL"]
    m["clauses_killed"] = [c for c in m["clauses"]
                           if any(c in e["proves"] for e in fails)]
    m["clauses_detected_only"] = [c for c in m["clauses"]
                                  if c not in m["clauses_killed"] and
                                  any(c in e["clauses"] for e in killers)]
    m["kill_states"] = sorted({e["state"] for e in killers})
    m["other_failures"] = [e["id"] for e in others]
    m["others_run"] = len(other_recs)
    unknown = [c for c in m["clauses"] if levels and c not in levels]
    m["unknown_clauses"] = unknown
    invalid = [e["id"] for e in entries if not valid(e["id"])]
    m["baseline_not_passing"] = invalid
    if not own:
        m["status"] = "no-case"
        m["reason"] = m.get("survives") or (
            "missing case: no case names " + ", ".join(m["clauses"]))
    elif killers:
        m["status"] = "killed"
        m["reason"] = None
    elif others or unresolved:
        m["status"] = "killed-other"
        m["other_failures"] = [e["id"] for e in unresolved] + m["other_failures"]
        why = []
        if unresolved:
            why.append("its own case(s) " + ", ".join(e["id"] for e in unresolved) +
                       " ended UNRESOLVED (a set-up step noticed, not the clause's check)")
        if others:
            why.append("only cases of other clauses fail: " +
                       ", ".join(e["id"] for e in others[:4]) +
                       (f" (+{len(others) - 4})" if len(others) > 4 else ""))
        m["reason"] = m.get("survives") or ("weak case: " + "; ".join(why))
    else:
        m["status"] = "survived"
        if m.get("survives"):
            m["reason"] = m["survives"]
        elif invalid and len(invalid) == len(entries):
            m["reason"] = "its cases do not pass without the mutant: " + ", ".join(invalid)
        else:
            m["reason"] = ("missing or weak case: " + ", ".join(e["id"] for e in entries) +
                           " pass with the mutant on")
    return m


# ---------------------------------------------------------------- the command

def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _say(args, msg: str) -> None:
    if not args.quiet:
        print(msg, file=sys.stderr, flush=True)


def _line(m: dict) -> str:
    st = m["status"]
    if st == "killed":
        how = ", ".join(f"{cid}" for cid in m["killed_by"][:2])
        if len(m["killed_by"]) > 2:
            how += f" (+{len(m['killed_by']) - 2})"
        return f"killed        {m['id']:<44} by {how} [{'/'.join(m['kill_states'])}]"
    return f"{st.upper():<13} {m['id']:<44} {m.get('reason') or ''}"


def cmd_mutate(args, cases_dir_for) -> int:
    """cases_dir_for(api): the case build for the IA's DAT API (cli._cases_dir)."""
    from datcts_reports import runmeta
    from datcts import mutgen_run  # imports this module: not at the top
    if getattr(args, "generated", False):
        return mutgen_run.cmd_generated(args, cases_dir_for)
    mutgen_run.refuse_generated_options(args)

    build_dir = Path(args.build_dir).resolve()
    out_dir = Path(args.out).resolve()
    if args.jobs < 1:
        raise MutateError("--jobs must be at least 1")
    if args.timeout <= 0:
        raise MutateError("--timeout must be positive")
    out_dir.mkdir(parents=True, exist_ok=True)
    setup = resolve(build_dir=build_dir, out_dir=out_dir, ia=args.ia, dat_conf=args.dat_conf,
                    provider=None, instance_data=None)
    api = getattr(setup, "api", "1.2")
    cases_dir = cases_dir_for(api)
    if not find_binaries(cases_dir):
        raise MutateError(f"no datcts-cases-* binaries in {cases_dir} (build the project, "
                          "or pass --build-dir/--cases-dir)")
    env = setup.env()
    for var in VARIABLES.values():
        env.pop(var, None)
    root = Path(args.source_dir).resolve() if getattr(args, "source_dir", None) else \
        mutgen_run.repo_root()
    tables = load_tables(root)
    table = tables["provider"]
    dat = runmeta.dat_fields(api, Path(cases_dir).resolve(), env)
    reg_table, reg_missing = registry_tables(tables, dat)
    catalog = load_catalog()
    levels = catalog_clauses(catalog)
    subjects = catalog_subjects(catalog)
    cases = discover(cases_dir, env)
    case_by_id = {c.id: c for c in cases}
    globs = split_multi(args.mutant)
    every = table["mutants"] + (reg_table["mutants"] if reg_table else [])
    clash = sorted({m["id"] for m in table["mutants"]} &
                   {m["id"] for m in (reg_table or {}).get("mutants", [])})
    if clash:
        raise MutateError("mutant ids in both the provider's and the registry's table: "
                          + ", ".join(clash))
    mutants = select(every, globs, args.quick)
    if not mutants:
        print("datcts: no mutant matches the selection", file=sys.stderr)
        return 5

    plan = {m["id"]: own_cases(m, cases) for m in mutants}
    if args.list:
        for m in mutants:
            flags = (" [quick]" if m.get("quick") else "") + \
                    (f" [survives: {m['survives']}]" if m.get("survives") else "") + \
                    (f" [variant: {m['variant']}]" if m.get("variant") else "")
            print(f"{m['id']} ({m['subject']}){flags}\n  breaks {' '.join(m['clauses'])}: "
                  f"{m['what']}")
            for c in plan[m["id"]]:
                print(f"    {c.id}")
            if not plan[m["id"]]:
                print("    (no case)")
        print(f"{len(mutants)} mutant(s)", file=sys.stderr)
        return 0

    # The libraries with the mutants in them: a copy of the sources with
    # every hand-written mutant applied (guarded, off unless named), built
    # once; the cases load them for the baseline and for every mutant.
    library, env, dat = hand_libraries(args, root, out_dir, setup, api, env,
                                       any(m["subject"] == "registry" for m in mutants),
                                       cases_dir, runmeta)

    # The provider must be the copy with the mutants, honouring the switch.
    first = next((m for m in mutants if m["subject"] == "provider"), None)
    if first:
        probe = runmeta.find_probe(build_dir, cases_dir, api)
        penv = dict(env, DATREF_MUTANT=first["id"])
        attrs, err = runmeta.probe_attributes(probe, setup.ia, penv)
        active = ((attrs or {}).get("provider") or {}).get("provider_specific_attr", {}) \
            .get("datcts.mutant") if attrs else None
        if active != first["id"]:
            raise MutateError(
                f"IA {setup.ia} does not honour DATREF_MUTANT (datcts.mutant is {active!r}"
                f"{'; ' + err if err else ''}): mutate needs the reference provider of this "
                "build")

    started = _now()
    t0 = time.monotonic()
    journal = out_dir / "mutants.jsonl"
    if journal.exists():
        journal.unlink()
    ex = Executor(env, args.timeout, args.jobs, journal, args.quiet,
                  {m["id"]: m["variable"] for m in mutants},
                  {m["id"]: m["variant"] for m in mutants if m.get("variant")})
    by_id = {m["id"]: m for m in mutants}

    def baseline_tasks(tasks):
        # the baselines the (mutant, case) tasks need and do not have yet
        keys = {baseline_key(by_id[mid], c.id) for mid, c in tasks} - set(baseline)
        return [baseline_task(k, case_by_id) for k in sorted(keys)]

    baseline: dict = {}
    own_recs = {m["id"]: {} for m in mutants}
    other_recs = {m["id"]: {} for m in mutants}
    _say(args, f"datcts mutate: {len(mutants)} mutant(s), "
               f"{sum(len(v) for v in plan.values())} case run(s) of their clauses, "
               f"--jobs {args.jobs}")
    try:
        # Phase 1: baseline of every case involved + each mutant's own cases.
        tasks = [(m["id"], c) for m in mutants for c in plan[m["id"]]]
        if args.collateral:
            for m in mutants:
                tasks += [(m["id"], c) for c in area_cases(plan[m["id"]], cases)]
        order = {cid: i for i, cid in enumerate(case_by_id)}
        tasks = sorted(baseline_tasks(tasks), key=lambda t: order[t[1].id]) + tasks
        _run_into(ex, tasks, baseline, plan, own_recs, other_recs)

        def not_killed():
            out = []
            for m in mutants:
                recs = own_recs[m["id"]]
                if not any(r["state"] in KILL_STATES and
                           baseline.get(baseline_key(m, cid), {}).get("state")
                           in VALID_BASELINE
                           for cid, r in recs.items()):
                    out.append(m)
            return out

        # Phase 2: the rest of the area(s) for the mutants not killed yet.
        if not args.collateral:
            todo = not_killed()
            tasks = []
            for m in todo:
                extra = area_cases(plan[m["id"]], cases) if plan[m["id"]] else \
                    _guess_area_cases(m, cases)
                tasks += [(m["id"], c) for c in extra]
            tasks = baseline_tasks(tasks) + tasks
            if todo:
                _say(args, f"datcts mutate: {len(todo)} not killed by their own clauses; "
                           f"trying the rest of their areas ({len(tasks)} runs)")
            _run_into(ex, tasks, baseline, plan, own_recs, other_recs)

        # Phase 3 (--full): the whole suite for the survivors.
        if args.full:
            todo = [m for m in not_killed()
                    if not any(r["state"] in BAD_STATES for r in other_recs[m["id"]].values())]
            tasks = []
            for m in todo:
                seen = {c.id for c in plan[m["id"]]} | set(other_recs[m["id"]])
                tasks += [(m["id"], c) for c in cases if c.id not in seen]
            tasks = baseline_tasks(tasks) + tasks
            if todo:
                _say(args, f"datcts mutate: {len(todo)} survivor(s) tried on the whole suite "
                           f"({len(tasks)} runs)")
            _run_into(ex, tasks, baseline, plan, own_recs, other_recs)
    except KeyboardInterrupt:
        ex.close()
        print("datcts mutate: interrupted", file=sys.stderr)
        return 130
    ex.close()
    elapsed = time.monotonic() - t0

    results = []
    for m in mutants:
        rec = {k: m.get(k) for k in ("id", "subject", "clauses", "what", "quick", "survives",
                                     "variant")}
        classify(rec, plan[m["id"]], own_recs[m["id"]], other_recs[m["id"]],
                 baseline_of(m, baseline), case_by_id, levels)
        results.append(rec)
        _say(args, _line(rec))

    doc = build_doc(args, results, baseline, table, setup, library, levels, started,
                    elapsed, ex, cases, runmeta, subjects=subjects, dat=dat,
                    reg_table=reg_table, reg_missing=reg_missing)
    write_outputs(out_dir, doc)
    if (out_dir / "results.json").is_file():
        # a run lives here: its HTML report gets the matrix too
        try:
            from datcts_reports import cli as reports_cli

            path, _ = reports_cli.write_run_report(out_dir / "results.json")
            print(f"datcts mutate: HTML report with the matrix: {path}", file=sys.stderr)
        except Exception as e:  # noqa: BLE001 - the matrix itself is written
            print(f"datcts mutate: warning: report.html not updated: {e}", file=sys.stderr)
    s = doc["summary"]
    print(f"datcts mutate: {s['mutants']} mutants: {s['killed']} killed by their own clause "
          f"({s['kill_rate_own']:.1%}), {s['killed_other']} only by another case, "
          f"{s['survived']} survived, {s['no_case']} without a case; "
          f"{ex.runs} runs in {elapsed:.0f} s", file=sys.stderr)
    for subj, p in doc["subjects"].items():
        print(f"datcts mutate: {subj} ({p['library'] or '?'}): {p['mutants']} mutants, "
              f"{p['killed']} killed by their own clause; shall clauses: {p['shall_clauses']}, "
              f"{p['shall_clauses_with_case']} with a case, {p['shall_clauses_proven']} of them "
              f"proven by a FAIL of their own case"
              + (f"; unproven: {', '.join(p['shall_unproven'][:8])}"
                 + (f" (+{len(p['shall_unproven']) - 8})" if len(p['shall_unproven']) > 8 else "")
                 if p["shall_unproven"] else ""), file=sys.stderr)
    for m in results:
        if m["status"] != "killed":
            print(f"datcts mutate: {m['status']}: {m['id']}: {m['reason']}", file=sys.stderr)
    for f in doc["baseline"]["flaky"]:
        print(f"datcts mutate: warning: {f['id']} failed without a mutant once ({f['first']}: "
              f"{f['message']}) and passed when run again: flaky", file=sys.stderr)
    for w in doc["warnings"]:
        print(f"datcts mutate: warning: {w}", file=sys.stderr)
    print(f"datcts mutate: kill matrix in {out_dir / 'mutants.json'} and "
          f"{out_dir / 'mutants.html'}", file=sys.stderr)
    bad = [m for m in results if m["status"] != "killed" and not m.get("survives")]
    return 1 if bad or doc["errors"] else 0


def hand_libraries(args, root: Path, out_dir: Path, setup, api: str, env: dict,
                   registry: bool, cases_dir, runmeta) -> tuple:
    """Builds the mutant copy (handmut.build) and points env at it: its
    provider through a dat.conf of its own (OUT/hand-dat.conf), its libdat
    (when a registry mutant runs) first on LD_LIBRARY_PATH; (the provider
    library, env, run.dat of the registry the cases then load)."""
    from datcts import handmut, mutgen_run
    from datcts.provider import write_dat_conf
    target = mutgen_run.TARGETS.get(api)
    if target is None:
        raise MutateError(f"no reference provider library for DAT {api}")
    log = out_dir / "hand-build.log"
    log.write_text("")
    _say(args, f"datcts mutate: building the hand-written mutants into a copy of the sources "
               f"({out_dir / 'hand-src'})")
    t0 = time.monotonic()
    try:
        lib_dir = handmut.build(root, out_dir, [target] + (["dat"] if registry else []),
                                args.jobs, log)
    except handmut.HandError as e:
        raise MutateError(str(e)) from e
    _say(args, f"datcts mutate: mutant build done ({time.monotonic() - t0:.0f} s)")
    library = str(lib_dir / f"lib{target}.so")
    conf = out_dir / "hand-dat.conf"
    write_dat_conf(conf, setup.ia, Path(library), setup.instance_data or "", api)
    env = dict(env, DAT_OVERRIDE=str(conf))
    if registry:
        env["LD_LIBRARY_PATH"] = str(lib_dir) + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    dat = runmeta.dat_fields(api, Path(cases_dir).resolve(), env)
    if registry and (dat.get("registry") or {}).get("name") == "libdat":
        # the case binaries' RUNPATH names the build's libdat; the loader
        # takes LD_LIBRARY_PATH's first, the copy's
        copy = lib_dir / "libdat.so.1"
        dat["registry"] = dict(dat["registry"], resolved=str(copy.resolve()),
                               sha256=runmeta.sha256_file(str(copy)))
    return library, env, dat


def _guess_area_cases(m: dict, cases: list) -> list:
    """Cases of the pages the mutant's clauses are on (no case names the
    clause itself)."""
    pages = {c.split(".", 1)[0] for c in m["clauses"]}
    areas = {c.area for c in cases if c.page in pages}
    return [c for c in cases if c.area in areas]


def _run_into(ex, tasks, baseline, plan, own_recs, other_recs) -> None:
    own_ids = {mid: {c.id for c in v} for mid, v in plan.items()}
    retry = []
    for (mid, case), rec in zip(tasks, ex.run(tasks)):
        if rec is None:
            raise KeyboardInterrupt
        if mid is None or mid.startswith(VARIANT_BASELINE):
            baseline[case.id + (mid or "")] = rec
            if rec["state"] not in VALID_BASELINE:
                retry.append((mid, case))
        elif case.id in own_ids[mid]:
            own_recs[mid][case.id] = rec
        else:
            other_recs[mid][case.id] = rec
    # A case that fails without any mutant gets one more baseline run: if
    # it passes then, it is flaky (recorded), and it still counts.
    for (mid, case), rec in zip(retry, ex.run(retry)):
        if rec is None:
            raise KeyboardInterrupt
        key = case.id + (mid or "")
        if rec["state"] in VALID_BASELINE:
            rec = dict(rec, flaky_first=baseline[key]["state"],
                       flaky_message=baseline[key]["message"])
        baseline[key] = rec


def subject_figures(results: list, levels: dict, subjects: dict, cases: list,
                    full_table: bool) -> dict:
    """Per subject: its mutants and the proof of its shall clauses.  A shall
    clause is proven when a mutant made one of the clause's own cases FAIL
    (docs/mutants.md, "Proof per subject").  `shall_unproven` lists the shall
    clauses that have a case but no such proof; it is a finding only for a
    run of the whole table (not --quick or -m)."""
    with_case = {c for case in cases for c in case.clauses}
    out = {}
    for subj in ("provider", "registry"):
        ms = [m for m in results if m.get("subject", "provider") == subj]
        shall = {c for c, lv in levels.items() if lv == "shall" and
                 subjects.get(c, "provider") == subj}
        named = {c for m in ms for c in m["clauses"]} & shall
        proven = {c for m in ms for c in m.get("clauses_killed", [])} & shall
        detected = {c for m in ms for c in m.get("clauses_detected_only", [])} & shall - proven
        out[subj] = {
            "mutants": len(ms),
            "killed": sum(1 for m in ms if m["status"] == "killed"),
            "killed_other": sum(1 for m in ms if m["status"] == "killed-other"),
            "survived": sum(1 for m in ms if m["status"] == "survived"),
            "no_case": sum(1 for m in ms if m["status"] == "no-case"),
            "equivalent": sum(1 for m in ms if m.get("survives") and m["status"] != "killed"),
            "shall_clauses": len(shall),
            "shall_clauses_with_case": len(shall & with_case),
            "shall_clauses_with_mutant": len(named),
            "shall_clauses_proven": len(proven),
            "shall_detected_not_failed": sorted(detected),
            "shall_unproven": sorted((shall & with_case) - proven) if full_table else [],
        }
    return out


def build_doc(args, results, baseline, table, setup, library, levels, started, elapsed,
              ex, cases, runmeta, subjects=None, dat=None, reg_table=None,
              reg_missing=None) -> dict:
    from datcts import __version__

    n = len(results)
    count = {s: sum(1 for m in results if m["status"] == s) for s in STATUSES}
    equivalent = [m for m in results if m.get("survives") and m["status"] != "killed"]
    stale = [m["id"] for m in results if m.get("survives") and m["status"] == "killed"]
    counted = n - len(equivalent)
    covered = sorted({c for m in results for c in m["clauses"]})
    proven = sorted({c for m in results for c in m.get("clauses_killed", [])})
    shall = sorted(c for c, lv in levels.items() if lv == "shall")
    warnings = [f"mutant {mid} is marked `survives` but was killed: drop the reason"
                for mid in stale]
    errors = []
    for m in results:
        if m["unknown_clauses"]:
            errors.append(f"mutant {m['id']} names clauses missing from the catalog: "
                          + ", ".join(m["unknown_clauses"]))
    for e in errors:
        warnings.append(e)
    rev, dirty = runmeta.git_revision()
    full_table = not args.quick and not split_multi(args.mutant)
    per_subject = subject_figures(results, levels, subjects or {}, cases, full_table)
    reg = (dat or {}).get("registry") or {}
    per_subject["provider"]["library"] = library
    per_subject["registry"]["library"] = reg.get("resolved") or reg.get("library")
    per_subject["registry"]["name"] = reg.get("name")
    per_subject["registry"]["version"] = reg.get("version")
    per_subject["registry"]["table"] = reg_table is not None
    if reg_missing:
        warnings.append(reg_missing)
    return {
        "schema": SCHEMA,
        "tool": {"name": "datcts", "version": __version__, "git_revision": rev,
                 "git_dirty": dirty},
        "run": {
            "argv": sys.argv[1:],
            "build_dir": str(Path(args.build_dir).resolve()),
            "ia": setup.ia,
            "dat_conf": str(setup.dat_conf),
            "library": library,
            "library_sha256": runmeta.sha256_file(library) if library else None,
            "registry_library": reg.get("resolved"),
            "registry_library_sha256": reg.get("sha256"),
            "mode": "quick" if args.quick else ("full" if args.full else "default"),
            "collateral": bool(args.collateral),
            "selection": split_multi(args.mutant),
            "jobs": args.jobs,
            "timeout_s": args.timeout,
            "started": started,
            "finished": _now(),
            "elapsed_s": round(elapsed, 1),
            "case_runs": ex.runs,
            "system": runmeta.system(),
        },
        "summary": {
            "mutants": n,
            "table_size": len(table["mutants"]),
            "killed": count["killed"],
            "killed_other": count["killed-other"],
            "survived": count["survived"],
            "no_case": count["no-case"],
            "equivalent": len(equivalent),
            "kill_rate_own": count["killed"] / n if n else 0.0,
            "kill_rate_any": (count["killed"] + count["killed-other"]) / n if n else 0.0,
            "kill_rate_own_excluding_equivalent":
                count["killed"] / counted if counted else 0.0,
            "clauses_with_mutant": len(covered),
            "clauses_proven": len(proven),
            "shall_clauses": len(shall),
            "shall_clauses_with_mutant": len(set(covered) & set(shall)),
            "shall_clauses_proven": len(set(proven) & set(shall)),
        },
        "subjects": per_subject,
        "clauses_unproven": [c for c in covered if c not in set(proven)],
        "baseline": {
            "cases": len(baseline),
            "not_passing": sorted(cid for cid, r in baseline.items()
                                  if r["state"] not in VALID_BASELINE),
            "unsupported": sorted(cid for cid, r in baseline.items()
                                  if r["state"] == "UNSUPPORTED"),
            "flaky": [{"id": cid, "first": r["flaky_first"], "message": r["flaky_message"]}
                      for cid, r in sorted(baseline.items()) if r.get("flaky_first")],
        },
        "warnings": warnings,
        "errors": errors,
        "mutants": results,
    }


def write_outputs(out_dir: Path, doc: dict) -> None:
    tmp = out_dir / "mutants.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    tmp.replace(out_dir / "mutants.json")
    try:
        html = render_html(doc)
    except Exception as e:  # noqa: BLE001 - the JSON is the source of truth
        print(f"datcts mutate: warning: no mutants.html: {e}", file=sys.stderr)
        return
    tmp = out_dir / "mutants.html.tmp"
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(out_dir / "mutants.html")


def render_html(doc: dict) -> str:
    """A standalone page with the kill matrix (the same section the run
    report shows when mutants.json sits next to results.json)."""
    import html as h

    s = doc["summary"]
    r = doc["run"]
    rows = []
    order = {"survived": 0, "no-case": 1, "killed-other": 2, "killed": 3}
    for m in sorted(doc["mutants"], key=lambda m: (order[m["status"]], m["id"])):
        by = ", ".join(m["killed_by"]) if m["status"] == "killed" else (m.get("reason") or "")
        rows.append(
            f"<tr class='{m['status']}'><td class='mono'>{h.escape(m['id'])}</td>"
            f"<td><b>{h.escape(m['status'])}</b>"
            f"{' ' + '/'.join(m['kill_states']) if m['kill_states'] else ''}</td>"
            f"<td class='mono small'>{'<br>'.join(h.escape(c) for c in m['clauses'])}</td>"
            f"<td>{h.escape(m['what'])}</td><td class='small'>{h.escape(by)}</td></tr>")
    unproven = ""
    if doc.get("clauses_unproven"):
        unproven = ("<p class='small'>Clauses a mutant names but no failing case proved: " +
                    ", ".join(f"<span class='mono'>{h.escape(c)}</span>"
                              for c in doc["clauses_unproven"]) + "</p>")
    subj_rows = []
    for subj, p in (doc.get("subjects") or {}).items():
        subj_rows.append(
            f"<tr><td><b>{h.escape(subj)}</b></td><td class='mono small'>{h.escape(str(p.get('library')))}</td>"
            f"<td>{p['mutants']}</td><td>{p['killed']}</td><td>{p['shall_clauses']}</td>"
            f"<td>{p['shall_clauses_with_case']}</td><td><b>{p['shall_clauses_proven']}</b></td>"
            f"<td class='mono small'>{h.escape(', '.join(p['shall_unproven'])) or '—'}</td></tr>")
    subjects = ("<h2>Proof per subject</h2><table><tr><th>Subject</th><th>Library</th><th>Mutants</th>"
                "<th>Killed by own clause</th><th>Shall clauses</th><th>with a case</th>"
                "<th>proven by a FAIL of their own case</th><th>with a case, unproven</th></tr>"
                + "".join(subj_rows) + "</table>") if subj_rows else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>datcts mutation kill matrix</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }}
.mono {{ font-family: ui-monospace, monospace; }} .small {{ font-size: 12px; }}
tr.killed td:nth-child(2) {{ color: #2e7d32; }} tr.killed-other td:nth-child(2) {{ color: #ef6c00; }}
tr.survived td:nth-child(2), tr.no-case td:nth-child(2) {{ color: #d32f2f; }}
</style></head><body>
<h1>Mutation kill matrix</h1>
<p>{s['mutants']} mutants of the reference provider and the registry ({r['mode']} run, {r['elapsed_s']} s,
{r['case_runs']} case runs, --jobs {r['jobs']}):
<b>{s['killed']}</b> killed by a case of their own clause ({s['kill_rate_own']:.1%}),
{s['killed_other']} only by another clause's case, {s['survived']} survived,
{s['no_case']} without a case; {s['equivalent']} declared equivalent or unprovokable.
{s.get('shall_clauses_with_mutant', 0)} of {s['shall_clauses']} shall clauses have a mutant,
{s.get('shall_clauses_proven', 0)} of them proven able to fail (a case of the clause failed under one).</p>
{subjects}
{unproven}
<p class="small">Library <span class="mono">{h.escape(str(r['library']))}</span>
(sha256 <span class="mono">{h.escape(str(r['library_sha256']))}</span>), started {h.escape(r['started'])}.</p>
<table><tr><th>Mutant</th><th>Status</th><th>Clauses</th><th>What it breaks</th><th>Killed by / reason</th></tr>
{''.join(rows)}
</table></body></html>
"""
