"""What runs at once: a case run that has run WAITING_AFTER_S lets another
start only while it is waiting, not while its processes keep a CPU busy (a
mutant that makes every wait spin); the batches of a mutant expected to
survive start ahead of their turn, their results still taken in order."""
import subprocess
import sys
import threading
import time

from datcts import mutgen_run


def second_slot_after(runner, argv) -> float:
    """Seconds until a second slot is had while a run of argv holds the first."""
    started = threading.Event()
    done = threading.Event()

    def hold():
        with runner.slot():
            p = subprocess.Popen(argv, start_new_session=True)
            runner.procs.add(p)
            started.set()
            p.wait()
            runner.procs.remove(p)
        done.set()

    t = threading.Thread(target=hold)
    t.start()
    started.wait()
    t0 = time.monotonic()
    with runner.slot():
        waited = time.monotonic() - t0
    t.join()
    return waited


def test_a_waiting_run_lets_another_start_and_a_spinning_one_does_not(monkeypatch):
    monkeypatch.setattr(mutgen_run, "WAITING_AFTER_S", 0.3)
    runner = mutgen_run.CaseRunner({}, 10.0, 1, True)
    sleeper = [sys.executable, "-c", "import time; time.sleep(1.5)"]
    spinner = [sys.executable, "-c",
               "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 1.5: pass"]
    assert second_slot_after(runner, sleeper) < 1.0
    assert second_slot_after(runner, spinner) >= 1.2


def test_a_run_is_timed_with_its_children(tmp_path):
    # the supervisor's case processes are its children; the time of those it
    # reaped is in its own record
    p = subprocess.Popen([sys.executable, "-c",
                          "import subprocess, sys, time\n"
                          "subprocess.run([sys.executable, '-c', "
                          "'import time\\nt = time.monotonic()\\n"
                          "while time.monotonic() - t < 0.5: pass'])\n"
                          "time.sleep(1.5)"])
    time.sleep(1.2)
    ticks, running = mutgen_run.run_tree_usage([p.pid])
    p.wait()
    # at least a fifth of the spin even on a loaded machine; the parent sleeps
    assert ticks >= 0.1 * mutgen_run.CLOCK_TICKS and not running


class Slow:
    """run_batch takes 0.2 s and PASSes every case; records how many ran at once."""

    def __init__(self):
        self.jobs = 3
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.batches = []

    def run_batch(self, cases, env, limit):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.batches.append([c.id for c in cases])
        time.sleep(0.2)
        with self.lock:
            self.now -= 1
        return [{"state": "PASS", "duration_ms": 1.0} for _ in cases]


def cases(n):
    from types import SimpleNamespace
    return [SimpleNamespace(id=f"dat_x.c{i:03d}", page="dat_x", binary="b", two_node=False)
            for i in range(n)]


def test_batches_ahead_run_at_once_and_come_back_in_order():
    runner = Slow()
    queue = mutgen_run.CaseQueue(cases(2 + 8 + 32 + 128 + 128))
    got = [b for b, _ in mutgen_run.BatchesAhead(queue, runner, {}, lambda b: 1.0, 3)]
    assert [c.id for b in got for c in b] == [c.id for c in cases(298)]
    assert runner.most == 3


def test_a_survivor_expected_runs_its_batches_ahead_and_keeps_its_record_in_order():
    from types import SimpleNamespace
    runner = Slow()
    cs = cases(2 + 8 + 32)
    cov = {"cases": {c.id: {"state": "PASS", "duration_ms": 1.0} for c in cs}}
    m = SimpleNamespace(id="core/x.c:f:cond-negate:1:abcdef", function="f", file="core/x.c")
    rec = mutgen_run.run_mutant(m, [c.id for c in cs], cov, {c.id: c for c in cs}, runner,
                                "dat.conf", 10.0, ahead=3)
    assert runner.most == 3                 # its three batches at once, not in turn
    assert rec["status"] == "survived"
    assert [r["id"] for r in rec["runs"]] == [c.id for c in cs]
