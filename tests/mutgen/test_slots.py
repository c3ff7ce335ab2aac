"""CaseRunner's slots: a case run that has run WAITING_AFTER_S lets another
start only while it is waiting, not while its processes keep a CPU busy (a
mutant that makes every wait spin)."""
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
