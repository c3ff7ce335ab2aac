"""Unit tests of the kill classification of `datcts mutate`
(runners/datcts/mutate.py, docs/mutants.md)."""

from datcts.discovery import Case
from datcts.mutate import area_cases, classify, own_cases, select


def case(cid, clauses, area="evd"):
    return Case(id=cid, page=cid.split(".")[0], area=area, clauses=tuple(clauses),
                summary="", requires=(), two_node=False, file="f.c", line=1, binary="b")


def rec(state, msg=""):
    return {"state": state, "message": msg, "duration_ms": 1.0}


def run(m, own, own_states, other_states=None, base=None):
    cases = {c.id: c for c in own}
    others = {}
    for cid, st in (other_states or {}).items():
        cases[cid] = case(cid, [cid])
        others[cid] = rec(st)
    baseline = {cid: rec("PASS") for cid in cases}
    baseline.update({cid: rec(st) for cid, st in (base or {}).items()})
    return classify(dict(m), own, {cid: rec(st) for cid, st in own_states.items()},
                    others, baseline, cases, {c: "shall" for c in m["clauses"]})


M = {"id": "m", "clauses": ["p.a", "p.b"], "what": "x", "quick": False, "survives": None}


def test_fail_of_own_clause_kills():
    own = [case("p.a", ["p.a"]), case("p.b", ["p.b"])]
    r = run(M, own, {"p.a": "FAIL", "p.b": "PASS"})
    assert r["status"] == "killed"
    assert r["killed_by"] == ["p.a"]
    assert r["clauses_killed"] == ["p.a"]
    assert r["reason"] is None


def test_crash_and_timeout_kill_and_are_recorded():
    own = [case("p.a", ["p.a"]), case("p.b", ["p.b"])]
    r = run(M, own, {"p.a": "CRASH", "p.b": "TIMEOUT"})
    assert r["status"] == "killed"
    assert r["kill_states"] == ["CRASH", "TIMEOUT"]


def test_unresolved_own_case_is_not_a_kill():
    own = [case("p.a", ["p.a"])]
    r = run(M, own, {"p.a": "UNRESOLVED"})
    assert r["status"] == "killed-other"
    assert "UNRESOLVED" in r["reason"]


def test_only_other_clause_fails():
    own = [case("p.a", ["p.a"])]
    r = run(M, own, {"p.a": "PASS"}, other_states={"q.z": "FAIL"})
    assert r["status"] == "killed-other"
    assert r["other_failures"] == ["q.z"]


def test_survivor_and_declared_reason():
    own = [case("p.a", ["p.a"])]
    r = run(M, own, {"p.a": "PASS"})
    assert r["status"] == "survived" and "weak case" in r["reason"]
    r = run(dict(M, survives="equivalent: because"), own, {"p.a": "PASS"})
    assert r["status"] == "survived" and r["reason"] == "equivalent: because"


def test_baseline_failure_never_kills_but_unsupported_may():
    own = [case("p.a", ["p.a"])]
    r = run(M, own, {"p.a": "FAIL"}, base={"p.a": "FAIL"})
    assert r["status"] == "survived"
    assert r["baseline_not_passing"] == ["p.a"]
    r = run(M, own, {"p.a": "FAIL"}, base={"p.a": "UNSUPPORTED"})
    assert r["status"] == "killed"


def test_no_case():
    r = run(M, [], {})
    assert r["status"] == "no-case"
    assert "no case names" in r["reason"]


def test_selection_helpers():
    a = case("p.a", ["p.a"], "evd")
    b = case("p.b", ["p.b", "p.c"], "evd")
    c = case("q.x", ["q.x"], "srq")
    own = own_cases({"clauses": ["p.c"]}, [a, b, c])
    assert own == [b]
    assert area_cases(own, [a, b, c]) == [a]
    ms = [{"id": "x-y", "quick": True}, {"id": "x-z", "quick": False}]
    assert [m["id"] for m in select(ms, [], True)] == ["x-y"]
    assert [m["id"] for m in select(ms, ["*-z"], False)] == ["x-z"]


def test_proof_means_fail():
    """A CRASH or a TIMEOUT detects the mutant, but only a FAIL of the
    clause's own case proves the clause (docs/mutants.md)."""
    own = [case("p.a", ["p.a"]), case("p.b", ["p.b"])]
    r = run(M, own, {"p.a": "TIMEOUT", "p.b": "FAIL"})
    assert r["status"] == "killed"
    assert r["clauses_killed"] == ["p.b"]
    assert r["clauses_detected_only"] == ["p.a"]


def test_figures_per_subject():
    from datcts.mutate import subject_figures

    levels = {"p.a": "shall", "p.b": "shall", "r.x": "shall", "r.y": "shall", "r.z": "should"}
    subjects = {"r.x": "registry", "r.y": "registry", "r.z": "registry"}
    cases = [case("p.a", ["p.a"]), case("p.b", ["p.b"]), case("r.x", ["r.x"]),
             case("r.y", ["r.y"])]
    results = [
        {"id": "m1", "subject": "provider", "clauses": ["p.a", "p.b"], "status": "killed",
         "clauses_killed": ["p.a"], "clauses_detected_only": ["p.b"]},
        {"id": "m2", "subject": "registry", "clauses": ["r.x"], "status": "killed",
         "clauses_killed": ["r.x"], "clauses_detected_only": []},
    ]
    f = subject_figures(results, levels, subjects, cases, full_table=True)
    assert (f["provider"]["shall_clauses"], f["provider"]["shall_clauses_proven"]) == (2, 1)
    assert f["provider"]["shall_detected_not_failed"] == ["p.b"]
    assert f["provider"]["shall_unproven"] == ["p.b"]
    assert (f["registry"]["mutants"], f["registry"]["shall_clauses"]) == (1, 2)
    assert f["registry"]["shall_unproven"] == ["r.y"]
    # a partial selection (--quick, -m) lists no unproven clause
    assert subject_figures(results, levels, subjects, cases, False)["registry"]["shall_unproven"] == []


def test_record_keeps_clause_at(tmp_path, monkeypatch):
    """The record of a run keeps the result's clause_at, so a FAIL of a case
    of several clauses proves only the clause whose check missed."""
    from datcts import mutate

    at = {"clause": "p.b", "held": ["p.a"]}

    class FakeRunner:
        def run(self, c):
            return {"state": "FAIL", "message": "x", "duration_ms": 1.0,
                    "file": "f.c", "line": 1, "clause_at": at}

    ex = mutate.Executor({}, 1.0, 1, tmp_path / "j.jsonl", True)
    monkeypatch.setattr(ex, "_runner", lambda m: FakeRunner())
    c = case("p.ab", ["p.a", "p.b"])
    [r] = ex._unit("m", [c])
    ex.close()
    assert r["clause_at"] == at
    m = classify(dict(M), [c], {"p.ab": r}, {}, {"p.ab": rec("PASS")}, {"p.ab": c},
                 {"p.a": "shall", "p.b": "shall"})
    assert m["clauses_killed"] == ["p.b"]
    assert m["clauses_detected_only"] == ["p.a"]


def test_cases_of_one_mutant_and_binary_share_a_supervisor(tmp_path, monkeypatch):
    """Single-node cases of one binary under one mutant go through one
    supervisor (run_batch); two-node cases, another binary or another mutant
    start a unit of their own; the records keep the tasks' order."""
    from dataclasses import replace

    from datcts import mutate

    units = []

    class FakeRunner:
        def __init__(self, m):
            self.m = m

        def run(self, c):
            units.append((self.m, [c.id]))
            return dict(rec("PASS"), id=c.id)

        def run_batch(self, cs):
            units.append((self.m, [c.id for c in cs]))
            return {c.id: dict(rec("FAIL"), id=c.id) for c in cs}

    a, b, d = case("p.a", ["p.a"]), case("p.b", ["p.b"]), case("p.d", ["p.d"])
    two = replace(case("p.two", ["p.two"]), two_node=True)
    other = replace(case("q.a", ["q.a"]), binary="q")
    ex = mutate.Executor({}, 1.0, 1, tmp_path / "j.jsonl", True)
    monkeypatch.setattr(ex, "_runner", FakeRunner)
    tasks = [("m", a), ("m", b), ("m", two), ("m", d), ("m", other), ("n", a), ("n", b)]
    out = ex.run(tasks)
    ex.close()
    assert [(r["mutant"], r["id"], r["state"]) for r in out] == [
        ("m", "p.a", "FAIL"), ("m", "p.b", "FAIL"), ("m", "p.two", "PASS"),
        ("m", "p.d", "PASS"), ("m", "q.a", "PASS"), ("n", "p.a", "FAIL"), ("n", "p.b", "FAIL")]
    assert sorted(units) == sorted([("m", ["p.a", "p.b"]), ("m", ["p.two"]), ("m", ["p.d"]),
                                    ("m", ["q.a"]), ("n", ["p.a", "p.b"])])


def test_a_variant_mutant_is_judged_against_its_variant(tmp_path):
    # a clause of a provider without SRQs: its case does not apply to the
    # reference (UNSUPPORTED); under the variant it passes without the
    # mutant, so a FAIL with it kills; a FAIL under the variant alone does not
    from datcts.mutate import Executor, baseline_key, baseline_of, baseline_task
    m = dict(M, id="v", clauses=["p.a"], variant="no-srq")
    own = [case("p.a", ["p.a"])]
    assert baseline_key(m, "p.a") == "p.a@no-srq" and baseline_key(M, "p.a") == "p.a"
    cases = {"p.a": own[0]}
    assert baseline_task("p.a@no-srq", cases) == ("@no-srq", own[0])
    assert baseline_task("p.a", cases) == (None, own[0])
    for variant_alone, status in (("PASS", "killed"), ("FAIL", "survived")):
        baseline = {"p.a": rec("UNSUPPORTED"), "p.a@no-srq": rec(variant_alone)}
        r = classify(dict(m), own, {"p.a": rec("FAIL")}, {}, baseline_of(m, baseline),
                     cases, {"p.a": "shall"})
        assert r["status"] == status
    ex = Executor({"DATREF_VARIANT": "other", "DATREF_MUTANT": "x"}, 1.0, 1,
                  tmp_path / "j.jsonl", True, {"v": "DATREF_MUTANT", "w": "DATREF_MUTANT"},
                  {"v": "no-srq"})
    assert ex.env_of("v") == {"DATREF_MUTANT": "v", "DATREF_VARIANT": "no-srq"}
    assert ex.env_of("@no-srq") == {"DATREF_VARIANT": "no-srq"}
    assert ex.env_of("w") == {"DATREF_MUTANT": "w", "DATREF_VARIANT": "other"}
    ex.close()
