"""Fixtures for the runner's tests: the fake build tree made by CMake
(tests/runner/CMakeLists.txt) and a helper that runs the datcts CLI."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _find_fakebuild() -> Path:
    env = os.environ.get("DATCTS_TEST_BUILD")
    if env:
        return Path(env)
    for b in sorted(REPO.glob("build*/tests/runner/fakebuild")):
        if (b / "cases" / "datcts-cases-selftest").exists():
            return b
    pytest.fail("no fake build tree: run through ctest, or set DATCTS_TEST_BUILD")


@pytest.fixture(scope="session")
def fakebuild() -> Path:
    return _find_fakebuild()


@pytest.fixture(scope="session")
def selftest_bin(fakebuild) -> Path:
    return fakebuild / "cases" / "datcts-cases-selftest"


@pytest.fixture(scope="session")
def case_env(fakebuild) -> dict:
    env = dict(os.environ)
    env["DAT_OVERRIDE"] = str(fakebuild / "dat.conf")
    env["DATCTS_IA"] = "fake0"
    return env


class Run:
    def __init__(self, proc, out: Path):
        self.proc = proc
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out

    @property
    def doc(self) -> dict:
        return json.loads((self.out / "results.json").read_text())

    @property
    def results(self) -> dict:
        return {r["id"]: r for r in self.doc["results"]}

    def journal(self) -> list:
        p = self.out / "results.jsonl"
        return [json.loads(l) for l in p.read_text().splitlines() if l.strip()]


# --timeout for runs that include selftest.hang: the hang pays it once, and
# every other case must finish well inside it even in the ASan build on a
# 2-CPU machine busy with other tests (1 s was not: CI saw a TIMEOUT for
# selftest.requires_malformed, whose whole work is opening the fake IA).
HANG_TIMEOUT = "5"


def datcts_cmd(*args) -> list:
    return [sys.executable, "-m", "datcts", *map(str, args)]


def datcts_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "runners") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for k in ("DAT_OVERRIDE", "DATCTS_IA", "DATCTS_TIMEOUT"):
        env.pop(k, None)
    return env


@pytest.fixture
def datcts(fakebuild, tmp_path):
    """datcts(*args, out=None) runs the CLI against the fake build tree."""

    def run(*args, out=None, build=True, timeout=120):
        out = Path(out) if out else tmp_path / "out"
        argv = ["run", "--build-dir", fakebuild] if build else []
        if args and args[0] in ("list", "bench-overhead"):
            argv = [args[0], "--build-dir", fakebuild] if build else [args[0]]
            args = args[1:]
        elif build:
            argv += ["--out", out]
        proc = subprocess.run(datcts_cmd(*argv, *args), capture_output=True, text=True,
                              env=datcts_env(), timeout=timeout, cwd=tmp_path)
        return Run(proc, out)

    return run
