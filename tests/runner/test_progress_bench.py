"""The live progress line on a terminal, and bench-overhead."""

import json
import os
import pty
import select
import subprocess

from conftest import datcts_cmd, datcts_env


def test_live_progress_line_on_a_terminal(fakebuild, tmp_path):
    master, slave = pty.openpty()
    p = subprocess.Popen(
        datcts_cmd("run", "--build-dir", fakebuild, "--out", tmp_path / "o",
                   "-k", "selftest.pass", "-k", "selftest.fail", "-k", "selftest.requires_met"),
        stdout=slave, stderr=subprocess.PIPE, env=datcts_env())
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 60)
        assert r, "no output from the runner"
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    p.wait(timeout=60)
    text = b"".join(chunks).decode(errors="replace")
    assert "\r\x1b[2K" in text
    assert "datcts [3/3] 1 failing" in text
    assert "left |" in text
    # failures scroll above the live line
    assert "FAIL        selftest.fail" in text
    # a pass is not printed as its own line on a terminal
    assert "PASS        selftest.pass" not in text
    assert p.returncode == 1


def test_bench_overhead_runs(fakebuild, tmp_path):
    bench = os.environ.get("DATCTS_TEST_BENCH")
    if not bench:
        bench = str(fakebuild.parents[2] / "bench")
    p = subprocess.run(
        datcts_cmd("bench-overhead", "--cases-dir", bench, "--dat-conf",
                   fakebuild / "dat.conf", "--ia", "fake0", "--count", "8", "--json"),
        capture_output=True, text=True, env=datcts_env(), timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    rep = json.loads(p.stdout)
    kinds = {(k["case"], k["batch"]): k for k in rep["kinds"]}
    assert set(kinds) == {("bench.single", 1), ("bench.single", 8), ("bench.two_node", 1)}
    for k in kinds.values():
        assert k["states"] == {"PASS": 8}
        assert k["ms_per_case"] > 0
    assert rep["fixed_run_cost_ms"] > 0
