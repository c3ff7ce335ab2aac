"""Across hosts: the two halves of a two-node case on different hosts.

A hosts file (TOML, docs/multi-host.md) names the hosts and how to reach
each one: the runner's own machine (`local`), a network namespace on it
(`netns`, started with `ip netns exec`) or another machine (`ssh`, BatchMode,
keys only).  Each host has its own provider (an IA of a dat.conf there, or a
provider library for which the runner writes a dat.conf there) and its own
datcts build.  At the start every host is fingerprinted through its launcher
(hostname, kernel, the dat.conf line, the provider library's sha256, the
provider's attributes); a host that does not answer then is a configuration
error.  During the run the line protocol of the two halves is relayed by the
runner exactly as on one host (docs/results-format.md); only the launcher
differs.

A host that dies or becomes unreachable mid-run: a process of it that ends
without a result makes the runner probe the host (`true` through the same
launcher).  A failed probe marks the host dead: the case in hand and every
later case that needs the host become UNRESOLVED "host NAME unreachable:
..." at once, without waiting for timeouts; everything else goes on.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
import signal
import subprocess
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from datcts.discovery import Case
from datcts.execute import (OPTIONAL_HALF_FIELDS, Runner, normalize, severity, signal_name,
                            synthesized)
from datcts.provider import ProviderError, ProviderSetup, parse_dat_conf

KINDS = ("local", "netns", "ssh")
DEFAULT_IA_FOR_LIBRARY = "datcts-ia"
FINGERPRINT_TIMEOUT_S = 60.0
DEFAULT_PROBE_TIMEOUT_S = 10.0
# ssh options the runner adds after the user's (ssh keeps the first value
# given for an option, so the user's win; BatchMode=yes comes before both).
SSH_DEFAULT_OPTIONS = ("ConnectTimeout=10", "ServerAliveInterval=10", "ServerAliveCountMax=3")
# Options the hosts file may not set: the runner never lets ssh ask for a
# password or a passphrase.
SSH_FORBIDDEN_OPTIONS = ("batchmode", "passwordauthentication", "kbdinteractiveauthentication",
                         "challengeresponseauthentication", "numberofpasswordprompts")
# Signals that only come from outside (a person, a script, the host going
# down); a supervisor dying of one of these did not crash by itself.
EXTERNAL_SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class HostsError(ProviderError):
    """The hosts file or a host is unusable (exit 2, like a bad dat.conf)."""


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- the file


@dataclass
class HostSpec:
    name: str
    kind: str
    build_dir: str
    cases_dir: str
    netns: str | None = None
    destination: str | None = None
    port: int | None = None
    identity_file: str | None = None
    ssh_options: list = field(default_factory=list)
    ssh_program: list = field(default_factory=lambda: ["ssh"])
    ia: str | None = None
    dat_conf: str | None = None
    library: str | None = None
    instance_data: str | None = None
    env: dict = field(default_factory=dict)
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT_S

    node: str | None = None     # kind "slurm" (datcts.slurm): the node of the allocation
    address: str | None = None  # kind "slurm": the address peers reach the node at

    @property
    def target(self) -> str | None:
        return {"netns": self.netns, "ssh": self.destination, "slurm": self.node}.get(self.kind)


_COMMON_KEYS = {"name", "kind", "build_dir", "cases_dir", "ia", "dat_conf", "library",
                "instance_data", "env", "probe_timeout"}
_KIND_KEYS = {
    "local": set(),
    "netns": {"netns"},
    "ssh": {"destination", "port", "identity_file", "ssh_options", "ssh_program"},
}


def _str(where, d, key, required=False):
    v = d.get(key)
    if v is None:
        if required:
            raise HostsError(f"{where}: '{key}' is required")
        return None
    if not isinstance(v, str) or not v:
        raise HostsError(f"{where}: '{key}' must be a non-empty string")
    return v


def load_hosts(path: Path, default_build_dir: Path) -> list[HostSpec]:
    """The hosts of a hosts file, in file order; every problem is a
    HostsError naming the host and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise HostsError(f"{path}: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise HostsError(f"{path}: not valid TOML: {e}") from e
    extra = set(data) - {"host"}
    if extra:
        raise HostsError(f"{path}: unknown top-level key(s) {', '.join(sorted(extra))} "
                         "(a hosts file has only [[host]] tables)")
    items = data.get("host")
    if not isinstance(items, list) or not items:
        raise HostsError(f"{path}: no [[host]] table")
    hosts: list[HostSpec] = []
    for i, d in enumerate(items, 1):
        where = f"{path}: host #{i}"
        if not isinstance(d, dict):
            raise HostsError(f"{where}: must be a table")
        name = _str(where, d, "name", True)
        if not NAME_RE.fullmatch(name):
            raise HostsError(f"{where}: name {name!r} must be letters, digits, '_', '.', '-'")
        where = f"{path}: host {name}"
        if any(h.name == name for h in hosts):
            raise HostsError(f"{where}: the name is used twice")
        kind = _str(where, d, "kind", True)
        if kind not in KINDS:
            raise HostsError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        unknown = set(d) - _COMMON_KEYS - _KIND_KEYS[kind]
        if unknown:
            raise HostsError(f"{where}: unknown key(s) for kind {kind}: "
                             f"{', '.join(sorted(unknown))}")
        build = _str(where, d, "build_dir", kind == "ssh")
        if build is None:
            build = str(default_build_dir)
        if kind != "ssh":
            build = str(Path(build).expanduser().resolve())
        cases = _str(where, d, "cases_dir") or str(Path(build) / "cases")
        spec = HostSpec(name=name, kind=kind, build_dir=build, cases_dir=cases)
        spec.ia = _str(where, d, "ia")
        spec.dat_conf = _str(where, d, "dat_conf")
        spec.library = _str(where, d, "library")
        spec.instance_data = d.get("instance_data")
        if spec.instance_data is not None and not isinstance(spec.instance_data, str):
            raise HostsError(f"{where}: 'instance_data' must be a string")
        if spec.instance_data is not None and not spec.library:
            raise HostsError(f"{where}: 'instance_data' needs 'library' (the runner writes "
                             "a dat.conf entry for that library)")
        env = d.get("env", {})
        if not isinstance(env, dict) or not all(
                isinstance(k, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)
                and isinstance(v, str) for k, v in env.items()):
            raise HostsError(f"{where}: 'env' must map variable names to strings")
        spec.env = dict(env)
        pt = d.get("probe_timeout", DEFAULT_PROBE_TIMEOUT_S)
        if not isinstance(pt, (int, float)) or isinstance(pt, bool) or pt <= 0:
            raise HostsError(f"{where}: 'probe_timeout' must be a positive number of seconds")
        spec.probe_timeout = float(pt)
        if kind == "netns":
            spec.netns = _str(where, d, "netns", True)
        elif kind == "ssh":
            spec.destination = _str(where, d, "destination", True)
            if spec.destination.startswith("-") or any(c.isspace() for c in spec.destination):
                raise HostsError(f"{where}: destination {spec.destination!r} is not a "
                                 "[user@]host or ssh:// destination")
            port = d.get("port")
            if port is not None and (not isinstance(port, int) or isinstance(port, bool)
                                     or not 0 < port < 65536):
                raise HostsError(f"{where}: 'port' must be an integer 1..65535")
            spec.port = port
            spec.identity_file = _str(where, d, "identity_file")
            opts = d.get("ssh_options", [])
            if not isinstance(opts, list) or not all(isinstance(o, str) and o for o in opts):
                raise HostsError(f"{where}: 'ssh_options' must be a list of 'Key=value' strings")
            for o in opts:
                key = re.split(r"[=\s]", o, 1)[0].lower()
                if key in SSH_FORBIDDEN_OPTIONS:
                    raise HostsError(f"{where}: ssh option {o!r} is not allowed: datcts uses "
                                     "BatchMode=yes and key authentication only")
                if o.startswith("-"):
                    raise HostsError(f"{where}: ssh_options are -o options without the "
                                     f"'-o' ({o!r})")
            spec.ssh_options = list(opts)
            prog = d.get("ssh_program", ["ssh"])
            if isinstance(prog, str):
                prog = [prog]
            if not isinstance(prog, list) or not prog or not all(
                    isinstance(x, str) and x for x in prog):
                raise HostsError(f"{where}: 'ssh_program' must be a command (string or list)")
            spec.ssh_program = prog
        if spec.library and spec.kind != "ssh":
            spec.library = os.path.abspath(os.path.expanduser(spec.library))
        hosts.append(spec)
    return hosts


# ---------------------------------------------------------------- launchers


class HostLauncher:
    """Starts processes on one host and knows whether the host is alive.
    Subclasses say how a command line becomes a local argv."""

    def __init__(self, spec: HostSpec, local_cases_dir: Path):
        self.spec = spec
        self.host = spec.name
        self.local_cases_dir = Path(local_cases_dir).resolve()
        self.case_env: dict = {}       # DAT_OVERRIDE, DATCTS_IA + the host's env
        self.dead: dict | None = None  # {"at": iso, "reason": str} once dead
        self._lock = threading.Lock()
        # This host's entry of run.hosts; its "died" and "unresolved_cases"
        # are kept current here (values only: a concurrent json.dump of the
        # run document sees a dict of fixed size).
        self.info: dict = {"died": None, "unresolved_cases": 0}
        self.procs = None              # the run's ProcessTable (stopping: no probes)

    # -- to override --
    def wrap(self, argv: list, env: dict) -> list:
        raise NotImplementedError

    def popen_env(self, env: dict) -> dict:
        base = dict(os.environ)
        base.pop("DATCTS_TIMEOUT", None)
        base.update(env)
        return base

    # -- common --
    def map_binary(self, argv: list) -> list:
        """A case binary of the runner's build -> the same binary of this
        host's build."""
        p = Path(argv[0])
        if p.parent.resolve() == self.local_cases_dir:
            return [str(Path(self.spec.cases_dir) / p.name), *argv[1:]]
        return list(argv)

    def command(self, argv: list, env: dict | None = None) -> list:
        return self.wrap(list(argv), self.case_env if env is None else env)

    def start(self, argv: list, *, stdin) -> subprocess.Popen:
        if self.dead:
            raise OSError(f"host {self.host} is marked dead")
        env = self.case_env
        return subprocess.Popen(
            self.command(self.map_binary(argv), env),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.popen_env(env),
            start_new_session=True,
        )

    def run_script(self, script: str, args: list, *, timeout: float, input: bytes = b"",
                   env: dict | None = None) -> subprocess.CompletedProcess:
        """`sh -c SCRIPT datcts ARGS...` on the host."""
        env = self.case_env if env is None else env
        argv = self.command(["sh", "-c", script, "datcts", *map(str, args)], env)
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=self.popen_env(env),
                             start_new_session=True)
        try:
            out, err = p.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.communicate()
            raise
        return subprocess.CompletedProcess(argv, p.returncode, out, err)

    def probe(self) -> str | None:
        """None when the host answers (`true` through the launcher), else why
        not.  A probe killed by a signal is asked again once: whatever killed
        the half may have killed the probe too, which says nothing about
        whether the host answers now."""
        why, killed = self._probe_once()
        if killed:
            why, _ = self._probe_once()
        return why

    def _probe_once(self) -> tuple:
        """(why not, whether the probe died of a signal)."""
        try:
            p = self.run_script("exit 0", [], timeout=self.spec.probe_timeout, env={})
        except subprocess.TimeoutExpired:
            return f"no answer to a liveness probe within {self.spec.probe_timeout:g} s", False
        except OSError as e:
            return f"liveness probe could not start: {e}", False
        if p.returncode == 0:
            return None, False
        err = p.stderr.decode(errors="replace").strip().splitlines()
        how = (f"died of {signal_name(-p.returncode)}" if p.returncode < 0
               else f"exited {p.returncode}")
        return f"liveness probe {how}" + (f": {err[-1]}" if err else ""), p.returncode < 0

    def _set_dead(self, reason: str) -> None:
        """Called with the lock held."""
        if self.dead is None:
            self.dead = {"at": now_iso(), "reason": reason}
            self.info["died"] = dict(self.dead)

    def count_unresolved(self) -> None:
        with self._lock:
            self.info["unresolved_cases"] = self.info.get("unresolved_cases", 0) + 1

    def dead_message(self) -> str:
        return f"host {self.host} unreachable since {self.dead['at']}: {self.dead['reason']}"

    def lost(self, rc, stderr: str, killed_by_runner: bool, what: str) -> str | None:
        """A process of this host ended without a result (rc None: it could
        not be started).  Returns the UNRESOLVED reason when the host died or
        is unreachable, None when the host is fine (the usual CRASH/TIMEOUT
        classification then applies)."""
        if self.procs is not None and self.procs.stopping:
            return None  # the run is being interrupted: we ended it
        with self._lock:
            if self.dead is None:
                why = self.probe()
                if why is not None:
                    self._set_dead(why)
            dead = self.dead
        if dead is not None:
            return (f"host {self.host} unreachable: the {what} ended without a result "
                    f"({_how(rc, self.spec.kind)}); {dead['reason']}")
        if killed_by_runner or rc is None:
            return None
        external = rc < 0 and -rc in [int(s) for s in EXTERNAL_SIGNALS]
        if external or (self.spec.kind == "ssh" and rc == 255):
            return (f"host {self.host} died: the {what} ended without a result "
                    f"({_how(rc, self.spec.kind)}), not by datcts and not by a fault "
                    "of its own; the host answers its liveness probe again")
        return None


def _how(rc, kind: str) -> str:
    if rc is None:
        return "could not be started"
    if rc < 0:
        return f"killed by {signal_name(-rc)}"
    if kind == "ssh" and rc == 255:
        return "ssh exited 255: connection lost or remote process killed"
    return f"exited {rc}"


class LocalHost(HostLauncher):
    def wrap(self, argv, env):
        return argv

    def probe(self):
        return None  # the runner's own machine is alive while the runner is


class NetnsHost(HostLauncher):
    def wrap(self, argv, env):
        return ["ip", "netns", "exec", self.spec.netns, *argv]


class SshHost(HostLauncher):
    def ssh_argv(self) -> list:
        """The ssh client's command line up to and including the destination."""
        s = self.spec
        argv = list(s.ssh_program) + ["-o", "BatchMode=yes"]
        for o in s.ssh_options:
            argv += ["-o", o]
        for o in SSH_DEFAULT_OPTIONS:
            argv += ["-o", o]
        if s.identity_file:
            argv += ["-i", s.identity_file, "-o", "IdentitiesOnly=yes"]
        if s.port:
            argv += ["-p", str(s.port)]
        argv += ["-T", "-x", "-a", "--", s.destination]
        return argv

    def remote_command(self, argv: list, env: dict) -> str:
        """One string for the remote login shell (ssh runs the command
        through it): environment first, then the command, all quoted."""
        words = ["exec"]
        if env:
            words += ["env", *(f"{k}={v}" for k, v in env.items())]
        words += argv
        return " ".join(shlex.quote(w) for w in words)

    def wrap(self, argv, env):
        return self.ssh_argv() + [self.remote_command(argv, env)]

    def popen_env(self, env):
        # The client's own environment (HOME, SSH_AUTH_SOCK, ...); the case
        # environment travels inside the remote command.
        return dict(os.environ)


LAUNCHERS = {"local": LocalHost, "netns": NetnsHost, "ssh": SshHost}


def make_launcher(spec: HostSpec, local_cases_dir: Path) -> HostLauncher:
    return LAUNCHERS[spec.kind](spec, local_cases_dir)


# ---------------------------------------------------------------- fingerprint

# $1 dat.conf (empty: written by the runner, known), $2 cases dir.
_FP_SCRIPT = r'''
echo "hostname=$(hostname 2>/dev/null || uname -n)"
echo "kernel=$(uname -r)"
echo "machine=$(uname -m)"
reg="$2/../lib/libdat.so"
if [ -f "$reg" ]; then
	echo "registry_resolved=$(readlink -f "$reg")"
	echo "registry_sha256=$(sha256sum "$reg" 2>/dev/null | awk '{ print $1 }')"
fi
for f in "$2"/datcts-cases-*; do
	[ -f "$f" ] && [ -x "$f" ] && echo "binary=${f##*/}"
done
if [ -n "$1" ]; then
	if [ -r "$1" ]; then
		echo "----dat.conf"
		cat "$1"
		echo
		echo "----end"
	else
		echo "conf_error=cannot read $1"
	fi
fi
exit 0
'''

# $1 library field of the dat.conf entry, $2 datcts-probe, $3 IA.
_LIB_SCRIPT = r'''
lib=$1
case $lib in
*/*) ;;
*)
	found=
	old_ifs=$IFS; IFS=:
	for d in ${LD_LIBRARY_PATH:-}; do
		if [ -n "$d" ] && [ -f "$d/$lib" ]; then found=$d/$lib; break; fi
	done
	IFS=$old_ifs
	if [ -z "$found" ] && command -v ldconfig >/dev/null 2>&1; then
		found=$(ldconfig -p 2>/dev/null | awk -v n="$lib" '$1 == n { print $NF; exit }')
	fi
	if [ -z "$found" ]; then
		for d in /lib /usr/lib /lib64 /usr/lib64 /usr/local/lib; do
			if [ -f "$d/$lib" ]; then found=$d/$lib; break; fi
		done
	fi
	[ -n "$found" ] && lib=$found
	;;
esac
if [ -f "$lib" ]; then
	echo "library_resolved=$(readlink -f "$lib" 2>/dev/null || echo "$lib")"
	echo "library_sha256=$(sha256sum "$lib" 2>/dev/null | awk '{ print $1 }')"
else
	echo "library_resolved=$lib"
fi
if [ -x "$2" ]; then
	echo "----probe"
	"$2" --ia "$3" 2>&1
	echo
	echo "----end"
else
	echo "probe_error=$2 not found on the host"
fi
exit 0
'''


def _parse_kv(text: str) -> tuple[dict, dict]:
    """key=value lines, repeated keys as lists, and ----NAME ... ----end blocks."""
    kv: dict = {}
    blocks: dict = {}
    block = None
    for line in text.splitlines():
        if block is not None:
            if line == "----end":
                block = None
            else:
                blocks[block].append(line)
            continue
        if line.startswith("----"):
            block = line[4:]
            blocks[block] = []
            continue
        k, sep, v = line.partition("=")
        if sep:
            kv.setdefault(k, []).append(v)
    return ({k: (v if k == "binary" else v[-1]) for k, v in kv.items()},
            {k: "\n".join(v) for k, v in blocks.items()})


def _probe_attributes(kv: dict, blocks: dict) -> tuple:
    """(attributes, error) from the fingerprint's datcts-probe block."""
    if "probe" not in blocks:
        return None, kv.get("probe_error")
    text = blocks["probe"]
    try:
        doc = json.loads(text)
        if doc.get("error"):
            return None, f"datcts-probe: {doc['error']}"
        return {"provider": doc["provider"], "ia_attr": doc["ia_attr"]}, None
    except (ValueError, KeyError, TypeError, AttributeError):
        shown = text if len(text) <= 600 else text[:300] + " ... " + text[-300:]
        return None, "datcts-probe printed no attributes: " + shown


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dat_conf_text(ia: str, library: str, instance_data: str) -> str:
    return ("# written by datcts for a host of --hosts; one entry\n"
            f"{ia} u1.2 nonthreadsafe default {library} datcts.1.2 "
            f"{_quote(instance_data)} \"\"\n")


class Host:
    """One host of the run: its spec, launcher and fingerprint."""

    def __init__(self, spec: HostSpec, launcher: HostLauncher, out_dir: Path):
        self.spec = spec
        self.launcher = launcher
        self.out_dir = out_dir
        self.ia: str | None = None
        self.dat_conf: str | None = None
        self.generated = False
        self.info: dict = {}
        self.roles: set = set()

    def _fail(self, what: str, p=None) -> HostsError:
        detail = ""
        if p is not None:
            err = p.stderr.decode(errors="replace").strip()
            detail = f" (exit {p.returncode}" + (f": {err[-400:]}" if err else "") + ")"
        return HostsError(f"host {self.spec.name} ({self.spec.kind}"
                          f"{' ' + self.spec.target if self.spec.target else ''}): "
                          f"{what}{detail}")

    def _script(self, script, args, input=b"", env=None):
        try:
            p = self.launcher.run_script(script, args, timeout=FINGERPRINT_TIMEOUT_S,
                                         input=input, env=env)
        except subprocess.TimeoutExpired:
            raise self._fail(f"no answer within {FINGERPRINT_TIMEOUT_S:g} s")
        except OSError as e:
            raise self._fail(f"cannot start the launcher: {e}")
        if p.returncode != 0:
            raise self._fail("unreachable", p)
        return p

    def prepare(self, binaries: list) -> None:
        """Writes the generated dat.conf, fingerprints the host, checks its
        build has the case binaries and its dat.conf the IA."""
        s = self.spec
        if s.library:
            self.ia = s.ia or DEFAULT_IA_FOR_LIBRARY
            if s.dat_conf:
                self.dat_conf = s.dat_conf
            elif s.kind == "ssh":
                self.dat_conf = f"{s.build_dir.rstrip('/')}/datcts-hosts/{s.name}.dat.conf"
            else:
                self.dat_conf = str(self.out_dir / "hosts" / f"{s.name}.dat.conf")
            text = dat_conf_text(self.ia, s.library, s.instance_data or "")
            self._script('mkdir -p "$(dirname "$1")" && cat > "$1.tmp" && mv -f "$1.tmp" "$1"',
                         [self.dat_conf], input=text.encode(), env={})
            self.generated = True
        else:
            self.dat_conf = s.dat_conf or f"{s.build_dir.rstrip('/')}/dat.conf"
        p = self._script(_FP_SCRIPT, [self.dat_conf, s.cases_dir], env={})
        kv, blocks = _parse_kv(p.stdout.decode(errors="replace"))
        have = set(kv.get("binary", []))
        missing = [b for b in binaries if b not in have]
        if missing:
            raise self._fail(f"no {', '.join(missing)} in {s.cases_dir} (build datcts there, "
                             "or set build_dir/cases_dir)")
        if "conf_error" in kv:
            raise self._fail(kv["conf_error"])
        entries = self._entries(blocks.get("dat.conf", ""))
        usable = [e for e in entries if e.api.startswith("u") and e.default == "default"]
        if not self.ia:
            if not usable:
                raise self._fail(f"{self.dat_conf} has no default uDAPL entry; set 'ia'")
            self.ia = usable[0].ia
        entry = next((e for e in usable if e.ia == self.ia), None)
        if entry is None:
            known = ", ".join(e.ia for e in usable) or "none"
            raise self._fail(f"IA {self.ia!r} is not a default entry of {self.dat_conf} "
                             f"(it has: {known})")
        self.launcher.case_env = {"DAT_OVERRIDE": self.dat_conf, "DATCTS_IA": self.ia,
                                  **s.env}
        probe = f"{s.build_dir.rstrip('/')}/bin/datcts-probe"
        # Asked twice when the first answer is not JSON: once in ~20 runs
        # through srun the probe's output arrived garbled (cause not found;
        # the message keeps its head and tail for the next time).
        for _ in range(2):
            p = self._script(_LIB_SCRIPT, [entry.library, probe, self.ia])
            lkv, lblocks = _parse_kv(p.stdout.decode(errors="replace"))
            attrs, attrs_error = _probe_attributes(lkv, lblocks)
            if attrs is not None or "probe" not in lblocks:
                break
        sha = lkv.get("library_sha256") or None
        if sha and not re.fullmatch(r"[0-9a-f]{64}", sha):
            sha = None
        self.info = self.launcher.info
        self.info.clear()
        self.info.update({
            "name": s.name,
            "kind": s.kind,
            "target": s.target,
            "hostname": kv.get("hostname", ""),
            "kernel": kv.get("kernel", ""),
            "machine": kv.get("machine", ""),
            # the DAT registry the host's case build loads (its own libdat)
            "registry_resolved": kv.get("registry_resolved") or None,
            "registry_sha256": kv.get("registry_sha256") or None,
            "build_dir": s.build_dir,
            "cases_dir": s.cases_dir,
            "ia": self.ia,
            "dat_conf": self.dat_conf,
            "dat_conf_line": {"number": entry.line, "text": entry.raw},
            "library": entry.library,
            "library_resolved": lkv.get("library_resolved") or None,
            "library_sha256": sha,
            "instance_data": entry.instance_data,
            "generated_dat_conf": self.generated,
            "env": dict(s.env),
            **({"address": s.address} if s.address else {}),
            "attributes": attrs,
            "attributes_error": attrs_error,
            "roles": [],
            "died": None,
            "unresolved_cases": 0,
        })

    def _entries(self, text: str):
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write(text)
            f.flush()
            entries = parse_dat_conf(Path(f.name))
        lines = text.splitlines()
        for e in entries:
            e.raw = lines[e.line - 1].strip() if 0 < e.line <= len(lines) else ""
        return entries

    def set_roles(self) -> None:
        self.info["roles"] = [r for r in ("single", "passive", "active") if r in self.roles]

    def provider(self) -> dict:
        """The first host's provider in the shape of run.provider."""
        i = self.info
        return {k: i[k] for k in ("ia", "dat_conf", "dat_conf_line", "library",
                                  "library_resolved", "library_sha256", "instance_data",
                                  "generated_dat_conf", "attributes", "attributes_error")}


# ---------------------------------------------------------------- placement


def parse_placement(specs: list | None, names: list) -> list[tuple]:
    """--placement values -> [(passive host, active host), ...] in order.
    'both' (the default): the first two hosts, each way (one host: both
    halves there); 'all-pairs': every ordered pair of distinct hosts;
    'passive-on=A,active-on=B': that direction."""
    specs = list(specs or []) or ["both"]
    out: list = []

    def add(p, a):
        if (p, a) not in out:
            out.append((p, a))

    for spec in specs:
        spec = spec.strip()
        if spec == "both":
            if len(names) == 1:
                add(names[0], names[0])
            else:
                add(names[0], names[1])
                add(names[1], names[0])
        elif spec == "all-pairs":
            if len(names) == 1:
                add(names[0], names[0])
            for p in names:
                for a in names:
                    if p != a:
                        add(p, a)
        else:
            parts = dict(x.split("=", 1) for x in spec.split(",") if "=" in x)
            bad = [x for x in spec.split(",") if "=" not in x]
            if bad or set(parts) != {"passive-on", "active-on"}:
                raise HostsError(f"--placement {spec!r}: expected 'both', 'all-pairs' or "
                                 "'passive-on=HOST,active-on=HOST'")
            for v in parts.values():
                if v not in names:
                    raise HostsError(f"--placement {spec!r}: no host {v!r} in the hosts file "
                                     f"(hosts: {', '.join(names)})")
            add(parts["passive-on"], parts["active-on"])
    return out


# ---------------------------------------------------------------- the runner


def concurrent_rounds(directions: list) -> list:
    """The directions in rounds whose directions share no host, in order
    (greedy): the directions of one round run at the same time, so a ring
    of N nodes takes a few rounds, not N times one pair."""
    rounds: list = []
    for pa in directions:
        for rnd in rounds:
            if not any(set(pa) & set(other) for other in rnd):
                rnd.append(pa)
                break
        else:
            rounds.append([pa])
    return rounds


def run_concurrently(calls: list) -> list:
    """The results of `calls` (no arguments), run in threads of their own
    when there are several."""
    if len(calls) == 1:
        return [calls[0]()]
    out: list = [None] * len(calls)

    def one(i):
        out[i] = calls[i]()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


class HostsRunner(Runner):
    """Runs single-node cases on its single-node hosts (one, or every node
    of a cluster) and two-node cases in every direction of the placement,
    merging them into one result per case."""

    batches = False

    def __init__(self, hosts: list[Host], single_on, directions: list, timeout: float,
                 procs):
        self.hosts = {h.spec.name: h for h in hosts}
        self.single_on = [single_on] if isinstance(single_on, str) else list(single_on)
        first = self.hosts[self.single_on[0]].launcher
        super().__init__(first, timeout, procs)
        self.directions = directions
        self.rounds = concurrent_rounds(directions)
        for name in self.single_on:
            self.hosts[name].roles.add("single")
        for p, a in directions:
            self.hosts[p].roles.add("passive")
            self.hosts[a].roles.add("active")
        for h in hosts:
            h.set_roles()
            h.launcher.procs = procs

    def run(self, case: Case) -> dict:
        r = self._run(case)
        if r is not None and not self.procs.stopping:
            # Count the case against every host whose failure it shows.
            failed = {d["host_failure"]["host"]
                      for d in (r.get("directions") or []) + (r.get("nodes") or [])
                      if d.get("host_failure")}
            if r.get("host_failure"):
                failed.add(r["host_failure"]["host"])
            for name in failed:
                self.hosts[name].launcher.count_unresolved()
        return r

    def _run(self, case: Case) -> dict:
        if case.two_node:
            return self._two_node(case)
        results = run_concurrently([lambda n=n: self._single(case, n) for n in self.single_on])
        if any(r is None for r in results):  # interrupted
            return None
        if len(results) == 1:
            return results[0]
        return merge_placements(case, list(zip(self.single_on, results)), "nodes")

    def _single(self, case: Case, name: str) -> dict:
        launcher = self.hosts[name].launcher
        if launcher.dead:
            return self._skipped(case, [launcher])
        return self.run_single(case, launcher)

    def _skipped(self, case: Case, dead: list, placement=None) -> dict:
        """A case not started because a host it needs is already dead."""
        h = dead[0]
        r = synthesized(case, "UNRESOLVED", h.dead_message() + "; not started", 0.0)
        r["host_failure"] = {"host": h.host, "reason": h.dead["reason"]}
        r["hosts"] = list(placement) if placement else [h.host]
        return normalize(case, r)

    def _direction(self, case: Case, pa: tuple) -> dict:
        lp, la = self.hosts[pa[0]].launcher, self.hosts[pa[1]].launcher
        dead = [x for x in (lp, la) if x.dead]
        if dead:
            return self._skipped(case, dead, pa)
        return self.run_two_node(case, {"passive": lp, "active": la})

    def _two_node(self, case: Case) -> dict:
        done: dict = {}
        for rnd in self.rounds:
            rs = run_concurrently([lambda pa=pa: self._direction(case, pa) for pa in rnd])
            if any(r is None for r in rs):  # interrupted
                return None
            done.update(zip(rnd, rs))
        results = [(pa, done[pa]) for pa in self.directions]
        if len(results) == 1:
            return results[0][1]
        return merge_placements(case, results, "directions")


def _placement_label(where) -> str:
    if isinstance(where, str):
        return f"on {where}"
    return f"passive on {where[0]}, active on {where[1]}"


def merge_placements(case: Case, results: list, key: str) -> dict:
    """One result from a case run in several places: a two-node case in
    several directions (key "directions", places (passive, active)) or a
    single-node case on several nodes (key "nodes", places node names).
    The worst place (the first on a tie) gives state, message, hosts and
    halves; `key` keeps every one."""
    pick_i = max(range(len(results)),
                 key=lambda i: (severity(results[i][1]["state"]), -i))
    where, pick = results[pick_i]
    entries = []
    outputs = []
    for w, r in results:
        head = ({"node": w} if key == "nodes" else {"passive": w[0], "active": w[1]})
        entry = dict(head, state=r["state"], message=r["message"],
                     duration_ms=r["duration_ms"], signal=r.get("signal"),
                     hosts=r["hosts"], halves=r.get("halves"),
                     host_failure=r.get("host_failure"))
        if key == "nodes":
            # what attribution reads of a single-node result (phases, cause...);
            # a direction's are in its halves
            entry.update({k: r[k] for k in ("phases", *OPTIONAL_HALF_FIELDS) if r.get(k)})
        entries.append(entry)
        if r.get("output"):
            outputs.append(f"=== {_placement_label(w)}: {r['state']} ===\n{r['output']}")
    failure = pick.get("host_failure") or next(
        (r["host_failure"] for _, r in results if r.get("host_failure")), None)
    merged = dict(pick)
    merged.update(
        message=f"{pick['message']} ({_placement_label(where)})" if pick["message"] else "",
        duration_ms=round(sum(r["duration_ms"] for _, r in results), 3),
        output="".join(o if o.endswith("\n") else o + "\n" for o in outputs),
        host_failure=failure,
        **{key: entries},
    )
    return normalize(case, merged)


def merge_directions(case: Case, results: list) -> dict:
    """A two-node case run in several directions: merge_placements."""
    return merge_placements(case, results, "directions")


# ---------------------------------------------------------------- set-up


@dataclass
class HostsRun:
    hosts: list
    directions: list
    single_on: str | list   # a list: the single-node cases run on each (a cluster)
    runner: HostsRunner | None = None

    @property
    def first_single(self) -> str:
        return self.single_on if isinstance(self.single_on, str) else self.single_on[0]

    def make_runner(self, timeout: float, procs) -> HostsRunner:
        self.runner = HostsRunner(self.hosts, self.single_on, self.directions, timeout, procs)
        return self.runner

    @property
    def setup(self) -> ProviderSetup:
        """The single-node host's provider as a ProviderSetup (describe()
        for --resume's check; env() for the local discovery only)."""
        i = self.hosts_by_name[self.first_single].info
        return ProviderSetup(i["ia"], Path(i["dat_conf"]), i["library"], i["instance_data"],
                             i["generated_dat_conf"])

    def meta(self) -> list:
        """run.hosts: the hosts' own dicts, which stay current (deaths)."""
        return [h.info for h in self.hosts]

    def provider(self) -> dict:
        """run.provider: the provider of the host the single-node cases use."""
        return self.hosts_by_name[self.first_single].provider()

    @property
    def hosts_by_name(self) -> dict:
        return {h.spec.name: h for h in self.hosts}

    def report_lines(self) -> list:
        """What the end-of-run summary says about the hosts."""
        lines = []
        for h in self.hosts:
            i = h.info
            if i.get("died"):
                lines.append(f"host {i['name']} unreachable since {i['died']['at']}: "
                             f"{i['died']['reason']}; {i['unresolved_cases']} case(s) UNRESOLVED")
            elif i.get("unresolved_cases"):
                lines.append(f"host {i['name']}: {i['unresolved_cases']} case(s) UNRESOLVED "
                             "(its processes were killed)")
        return lines


def add_options(p) -> None:
    """The run subcommand's multi-host options."""
    g = p.add_argument_group("across hosts (docs/multi-host.md)")
    g.add_argument("--hosts", metavar="FILE",
                   help="hosts file (TOML): run the halves of two-node cases on these hosts")
    g.add_argument("--placement", action="append", metavar="SPEC",
                   help="where two-node halves run: 'both' (default: the first two hosts, "
                   "each way), 'all-pairs', or 'passive-on=A,active-on=B'; repeatable")
    g.add_argument("--single-on", metavar="HOST",
                   help="host of the single-node cases (default: the first host)")


def from_args(args, build_dir: Path, cases_dir: Path, out_dir: Path) -> HostsRun | None:
    """None without --hosts; else the prepared hosts (HostsError when
    unusable).  The provider options belong in the hosts file then."""
    if not getattr(args, "hosts", None):
        if getattr(args, "placement", None) or getattr(args, "single_on", None):
            raise HostsError("--placement and --single-on need --hosts")
        return None
    clash = [o for o, v in (("--ia", args.ia), ("--dat-conf", args.dat_conf),
                            ("--provider", args.provider),
                            ("--instance-data", args.instance_data)) if v]
    if clash:
        raise HostsError(f"{', '.join(clash)} cannot be combined with --hosts: give each "
                         "host's provider in the hosts file")
    from datcts.discovery import find_binaries

    return prepare(hosts_file=Path(args.hosts), build_dir=build_dir,
                   cases_dir=Path(cases_dir), out_dir=out_dir,
                   binaries=[b.name for b in find_binaries(Path(cases_dir))],
                   placement=args.placement, single_on=args.single_on)


def prepare(*, hosts_file: Path, build_dir: Path, cases_dir: Path, out_dir: Path,
            binaries: list, placement: list | None, single_on: str | None) -> HostsRun:
    """Reads the hosts file and fingerprints every host (in parallel).
    Raises HostsError for anything unusable."""
    specs = load_hosts(hosts_file, build_dir)
    names = [s.name for s in specs]
    directions = parse_placement(placement, names)
    if single_on is None:
        single_on = names[0]
    elif single_on not in names:
        raise HostsError(f"--single-on {single_on!r}: no such host (hosts: {', '.join(names)})")
    hosts = [Host(s, make_launcher(s, cases_dir), out_dir) for s in specs]
    prepare_all(hosts, binaries)
    return HostsRun(hosts, directions, single_on)


def prepare_all(hosts: list, binaries: list, error=HostsError) -> None:
    """Host.prepare for every host at once; one `error` naming every host
    that failed, in order."""
    errors: dict = {}

    def prep(h):
        try:
            h.prepare(binaries)
        except HostsError as e:
            errors[h.spec.name] = e

    threads = [threading.Thread(target=prep, args=(h,)) for h in hosts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise error("; ".join(str(errors[h.spec.name]) for h in hosts
                              if h.spec.name in errors))
