"""The report commands of `datcts`: report, diff, bundle, verify, coverage.

The runner's CLI (runners/datcts/cli.py) registers them with register();
`python3 -m datcts_reports` offers the same commands on their own (coverage
then needs --results or --cases-json instead of a build tree).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

from datcts_reports import DEFAULT_CATALOG, ReportError
from datcts_reports import catalog as catalog_mod
from datcts_reports.analysis import Analysis

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2


def _catalog_opt(p):
    p.add_argument("--catalog", help="clauses/ directory or catalog.json "
                   f"(default: {DEFAULT_CATALOG})")


def register(sub, *, with_build_opts=None) -> None:
    """Adds the report subcommands to an argparse subparsers object.
    with_build_opts(parser) adds the runner's --build-dir/--cases-dir to
    `coverage` so it can list the cases of a build."""
    p = sub.add_parser("report", help="write report.html (and verdict.json) for a run")
    p.add_argument("results", metavar="RESULTS", help="a run directory or its results.json")
    p.add_argument("-o", "--output", help="HTML file (default: report.html next to results.json)")
    _catalog_opt(p)

    p = sub.add_parser("diff", help="compare two runs; exit 1 on regressions")
    p.add_argument("old", metavar="OLD", help="the earlier run (directory or results.json)")
    p.add_argument("new", metavar="NEW", help="the later run")
    p.add_argument("--json", action="store_true", help="print datcts-diff/1 JSON")
    p.add_argument("--factor", type=float, default=2.0,
                   help="duration outlier: this many times slower/faster than the run-wide "
                        "median change (default: 2)")
    p.add_argument("--min-ms", type=float, default=50.0,
                   help="duration outlier: at least this many ms of change (default: 50)")
    p.add_argument("--limit", type=int, default=50, help="entries shown per section (default: 50)")
    _catalog_opt(p)

    p = sub.add_parser("bundle", help="pack a run into a verifiable tar.gz")
    p.add_argument("results", metavar="RESULTS", help="a run directory or its results.json")
    p.add_argument("-o", "--output", help="bundle file or directory (default: the run directory)")
    _catalog_opt(p)

    p = sub.add_parser("verify", help="check a bundle: hashes, and that its verdict follows from its results")
    p.add_argument("bundle", metavar="BUNDLE")
    p.add_argument("--manifest-sha256", help="the manifest fingerprint published with the bundle")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("coverage", help="clauses with no case, per page")
    src = p.add_argument_group("where the cases come from (default: the build's case binaries)")
    src.add_argument("--results", help="a run's results.json (its cases and its unselected ones)")
    src.add_argument("--cases-json", help="the output of `datcts list --json`")
    if with_build_opts:
        with_build_opts(p)
    p.add_argument("--page", action="append", help="only these pages (glob; repeat)")
    p.add_argument("--strict", action="store_true", help="exit 1 when a clause has no case")
    p.add_argument("--json", action="store_true")
    _catalog_opt(p)


def _catalog(args):
    return catalog_mod.load(args.catalog or DEFAULT_CATALOG)


def load_report_catalog(catalog=None):
    """The clause catalog a run's report needs, with the report's modules
    imported: `datcts run` calls it while the cases run, so that the report
    at the end only renders."""
    import datcts_reports.html  # noqa: F401  (imported now, not at the end)
    import datcts_reports.schema  # noqa: F401

    return catalog_mod.load(catalog or DEFAULT_CATALOG)


def write_run_report(results, output=None, catalog=None, loaded_catalog=None) -> tuple:
    """report.html and verdict.json for a run; returns (html path, verdict).
    loaded_catalog: the catalog load_report_catalog returned, if at hand."""
    from datcts_reports.html import write_report
    from datcts_reports.schema import load_results, results_path

    rpath = results_path(Path(results))
    doc = load_results(rpath)
    a = Analysis(loaded_catalog or catalog_mod.load(catalog or DEFAULT_CATALOG), doc)
    out = Path(output) if output else rpath.parent / "report.html"
    if out.is_dir():    # a folder: the report goes in it, as for a run
        out = out / "report.html"
    write_report(a, out, rpath)
    v = a.verdict()
    vpath = out.with_name("verdict.json")
    tmp = vpath.with_name(vpath.name + ".tmp")
    tmp.write_text(json.dumps(v, indent=1, ensure_ascii=False) + "\n")
    tmp.replace(vpath)
    return out.resolve(), v


def print_report_lines(path, v, stream=None) -> None:
    stream = stream or sys.stderr
    print(f"datcts: verdict {v['label']}: {v['explanation']}", file=stream)
    shall = v.get("shall") or {}
    if "judged" in shall and shall.get("not_demonstrated"):
        by = ", ".join(f"{side} {n}" for side, n in (shall.get("not_judged_by") or {}).items()
                       if n)
        print(f"datcts:   judged {shall['judged']} of {shall['total']} shall clauses; "
              f"not judged, by who could change that: {by}", file=stream)
    causes = v.get("blocking_causes") or []
    for g in causes[:5]:
        print(f"datcts:   {g['count']:>4} clause{'s' if g['count'] != 1 else ' '} "
              f"{'fail' if g['outcome'] == 'fails' else 'not demonstrated'}: {g['cause']}"
              + (f" [{g['side']}]" if g["side"] != "provider" else ""), file=stream)
    if len(causes) > 5:
        print(f"datcts:   ... {len(causes) - 5} more blocking causes in the report", file=stream)
    reg = (v.get("subjects") or {}).get("registry")
    if reg:
        print(f"datcts: registry {_registry_name(reg)}: {reg['label']}: {reg['explanation']}",
              file=stream)
    print(f"datcts: HTML report: {path}", file=stream)


def _registry_name(reg: dict) -> str:
    return reg["name"] + (f" {reg['version']}" if reg.get("version") else "")


def cmd_report(args) -> int:
    path, v = write_run_report(args.results, args.output, args.catalog)
    print_report_lines(path, v)
    return EXIT_OK


def cmd_diff(args) -> int:
    from datcts_reports import diff as diff_mod
    from datcts_reports.schema import load_results

    old, new = load_results(args.old), load_results(args.new)
    d = diff_mod.diff(old, new, factor=args.factor, min_ms=args.min_ms)
    verdicts = None
    try:
        cat = _catalog(args)
        verdicts = (Analysis(cat, old).verdict(), Analysis(cat, new).verdict())
        d["verdict"] = {"old": verdicts[0]["verdict"], "new": verdicts[1]["verdict"]}
        # per subject (datcts-verdict/2): the provider's is the one above
        d["verdicts"] = {subj: {"old": verdicts[0]["subjects"][subj]["verdict"],
                                "new": verdicts[1]["subjects"][subj]["verdict"]}
                         for subj in verdicts[1]["subjects"]}
        d["blocking_causes"] = diff_mod.cause_changes(*verdicts)
    except ReportError as e:
        if args.catalog:
            raise
        d["notes"].append(f"no verdicts: {e}")
    sys.stdout.write(diff_mod.format_json(d) if args.json
                     else diff_mod.format_text(d, verdicts, args.limit))
    return EXIT_FAILURES if d["regressions"] else EXIT_OK


def cmd_bundle(args) -> int:
    from datcts_reports.bundle import build

    path, msha, v = build(args.results, args.output, args.catalog)
    print(f"datcts: verdict {v['label']}: {v['explanation']}", file=sys.stderr)
    reg = (v.get("subjects") or {}).get("registry")
    if reg:
        print(f"datcts: registry {_registry_name(reg)}: {reg['label']}: {reg['explanation']}",
              file=sys.stderr)
    print(f"datcts: bundle {path.resolve()}", file=sys.stderr)
    print(f"datcts: manifest sha256 {msha} (publish it; check with "
          f"`datcts verify --manifest-sha256 {msha[:12]}... BUNDLE`)", file=sys.stderr)
    print(path.resolve())
    return EXIT_OK


def cmd_verify(args) -> int:
    from datcts_reports.bundle import verify

    v = verify(args.bundle, args.manifest_sha256)
    if args.json:
        json.dump({"bundle": v.path, "ok": v.ok, "problems": v.problems,
                   "manifest_sha256": v.manifest_sha256, "files": v.files,
                   "verdict": v.verdict and v.verdict["verdict"],
                   "verdict_schema": v.verdict and v.verdict["schema"],
                   "registry_verdict": v.verdict and (v.verdict.get("subjects") or {})
                   .get("registry", {}).get("verdict")}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif v.ok:
        print(f"datcts verify: OK: {v.files} files match the manifest, and the verdict "
              f"{v.verdict['label']} ({v.verdict['explanation']}) follows from results.json "
              f"and catalog.json")
        reg = (v.verdict.get("subjects") or {}).get("registry")
        if reg:
            print(f"datcts verify: so does the registry's ({_registry_name(reg)}): "
                  f"{reg['label']} ({reg['explanation']})")
        print(f"datcts verify: manifest sha256 {v.manifest_sha256}")
    else:
        print(f"datcts verify: FAILED: {args.bundle}", file=sys.stderr)
        for p in v.problems:
            print(f"  {p}", file=sys.stderr)
    return EXIT_OK if v.ok else EXIT_FAILURES


def cmd_coverage(args, discover=None) -> int:
    from datcts_reports.schema import load_results

    cat = _catalog(args)
    doc = None
    known = []
    if args.results:
        doc = load_results(args.results)
    elif args.cases_json:
        try:
            known = json.loads(Path(args.cases_json).read_text())
        except (OSError, ValueError) as e:
            raise ReportError(f"{args.cases_json}: {e}")
    elif discover:
        known = discover(args)
    else:
        raise ReportError("coverage needs --results RUN or --cases-json FILE")
    cov = Analysis(cat, doc, known).coverage()
    if args.page:
        cov["pages"] = [p for p in cov["pages"]
                        if any(fnmatch.fnmatchcase(p["page"], g) for g in args.page)]
        cov["clauses"] = sum(p["clauses"] for p in cov["pages"])
        cov["covered"] = sum(p["covered"] for p in cov["pages"])
        cov["uncovered"] = cov["clauses"] - cov["covered"]
    if args.json:
        json.dump(cov, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for p in cov["pages"]:
            if not p["uncovered"]:
                continue
            print(f"{p['page']}: {len(p['uncovered'])} of {p['clauses']} clauses have no case")
            for c in p["uncovered"]:
                print(f"  {c['level']:<6} {c['id']}")
        hooks = cov["needs_test_hook"]
        if hooks:
            print(f"needs a test hook: {len(hooks)} clauses have a case that needs something "
                  "only the suite's reference provider has (third-party runs leave them "
                  "not demonstrated)")
            for c in hooks:
                what = sorted({n for k in c["cases"] for n in k["needs"]})
                print(f"  {c['level']:<6} {c['id']}  ({', '.join(what)})")
        for ref in cov["unknown_clause_refs"]:
            print(f"warning: case {ref['case']} names {ref['clause']}, which is not in the catalog",
                  file=sys.stderr)
        pct = 100.0 * cov["covered"] / cov["clauses"] if cov["clauses"] else 100.0
        print(f"coverage: {cov['covered']} of {cov['clauses']} clauses have a case ({pct:.1f}%); "
              f"{cov['uncovered']} have none", file=sys.stderr)
    return EXIT_FAILURES if args.strict and cov["uncovered"] else EXIT_OK


def dispatch(args, *, discover=None) -> int | None:
    """Runs a report command; None when args.cmd is not one of them."""
    try:
        if args.cmd == "report":
            return cmd_report(args)
        if args.cmd == "diff":
            return cmd_diff(args)
        if args.cmd == "bundle":
            return cmd_bundle(args)
        if args.cmd == "verify":
            return cmd_verify(args)
        if args.cmd == "coverage":
            return cmd_coverage(args, discover)
    except ReportError as e:
        print(f"datcts: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    return None


COMMANDS = ("report", "diff", "bundle", "verify", "coverage")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="datcts-reports",
                                 description="datcts report tools (also available as `datcts CMD`)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    register(sub)
    args = ap.parse_args(argv)
    try:
        return dispatch(args)
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
