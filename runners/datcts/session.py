"""A run: the selected cases executed in parallel, results journaled as they
finish (results.jsonl), results.json rewritten atomically, progress shown."""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

from datcts import BAD_STATES, SCHEMA_VERSION, STATES, __version__
from datcts.discovery import Case
from datcts.execute import Runner
from datcts.waivers import annotate

# The partial results.json is rewritten at most every second, and never more
# often than REWRITE_COST_FACTOR times its own cost: on a slow machine (the
# TCG VM) rewriting a large document every second would take most of a CPU.
JSON_REWRITE_INTERVAL_S = 1.0
REWRITE_COST_FACTOR = 20


# Expected case durations for the scheduler, the longest started first: the
# previous run's journal in the out dir, else this table shipped with the
# runner (cases that took 100 ms or more on ref-sock; tools/durations.py).
DURATIONS_TABLE = Path(__file__).with_name("durations.json")


def expected_durations(out_dir: Path) -> dict[str, float]:
    """Case id -> expected milliseconds: the shipped table, overridden by
    what the last run in out_dir took (its results.jsonl, read before this
    run's journal replaces it).  Unknown cases are absent (short)."""
    ms: dict[str, float] = {}
    try:
        ms.update(json.loads(DURATIONS_TABLE.read_text()))
    except (OSError, ValueError):
        pass
    try:
        lines = (out_dir / "results.jsonl").read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            r = json.loads(line)
            ms[r["id"]] = float(r["duration_ms"])
        except (ValueError, KeyError, TypeError):
            continue
    return ms


def longest_first(cases: list, ms: dict[str, float]) -> list:
    """The order in which to start cases: the longest expected first (a
    long case started last would run alone at the end), the rest in their
    discovery order (stable sort)."""
    return sorted(cases, key=lambda c: -ms.get(c.id, 0.0))


def batched(order: list, ms: dict[str, float], size: int) -> list[list]:
    """The cases in `order` as units of work: each case the durations table
    names (a long one) and each two-node case alone; the rest, consecutive
    single-node cases of one binary, in batches of up to `size`
    (Runner.run_batch).  The order is kept."""
    units: list[list] = []
    for c in order:
        last = units[-1] if units else None
        if (size > 1 and not c.two_node and not ms.get(c.id) and last
                and len(last) < size and not last[0].two_node
                and not ms.get(last[0].id) and last[0].binary == c.binary):
            last.append(c)
        else:
            units.append([c])
    return units


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class Journal:
    """results.jsonl: one raw result per line, appended and flushed as each
    case finishes.  With resume, the finished ids of an earlier run are kept
    (a torn last line from a killed run is dropped)."""

    def __init__(self, out_dir: Path, resume: bool):
        self.path = out_dir / "results.jsonl"
        self.previous: dict[str, dict] = {}
        out_dir.mkdir(parents=True, exist_ok=True)
        if resume and self.path.exists():
            data = self.path.read_bytes()
            good = data if data.endswith(b"\n") or not data else data[: data.rfind(b"\n") + 1]
            for line in good.decode(errors="replace").splitlines():
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if isinstance(r, dict) and "id" in r and r.get("state") in STATES:
                    if r.get("host_failure"):
                        # A host was unreachable: never checked, run again.
                        self.previous.pop(r["id"], None)
                        continue
                    self.previous[r["id"]] = r
            if len(good) != len(data):
                with open(self.path, "r+b") as f:
                    f.truncate(len(good))
            self._f = open(self.path, "a", encoding="utf-8")
        else:
            self._f = open(self.path, "w", encoding="utf-8")
        self._lock = threading.Lock()

    def append(self, result: dict) -> None:
        line = json.dumps(result, ensure_ascii=False)
        with self._lock:
            self._f.write(line + "\n")
            self._f.flush()

    def close(self) -> None:
        with self._lock:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()


def results_json_text(doc: dict) -> str:
    """results.json's text: one line per top-level member and one per
    result.  Written with json's C encoder (an indent selects its
    pure-Python encoder, which took most of a second per write of a full
    run's document); still one result per line for a reader or a diff."""
    def one(v) -> str:
        return json.dumps(v, ensure_ascii=False)

    members = []
    for k, v in doc.items():
        if k == "results" and isinstance(v, list) and v:
            members.append(f"{one(k)}: [\n  " + ",\n  ".join(one(r) for r in v) + "\n ]")
        else:
            members.append(f"{one(k)}: {one(v)}")
    return "{\n " + ",\n ".join(members) + "\n}\n"


def atomic_write_json(path: Path, obj: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(results_json_text(obj))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class Progress:
    """A live line on a terminal; one plain line per finished case otherwise."""

    def __init__(self, total: int, stream=None, tty: bool | None = None, quiet=False):
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.total = total
        self.done = 0
        self.ran = 0
        self.bad = 0
        self.waived = 0
        self.quiet = quiet
        self.t0 = time.monotonic()
        self._lock = threading.Lock()
        self._last = ""

    def _width(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError):
            return 100

    @staticmethod
    def _fmt_s(s: float) -> str:
        s = int(s + 0.5)
        return f"{s // 60}:{s % 60:02d}"

    def _live(self) -> str:
        el = time.monotonic() - self.t0
        left = self.total - self.done
        eta = (el / self.ran * left) if self.ran else 0.0
        line = (
            f"datcts [{self.done}/{self.total}] {self.bad} failing"
            f"{f', {self.waived} waived' if self.waived else ''}"
            f" | {self._fmt_s(el)} elapsed, ~{self._fmt_s(eta)} left"
            f" | {self._last}"
        )
        return line[: self._width() - 1]

    def result(self, r: dict, resumed: bool = False) -> None:
        with self._lock:
            self.done += 1
            if not resumed:
                self.ran += 1
            if r.get("waived"):
                self.waived += 1
            elif r["state"] in BAD_STATES:
                self.bad += 1
            self._last = r["id"]
            label = r["state"] + (" (waived)" if r.get("waived") else "")
            if r.get("waived_but_passing"):
                label = "PASS (waived but passing)"
            plain = f"{label:<11} {r['id']}"
            if resumed:
                plain += "  (resumed)"
            else:
                plain += f"  ({r.get('duration_ms', 0):.0f} ms)"
            if r["state"] != "PASS" and r.get("message"):
                plain += f"  {r['message']}"
            notable = r["state"] in BAD_STATES or r.get("waived_but_passing")
            if self.tty:
                out = "\r\x1b[2K"
                if notable:
                    out += plain + "\n"
                out += self._live()
                self.stream.write(out)
            elif not self.quiet or notable:
                self.stream.write(plain + "\n")
            self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            with self._lock:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()


class RunSession:
    def __init__(self, *, cases: list, runner: Runner, jobs: int, out_dir: Path,
                 resume: bool, waivers: dict, meta: dict, progress: Progress,
                 warnings: list, tool: dict | None = None, kernel_log=None,
                 batch: int = 1):
        self.cases = cases
        # datcts.kernel_log.KernelLog when the run watches the kernel's log
        self.kernel_log = kernel_log
        self.runner = runner
        self.jobs = max(1, jobs)
        # cases per supervisor (Runner.run_batch; 1: each case alone); alone
        # too while the kernel's log is watched: a fault is charged to the
        # cases that ran while it came, which must be one case's own time
        self.batch = (max(1, batch) if getattr(runner, "batches", False)
                      and kernel_log is None else 1)
        self.out_dir = out_dir
        self.expected_ms = expected_durations(out_dir)
        self.journal = Journal(out_dir, resume)
        self.waivers = waivers
        self.meta = meta
        # datcts's own revision (git_revision, git_dirty): docs/results-format.md
        self.tool = tool or {"git_revision": None, "git_dirty": None}
        self.progress = progress
        self.warnings = warnings
        self.results: dict[str, dict] = {}
        self.resumed: set = set()
        self.futures: dict[str, cf.Future] = {}
        self.pool = None
        self._lock = threading.Lock()
        self._last_write = 0.0
        self._write_interval = JSON_REWRITE_INTERVAL_S
        self.started = now_iso()
        self.interrupted = False
        ids = {c.id for c in cases}
        for cid, r in self.journal.previous.items():
            if cid in ids:
                self.results[cid] = r
                self.resumed.add(cid)

    # ---- execution ----

    def start(self) -> None:
        if self.pool is not None:
            return
        self.pool = cf.ThreadPoolExecutor(max_workers=self.jobs,
                                          thread_name_prefix="datcts")
        todo = []
        for c in longest_first(self.cases, self.expected_ms):
            if c.id in self.resumed:
                f = cf.Future()
                f.set_result({c.id: self.results[c.id]})
                self.futures[c.id] = f
                self.progress.result(annotate(self.results[c.id], self.waivers), resumed=True)
            else:
                todo.append(c)
        for unit in batched(todo, self.expected_ms, self.batch):
            f = self.pool.submit(self._run_unit, unit)
            for c in unit:
                self.futures[c.id] = f

    def _run_unit(self, unit: list) -> dict:
        """id -> result of each case of the unit that has one (not one the
        interrupt ended); each is journaled and shown as soon as it comes."""
        done: dict = {}
        if self.runner.procs.stopping:
            return done
        if len(unit) > 1:
            self.runner.run_batch(unit, lambda case, r: self._finished(case, r, done))
            return done
        t0 = time.monotonic()
        self.runner.procs.started_here()
        r = self.runner.run(unit[0])
        sessions = self.runner.procs.started_here()
        if r is not None and self.kernel_log is not None and \
                r["state"] not in ("PASS", "UNSUPPORTED"):
            # the kernel faulted while the case ran: its failure is the device's
            fault = self.kernel_log.fault_between(t0, time.monotonic(), sessions,
                                                  self.runner.procs.started)
            if fault:
                r["device_fault"] = fault
        self._finished(unit[0], r, done)
        return done

    def _finished(self, case: Case, r: dict | None, done: dict) -> None:
        if r is None or self.runner.procs.stopping and r["state"] != "PASS":
            # Ended by the interrupt: not a result of the provider.
            return
        self.journal.append(r)
        with self._lock:
            self.results[case.id] = r
            due = time.monotonic() - self._last_write >= self._write_interval
        self.progress.result(annotate(r, self.waivers))
        if due:
            self.write_json(complete=False)
        done[case.id] = r

    def wait(self, case_id: str):
        return self.futures[case_id].result().get(case_id)

    def stop(self) -> None:
        """Interrupt: end running cases, drop queued ones."""
        self.interrupted = True
        self.runner.procs.stop_all()
        if self.pool:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        if self.pool:
            self.pool.shutdown(wait=True)
        self.progress.finish()
        complete = not self.interrupted and len(self.results) == len(self.cases)
        self.write_json(complete=complete, final=True)
        self.journal.close()

    # ---- results ----

    def summary(self) -> dict:
        with self._lock:
            rs = [annotate(self.results[c.id], self.waivers)
                  for c in self.cases if c.id in self.results]
        counts = {s: 0 for s in STATES}
        for r in rs:
            counts[r["state"]] += 1
        unwaived_bad = [r["id"] for r in rs if r["state"] in BAD_STATES and not r["waived"]]
        return {
            "selected": len(self.cases),
            "finished": len(rs),
            "not_run": len(self.cases) - len(rs),
            "resumed": len(self.resumed),
            "states": counts,
            "waived": sum(1 for r in rs if r["waived"]),
            "waived_but_passing": sum(1 for r in rs if r["waived_but_passing"]),
            "unwaived_failures": len(unwaived_bad),
        }

    def exit_code(self) -> int:
        s = self.summary()
        if s["unwaived_failures"]:
            return 1
        return 0

    def write_json(self, complete: bool, final: bool = False) -> None:
        t0 = time.monotonic()
        with self._lock:
            self._last_write = t0
            results = []
            for c in self.cases:
                r = self.results.get(c.id)
                if r is None:
                    continue
                a = annotate(r, self.waivers)
                a["resumed"] = c.id in self.resumed
                results.append(a)
        doc = {
            "schema": SCHEMA_VERSION,
            "tool": {"name": "datcts", "version": __version__, **self.tool},
            "run": dict(self.meta, started=self.started,
                        finished=now_iso() if final else None,
                        complete=complete, host=socket.gethostname(),
                        # selected cases without a result yet (coverage: "not run")
                        not_finished=[{"id": c.id, "page": c.page, "clauses": list(c.clauses)}
                                      for c in self.cases if c.id not in self.results]),
            "summary": self.summary(),
            "warnings": list(self.warnings),
            "results": results,
        }
        with self._lock:
            atomic_write_json(self.out_dir / "results.json", doc)
            cost = time.monotonic() - t0
            self._write_interval = max(JSON_REWRITE_INTERVAL_S, REWRITE_COST_FACTOR * cost)
