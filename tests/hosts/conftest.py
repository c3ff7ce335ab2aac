"""Fixtures for the multi-host tests: the project's build, network
namespaces joined by veth pairs (made and removed here, names unique to this
test run), a stand-in ssh client, and a helper running `datcts run`."""

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FAKE_SSH = HERE / "fake_ssh.py"


def _find_build() -> Path | None:
    env = os.environ.get("DATCTS_TEST_BUILD_ROOT")
    cands = [Path(env)] if env else sorted(REPO.glob("build*"))
    for b in cands:
        if (b / "cases" / "datcts-cases-ep").is_file() and (b / "lib" / "libdaplref.so").exists():
            return b
    return None


@pytest.fixture(scope="session")
def build() -> Path:
    b = _find_build()
    if b is None:
        pytest.fail("no build with cases/datcts-cases-ep and lib/libdaplref.so: run through "
                    "ctest, or set DATCTS_TEST_BUILD_ROOT")
    return b.resolve()


def _netns_unavailable() -> str | None:
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs as root)"
    if not shutil.which("ip"):
        return "no `ip` (iproute2)"
    name = f"dcts-{os.getpid()}-probe"
    p = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if p.returncode != 0:
        return f"`ip netns add` does not work here: {p.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


@pytest.fixture(scope="session")
def netns_ok():
    why = _netns_unavailable()
    if why:
        pytest.skip(why)


def ip(*args, check=True):
    p = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {p.stderr.strip()}")
    return p


class Net:
    """Hosts as namespaces dcts-<pid>-<n><x> on one switch (a bridge in a
    namespace of its own), each joined by a veth pair with the address
    10.77.<subnet>.<i>/24.  Every address lives inside a namespace made
    here; removing one host's namespace leaves the others' addresses."""

    _serial = itertools.count()

    def __init__(self, subnet: int):
        self.tag = f"dcts-{os.getpid()}-{next(self._serial)}"
        self.subnet = subnet
        self.made: list = []
        self.addr: dict = {}
        self.switch = self._add_ns("sw")
        ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        ip("-n", self.switch, "link", "set", "br0", "up")

    def ns(self, short: str) -> str:
        return f"{self.tag}{short}"

    def _add_ns(self, short: str) -> str:
        name = self.ns(short)
        ip("netns", "add", name)
        self.made.append(name)
        ip("-n", name, "link", "set", "lo", "up")
        return name

    def add(self, short: str, i: int) -> str:
        """Host `short` with the address 10.77.<subnet>.<i>."""
        name = self._add_ns(short)
        port = f"p{short}"
        ip("link", "add", "eth0", "netns", name, "type", "veth", "peer", "name", port,
           "netns", self.switch)
        ip("-n", self.switch, "link", "set", port, "master", "br0")
        ip("-n", self.switch, "link", "set", port, "up")
        addr = f"10.77.{self.subnet}.{i}"
        ip("-n", name, "addr", "add", f"{addr}/24", "dev", "eth0")
        ip("-n", name, "link", "set", "eth0", "up")
        self.addr[short] = addr
        return name

    def pids(self, short: str) -> list:
        p = ip("netns", "pids", self.ns(short), check=False)
        return [int(x) for x in p.stdout.split()]

    def cleanup(self) -> None:
        for name in self.made:
            for pid in [int(x) for x in ip("netns", "pids", name, check=False).stdout.split()]:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            ip("netns", "del", name, check=False)


@pytest.fixture
def net(netns_ok):
    n = None
    try:
        n = Net(3)
        yield n
    finally:
        if n:
            n.cleanup()


@pytest.fixture(scope="module")
def net3(netns_ok):
    """Three hosts a, b, c: 10.77.1.1, .2, .3."""
    n = None
    try:
        n = Net(1)
        for i, x in enumerate("abc", 1):
            n.add(x, i)
        yield n
    finally:
        if n:
            n.cleanup()


def netns_host(name, ns, build, addr, **extra) -> str:
    lines = [
        "[[host]]",
        f'name = "{name}"',
        'kind = "netns"',
        f'netns = "{ns}"',
        f'build_dir = "{build}"',
        f'library = "{build}/lib/libdaplref.so"',
        f'instance_data = "sock:{addr}"',
    ]
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    return "\n".join(lines) + "\n\n"


def ssh_host(name, ns, build, addr, **extra) -> str:
    """A kind = "ssh" host whose ssh client is the stand-in: it checks the
    command line like ssh would and runs the remote command in `ns`."""
    lines = [
        "[[host]]",
        f'name = "{name}"',
        'kind = "ssh"',
        f'destination = "tester@{ns}"',
        "port = 2222",
        f'identity_file = "{HERE}/no-such-key"',
        'ssh_options = ["StrictHostKeyChecking=yes"]',
        f'ssh_program = ["{sys.executable}", "{FAKE_SSH}"]',
        f'build_dir = "{build}"',
        f'library = "{build}/lib/libdaplref.so"',
        f'instance_data = "sock:{addr}"',
        'env = { DATCTS_TEST_MARK = "via-ssh" }',
    ]
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    return "\n".join(lines) + "\n\n"


def datcts_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "runners"), str(REPO / "reports")])
    for k in ("DAT_OVERRIDE", "DATCTS_IA", "DATCTS_TIMEOUT", "PYTEST_ADDOPTS"):
        env.pop(k, None)
    return env


def datcts_argv(build, out, hosts_file, *args) -> list:
    return [sys.executable, "-m", "datcts", "run", "--build-dir", str(build), "--out", str(out),
            "--hosts", str(hosts_file), *map(str, args)]


class Result:
    def __init__(self, rc, stdout, stderr, out: Path):
        self.rc, self.stdout, self.stderr, self.out = rc, stdout, stderr, out

    @property
    def doc(self) -> dict:
        return json.loads((self.out / "results.json").read_text())

    @property
    def results(self) -> dict:
        return {r["id"]: r for r in self.doc["results"]}

    def journal(self) -> list:
        p = self.out / "results.jsonl"
        return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


@pytest.fixture
def run_datcts(build, tmp_path):
    def run(hosts_text: str, *args, out=None, timeout=120):
        hosts = tmp_path / "hosts.toml"
        hosts.write_text(hosts_text)
        out = Path(out) if out else tmp_path / "out"
        p = subprocess.run(datcts_argv(build, out, hosts, *args), capture_output=True,
                           text=True, env=datcts_env(), timeout=timeout, cwd=tmp_path)
        return Result(p.returncode, p.stdout, p.stderr, out)

    return run
