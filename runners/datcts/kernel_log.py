"""The kernel's log, watched while cases run (`datcts run --watch-kernel-log`).

A case that makes the kernel oops has found a defect of the kernel (the
device's driver), whatever the user-space provider passed it: no call of a
user-space library may crash the kernel.  Such a case cannot judge its
clause, and its failure is not the provider's: the runner records the fault
on the result (`device_fault`), and the verdict leaves the clause not
demonstrated, on the device's side (reports/datcts_reports/attribution.py).

The log is /dev/kmsg (one record per read: "PRIO,SEQ,USEC,FLAGS;TEXT"), read
by one thread from the end it had when the watch began; a fault's arrival is
the monotonic time its first line was read.  A result is marked when the
fault arrived between its case's start and its end, struck in one of the
case's processes (or in no case's, a kernel thread), and the case did not
pass: a case that passed was not stopped by it.
"""

from __future__ import annotations

import errno
import os
import re
import select
import threading
import time

KMSG = "/dev/kmsg"
# The first line of a kernel fault: an oops, a BUG, a protection fault, a panic.
FAULT_START = re.compile(r"^(BUG: |Oops: |Oops\b|general protection fault|kernel BUG at |"
                         r"Unable to handle kernel |Kernel panic)")
# Where it struck, from the register dump that follows ("RIP: 0010:siw_tx_hdt+0x5a/0x7c0 [siw]").
WHERE = re.compile(r"^(?:RIP:|PC is at|pc :)\s*(?:[0-9a-f]{4}:)?\s*(\S+(?: \[\w+\])?)")
END = re.compile(r"---\[ end trace")
# The process the fault struck in ("CPU: 0 PID: 238 Comm: datcts-cases-ep ...").
PID = re.compile(r"\bPID: (\d+) Comm: ")
# Lines kept of one fault (the header, the registers, the call trace).
KEEP_LINES = 40
# How long the end of a case waits for records the kernel has but the reader has not read yet.
SETTLE_S = 0.2
# A fault read this long after the case's end still counts (the reader's own delay).
LATE_S = 0.05


class Fault:
    def __init__(self, arrival: float, first: str):
        self.arrival = arrival
        self.lines = [first]
        self.where = None
        # the session of the process it struck in (the case binary's supervisor started one
        # per case); None when unknown: a kernel thread, a process already gone
        self.session = None
        self.done = False

    def add(self, text: str) -> None:
        if self.done:
            return
        if len(self.lines) < KEEP_LINES:
            self.lines.append(text)
        m = WHERE.match(text.strip())
        if m and self.where is None:
            self.where = m.group(1)
        m = PID.search(text)
        if m and self.session is None:
            try:
                self.session = os.getsid(int(m.group(1)))
            except OSError:
                pass
        if END.search(text):
            self.done = True

    def record(self) -> dict:
        """What a result carries (docs/results-format.md, `device_fault`)."""
        return {"first": self.lines[0], "where": self.where, "log": list(self.lines)}


def parse(record: str) -> str | None:
    """The text of one /dev/kmsg record (continuation lines dropped); None if malformed."""
    head, sep, text = record.partition(";")
    if not sep or head.count(",") < 2:
        return None
    return text.split("\n", 1)[0]


class KernelLog:
    """One watcher per run.  `start()` says why it cannot watch (None when it does)."""

    def __init__(self, path: str = KMSG):
        self.path = path
        self.faults: list[Fault] = []
        self._fd = None
        self._reading = False
        self._lock = threading.Lock()
        self._current: Fault | None = None

    def start(self) -> str | None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as e:
            return f"cannot read {self.path}: {e.strerror}"
        try:
            os.lseek(fd, 0, os.SEEK_END)   # what was logged before the run is not its
        except OSError:
            pass                           # a pipe (the tests): nothing before anyway
        self._fd = fd
        self._reading = True
        threading.Thread(target=self._read, name="datcts-kmsg", daemon=True).start()
        return None

    def _read(self) -> None:
        try:
            self._read_records()
        finally:
            self._reading = False

    def _read_records(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 8192)
            except OSError as e:
                if e.errno == errno.EPIPE:   # records were overwritten before we read them
                    continue
                return
            if not data:
                if _is_kmsg(self._fd):
                    continue
                return                  # the end of a pipe (the tests)
            now = time.monotonic()
            # /dev/kmsg gives one record per read; a pipe may give several lines
            for rec in data.decode(errors="replace").splitlines():
                if rec.startswith(" "):
                    continue            # a record's KEY=VALUE continuation
                text = parse(rec)
                if text is not None:
                    self._line(now, text)

    def _line(self, now: float, text: str) -> None:
        with self._lock:
            cur = self._current
            # an oops reads "BUG: ...", "#PF: ...", "Oops: ...", registers, a trace: one fault
            starts = FAULT_START.match(text) and (cur is None or cur.done or
                                                  now - cur.arrival > 1.0)
            if starts:
                self._current = Fault(now, text)
                self.faults.append(self._current)
            elif self._current is not None:
                self._current.add(text)

    def settle(self) -> None:
        """Wait (briefly) until the reader has read what the kernel logged so far."""
        deadline = time.monotonic() + SETTLE_S
        while self._reading and time.monotonic() < deadline:
            try:
                ready = select.select([self._fd], [], [], 0)[0]
            except (OSError, ValueError):
                return
            if not ready:
                return
            time.sleep(0.005)

    def fault_between(self, t0: float, t1: float, sessions=(), case_sessions=()) -> dict | None:
        """The first fault that arrived in [t0, t1], as a result records it, for a case whose
        processes ran in @sessions, of all the run's @case_sessions: a fault that struck in
        another case's process is that case's; one that struck elsewhere (a kernel thread, a
        process gone before its pid was read) is every case's that ran then."""
        if self._fd is None:
            return None
        self.settle()
        with self._lock:
            for f in self.faults:
                if t0 <= f.arrival <= t1 + LATE_S and \
                        (f.session is None or f.session in sessions or
                         f.session not in case_sessions):
                    return f.record()
        return None


def _is_kmsg(fd: int) -> bool:
    import stat
    try:
        return stat.S_ISCHR(os.fstat(fd).st_mode)
    except OSError:
        return False
