"""Waivers (expectations file) and --resume, including an interrupted run."""

import datetime as dt
import json
import os
import select
import signal
import subprocess

from conftest import HANG_TIMEOUT, datcts_cmd, datcts_env

FUTURE = (dt.date.today() + dt.timedelta(days=365)).isoformat()
PAST = (dt.date.today() - dt.timedelta(days=1)).isoformat()


def write(tmp_path, text):
    p = tmp_path / "expect.toml"
    p.write_text(text)
    return p


def test_waivers(datcts, tmp_path):
    exp = write(tmp_path, f"""
[[waiver]]
id = "selftest.fail"
reason = "provider bug #12"
expires = {FUTURE}

[[waiver]]
id = "selftest.pass"
reason = "was broken"
expires = {FUTURE}

[[waiver]]
id = "selftest.fail_int"
reason = "old excuse"
expires = {PAST}
""")
    r = datcts("--expectations", exp, "-k", "selftest.pass", "-k", "selftest.fail*")
    res = r.results
    assert res["selftest.fail"]["state"] == "FAIL"
    assert res["selftest.fail"]["waived"] is True
    assert res["selftest.fail"]["waiver"]["reason"] == "provider bug #12"
    assert res["selftest.pass"]["state"] == "PASS"
    assert res["selftest.pass"]["waived_but_passing"] is True
    assert res["selftest.fail_int"]["waived"] is False
    assert f"waiver for selftest.fail_int expired on {PAST}; ignored" in r.stderr
    assert r.doc["summary"]["waived"] == 1
    assert r.doc["summary"]["waived_but_passing"] == 1
    assert r.rc == 1  # the expired waiver covers nothing
    assert "PASS (waived but passing) selftest.pass" in r.stdout
    assert any("expired" in w for w in r.doc["warnings"])


def test_all_failures_waived_exits_zero(datcts, tmp_path):
    exp = write(tmp_path, "\n".join(
        f'[[waiver]]\nid = "{i}"\nreason = "known"\nexpires = {FUTURE}\n'
        for i in ("selftest.fail", "selftest.crash_abort", "selftest.setup_fails",
                  "selftest.hang", "no.such.case")))
    r = datcts("--expectations", exp, "--timeout", HANG_TIMEOUT, "-k", "selftest.fail",
               "-k", "selftest.crash_abort", "-k", "selftest.setup_fails",
               "-k", "selftest.hang", "-k", "selftest.pass")
    assert r.rc == 0, r.stdout + r.stderr
    assert r.doc["summary"]["waived"] == 4
    assert "waiver for no.such.case: no such case" in r.stderr
    import xml.etree.ElementTree as ET
    cases = ET.parse(r.out / "junit.xml").getroot().findall(".//testcase")
    skipped = [c.get("name") for c in cases if c.find("skipped") is not None]
    assert len(skipped) == 4


def test_teardown_crash_waiver(datcts, tmp_path):
    """A pattern waiver for a provider that crashes after a case's result
    covers that CRASH in any case, and nothing else."""
    exp = write(tmp_path, f"""
[[waiver]]
id = "selftest.*"
teardown_crash = true
reason = "the provider's thread outlives dat_ia_close"
expires = {FUTURE}
""")
    r = datcts("--expectations", exp, "-k", "selftest.crash_in_teardown",
               "-k", "selftest.crash_segv", "-k", "selftest.pass")
    res = r.results
    torn = res["selftest.crash_in_teardown"]
    assert torn["state"] == "CRASH" and torn["reached"] == "PASS", torn
    assert "during teardown, after the case had reached PASS" in torn["message"]
    assert torn["waived"] is True
    assert torn["waiver"] == {"id": "selftest.*", "teardown_crash": True,
                              "reason": "the provider's thread outlives dat_ia_close",
                              "expires": FUTURE}
    body = res["selftest.crash_segv"]
    assert body["state"] == "CRASH" and "reached" not in body
    assert body["waived"] is False and body["waiver"] is None
    assert res["selftest.pass"]["waiver"] is None
    assert res["selftest.pass"]["waived_but_passing"] is False
    assert r.doc["summary"]["waived"] == 1
    assert r.rc == 1  # the crash in the body is not covered


def test_malformed_expectations_are_a_usage_error(datcts, tmp_path):
    exp = write(tmp_path, f'[[waiver]]\nid = "selftest.fail"\nexpires = {FUTURE}\n')
    r = datcts("--expectations", exp, "-k", "selftest.fail")
    assert r.rc == 2
    assert "needs a 'reason'" in r.stderr
    exp = write(tmp_path, '[[waiver]]\nid = "selftest.fail"\nreason = "x"\nexpires = "soon"\n')
    assert datcts("--expectations", exp, "-k", "selftest.fail").rc == 2
    exp = write(tmp_path, f'[[waiver]]\nid = "selftest.*"\nreason = "x"\nexpires = {FUTURE}\n')
    r = datcts("--expectations", exp, "-k", "selftest.fail")
    assert r.rc == 2
    assert "a pattern id is only allowed with teardown_crash = true" in r.stderr


def test_resume_skips_finished_ids(datcts, tmp_path):
    out = tmp_path / "o"
    first = datcts("-k", "selftest.pass", "-k", "selftest.fail", out=out)
    assert first.rc == 1
    before = {r["id"]: r for r in first.journal()}
    second = datcts("--resume", "-k", "selftest.pass", "-k", "selftest.fail",
                    "-k", "selftest.requires_met", out=out)
    journal = second.journal()
    assert [r["id"] for r in journal].count("selftest.pass") == 1  # not run again
    assert len(journal) == 3
    res = second.results
    assert res["selftest.pass"]["resumed"] is True
    assert res["selftest.requires_met"]["resumed"] is False
    assert res["selftest.pass"]["duration_ms"] == before["selftest.pass"]["duration_ms"]
    assert second.doc["summary"]["resumed"] == 2
    assert second.rc == 1  # the resumed FAIL still counts


def test_resume_drops_a_torn_last_line(datcts, tmp_path):
    out = tmp_path / "o"
    datcts("-k", "selftest.pass", out=out)
    with open(out / "results.jsonl", "a") as f:
        f.write('{"id": "selftest.requires_met", "sta')  # killed mid-write
    r = datcts("--resume", "-k", "selftest.pass", "-k", "selftest.requires_met", out=out)
    assert r.rc == 0
    assert [x["id"] for x in r.journal()] == ["selftest.pass", "selftest.requires_met"]


def test_interrupted_run_keeps_results_and_resumes(fakebuild, tmp_path):
    out = tmp_path / "o"
    marker = "61.25"  # an unusual --timeout marks this run's processes
    argv = datcts_cmd("run", "--build-dir", fakebuild, "--out", out, "--jobs", "1",
                      "--timeout", marker, "-k", "selftest.pass", "-k", "selftest.hang")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=datcts_env())
    try:
        # The plain progress line of the first case is the sign that it is
        # journaled; the hanging case comes next.
        line = p.stdout.readline()
        assert line.startswith("PASS") and "selftest.pass" in line
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 128 + signal.SIGTERM, err
    assert "interrupted" in err
    doc = json.loads((out / "results.json").read_text())
    assert doc["run"]["complete"] is False
    assert [r["id"] for r in doc["results"]] == ["selftest.pass"]
    assert doc["summary"]["not_run"] == 1
    # No case process of this run outlives it (they die of SIGKILL; wait
    # for that on pidfds rather than guessing a delay).
    for fd in _pidfds(f"--timeout {marker}"):
        ready, _, _ = select.select([fd], [], [], 10)
        os.close(fd)
        assert ready, "a case process outlived the interrupted runner"

    r = subprocess.run(datcts_cmd("run", "--build-dir", fakebuild, "--out", out, "--resume",
                                  "--timeout", HANG_TIMEOUT, "-k", "selftest.pass", "-k", "selftest.hang"),
                       capture_output=True, text=True, env=datcts_env(), timeout=60)
    doc = json.loads((out / "results.json").read_text())
    assert doc["run"]["complete"] is True
    assert {x["id"]: x["state"] for x in doc["results"]} == {
        "selftest.pass": "PASS", "selftest.hang": "TIMEOUT"}
    assert doc["results"][0]["resumed"] is True
    assert r.returncode == 1


def _pidfds(pattern):
    """pidfds of live case processes whose command line has `pattern`."""
    fds = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{d}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if pattern in cmd and "datcts-cases-selftest" in cmd and state != "Z":
            try:
                fds.append(os.pidfd_open(int(d)))
            except OSError:
                pass
    return fds


def test_resume_refuses_another_provider(datcts, tmp_path, fakebuild):
    out = tmp_path / "o"
    assert datcts("-k", "selftest.pass", out=out).rc == 0
    r = datcts("--resume", "--provider", fakebuild / "lib" / "libdatcts-fakeprov.so",
               "--ia", "other", "-k", "selftest.pass", out=out)
    assert r.rc == 2
    assert "use another --out" in r.stderr
