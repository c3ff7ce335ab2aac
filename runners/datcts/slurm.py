"""Across a cluster through Slurm: every node and every link of an allocation.

`datcts run --slurm` takes the nodes of a Slurm allocation (the one it runs
in, from SLURM_JOB_ID; or one it asks for with salloc and releases at the
end) and makes each node a host of a multi-host run (datcts.hosts) whose
processes start with `srun --jobid J --overlap -w NODE -N1 -n1`, one step
per half, never ssh.  The two-node protocol, relay, isolation, timeouts,
host-failure handling and resume are datcts.hosts's, unchanged; this module
only says how to reach a node, where the cases run (single-node cases on
every node, two-node cases over pairs: ring, all, first) and what the run
records about the cluster (run.cluster).  docs/multi-host.md, "Slurm".
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
from pathlib import Path

from datcts.hosts import (DEFAULT_IA_FOR_LIBRARY, Host, HostLauncher, HostsError, HostSpec,
                          HostsRun, prepare_all)

PAIRS = ("ring", "all", "first")
# What --instance-data may name, filled in per node.
PLACEHOLDERS = ("{node}", "{node_addr}")
# Every step's name, so the steps a run left (a half the runner killed at a
# timeout; srun killed by SIGKILL does not end its step) can be found.
STEP_NAME = "datcts-half"
SLURM_CLIENT_TIMEOUT_S = 60.0


class SlurmError(HostsError):
    """Slurm is not usable for the run (exit 2)."""


def _client(argv: list, *, timeout=SLURM_CLIENT_TIMEOUT_S) -> subprocess.CompletedProcess:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise SlurmError(f"{argv[0]} not found: --slurm needs Slurm's clients "
                         "(Debian: slurm-client)") from e
    except subprocess.TimeoutExpired as e:
        raise SlurmError(f"{' '.join(argv)}: no answer within {timeout:g} s") from e
    if p.returncode != 0:
        raise SlurmError(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()}")
    return p


# ---------------------------------------------------------------- allocation


class Allocation:
    """A job's nodes; `owned` when datcts asked for it (then it releases it)."""

    def __init__(self, job_id: str, owned: bool):
        self.job_id = job_id
        self.owned = owned
        self.nodes = self._nodes()

    def _nodes(self) -> list:
        show = _client(["scontrol", "show", "job", "-o", self.job_id]).stdout
        m = re.search(r"(?:^|\s)NodeList=(\S+)", show)
        if not m or m.group(1) in ("(null)", ""):
            raise SlurmError(f"job {self.job_id} has no nodes (scontrol show job: "
                             f"{show.strip()[:200]})")
        return _client(["scontrol", "show", "hostnames", m.group(1)]).stdout.split()

    def addresses(self) -> dict:
        """node -> the address other nodes reach it at: Slurm's NodeAddr,
        resolved to a literal when it is a name."""
        out = {}
        for line in _client(["scontrol", "show", "node", "-o", ",".join(self.nodes)]
                            ).stdout.splitlines():
            name = re.search(r"NodeName=(\S+)", line)
            addr = re.search(r"NodeAddr=(\S+)", line)
            if name and addr:
                out[name.group(1)] = addr.group(1)
        for n in self.nodes:
            a = out.get(n, n)
            try:
                out[n] = socket.getaddrinfo(a, None)[0][4][0]
            except OSError:
                out[n] = a
        return out

    def leftover_steps(self) -> list:
        p = subprocess.run(["squeue", "-h", "-s", "-j", self.job_id, "-o", "%i %j"],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           timeout=SLURM_CLIENT_TIMEOUT_S)
        return [line.split()[0] for line in p.stdout.splitlines()
                if line.split()[1:] == [STEP_NAME]]

    def release(self) -> None:
        """The run is over: cancel the steps it left, and the job if it is ours."""
        try:
            if self.owned:
                subprocess.run(["scancel", self.job_id], capture_output=True,
                               stdin=subprocess.DEVNULL, timeout=SLURM_CLIENT_TIMEOUT_S)
                return
            steps = self.leftover_steps()
            if steps:
                subprocess.run(["scancel", *steps], capture_output=True,
                               stdin=subprocess.DEVNULL, timeout=SLURM_CLIENT_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            pass


def allocate(nodes: int, partition: str | None, time_limit: str | None) -> Allocation:
    """salloc --no-shell: a job of `nodes` nodes, kept when one of them
    fails (--no-kill), so the others go on; released by Allocation.release."""
    argv = ["salloc", "--no-shell", f"--nodes={nodes}", "--no-kill", "--job-name=datcts"]
    if partition:
        argv.append(f"--partition={partition}")
    if time_limit:
        argv.append(f"--time={time_limit}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_JOB")}
    try:
        p = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           env=env)
    except FileNotFoundError as e:
        raise SlurmError("salloc not found: --slurm needs Slurm's clients "
                         "(Debian: slurm-client)") from e
    m = re.search(r"Granted job allocation (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        raise SlurmError(f"salloc: exit {p.returncode}: {p.stderr.strip()}")
    return Allocation(m.group(1), owned=True)


# ---------------------------------------------------------------- launcher


class SlurmHost(HostLauncher):
    """A node of the allocation: each process is one step, `srun --overlap`
    (the halves of many cases share the job's CPUs) on that node only.
    srun passes the runner's environment (DAT_OVERRIDE, DATCTS_IA) on."""

    job_id = ""   # the allocation's, set by _prepare

    def wrap(self, argv, env):
        return ["srun", f"--jobid={self.job_id}", "--overlap", f"--nodelist={self.spec.node}",
                "--nodes=1", "--ntasks=1", "--quiet", f"--job-name={STEP_NAME}",
                "--export=ALL", "--", *argv]

    def lost(self, rc, stderr, killed_by_runner, what):
        # srun exits 128+N when the task died of signal N (a cancelled step's
        # task: SIGKILL); judge it as the signal, like the other launchers.
        if rc is not None and rc > 128 and (rc - 128) in {int(x) for x in signal.valid_signals()}:
            rc = -(rc - 128)
        return super().lost(rc, stderr, killed_by_runner, what)

    def popen_env(self, env):
        base = super().popen_env(env)
        # A batch job's own task layout would otherwise shape the steps.
        for k in ("SLURM_NTASKS", "SLURM_NPROCS", "SLURM_NNODES", "SLURM_TASKS_PER_NODE",
                  "SLURM_NTASKS_PER_NODE", "SLURM_CPUS_PER_TASK", "SLURM_DISTRIBUTION"):
            base.pop(k, None)
        return base


# ---------------------------------------------------------------- placement


def pair_directions(pairs: str, nodes: list) -> list:
    """(passive, active) directions: 'ring' node i with i+1 both ways (every
    node once passive and once active each way round), 'all' every
    ordered pair, 'first' the first two nodes both ways (one host: both
    halves there)."""
    n = len(nodes)
    if n == 1:
        return [(nodes[0], nodes[0])]
    if pairs == "first" or n == 2:
        return [(nodes[0], nodes[1]), (nodes[1], nodes[0])]
    if pairs == "all":
        return [(p, a) for p in nodes for a in nodes if p != a]
    out = []
    for i in range(n):
        a, b = nodes[i], nodes[(i + 1) % n]
        out += [(a, b), (b, a)]
    return out


def fill(template: str | None, node: str, addr: str) -> str | None:
    if template is None:
        return None
    return template.replace("{node_addr}", addr).replace("{node}", node)


# ---------------------------------------------------------------- the run


class SlurmRun(HostsRun):
    """A HostsRun over the nodes of an allocation, which it releases."""

    allocation: Allocation
    pairs: str

    def cluster_meta(self) -> dict:
        return {"launcher": "slurm", "job_id": self.allocation.job_id,
                "allocated_by_datcts": self.allocation.owned,
                "nodes": [h.spec.name for h in self.hosts], "pairs": self.pairs,
                "directions": [list(d) for d in self.directions]}

    def release(self) -> None:
        self.allocation.release()


def add_options(p) -> None:
    g = p.add_argument_group("across a Slurm cluster (docs/multi-host.md, Slurm)")
    g.add_argument("--slurm", action="store_true",
                   help="run on the nodes of a Slurm allocation: this job's (SLURM_JOB_ID), "
                   "or one of --nodes nodes asked for and released at the end; halves start "
                   "with srun")
    g.add_argument("--nodes", type=int, metavar="N",
                   help="with --slurm outside an allocation: allocate N nodes (salloc)")
    g.add_argument("--partition", metavar="P", help="with --nodes: the partition")
    g.add_argument("--time", metavar="T", help="with --nodes: the time limit (Slurm's format)")
    g.add_argument("--pairs", choices=PAIRS,
                   help="with --slurm: the node pairs of two-node cases: ring (default: node "
                   "i with i+1, both ways), all (every ordered pair), first (the first two)")


def from_args(args, build_dir: Path, cases_dir: Path, out_dir: Path) -> SlurmRun | None:
    """None without --slurm; else the prepared nodes (SlurmError when
    unusable).  The allocation is released on error here, else by the
    caller through SlurmRun.release."""
    if not getattr(args, "slurm", False):
        used = [o for o, v in (("--nodes", args.nodes), ("--partition", args.partition),
                               ("--time", args.time), ("--pairs", args.pairs)) if v]
        if used:
            raise SlurmError(f"{', '.join(used)} need --slurm")
        return None
    if args.hosts:
        raise SlurmError("--slurm and --hosts are two ways to name the hosts: give one")
    if args.instance_data and not args.provider:
        raise SlurmError("--instance-data needs --provider (the runner writes a dat.conf "
                         "entry for that library on each node)")
    if args.provider and args.dat_conf:
        raise SlurmError("--provider and --dat-conf are two ways to name the provider")
    if (args.partition or args.time) and not args.nodes:
        raise SlurmError("--partition and --time need --nodes (inside an allocation its "
                         "nodes are used)")
    if args.nodes is not None and args.nodes < 1:
        raise SlurmError("--nodes must be at least 1")
    if args.nodes:
        alloc = allocate(args.nodes, args.partition, args.time)
    elif os.environ.get("SLURM_JOB_ID"):
        alloc = Allocation(os.environ["SLURM_JOB_ID"], owned=False)
    else:
        raise SlurmError("--slurm outside an allocation needs --nodes N (or run inside "
                         "salloc/sbatch)")
    try:
        return _prepare(args, alloc, build_dir, Path(cases_dir), out_dir)
    except BaseException:
        alloc.release()
        raise


def _prepare(args, alloc: Allocation, build_dir: Path, cases_dir: Path,
             out_dir: Path) -> SlurmRun:
    from datcts.discovery import find_binaries

    addrs = alloc.addresses()
    hosts = []
    for node in alloc.nodes:
        spec = HostSpec(name=node, kind="slurm", build_dir=str(build_dir),
                        cases_dir=str(Path(cases_dir).resolve()), node=node,
                        address=addrs.get(node))
        if args.provider:
            spec.library = os.path.abspath(args.provider)
            spec.ia = args.ia or DEFAULT_IA_FOR_LIBRARY
            spec.instance_data = fill(args.instance_data or "", node, addrs.get(node, node))
        else:
            spec.ia = args.ia or os.environ.get("DATCTS_IA") or None
            spec.dat_conf = str(Path(args.dat_conf or os.environ.get("DAT_OVERRIDE")
                                     or build_dir / "dat.conf").resolve())
        launcher = SlurmHost(spec, cases_dir)
        launcher.job_id = alloc.job_id
        hosts.append(Host(spec, launcher, out_dir))
    prepare_all(hosts, [b.name for b in find_binaries(cases_dir)], SlurmError)
    directions = pair_directions(args.pairs or "ring", alloc.nodes)
    run = SlurmRun(hosts, directions, list(alloc.nodes))
    run.allocation = alloc
    run.pairs = args.pairs or "ring"
    return run
