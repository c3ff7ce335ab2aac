"""Coverage: the clause <-> case join; a clause without a case is listed."""

import json
import subprocess
import sys

from datcts_reports.analysis import Analysis

from conftest import reports_env
from helpers import all_passing, make_doc, result, save, write_catalog


def test_clause_without_case_is_listed(small_cat):
    rs = [r for r in all_passing() if r["id"] != "dat_cr_query.invalid_handle"]
    cov = Analysis(small_cat, make_doc(rs)).coverage()
    assert cov["clauses"] == 8 and cov["covered"] == 7 and cov["uncovered"] == 1
    page = next(p for p in cov["pages"] if p["page"] == "dat_cr_query")
    assert page["uncovered"] == [{"id": "dat_cr_query.invalid_handle", "level": "shall",
                                  "section": "DESCRIPTION",
                                  "text": "What invalid_handle requires, in our words."}]


def test_unselected_case_still_counts_as_coverage(small_cat):
    rs = [r for r in all_passing() if r["id"] != "dat_ep_free.frees"]
    a = Analysis(small_cat, make_doc(rs, not_selected=["dat_ep_free.frees"]))
    assert a.coverage()["uncovered"] == 0
    assert a.views["dat_ep_free.frees"].status == "not-run"


def test_case_naming_an_unknown_clause_is_reported(small_cat):
    rs = all_passing() + [result("dat_ep_free.typo", clauses=["dat_ep_free.no_such_clause"])]
    cov = Analysis(small_cat, make_doc(rs)).coverage()
    assert cov["unknown_clause_refs"] == [{"case": "dat_ep_free.typo",
                                           "clause": "dat_ep_free.no_such_clause"}]


def test_page_outside_the_catalog(small_cat):
    cov = Analysis(small_cat, make_doc(all_passing() + [result("dat_lmr_free.x")])).coverage()
    assert cov["pages_not_in_catalog"] == ["dat_lmr_free"]


def test_coverage_from_a_case_list_without_results(small_cat):
    known = [{"id": "dat_ep_free.frees", "page": "dat_ep_free", "clauses": ["dat_ep_free.frees"]}]
    cov = Analysis(small_cat, None, known).coverage()
    assert cov["covered"] == 1 and cov["uncovered"] == 7


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "datcts_reports", *map(str, args)],
                          capture_output=True, text=True, env=reports_env())


def test_coverage_command_strict(tmp_path):
    cat = write_catalog(tmp_path / "clauses")
    rs = [r for r in all_passing() if not r["id"].startswith("dat_cr_query.")]
    run = save(make_doc(rs), tmp_path / "run" / "results.json")
    p = _cli("coverage", "--results", run, "--catalog", cat)
    assert p.returncode == 0, p.stderr
    assert "dat_cr_query: 2 of 2 clauses have no case" in p.stdout
    assert "  shall  dat_cr_query.invalid_handle" in p.stdout
    assert "coverage: 6 of 8 clauses have a case (75.0%); 2 have none" in p.stderr
    p = _cli("coverage", "--results", run, "--catalog", cat, "--strict")
    assert p.returncode == 1
    p = _cli("coverage", "--results", run, "--catalog", cat, "--strict", "--page", "dat_ep_*")
    assert p.returncode == 0, p.stdout
    p = _cli("coverage", "--results", run, "--catalog", cat, "--json")
    assert json.loads(p.stdout)["uncovered"] == 2


def test_clauses_needing_a_test_hook_are_listed(small_cat, tmp_path):
    rs = all_passing()
    hooked = next(r for r in rs if r["id"] == "dat_ep_free.frees")
    hooked["needs"] = ["hook:daplref_test_x"]
    known = [{"id": "dat_cr_query.other", "page": "dat_cr_query",
              "clauses": ["dat_cr_query.invalid_handle"], "needs": ["suite_attr:datcts.y"]}]
    cov = Analysis(small_cat, make_doc(rs), known).coverage()
    assert cov["needs_test_hook"] == [
        {"id": "dat_cr_query.invalid_handle", "level": "shall", "page": "dat_cr_query",
         "cases": [{"id": "dat_cr_query.other", "needs": ["suite_attr:datcts.y"]}]},
        {"id": "dat_ep_free.frees", "level": "shall", "page": "dat_ep_free",
         "cases": [{"id": "dat_ep_free.frees", "needs": ["hook:daplref_test_x"]}]},
    ]
    run = save(make_doc(rs), tmp_path / "run" / "results.json")
    p = _cli("coverage", "--results", run, "--catalog", write_catalog(tmp_path / "clauses"))
    assert "needs a test hook: 1 clauses" in p.stdout
    assert "  shall  dat_ep_free.frees  (hook:daplref_test_x)" in p.stdout
