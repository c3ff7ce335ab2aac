"""Survivors in groups (mutgen_run.survivor_groups, settle_group): in a run
that re-checks the triage, the mutants it says survive run together; a group
whose cases all end as without a mutant settles each member, a case that
ends otherwise is run with halves of the members on, down to a few members
each run alone (and, if none changes it, with the group once more, then
without one member at a time, before the group is halved), and a kill is only ever decided by a mutant alone (a scripted
runner stands in for the case binaries)."""
from types import SimpleNamespace

import pytest

from datcts import mutgen_run

ENV = mutgen_run.mutgen.ENV_VAR


def mutant(n, function=None, span=None):
    start, end = span or (100 * n, 100 * n + 10)
    return SimpleNamespace(id=f"core/x.c:{function or f'f{n}'}:cond-negate:{n}:abcdef",
                           function=function or f"f{n}", file="core/x.c", start=start, end=end)


def case(name):
    return SimpleNamespace(id=name, page="dat_x", binary="b", two_node=False)


class Killing:
    """A case FAILs when a mutant on names it in `kills` (mutant id -> cases),
    and ends UNRESOLVED (a set-up step noticed) when one names it in
    `notices`."""

    def __init__(self, kills, notices=None):
        self.kills = kills
        self.notices = notices or {}
        self.groups = []
        self.alone = []

    def run_batch(self, cases, env, limit):
        on = set(env.get(ENV, "").split(",")) - {""}
        if len(on) > 1:
            self.groups.append((sorted(on), [c.id for c in cases]))
        elif on:
            self.alone.append((min(on), [c.id for c in cases]))

        def state(c):
            if any(c.id in self.kills.get(m, ()) for m in on):
                return "FAIL"
            if any(c.id in self.notices.get(m, ()) for m in on):
                return "UNRESOLVED"
            return "PASS"
        return [{"state": state(c), "duration_ms": 5.0} for c in cases]


def settle(members, reach, kills, notices=None):
    names = sorted({c for r in reach.values() for c in r})
    cases = {n: case(n) for n in names}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}
    runner = Killing(kills, notices)
    singles = []

    def single(m, first=None):
        singles.append(m.id)
        return mutgen_run.run_mutant(m, reach[m.id], cov, cases, runner, "dat.conf", 60.0,
                                     first=first)

    out = mutgen_run.settle_group(members, reach, cov, cases, runner, "dat.conf", 60.0, single)
    return {m.id: rec for m, rec in out}, singles, runner


def test_a_group_whose_cases_all_pass_settles_every_member_in_one_run():
    ms = [mutant(n) for n in range(6)]
    reach = {m.id: ["a", "b", "c"] for m in ms}
    recs, singles, runner = settle(ms, reach, {})
    assert singles == [] and runner.groups and all(len(on) == 6 for on, _ in runner.groups)
    assert all(r["status"] == "survived" and len(r["group"]) == 6 for r in recs.values())
    assert all([x["id"] for x in r["runs"]] == ["a", "b", "c"] for r in recs.values())


def test_a_member_a_case_kills_is_found_alone_and_the_others_still_survive():
    ms = [mutant(n) for n in range(8)]
    reach = {m.id: ["a", "b"] for m in ms}
    bad = ms[5].id
    recs, singles, runner = settle(ms, reach, {bad: {"b"}})
    assert recs[bad]["status"] == "killed" and recs[bad]["killed_by"] == ["b"]
    assert "group" not in recs[bad]             # decided by the mutant alone
    assert singles == [bad]                     # "b" with each member alone found it
    assert all(r["status"] == "survived" and len(r["group"]) == 7
               for mid, r in recs.items() if mid != bad)
    # "b" with each half of the group on (the first passes it), then the
    # seven go on from "b": "a" passed with them on already
    assert [(len(on), cases) for on, cases in runner.groups] == \
        [(8, ["a", "b"]), (4, ["b"]), (4, ["b"]), (7, ["b"])]
    # "b" with each member of the failing half alone, the killing one once
    # more (a kill alone must recur), then the killed one's own run, "b" first
    assert runner.alone[:4] == [(m.id, ["b"]) for m in ms[4:]]
    assert [(mid, cases[0]) for mid, cases in runner.alone[4:]] == [(bad, "b"), (bad, "b")]


def test_halving_finds_the_member_a_hot_case_fails_in_a_few_runs():
    # 64 members reach "b": the halves that fail it are followed down to
    # parts of ALONE_PART, not each member run alone
    ms = [mutant(n) for n in range(64)]
    reach = {m.id: ["a", "b"] for m in ms}
    bad = ms[37].id
    recs, singles, runner = settle(ms, reach, {bad: {"b"}})
    assert singles == [bad] and recs[bad]["status"] == "killed"
    assert all(r["status"] == "survived" for mid, r in recs.items() if mid != bad)
    runs_of_b = [on for on, cases in runner.groups if cases == ["b"]]
    # two halves at each of four levels (64 -> 4), then the rest goes on
    assert len(runs_of_b) == 2 * 4 + 1
    alone_b = [mid for mid, cases in runner.alone if cases == ["b"]]
    # each of the failing part of four alone, the killing one once more
    assert len(alone_b) == mutgen_run.ALONE_PART + 1 and alone_b.count(bad) == 2


def test_a_member_that_only_a_set_up_step_notices_stays_out_of_single_runs():
    # UNRESOLVED kills nothing: the member is not run alone over its cases,
    # and its other cases run on in the group
    ms = [mutant(n) for n in range(4)]
    reach = {m.id: ["a", "b", "c"] for m in ms}
    odd = ms[2].id
    recs, singles, runner = settle(ms, reach, {}, {odd: {"a"}})
    assert singles == []
    assert all(r["status"] == "survived" for r in recs.values())
    assert [x["state"] for x in recs[odd]["runs"] if x["id"] == "a"] == ["UNRESOLVED"]
    assert "UNRESOLVED" in recs[odd]["reason"] and len(recs[odd]["group"]) == 4
    assert {x["id"] for x in recs[odd]["runs"]} == {"a", "b", "c"}
    # "a" again with the other three on, then the four go on together
    assert [(len(on), cases) for on, cases in runner.groups] == \
        [(4, ["a", "b"]), (3, ["a"]), (4, ["b", "c"])]


def test_a_kill_only_two_members_make_together_is_no_kill_of_either():
    # each alone survives: the group differs, and without one of the two
    # it does not
    ms = [mutant(n) for n in range(4)]
    reach = {m.id: ["a"] for m in ms}

    class Together(Killing):
        def run_batch(self, cases, env, limit):
            on = set(env.get(ENV, "").split(","))
            both = {ms[0].id, ms[3].id} <= on
            return [{"state": "FAIL" if both else "PASS", "duration_ms": 5.0} for _ in cases]

    cases = {"a": case("a")}
    cov = {"cases": {"a": {"state": "PASS", "duration_ms": 5.0}}}
    runner = Together({})
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: mutgen_run.run_mutant(
                                      m, reach[m.id], cov, cases, runner, "dat.conf", 60.0))
    recs = {m.id: r for m, r in out}
    assert {mid: r["status"] for mid, r in recs.items()} == {m.id: "survived" for m in ms}
    # the first member without which "a" passes settles it; no halving, and
    # the group stays whole
    assert "a ends as without a mutant with it alone" in recs[ms[0].id]["reason"]
    assert [len(recs[m.id]["group"]) for m in ms] == [4, 4, 4, 4]


def test_a_case_that_varies_is_asked_again_and_the_group_goes_on_whole():
    # "b" fails once with the group on, no member alone changes it, and it
    # passes when asked again: no halving, no single run
    ms = [mutant(n) for n in range(6)]
    reach = {m.id: ["a", "b", "c"] for m in ms}
    cases = {n: case(n) for n in "abc"}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in "abc"}}

    class Once(Killing):
        failed = False

        def run_batch(self, batch, env, limit):
            out = super().run_batch(batch, env, limit)
            for c, r in zip(batch, out):
                if c.id == "b" and len(env[ENV].split(",")) > 1 and not self.failed:
                    self.failed = True
                    r["state"] = "FAIL"
            return out

    runner = Once({})
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: pytest.fail("run alone"))
    assert {m.id: (r["status"], len(r["group"])) for m, r in out} == \
        {m.id: ("survived", 6) for m in ms}
    # "b" with each half on (both pass it), with the whole group again
    assert [(len(on), c) for on, c in runner.groups] == \
        [(6, ["a", "b"]), (3, ["b"]), (3, ["b"]), (6, ["b"]), (6, ["c"])]


def test_a_member_whose_kill_alone_does_not_recur_stays_in_the_group():
    # "b" fails with the group on and with one member alone, once: asked
    # again alone it passes, so that member is not run over its cases alone
    ms = [mutant(n) for n in range(5)]
    reach = {m.id: ["a", "b", "c"] for m in ms}
    cases = {n: case(n) for n in "abc"}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in "abc"}}
    flaky = ms[3].id

    class OnceAlone(Killing):
        alone_fails = 0

        def run_batch(self, batch, env, limit):
            out = super().run_batch(batch, env, limit)
            on = env[ENV].split(",")
            for c, r in zip(batch, out):
                # until it has failed "b" alone once
                if c.id == "b" and flaky in on and not self.alone_fails:
                    self.alone_fails += len(on) == 1
                    r["state"] = "FAIL"
            return out

    runner = OnceAlone({})
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: pytest.fail("run alone"))
    recs = {m.id: r for m, r in out}
    assert all(r["status"] == "survived" and len(r["group"]) == 5 for r in recs.values())
    assert "once and not when run again" in recs[flaky]["reason"]
    assert [x["state"] for x in recs[flaky]["runs"] if x.get("alone")] == ["FAIL", "PASS"]
    # "b" alone twice for the member it failed, once for the others
    assert [mid for mid, c in runner.alone if c == ["b"]].count(flaky) == 2
    assert [cases for _, cases in runner.groups][-1] == ["c"]


def test_groups_never_hold_two_mutants_whose_code_overlaps_and_keep_to_their_size():
    # 0-2: one expression and a part of it, 3-4: apart in one function
    spans = {0: (10, 50), 1: (10, 50), 2: (20, 30), 3: (60, 70), 4: (70, 80)}
    ms = [mutant(n, "same" if n < 5 else None, spans.get(n)) for n in range(30)]
    reach = {m.id: ["a", "b", "c", "d"] for m in ms}
    groups = mutgen_run.survivor_groups(ms, reach, 12)
    assert sorted(m.id for g in groups for m in g) == sorted(m.id for m in ms)
    for g in groups:
        assert len(g) <= 12
        assert sum(m.start < 50 for m in g if m.function == "same") <= 1
    # mutants of one function whose code is apart share a group
    assert any({3, 4} <= {ms.index(m) for m in g} for g in groups)


def test_a_mutant_joins_only_a_group_whose_cases_are_mostly_its_own():
    hot = [mutant(n) for n in range(3)]
    cold = mutant(9)
    reach = {**{m.id: [f"c{i}" for i in range(40)] for m in hot}, cold.id: ["x1", "x2"]}
    groups = mutgen_run.survivor_groups(hot + [cold], reach, 12)
    assert sorted(len(g) for g in groups) == [1, 3]


# ---------------------------------------------------------------- triage errors

def confirm(first_runs, second_status):
    """confirm_triage_errors over records as the first runs ended, with a
    second run that ends `second_status` (mutant id -> status)."""
    ms = {r["id"]: SimpleNamespace(id=r["id"], listing=lambda i=r["id"]: {"id": i})
          for r in first_runs}
    triage = {mid: {"kind": "unspecified"} for mid in ms}
    asked = []

    def single(m, first=None):
        asked.append((m.id, first))
        st = second_status[m.id]
        return {"status": st, "killed_by": [first] if st == "killed" else [],
                "runs": [], "reason": "3 of 3 reaching case(s) pass"}

    results = [dict(r) for r in first_runs]
    mutgen_run.confirm_triage_errors(results, triage, ms, None, 2, single, lambda _: None)
    return {r["id"]: r for r in results}, asked


def test_a_triage_error_stands_only_when_its_kill_recurs():
    firsts = [{"id": i, "status": "killed", "killed_by": ["dat_x.heap"],
               "runs": [{"id": "dat_x.heap", "state": "FAIL"}]} for i in ("m1", "m2")]
    out, asked = confirm(firsts, {"m1": "killed", "m2": "survived"})
    assert sorted(asked) == [("m1", "dat_x.heap"), ("m2", "dat_x.heap")]   # its killer first
    assert out["m1"]["status"] == "killed" and out["m1"]["confirmed_by"] == ["dat_x.heap"]
    assert mutgen_run.triage_errors([dict(out["m1"], triage={"kind": "unspecified"})])
    # the kill that did not recur: the second run decides, the first is kept
    assert out["m2"]["status"] == "survived" and out["m2"]["second_run"]
    assert out["m2"]["first_run"]["killed_by"] == ["dat_x.heap"]
    assert "not a triage error" in out["m2"]["reason"]
    assert not mutgen_run.triage_errors([dict(out["m2"], triage={"kind": "unspecified"})])


def test_only_mutants_triaged_as_unkillable_are_asked_again():
    firsts = [{"id": "m1", "status": "survived", "killed_by": [], "runs": []}]
    out, asked = confirm(firsts, {"m1": "killed"})
    assert asked == [] and out["m1"]["status"] == "survived"


def test_an_untriaged_survivor_killed_in_its_second_run_has_that_record():
    ms = {i: SimpleNamespace(id=i, listing=lambda i=i: {"id": i}) for i in ("m1", "m2", "m3")}
    results = [{"id": "m1", "status": "survived", "runs": [{}, {}]},
               {"id": "m2", "status": "survived", "runs": []},
               {"id": "m3", "status": "survived", "runs": []}]
    asked, said = [], []

    def single(m):
        asked.append(m.id)
        return {"status": "killed" if m.id == "m1" else "survived", "runs": [],
                "killed_by": ["dat_x.slow"] if m.id == "m1" else []}

    mutgen_run.second_chance(results, {"m3": {"kind": "equivalent"}}, ms, None, 2, single,
                             said.append)
    assert sorted(asked) == ["m1", "m2"]            # the triaged one is not a gate's business
    assert results[0]["status"] == "killed" and results[0]["second_run"]
    assert results[0]["first_run"] == {"status": "survived", "runs": 2}
    assert results[1] == {"id": "m2", "status": "survived", "runs": []}
    assert said == ["m1: survived its first run, killed in the second"]


class Limited(Killing):
    """A case of `hang_cases` (by default `slow_cases`) hangs (TIMEOUT) with
    a member of `hangs` on, whatever the limit; with `slow` a case of
    `slow_cases` takes 3 s (a loaded machine), a TIMEOUT only under a shorter
    limit.  Records each run's limit."""

    def __init__(self, hangs=(), slow=False, slow_cases=frozenset("b"), hang_cases=None):
        super().__init__({})
        self.hangs, self.slow, self.limits = set(hangs), slow, []
        self.slow_cases = slow_cases
        self.hang_cases = slow_cases if hang_cases is None else hang_cases

    def run_batch(self, cases, env, limit):
        on = set(env.get(ENV, "").split(",")) - {""}
        self.limits.append((len(on), [c.id for c in cases], limit))
        super().run_batch(cases, env, limit)
        def state(c):
            if on & self.hangs and c.id in self.hang_cases:
                return "TIMEOUT"
            if self.slow and on and limit < 3.0 and c.id in self.slow_cases:
                return "TIMEOUT"
            return "PASS"
        return [{"state": state(c), "duration_ms": 5.0} for c in cases]


def settle_limited(ms, runner):
    reach = {m.id: ["a", "b"] for m in ms}
    cases = {n: SimpleNamespace(id=n, page="dat_x", binary=n, two_node=True) for n in "ab"}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in "ab"}}

    def single(m, first=None):
        return mutgen_run.run_mutant(m, reach[m.id], cov, cases, runner, "dat.conf", 60.0,
                                     first=first)
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0, single)
    return {m.id: rec for m, rec in out}


def test_a_case_that_outlasts_only_the_short_limit_is_settled_not_searched():
    # slow with the group on, not hung: the full limit lets it pass, and no
    # half and no member runs it
    ms = [mutant(n) for n in range(16)]
    runner = Limited(slow=True)
    recs = settle_limited(ms, runner)
    assert all(r["status"] == "survived" and len(r["group"]) == 16 for r in recs.values())
    assert runner.alone == []
    assert [(on, cases) for on, cases, _ in runner.limits] == [(16, ["a"]), (16, ["b"]),
                                                              (16, ["b"])]
    short, full = runner.limits[1][2], runner.limits[2][2]
    assert short == mutgen_run.SHORT_FLOOR_S and full == 10.0


def test_once_a_case_outlasts_the_short_limit_the_group_takes_the_full_one():
    # every case but "a" is slow with the group on: "b" runs out of the short
    # limit and passes with the full one, and "c" and "d" then run with the
    # full limit, not each short first
    ms = [mutant(n) for n in range(16)]
    names = "abcd"
    runner = Limited(slow=True, slow_cases=set("bcd"))
    reach = {m.id: list(names) for m in ms}
    cases = {n: SimpleNamespace(id=n, page="dat_x", binary=n, two_node=True) for n in names}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: pytest.fail("no member runs alone"))
    assert all(r["status"] == "survived" and len(r["group"]) == 16 for _, r in out)
    short = mutgen_run.SHORT_FLOOR_S
    assert [(cases, limit) for _, cases, limit in runner.limits] == \
        [(["a"], short), (["b"], short), (["b"], 10.0), (["c"], 10.0), (["d"], 10.0)]


def test_after_a_slow_case_a_hang_is_searched_with_the_full_limit():
    # "b" is slow with the group on (out of the short limit, within the full
    # one); "c" hangs with one member on: its halves then take the full
    # limit too (under the short one every slow half would look like a hang)
    ms = [mutant(n) for n in range(16)]
    bad = ms[9].id
    runner = Limited(hangs={bad}, slow=True, slow_cases=set("bc"), hang_cases={"c"})
    reach = {m.id: list("abc") for m in ms}
    cases = {n: SimpleNamespace(id=n, page="dat_x", binary=n, two_node=True) for n in "abc"}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in "abc"}}

    def single(m, first=None):
        return mutgen_run.run_mutant(m, reach[m.id], cov, cases, runner, "dat.conf", 60.0,
                                     first=first)
    out = dict((m.id, r) for m, r in mutgen_run.settle_group(ms, reach, cov, cases, runner,
                                                               "dat.conf", 60.0, single))
    assert out[bad]["status"] in ("timed-out", "killed")
    assert all(r["status"] == "survived" for mid, r in out.items() if mid != bad)
    halves = [limit for on, cs, limit in runner.limits if 1 < on < 16 and cs == ["c"]]
    assert halves and all(limit == 10.0 for limit in halves)


def test_a_hang_is_searched_with_the_short_limit_and_decided_alone_with_the_full_one():
    ms = [mutant(n) for n in range(16)]
    bad = ms[9].id
    runner = Limited(hangs={bad})
    recs = settle_limited(ms, runner)
    assert recs[bad]["status"] in ("timed-out", "killed")
    assert all(r["status"] == "survived" for mid, r in recs.items() if mid != bad)
    halves = [limit for on, cases, limit in runner.limits if 1 < on < 16 and cases == ["b"]]
    assert halves and all(limit == mutgen_run.SHORT_FLOOR_S for limit in halves)
    alone = [limit for on, cases, limit in runner.limits if on == 1 and cases == ["b"]]
    assert alone and max(alone) == 10.0


def test_a_case_two_members_change_together_is_settled_and_the_pair_goes_on():
    # "b" fails with both members on, with neither alone, and passes without
    # the first: settled for both, and the two go on together to "c" (where
    # the first alone would fail: never run alone, as a member split off
    # from its group ran each of its other cases)
    ms = [mutant(1), mutant(2)]
    reach = {m.id: ["a", "b", "c"] for m in ms}
    cases = {n: case(n) for n in "abc"}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in "abc"}}

    class Pair(Killing):
        def run_batch(self, batch, env, limit):
            on = set(env[ENV].split(","))
            out = super().run_batch(batch, env, limit)
            for c, r in zip(batch, out):
                if c.id == "b" and on == {m.id for m in ms}:
                    r["state"] = "FAIL"
                if c.id == "c" and on == {ms[0].id}:
                    r["state"] = "FAIL"
            return out

    runner = Pair({})
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: pytest.fail("run alone"))
    recs = {m.id: r for m, r in out}
    assert all(r["status"] == "survived" and len(r["group"]) == 2 for r in recs.values())
    assert "b ends as without a mutant with it alone" in recs[ms[0].id]["reason"]
    # alone: each member "b" (the search); then "c" with both on
    assert [cases for on, cases in runner.alone] == [["b"], ["b"], ["b"]]
    assert runner.groups[-1] == (sorted(m.id for m in ms), ["c"])
    # the run without the first member is no evidence for it
    assert [x["id"] for x in recs[ms[0].id]["runs"] if not x.get("alone")] == ["a", "c"]


def test_the_halves_of_one_level_and_the_members_alone_run_at_once():
    # one member of 16 kills "b": the two halves of each level, and the
    # members of the last part alone, are runs of "b" made at the same time
    import threading
    import time
    ms = [mutant(n) for n in range(16)]
    bad = ms[5].id
    reach = {m.id: ["a", "b"] for m in ms}
    cases = {n: case(n) for n in "ab"}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in "ab"}}

    class Concurrent(Killing):
        def __init__(self):
            super().__init__({bad: {"b"}})
            self.lock = threading.Lock()
            self.now = self.most = 0

        def run_batch(self, batch, env, limit):
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            time.sleep(0.05)
            try:
                return super().run_batch(batch, env, limit)
            finally:
                with self.lock:
                    self.now -= 1

    runner = Concurrent()
    singles = []
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: singles.append(m.id) or
                                  {"status": "killed", "killed_by": [first], "runs": []})
    recs = {m.id: r for m, r in out}
    assert singles == [bad] and recs[bad]["status"] == "killed"
    assert all(r["status"] == "survived" for mid, r in recs.items() if mid != bad)
    assert runner.most >= 2


def test_members_are_left_out_jobs_at_a_time_and_the_first_in_order_is_taken():
    # "a" fails with ms[2] and ms[5] on together: leaving out either passes
    # it; asked four at a time, ms[2] (the first in order) settles it
    import threading
    import time
    ms = [mutant(n) for n in range(8)]
    reach = {m.id: ["a"] for m in ms}
    cases = {"a": case("a")}
    cov = {"cases": {"a": {"state": "PASS", "duration_ms": 5.0}}}

    class Pair(Killing):
        jobs = 4

        def __init__(self):
            super().__init__({})
            self.lock = threading.Lock()
            self.now = self.most = 0

        def run_batch(self, batch, env, limit):
            on = set(env[ENV].split(","))
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            time.sleep(0.02)
            with self.lock:
                self.now -= 1
            both = {ms[2].id, ms[5].id} <= on
            if len(on) == 7:
                self.left_out_limits.append(limit)
            return [{"state": "FAIL" if both else "PASS", "duration_ms": 5.0} for _ in batch]

    runner = Pair()
    runner.left_out_limits = []
    out = mutgen_run.settle_group(ms, reach, cov, cases, runner, "dat.conf", 60.0,
                                  lambda m, first=None: pytest.fail("run alone"))
    recs = {m.id: r for m, r in out}
    assert all(r["status"] == "survived" and len(r["group"]) == 8 for r in recs.values())
    assert "a ends as without a mutant with it alone" in recs[ms[2].id]["reason"]
    assert "ends as without a mutant with it alone" not in recs[ms[5].id]["reason"]
    # each left-out run has the short limit (a pair that hangs the case
    # would otherwise cost the full limit a member)
    assert runner.left_out_limits and \
        set(runner.left_out_limits) == {mutgen_run.SHORT_FLOOR_S}
    assert runner.most >= 2


def test_a_group_settles_a_case_that_each_of_many_cases_ends_otherwise():
    # every one of 1500 cases fails with both members on and passes with
    # either alone: each is settled and the pair goes on, one level deeper
    # each time (the run of 2026-11-30 00:02 ended in a RecursionError)
    ms = [mutant(1), mutant(2)]
    names = [f"c{i:04d}" for i in range(1500)]
    reach = {m.id: names for m in ms}
    cases = {n: case(n) for n in names}
    cov = {"cases": {n: {"state": "PASS", "duration_ms": 5.0} for n in names}}

    class Pair(Killing):
        def run_batch(self, batch, env, limit):
            both = {m.id for m in ms} <= set(env[ENV].split(","))
            return [{"state": "FAIL" if both else "PASS", "duration_ms": 5.0} for _ in batch]

    out = mutgen_run.settle_group(ms, reach, cov, cases, Pair({}), "dat.conf", 60.0,
                                  lambda m, first=None: pytest.fail("run alone"))
    assert [r["status"] for _, r in out] == ["survived", "survived"]


class Shortening(Limited):
    """Case "b" sizes its work by its limit: under the short one it passes on
    a fraction of it; with the full one a member of `leaks` on makes it FAIL."""

    def __init__(self, leaks):
        super().__init__()
        self.leaks = set(leaks)

    def run_batch(self, cases, env, limit):
        on = set(env.get(ENV, "").split(",")) - {""}
        out = super().run_batch(cases, env, limit)
        for c, r in zip(cases, out):
            if c.id == "b" and limit < 10.0:
                r["work_fraction"] = 0.2
            elif c.id == "b" and on & self.leaks:
                r["state"] = "FAIL"
        return out


def test_a_group_case_passing_on_shortened_work_is_judged_with_the_full_limit():
    ms = [mutant(n) for n in range(16)]
    bad = ms[5].id
    recs = settle_limited(ms, Shortening({bad}))
    assert recs[bad]["status"] == "killed" and recs[bad]["killed_by"] == ["b"]
    assert all(r["status"] == "survived" for mid, r in recs.items() if mid != bad)
    # nothing leaks: the group's full-limit run of "b" settles it for all
    runner = Shortening(())
    recs = settle_limited(ms, runner)
    assert all(r["status"] == "survived" and len(r["group"]) == 16 for r in recs.values())
    assert [(on, cases, limit) for on, cases, limit in runner.limits] == \
        [(16, ["a"], mutgen_run.SHORT_FLOOR_S), (16, ["b"], mutgen_run.SHORT_FLOOR_S),
         (16, ["b"], 10.0)]
    assert any(r.get("superseded") and r.get("work_fraction") for r in recs[ms[0].id]["runs"])
