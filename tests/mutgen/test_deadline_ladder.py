"""The deadline ladder of run_mutant: a case first runs with a short
deadline; a result that ran into it decides nothing until the full limit
says the same (a scripted runner stands in for the case binaries)."""
from types import SimpleNamespace

from datcts import mutgen_run

MUTANT = SimpleNamespace(id="core/x.c:ref_x:cond-negate:1:abcdef", function="ref_x",
                         file="core/x.c")


def case(name, binary="b"):
    return SimpleNamespace(id=name, page="dat_x", binary=binary, two_node=False)


class Scripted:
    """Answers from a script: case id -> function(limit) -> (state, ms)."""

    def __init__(self, script, control=None):
        self.script = script
        self.control = control or {}   # without the mutant: PASS unless told
        self.calls = []

    def run_batch(self, cases, env, limit):
        out = []
        for c in cases:
            if mutgen_run.mutgen.ENV_VAR in env:
                state, ms = self.script[c.id](limit)
                self.calls.append((c.id, limit))
            else:
                state, ms = self.control.get(c.id, lambda lim: ("PASS", 5.0))(limit)
                self.calls.append((c.id, limit, "control"))
            out.append({"state": state, "duration_ms": ms})
            if state == "TIMEOUT":          # the binary reports nothing after a hang
                return out + [None] * (len(cases) - len(out))
        return out


def run(script, names, control=None):
    cases = {n: case(n) for n in names}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}
    runner = Scripted(script, control)
    rec = mutgen_run.run_mutant(MUTANT, names, cov, cases, runner, "dat.conf", 60.0)
    return rec, runner.calls


def waits_out(limit):
    return ("FAIL", limit * 1000.0 * 0.95)


def test_fail_that_waited_out_the_short_deadline_is_confirmed_with_the_full_limit():
    rec, calls = run({"a": lambda lim: ("PASS", 4.0), "b": waits_out}, ["a", "b"])
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    short, full = calls[0][1], calls[-1][1]
    assert short == mutgen_run.SHORT_FLOOR_S and full == mutgen_run.BATCH_MIN_TIMEOUT_S
    # the limit of its batch; the kill at the limit is checked against the
    # case without the mutant, which passes
    assert calls == [("a", short), ("b", short), ("b", full), ("b", full, "control")]
    assert [r.get("superseded", False) for r in rec["runs"]] == [False, True, False]
    assert rec["runs"][-1]["control"]["state"] == "PASS"


def test_a_fail_at_the_limit_the_case_also_meets_without_the_mutant_is_no_kill():
    # a loaded machine: the case runs out of time with and without the mutant
    rec, calls = run({"a": waits_out, "b": lambda lim: ("FAIL", 2.0)}, ["a", "b"],
                     control={"a": waits_out})
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    a_runs = [r for r in rec["runs"] if r["id"] == "a" and not r.get("superseded")]
    assert a_runs[0]["state"] == "UNRESOLVED" and a_runs[0]["undecided"] == "FAIL"
    assert a_runs[0]["control"]["state"] == "FAIL"
    # alone, nothing else: a survivor, not a kill
    rec, _ = run({"a": waits_out}, ["a"], control={"a": waits_out})
    assert rec["status"] == "survived"


def test_slowness_the_full_limit_clears_is_no_kill():
    # FAILs only when its deadline is short: a slow case, not a defect
    slow = {"a": lambda lim: ("FAIL", lim * 1000.0 * 0.9) if lim < 5 else ("PASS", 3000.0)}
    rec, calls = run(slow, ["a"])
    assert calls == [("a", mutgen_run.SHORT_FLOOR_S), ("a", 10.0)]   # alone: 10 s
    assert rec["status"] == "survived" and rec["killed_by"] == []


def test_a_quick_fail_is_a_kill_at_once():
    rec, calls = run({"a": lambda lim: ("FAIL", 3.0)}, ["a"])
    assert rec["status"] == "killed" and calls == [("a", mutgen_run.SHORT_FLOOR_S)]


def test_a_hang_is_confirmed_once_with_the_full_limit_then_given_up():
    hang = lambda lim: ("TIMEOUT", lim * 1000.0)   # noqa: E731
    rec, calls = run({n: hang for n in "abc"}, ["a", "b", "c"])
    assert rec["status"] == "timed-out"
    # a at the short deadline, again with the full limit, and without the
    # mutant, which passes: settled, no other case runs
    assert [c[0] for c in calls] == ["a", "a", "a"]
    assert calls[1][1] == mutgen_run.BATCH_MIN_TIMEOUT_S and calls[2][2] == "control"
    # without that control (the case cannot pass now either) the next case is tried
    rec, calls = run({n: hang for n in "abc"}, ["a", "b", "c"],
                     control={"a": hang})
    assert [c[0] for c in calls][:3] == ["a", "a", "a"] and "b" in [c[0] for c in calls]


def test_cases_after_a_hang_in_a_batch_still_run():
    hang_short = lambda lim: ("TIMEOUT", lim * 1000.0) if lim < 5 else ("PASS", 5.0)  # noqa
    rec, calls = run({"a": hang_short, "b": lambda lim: ("FAIL", 2.0)}, ["a", "b"])
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    assert [c[0] for c in calls] == ["a", "a", "b"]


def test_a_survivors_unresolved_at_the_short_deadline_is_asked_again():
    unres = lambda lim: ("UNRESOLVED", lim * 1000.0 * 0.9) if lim < 5 else ("FAIL", 6000.0)  # noqa
    rec, calls = run({"a": lambda lim: ("PASS", 4.0), "b": unres}, ["a", "b"])
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    assert calls[-2] == ("b", mutgen_run.BATCH_MIN_TIMEOUT_S)
    assert calls[-1] == ("b", mutgen_run.BATCH_MIN_TIMEOUT_S, "control")


def test_a_survivors_case_out_of_time_for_its_own_bound_is_asked_again():
    # a case that sizes its work by its deadline: too short a one and it
    # judges nothing (UNSUPPORTED); with the full limit it FAILs
    bounded = lambda lim: ("UNSUPPORTED", 60.0) if lim < 5 else ("FAIL", 900.0)  # noqa
    rec, calls = run({"a": lambda lim: ("PASS", 4.0), "b": bounded}, ["a", "b"])
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    assert calls[-1] == ("b", mutgen_run.BATCH_MIN_TIMEOUT_S)
    # one that is UNSUPPORTED with the full limit too survives, asked once more only
    rec, calls = run({"a": lambda lim: ("UNSUPPORTED", 3.0)}, ["a"])
    assert rec["status"] == "survived" and len(calls) == 2


def test_a_survivors_pass_on_shortened_work_is_asked_again():
    # a case that sized its work down to the short deadline passes there
    # (memory kept a slab at a time did not show in so few cycles) and FAILs
    # with the full limit's work; a PASS on all of its work is not asked again
    class Shortening(Scripted):
        def run_batch(self, cases, env, limit):
            out = super().run_batch(cases, env, limit)
            return [dict(r, work_fraction=0.3) if r and c.id == "b" and limit < 5 else r
                    for c, r in zip(cases, out)]

    names = ["a", "b"]
    cases = {n: case(n) for n in names}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}
    script = {"a": lambda lim: ("PASS", 4.0),
              "b": lambda lim: ("PASS", 900.0) if lim < 5 else ("FAIL", 2000.0)}
    runner = Shortening(script)
    rec = mutgen_run.run_mutant(MUTANT, names, cov, cases, runner, "dat.conf", 60.0)
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    assert [(r["id"], r["work_fraction"]) for r in rec["runs"] if r.get("superseded")] == \
        [("b", 0.3)]
    rec, calls = run({"a": lambda lim: ("PASS", 4.0), "b": lambda lim: ("PASS", 900.0)},
                     ["a", "b"])
    assert rec["status"] == "survived" and len(calls) == 2


def test_a_quick_unresolved_is_not_asked_again():
    rec, calls = run({"a": lambda lim: ("UNRESOLVED", 3.0)}, ["a"])
    assert rec["status"] == "survived" and len(calls) == 1
    assert "UNRESOLVED" in rec["reason"]


def test_a_functions_killers_go_first_for_its_next_mutants():
    names = ["a", "b", "c"]
    cases = {n: case(n) for n in names}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}
    script = {"a": lambda lim: ("PASS", 4.0), "b": lambda lim: ("PASS", 4.0),
              "c": lambda lim: ("FAIL", 3.0)}
    killers = mutgen_run.Killers()
    first = Scripted(script)
    rec = mutgen_run.run_mutant(MUTANT, names, cov, cases, first, "dat.conf", 60.0,
                                killers=killers)
    killers.note(MUTANT, rec)
    assert rec["killed_by"] == ["c"] and [c for c, _ in first.calls] == ["a", "b", "c"]
    sibling = SimpleNamespace(id="core/x.c:ref_x:eq-swap:1:012345", function="ref_x",
                              file="core/x.c")
    second = Scripted(script)
    rec = mutgen_run.run_mutant(sibling, names, cov, cases, second, "dat.conf", 60.0,
                                killers=killers)
    assert rec["status"] == "killed" and second.calls[0][0] == "c"
    assert [r["id"] for r in rec["runs"]] == ["c"]


def test_the_page_of_a_failed_set_up_call_goes_next():
    # every case's set-up calls dat_lmr_create, which the mutant breaks:
    # the cases of dat_lmr_create's own page run next, not the rest
    names = ["u1", "u2", "u3", "u4", "k"]
    cases = {n: case(n, binary=n) for n in names}
    cases["k"] = SimpleNamespace(id="k", page="dat_lmr_create", binary="k", two_node=False)
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}

    class SetupFails(Scripted):
        def run_batch(self, cs, env, limit):
            out = super().run_batch(cs, env, limit)
            return [dict(r, message="set-up dat_lmr_create returned DAT_INVALID_PARAMETER")
                    if r and r["state"] == "UNRESOLVED" else r for r in out]

    script = {n: (lambda lim: ("UNRESOLVED", 2.0)) for n in names}
    script["k"] = lambda lim: ("FAIL", 2.0)
    runner = SetupFails(script)
    rec = mutgen_run.run_mutant(MUTANT, names, cov, cases, runner, "dat.conf", 60.0)
    assert rec["status"] == "killed" and rec["killed_by"] == ["k"]
    assert [c[0] for c in runner.calls] == ["u1", "k"]


def test_a_case_too_slow_for_its_limit_now_gets_more_time_once():
    # a loaded machine: the case needs 12 s, more than its full limit of
    # 10 s; with more time it fails with the mutant and passes without it
    slow_fail = lambda lim: ("TIMEOUT", lim * 1000.0) if lim < 12 else ("FAIL", 12000.0)  # noqa
    slow_pass = lambda lim: ("TIMEOUT", lim * 1000.0) if lim < 12 else ("PASS", 12000.0)  # noqa
    rec, calls = run({"a": slow_fail}, ["a"], control={"a": slow_pass})
    assert rec["status"] == "killed" and rec["killed_by"] == ["a"]
    last = rec["runs"][-1]
    assert last["escalated"] and last["limit_s"] == 10.0 * mutgen_run.ESCALATION
    assert last["control"]["state"] == "PASS"
    # too slow even then: undecided, not a kill
    rec, _ = run({"a": lambda lim: ("TIMEOUT", lim * 1000.0)}, ["a"],
                 control={"a": lambda lim: ("TIMEOUT", lim * 1000.0)})
    assert rec["status"] == "survived"


def test_a_survivors_unresolved_at_the_full_limit_gets_more_time_once():
    # a loaded machine: a heap measure's set-up runs out of the case's own
    # deadline with the full limit too; with more time it fails
    starved = lambda lim: ("UNRESOLVED", lim * 1000.0 * 0.9) if lim < 12 else ("FAIL", 12000.0)  # noqa
    rec, calls = run({"a": lambda lim: ("PASS", 4.0), "b": starved}, ["a", "b"])
    assert rec["status"] == "killed" and rec["killed_by"] == ["b"]
    full = mutgen_run.BATCH_MIN_TIMEOUT_S
    assert calls[-3:] == [("b", full), ("b", full * mutgen_run.ESCALATION),
                          ("b", full * mutgen_run.ESCALATION, "control")]
    # starved even then: a survivor noticed by a set-up step, after one widening
    rec, calls = run({"a": lambda lim: ("UNRESOLVED", lim * 1000.0 * 0.9)}, ["a"])
    assert rec["status"] == "survived" and "UNRESOLVED" in rec["reason"]
    assert [c[1] for c in calls] == [mutgen_run.SHORT_FLOOR_S, 10.0, 10.0 * mutgen_run.ESCALATION]


def test_a_run_that_waits_lets_another_start(monkeypatch):
    # one slot: a run that has gone on for WAITING_AFTER_S gives it back, so
    # a second run starts while the first still waits; a short run holds it
    # to its end
    import threading
    import time
    monkeypatch.setattr(mutgen_run, "WAITING_AFTER_S", 0.05)
    runner = mutgen_run.CaseRunner({}, 10.0, 1, True)
    started = []

    def waiting():
        with runner.slot():
            started.append("waiting")
            time.sleep(0.5)

    t = threading.Thread(target=waiting)
    t.start()
    time.sleep(0.02)
    assert not runner.slots.acquire(timeout=0.01)     # held while it may be working
    t0 = time.monotonic()
    with runner.slot():
        started.append("second")
    assert started == ["waiting", "second"] and time.monotonic() - t0 < 0.3
    t.join()
    # both given back exactly once: the slot is free, and only one
    assert runner.slots.acquire(timeout=0.01) and not runner.slots.acquire(timeout=0.01)
