"""The datcts command line: list, run, bench-overhead; and the report tools
of reports/datcts_reports: report, diff, bundle, verify, coverage, and the
results store: store, serve."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import signal
import sys
import tempfile
from pathlib import Path

try:
    import datcts_reports  # noqa: F401  (bin/datcts puts reports/ on the path)
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reports"))

from datcts_reports import ReportError, runmeta
from datcts_reports import cli as reports_cli
from datcts_reports.store import cli as store_cli

from datcts import __version__
from datcts import bench_instructions, bench_transport
from datcts import hosts as multihost
from datcts import layout
from datcts import fuzz, mutate, slurm, variants
from datcts.discovery import (DiscoveryError, Filters, discover, find_binaries, parse_shard,
                              split_multi)
from datcts.execute import LocalLauncher, ProcessTable, Runner
from datcts.provider import ProviderError, resolve
from datcts.waivers import ExpectationsError, load as load_waivers

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_NOTHING_SELECTED = 5


class UsageError(Exception):
    pass


def _add_build_opts(p):
    if layout.INSTALLED:
        p.add_argument("--build-dir", default=layout.default_build_dir(),
                       help="build tree with cases/ and dat.conf (default: the installed "
                            f"suite, {layout.default_build_dir()})")
    else:
        p.add_argument("--build-dir", default="build",
                       help="build tree with cases/ and dat.conf (default: ./build)")
    p.add_argument("--cases-dir",
                   help="where the datcts-cases-* binaries are (default: BUILD/cases)")


def _add_provider_opts(p):
    g = p.add_argument_group("provider under test")
    g.add_argument("--ia", help="IA name in dat.conf (default: $DATCTS_IA, else the first default entry)")
    g.add_argument("--dat-conf", help="dat.conf to use (default: $DAT_OVERRIDE, else BUILD/dat.conf, "
                   "else /etc/dat.conf" + (", else the installed reference provider's"
                                           if layout.INSTALLED else "") + ")")
    g.add_argument("--provider", help="path to a provider library; the runner writes a dat.conf for it")
    g.add_argument("--instance-data", help="instance data for --provider's dat.conf entry")


def _add_filter_opts(p):
    g = p.add_argument_group("selection (globs; AND across options, OR within one)")
    g.add_argument("--area", action="append", help="area, e.g. srq (repeat or comma-separate)")
    g.add_argument("--page", action="append", help="man page, e.g. dat_srq_resize")
    g.add_argument("--clause", action="append", help="clause id")
    g.add_argument("-k", dest="globs", action="append", help="case id glob, e.g. 'dat_srq_*' (repeat or comma-separate)")
    g.add_argument("--shard", metavar="I/N",
                   help="only shard I of N (0-based): the cases whose id hashes to I; "
                        "the N shards of a selection are disjoint and cover it")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="datcts",
                                 description="uDAPL (DAT 1.2) conformance test suite runner")
    ap.add_argument("--version", action="version", version=f"datcts {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("list", help="list the cases")
    _add_build_opts(p)
    _add_filter_opts(p)
    p.add_argument("--json", action="store_true", help="print a JSON array")

    p = sub.add_parser("run", help="run the cases")
    _add_build_opts(p)
    _add_provider_opts(p)
    _add_filter_opts(p)
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="cases run in parallel (default: number of CPUs)")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds per case (default: 30)")
    p.add_argument("--batch", type=int, default=8, metavar="N",
                   help="short single-node cases of one binary started N at a time by one "
                        "supervisor, which still forks each alone (default: 8; 1: one "
                        "supervisor per case)")
    p.add_argument("--out", default="out", help="output directory (default: ./out)")
    p.add_argument("--resume", action="store_true",
                   help="keep the results in OUT/results.jsonl and run only the rest")
    p.add_argument("--expectations", help="TOML file of waivers")
    p.add_argument("--watch-kernel-log", action="store_true",
                   help="read /dev/kmsg while the cases run: a case that fails while the "
                        "kernel faults leaves its clause not demonstrated, the device's fault")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="without a terminal: print only failures")
    p.add_argument("--store", metavar="URL",
                   help="when the run completes, store it (datcts store ingest): a file path, "
                        "sqlite:///PATH or postgresql://...")
    multihost.add_options(p)
    slurm.add_options(p)

    p = sub.add_parser("bench-overhead",
                       help="measure the per-case overhead (process, IA open, teardown)")
    _add_build_opts(p)
    _add_provider_opts(p)
    p.add_argument("--jobs", "-j", type=int, default=2)
    p.add_argument("--count", type=int, default=200, help="runs of each kind (default: 200)")
    p.add_argument("--batch", type=int, default=8, metavar="N",
                   help="also the single-node case N at a time through one supervisor, as "
                        "datcts run --batch (default: 8; 1: not)")
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--connect", action="store_true",
                   help="also time a two-node case that makes a real connection")
    p.add_argument("--json", action="store_true")

    bench_transport.add_parser(sub, _add_build_opts)
    bench_instructions.add_parser(sub, _add_build_opts)

    reports_cli.register(sub, with_build_opts=_add_build_opts)
    store_cli.register(sub)
    mutate.add_parser(sub, _add_build_opts)
    variants.add_parser(sub, _add_build_opts)
    fuzz.add_parser(sub)
    return ap


def _filters(args) -> Filters:
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as e:
        raise UsageError(str(e)) from None
    return Filters(
        areas=split_multi(args.area),
        pages=split_multi(args.page),
        clauses=split_multi(args.clause),
        globs=split_multi(args.globs),
        shard=shard,
    )


def _cases_dir(args, api: str = "1.2") -> Path:
    """--cases-dir, else the build's case binaries for the IA's DAT API:
    BUILD/cases (DAT 1.2, libdat) or BUILD/cases2 (DAT 2.0, libdat2)."""
    if args.cases_dir:
        return Path(args.cases_dir)
    return Path(args.build_dir) / ("cases2" if api == "2.0" else "cases")


def _discover(cases_dir: Path, env=None):
    if not find_binaries(cases_dir):
        raise UsageError(f"no datcts-cases-* binaries in {cases_dir} "
                         "(build the project, or pass --build-dir/--cases-dir)")
    return discover(cases_dir, env)


def cmd_list(args) -> int:
    cases = [c for c in _discover(_cases_dir(args)) if _filters(args).match(c)]
    if args.json:
        json.dump([c.listing() for c in cases], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for c in cases:
            flags = []
            if c.two_node:
                flags.append("two-node")
            if c.requires:
                flags.append("requires " + " ".join(c.requires))
            extra = f"  [{'; '.join(flags)}]" if flags else ""
            print(f"{c.id:<50} {c.area:<10} {c.summary}{extra}")
        print(f"{len(cases)} case(s)", file=sys.stderr)
    return EXIT_OK if cases else EXIT_NOTHING_SELECTED


def _run_pytest(session, out_dir: Path) -> int:
    import pytest

    from datcts.plugin import DatctsPlugin

    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    with tempfile.TemporaryDirectory(prefix="datcts-pytest-") as tmp:
        tmp = Path(tmp)
        ini = tmp / "pytest.ini"
        ini.write_text("[pytest]\n")
        sentinel = tmp / "datcts"
        sentinel.write_text("")
        plugin = DatctsPlugin(session, sentinel)
        args = [
            str(sentinel), "-c", str(ini), "--rootdir", str(tmp),
            "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:warnings",
            "-p", "no:stepwise", "-p", "no:doctest", "-p", "no:pastebin",
            # per-item hook wrappers the cases never need (the case output
            # is the binary's, not Python logging): a run's fixed cost
            "-p", "no:logging", "-p", "no:unraisableexception", "-p", "no:threadexception",
            "-s",
            "--junitxml", str(out_dir / "junit.xml"),
            "-o", "junit_family=xunit1", "-o", "junit_suite_name=datcts",
            "-o", "junit_logging=no", "-o", "junit_duration_report=call",
        ]
        return int(pytest.main(args, plugins=[plugin]))


def _check_resume_provider(out_dir: Path, setup) -> None:
    """--resume must not mix the results of two providers."""
    try:
        prev = json.loads((out_dir / "results.json").read_text())["run"]["provider"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    now = setup.describe()
    for k in ("ia", "library"):
        if prev.get(k) != now.get(k):
            raise UsageError(
                f"{out_dir} holds results for {k} {prev.get(k)!r}, this run is for "
                f"{now.get(k)!r}: use another --out, or run without --resume")


def cmd_run(args) -> int:
    build_dir = Path(args.build_dir).resolve()
    out_dir = Path(args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if getattr(args, "batch", 1) < 1:
        raise UsageError("--batch must be 1 or more")
    warnings: list = []
    waivers, expired = {}, {}
    if args.expectations:
        waivers, expired, w = load_waivers(Path(args.expectations))
        warnings += w
    # --hosts: every host fingerprinted, its provider from the hosts file;
    # --slurm: every node of an allocation, likewise (released at the end)
    hostrun = (slurm.from_args(args, build_dir, _cases_dir(args), out_dir)
               or multihost.from_args(args, build_dir, _cases_dir(args), out_dir))
    try:
        return _run_with(args, hostrun, build_dir, out_dir, warnings, waivers, expired)
    finally:
        if isinstance(hostrun, slurm.SlurmRun):
            hostrun.release()


def _run_with(args, hostrun, build_dir, out_dir, warnings, waivers, expired) -> int:
    from datcts.session import Progress, RunSession

    setup = hostrun.setup if hostrun else resolve(
        build_dir=build_dir, out_dir=out_dir, ia=args.ia, dat_conf=args.dat_conf,
        provider=args.provider, instance_data=args.instance_data)
    api = getattr(setup, "api", "1.2")
    cases_dir = _cases_dir(args, api)
    if not find_binaries(cases_dir):
        raise UsageError(f"no datcts-cases-* binaries in {cases_dir} "
                         + ("(the IA is DAT 2.0: build with libdapl-dev installed, "
                            "-DDATCTS_DAT2=ON, or pass --cases-dir)" if api == "2.0" else
                            "(build the project, or pass --build-dir/--cases-dir)"))
    if args.resume:
        _check_resume_provider(out_dir, setup)
    env = setup.env()
    all_cases = _discover(cases_dir, env)
    filters = _filters(args)
    cases = [c for c in all_cases if filters.match(c)]
    known = {c.id for c in all_cases}
    for w in sorted({**waivers, **expired}.values(), key=lambda w: w.id):
        if not any(w.names(k) for k in known):
            warnings.append(f"waiver for {w.id}: no such case")
    for w in warnings:
        print(f"datcts: warning: {w}", file=sys.stderr)
    if not cases:
        print("datcts: no case matches the selection", file=sys.stderr)
        return EXIT_NOTHING_SELECTED

    procs = ProcessTable()
    runner = (hostrun.make_runner(args.timeout, procs) if hostrun
              else Runner(LocalLauncher(env), args.timeout, procs))
    progress = Progress(len(cases), quiet=args.quiet)
    # Run metadata (docs/results-format.md): the provider's dat.conf line,
    # library sha256 and dat_ia_query attributes, the host, datcts's revision.
    provider = hostrun.provider() if hostrun else runmeta.provider_fields(
        setup.describe(), env, build_dir, cases_dir.resolve(), api=api)
    if provider["attributes_error"]:
        print(f"datcts: warning: no provider attributes: {provider['attributes_error']}",
              file=sys.stderr)
    rev, dirty = runmeta.git_revision()
    selected = {c.id for c in cases}
    meta = {
        "argv": sys.argv[1:],
        "build_dir": str(build_dir),
        "cases_dir": str(cases_dir.resolve()),
        "provider": provider,
        "dat": runmeta.dat_fields(api, cases_dir.resolve(), env),
        "jobs": args.jobs,
        "timeout_s": args.timeout,
        "filters": filters.describe(),
        "expectations": str(Path(args.expectations).resolve()) if args.expectations else None,
        "resume": bool(args.resume),
        "system": runmeta.system(),
        "not_selected": [{"id": c.id, "page": c.page, "clauses": list(c.clauses),
                          **({"needs": list(c.needs)} if c.needs else {})}
                         for c in all_cases if c.id not in selected],
    }
    kernel_log = None
    if args.watch_kernel_log:
        from datcts.kernel_log import KMSG, KernelLog
        kernel_log = KernelLog(os.environ.get("DATCTS_KMSG") or KMSG)
        why = kernel_log.start()
        if why:
            raise UsageError(f"--watch-kernel-log: {why} (run as root, or without the option)")
        meta["kernel_log"] = kernel_log.path
    if hostrun:
        meta["hosts"] = hostrun.meta()  # fingerprints; kept current (deaths)
    if isinstance(hostrun, slurm.SlurmRun):
        meta["cluster"] = hostrun.cluster_meta()
    session = RunSession(cases=cases, runner=runner, jobs=args.jobs, out_dir=out_dir,
                         resume=args.resume, waivers=waivers, meta=meta,
                         progress=progress, warnings=warnings,
                         tool={"git_revision": rev, "git_dirty": dirty},
                         kernel_log=kernel_log, batch=getattr(args, "batch", 1))
    got_signal = {"n": None}

    def on_term(signum, frame):
        got_signal["n"] = signum
        raise KeyboardInterrupt

    old_term = signal.signal(signal.SIGTERM, on_term)
    interrupted = False
    # The report's catalog loads while the cases run (a run's fixed cost).
    preload = cf.ThreadPoolExecutor(max_workers=1)
    catalog_future = preload.submit(reports_cli.load_report_catalog)
    preload.shutdown(wait=False)
    try:
        rc = _run_pytest(session, out_dir)
        interrupted = rc == 2 or session.interrupted
    except KeyboardInterrupt:
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, old_term)
        if interrupted or session.interrupted:
            session.stop()
        session.close()
    s = session.summary()
    st = s["states"]
    line = (f"datcts: {st['PASS']} passed, {st['FAIL']} failed, {st['CRASH']} crashed, "
            f"{st['TIMEOUT']} timed out, {st['UNRESOLVED']} unresolved, "
            f"{st['UNSUPPORTED']} unsupported")
    if s["waived"] or s["waived_but_passing"]:
        line += f"; {s['waived']} waived, {s['waived_but_passing']} waived but passing"
    if s["resumed"]:
        line += f"; {s['resumed']} resumed"
    if s["not_run"]:
        line += f"; {s['not_run']} not run"
    print(line, file=sys.stderr)
    for hl in hostrun.report_lines() if hostrun else ():
        print(f"datcts: {hl}", file=sys.stderr)
    print(f"datcts: results in {out_dir / 'results.json'} and {out_dir / 'junit.xml'}",
          file=sys.stderr)
    if interrupted or session.interrupted:
        print("datcts: interrupted; run again with --resume to finish", file=sys.stderr)
        rc = 128 + (got_signal["n"] or signal.SIGINT)
    else:
        rc = session.exit_code()
    # Every run ends with its HTML report (an interrupted one too); the
    # report's path is the last line.
    try:
        try:
            loaded = catalog_future.result()
        except Exception:  # loaded again below, where its error is reported
            loaded = None
        path, verdict = reports_cli.write_run_report(out_dir / "results.json",
                                                     loaded_catalog=loaded)
    except (ReportError, OSError) as e:
        print(f"datcts: error: no HTML report: {e}", file=sys.stderr)
        return rc or EXIT_USAGE
    # --store: every host's and every Slurm node's results are in this one
    # results.json by now, so one ingest covers them all
    if args.store and not (interrupted or session.interrupted):
        if not _store_run(args.store, out_dir):
            rc = rc or EXIT_USAGE
    elif args.store:
        print("datcts: not stored: the run was interrupted (run again with --resume; the "
              "completed run is stored)", file=sys.stderr)
    reports_cli.print_report_lines(path, verdict)
    return rc


def _store_run(url: str, out_dir: Path) -> bool:
    """The run into the store; False (and why) when it could not be stored:
    the run itself is on disk either way, to store later."""
    from datcts_reports.store.db import Store, database_errors
    from datcts_reports.store.ingest import ingest_path

    try:
        with Store(url) as st:
            store_cli.print_ingested(ingest_path(st, out_dir))
        return True
    except (ReportError, *database_errors()) as e:
        print(f"datcts: error: not stored: {e} (store it later: datcts store --store URL "
              f"ingest {out_dir})", file=sys.stderr)
        return False


def _coverage_cases(args) -> list:
    return [c.listing() for c in _discover(_cases_dir(args))]


def cmd_bench(args) -> int:
    from datcts.bench import bench_overhead

    return bench_overhead(args)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.cmd == "list":
            return cmd_list(args)
        if args.cmd == "run":
            return cmd_run(args)
        if args.cmd == "bench-overhead":
            return cmd_bench(args)
        if args.cmd == "bench-transport":
            return bench_transport.bench_transport(args)
        if args.cmd == "bench-instructions":
            return bench_instructions.bench_instructions(args)
        if args.cmd == "variants":
            return variants.cmd_variants(args)
        if args.cmd == "fuzz":
            return fuzz.cmd_fuzz(args)
        if args.cmd == "mutate":
            return mutate.cmd_mutate(args, lambda api: _cases_dir(args, api))
        if args.cmd in reports_cli.COMMANDS:
            return reports_cli.dispatch(args, discover=_coverage_cases)
        if args.cmd in store_cli.COMMANDS:
            return store_cli.dispatch(args)
    except (UsageError, ProviderError, DiscoveryError, ExpectationsError,
            mutate.MutateError, fuzz.FuzzError, variants.VariantsError) as e:
        print(f"datcts: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
