"""tools/ofa/findings.py --rotate: each finding on one IA, walking every (finding, IA) pair as N
counts up (the VM job's ci scope, tools/vm/verbs-suite.sh)."""

import re
import subprocess
import sys
import tomllib

from conftest import REPO

TOOL = REPO / "tools" / "ofa" / "findings.py"
FINDINGS = tomllib.loads((REPO / "tests" / "ofa" / "repro" / "findings.toml").read_text())["finding"]


def fake_build(tmp_path, answer="ABSENT", code=1):
    """A build tree whose every reproducer prints ANSWER and exits CODE."""
    d = tmp_path / "bin" / "ofa-repro"
    d.mkdir(parents=True)
    for f in FINDINGS:
        b = d / f["name"]
        b.write_text(f"#!/bin/sh\necho '{answer}: fake'\nexit {code}\n")
        b.chmod(0o755)
    return tmp_path


def runs(build, *args):
    p = subprocess.run([sys.executable, str(TOOL), "--build", str(build), "--dat-conf",
                        "/dev/null", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return [(m[1], m[2]) for m in re.finditer(r"^ok +(\S+) on (\S+):", p.stdout, re.M)]


def test_rotation_walks_every_pair(tmp_path):
    build = fake_build(tmp_path, "SHOWS", 0)
    ias = ["ofa-v2-cma-rxe0", "ofa-v2-cma-siw0", "ofa-v2-scm-rxe0", "ofa-v2-ucm-rxe0"]
    given = [a for ia in ias for a in ("--ia", ia)]
    every = set(runs(build, *given, "--expect", "shows"))
    assert every == {(f["name"], ia) for f in FINDINGS for ia in f["ias"]}
    seen = set()
    for n in range(4):
        one = runs(build, *given, "--expect", "shows", "--rotate", str(n))
        assert len(one) == len(FINDINGS)     # one IA each, and only IAs the entry lists
        assert set(one) <= every
        seen |= set(one)
    assert seen == every


def test_rotation_of_the_controls(tmp_path):
    build = fake_build(tmp_path)
    one = runs(build, "--ia", "ref-a", "--ia", "ref-b", "--expect", "absent", "--rotate", "0")
    assert len(one) == len(FINDINGS)
    assert {ia for _, ia in one} == {"ref-a", "ref-b"}
