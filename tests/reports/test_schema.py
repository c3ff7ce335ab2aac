"""results.json: the datcts-results/1 schema and its validator."""

import json

import pytest

from datcts_reports import BAD_STATES, ReportError
from datcts_reports.schema import load_results, validate

from helpers import fix_summary, make_doc, result, save


def test_realistic_run_is_valid(ref_doc):
    assert validate(ref_doc) == []


def test_small_doc_is_valid():
    assert validate(make_doc([result("dat_ep_free.frees")])) == []


def test_unknown_fields_are_accepted():
    # A writer of the same version may add fields (docs/results-format.md).
    doc = make_doc([result("dat_ep_free.frees")])
    doc["run"]["new_thing"] = {"x": 1}
    doc["results"][0]["extra"] = 5
    assert validate(doc) == []


def _errs(mutate):
    doc = make_doc([result("dat_ep_free.frees"), result("dat_ep_free.invalid_handle", "FAIL")])
    mutate(doc)
    return validate(doc)


@pytest.mark.parametrize("mutate, expect", [
    (lambda d: d["run"]["provider"].pop("library_sha256"),
     "run.provider: missing required field 'library_sha256' (a lowercase hex sha256 or null)"),
    (lambda d: d["results"][0].update(state="PASSED"),
     "results[0].state: \"PASSED\" is not one of PASS, UNSUPPORTED, UNRESOLVED, FAIL, TIMEOUT, CRASH"),
    (lambda d: d["results"][1].update(line="10"),
     "results[1].line: expected an integer >= 0, got string \"10\""),
    (lambda d: d["results"][0].update(clauses=[]),
     "results[0].clauses: needs at least 1 item(s)"),
    (lambda d: d["run"]["provider"].update(library_sha256="xyz"),
     "run.provider.library_sha256: \"xyz\" is not a lowercase hex sha256"),
    (lambda d: d["run"].update(started="yesterday"),
     "run.started: \"yesterday\" is not an ISO 8601 date-time with a UTC offset"),
    (lambda d: d["run"].update(started="2026-11-21T08:00:00"),
     "run.started: \"2026-11-21T08:00:00\" has no UTC offset"),
    (lambda d: d["tool"].pop("git_revision"),
     "tool: missing required field 'git_revision' (a git revision or null)"),
])
def test_broken_documents_fail_with_a_clear_message(mutate, expect):
    errs = _errs(mutate)
    assert expect in errs, errs


@pytest.mark.parametrize("mutate, expect", [
    (lambda d: d["summary"]["states"].update(FAIL=0),
     "summary.states.FAIL: says 0, the results have 1"),
    (lambda d: d["results"].append(dict(d["results"][0])),
     "results[2].id: dat_ep_free.frees also at results[0]"),
    (lambda d: d["results"][0].update(page="dat_ep_create"),
     "results[0].page: 'dat_ep_create' does not match the id 'dat_ep_free.frees'"),
    (lambda d: d["results"][0].update(waived=True),
     "results[0].waived: true without a waiver"),
])
def test_inconsistent_documents_fail(mutate, expect):
    def m(d):
        mutate(d)
        if "summary.states" not in expect:
            # keep the counts right so only the inconsistency under test shows
            n = d["summary"]["not_run"]
            fix_summary(d)
            d["summary"]["not_run"] = n
            if "waived" in expect:
                d["summary"]["waived"] = 0
    errs = _errs(m)
    assert expect in errs, errs


def test_unknown_schema_version_is_rejected():
    doc = make_doc([])
    doc["schema"] = "datcts-results/2"
    errs = validate(doc)
    assert errs == ['schema: "datcts-results/2" is not a results format this datcts reads '
                    "(it reads 'datcts-results/1')"]


def test_load_names_the_file_and_the_problems(tmp_path):
    doc = make_doc([result("dat_ep_free.frees")])
    doc["results"][0]["state"] = "GOOD"
    p = save(doc, tmp_path / "run" / "results.json")
    with pytest.raises(ReportError) as e:
        load_results(p.parent)
    msg = str(e.value)
    assert str(p) in msg and "results[0].state" in msg and "GOOD" in msg


def test_load_not_json(tmp_path):
    p = tmp_path / "results.json"
    p.write_text("{ nope")
    with pytest.raises(ReportError, match="not JSON"):
        load_results(p)


def test_load_missing(tmp_path):
    with pytest.raises(ReportError, match="no such file"):
        load_results(tmp_path)


def test_legacy_schema_1_is_upgraded(tmp_path):
    """Runs written before the format had a name still load, their missing
    metadata null and a warning saying so."""
    doc = make_doc([result("dat_ep_free.frees")])
    doc["schema"] = 1
    for k in ("dat_conf_line", "library_resolved", "library_sha256", "attributes",
              "attributes_error"):
        del doc["run"]["provider"][k]
    del doc["run"]["system"], doc["run"]["not_selected"], doc["tool"]["git_revision"]
    p = save(doc, tmp_path / "results.json")
    got = load_results(p)
    assert got["schema"] == "datcts-results/1"
    assert got["run"]["provider"]["library_sha256"] is None
    assert any("upgraded" in w for w in got["warnings"])
    assert json.loads(p.read_text())["schema"] == 1  # the file is not rewritten


def _teardown_waived(state="CRASH", reached="PASS", pattern="dat_ep_*"):
    r = result("dat_ep_free.frees", state)
    if reached:
        r["reached"] = reached
    r["waiver"] = {"id": pattern, "teardown_crash": True, "reason": "unload race",
                   "expires": "2099-01-01"}
    r["waived"] = state in BAD_STATES
    return fix_summary(make_doc([r]))


def test_teardown_crash_waiver_is_consistent():
    assert validate(_teardown_waived()) == []


@pytest.mark.parametrize("kw, expect", [
    ({"pattern": "dat_cr_*"},
     "results[0].waiver.id: 'dat_cr_*' does not match the case id 'dat_ep_free.frees'"),
    ({"reached": None},
     "results[0].waiver: a teardown_crash waiver on a CRASH that did not come after the "
     "case's result ('reached')"),
    ({"state": "FAIL", "reached": None},
     "results[0].waiver: a teardown_crash waiver on a FAIL that did not come after the "
     "case's result ('reached')"),
])
def test_teardown_crash_waiver_must_fit_the_result(kw, expect):
    errs = validate(_teardown_waived(**kw))
    assert expect in errs, errs
