"""Fixtures of the Slurm tests: the project's build, a real Slurm cluster of
four nodes on network namespaces (tools/slurm/cluster.py; made once for the
session and torn down after it), and a helper running `datcts run --slurm`
against it."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "slurm"))

import cluster as cluster_mod  # noqa: E402  (tools/slurm/cluster.py)

NODES = 4


@pytest.fixture(scope="session")
def build() -> Path:
    root = os.environ.get("DATCTS_TEST_BUILD_ROOT")
    b = Path(root) if root else REPO / "build"
    if not (b / "cases" / "datcts-cases-ep").is_file():
        pytest.fail(f"no build with cases/datcts-cases-ep in {b}: run through ctest, or set "
                    "DATCTS_TEST_BUILD_ROOT")
    return b.resolve()


@pytest.fixture(scope="session")
def mutant_provider(build) -> Path:
    """libdaplref with the hand-written mutants in it: the copy of the
    sources `datcts mutate` builds (docs/mutants.md, "The switch"); the
    provider built from the sources has none."""
    from datcts import handmut
    out = Path(os.environ.get("DATCTS_TEST_OUT") or tempfile.mkdtemp()) / "mutant-copy"
    out.mkdir(parents=True, exist_ok=True)
    try:
        lib_dir = handmut.build(REPO, out, ["daplref"], 2, out / "build.log")
    except handmut.HandError as e:
        pytest.fail(f"the mutant copy does not build: {e}")
    return lib_dir / "libdaplref.so"


@pytest.fixture(scope="session")
def cluster():
    why = cluster_mod.unavailable()
    if why:
        pytest.skip(why)
    # Not under pytest's 0700 tmp tree: munged and the daemons want a
    # directory others may read (mode 755).
    d = Path(tempfile.mkdtemp(prefix="datcts-slurm-"))
    c = cluster_mod.Cluster(d, NODES)
    try:
        c.up()
        yield c
    finally:
        c.down()


class Run:
    def __init__(self, p, out: Path):
        self.rc, self.stdout, self.stderr, self.out = p.returncode, p.stdout, p.stderr, out

    @property
    def doc(self) -> dict:
        return json.loads((self.out / "results.json").read_text())

    @property
    def verdict(self) -> dict:
        return json.loads((self.out / "verdict.json").read_text())

    def journal(self) -> list:
        p = self.out / "results.jsonl"
        return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


def datcts_env(cluster, **extra) -> dict:
    env = cluster.client_env()
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "runners"), str(REPO / "reports")])
    for k in ("DAT_OVERRIDE", "DATCTS_IA", "DATCTS_TIMEOUT", "PYTEST_ADDOPTS"):
        env.pop(k, None)
    env.update(extra)
    return env


def datcts_argv(build, out, *args) -> list:
    """`datcts run --slurm` of the reference provider on the sock transport,
    each node's dat.conf naming the node's own address."""
    return [sys.executable, "-m", "datcts", "run", "--slurm", "--build-dir", str(build),
            "--out", str(out), "--provider", str(build / "lib" / "libdaplref.so"),
            "--instance-data", "sock:{node_addr}", "--timeout", "20", "-q",
            *map(str, args)]


@pytest.fixture
def run_datcts(build, cluster, tmp_path):
    def run(*args, out=None, env=None, timeout=300):
        out = Path(out) if out else tmp_path / "out"
        p = subprocess.run(datcts_argv(build, out, *args), capture_output=True, text=True,
                           env=datcts_env(cluster, **(env or {})), timeout=timeout,
                           cwd=tmp_path)
        return Run(p, out)

    return run


def slurm(cluster, *argv) -> str:
    p = subprocess.run(list(argv), capture_output=True, text=True, env=cluster.client_env(),
                       timeout=60, check=True)
    return p.stdout


def allocate(cluster, nodes=NODES) -> str:
    """A job of the test's own (as a user's salloc would be), kept when a
    node fails."""
    p = subprocess.run(["salloc", "--no-shell", f"--nodes={nodes}", "--no-kill",
                        "--job-name=test-alloc"], capture_output=True, text=True,
                       env=cluster.client_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stderr.split("Granted job allocation ")[1].split()[0]


def steps_of(cluster, job: str) -> list:
    """The job's running steps (none once the job is gone)."""
    p = subprocess.run(["squeue", "-h", "-s", "-j", job, "-o", "%i %j"], capture_output=True,
                       text=True, env=cluster.client_env(), timeout=60)
    return p.stdout.split("\n")[:-1]


def listed(build, *filters) -> list:
    """The cases `datcts list` selects with these filters (so a count follows
    the cases as they are added)."""
    p = subprocess.run([sys.executable, "-m", "datcts", "list", "--build-dir", str(build),
                        "--json", *filters], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONPATH": str(REPO / "runners")}, timeout=120)
    return json.loads(p.stdout)


def jobs(cluster) -> list:
    return slurm(cluster, "squeue", "-h", "-o", "%i %T").split("\n")[:-1]
