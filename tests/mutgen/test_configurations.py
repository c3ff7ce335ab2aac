"""--config: a generated mutant that survives the provider's default
configuration runs again in its other documented configurations (a
conforming variant, DAPLREF_NO_CONSUMER_POLL), with the cases that reach
its lines only there (scripted runner and coverage, no build)."""
from types import SimpleNamespace

import pytest

from datcts import mutgen_run


def mutant(mid, line):
    return SimpleNamespace(id=mid, function="ref_x", file="core/x.c", line=line, end_line=line,
                           reach_lines=lambda: [line],
                           listing=lambda: {"id": mid, "file": "core/x.c",
                                            "function": "ref_x", "line": line})


def case(name):
    return SimpleNamespace(id=name, page="dat_x", binary="b", two_node=False)


class EnvScripted:
    """A case FAILs when the environment holds what its script asks for."""

    def __init__(self, fails_under):
        self.fails_under = fails_under
        self.calls = []

    def run_batch(self, cases, env, limit):
        out = []
        for c in cases:
            self.calls.append((c.id, env.get("DATREF_VARIANT"), env.get(mutgen_run.mutgen.ENV_VAR)))
            want = self.fails_under.get(c.id)
            bad = want is not None and all(env.get(k) == v for k, v in want.items())
            out.append({"state": "FAIL" if bad else "PASS", "duration_ms": 2.0})
        return out


def cov_of(lines_by_case):
    return {"cases": {cid: {"state": "PASS", "duration_ms": 2.0, "lines": {"core/x.c": lines}}
                      for cid, lines in lines_by_case.items()}}


def test_names_expand_to_modes_and_variants():
    got = mutgen_run.configurations(["no-consumer-poll", "variant:no-*", "variants"],
                                    ["no-srq", "no-rmr", "few-eps"])
    assert [n for n, _ in got] == ["no-consumer-poll", "variant:no-srq", "variant:no-rmr",
                                   "variant:few-eps"]
    assert dict(got)["variant:no-rmr"] == {"DATREF_VARIANT": "no-rmr"}
    assert dict(got)["no-consumer-poll"] == {"DAPLREF_NO_CONSUMER_POLL": "1"}
    assert [n for n, _ in mutgen_run.configurations(["asan", "dat2"], [])] == ["asan", "dat2"]
    with pytest.raises(mutgen_run.GeneratedError):
        mutgen_run.configurations(["variant:nothing-*"], ["no-srq"])
    with pytest.raises(mutgen_run.GeneratedError):
        mutgen_run.configurations(["fast"], [])


def test_a_survivor_runs_only_the_cases_new_to_the_configuration(monkeypatch):
    # line 10 runs by case a everywhere; line 20 only under the variant, by b
    default = cov_of({"a": [10], "b": []})
    variant = cov_of({"a": [10], "b": [20]})
    monkeypatch.setattr(mutgen_run, "coverage_map",
                        lambda *a, **k: variant if a[-1] != ("default", {}) else default)
    everywhere, variant_only, dead = mutant("m1", 10), mutant("m2", 20), mutant("m3", 30)
    results = [dict(everywhere.listing(), status="survived", runs=[{}]),
               dict(variant_only.listing(), status="not-reached", runs=[]),
               dict(dead.listing(), status="not-reached", runs=[])]
    runner = EnvScripted({"b": {"DATREF_VARIANT": "no-srq"}, "a": {"DATREF_VARIANT": "no-srq"}})
    args = SimpleNamespace(config=["variant:no-srq"], timeout=10.0, max_cases=None, jobs=1)
    monkeypatch.setattr("datcts.variants.load_variants", lambda lib: [{"id": "no-srq"}])
    done = mutgen_run.run_configurations(
        args, None, None, [case("a"), case("b")], {"a": case("a"), "b": case("b")}, runner,
        {"api": "1.2"}, default, "dat.conf", mutgen_run.Killers(),
        [everywhere, variant_only, dead], results, mutgen_run.Path("/nonexistent"),
        lambda msg: None)
    # a reaches m1 in the default configuration too: it is not run again there
    assert runner.calls == [("b", "no-srq", "m2")]
    assert results[0]["status"] == "survived"
    assert results[1]["status"] == "killed" and results[1]["config"] == "variant:no-srq"
    assert results[1]["default_run"]["status"] == "not-reached"
    assert results[2]["status"] == "not-reached"
    assert done["variant:no-srq"]["killed"] == 1 and done["variant:no-srq"]["mutants_run"] == 1


def test_a_survivor_of_every_configuration_says_where_it_ran(monkeypatch):
    default = cov_of({"a": []})
    mode = cov_of({"a": [20]})
    monkeypatch.setattr(mutgen_run, "coverage_map",
                        lambda *a, **k: mode if a[-1] != ("default", {}) else default)
    m = mutant("m2", 20)
    results = [dict(m.listing(), status="not-reached", runs=[])]
    runner = EnvScripted({})
    args = SimpleNamespace(config=["no-consumer-poll"], timeout=10.0, max_cases=None, jobs=1)
    mutgen_run.run_configurations(args, None, None, [case("a")], {"a": case("a")}, runner,
                                  {"api": "1.2"}, default, "dat.conf", mutgen_run.Killers(), [m],
                                  results, mutgen_run.Path("/nonexistent"), lambda msg: None)
    assert results[0]["status"] == "not-reached"
    assert results[0]["configs_tried"] == ["no-consumer-poll"]


def test_a_case_that_goes_another_way_through_the_function_runs_again():
    # line 10 is `if (switch && ...)`: executed by both cases in both
    # configurations; under the configuration case b goes on to line 11
    m = mutant("m1", 10)
    default = cov_of({"a": [10, 12], "b": [10, 12]})
    config = cov_of({"a": [10, 12], "b": [10, 11]})
    assert mutgen_run.cases_new_to(m, default, config, (9, 12)) == ["b"]
    # a line outside the function's extent does not count
    config_elsewhere = cov_of({"a": [10, 12, 40], "b": [10, 12]})
    assert mutgen_run.cases_new_to(m, default, config_elsewhere, (9, 12)) == []


def test_function_extents_span_the_mutants_of_each_function():
    ms = {"core/x.c": [SimpleNamespace(file="core/x.c", function="f", line=5, end_line=6),
                       SimpleNamespace(file="core/x.c", function="f", line=9, end_line=12),
                       SimpleNamespace(file="core/x.c", function="g", line=20, end_line=20)]}
    assert mutgen_run.function_extents(ms) == {("core/x.c", "f"): (5, 12),
                                               ("core/x.c", "g"): (20, 20)}


def test_a_kill_in_another_configuration_is_a_triage_of_its_own(tmp_path):
    f = tmp_path / "triage.toml"
    f.write_text('["core/x.c:f:cond-negate:1:abcdef"]\nkind = "killed-in-config"\n'
                 'config = "asan"\nkilled_by = "dat_x.y"\n')
    assert mutgen_run.load_triage(f)["core/x.c:f:cond-negate:1:abcdef"]["config"] == "asan"
    f.write_text('["core/x.c:f:cond-negate:1:abcdef"]\nkind = "killed-in-config"\n'
                 'config = "asan"\n')
    with pytest.raises(mutgen_run.GeneratedError):
        mutgen_run.load_triage(f)
    # it stays in the score, as a survivor of the configuration that ran
    assert mutgen_run.score({"killed": 1, "survived": 1}, 0) == 50.0


def test_a_mutant_trusted_as_killed_in_config_runs_only_in_that_configuration(monkeypatch):
    # --trust-triage skips its default run; the config passes run it in
    # the configuration its triage names, and in no other
    default = cov_of({"a": [], "b": []})
    variant = cov_of({"a": [20], "b": [20]})
    monkeypatch.setattr(mutgen_run, "coverage_map",
                        lambda *a, **k: variant if a[-1] != ("default", {}) else default)
    m = mutant("m2", 20)
    results = [dict(m.listing(), status="survived", runs=[], only_config="variant:no-rmr")]
    runner = EnvScripted({"a": {"DATREF_VARIANT": "no-rmr"}})
    args = SimpleNamespace(config=["variants"], timeout=10.0, max_cases=None, jobs=1)
    monkeypatch.setattr("datcts.variants.load_variants",
                        lambda lib: [{"id": "no-srq"}, {"id": "no-rmr"}])
    mutgen_run.run_configurations(args, None, None, [case("a"), case("b")],
                                  {"a": case("a"), "b": case("b")}, runner, {"api": "1.2"},
                                  default, "dat.conf", mutgen_run.Killers(), [m], results,
                                  mutgen_run.Path("/nonexistent"), lambda msg: None)
    assert {v for _, v, _ in runner.calls} == {"no-rmr"}
    assert results[0]["status"] == "killed" and results[0]["config"] == "variant:no-rmr"
    assert results[0]["default_run"]["skipped"] is True


def test_a_leak_report_is_a_kill_only_where_leaks_are_judged():
    marker = mutgen_run.LEAK_MARKER + " (above)"
    judged = {mutgen_run.LEAK_ENV: "1"}
    passed = {"state": "PASS", "message": "", "output": "==1==ERROR: ...\n" + marker}
    got = mutgen_run.leak_verdict(passed, judged)
    assert got["state"] == "LEAK" and "dat_ia_close.no_leaks" in got["message"]
    assert "LEAK" in mutgen_run.KILL_STATES
    # not judged (the default configuration), or no report: unchanged
    assert mutgen_run.leak_verdict(passed, {})["state"] == "PASS"
    clean = {"state": "PASS", "message": "", "output": "all fine"}
    assert mutgen_run.leak_verdict(clean, judged)["state"] == "PASS"
    # a FAIL stays a FAIL (its own message says why)
    failed = dict(passed, state="FAIL", message="wrong")
    assert mutgen_run.leak_verdict(failed, judged) == failed
    # an UNRESOLVED case left by the harness's own path: not the provider's
    unresolved = dict(passed, state="UNRESOLVED")
    assert mutgen_run.leak_verdict(unresolved, judged) == unresolved
    assert mutgen_run.leak_verdict(None, judged) is None


def test_a_race_report_is_a_kill_only_where_races_are_judged():
    report = ("==================\n" + mutgen_run.RACE_MARKER + " data race (pid=1)\n"
              "SUMMARY: ThreadSanitizer: data race handle.c:10 in ref_obj_alloc\n")
    judged = mutgen_run.sanitizer_env("tsan")
    assert judged[mutgen_run.RACE_ENV] == "1" and "libtsan" in judged["LD_PRELOAD"]
    passed = {"state": "PASS", "message": "", "output": report}
    got = mutgen_run.sanitizer_verdict(passed, judged)
    assert got["state"] == "RACE" and "ref_obj_alloc" in got["message"]
    assert "RACE" in mutgen_run.KILL_STATES
    # the default configuration, the asan one, a clean output, a FAIL: unchanged
    assert mutgen_run.sanitizer_verdict(passed, {})["state"] == "PASS"
    assert mutgen_run.sanitizer_verdict(passed, {mutgen_run.LEAK_ENV: "1"})["state"] == "PASS"
    clean = dict(passed, output="note: fine")
    assert mutgen_run.sanitizer_verdict(clean, judged)["state"] == "PASS"
    failed = dict(passed, state="FAIL", message="gave handle twice")
    assert mutgen_run.sanitizer_verdict(failed, judged) == failed
    assert mutgen_run.configurations(["tsan"], []) == [("tsan", {})]


def test_the_ipv6_configuration_is_the_same_library_on_an_ipv6_ia():
    assert mutgen_run.configurations(["ipv6"], []) == [("ipv6", {})]
    assert mutgen_run.ADDRESSES["ipv6"].startswith("sock:")


def test_a_known_killer_settles_a_killed_in_config_mutant_without_coverage(monkeypatch):
    # the case its triage names runs once without the mutant (it passes),
    # once with it (FAIL): killed, and the configuration needs no coverage run
    def no_coverage(*a, **k):
        raise AssertionError("coverage run not needed")
    monkeypatch.setattr(mutgen_run, "coverage_map", no_coverage)

    class Runner(EnvScripted):
        def run(self, c, env, timeout=None):
            return self.run_batch([c], env, timeout)[0]

    m = mutant("m2", 20)
    results = [dict(m.listing(), status="survived", runs=[], only_config="variant:no-rmr",
                    known_killer="b")]
    runner = Runner({"b": {"DATREF_VARIANT": "no-rmr", mutgen_run.mutgen.ENV_VAR: "m2"}})
    args = SimpleNamespace(config=["variant:no-rmr"], timeout=10.0, max_cases=None, jobs=1)
    monkeypatch.setattr("datcts.variants.load_variants", lambda lib: [{"id": "no-rmr"}])
    done = mutgen_run.run_configurations(
        args, None, None, [case("a"), case("b")], {"a": case("a"), "b": case("b")}, runner,
        {"api": "1.2"}, cov_of({"a": [], "b": []}), "dat.conf", mutgen_run.Killers(), [m],
        results, mutgen_run.Path("/nonexistent"), lambda msg: None)
    assert runner.calls == [("b", "no-rmr", None), ("b", "no-rmr", "m2")]
    assert results[0]["status"] == "killed" and results[0]["killed_by"] == ["b"]
    assert done["variant:no-rmr"] == {"coverage_s": 0.0, "mutants_run": 1, "killed": 1,
                                      "env": {"DATREF_VARIANT": "no-rmr"}}


def test_a_run_that_rechecks_the_triage_reruns_in_a_configuration_what_it_can_change(
        monkeypatch):
    # every survivor reaches a case only under the variant; the variant
    # re-checks the untriaged survivor, the gap and its own killed-in-config
    # mutant, not the equivalence claims and page freedoms the default run
    # re-checked, nor another configuration's killed-in-config mutant
    default = cov_of({"a": []})
    variant = cov_of({"a": [20]})
    monkeypatch.setattr(mutgen_run, "coverage_map",
                        lambda *a, **k: variant if a[-1] != ("default", {}) else default)
    ids = {k: f"core/x.c:ref_x:{op}:1:abcdef" for k, op in
           [("untriaged", "cond-negate"), ("gap", "call-del"), ("equivalent", "const-plus1"),
            ("unspecified", "return-error"), ("own", "eq-swap"), ("other", "logic-swap")]}
    triage = {ids["gap"]: {"kind": "gap"}, ids["equivalent"]: {"kind": "equivalent"},
              ids["unspecified"]: {"kind": "unspecified"},
              ids["own"]: {"kind": "killed-in-config", "config": "variant:no-rmr",
                           "killed_by": "a"},
              ids["other"]: {"kind": "killed-in-config", "config": "asan", "killed_by": "a"}}
    ms = [mutant(mid, 20) for mid in ids.values()]
    results = [dict(m.listing(), status="survived", runs=[]) for m in ms]
    runner = EnvScripted({})
    runner.run = lambda c, env, timeout=None: runner.run_batch([c], env, timeout)[0]
    args = SimpleNamespace(config=["variant:no-rmr"], timeout=10.0, max_cases=None, jobs=1,
                           trust_triage=None)
    monkeypatch.setattr("datcts.variants.load_variants", lambda lib: [{"id": "no-rmr"}])
    mutgen_run.run_configurations(args, None, None, [case("a")], {"a": case("a")}, runner,
                                  {"api": "1.2"}, default, "dat.conf", mutgen_run.Killers(), ms,
                                  results, mutgen_run.Path("/nonexistent"), lambda msg: None,
                                  triage=triage)
    ran = {mid for _, _, mid in runner.calls if mid}
    assert ran == {ids["untriaged"], ids["gap"], ids["own"]}
    # the killed-in-config one ran its known killer first, once without it
    assert runner.calls[:2] == [("a", "no-rmr", None), ("a", "no-rmr", ids["own"])]
    # under a memory-checking build the equivalence claim on a bound is re-checked
    eq = dict(results[2])
    assert mutgen_run.configuration_checks(eq, "asan", triage, False)
    assert not mutgen_run.configuration_checks(dict(results[3]), "asan", triage, False)
    assert mutgen_run.configuration_checks(dict(results[5]), "asan", triage, False)
    # with --trust-triage only the killed-in-config ones run, in their own
    assert not mutgen_run.configuration_checks(dict(results[1]), "asan", triage, True)
    assert mutgen_run.configuration_checks(dict(results[4]), "variant:no-rmr", triage, True)


def test_a_killed_in_config_mutant_that_survives_its_configuration_is_a_triage_error():
    kic = {"kind": "killed-in-config", "config": "asan", "killed_by": "a"}
    results = [{"id": "m1", "status": "survived", "triage": kic},
               {"id": "m2", "status": "killed", "triage": kic},
               {"id": "m3", "status": "survived", "triage": dict(kic, config="tsan")},
               {"id": "m4", "status": "survived", "triage": {"kind": "gap"}}]
    # m3's configuration did not run: it stays a survivor there, no claim refuted
    assert mutgen_run.unconfirmed_in_config(results, {"asan": {}}) == \
        [{"id": "m1", "config": "asan", "status": "survived"}]


def test_a_killed_in_config_mutant_its_configuration_spares_runs_in_the_default_one():
    # a run that re-checks the triage skips the default configuration for a
    # killed-in-config mutant (its configuration comes first); one that its
    # configuration did not kill then runs there, as if it had no entry
    spared, died = (SimpleNamespace(id=i, listing=lambda i=i: {"id": i}) for i in ("m1", "m2"))
    results = [{"id": "m1", "status": "survived", "only_config": "asan", "runs": []},
               {"id": "m2", "status": "killed", "config": "asan", "only_config": "asan"}]
    ran = []

    def single(m, first=None):
        ran.append(m.id)
        return {"status": "killed", "killed_by": ["dat_x.y"], "runs": [{"id": "dat_x.y"}]}

    runner = SimpleNamespace(procs=SimpleNamespace(stop_all=lambda: None))
    mutgen_run.in_config_fallback(results, [spared, died], runner, 1, single, lambda s: None)
    assert ran == ["m1"]
    assert results[0]["status"] == "killed"
    assert results[0]["config_run"] == {"config": "asan", "status": "survived",
                                        "configs_tried": []}
    # killed only where its entry says it survives: the entry is still wrong
    kic = {"kind": "killed-in-config", "config": "asan", "killed_by": "a"}
    assert mutgen_run.unconfirmed_in_config([dict(results[0], triage=kic)], {"asan": {}}) == \
        [{"id": "m1", "config": "asan", "status": "survived"}]
