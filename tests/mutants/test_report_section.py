"""The run report shows the kill matrix when `datcts mutate` left a
mutants.json next to results.json (docs/mutants.md)."""

import json
from pathlib import Path

from datcts_reports import DEFAULT_CATALOG
from datcts_reports import catalog as catalog_mod
from datcts_reports.analysis import Analysis
from datcts_reports.html import mutants_next_to, write_report

from datcts.mutate import render_html

REF_RUN = Path(__file__).resolve().parents[1] / "reports" / "data" / "ref-run.json"

MUTANTS = {
    "schema": "datcts-mutants/1",
    "run": {"mode": "quick", "finished": "2026-11-21T10:00:00+00:00", "elapsed_s": 9.5,
            "library": "/x/libdaplref.so", "library_sha256": None, "started": "x",
            "case_runs": 3, "jobs": 2},
    "summary": {"mutants": 2, "killed": 1, "killed_other": 0, "survived": 1, "no_case": 0,
                "equivalent": 0, "kill_rate_own": 0.5, "shall_clauses": 716,
                "shall_clauses_with_mutant": 2, "shall_clauses_proven": 1},
    "clauses_unproven": ["dat_evd_wait.threshold_reached"],
    "mutants": [
        {"id": "evd-lifo", "status": "killed", "clauses": ["dat_evd_dequeue.stream_order"],
         "what": "newest first", "killed_by": ["dat_evd_dequeue.stream_order"],
         "kill_states": ["FAIL"], "other_failures": [], "reason": None},
        {"id": "evd-wait-ignores-threshold", "status": "survived",
         "clauses": ["dat_evd_wait.threshold_reached"], "what": "wakes at one event",
         "killed_by": [], "kill_states": [], "other_failures": [],
         "reason": "missing or weak case: <b>x</b>"},
    ],
}


def test_mutants_next_to(tmp_path):
    assert mutants_next_to(tmp_path / "results.json") is None
    (tmp_path / "mutants.json").write_text("{not json")
    assert mutants_next_to(tmp_path / "results.json") is None
    (tmp_path / "mutants.json").write_text(json.dumps(MUTANTS))
    m = mutants_next_to(tmp_path / "results.json")
    assert [x["id"] for x in m["not_killed"]] == ["evd-wait-ignores-threshold"]
    assert m["mutants"][0]["status"] == "survived"      # survivors first


def test_report_has_section_only_with_matrix(tmp_path):
    results = tmp_path / "results.json"
    results.write_text(REF_RUN.read_text())
    a = Analysis(catalog_mod.load(DEFAULT_CATALOG), json.loads(REF_RUN.read_text()))
    html = write_report(a, tmp_path / "report.html", results).read_text()
    assert 'id="mutants"' not in html
    (tmp_path / "mutants.json").write_text(json.dumps(MUTANTS))
    html = write_report(a, tmp_path / "report.html", results).read_text()
    assert 'id="mutants"' in html
    assert "evd-wait-ignores-threshold" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html           # escaped


def test_standalone_page_escapes():
    doc = dict(MUTANTS, run=dict(MUTANTS["run"], library="<lib>"))
    page = render_html(doc)
    assert "&lt;lib&gt;" in page and "<lib>" not in page
    assert "evd-lifo" in page


GENERATED = {
    "schema": "datcts-generated-mutants/1",
    "run": {"finished": "2026-11-25T10:00:00+00:00", "elapsed_s": 12.5, "case_runs": 40,
            "sample": 3, "seed": 1},
    "summary": {"generated": 4421, "selected": 3, "killed": 1, "survived": 2,
                "not-reached": 0, "timed-out": 0, "build-failed": 0,
                "excluded_by_triage": 1, "score": 50.0, "untriaged_survivors": 1,
                "stale_triages": 1},
    "files": {"core/pz.c": {"counts": {"killed": 1, "survived": 2, "not-reached": 0,
                                       "timed-out": 0, "build-failed": 0},
                            "excluded": 1, "score": 50.0,
                            "functions": {"ref_pz_create": {
                                "counts": {"killed": 1, "survived": 2, "not-reached": 0,
                                           "timed-out": 0, "build-failed": 0},
                                "excluded": 1, "score": 50.0}}}},
    "stale_triages": ["core/pz.c:gone:call-del:1:abcdef"],
    "untriaged_survivors": ["core/pz.c:ref_pz_create:eq-swap:1:111111"],
    "mutants": [
        {"id": "core/pz.c:ref_pz_create:rel-boundary:1:c100d7", "status": "survived",
         "line": 40, "original": "n >= max", "replacement": "n > max",
         "triage": {"kind": "unspecified", "page": "dat_pz_create(3DAT)",
                    "section": "RETURN VALUES", "words": "<i>no refusal required</i>"}},
        {"id": "core/pz.c:ref_pz_create:eq-swap:1:111111", "status": "survived",
         "line": 41, "original": "a == b", "replacement": "a != b", "triage": None,
         "reason": "3 of 3 reaching case(s) pass"},
        {"id": "core/pz.c:ref_pz_create:call-del:1:222222", "status": "killed",
         "line": 42, "original": "f();", "replacement": ";", "triage": None},
    ],
}


def test_report_has_generated_section_only_with_its_json(tmp_path):
    results = tmp_path / "results.json"
    results.write_text(REF_RUN.read_text())
    a = Analysis(catalog_mod.load(DEFAULT_CATALOG), json.loads(REF_RUN.read_text()))
    html = write_report(a, tmp_path / "report.html", results).read_text()
    assert 'id="generated-mutants"' not in html
    (tmp_path / "generated-mutants.json").write_text(json.dumps(GENERATED))
    html = write_report(a, tmp_path / "report.html", results).read_text()
    assert 'id="generated-mutants"' in html and 'href="#generated-mutants"' in html
    assert "core/pz.c" in html and "50.0" in html
    # untriaged survivors first, said as such; the triaged one with its page
    assert html.index("eq-swap:1:111111") < html.index("rel-boundary:1:c100d7")
    assert "untriaged" in html and "dat_pz_create(3DAT)" in html
    assert "&lt;i&gt;no refusal required&lt;/i&gt;" in html       # escaped
    assert "gone:call-del:1:abcdef" in html                       # stale triage shown
    assert "call-del:1:222222" not in html.split('id="generated-mutants"')[1].split(
        "<details>")[0]                                           # killed: not a survivor row


def test_generated_section_says_identical_code(tmp_path):
    results = tmp_path / "results.json"
    results.write_text(REF_RUN.read_text())
    a = Analysis(catalog_mod.load(DEFAULT_CATALOG), json.loads(REF_RUN.read_text()))
    doc = dict(GENERATED, summary=dict(GENERATED["summary"], identical=7))
    (tmp_path / "generated-mutants.json").write_text(json.dumps(doc))
    html = write_report(a, tmp_path / "report.html", results).read_text()
    assert "7 compile to the original's object code" in html
    assert "and the 7 of identical code" in html
