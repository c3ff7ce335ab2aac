"""The case binary on its own: --list, --run, the two-node line protocol."""

import json
import subprocess

import pytest


def run_bin(binary, *args, env, stdin=None, timeout=60):
    return subprocess.run([str(binary), *args], capture_output=True, text=True,
                          env=env, timeout=timeout, input=stdin)


def results_of(proc):
    return [json.loads(l) for l in proc.stdout.splitlines() if l.startswith("{")]


def test_list_is_a_json_array_with_the_contract_fields(selftest_bin, case_env):
    p = run_bin(selftest_bin, "--list", env=case_env)
    assert p.returncode == 0, p.stderr
    items = json.loads(p.stdout)
    by_id = {i["id"]: i for i in items}
    assert len(by_id) == len(items)
    keys = {"id", "page", "area", "clauses", "summary", "requires", "two_node", "file", "line"}
    for i in items:
        assert keys <= set(i), i
        assert i["area"] == "selftest"
        assert i["file"] == "tests/runner/cases/selftest.c"
    assert by_id["selftest.pass"]["clauses"] == ["selftest.pass", "selftest.pass_too"]
    assert by_id["selftest.fail"]["clauses"] == ["selftest.fail"]  # defaults to the id
    assert by_id["selftest.unsupported_srq"]["requires"] == ["srq_supported"]
    assert by_id["selftest.relay"]["two_node"] is True
    assert by_id["selftest.pass"]["two_node"] is False


def test_run_prints_one_result_line_per_case(selftest_bin, case_env):
    p = run_bin(selftest_bin, "--run", "selftest.pass", "selftest.fail", env=case_env)
    rs = results_of(p)
    assert [r["id"] for r in rs] == ["selftest.pass", "selftest.fail"]
    assert [r["state"] for r in rs] == ["PASS", "FAIL"]
    assert p.returncode == 1
    for r in rs:
        for k in ("id", "state", "message", "file", "line", "duration_ms", "clauses",
                  "page", "area", "output", "signal", "hosts", "halves"):
            assert k in r
        assert r["hosts"] == ["local"]
    assert "hello from a passing case" in rs[0]["output"]
    assert rs[1]["message"] == (
        "r: expected DAT_INVALID_STATE (subtype DAT_INVALID_STATE_SRQ_IN_USE), "
        f"got DAT_SUCCESS at tests/runner/cases/selftest.c:{rs[1]['line']}")


def test_run_accepts_globs_and_rejects_unknown_ids(selftest_bin, case_env):
    p = run_bin(selftest_bin, "--run", "selftest.fail*", env=case_env)
    assert {r["id"] for r in results_of(p)} == {"selftest.fail", "selftest.fail_int"}
    p = run_bin(selftest_bin, "--run", "selftest.nope", env=case_env)
    assert p.returncode == 2
    assert "no case selftest.nope" in p.stderr


def test_timeout_kills_the_case(selftest_bin, case_env):
    p = run_bin(selftest_bin, "--run", "selftest.hang", "--timeout", "0.3", env=case_env)
    (r,) = results_of(p)
    assert r["state"] == "TIMEOUT"
    assert 250 <= r["duration_ms"] < 5000


def test_missing_ia_is_unresolved(selftest_bin, case_env):
    env = dict(case_env)
    del env["DATCTS_IA"]
    (r,) = results_of(run_bin(selftest_bin, "--run", "selftest.pass", env=env))
    assert r["state"] == "UNRESOLVED"
    assert "DATCTS_IA" in r["message"]


def test_output_that_is_not_utf8_stays_valid_json(selftest_bin, case_env):
    (r,) = results_of(run_bin(selftest_bin, "--run", "selftest.garbage_output", env=case_env))
    assert r["state"] == "PASS"
    assert "bad \ufffd\ufffd bytes" in r["output"]
    assert "\x1b[31mred" in r["output"]


def test_two_halves_in_one_command(selftest_bin, case_env):
    (r,) = results_of(run_bin(selftest_bin, "--run", "selftest.relay", env=case_env))
    assert r["state"] == "PASS", r
    assert set(r["halves"]) == {"passive", "active"}
    assert r["hosts"] == ["local", "local"]


def test_role_mode_speaks_the_line_protocol(selftest_bin, case_env):
    """The runner's side of the relay, by hand: passive announces, active
    starts its body only after the ready line reaches it."""
    common = ["--run", "selftest.relay", "--timeout", "20"]
    pas = subprocess.Popen([str(selftest_bin), *common, "--role", "passive"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                           env=case_env, bufsize=1)
    act = subprocess.Popen([str(selftest_bin), *common, "--role", "active"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                           env=case_env, bufsize=1)
    try:
        ready = json.loads(pas.stdout.readline())
        assert ready == {"ready": {"addr": "127.0.0.1", "conn_qual": 4242, "data": "extra"}}
        act.stdin.write(json.dumps(ready) + "\n")
        act.stdin.flush()
        ping = json.loads(act.stdout.readline())
        assert ping == {"msg": {"tag": "ping", "data": "hello"}}
        pas.stdin.write(json.dumps(ping) + "\n")
        pas.stdin.flush()
        pong = json.loads(pas.stdout.readline())
        assert pong == {"msg": {"tag": "pong", "data": "hello back"}}
        act.stdin.write(json.dumps(pong) + "\n")
        act.stdin.flush()
        done = json.loads(act.stdout.readline())
        assert done["msg"]["tag"] == "done"
        pas.stdin.write(json.dumps(done) + "\n")
        pas.stdin.flush()
        res_a = json.loads(act.stdout.readline())["result"]
        res_p = json.loads(pas.stdout.readline())["result"]
        assert res_a["state"] == res_p["state"] == "PASS"
        assert res_a["role"] == "active" and res_p["role"] == "passive"
    finally:
        for p in (pas, act):
            p.stdin.close()
            p.wait(timeout=20)
    assert pas.returncode == 0 and act.returncode == 0


def test_role_mode_peer_done_releases_a_waiting_half(selftest_bin, case_env):
    p = subprocess.run(
        [str(selftest_bin), "--run", "selftest.relay", "--role", "active", "--timeout", "20"],
        input=json.dumps({"peer_done": {"state": "CRASH", "message": "killed by SIGSEGV"}}) + "\n",
        capture_output=True, text=True, env=case_env, timeout=30)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    res = lines[-1]["result"]
    assert res["state"] == "UNRESOLVED" and res["by_peer"] is True
    assert "CRASH: killed by SIGSEGV" in res["message"]


@pytest.mark.parametrize("args", [["--role", "passive"], ["--role", "sideways"]])
def test_role_needs_one_two_node_case(selftest_bin, case_env, args):
    p = run_bin(selftest_bin, "--run", "selftest.pass", *args, env=case_env)
    assert p.returncode == 2
