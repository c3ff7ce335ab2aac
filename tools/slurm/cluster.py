#!/usr/bin/env python3
"""A real Slurm cluster on this machine: one slurmd per network namespace.

Debian's slurmctld and slurmd (22.05) and one munged, all with a
configuration of our own in one directory; nothing under /etc is touched.
Each node is a network namespace on a bridge of its own (own address) with
its own UTS namespace (own host name) and mount namespace (a hosts file
naming every node is bound over /etc/hosts there).  The controller has its
own namespaces too, so no daemon listens in the host's network namespace
and two clusters (the normal and the ASan build's ctest) can run at once.

    tools/slurm/cluster.py up DIR [--nodes N]   prints `export SLURM_CONF=...`
    tools/slurm/cluster.py down DIR             kills everything, deletes the network
    tools/slurm/cluster.py kill-node DIR NODE   a node dies (slurmd and its processes)
    tools/slurm/cluster.py revive-node DIR NODE it comes back
    tools/slurm/cluster.py node-env DIR NODE VAR=VALUE...   every later task there gets it

The facts this rests on (why nsenter + unshare and not `ip netns exec`,
why SIGKILL at tear-down, ...): docs/multi-host.md, "A Slurm cluster on one
machine".  Everything made is recorded in DIR/cluster.json, so `down` works
from another process (and after a crash of the one that made it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

DAEMONS = ("slurmctld", "slurmd", "munged", "nsenter", "unshare", "ip")
# Readiness of the daemons is polled (sinfo) up to this long; a cluster up
# takes ~0.2 s for 3 nodes on a 2-core machine.
UP_TIMEOUT_S = 60.0
CONTROLLER = "ctl"


def unavailable() -> str | None:
    """Why a Slurm cluster cannot run on this machine, or None."""
    if os.geteuid() != 0:
        return "a Slurm cluster on network namespaces needs root (CI runs as root)"
    missing = [d for d in DAEMONS if not shutil.which(d, path=os.environ.get("PATH", "")
                                                      + ":/usr/sbin:/sbin")]
    if missing:
        return (f"no {', '.join(missing)} (tools/deps.sh installs slurmctld slurmd "
                "slurm-client munge)")
    for client in ("srun", "salloc", "sinfo", "scontrol", "scancel", "squeue"):
        if not shutil.which(client):
            return f"no {client} (slurm-client)"
    fs = subprocess.run(["stat", "-fc", "%T", "/sys/fs/cgroup"], capture_output=True, text=True)
    if fs.stdout.strip() == "cgroup2fs":
        # slurmd 22.05 stops on a pure cgroup-v2 host here (its v2 plugin
        # needs a delegated systemd scope); only cgroup v1/hybrid was verified.
        return "pure cgroup v2 host (/sys/fs/cgroup is cgroup2fs): Debian's slurmd 22.05 " \
               "runs here only on cgroup v1 or hybrid"
    probe = f"dslprobe{os.getpid()}"
    made = _ip("netns", "add", probe, check=False)
    _ip("netns", "del", probe, check=False)
    return (None if made.returncode == 0
            else f"`ip netns add` does not work here: {made.stderr.strip()}")


def _ip(*args, check=True):
    p = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {p.stderr.strip()}")
    return p


def _sbin(name: str) -> str:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin") or name


class Cluster:
    """One cluster in DIR.  Names carry a tag (`dsl<k>`) and the subnet is
    10.79.<k>.0/24, k from the pid unless given, so they stay apart from
    tests/hosts (dcts-*, 10.77.*) and from a second cluster."""

    def __init__(self, directory: Path, nodes: int = 3, k: int | None = None):
        self.dir = Path(directory).resolve()
        if k is None:
            k = 20 + os.getpid() % 200
        self.k = k
        self.tag = f"dsl{k}"
        self.bridge = f"{self.tag}br"
        self.nodes = [f"node{i}" for i in range(1, nodes + 1)]
        self.addr = {n: f"10.79.{k}.{i}" for i, n in enumerate(self.nodes, 1)}
        self.addr[CONTROLLER] = f"10.79.{k}.250"
        self.host_addr = f"10.79.{k}.254"
        self.conf = self.dir / "slurm.conf"
        self.state: dict = {"netns": [], "bridge": None, "pidfiles": []}

    # ---- names ----

    def netns(self, node: str) -> str:
        return f"{self.tag}-{node}"

    @property
    def env(self) -> dict:
        """The environment of Slurm's clients (srun, salloc, sinfo...)."""
        return {"SLURM_CONF": str(self.conf)}

    def client_env(self) -> dict:
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("SLURM_"):
                del env[k]
        env.update(self.env)
        return env

    def _save(self) -> None:
        doc = {"k": self.k, "nodes": self.nodes, "addr": self.addr, **self.state}
        tmp = self.dir / "cluster.json.tmp"
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(self.dir / "cluster.json")

    @classmethod
    def load(cls, directory: Path) -> "Cluster":
        d = Path(directory).resolve()
        doc = json.loads((d / "cluster.json").read_text())
        c = cls(d, len(doc["nodes"]), doc["k"])
        c.state = {k: doc[k] for k in ("netns", "bridge", "pidfiles")}
        return c

    # ---- files ----

    def _write_files(self) -> None:
        d = self.dir
        # A cluster's state is throw-away: a directory used before must not
        # bring back the jobs of an earlier cluster.
        for sub in ("state", "spool", "taskenv"):
            shutil.rmtree(d / sub, ignore_errors=True)
        for sub in ("state", "log", "spool", "munge", "taskenv"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        for n in self.nodes:
            (d / "spool" / n).mkdir(exist_ok=True)
        os.chmod(d, 0o755)
        os.chmod(d / "munge", 0o755)   # munged refuses a group/world-writable socket dir
        key = d / "munge" / "munge.key"
        if not key.exists():
            key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        hosts = ["127.0.0.1 localhost"] + [f"{a} {n}" for n, a in self.addr.items()]
        (d / "hosts").write_text("\n".join(hosts) + "\n")
        # Per-node environment of every task (`--node-env`): a TaskProlog's
        # `export` lines go into the task's environment.  Each node has its
        # own host name (UTS namespace), which names its file.
        prolog = d / "task-prolog.sh"
        prolog.write_text("#!/bin/sh\n"
                          f'f={d}/taskenv/$(hostname)\n'
                          '[ -r "$f" ] && cat "$f"\n'
                          "exit 0\n")
        os.chmod(prolog, 0o755)
        lines = [
            "ClusterName=datcts",
            f"SlurmctldHost={CONTROLLER}({self.addr[CONTROLLER]})",
            "SlurmUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={d}/munge/munge.sock",
            f"StateSaveLocation={d}/state",
            f"SlurmdSpoolDir={d}/spool/%n",
            f"SlurmctldPidFile={d}/slurmctld.pid",
            f"SlurmdPidFile={d}/slurmd.%n.pid",
            f"SlurmctldLogFile={d}/log/slurmctld.log",
            f"SlurmdLogFile={d}/log/slurmd.%n.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            f"TaskProlog={prolog}",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "SlurmdParameters=config_overrides",
            "ReturnToService=2",
            "SchedulerParameters=batch_sched_delay=0",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "InactiveLimit=0",
            "KillWait=2",
            # A killed slurmd is noticed at the next ping: keep it short so a
            # dead node turns DOWN within a test.
            "SlurmdTimeout=10",
        ]
        for n in self.nodes:
            lines.append(f"NodeName={n} NodeAddr={self.addr[n]} NodeHostname={n} "
                         "CPUs=2 RealMemory=1000 State=UNKNOWN")
        lines.append("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP")
        self.conf.write_text("\n".join(lines) + "\n")

    def set_node_env(self, node: str, env: dict) -> None:
        """Environment every later task on `node` gets (through TaskProlog)."""
        text = "".join(f"export {k}={v}\n" for k, v in env.items())
        (self.dir / "taskenv" / node).write_text(text)

    # ---- network ----

    def _add_netns(self, name: str, i: int, addr: str) -> None:
        ns = self.netns(name)
        _ip("netns", "add", ns)
        self.state["netns"].append(ns)
        self._save()
        _ip("-n", ns, "link", "set", "lo", "up")
        host_end = f"{self.tag}v{i}"
        _ip("link", "add", host_end, "type", "veth", "peer", "name", "eth0", "netns", ns)
        _ip("link", "set", host_end, "master", self.bridge)
        _ip("link", "set", host_end, "up")
        _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")

    def _network(self) -> None:
        _ip("link", "add", self.bridge, "type", "bridge")
        self.state["bridge"] = self.bridge
        self._save()
        # The host filters bridged traffic through iptables
        # (bridge-nf-call-iptables); this bridge must not be.
        _ip("link", "set", self.bridge, "type", "bridge", "nf_call_iptables", "0")
        _ip("addr", "add", f"{self.host_addr}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        self._add_netns(CONTROLLER, 0, self.addr[CONTROLLER])
        for i, n in enumerate(self.nodes, 1):
            self._add_netns(n, i, self.addr[n])

    # ---- daemons ----

    def _in_node(self, name: str, command: str) -> None:
        """Runs `command` (a shell line ending in `exec DAEMON`) in the
        node's network namespace with its own host name and hosts file.
        Not `ip netns exec`: it remounts /sys, hiding /sys/fs/cgroup, and
        slurmd then cannot initialise its cgroup plugin."""
        script = (f"mount --bind {self.dir}/hosts /etc/hosts && hostname {name} && "
                  + command)
        p = subprocess.run(
            ["nsenter", f"--net=/run/netns/{self.netns(name)}", "unshare", "--uts", "--mount",
             "--propagation", "slave", "sh", "-c", script],
            capture_output=True, text=True, env=self.client_env(), stdin=subprocess.DEVNULL,
            timeout=UP_TIMEOUT_S)
        if p.returncode != 0:
            raise RuntimeError(f"{name}: {command}: exit {p.returncode}: {p.stderr.strip()}")

    def _munged(self) -> None:
        m = self.dir / "munge"
        pidfile = m / "munged.pid"
        self.state["pidfiles"].append(str(pidfile))
        self._save()
        subprocess.run([_sbin("munged"), f"--key-file={m}/munge.key", f"--socket={m}/munge.sock",
                        f"--pid-file={pidfile}", f"--log-file={self.dir}/log/munged.log",
                        f"--seed-file={m}/munge.seed", "--force"],
                       check=True, capture_output=True, stdin=subprocess.DEVNULL)

    def start_slurmd(self, node: str) -> None:
        self.state["pidfiles"].append(str(self.dir / f"slurmd.{node}.pid"))
        self._save()
        self._in_node(node, f"exec {_sbin('slurmd')} -N {node} -f {self.conf}")

    def up(self) -> "Cluster":
        why = unavailable()
        if why:
            raise RuntimeError(why)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._save()
        try:
            self._write_files()
            self._network()
            self._munged()
            self.state["pidfiles"].append(str(self.dir / "slurmctld.pid"))
            self._save()
            self._in_node(CONTROLLER, f"exec {_sbin('slurmctld')} -f {self.conf}")
            for n in self.nodes:
                self.start_slurmd(n)
            self.wait_idle(self.nodes)
        except BaseException:
            self.down()
            raise
        return self

    def sinfo_states(self) -> dict:
        p = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %T"], capture_output=True,
                           text=True, env=self.client_env(), timeout=30)
        out = {}
        for line in p.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2:
                out[parts[0]] = parts[1]
        return out

    def wait_idle(self, nodes: list, timeout: float = UP_TIMEOUT_S) -> None:
        """Until every node of `nodes` is idle (a node that comes back after
        a failure may also be allocated, mixed: that is up too)."""
        end = time.monotonic() + timeout
        states = {}
        while time.monotonic() < end:
            states = self.sinfo_states()
            if all(states.get(n, "").rstrip("*") in ("idle", "mixed", "allocated")
                   for n in nodes):
                return
            time.sleep(0.05)
        raise RuntimeError(f"nodes not up within {timeout:g} s: {states}; logs in "
                           f"{self.dir}/log")

    # ---- faults ----

    def kill_node(self, node: str) -> None:
        """The node dies: its slurmd and every process in its namespace
        (proctrack/linuxproc does not follow processes that detach)."""
        _kill_pidfile(self.dir / f"slurmd.{node}.pid")
        _kill_netns(self.netns(node))

    def revive_node(self, node: str) -> None:
        """A killed node comes back: its slurmd again (ReturnToService=2
        puts it back in service when it registers)."""
        self.start_slurmd(node)
        self.wait_idle([node])

    # ---- tear-down ----

    def down(self) -> None:
        """SIGKILL the daemons by their pid files (the state is throw-away;
        SIGTERM costs seconds each), kill what is left in the namespaces,
        delete the namespaces and the bridge."""
        for pf in self.state.get("pidfiles", []):
            _kill_pidfile(Path(pf))
        for ns in self.state.get("netns", []):
            _kill_netns(ns)
            _ip("netns", "del", ns, check=False)
        if self.state.get("bridge"):
            _ip("link", "del", self.state["bridge"], check=False)
        self.state = {"netns": [], "bridge": None, "pidfiles": []}
        if self.dir.exists():
            self._save()


def _kill_pidfile(path: Path) -> None:
    try:
        pid = int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_netns(ns: str) -> None:
    p = _ip("netns", "pids", ns, check=False)
    for pid in p.stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError, ValueError):
            pass


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="cluster.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("up")
    p.add_argument("dir")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--subnet", type=int, help="k of 10.79.k.0/24 and of the names dsl<k>")
    p = sub.add_parser("down")
    p.add_argument("dir")
    p = sub.add_parser("kill-node")
    p.add_argument("dir")
    p.add_argument("node")
    p = sub.add_parser("revive-node")
    p.add_argument("dir")
    p.add_argument("node")
    p = sub.add_parser("node-env", help="environment of every later task on NODE "
                       "(no VAR=VALUE: none)")
    p.add_argument("dir")
    p.add_argument("node")
    p.add_argument("assignments", nargs="*", metavar="VAR=VALUE")
    p = sub.add_parser("check", help="say why a cluster cannot run here (exit 1), or nothing")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "check":
            why = unavailable()
            if why:
                print(why)
            return 1 if why else 0
        if args.cmd == "up":
            c = Cluster(Path(args.dir), args.nodes, args.subnet).up()
            print(f"export SLURM_CONF={c.conf}")
        elif args.cmd == "down":
            Cluster.load(Path(args.dir)).down()
        elif args.cmd == "node-env":
            c = Cluster.load(Path(args.dir))
            c.set_node_env(args.node, dict(a.split("=", 1) for a in args.assignments))
        elif args.cmd == "kill-node":
            Cluster.load(Path(args.dir)).kill_node(args.node)
        elif args.cmd == "revive-node":
            Cluster.load(Path(args.dir)).revive_node(args.node)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
        print(f"cluster.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
