#!/usr/bin/env python3
"""Writes the per-clause findings of certification runs as Markdown
(docs/certification/*-clauses.md): for every shall clause that fails on at
least one IA, what the page requires (the catalog's paraphrase, page and
section) and, per IA, what its case saw (state, the case's message, the
provider's or the harness's last output line), the case id being the
reproduction. Sorted by page; one table per page.

    tools/certification-findings.py [--title TEXT] RUN [...] > FILE.md
    tools/certification-findings.py --check RUN [...]
    tools/certification-findings.py --summary RUN [...]

--check prints only the failing provider clauses that map to no finding and exits 1 when
there are any (docs/clauses.md, "Failing clauses of a certification").
--summary prints the figures per IA (the generated section of the certification document):
the shall clauses by outcome, how many were judged, what was not by who could change it,
and the seed pages alone.

Each RUN is a `datcts run` output directory (results.json, verdict.json), as
tools/certify-ofa.sh leaves them, or a bundle (`datcts bundle`, *.tar.gz) holding them.
"""
import argparse
import json
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "reports"))
from datcts_reports.catalog import load_dir  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "ofa"))
from findings import load as findings_manifest  # noqa: E402
from findings import load_open  # noqa: E402

BAD = ("FAIL", "CRASH", "TIMEOUT")


def cell(text: str, limit: int = 240) -> str:
    text = " ".join(str(text or "").split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def last_output_line(r: dict) -> str:
    lines = [ln for ln in (r.get("output") or "").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def review_verdicts(folder: Path) -> dict:
    """clause id -> the review's "Verdict:" line (docs/certification/*/review/*.md)."""
    out, cid = {}, None
    for md in sorted(folder.glob("*.md")):
        for line in md.read_text().splitlines():
            if line.startswith("### "):
                cid = line[4:].strip()
            elif cid and line.startswith("- Verdict:"):
                out.setdefault(cid, line[len("- Verdict:"):].strip())
    return out


def unmapped_pairs(failing: dict, findings: dict) -> dict:
    """clause id -> the IAs where it fails and no finding naming it lists that IA (a finding
    proven on one IA does not account for the same clause failing on another)."""
    out = {}
    for cid, where in failing.items():
        shown = set().union(*(f["ias"] for f in findings.get(cid, [])))
        rest = sorted(ia for ia in where if ia not in shown)
        if rest:
            out[cid] = rest
    return out


def check(failing: dict, findings: dict, catalog) -> int:
    """docs/clauses.md, "Failing clauses of a certification": the provider's failing clauses
    that, on some IA, map to no finding shown there and are not named open (findings.toml
    [[open]]), one line each with those IAs; 1 when there is any. The open ones are listed
    too, as open."""
    is_registry = lambda cid: catalog.clauses.get(cid) and \
        catalog.clauses[cid].subject == "registry"   # noqa: E731
    opened = load_open()
    unmapped = {cid: ias for cid, ias in unmapped_pairs(failing, findings).items()
                if not is_registry(cid)}
    missing = [cid for cid in sorted(unmapped) if cid not in opened]
    for cid in missing:
        print(f"{cid}: {', '.join(unmapped[cid])}")
    for cid in sorted(unmapped):
        if cid in opened:
            print(f"open: {cid} ({', '.join(unmapped[cid])}): {opened[cid]}", file=sys.stderr)
    pairs = sum(len(w) for w in failing.values())
    print(f"{pairs - sum(len(w) for w in unmapped.values())} of {pairs} failing (clause, IA) "
          f"pairs map to a finding shown on that IA (registry clauses are the registry's); "
          f"{len(unmapped) - len(missing)} clauses are named open; {len(missing)} neither",
          file=sys.stderr)
    return 1 if missing else 0


# The seed pages (DESIGN.md): their SRQ clauses are the ones whose page is an SRQ page or
# whose gates name srq_supported.
SEED_PAGES = ("dat_srq_resize", "dat_srq_query", "dat_srq_post_recv", "dat_ep_recv_query",
              "dat_ep_modify")


def load_run(path: Path) -> tuple[str, dict, dict]:
    """(IA, results.json, verdict.json) of a run directory or a bundle."""
    if path.is_dir():
        res = json.loads((path / "results.json").read_text())
        ver = json.loads((path / "verdict.json").read_text())
        return path.name, res, ver
    with tarfile.open(path) as tar:
        docs = {}
        for m in tar.getmembers():
            name = m.name.rsplit("/", 1)[-1]
            if name in ("results.json", "verdict.json") and m.isfile():
                docs[name] = json.loads(tar.extractfile(m).read())
    res, ver = docs["results.json"], docs["verdict.json"]
    ia = (ver.get("run") or {}).get("ia") or path.name.split(".", 1)[0]
    return ia, res, ver


def summary(runs, catalog) -> str:
    """The figures per IA, and the seed pages alone."""
    out = ["| IA | verdict | shall | fail | contested | not demonstrated | hold | judged "
           "| not judged: provider / registry / suite / device | cases: PASS / UNSUPPORTED / "
           "FAIL / CRASH / TIMEOUT / UNRESOLVED | suite commit |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for ia, res, ver in runs:
        s = ver.get("shall", {})
        by = s.get("not_judged_by") or {}
        cs = ver.get("case_states") or {}
        out.append(
            f"| `{ia}` | {ver.get('label')} | {s.get('total')} | {s.get('fails')} | "
            f"{s.get('contested', 0)} | {s.get('not_demonstrated')} | {s.get('holds')} | "
            f"{s.get('judged', '—')} | " + " / ".join(str(by.get(k, 0)) for k in
                                                      ("provider", "registry", "suite", "device"))
            + " | " + " / ".join(str(cs.get(k, 0)) for k in
                                 ("PASS", "UNSUPPORTED", "FAIL", "CRASH", "TIMEOUT", "UNRESOLVED"))
            + f" | `{((res.get('tool') or {}).get('git_revision') or '?')[:10]}` |")
    seed = [c for c in catalog.clauses.values() if c.page in SEED_PAGES and c.level == "shall"]
    srq = {c.id for c in seed if c.page.startswith(("dat_srq_", "dat_ep_recv_query"))
           or "srq_supported" in (c.gates or [])}
    out += ["", f"The seed pages ({', '.join(SEED_PAGES)}): {len(seed)} shall clauses, "
            f"{len(srq)} of them about SRQs.", "",
            "| IA | seed: fail / contested / not demonstrated / hold | SRQ clauses: fail / "
            "contested / not demonstrated / hold | SRQ clauses not demonstrated |",
            "|---|---|---|---|"]
    for ia, res, ver in runs:
        outcome = {}
        for f in ver.get("failing_shall", []):
            outcome[f["clause"]] = "fails"
        for f in ver.get("contested_shall", []):
            outcome[f["clause"]] = "contested"
        for f in ver.get("not_demonstrated_shall", []):
            outcome[f["clause"]] = "nd"

        def tally(ids):
            n = [sum(1 for i in ids if outcome.get(i) == k) for k in ("fails", "contested", "nd")]
            return " / ".join(str(x) for x in n + [len(ids) - sum(n)])
        nd = sorted(i for i in srq if outcome.get(i) == "nd")
        out.append(f"| `{ia}` | {tally([c.id for c in seed])} | {tally(sorted(srq))} | "
                   + (", ".join(f"`{i}`" for i in nd) or "none") + " |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--title", default="Failing shall clauses, per IA")
    ap.add_argument("--check", action="store_true",
                    help="print only the failing provider clauses with no finding; exit 1 if any")
    ap.add_argument("--summary", action="store_true",
                    help="print the figures per IA and the seed pages' (Markdown)")
    ap.add_argument("runs", nargs="+", type=Path)
    args = ap.parse_args()
    repo = Path(__file__).resolve().parent.parent
    catalog = load_dir(repo / "clauses")
    runs = [load_run(d) for d in args.runs]
    if args.summary:
        sys.stdout.write(summary(runs, catalog))
        return 0

    failing = {}     # clause id -> {ia: [results, or charges {id, state, why}]}
    for ia, res, ver in runs:
        by_case = {r["id"]: r for r in res["results"]}
        for subject in ("provider", "registry"):
            block = ver.get("subjects", {}).get(subject, ver) if subject == "registry" else ver
            for f in block.get("failing_shall", []):
                failing.setdefault(f["clause"], {})[ia] = [
                    c if c.get("charged") else by_case[c["id"]] for c in f["cases"]
                    if c.get("charged") or c["id"] in by_case]
    # the findings with a reproducer (tests/ofa/repro/findings.toml), by clause
    findings = {}   # clause id -> [{name, ias}]
    for f in findings_manifest():
        for cid in f["clauses"]:
            findings.setdefault(cid, []).append({"name": f["name"], "ias": set(f["ias"])})
    if args.check:
        return check(failing, findings, catalog)

    out = [f"# {args.title}", "",
           "Generated by `tools/certification-findings.py` from the runs' results.json and",
           "verdict.json (datcts-verdict/5: fails, contested, not demonstrated, holds); the clause",
           "text is the catalog's paraphrase (cite the page, never quote it). Each case id",
           "reproduces its finding: `tools/certify-ofa.sh IA -- -k CASE_ID`; a clause with a",
           "standalone reproducer links its finding.", ""]
    out.append("| IA | verdict | shall: fail | contested | not demonstrated | hold | registry |")
    out.append("|---|---|---|---|---|---|---|")
    for ia, res, ver in runs:
        s = ver.get("shall", {})
        reg = ver.get("subjects", {}).get("registry", {})
        out.append(f"| `{ia}` | {ver.get('label')} | {s.get('fails')} | {s.get('contested', 0)} | "
                   f"{s.get('not_demonstrated')} | {s.get('holds')} | {reg.get('label', '—')} "
                   f"({(reg.get('shall') or {}).get('fails', 0)} failing) |")
    out.append("")
    unmapped = unmapped_pairs(failing, findings)
    out += [f"{len(failing) - len(unmapped)} of the {len(failing)} clauses that fail on at least "
            "one IA map, on every IA where they fail, to a finding whose standalone reproducer "
            "shows there (linked in the tables below); the others are listed at the end with "
            "the IAs not accounted for, and the review's verdict.", ""]
    out += ["Top blocking causes per IA (the first failing call of each clause's deciding case):", ""]
    for ia, res, ver in runs:
        out.append(f"- `{ia}`: " + "; ".join(
            f"{g['count']} {'fail' if g['outcome'] == 'fails' else 'not demonstrated'}: "
            f"{cell(g['cause'], 100)}" for g in ver.get("blocking_causes", [])[:5]))
    out.append("")
    contested = {}   # clause id -> (readings, [ia])
    for ia, res, ver in runs:
        for f in ver.get("contested_shall", []):
            contested.setdefault(f["clause"], (f["readings"], []))[1].append(ia)
    if contested:
        out += ["## Contested clauses", "",
                "Failing on the IAs named, under a reading of the page that another honest reading",
                "does not share (docs/clauses.md, \"Contested clauses\"): reported, never counted.", "",
                "| clause | IAs | fails if the page means | holds if the page means |",
                "|---|---|---|---|"]
        for cid in sorted(contested):
            rd, where = contested[cid]
            out.append(f"| `{cid}` | {', '.join(f'`{w}`' for w in where)} | {cell(rd['fails'], 400)} "
                       f"| {cell(rd['holds'], 400)} |")
        out.append("")
    pages = {}
    for cid in sorted(failing):
        pages.setdefault(cid.split(".", 1)[0], []).append(cid)
    ias = [ia for ia, _, _ in runs]
    for page, cids in pages.items():
        out += [f"## {page}(3DAT)", "",
                "| clause (section) | required | " + " | ".join(f"`{ia}`" for ia in ias) + " |",
                "|---|---|" + "---|" * len(ias)]
        for cid in cids:
            c = catalog.clauses.get(cid)
            req = cell(c.text if c else "(not in the catalog)")
            sect = c.section if c else ""
            subj = " (registry)" if c and c.subject == "registry" else ""
            cols = []
            for ia in ias:
                rs = failing[cid].get(ia)
                if rs is None:
                    cols.append("—")
                    continue
                parts = []
                for r in rs:
                    if r.get("charged"):
                        parts.append(f"charged: **{r['state']}** {cell(r['why'])}")
                        continue
                    seen = r.get("message") or ""
                    tail = last_output_line(r)
                    if tail and r["state"] in ("CRASH", "TIMEOUT"):
                        seen = f"{seen}; output: {tail}"
                    case = "" if r["id"] == cid else f"`{r['id']}`: "
                    parts.append(f"{case}**{r['state']}** {cell(seen)}")
                cols.append("<br>".join(parts) or "(no case result)")
            links = "".join(f"<br>finding: [{f['name']}](ofa-dapl-2.1.10/{f['name']}.md)"
                            for f in findings.get(cid, []))
            out.append(f"| `{cid.split('.', 1)[1]}`{subj} ({sect}){links} | {req} | " +
                       " | ".join(cols) + " |")
        out.append("")
    if unmapped:
        verdicts = review_verdicts(repo / "docs" / "certification" / "ofa-dapl-2.1.10" / "review")
        opened = load_open()
        out += ["## Failing clauses without a reproducer", "",
                "| clause | IAs | the review's verdict |", "|---|---|---|"]
        for cid in sorted(unmapped):
            c = catalog.clauses.get(cid)
            why = ("the registry's (`libdat2`): its findings are in the certification document, "
                   "\"The registry\"" if c and c.subject == "registry" else
                   "open: " + opened[cid] if cid in opened else
                   verdicts.get(cid, "not in the review (failed after it)"))
            out.append(f"| `{cid}` | {', '.join(f'`{ia}`' for ia in unmapped[cid])} | "
                       f"{cell(why)} |")
        out.append("")
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
