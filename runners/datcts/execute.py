"""Running one case: a single-node case through the case binary's own
supervisor (``--run ID``), a two-node case as two halves (``--role``) whose
line protocol the runner relays.  The halves are started by a Launcher, so
a later placement can put them on other hosts (ssh, netns) without changing
the relay.  Protocol and result formats: docs/results-format.md."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from datcts import STATES
from datcts.discovery import Case

# Extra time the runner grants a case binary over the case timeout (its own
# supervisor kills the case at the timeout; this only catches a supervisor
# that itself hangs).
SUPERVISOR_GRACE_S = 10.0
# How long a half may go on after its peer ended with a non-PASS result.
PEER_GRACE_S = 2.0


def severity(state: str) -> int:
    try:
        return STATES.index(state)
    except ValueError:
        return len(STATES) - 1


def signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"SIG{sig}"


class ProcessTable:
    """The runner's live child processes, so an interrupt can end them."""

    def __init__(self):
        self._lock = threading.Lock()
        self._procs: set = set()
        # the pids each worker thread started since it last asked (started_here), and all
        self._by_thread: dict = {}
        self.started: set = set()
        self.stopping = False

    def add(self, p: subprocess.Popen) -> None:
        with self._lock:
            self._procs.add(p)
            self._by_thread.setdefault(threading.get_ident(), []).append(p.pid)
            self.started.add(p.pid)
            stopping = self.stopping
        if stopping:
            terminate(p)

    def remove(self, p: subprocess.Popen) -> None:
        with self._lock:
            self._procs.discard(p)

    def started_by(self, thread: int) -> list:
        """The pids `thread` started since it last asked (started_here), kept."""
        with self._lock:
            return list(self._by_thread.get(thread, ()))

    def started_here(self) -> list:
        """The pids this thread started since it last asked: a case's supervisors, each the
        leader of its session (start_new_session), where the case's processes run too."""
        with self._lock:
            return self._by_thread.pop(threading.get_ident(), [])

    def stop_all(self) -> None:
        with self._lock:
            self.stopping = True
            procs = list(self._procs)
        for p in procs:
            terminate(p)
        deadline = time.monotonic() + 2.0
        for p in procs:
            try:
                p.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                kill_group(p)


def terminate(p: subprocess.Popen) -> None:
    """SIGTERM the supervisor's group: it kills its case group and exits."""
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def communicate_supervised(procs: "ProcessTable", p: subprocess.Popen,
                           timeout: float) -> tuple:
    """(stdout, stderr, timed_out) of a started case binary: killed with its
    process group when it overruns `timeout`; in `procs` meanwhile."""
    procs.add(p)
    try:
        out, err = p.communicate(timeout=timeout)
        return out, err, False
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, err = p.communicate()
        return out, err, True
    finally:
        procs.remove(p)


def result_line(line: str, ids) -> dict | None:
    """The result a case binary printed on `line` for one of `ids`, else None."""
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if isinstance(obj, dict) and obj.get("id") in ids and "state" in obj:
        return obj
    return None


def stream_supervised(procs: "ProcessTable", p: subprocess.Popen, timeout: float,
                      on_line) -> bool:
    """Hands each line of a started case binary's stdout to on_line as it
    comes; kills its process group when it overruns `timeout` (then returns
    True); in `procs` meanwhile.  Its stderr is drained meanwhile (so that a
    full pipe cannot stop it) and dropped."""
    procs.add(p)
    guard = threading.Timer(timeout, kill_group, [p])
    guard.start()
    drain = threading.Thread(target=p.stderr.read, daemon=True)
    drain.start()
    try:
        for raw in p.stdout:
            on_line(raw.decode(errors="replace"))
        p.wait()
        drain.join()
        return not guard.is_alive()
    finally:
        guard.cancel()
        p.stdout.close()
        p.stderr.close()
        procs.remove(p)


class LocalLauncher:
    """Starts case binaries on this host.  The launchers of datcts.hosts
    (local, netns, ssh) provide the same start() and host name, plus
    lost(), which the runner asks when a process of theirs ended without a
    result (is the host dead?)."""

    host = "local"

    def __init__(self, env: dict):
        self.env = env

    def start(self, argv: list, *, stdin) -> subprocess.Popen:
        return subprocess.Popen(
            argv,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            start_new_session=True,
        )


@dataclass
class Runner:
    launcher: LocalLauncher
    timeout: float
    procs: ProcessTable
    # Where each half of a two-node case runs: role -> launcher (default:
    # `launcher` for both).  The multi-host placement plugs in here.
    placement: dict = field(default_factory=dict)

    # One supervisor may run several single-node cases (run_batch); a runner
    # that places cases on other hosts runs each alone.
    batches = True

    # ---- single node ----

    def run(self, case: Case) -> dict:
        if case.two_node:
            return self.run_two_node(case)
        return self.run_single(case)

    def run_single(self, case: Case, launcher=None) -> dict:
        launcher = launcher or self.launcher
        argv = [case.binary, "--run", case.id, "--timeout", f"{self.timeout:g}"]
        t0 = time.monotonic()
        try:
            p = launcher.start(argv, stdin=subprocess.DEVNULL)
        except OSError as e:
            r = _host_lost(launcher, None, str(e), False, "case binary")
            if r is not None:
                r.update(hosts=[launcher.host])
                return normalize(case, dict(synthesized(case, "UNRESOLVED", "", 0.0), **r))
            return normalize(case, synthesized(case, "UNRESOLVED",
                                               f"cannot start {case.binary}: {e}", 0.0))
        out, err, timed_out = communicate_supervised(self.procs, p,
                                                     self.timeout + SUPERVISOR_GRACE_S)
        dur = (time.monotonic() - t0) * 1000.0
        result = None
        for line in out.decode(errors="replace").splitlines():
            result = result_line(line, (case.id,)) or result
        stderr = err.decode(errors="replace")
        if result is None:
            result = self._no_result(case, p.returncode, timed_out, dur, stderr)
            lost = None if result is None else _host_lost(
                launcher, p.returncode, stderr, timed_out, "case binary")
            if lost is not None:
                result.update(lost, signal=None)
        elif stderr.strip():
            result["output"] = (result.get("output") or "") + "[supervisor] " + stderr
        if result is not None:
            result["hosts"] = [launcher.host]
        return normalize(case, result)

    def run_batch(self, cases: list, on_result=None) -> dict:
        """Single-node cases of one case binary through one supervisor
        (``--run ID ID ...``): it forks each case from the same process, one
        after the other, with the case timeout each, exactly as for one ID, so
        a case sees what it would alone; the batch saves the binary's start
        per case.  Each result is handed to on_result(case, result) as its
        line arrives.  Returns id -> result (None: interrupted).  A case the
        supervisor gives no result for (it could not start it, died, or
        overran the batch's time) runs again alone, so a crash, a hang or a
        supervisor's complaint is judged as without the batch."""
        on_result = on_result or (lambda case, r: None)
        by_id = {c.id: c for c in cases}
        assert all(c.binary == cases[0].binary and not c.two_node for c in cases)
        results: dict = {}

        def line(text: str) -> None:
            obj = result_line(text, by_id)
            if obj is None:
                return
            case = by_id[obj["id"]]
            results[case.id] = normalize(case, dict(obj, hosts=[self.launcher.host]))
            on_result(case, results[case.id])

        argv = [cases[0].binary, "--run", *by_id, "--timeout", f"{self.timeout:g}"]
        try:
            p = self.launcher.start(argv, stdin=subprocess.DEVNULL)
        except OSError:
            p = None
        if p is not None:
            stream_supervised(self.procs, p, len(cases) * self.timeout + SUPERVISOR_GRACE_S,
                              line)
        for c in cases:
            if c.id in results:
                continue
            results[c.id] = None if self.procs.stopping else self.run_single(c)
            if results[c.id] is not None:
                on_result(c, results[c.id])
        return results

    def _no_result(self, case, rc, timed_out, dur, stderr) -> dict:
        if self.procs.stopping:
            return None
        if timed_out:
            st, msg, sig = "TIMEOUT", "the case binary's supervisor did not finish; killed", None
        elif rc is not None and rc < 0:
            sig = signal_name(-rc)
            st, msg = "CRASH", f"the case binary's supervisor died of {sig} without a result"
        else:
            st, msg, sig = "CRASH", f"the case binary exited with {rc} without a result", None
        r = synthesized(case, st, msg, dur)
        r["signal"] = sig
        r["output"] = stderr
        return r

    # ---- two node ----

    def run_two_node(self, case: Case, placement: dict | None = None) -> dict:
        placement = self.placement if placement is None else placement
        t0 = time.monotonic()
        deadline = t0 + self.timeout + SUPERVISOR_GRACE_S
        halves = {}
        for role in ("passive", "active"):
            argv = [case.binary, "--run", case.id, "--role", role,
                    "--timeout", f"{self.timeout:g}"]
            launcher = placement.get(role, self.launcher)
            try:
                p = launcher.start(argv, stdin=subprocess.PIPE)
            except OSError as e:
                for h in halves.values():
                    kill_group(h.proc)
                    self.procs.remove(h.proc)
                r = synthesized(case, "UNRESOLVED", f"cannot start {role} half: {e}", 0.0)
                lost = _host_lost(launcher, None, str(e), False, f"{role} half")
                if lost is not None:
                    r.update(lost)
                r["hosts"] = [placement.get(x, self.launcher).host
                              for x in ("passive", "active")]
                return normalize(case, r)
            self.procs.add(p)
            halves[role] = _Half(role, p, launcher.host, launcher)
        try:
            self._relay(halves, deadline)
        finally:
            for h in halves.values():
                self.procs.remove(h.proc)
        if self.procs.stopping and not all(h.result for h in halves.values()):
            return None
        dur = (time.monotonic() - t0) * 1000.0
        return normalize(case, combine(case, halves, dur))

    def _relay(self, halves: dict, deadline: float) -> None:
        sel = selectors.DefaultSelector()
        for h in halves.values():
            sel.register(h.proc.stdout, selectors.EVENT_READ, (h, "out"))
            sel.register(h.proc.stderr, selectors.EVENT_READ, (h, "err"))
            h.open = 2
        peer = {"passive": halves["active"], "active": halves["passive"]}
        order = 0
        def limit(h):
            return min(h.kill_at, deadline) if h.kill_at else deadline

        while any(h.open for h in halves.values()):
            now = time.monotonic()
            for h in halves.values():
                if h.open and now >= limit(h):
                    kill_group(h.proc)
                    if not h.killed:
                        h.killed = "peer" if h.kill_at and h.kill_at <= deadline else "timeout"
            wait = min([limit(h) for h in halves.values() if h.open] + [deadline])
            events = sel.select(timeout=max(0.0, wait - now) + 0.01)
            for key, _ in events:
                h, kind = key.data
                data = os.read(key.fileobj.fileno(), 65536)
                if not data:
                    sel.unregister(key.fileobj)
                    h.open -= 1
                    if h.open == 0:
                        h.proc.wait()
                        if h.result is None:
                            h.result = self._dead_half(h)
                            h.order = order
                            order += 1
                            self._peer_done(peer[h.role], h.result)
                    continue
                if kind == "err":
                    h.stderr += data
                    continue
                h.buf += data
                while b"\n" in h.buf:
                    line, h.buf = h.buf.split(b"\n", 1)
                    if not line.strip():
                        continue
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        h.stderr += b"[relay] bad line: " + line + b"\n"
                        continue
                    if not isinstance(obj, dict):
                        continue
                    if "ready" in obj or "msg" in obj:
                        peer[h.role].send(line)
                    elif "result" in obj and h.result is None:
                        h.result = obj["result"]
                        h.order = order
                        order += 1
                        self._peer_done(peer[h.role], h.result)
        sel.close()

    def _peer_done(self, other: "_Half", result: dict) -> None:
        msg = {"peer_done": {"state": result.get("state"),
                             "message": result.get("message", "")}}
        other.send(json.dumps(msg).encode())
        if result.get("state") != "PASS" and other.open and other.result is None:
            other.kill_at = time.monotonic() + PEER_GRACE_S + 1.0

    def _dead_half(self, h: "_Half") -> dict:
        rc = h.proc.returncode
        err = h.stderr.decode(errors="replace")
        # Killed by us (peer gone, timeout) or not: a host-aware launcher
        # first checks whether the half's host died or became unreachable.
        lost = _host_lost(h.launcher, rc, err, h.killed is not None, f"{h.role} half")
        if lost is not None:
            return dict(lost, output=err)
        if h.killed == "peer":
            return {"state": "UNRESOLVED", "by_peer": True, "output": err,
                    "message": "stopped: the other half had ended and this one did not finish"}
        if h.killed == "timeout":
            return {"state": "TIMEOUT", "output": err,
                    "message": "the half's supervisor did not finish; killed"}
        if rc is not None and rc < 0:
            sig = signal_name(-rc)
            return {"state": "CRASH", "signal": sig, "output": err,
                    "message": f"the half's supervisor died of {sig} without a result"}
        return {"state": "CRASH", "output": err,
                "message": f"the half's supervisor exited with {rc} without a result"}


def _host_lost(launcher, rc, stderr: str, killed_by_runner: bool, what: str):
    """A process of `launcher` ended without a result (rc None: it could
    not be started).  A host-aware launcher (datcts.hosts) says whether its
    host died or became unreachable; the result is then UNRESOLVED with
    that reason and `host_failure` set.  None: not a host problem."""
    lost = getattr(launcher, "lost", None)
    if lost is None:
        return None
    why = lost(rc, stderr, killed_by_runner, what)
    if why is None:
        return None
    return {"state": "UNRESOLVED", "message": why,
            "host_failure": {"host": launcher.host, "reason": why}}


class _Half:
    def __init__(self, role: str, proc: subprocess.Popen, host: str, launcher=None):
        self.role = role
        self.proc = proc
        self.host = host
        self.launcher = launcher
        self.buf = b""
        self.stderr = b""
        self.result = None
        self.order = 0
        self.open = 0
        self.kill_at = None
        self.killed = None

    def send(self, line: bytes) -> None:
        if self.proc.stdin is None or self.proc.stdin.closed:
            return
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass


def combine(case: Case, halves: dict, dur: float) -> dict:
    """The case result from its halves: the worst half that was not ended
    by its peer (the earlier one on a tie) gives state and message."""
    hs = list(halves.values())
    # A half whose host died decides: the clause could not be checked, so
    # whatever the other half saw of the dying peer is no verdict.
    cands = ([h for h in hs if h.result.get("host_failure")]
             or [h for h in hs if not h.result.get("by_peer")] or hs)
    pick = max(cands, key=lambda h: (severity(h.result.get("state")), -h.order))
    r = pick.result
    outputs = []
    for h in hs:
        out = (h.result.get("output") or "")
        err = h.stderr.decode(errors="replace")
        if err and err not in out:
            out += "[supervisor] " + err
        h.result["output"] = out
        if out:
            outputs.append(f"--- {h.role} ---\n{out}" + ("" if out.endswith("\n") else "\n"))
    msg = r.get("message") or ""
    if msg and not r.get("host_failure"):
        msg = f"{pick.role}: {msg}"
    return {
        "id": case.id,
        "state": r.get("state"),
        "message": msg,
        "host_failure": r.get("host_failure"),
        "file": r.get("file") or case.file,
        "line": r.get("line") or case.line,
        "duration_ms": round(dur, 3),
        "output": "".join(outputs),
        "signal": r.get("signal"),
        "hosts": [halves["passive"].host, halves["active"].host],
        "halves": {
            h.role: {
                "state": h.result.get("state"),
                "message": h.result.get("message", ""),
                "file": h.result.get("file") or case.file,
                "line": h.result.get("line") or case.line,
                "by_peer": bool(h.result.get("by_peer")),
                "duration_ms": h.result.get("duration_ms"),
                "signal": h.result.get("signal"),
                "exit_status": h.result.get("exit_status"),
                "phases": h.result.get("phases") or {},
                "host": h.host,
                "output": h.result.get("output", ""),
                **_reached(h.result),
            }
            for h in hs
        },
        "phases": r.get("phases") or {},
        **_reached(r),
        **({} if r.get("teardown_failure") else
           next(({"teardown_failure": h.result["teardown_failure"]} for h in hs
                 if h.result.get("teardown_failure")), {})),
    }


# What a half's record carries only when set: the verdict a teardown CRASH or
# TIMEOUT came after, what decided a non-PASS result, a failed teardown close,
# failed clean-up calls after the checks (DC_CLEANUP), the clause a multi-clause case was
# checking when it missed (DC_FOR_CLAUSE), the attributes learned from calls because
# dat_ia_query did not write them (harness/learn.c).
OPTIONAL_HALF_FIELDS = ("cause", "teardown_failure", "cleanup_failures", "reached", "clause_at",
                        "learned", "work_fraction")


def _reached(r: dict) -> dict:
    """The fields of OPTIONAL_HALF_FIELDS that @r has."""
    return {k: r[k] for k in OPTIONAL_HALF_FIELDS if r.get(k)}


def synthesized(case: Case, state: str, message: str, dur: float) -> dict:
    return {
        "id": case.id,
        "state": state,
        "message": message,
        "file": case.file,
        "line": case.line,
        "duration_ms": round(dur, 3),
        "output": "",
        "signal": None,
        "hosts": ["local"],
        "halves": None,
    }


def normalize(case: Case, r: dict) -> dict:
    """Every result carries the full set of fields, in a stable order
    (plus `host_failure` and `directions` of a multi-host run, and `reached`
    of a teardown CRASH or TIMEOUT, when set)."""
    if r is None:
        return None
    out = {
        "id": case.id,
        "state": r.get("state") if r.get("state") in STATES else "CRASH",
        "message": r.get("message") or "",
        "file": r.get("file") or case.file,
        "line": int(r.get("line") or case.line),
        "duration_ms": r.get("duration_ms", 0.0),
        "clauses": list(case.clauses),
        "page": case.page,
        "area": case.area,
        "output": r.get("output") or "",
        "signal": r.get("signal"),
        "hosts": r.get("hosts") or ["local"],
        "halves": r.get("halves"),
        "phases": r.get("phases") or {},
    }
    if case.needs:
        out["needs"] = list(case.needs)
    for k in ("host_failure", "directions", "nodes") + OPTIONAL_HALF_FIELDS:
        if r.get(k):
            out[k] = r[k]
    return out
