"""datcts run: every state reported right, the exit code, the artifacts."""

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from conftest import HANG_TIMEOUT, Run, datcts_cmd, datcts_env

EXPECTED = {
    "other_page.pass": "PASS",
    "other_page.also_pass": "PASS",
    "selftest.pass": "PASS",
    "selftest.fail": "FAIL",
    "selftest.fail_int": "FAIL",
    "selftest.crash_segv": "CRASH",
    "selftest.crash_abort": "CRASH",
    "selftest.crash_in_teardown": "CRASH",
    "selftest.crash_in_cleanup": "CRASH",
    "selftest.requires_unreported": "UNSUPPORTED",
    "selftest.short_of_resources": "UNRESOLVED",
    "selftest.exit_early": "CRASH",
    "selftest.hang": "TIMEOUT",
    "selftest.hang_in_setup": "TIMEOUT",
    "selftest.hang_in_call": "TIMEOUT",
    "selftest.second_clause_misses": "FAIL",
    "selftest.for_a_clause_it_does_not_name": "UNRESOLVED",
    "selftest.unsupported_srq": "UNSUPPORTED",
    "selftest.requires_met": "PASS",
    "selftest.requires_malformed": "UNRESOLVED",
    "selftest.setup_fails": "UNRESOLVED",
    "selftest.hook_present": "PASS",
    "selftest.hook_absent": "UNSUPPORTED",
    "selftest.model_not_supported": "UNSUPPORTED",
    "selftest.model_not_supported_wrong_page": "UNRESOLVED",
    "selftest.unchanged": "PASS",
    "selftest.changed": "FAIL",
    "selftest.noisy": "PASS",
    "selftest.no_ia": "PASS",
    "selftest.garbage_output": "PASS",
    "selftest.relay": "PASS",
    "selftest.relay_active_fails": "FAIL",
    "selftest.relay_passive_crashes": "CRASH",
}


@pytest.fixture(scope="module")
def full_run(fakebuild, tmp_path_factory):
    import subprocess

    out = tmp_path_factory.mktemp("full") / "out"
    proc = subprocess.run(
        datcts_cmd("run", "--build-dir", fakebuild, "--out", out, "--timeout", HANG_TIMEOUT,
                   "--jobs", "2"),
        capture_output=True, text=True, env=datcts_env(), timeout=300)
    return Run(proc, out)


def test_every_case_is_reported_with_its_state(full_run):
    got = {i: r["state"] for i, r in full_run.results.items()}
    assert got == EXPECTED, full_run.stderr


def test_cases_alone_or_batched_give_the_same_results(full_run, fakebuild, tmp_path):
    """--batch 1 starts a supervisor per case; the default runs several
    through one, which forks each alone: crashes, hangs and output alike."""
    import subprocess

    out = tmp_path / "alone"
    proc = subprocess.run(
        datcts_cmd("run", "--build-dir", fakebuild, "--out", out, "--timeout", HANG_TIMEOUT,
                   "--jobs", "2", "--batch", "1"),
        capture_output=True, text=True, env=datcts_env(), timeout=300)
    alone = Run(proc, out)
    assert alone.rc == full_run.rc

    def seen(r):
        # a sanitizer's report in the output names its process and addresses
        out = re.sub(r"==\d+==|0x[0-9a-f]+", "#", r.get("output") or "")
        return [r.get(k) for k in ("state", "message", "signal", "file", "line")] + [out]

    assert {i: seen(r) for i, r in alone.results.items()} == \
        {i: seen(r) for i, r in full_run.results.items()}


def test_exit_code_reflects_failures(full_run):
    assert full_run.rc == 1


def test_messages_and_details(full_run):
    r = full_run.results
    assert r["selftest.crash_segv"]["signal"] == "SIGSEGV"
    if os.environ.get("DATCTS_SANITIZE") != "1":   # ASan's own report replaces it
        assert r["selftest.crash_segv"]["message"].startswith(
            "killed by SIGSEGV; the last call checked before it: DAT_SUCCESS at "
            "tests/runner/cases/selftest.c:"), r["selftest.crash_segv"]["message"]
    assert r["selftest.crash_abort"]["signal"] == "SIGABRT"
    assert "exited with status 7" in r["selftest.exit_early"]["message"]
    assert f"no result within {HANG_TIMEOUT} s" in r["selftest.hang"]["message"]
    # a case of several clauses says at which clause's check it missed
    assert r["selftest.second_clause_misses"]["clause_at"] == {
        "clause": "selftest.second_clause", "held": ["selftest.first_clause"]}
    assert "case bug: DC_FOR_CLAUSE(selftest.elsewhere)" in \
        r["selftest.for_a_clause_it_does_not_name"]["message"]
    # past the deadline the supervisor asks the case where it waits
    setup = r["selftest.hang_in_setup"]["cause"]
    assert (setup["phase"], setup["fixture"], setup["hang"]) == ("setup", "dc_evd_at", True)
    assert "fakeprov" in setup["frame"]["object"], setup
    call = r["selftest.hang_in_call"]["cause"]
    assert (call["phase"], call["fixture"], call["answered_by"]) == ("check", None, "provider")
    assert "fakeprov" in call["frame"]["object"], call
    cleanup = r["selftest.crash_in_cleanup"]["cause"]
    assert (cleanup["phase"], cleanup["call"], cleanup["expr"]) == \
        ("cleanup", "dat_ia_close", "dat_ia_close(ia2, DAT_CLOSE_ABRUPT_FLAG)"), cleanup
    assert "reached" not in r["selftest.crash_in_cleanup"]
    assert "which its page allows: the clause could not be checked" in \
        r["selftest.short_of_resources"]["message"]
    assert r["selftest.requires_unreported"]["cause"]["needs"] == {
        "kind": "unreported", "name": "lmr_sync_req"}
    assert "did not write the provider attribute lmr_sync_req" in \
        r["selftest.requires_unreported"]["message"]
    assert r["selftest.unsupported_srq"]["message"] == (
        "provider attribute srq_supported is DAT_FALSE (case requires srq_supported)")
    assert "dat_pz_create returned DAT_NOT_IMPLEMENTED" in r["selftest.setup_fails"]["message"]
    assert r["selftest.setup_fails"]["file"] == "tests/runner/cases/selftest.c"
    assert r["selftest.hook_absent"]["message"] == "provider offers no datcts_no_such_hook"
    assert r["selftest.hook_absent"]["needs"] == ["hook:datcts_no_such_hook"]
    assert r["selftest.hook_absent"]["cause"]["needs"] == {"kind": "hook",
                                                          "name": "datcts_no_such_hook"}
    assert "evd.evd_qlen: 8 -> 9" in r["selftest.changed"]["message"]
    assert "unknown attribute" in r["selftest.requires_malformed"]["message"]
    noisy = r["selftest.noisy"]["output"]
    assert "bytes of output omitted" in noisy and noisy.rstrip().endswith("last line")
    assert len(noisy) < 40000
    assert r["selftest.pass"]["clauses"] == ["selftest.pass", "selftest.pass_too"]
    assert r["other_page.pass"]["area"] == "other"


def test_two_node_halves(full_run):
    r = full_run.results
    ok = r["selftest.relay"]
    assert ok["hosts"] == ["local", "local"]
    assert {h["state"] for h in ok["halves"].values()} == {"PASS"}
    af = r["selftest.relay_active_fails"]
    assert af["message"] == "active: deliberate failure in the active half"
    assert af["halves"]["passive"]["state"] == "UNRESOLVED"
    assert af["halves"]["passive"]["by_peer"] is True
    pc = r["selftest.relay_passive_crashes"]
    assert pc["signal"] == "SIGABRT"
    assert pc["halves"]["active"]["by_peer"] is True
    # the active half was released by the relay, not left to the deadline
    assert "finished (CRASH: killed by SIGABRT" in pc["halves"]["active"]["message"]
    assert ") before it announced" in pc["halves"]["active"]["message"]


def test_results_json_and_journal(full_run):
    doc = full_run.doc
    assert doc["schema"] == "datcts-results/1"
    assert doc["run"]["complete"] is True
    assert doc["run"]["provider"]["ia"] == "fake0"
    assert doc["summary"]["states"]["PASS"] == list(EXPECTED.values()).count("PASS")
    assert doc["summary"]["unwaived_failures"] == sum(
        1 for s in EXPECTED.values() if s in ("FAIL", "CRASH", "TIMEOUT", "UNRESOLVED"))
    journal = full_run.journal()
    assert sorted(r["id"] for r in journal) == sorted(EXPECTED)
    # results.json keeps the selection order (binary, then source order)
    assert [r["id"] for r in doc["results"]][:3] == [
        "other_page.pass", "other_page.also_pass", "selftest.pass"]


def test_junit_has_one_testcase_per_case(full_run):
    root = ET.parse(full_run.out / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == len(EXPECTED)
    kind = {}
    for c in cases:
        kids = {k.tag for k in c} - {"properties", "system-out", "system-err"}
        kind[c.get("name")] = kids.pop() if kids else "pass"
        props = {p.get("name"): p.get("value") for p in c.iter("property")}
        assert props["state"] == EXPECTED[c.get("name")]
    assert kind["selftest.pass"] == "pass"
    assert kind["selftest.fail"] == "failure"
    assert kind["selftest.crash_segv"] == "failure"
    assert kind["selftest.hang"] == "failure"
    assert kind["selftest.setup_fails"] == "error"
    assert kind["selftest.unsupported_srq"] == "skipped"
    by_name = {c.get("name"): c for c in cases}
    assert by_name["selftest.pass"].get("classname") == "datcts.selftest"
    assert by_name["selftest.pass"].get("file") == "tests/runner/cases/selftest.c"


def test_plain_progress_lines(full_run):
    lines = full_run.stdout.splitlines()
    assert any(l.startswith("PASS") and "selftest.pass " in l for l in lines)
    assert any(l.startswith("TIMEOUT") and "selftest.hang" in l for l in lines)
    assert "\x1b[" not in full_run.stdout
    assert "25 passed" not in full_run.stderr  # the summary counts states
    err = full_run.stderr.splitlines()
    # summary, where the results are, the provider's verdict, the registry's,
    # and last the HTML report
    v = next(i for i, line in enumerate(err) if line.startswith("datcts: verdict "))
    assert "failed" in err[v - 2]
    # then the blocking causes (at most five), the registry's line, the report
    causes = err[v + 1:-2]
    assert 1 <= len(causes) <= 6 and all(c.startswith("datcts:   ") for c in causes), causes
    assert err[-2].startswith("datcts: registry libdat")
    assert err[-1].startswith("datcts: HTML report: ") and err[-1].endswith("/report.html")


def test_exit_zero_with_only_pass_and_unsupported(datcts):
    r = datcts("-k", "selftest.pass", "-k", "selftest.unsupported_srq", "-k", "selftest.relay")
    assert r.rc == 0, r.stderr
    assert {x["state"] for x in r.results.values()} == {"PASS", "UNSUPPORTED"}


def test_nothing_selected(datcts):
    r = datcts("-k", "no.such.case")
    assert r.rc == 5
    assert "no case matches" in r.stderr


@pytest.mark.parametrize("args,ids", [
    (["--area", "other"], {"other_page.pass", "other_page.also_pass"}),
    (["--page", "other_page", "--clause", "other_page.pass"], {"other_page.pass"}),
    (["--clause", "selftest.pass_too"], {"selftest.pass"}),
    (["--area", "selftest", "-k", "selftest.hook_*"], {"selftest.hook_present", "selftest.hook_absent"}),
])
def test_filters(datcts, args, ids):
    r = datcts("list", "--json", *args)
    assert r.rc == 0, r.stderr
    assert {c["id"] for c in json.loads(r.stdout)} == ids


def test_shards_split_a_selection(datcts):
    """--shard I/N: N disjoint parts that together are the selection, each a case's own
    (adding a filter does not move a case to another shard)."""
    def ids(*args):
        r = datcts("list", "--json", "--area", "selftest", *args)
        assert r.rc in (0, 5), r.stderr
        return {c["id"] for c in json.loads(r.stdout)} if r.rc == 0 else set()

    whole = ids()
    parts = [ids("--shard", f"{i}/3") for i in range(3)]
    assert set().union(*parts) == whole
    assert sum(len(p) for p in parts) == len(whole)
    assert all(parts), "three shards of 30 cases, none empty"
    narrowed = ids("-k", "selftest.hook_*", "--shard", "1/3")
    assert narrowed == parts[1] & ids("-k", "selftest.hook_*")


@pytest.mark.parametrize("spec", ["3/3", "x/2", "1", "-1/2"])
def test_bad_shard_is_a_usage_error(datcts, spec):
    r = datcts("list", "--shard", spec)
    assert r.rc == 2
    assert "--shard" in r.stderr


def test_provider_library_gets_a_generated_dat_conf(datcts, fakebuild):
    lib = fakebuild / "lib" / "libdatcts-fakeprov.so"
    r = datcts("--provider", lib, "--ia", "anyname", "--instance-data", 'a "quoted" arg',
               "-k", "selftest.pass", "-k", "selftest.unsupported_srq", "--dat-conf", "/nonexistent")
    assert r.rc == 0, r.stderr
    prov = r.doc["run"]["provider"]
    assert prov["generated_dat_conf"] is True and prov["ia"] == "anyname"
    conf = (r.out / "provider-dat.conf").read_text()
    assert f"anyname u1.2 nonthreadsafe default {lib}" in conf
    assert '"a \\"quoted\\" arg"' in conf


def test_unknown_ia_is_a_usage_error(datcts):
    r = datcts("--ia", "nope", "-k", "selftest.pass")
    assert r.rc == 2
    assert "'nope' is not a default entry" in r.stderr


def test_missing_build_is_a_usage_error(datcts, tmp_path):
    r = datcts("run", "--build-dir", tmp_path / "nothing", "--out", tmp_path / "o", build=False)
    assert r.rc == 2
    assert "no datcts-cases-* binaries" in r.stderr


def test_a_case_a_batch_leaves_without_result_runs_alone(tmp_path):
    """A supervisor that dies in the middle of a batch: the cases it gave a
    result for keep it, the rest run again, each with a supervisor of its own."""
    from datcts.discovery import Case
    from datcts.execute import LocalLauncher, ProcessTable, Runner

    binary = tmp_path / "datcts-cases-fake"
    binary.write_text(
        "#!/bin/sh\n"
        "# --run ID [ID ...] --timeout T: a result for the first ID, then the\n"
        "# supervisor dies when it was given more than one\n"
        "how=alone; [ \"$3\" = --timeout ] || how=batched\n"
        "printf '{\"id\":\"%s\",\"state\":\"PASS\",\"message\":\"%s\"}\\n' \"$2\" \"$how\"\n"
        "[ $how = alone ] || kill -9 $$\n")
    binary.chmod(0o755)
    cases = [Case(id=f"fake.{n}", page="fake", area="fake", clauses=(f"fake.{n}",),
                  summary="", requires=(), two_node=False, file="", line=0,
                  binary=str(binary), no_ia=False, needs=()) for n in ("a", "b", "c")]
    seen = []
    runner = Runner(LocalLauncher(dict(os.environ)), 5.0, ProcessTable())
    got = runner.run_batch(cases, lambda case, r: seen.append((case.id, r["message"])))
    assert {i: r["message"] for i, r in got.items()} == {
        "fake.a": "batched", "fake.b": "alone", "fake.c": "alone"}
    assert seen == [("fake.a", "batched"), ("fake.b", "alone"), ("fake.c", "alone")]
