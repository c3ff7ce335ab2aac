"""datcts diff OLD NEW."""

import json
import subprocess
import sys

from datcts_reports.diff import diff, format_text

from conftest import reports_env
from helpers import clone, fix_summary, make_doc, result, save, write_catalog


def base():
    return [
        result("dat_ep_free.frees", duration_ms=10.0),
        result("dat_ep_free.invalid_handle", "FAIL", duration_ms=12.0),
        result("dat_srq_resize.grows", duration_ms=11.0),
        result("dat_srq_resize.below_low_watermark", duration_ms=9.0),
        result("dat_cr_query.reports_params", "FAIL", duration_ms=10.0),
        result("dat_cr_query.invalid_handle", duration_ms=10.0),
    ]


def changed():
    rs = {r["id"]: r for r in base()}
    rs["dat_ep_free.frees"] = result("dat_ep_free.frees", "FAIL", message="got DAT_INVALID_STATE",
                                     duration_ms=10.0)                      # regression
    rs["dat_ep_free.invalid_handle"] = result("dat_ep_free.invalid_handle", duration_ms=12.0)  # fix
    rs["dat_srq_resize.grows"] = result("dat_srq_resize.grows", waiver="bug 9", duration_ms=11.0)
    rs["dat_srq_resize.below_low_watermark"] = result("dat_srq_resize.below_low_watermark",
                                                      duration_ms=400.0)    # outlier
    rs["dat_cr_query.reports_params"] = result("dat_cr_query.reports_params", "CRASH",
                                               duration_ms=10.0)            # worse
    return list(rs.values()) + [result("dat_cr_query.new_case", "UNSUPPORTED")]


def test_categories():
    d = diff(make_doc(base()), make_doc(changed()))
    reg = {e["id"]: e["kind"] for e in d["regressions"]}
    assert reg == {"dat_ep_free.frees": "new failure", "dat_cr_query.reports_params": "worse"}
    assert [e["id"] for e in d["fixes"]] == ["dat_ep_free.invalid_handle"]
    assert [e["id"] for e in d["waived_but_passing"]] == ["dat_srq_resize.grows"]
    assert [(e["id"], e["direction"]) for e in d["duration_outliers"]] == \
        [("dat_srq_resize.below_low_watermark", "slower")]
    assert d["added"] == ["dat_cr_query.new_case"] and d["removed"] == []


def test_state_changes_and_new_failing_case():
    old = make_doc([result("dat_ep_free.frees"), result("dat_ep_free.invalid_handle", "FAIL")])
    new = make_doc([result("dat_ep_free.frees", "UNSUPPORTED"),
                    result("dat_ep_free.invalid_handle", "FAIL", waiver="bug 3"),
                    result("dat_ep_free.brand_new", "TIMEOUT")])
    d = diff(old, new)
    assert {e["id"]: e["kind"] for e in d["state_changes"]} == {
        "dat_ep_free.frees": "worse", "dat_ep_free.invalid_handle": "newly waived"}
    assert [(e["id"], e["kind"]) for e in d["regressions"]] == [("dat_ep_free.brand_new",
                                                                 "new case, failing")]


def test_expired_waiver_is_a_regression():
    old = make_doc([result("dat_ep_free.frees", "FAIL", waiver="bug 3")])
    new = make_doc([result("dat_ep_free.frees", "FAIL")])
    assert [e["kind"] for e in diff(old, new)["regressions"]] == ["new failure"]


def test_a_slower_machine_is_not_an_outlier():
    old = make_doc([result(f"dat_ep_free.c{i}", duration_ms=100.0) for i in range(10)])
    new = make_doc([result(f"dat_ep_free.c{i}", duration_ms=300.0) for i in range(10)])
    d = diff(old, new)
    assert d["duration_outliers"] == [] and d["duration_median_ratio"] == 3.0


def test_no_change():
    d = diff(make_doc(base()), make_doc(base()))
    assert not (d["regressions"] or d["fixes"] or d["state_changes"] or d["duration_outliers"])
    assert "0 regression(s), 0 fix(es), 0 other change(s)" in format_text(d)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "datcts_reports", *map(str, args)],
                          capture_output=True, text=True, env=reports_env())


def test_cli_exit_codes_and_text(tmp_path):
    cat = write_catalog(tmp_path / "clauses")
    old = save(make_doc(base()), tmp_path / "old" / "results.json")
    new = save(make_doc(changed()), tmp_path / "new" / "results.json")
    p = _cli("diff", old.parent, new.parent, "--catalog", cat)
    assert p.returncode == 1, p.stdout + p.stderr
    out = p.stdout
    assert "REGRESSIONS (2)" in out
    assert "FAIL                 dat_ep_free.frees  (was PASS)  [new failure]" in out
    assert "got DAT_INVALID_STATE" in out
    assert "FIXED (1)" in out and "dat_ep_free.invalid_handle  (was FAIL)" in out
    assert "WAIVED BUT PASSING (the waiver can go) (1)" in out
    assert "slower  dat_srq_resize.below_low_watermark  9 ms -> 400 ms" in out
    assert "verdict (provider): NOT CONFORMANT -> NOT CONFORMANT" in out
    # no registry clause in this catalog, no registry recorded in the runs
    assert "verdict (registry libdat): INCOMPLETE -> INCOMPLETE" in out
    # reversed: the fixes become regressions and vice versa
    p = _cli("diff", new, old, "--catalog", cat, "--json")
    d = json.loads(p.stdout)
    assert p.returncode == 1 and [e["id"] for e in d["regressions"]] == ["dat_ep_free.invalid_handle"]
    # no regression -> 0
    fixed = clone(make_doc(changed()))
    for r in fixed["results"]:
        if r["state"] in ("FAIL", "CRASH"):
            r.update(state="PASS", message="")
    save(fix_summary(fixed), tmp_path / "fixed" / "results.json")
    p = _cli("diff", old.parent, tmp_path / "fixed", "--catalog", cat)
    assert p.returncode == 0, p.stdout


def test_cli_bad_input(tmp_path):
    p = _cli("diff", tmp_path / "nope", tmp_path / "nope2")
    assert p.returncode == 2 and "no such file" in p.stderr
