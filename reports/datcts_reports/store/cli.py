"""`datcts store` (ingest, list, info, prune, recompute) and `datcts serve`.

The runner's CLI registers them with register(); `python3 -m
datcts_reports.store` offers the same commands on their own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from datcts_reports import ReportError
from datcts_reports.store import ingest as ingest_mod
from datcts_reports.store import queries
from datcts_reports.store.db import Store, StoreError, database_errors

EXIT_OK = 0
EXIT_USAGE = 2
COMMANDS = ("store", "serve")
STORE_ENV = "DATCTS_STORE"


def add_store_opt(p, *, suppress=False) -> None:
    p.add_argument("--store", metavar="URL",
                   default=argparse.SUPPRESS if suppress else None,
                   help="the store: a file path or sqlite:///PATH (SQLite), or "
                        f"postgresql://... (default: ${STORE_ENV})")


def register(sub) -> None:
    p = sub.add_parser("store", help="keep every run in a database (SQLite or PostgreSQL): "
                       "ingest, list, info, prune, recompute",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="actions:\n"
                       "  ingest [--catalog PATH] PATH...   run directories, results.json, bundles\n"
                       "  list [--provider KEY] [--host HOST] [--json]\n"
                       "  info [--json]                     schema version, runs, size\n"
                       "  prune --keep N                    older runs: clause outcomes only\n"
                       "  recompute                         outcomes again, by this datcts's rules\n"
                       "(docs/store.md)")
    add_store_opt(p)
    acts = p.add_subparsers(dest="store_cmd", required=True)
    a = acts.add_parser("ingest", help="store run directories, results.json files or bundles "
                        "(a bundle is verified first; a run already stored is left as it is)")
    add_store_opt(a, suppress=True)
    a.add_argument("paths", metavar="PATH", nargs="+")
    a.add_argument("--catalog", help="the clause catalog of run directories (default: the "
                   "suite's; a bundle carries its own)")
    a = acts.add_parser("list", help="the stored runs, newest first")
    add_store_opt(a, suppress=True)
    a.add_argument("--provider", help="only this provider (as listed: 'IA · library')")
    a.add_argument("--host", help="only runs on this host (hosts-file name or hostname)")
    a.add_argument("--json", action="store_true")
    a = acts.add_parser("info", help="schema version, runs, size (migrates an older store)")
    add_store_opt(a, suppress=True)
    a.add_argument("--json", action="store_true")
    a = acts.add_parser("prune", help="keep the last N runs of each provider in full, only the "
                        "clause outcomes of older ones")
    add_store_opt(a, suppress=True)
    a.add_argument("--keep", type=int, required=True, metavar="N")
    a = acts.add_parser("recompute", help="clause outcomes and verdicts of the runs held in "
                        "full, again, by this datcts's verdict rules")
    add_store_opt(a, suppress=True)

    p = sub.add_parser("serve", help="a read-only web view of a store")
    add_store_opt(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8053,
                   help="port (default: 8053; 0 picks a free one)")


def store_url(args) -> str:
    url = getattr(args, "store", None) or os.environ.get(STORE_ENV)
    if not url:
        raise StoreError(f"no store: pass --store URL or set ${STORE_ENV}")
    return url


def print_ingested(got: ingest_mod.Ingested, stream=None) -> None:
    stream = stream or sys.stderr
    if got.new:
        print(f"datcts: stored {got.origin} as run {got.run_id} in {got.seconds:.2f} s",
              file=stream)
    else:
        print(f"datcts: {got.origin} is stored already (run {got.run_id}, results sha256 "
              f"{got.sha256[:12]}...)", file=stream)


def cmd_ingest(args) -> int:
    rc = EXIT_OK
    with Store(store_url(args)) as st:
        for path in args.paths:
            try:
                print_ingested(ingest_mod.ingest_path(st, path, args.catalog))
            except StoreError as e:
                # the others are still taken: one bad input loses nothing else
                print(f"datcts: error: {e}", file=sys.stderr)
                rc = EXIT_USAGE
    return rc


def _states(r: dict) -> str:
    return " ".join(f"{n} {s}" for s, n in r["states"].items() if n)


def cmd_list(args) -> int:
    with Store(store_url(args), readonly=True) as st:
        rs = queries.runs(st, args.provider, args.host)
    if args.json:
        json.dump(rs, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return EXIT_OK
    for r in rs:
        hosts = ",".join(h["hostname"] or h["name"] for h in r["hosts"])
        print(f"{r['id']:>5}  {r['started'] or '?':<25}  {r['provider_key']:<32}  {hosts:<20}  "
              f"{r['verdict']:<14}  {_states(r)}{'  (pruned)' if r['pruned'] else ''}")
    print(f"{len(rs)} run(s)", file=sys.stderr)
    return EXIT_OK


def cmd_info(args) -> int:
    with Store(store_url(args)) as st:
        s = queries.stats(st)
    if args.json:
        json.dump(s, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        per = f", {s['bytes'] / s['runs'] / 1024:.0f} KiB a run" if s["runs"] else ""
        print(f"{s['url']} ({s['kind']}): schema version {s['schema_version']} "
              f"(datcts {s['written_by']}); {s['runs']} runs of {s['providers']} providers "
              f"({s['full_runs']} in full, {s['pruned_runs']} pruned to their clause outcomes); "
              f"{s['case_results']} case results, {s['clause_outcomes']} clause outcomes; "
              f"{s['bytes'] / 1024:.0f} KiB{per}")
    return EXIT_OK


def cmd_prune(args) -> int:
    with Store(store_url(args)) as st:
        gone = ingest_mod.prune(st, args.keep)
    print(f"datcts: pruned {len(gone)} run(s) to their clause outcomes"
          + (f": {', '.join(map(str, gone))}" if gone else ""), file=sys.stderr)
    return EXIT_OK


def cmd_recompute(args) -> int:
    with Store(store_url(args)) as st:
        done, left = ingest_mod.recompute(st)
    print(f"datcts: recomputed the clause outcomes of {done} run(s) by this datcts's rules"
          + (f"; {left} pruned run(s) keep theirs" if left else ""), file=sys.stderr)
    return EXIT_OK


def cmd_serve(args) -> int:
    try:
        from werkzeug.serving import make_server

        from datcts_reports.store.web import create_app
    except ImportError as e:
        raise StoreError(f"datcts serve needs Flask ({e}; Debian: apt install python3-flask, "
                         "which tools/deps.sh installs)")

    url = store_url(args)
    Store(url, readonly=True).close()  # a missing or newer store: say so now, not per request
    server = make_server(args.host, args.port, create_app(url), threaded=True)
    # the bound port (--port 0 picks one): whoever started us reads it here
    print(f"datcts serve: http://{args.host}:{server.server_port}/ ({url})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def dispatch(args) -> int | None:
    """Runs a store command; None when args.cmd is not one of them."""
    try:
        if args.cmd == "serve":
            return cmd_serve(args)
        if args.cmd == "store":
            return {"ingest": cmd_ingest, "list": cmd_list, "info": cmd_info,
                    "prune": cmd_prune, "recompute": cmd_recompute}[args.store_cmd](args)
    except ReportError as e:
        print(f"datcts: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except database_errors() as e:
        print(f"datcts: error: the store {store_url(args)}: {str(e).strip()}", file=sys.stderr)
        return EXIT_USAGE
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="datcts-store", description="the datcts results store "
                                 "(also available as `datcts store` and `datcts serve`)")
    register(ap.add_subparsers(dest="cmd", required=True))
    try:
        return dispatch(ap.parse_args(argv))
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
