#!/usr/bin/python3
"""Regenerates the realistic fixtures of tests/reports from a real run:

    bin/datcts run --build-dir build --out /tmp/run1      # the reference provider
    PYTHONPATH=reports:runners tests/reports/data/make_fixtures.py /tmp/run1 build

ref-run.json      the run, as datcts-results/1 with its real run metadata
                  (library sha256, dat.conf line, dat_ia_query attributes from
                  datcts-probe), plus a few results changed so that every state
                  and waiver path appears (see EDITS below; each edited result
                  says so in its output)
ref-catalog.json  the clause catalog snapshot the run is judged against (so
                  the tests do not move when clauses/ grows)
"""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / "reports"))

from datcts_reports import BAD_STATES, RESULTS_SCHEMA, STATES, runmeta  # noqa: E402
from datcts_reports.catalog import Catalog, load_dir  # noqa: E402

NOTE = "[fixture] this result was edited by make_fixtures.py: "

# id suffix -> change.  Picked among cases that exist in the reference run.
EDITS = [
    # a FAIL covered by a waiver with a reason
    ("dat_ep_post_send.invalid_lmr_context", {"waiver": {
        "reason": "provider bug 17: returns DAT_PROTECTION_VIOLATION for a bad LMR context",
        "expires": "2027-06-30"}}),
    # a PASS with a waiver: the waiver can go
    ("dat_srq_resize.grows", {"waiver": {
        "reason": "provider bug 9: resize did not grow (fixed in 1.2.3)",
        "expires": "2027-01-31"}}),
    # an optional feature the provider lacks (the clause is gated)
    ("dat_srq_set_lw.*", {"state": "UNSUPPORTED",
                          "message": "requires srq_watermarks_supported (provider: 0)"}),
    # a crash in the provider
    ("dat_srq_query.*", {"state": "CRASH", "signal": "SIGSEGV",
                         "message": "the case process died of SIGSEGV during the body",
                         "output": "[datcts] case process killed by SIGSEGV\n"}),
    # a hang
    ("dat_ep_disconnect.*", {"state": "TIMEOUT",
                             "message": "no verdict within 30 s; the process group was killed",
                             "duration_ms": 30004.2}),
]


def pick(results, pattern):
    import fnmatch
    for r in results:
        if fnmatch.fnmatchcase(r["id"], pattern) and r["state"] == "PASS" and not r["halves"]:
            return r
    for r in results:
        if fnmatch.fnmatchcase(r["id"], pattern):
            return r
    raise SystemExit(f"no case matches {pattern}")


def summary(results, selected):
    st = {s: 0 for s in STATES}
    for r in results:
        st[r["state"]] += 1
    return {
        "selected": selected, "finished": len(results), "not_run": selected - len(results),
        "resumed": sum(1 for r in results if r["resumed"]), "states": st,
        "waived": sum(1 for r in results if r["waived"]),
        "waived_but_passing": sum(1 for r in results if r["waived_but_passing"]),
        "unwaived_failures": sum(1 for r in results if r["state"] in BAD_STATES and not r["waived"]),
    }


def compact(doc, listkey):
    """One line per result (or per page): small, and diffs stay readable."""
    lines = []
    for k, v in doc.items():
        items = v if k in (listkey, "pages") else None
        if items is not None:
            body = ",\n".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) for x in items)
            lines.append(f"{json.dumps(k)}:[\n{body}\n]")
        else:
            lines.append(f"{json.dumps(k)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main():
    run_dir, build = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    doc = json.loads((run_dir / "results.json").read_text())
    env = dict(os.environ, DAT_OVERRIDE=doc["run"]["provider"]["dat_conf"])
    doc["schema"] = RESULTS_SCHEMA
    rev, dirty = runmeta.git_revision()
    doc["tool"].update(git_revision=rev, git_dirty=dirty)
    doc["run"]["provider"] = runmeta.provider_fields(doc["run"]["provider"], env, build)
    doc["run"]["system"] = runmeta.system()
    doc["run"]["not_selected"] = []
    doc["run"]["not_finished"] = []
    doc["run"]["expectations"] = "/srv/datcts/expectations.toml"
    results = doc["results"]
    for pattern, change in EDITS:
        r = pick(results, pattern)
        if "waiver" in change:
            w = dict(change["waiver"], id=r["id"])
            r["waiver"] = w
            r["waived"] = r["state"] in BAD_STATES
            r["waived_but_passing"] = r["state"] == "PASS"
        else:
            r.update({k: v for k, v in change.items() if k != "output"})
            r["output"] = NOTE + pattern + "\n" + change.get("output", "")
    doc["summary"] = summary(results, len(results))
    doc["warnings"] = []
    (HERE / "ref-run.json").write_text(compact(doc, "results"))
    cat = load_dir(REPO / "clauses")
    # The pages of the run's cases, plus the CR pages (no case yet: coverage gaps).
    keep = {r["page"] for r in results} | {p for p in cat.pages if p.startswith("dat_cr_")}
    cat = Catalog([p for n, p in cat.pages.items() if n in keep], cat.origin)
    (HERE / "ref-catalog.json").write_text(compact(cat.to_json(), None))
    print(f"wrote ref-run.json ({len(results)} results) and ref-catalog.json "
          f"({len(cat.clauses)} clauses)")


if __name__ == "__main__":
    main()
