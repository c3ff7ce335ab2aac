"""Verdict rules (reports/datcts_reports/analysis.py, docs/results-format.md)."""

import pytest

from datcts_reports.analysis import Analysis
from datcts_reports import attribution

from helpers import all_passing, make_doc, result


def verdict(cat, results, **kw):
    return Analysis(cat, make_doc(results, **kw)).verdict()


def replace(results, cid, new):
    return [new if r["id"] == cid else r for r in results]


def test_all_shall_pass_is_conformant(small_cat):
    v = verdict(small_cat, all_passing())
    assert v["verdict"] == "conformant", v["explanation"]
    assert v["label"] == "CONFORMANT"
    assert v["shall"]["holds"] == v["shall"]["by_status"]["pass"] == v["shall"]["total"] == 6


@pytest.mark.parametrize("state", ["FAIL", "CRASH", "TIMEOUT"])
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
    assert v["shall"]["by_status"]["waived"] == 1
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


def test_unsupported_on_a_mandatory_clause_is_not_demonstrated(small_cat):
    rs = replace(all_passing(), "dat_ep_free.frees", result("dat_ep_free.frees", "UNSUPPORTED"))
    a = Analysis(small_cat, make_doc(rs))
    v = a.verdict()
    assert v["verdict"] == "incomplete"
    assert "not make the clause optional" in a.views["dat_ep_free.frees"].why
    # datcts-verdict/2 (older bundles) counted it as a failure
    assert a.verdict("datcts-verdict/2")["verdict"] == "not-conformant"
    assert "mandatory" in Analysis(small_cat, make_doc(rs), rules=2).views["dat_ep_free.frees"].why


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
    assert v["shall"]["by_status"]["no_case"] == 2
    assert v["explanation"] == ("no shall clause fails, but 2 of 6 are not demonstrated "
                                "(2 have no case yet)")


def test_case_not_selected_makes_it_incomplete(small_cat):
    rs = [r for r in all_passing() if r["id"] != "dat_ep_free.frees"]
    v = verdict(small_cat, rs, not_selected=["dat_ep_free.frees"])
    assert v["verdict"] == "incomplete"
    assert [(n["clause"], n["status"]) for n in v["not_demonstrated_shall"]] == \
        [("dat_ep_free.frees", "not-run")]


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
    assert v["shall"]["by_status"]["waived"] == 1
    assert v["shall"]["by_status"]["unsupported"] == 1
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
    nd = v["not_demonstrated_shall"]
    assert [(n["clause"], n["status"]) for n in nd] == \
        [("dat_ep_free.invalid_handle", "not-demonstrated")]
    assert "host b failed" in nd[0]["why"]


def test_kernel_fault_makes_it_incomplete_on_the_device_side(small_cat):
    # datcts run --watch-kernel-log: the kernel oopsed while the case ran and
    # the case hung; the clause is not demonstrated, the device's, and the hang
    # charges no teardown clause to the provider
    hung = result("dat_ep_free.invalid_handle", "TIMEOUT")
    hung["device_fault"] = {"first": "BUG: kernel NULL pointer dereference, address: "
                                     "0000000000000030",
                            "where": "siw_tx_hdt+0x5a/0x7c0 [siw]", "log": []}
    v = verdict(small_cat, replace(all_passing(), "dat_ep_free.invalid_handle", hung))
    assert v["verdict"] == "incomplete", v["explanation"]
    assert not v["failing_shall"]
    nd = v["not_demonstrated_shall"]
    assert [(n["clause"], n["status"]) for n in nd] == \
        [("dat_ep_free.invalid_handle", "not-demonstrated")]
    assert "the kernel faulted while the case ran (BUG: kernel NULL pointer dereference " \
        "in siw_tx_hdt [siw])" in nd[0]["why"]
    assert v["shall"]["not_judged_by"]["device"] == 1
    # checks that passed before the fault stand
    v = verdict(small_cat, replace(all_passing(), "dat_ep_free.invalid_handle",
                                   dict(hung, reached="PASS")))
    assert v["verdict"] == "conformant", v["explanation"]
    # without the fault the same hang is the provider's
    del hung["device_fault"]
    v = verdict(small_cat, replace(all_passing(), "dat_ep_free.invalid_handle", hung))
    assert v["verdict"] == "not-conformant", v["explanation"]


# ---- subjects: the provider's certificate, the registry beside it

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
    assert v["schema"] == "datcts-verdict/5"
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


# ---- datcts-verdict/4 (and /3): every row of the outcome table, attribution, blocking causes

ATTR_CATALOG = {
    "dat_ep_free": [("frees", "shall", []), ("invalid_handle", "shall", [])],
    "dat_srq_resize": [("grows", "shall", ["srq_supported"])],
    "dat_ia_close": [("abrupt_always_succeeds", "shall", []), ("no_leaks", "shall", []),
                     ("destroys_instance", "shall", [], "registry")],
}
ATTR_IDS = ["dat_ep_free.frees", "dat_ep_free.invalid_handle", "dat_srq_resize.grows",
            "dat_ia_close.abrupt_always_succeeds", "dat_ia_close.no_leaks",
            "dat_ia_close.destroys_instance"]


def with_cause(r, **cause):
    full = {"phase": "check", "call": None, "expr": None, "return": None, "answered_by": None,
            "needs": None}
    full.update(cause)
    r["cause"] = full
    return r


def ret(type_, who="provider"):
    return {"code": "0x80000000", "type": type_, "subtype": None, "answered_by": who}


def attr_analysis(tmp_path, changed, rules=5, extra=()):
    from helpers import small_catalog
    cat = small_catalog(tmp_path, ATTR_CATALOG)
    rs = [changed.get(c) or result(c) for c in ATTR_IDS] + list(extra)
    return Analysis(cat, make_doc(rs), rules=rules)


def frees(state, **kw):
    return result("dat_ep_free.frees", state, **kw)


def teardown_crash(cid="dat_ep_free.frees", reached="PASS", phase="teardown", who="provider"):
    r = result(cid, "CRASH")
    r["reached"] = reached
    return with_cause(r, phase=phase, call="dat_ia_close" if phase == "teardown" else None,
                      answered_by=who,
                      entry={"object": "libdaplofa.so.2", "symbol": "dapl_ia_close"})


def cleanup_crash(expr="dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG)"):
    # DC_CLEANUP: no verdict was sent; the crash line says phase cleanup
    return with_cause(frees("CRASH"), phase="cleanup", call=expr.split("(")[0], expr=expr,
                      answered_by="provider",
                      frame={"object": "libdaplofa.so.2", "symbol": "dapls_ia_free"})


OUTCOME_ROWS = [
    # (what the case did, the result, the clause's status)
    ("passed", lambda: frees("PASS"), "pass"),
    ("a check failed", lambda: frees("FAIL"), "fail"),
    ("crashed in a call of the case", lambda: with_cause(frees("CRASH"), answered_by="provider"),
     "fail"),
    ("hung in a call of the case", lambda: with_cause(frees("TIMEOUT"), hang=True), "fail"),
    ("crashed in the set-up", lambda: with_cause(frees("CRASH"), phase="setup",
                                                 fixture="dc_ep_at"), "not-demonstrated"),
    ("hung in the set-up (the supervisor's probe found it in a set-up helper)",
     lambda: with_cause(frees("TIMEOUT"), hang=True, phase="setup", fixture="dc_ep_at",
                        answered_by="provider"), "not-demonstrated"),
    ("set-up failed", lambda: with_cause(frees("UNRESOLVED"), phase="setup",
                                         call="dat_ep_connect",
                                         **{"return": ret("DAT_INSUFFICIENT_RESOURCES")}),
     "not-demonstrated"),
    ("set-up failed in the registry",
     lambda: with_cause(frees("UNRESOLVED"), phase="setup", call="dat_ia_close",
                        answered_by="registry", **{"return": ret("DAT_PROVIDER_NOT_FOUND",
                                                                 "registry")}),
     "not-demonstrated"),
    ("UNSUPPORTED for want of a test hook",
     lambda: with_cause(frees("UNSUPPORTED"), needs={"kind": "hook", "name": "daplref_test_x"}),
     "not-demonstrated"),
    ("UNSUPPORTED for want of a datcts attribute",
     lambda: with_cause(frees("UNSUPPORTED"),
                        needs={"kind": "suite_attr", "name": "datcts.conn_qual_range"}),
     "not-demonstrated"),
    ("UNSUPPORTED beyond a bound of the case's own",
     lambda: with_cause(frees("UNSUPPORTED"), needs={"kind": "suite_bound",
                                                     "name": "131072 EPs"}),
     "not-demonstrated"),
    # the checks were seen to pass; the crash is charged to the close (below)
    ("checks passed, then the teardown crashed", lambda: teardown_crash(), "pass"),
    ("checks passed, then the process died at its end",
     lambda: teardown_crash(phase="exit"), "pass"),
    ("a check failed, then the teardown crashed", lambda: teardown_crash(reached="FAIL"), "fail"),
    ("checks passed, then a clean-up abrupt close crashed", lambda: cleanup_crash(), "pass"),
    ("checks passed, then a clean-up free crashed (charged nowhere)",
     lambda: cleanup_crash("dat_ep_free(ep)"), "not-demonstrated"),
    ("a crash inside the registry", lambda: with_cause(frees("CRASH"), answered_by="registry"),
     "not-demonstrated"),
    ("waived failure", lambda: frees("FAIL", waiver="vendor bug 7"), "waived"),
]


@pytest.mark.parametrize("what,make,status", OUTCOME_ROWS, ids=[r[0] for r in OUTCOME_ROWS])
def test_outcome_table(tmp_path, what, make, status):
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": make()})
    cv = a.views["dat_ep_free.frees"]
    assert cv.status == status, (what, cv.why)
    v = a.verdict()
    want = {"fail": "not-conformant", "not-demonstrated": "incomplete"}.get(status, "conformant")
    if ("crashed" in what and "then" in what and "charged nowhere" not in what) or \
            what.endswith("at its end"):
        want = "not-conformant"     # the teardown's clause is charged: see below
    assert v["verdict"] == want, (what, v["explanation"])


V3_ROWS = {"checks passed, then the teardown crashed": "not-demonstrated",
           "checks passed, then the process died at its end": "not-demonstrated",
           "checks passed, then a clean-up abrupt close crashed": "not-demonstrated"}


@pytest.mark.parametrize("what,make,status", OUTCOME_ROWS, ids=[r[0] for r in OUTCOME_ROWS])
def test_outcome_table_v3(tmp_path, what, make, status):
    """datcts-verdict/3 (older bundles): a teardown crash after the checks
    left the clause not demonstrated."""
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": make()}, rules=3)
    cv = a.views["dat_ep_free.frees"]
    assert cv.status == V3_ROWS.get(what, status), (what, cv.why)


# ---- datcts-verdict/4: a clause decided by the cases that reached its checks

def second_case(state="UNRESOLVED", clause="dat_ep_free.frees", **cause):
    r = result("dat_ep_free.frees_other_way", state, clauses=[clause])
    r["page"] = "dat_ep_free"
    return with_cause(r, **cause) if cause else r


def setup_stop(call, rtype, **kw):
    return second_case(phase="setup", call=call, **{"return": ret(rtype)}, **kw)


def failing_page_case(page="dat_cr_handoff"):
    """A failing case of another page, so that page fails in the run."""
    r = result(f"{page}.delivered", "FAIL", clauses=["dat_ia_close.no_leaks"])
    r["page"] = page
    return r


EXCUSE_ROWS = [
    # (the other case of a clause whose main case passed, the run's other failures, status)
    ("lacks an optional feature (attribute)",
     lambda: second_case("UNSUPPORTED", needs={"kind": "attribute", "name": "srq_supported"}),
     (), "pass"),
    ("another page's MODEL_NOT_SUPPORTED, which it documents",
     lambda: setup_stop("dat_srq_create", "DAT_MODEL_NOT_SUPPORTED"), (), "pass"),
    ("another page's call that fails in this run",
     lambda: setup_stop("dat_ia_close", "DAT_NOT_IMPLEMENTED"),
     (lambda: with_cause(result("dat_ia_close.abrupt_always_succeeds", "FAIL")),), "pass"),
    ("another page's call, nothing charged for it",
     lambda: setup_stop("dat_ia_close", "DAT_INSUFFICIENT_RESOURCES"), (), "not-demonstrated"),
    ("the clause's own page's call in the set-up",
     lambda: setup_stop("dat_ep_free", "DAT_NOT_IMPLEMENTED"),
     (lambda: result("dat_ep_free.invalid_handle", "FAIL"),), "not-demonstrated"),
    ("a helper, not a DAT call",
     lambda: setup_stop("dc_connect", "DAT_INSUFFICIENT_RESOURCES"), (), "not-demonstrated"),
    ("a test hook only the reference provider has",
     lambda: second_case("UNSUPPORTED", needs={"kind": "hook", "name": "daplref_test_x"}),
     (), "not-demonstrated"),
    ("an attribute dat_ia_query did not write",
     lambda: second_case("UNSUPPORTED", needs={"kind": "unreported", "name": "lmr_sync_req"}),
     (), "not-demonstrated"),
    ("the provider never showed the state the set-up wanted",
     lambda: second_case(phase="setup", needs={"kind": "state", "name": "DISCONNECT_PENDING"}),
     (), "pass"),
    ("the registry crashed reading a freed handle",
     lambda: second_case("CRASH", answered_by="registry",
                         entry={"object": "libdat2.so.2", "symbol": "dat_ep_free"}),
     (), "pass"),
    ("the provider crashed in the call checked",
     lambda: second_case("CRASH", answered_by="provider"), (), "fail"),
    ("a check of another clause failed first",
     lambda: dict(second_case("FAIL", clause="dat_ep_free.frees"),
                  clauses=["dat_ep_free.invalid_handle", "dat_ep_free.frees"],
                  clause_at={"clause": "dat_ep_free.invalid_handle", "held": []}),
     (), "pass"),
]


@pytest.mark.parametrize("what,make,others,status", EXCUSE_ROWS, ids=[r[0] for r in EXCUSE_ROWS])
def test_one_case_of_several_does_not_decide(tmp_path, what, make, others, status):
    changed = {}
    for o in others:
        r = o()
        changed[r["id"]] = r
    a = attr_analysis(tmp_path, changed, extra=[make()])
    cv = a.views["dat_ep_free.frees"]
    assert cv.status == status, (what, cv.why)
    if status == "pass":
        assert cv.judged_by == (1, 2)
        assert "judged by 1 of its 2 cases" in cv.why
        v = a.verdict()
        row = next(p for p in v["partly_judged_shall"] if p["clause"] == "dat_ep_free.frees")
        assert row["judged_by"] == [1, 2] and row["not_judging"][0]["why"]


def test_no_case_judged_is_not_demonstrated(tmp_path):
    """Every case excused and none judged: nothing was observed."""
    only = with_cause(frees("UNRESOLVED"), phase="setup", call="dat_srq_create",
                      **{"return": ret("DAT_MODEL_NOT_SUPPORTED")})
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": only})
    assert a.views["dat_ep_free.frees"].status == "not-demonstrated"


def test_v3_lets_one_case_of_several_decide(tmp_path):
    a = attr_analysis(tmp_path, {}, rules=3, extra=[
        second_case("UNSUPPORTED", needs={"kind": "attribute", "name": "srq_supported"})])
    assert a.views["dat_ep_free.frees"].status == "not-demonstrated"


def test_judged_count_in_the_verdict(tmp_path):
    a = attr_analysis(tmp_path, {"dat_ep_free.invalid_handle":
                                 result("dat_ep_free.invalid_handle", "UNRESOLVED")})
    shall = a.verdict()["shall"]
    assert shall["judged"] == shall["total"] - shall["not_demonstrated"] == 4


def test_unsupported_on_an_optional_clause_holds(tmp_path):
    r = with_cause(result("dat_srq_resize.grows", "UNSUPPORTED"),
                   needs={"kind": "attribute", "name": "srq_supported"})
    a = attr_analysis(tmp_path, {"dat_srq_resize.grows": r})
    assert a.views["dat_srq_resize.grows"].status == "unsupported"
    assert a.verdict()["verdict"] == "conformant"


@pytest.mark.parametrize("kind", ["hook", "suite_attr", "suite_bound"])
def test_suite_only_need_on_an_optional_clause_is_not_demonstrated(tmp_path, kind):
    # the provider has the optional feature; only the suite's hook was missing
    r = with_cause(result("dat_srq_resize.grows", "UNSUPPORTED"),
                   needs={"kind": kind, "name": "daplref_test_x"})
    a = attr_analysis(tmp_path, {"dat_srq_resize.grows": r})
    assert a.views["dat_srq_resize.grows"].status == "not-demonstrated"
    assert a.verdict()["verdict"] == "incomplete"


def test_teardown_crash_is_charged_to_the_abrupt_close(tmp_path):
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": teardown_crash()})
    v = a.verdict()
    assert [f["clause"] for f in v["failing_shall"]] == ["dat_ia_close.abrupt_always_succeeds"]
    ev = v["failing_shall"][0]["cases"]
    assert ev == [{"id": "dat_ep_free.frees", "state": "CRASH", "charged": True,
                   "why": "SIGSEGV in the teardown's abrupt dat_ia_close (case dat_ep_free.frees)"}]
    assert a.views["dat_ep_free.frees"].status == "pass"
    assert v["subjects"]["registry"]["verdict"] == "conformant"


def test_teardown_hang_and_failed_close_are_charged(tmp_path):
    hang = result("dat_ep_free.frees", "TIMEOUT")
    hang["reached"] = "PASS"
    with_cause(hang, phase="teardown", call="dat_ia_close", hang=True)
    closed = result("dat_ep_free.invalid_handle")
    closed["teardown_failure"] = {"call": "dat_ia_close", "flags": "DAT_CLOSE_ABRUPT_FLAG",
                                  "return": ret("DAT_INVALID_STATE")}
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": hang,
                                 "dat_ep_free.invalid_handle": closed})
    cv = a.views["dat_ia_close.abrupt_always_succeeds"]
    assert cv.status == "fail"
    assert sorted((c.case, c.state) for c in cv.charges) == \
        [("dat_ep_free.frees", "TIMEOUT"), ("dat_ep_free.invalid_handle", "FAIL")]
    # the case whose own checks passed keeps its PASS
    assert a.views["dat_ep_free.invalid_handle"].status == "pass"


def test_cleanup_crash_is_charged_to_that_close_not_the_clause(tmp_path):
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": cleanup_crash(),
                                 "dat_ep_free.invalid_handle":
                                     cleanup_crash("dat_ep_free(ep)")})
    # (both results carry the id dat_ep_free.frees) the free is charged
    # nowhere, so it leaves the clause not demonstrated; the abrupt close alone
    # is charged, and then the case's own checks hold
    assert a.views["dat_ep_free.frees"].status == "not-demonstrated"
    alone = attr_analysis(tmp_path, {"dat_ep_free.frees": cleanup_crash()})
    assert alone.views["dat_ep_free.frees"].status == "pass"
    a3 = attr_analysis(tmp_path, {"dat_ep_free.frees": cleanup_crash()}, rules=3)
    assert "clean-up dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG)" in a3.views["dat_ep_free.frees"].why
    cv = a.views["dat_ia_close.abrupt_always_succeeds"]
    assert cv.status == "fail"
    # only the abrupt close is charged: a free may fail for reasons its page allows
    assert [(c.case, c.state) for c in cv.charges] == [("dat_ep_free.frees", "CRASH")]
    assert attribution.blocking_cause(cleanup_crash())[0] == \
        "SIGSEGV in dapls_ia_free (libdaplofa.so.2) in the clean-up dat_ia_close"


def test_teardown_crash_after_unsupported_leaves_the_clause_unsupported(tmp_path):
    """datcts-verdict/5: the case found the provider without the optional
    feature, then the teardown crashed: the clause stays optional and
    unsupported, the crash charged to the abrupt close (under /4 the clause
    was not demonstrated)."""
    r = teardown_crash("dat_srq_resize.grows", reached="UNSUPPORTED")
    r["cause"]["needs"] = {"kind": "attribute", "name": "srq_supported"}
    a = attr_analysis(tmp_path, {"dat_srq_resize.grows": r})
    assert a.views["dat_srq_resize.grows"].status == "unsupported"
    assert a.views["dat_ia_close.abrupt_always_succeeds"].status == "fail"
    a4 = attr_analysis(tmp_path, {"dat_srq_resize.grows": r}, rules=4)
    assert a4.views["dat_srq_resize.grows"].status == "not-demonstrated"
    # a suite-only need stays not demonstrated, crash or not
    r["cause"]["needs"] = {"kind": "hook", "name": "daplref_test_x"}
    a = attr_analysis(tmp_path, {"dat_srq_resize.grows": r})
    assert a.views["dat_srq_resize.grows"].status == "not-demonstrated"


def test_exit_crash_is_charged_to_no_leaks(tmp_path):
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": teardown_crash(phase="exit")})
    assert a.views["dat_ia_close.no_leaks"].status == "fail"
    assert a.views["dat_ia_close.abrupt_always_succeeds"].status == "pass"


def test_registry_failures_are_charged_to_the_registry(tmp_path):
    setup = with_cause(frees("UNRESOLVED"), phase="setup", call="dat_ia_close",
                       answered_by="registry",
                       **{"return": ret("DAT_PROVIDER_NOT_FOUND", "registry")})
    cleanup = result("dat_ep_free.invalid_handle")
    cleanup["cleanup_failures"] = [{"call": "dat_ia_close",
                                    "expr": "dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG)",
                                    "return": ret("DAT_PROVIDER_NOT_FOUND", "registry"),
                                    "file": "cases/x/dat_ep_free.c", "line": 40}]
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": setup,
                                 "dat_ep_free.invalid_handle": cleanup})
    v = a.verdict()
    assert v["verdict"] == "incomplete", v["explanation"]    # the provider: nothing fails
    reg = v["subjects"]["registry"]
    assert reg["verdict"] == "not-conformant"
    assert {c["id"] for c in reg["failing_shall"][0]["cases"]} == \
        {"dat_ep_free.frees", "dat_ep_free.invalid_handle"}
    # a graceful close or a free that fails in the clean-up is shown, not charged
    cleanup["cleanup_failures"][0]["expr"] = "dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG)"
    a = attr_analysis(tmp_path, {"dat_ep_free.invalid_handle": cleanup})
    assert a.verdict()["subjects"]["registry"]["verdict"] == "conformant"


def test_blocking_causes_group_and_rank(tmp_path):
    from helpers import small_catalog
    cat = small_catalog(tmp_path, {"dat_ep_free": [(f"c{i}", "shall", []) for i in range(6)]})

    def connect_fails(cid):
        return with_cause(result(cid, "UNRESOLVED"), phase="setup", call="dat_ep_connect",
                          **{"return": ret("DAT_INSUFFICIENT_RESOURCES")})

    def crash(cid):
        return with_cause(result(cid, "CRASH"), answered_by="provider",
                          entry={"object": "libx.so", "symbol": "x_ep_free"})
    rs = [connect_fails("dat_ep_free.c0"), connect_fails("dat_ep_free.c1"),
          connect_fails("dat_ep_free.c2"), crash("dat_ep_free.c3"), crash("dat_ep_free.c4"),
          result("dat_ep_free.c5")]
    v = Analysis(cat, make_doc(rs)).verdict()
    causes = [(g["outcome"], g["count"], g["cause"], g["side"]) for g in v["blocking_causes"]]
    assert causes == [
        ("fails", 2, "SIGSEGV in x_ep_free (libx.so)", "provider"),
        ("not-demonstrated", 3, "dat_ep_connect -> DAT_INSUFFICIENT_RESOURCES in the set-up",
         "provider"),
    ]
    assert v["blocking_causes"][1]["clauses"] == ["dat_ep_free.c0", "dat_ep_free.c1",
                                                  "dat_ep_free.c2"]


def test_a_hang_is_named_by_where_the_case_waited():
    hung = with_cause(frees("TIMEOUT"), hang=True, phase="check", answered_by="provider",
                      frame={"object": "libx.so", "symbol": "x_wait"},
                      entry={"object": "libdat.so.1", "symbol": "dat_evd_wait"})
    assert attribution.blocking_cause(hung) == (
        "hang in x_wait (libx.so) via dat_evd_wait (libdat.so.1)", "provider")
    in_setup = with_cause(frees("TIMEOUT"), hang=True, phase="setup", answered_by="provider",
                          frame={"object": "libx.so", "symbol": "x_connect"},
                          fixture="dc_connect_at")
    assert attribution.blocking_cause(in_setup) == ("hang in x_connect (libx.so) in the set-up",
                                                    "provider")
    # no stack (an older run, or the process did not answer the probe)
    assert attribution.blocking_cause(with_cause(frees("TIMEOUT"), hang=True)) == \
        ("hang in a call of the case", "provider")


def test_old_results_without_causes(tmp_path):
    """Results of earlier runs carry no cause: UNRESOLVED is a set-up failure,
    a CRASH after a verdict (reached) a teardown crash, a CRASH before one a
    failure of the case."""
    torn = frees("CRASH")
    torn["reached"] = "PASS"
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": torn,
                                 "dat_ep_free.invalid_handle":
                                     result("dat_ep_free.invalid_handle", "UNRESOLVED")})
    assert a.views["dat_ep_free.frees"].status == "pass"     # charged to the close
    assert a.views["dat_ep_free.invalid_handle"].status == "not-demonstrated"
    assert a.views["dat_ia_close.abrupt_always_succeeds"].status == "fail"
    a = attr_analysis(tmp_path, {"dat_ep_free.frees": frees("CRASH")})
    assert a.views["dat_ep_free.frees"].status == "fail"


def contested_catalog(tmp_path, contested='fails = "a"\nholds = "b"\nraised = "c"\n'):
    from helpers import write_catalog
    from datcts_reports.catalog import load_dir
    d = write_catalog(tmp_path / "clauses", {"dat_ep_free": [("frees", "shall", []),
                                                             ("reading", "shall", [])]})
    f = d / "dat_ep_free.toml"
    f.write_text(f.read_text() + "[clause.contested]\n" + contested)
    return load_dir(d)


def test_a_contested_clause_is_reported_apart_and_never_fails_the_certificate(tmp_path):
    from datcts_reports.html import render
    cat = contested_catalog(tmp_path)
    assert cat.clauses["dat_ep_free.reading"].contested == {"fails": "a", "holds": "b",
                                                           "raised": "c"}
    a = Analysis(cat, make_doc([result("dat_ep_free.frees"),
                                result("dat_ep_free.reading", "FAIL")]))
    assert a.views["dat_ep_free.reading"].status == "contested"
    v = a.verdict()
    assert v["verdict"] == "conformant", v["explanation"]
    assert v["shall"]["contested"] == 1 and v["shall"]["fails"] == 0
    assert "1 contested clause" in v["explanation"]
    assert v["contested_shall"] == [{"clause": "dat_ep_free.reading",
                                     "readings": {"fails": "a", "holds": "b", "raised": "c"},
                                     "cases": [{"id": "dat_ep_free.reading", "state": "FAIL"}]}]
    assert v["blocking_causes"] == []
    assert 'id="contested"' in render(a)
    # another clause that fails still makes it NOT CONFORMANT; a contested
    # clause that passes simply holds
    a = Analysis(cat, make_doc([result("dat_ep_free.frees", "FAIL"),
                                result("dat_ep_free.reading")]))
    assert a.verdict()["verdict"] == "not-conformant"
    assert a.views["dat_ep_free.reading"].status == "pass"
    # not demonstrated stays not demonstrated
    a = Analysis(cat, make_doc([result("dat_ep_free.frees"),
                                result("dat_ep_free.reading", "UNRESOLVED")]))
    assert a.verdict()["verdict"] == "incomplete"


@pytest.mark.parametrize("bad", ['fails = "a"\nholds = "b"\n',
                                 'fails = "a"\nholds = ""\nraised = "c"\n',
                                 'fails = "a"\nholds = "b"\nraised = "c"\nextra = "d"\n'])
def test_a_contested_table_needs_both_readings_and_where_raised(tmp_path, bad):
    from datcts_reports import ReportError
    with pytest.raises(ReportError, match="contested"):
        contested_catalog(tmp_path, bad)


def test_a_case_of_several_clauses_fails_only_the_clause_whose_check_missed(tmp_path):
    from helpers import small_catalog
    cat = small_catalog(tmp_path, {"dat_ep_free": [("a", "shall", []), ("b", "shall", []),
                                                   ("c", "shall", [])]})
    clauses = ["dat_ep_free.a", "dat_ep_free.b", "dat_ep_free.c"]
    r = result("dat_ep_free.a", "FAIL", clauses=clauses)
    r["clause_at"] = {"clause": "dat_ep_free.b", "held": ["dat_ep_free.a"]}
    a = Analysis(cat, make_doc([r]))
    assert [a.views[c].status for c in clauses] == ["pass", "fail", "not-demonstrated"]
    assert "stopped at a check of dat_ep_free.b" in a.views["dat_ep_free.c"].why
    assert a.verdict()["shall"]["fails"] == 1
    # a crash while checking the second clause: the same
    r = result("dat_ep_free.a", "CRASH", clauses=clauses)
    r["clause_at"] = {"clause": "dat_ep_free.b", "held": ["dat_ep_free.a"]}
    a = Analysis(cat, make_doc([r]))
    assert [a.views[c].status for c in clauses] == ["pass", "fail", "not-demonstrated"]
    # without DC_FOR_CLAUSE a miss fails every clause the case names
    a = Analysis(cat, make_doc([result("dat_ep_free.a", "FAIL", clauses=clauses)]))
    assert [a.views[c].status for c in clauses] == ["fail"] * 3


def test_model_not_supported_pages_match_the_harness():
    """The verdict's list of pages that give DAT_MODEL_NOT_SUPPORTED is the
    harness's (harness/attrs.c model_ns_pages): one fact, checked in two places."""
    import re
    from datcts_reports import REPO
    from datcts_reports.analysis import MODEL_NOT_SUPPORTED_PAGES
    src = (REPO / "harness" / "attrs.c").read_text()
    table = src[src.index("model_ns_pages[]"):]
    table = table[:table.index("};")]
    assert set(re.findall(r'"(dat_[a-z_]+)"', table)) == set(MODEL_NOT_SUPPORTED_PAGES)
