"""Verdict rules (reports/datcts_reports/analysis.py, docs/results-format.md)."""

import pytest

from datcts_reports.analysis import Analysis

from helpers import all_passing, make_doc, result


def verdict(cat, results, **kw):
    return Analysis(cat, make_doc(results, **kw)).verdict()


def replace(results, cid, new):
    return [new if r["id"] == cid else r for r in results]


def test_all_shall_pass_is_conformant(small_cat):
    v = verdict(small_cat, all_passing())
    assert v["verdict"] == "conformant", v["explanation"]
    assert v["label"] == "CONFORMANT"
    assert v["shall"]["pass"] == v["shall"]["total"] == 6


@pytest.mark.parametrize("state", ["FAIL", "CRASH", "TIMEOUT", "UNRESOLVED"])
def test_shall_failure_is_not_conformant(small_cat, state):
    rs = replace(all_passing(), "dat_ep_free.invalid_handle", result("dat_ep_free.invalid_handle", state))
    v = verdict(small_cat, rs)
    assert v["verdict"] == "not-conformant"
    assert v["explanation"] == "1 of 6 shall clauses fail"
    assert v["failing_shall"] == [{"clause": "dat_ep_free.invalid_handle",
                                   "cases": [{"id": "dat_ep_free.invalid_handle", "state": state}]}]


def test_waived_with_reason_is_allowed(small_cat):
    rs = replace(all_passing(), "dat_ep_free.invalid_handle",
                 result("dat_ep_free.invalid_handle", "FAIL", waiver="vendor bug 12, fix in 2.1"))
    v = verdict(small_cat, rs)
    assert v["verdict"] == "conformant"
    assert v["shall"]["waived"] == 1
    assert v["waived_shall"][0]["cases"][0]["reason"] == "vendor bug 12, fix in 2.1"
    assert "1 waived with a reason" in v["explanation"]


def test_waiver_without_reason_is_not_allowed(small_cat):
    r = result("dat_ep_free.invalid_handle", "FAIL", waiver="x")
    r["waiver"]["reason"] = "  "
    v = Analysis(small_cat, make_doc(replace(all_passing(), r["id"], r))).verdict()
    assert v["verdict"] == "not-conformant"


def test_unsupported_on_a_gated_clause_is_allowed(small_cat):
    # dat_srq_resize.* are gated by srq_supported
    rs = replace(all_passing(), "dat_srq_resize.grows",
                 result("dat_srq_resize.grows", "UNSUPPORTED", message="requires srq_supported"))
    v = verdict(small_cat, rs)
    assert v["verdict"] == "conformant"
    assert v["unsupported_shall"] == ["dat_srq_resize.grows"]


def test_unsupported_on_a_mandatory_clause_fails(small_cat):
    rs = replace(all_passing(), "dat_ep_free.frees", result("dat_ep_free.frees", "UNSUPPORTED"))
    a = Analysis(small_cat, make_doc(rs))
    v = a.verdict()
    assert v["verdict"] == "not-conformant"
    assert "mandatory" in a.views["dat_ep_free.frees"].why


def test_unsupported_allowed_by_model_not_supported(tmp_path):
    from helpers import write_catalog
    from datcts_reports.catalog import load_dir
    d = write_catalog(tmp_path / "c", {"dat_x": [("y", "shall", [])]})
    (d / "dat_x.toml").write_text((d / "dat_x.toml").read_text()
                                  + 'return = ["DAT_MODEL_NOT_SUPPORTED"]\n')
    cat = load_dir(d)
    assert verdict(cat, [result("dat_x.y", "UNSUPPORTED")])["verdict"] == "conformant"


def test_should_failure_is_an_advisory_only(small_cat):
    rs = replace(all_passing(), "dat_srq_resize.no_message_lost",
                 result("dat_srq_resize.no_message_lost", "FAIL"))
    v = verdict(small_cat, rs)
    assert v["verdict"] == "conformant"
    assert v["advisories"] == ["dat_srq_resize.no_message_lost"]


def test_clause_without_case_makes_it_incomplete(small_cat):
    rs = [r for r in all_passing() if not r["id"].startswith("dat_cr_query.")]
    v = verdict(small_cat, rs)
    assert v["verdict"] == "incomplete"
    assert v["shall"]["no_case"] == 2
    assert v["explanation"] == "no shall clause fails, but 2 have no case yet (4 of 6 checked)"


def test_case_not_selected_makes_it_incomplete(small_cat):
    rs = [r for r in all_passing() if r["id"] != "dat_ep_free.frees"]
    v = verdict(small_cat, rs, not_selected=["dat_ep_free.frees"])
    assert v["verdict"] == "incomplete"
    assert v["unchecked_shall"] == [{"clause": "dat_ep_free.frees", "why": "not-run"}]


def test_interrupted_run_is_incomplete(small_cat):
    v = verdict(small_cat, all_passing(), complete=False)
    assert v["verdict"] == "incomplete"
    assert "did not complete" in v["explanation"]


def test_failure_beats_incomplete(small_cat):
    rs = [r for r in all_passing() if not r["id"].startswith("dat_cr_query.")]
    rs = replace(rs, "dat_ep_free.frees", result("dat_ep_free.frees", "FAIL"))
    assert verdict(small_cat, rs)["verdict"] == "not-conformant"


def test_worst_case_decides_a_clause_with_several_cases(small_cat):
    rs = all_passing() + [result("dat_ep_free.frees_twice", "FAIL", clauses=["dat_ep_free.frees"])]
    a = Analysis(small_cat, make_doc(rs))
    assert a.views["dat_ep_free.frees"].status == "fail"
    assert a.verdict()["verdict"] == "not-conformant"


def test_realistic_run(ref_catalog, ref_doc):
    v = Analysis(ref_catalog, ref_doc).verdict()
    assert v["verdict"] == "not-conformant"
    assert v["shall"]["waived"] == 1 and v["shall"]["unsupported"] == 1
    failing = {f["clause"] for f in v["failing_shall"]}
    assert "dat_ep_post_send.invalid_lmr_context" not in failing  # waived
    assert any(c["state"] == "CRASH" for f in v["failing_shall"] for c in f["cases"])
    assert v["catalog_sha256"] == ref_catalog.sha256()


def test_unfinished_cases_of_an_interrupted_run_are_not_run(small_cat):
    from datcts_reports.schema import validate
    rs = [r for r in all_passing() if r["id"] != "dat_ep_free.frees"]
    doc = make_doc(rs, complete=False)
    doc["run"]["not_finished"] = [{"id": "dat_ep_free.frees", "page": "dat_ep_free",
                                   "clauses": ["dat_ep_free.frees"]}]
    doc["summary"]["not_run"] = 1
    doc["summary"]["selected"] += 1
    assert validate(doc) == []
    a = Analysis(small_cat, doc)
    assert a.views["dat_ep_free.frees"].status == "not-run"
    assert a.coverage()["uncovered"] == 0
    v = a.verdict()
    assert v["verdict"] == "incomplete" and "1 were not run" in v["explanation"]
    doc["summary"]["not_run"] = 0
    doc["summary"]["selected"] -= 1
    assert "run.not_finished: lists 1 case(s), summary.not_run says 0" in validate(doc)


def test_dead_host_makes_it_incomplete_not_failing(small_cat):
    dead = result("dat_ep_free.invalid_handle", "UNRESOLVED")
    dead["host_failure"] = {"host": "b", "reason": "host b unreachable"}
    v = verdict(small_cat, replace(all_passing(), "dat_ep_free.invalid_handle", dead))
    assert v["verdict"] == "incomplete", v["explanation"]
    assert v["unchecked_shall"] == [{"clause": "dat_ep_free.invalid_handle", "why": "not-run"}]


# ---- subjects (datcts-verdict/2): the provider's certificate, the registry beside it

SUBJECT_CATALOG = {
    "dat_ep_free": [("frees", "shall", []), ("invalid_handle", "shall", [])],
    "dat_strerror": [("success_code", "shall", [], "registry"),
                     ("undefined_code", "shall", [], "registry"),
                     ("names_code", "should", [], "registry")],
}
SUBJECT_IDS = ["dat_ep_free.frees", "dat_ep_free.invalid_handle", "dat_strerror.success_code",
               "dat_strerror.undefined_code", "dat_strerror.names_code"]


def subject_verdict(tmp_path, failing=(), **kw):
    from helpers import small_catalog
    cat = small_catalog(tmp_path, SUBJECT_CATALOG)
    rs = [result(c, "FAIL" if c in failing else "PASS") for c in SUBJECT_IDS]
    return Analysis(cat, make_doc(rs, **kw)).verdict()


def test_a_registry_failure_does_not_touch_the_provider_certificate(tmp_path):
    v = subject_verdict(tmp_path, failing={"dat_strerror.undefined_code", "dat_strerror.names_code"})
    assert v["schema"] == "datcts-verdict/2"
    assert v["verdict"] == "conformant" and v["shall"]["total"] == 2
    assert v["subjects"]["provider"]["verdict"] == "conformant"
    reg = v["subjects"]["registry"]
    assert reg["verdict"] == "not-conformant"
    assert reg["explanation"] == "1 of 2 shall clauses fail"
    assert reg["failing_shall"][0]["clause"] == "dat_strerror.undefined_code"
    assert reg["advisories"] == ["dat_strerror.names_code"]
    assert v["advisories"] == []
    # no run.dat in the document: the build's own libdat, version unknown
    assert (reg["name"], reg["library"], reg["version"]) == ("libdat", None, None)


def test_a_provider_failure_leaves_the_registry_conformant(tmp_path):
    v = subject_verdict(tmp_path, failing={"dat_ep_free.frees"})
    assert v["verdict"] == "not-conformant"
    assert v["failing_shall"] == v["subjects"]["provider"]["failing_shall"]
    assert v["subjects"]["registry"]["verdict"] == "conformant"


def test_registry_named_from_run_dat(tmp_path):
    from helpers import small_catalog
    cat = small_catalog(tmp_path, SUBJECT_CATALOG)
    doc = make_doc([result(c) for c in SUBJECT_IDS])
    doc["run"]["dat"] = {"api": "2.0", "cases_build": "/b/cases2",
                         "registry": {"name": "libdat2", "library": "libdat2.so.2",
                                      "resolved": "/usr/lib/x86_64-linux-gnu/libdat2.so.2",
                                      "sha256": None, "version": "2.1.10-1"}}
    reg = Analysis(cat, doc).verdict()["subjects"]["registry"]
    assert (reg["name"], reg["library"], reg["version"]) == ("libdat2", "libdat2.so.2", "2.1.10-1")


def test_verdict_v1_counts_every_clause(tmp_path):
    from helpers import small_catalog
    cat = small_catalog(tmp_path, SUBJECT_CATALOG)
    doc = make_doc([result(c, "FAIL" if c == "dat_strerror.success_code" else "PASS")
                    for c in SUBJECT_IDS])
    v1 = Analysis(cat, doc).verdict("datcts-verdict/1")
    assert v1["schema"] == "datcts-verdict/1" and "subjects" not in v1
    assert v1["verdict"] == "not-conformant" and v1["shall"]["total"] == 4
    with pytest.raises(ValueError):
        Analysis(cat, doc).verdict("datcts-verdict/9")


def test_the_real_catalog_gives_the_registry_its_pages():
    from datcts_reports import DEFAULT_CATALOG
    from datcts_reports.catalog import load_dir
    cat = load_dir(DEFAULT_CATALOG)
    reg = {cid for cid, c in cat.clauses.items() if c.subject == "registry"}
    assert all(cid in reg for cid in cat.clauses if cid.startswith(("dat_registry_", "dat_strerror.")))
    assert "dat_ia_query.invalid_handle" in reg and "dat_provider_fini.not_twice" in reg
    assert "dat_ia_query.dapl_version" not in reg and "dat_provider_init.no_other_names" not in reg
