"""Unit tests of the cluster placement (runners/datcts/slurm.py, hosts.py) and
of the per-node and per-link verdict (reports/datcts_reports/cluster.py).
No Slurm needed."""

import argparse

import pytest

from datcts import hosts as mh
from datcts import slurm
from datcts_reports import catalog as catalog_mod
from datcts_reports.analysis import Analysis
from datcts_reports.cli import DEFAULT_CATALOG

N3 = ["n1", "n2", "n3"]
N4 = ["n1", "n2", "n3", "n4"]


def test_ring_pairs_every_node_with_the_next_both_ways():
    assert slurm.pair_directions("ring", N4) == [
        ("n1", "n2"), ("n2", "n1"), ("n2", "n3"), ("n3", "n2"),
        ("n3", "n4"), ("n4", "n3"), ("n4", "n1"), ("n1", "n4")]
    d = slurm.pair_directions("ring", N4)
    assert sorted(p for p, _ in d) == sorted(a for _, a in d) == sorted(N4 * 2)


def test_all_and_first_pairs_and_small_allocations():
    assert len(slurm.pair_directions("all", N4)) == 12
    assert slurm.pair_directions("first", N4) == [("n1", "n2"), ("n2", "n1")]
    assert slurm.pair_directions("ring", ["n1", "n2"]) == [("n1", "n2"), ("n2", "n1")]
    assert slurm.pair_directions("all", ["n1"]) == [("n1", "n1")]


def test_independent_pairs_run_in_the_same_round():
    rounds = mh.concurrent_rounds(slurm.pair_directions("ring", N4))
    assert rounds == [[("n1", "n2"), ("n3", "n4")], [("n2", "n1"), ("n4", "n3")],
                      [("n2", "n3"), ("n4", "n1")], [("n3", "n2"), ("n1", "n4")]]
    for rnd in mh.concurrent_rounds(slurm.pair_directions("all", N4)):
        used = [n for pa in rnd for n in pa]
        assert len(used) == len(set(used))
    # two hosts each way: one after the other, as before
    assert mh.concurrent_rounds([("a", "b"), ("b", "a")]) == [[("a", "b")], [("b", "a")]]


def test_the_node_address_placeholder_is_filled_per_node():
    assert slurm.fill("sock:{node_addr}", "node2", "10.0.0.2") == "sock:10.0.0.2"
    assert slurm.fill("ib0@{node}", "node2", "10.0.0.2") == "ib0@node2"
    assert slurm.fill(None, "n", "a") is None


def _args(**kw):
    base = dict(slurm=False, nodes=None, partition=None, time=None, pairs=None, hosts=None,
                ia=None, dat_conf=None, provider=None, instance_data=None)
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize("kw, says", [
    ({"nodes": 3}, "--nodes need --slurm"),
    ({"slurm": True, "hosts": "h.toml"}, "--slurm and --hosts"),
    ({"slurm": True, "instance_data": "sock:{node_addr}"}, "--instance-data needs --provider"),
    ({"slurm": True, "time": "5"}, "--partition and --time need --nodes"),
])
def test_option_errors(kw, says, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    with pytest.raises(slurm.SlurmError, match=says):
        slurm.from_args(_args(**kw), None, None, None)


def test_outside_an_allocation_without_nodes(monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    with pytest.raises(slurm.SlurmError, match="outside an allocation needs --nodes"):
        slurm.from_args(_args(slurm=True), None, None, None)


def test_merged_single_node_result_keeps_every_node():
    from datcts.discovery import Case

    case = Case(id="p.c", binary="b", page="p", area="a", file="f", line=1, summary="",
                clauses=("p.c",), requires=(), two_node=False)

    def res(state, node, failure=None):
        r = {"id": "p.c", "state": state, "message": "m" if state != "PASS" else "",
             "file": "f", "line": 1, "duration_ms": 5.0, "output": "", "signal": None,
             "hosts": [node], "halves": None, "phases": {"body": 1}}
        if failure:
            r["host_failure"] = failure
        return r

    m = mh.merge_placements(case, [("n1", res("PASS", "n1")), ("n2", res("FAIL", "n2")),
                                   ("n3", res("PASS", "n3"))], "nodes")
    assert m["state"] == "FAIL" and m["message"] == "m (on n2)" and m["hosts"] == ["n2"]
    assert [(e["node"], e["state"]) for e in m["nodes"]] == [
        ("n1", "PASS"), ("n2", "FAIL"), ("n3", "PASS")]
    assert m["nodes"][0]["phases"] == {"body": 1} and "directions" not in m


# ---- the verdict per node and per link


def _doc(results, nodes=N3, hosts=None):
    hosts = hosts or [{"name": n, "kernel": "6.1", "library_sha256": "aa",
                       "attributes": {"provider": {"x": 1}}} for n in nodes]
    return {"schema": "datcts-results/2", "tool": {"name": "datcts", "version": "0"},
            "run": {"complete": True, "provider": {"ia": "i"}, "hosts": hosts,
                    "cluster": {"launcher": "slurm", "job_id": "7", "nodes": nodes,
                                "pairs": "ring"}},
            "summary": {}, "warnings": [], "results": results}


def _single(cid, states: dict):
    worst = "FAIL" if "FAIL" in states.values() else "PASS"
    return {"id": cid, "state": worst, "message": "", "clauses": [cid],
            "page": cid.split(".")[0], "area": "ep", "file": "f", "line": 1,
            "duration_ms": 1, "output": "", "signal": None, "hosts": ["n1"], "halves": None,
            "phases": {}, "nodes": [{"node": n, "state": s, "message": "", "duration_ms": 1,
                                     "signal": None, "hosts": [n], "halves": None}
                                    for n, s in states.items()]}


def _two(cid, states: dict):
    def halves(p, a, s):
        return {r: {"state": s, "message": "", "host": h, "by_peer": False, "phases": {}}
                for r, h in (("passive", p), ("active", a))}
    return {"id": cid, "state": "FAIL" if "FAIL" in states.values() else "PASS",
            "message": "", "clauses": [cid], "page": cid.split(".")[0], "area": "ep",
            "file": "f", "line": 1, "duration_ms": 1, "output": "", "signal": None,
            "hosts": ["n1", "n2"], "halves": halves("n1", "n2", "PASS"), "phases": {},
            "directions": [{"passive": p, "active": a, "state": s, "message": "",
                            "duration_ms": 1, "signal": None, "hosts": [p, a],
                            "halves": halves(p, a, s), "host_failure": None}
                           for (p, a), s in states.items()]}


SINGLE = "dat_ep_create.connection_events_on_connect_evd"
TWO = "dat_ep_connect.established"


def test_one_bad_node_is_singled_out_with_its_links():
    ring = slurm.pair_directions("ring", N3)
    hosts = [{"name": n, "kernel": "6.1", "library_sha256": "bb" if n == "n2" else "aa",
              "attributes": {"provider": {"mutant": "m" if n == "n2" else "none"},
                             "ia_attr": {"ia_address": n}}} for n in N3]
    doc = _doc([_single(SINGLE, {"n1": "PASS", "n2": "FAIL", "n3": "PASS"}),
                _two(TWO, {d: ("FAIL" if d[1] == "n2" else "PASS") for d in ring})],
               hosts=hosts)
    v = Analysis(catalog_mod.load(DEFAULT_CATALOG), doc).verdict()
    cl = v["cluster"]
    assert {n: x["verdict"] for n, x in cl["nodes"].items()} == {
        "n1": "conformant", "n2": "not-conformant", "n3": "conformant"}
    assert cl["nodes"]["n2"]["fails"] == [SINGLE]
    assert {n: x["verdict"] for n, x in cl["links"].items()} == {
        "n1~n2": "not-conformant", "n2~n3": "not-conformant", "n1~n3": "conformant"}
    assert cl["matrix"]["n1>n2"]["verdict"] == "not-conformant"
    assert cl["matrix"]["n2>n1"]["verdict"] == "conformant"
    assert cl["singled_out"] == {"nodes": ["n2"], "links": ["n1~n2", "n2~n3"]}
    assert cl["nodes"]["n2"]["differs"]["clauses"] == {
        SINGLE: {"here": "fails", "others": "holds"}}
    # the fingerprint fields that differ; the IA's own address is no difference
    assert cl["nodes"]["n2"]["differs"]["fingerprint"] == {
        "library_sha256": {"here": "bb", "others": "aa"},
        "attributes.provider.mutant": {"here": "m", "others": "none"}}
    assert cl["worst"]["verdict"] == "not-conformant"
    assert v["worst_at"] == ["n2", "n1~n2", "n2~n3"]


def test_a_clause_failing_everywhere_singles_out_nobody():
    doc = _doc([_single(SINGLE, {n: "FAIL" for n in N3})])
    cl = Analysis(catalog_mod.load(DEFAULT_CATALOG), doc).verdict()["cluster"]
    assert cl["singled_out"] == {"nodes": [], "links": []}
    assert cl["worst"]["nodes"] == N3


def test_no_cluster_section_outside_a_cluster_run():
    doc = _doc([_single(SINGLE, {n: "PASS" for n in N3})])
    del doc["run"]["cluster"]
    assert "cluster" not in Analysis(catalog_mod.load(DEFAULT_CATALOG), doc).verdict()
