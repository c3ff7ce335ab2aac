"""The run's order (longest first), results.json's text, and the
instruction table's parsing: pure functions, no case binary needed."""

import json

from datcts.bench_instructions import CALLS, COUNT_RE, TOTAL_RE, TRIGGER_RE
from datcts.discovery import Case
from datcts.session import batched, expected_durations, longest_first, results_json_text


def _case(cid: str, binary: str = "b", two_node: bool = False) -> Case:
    return Case(id=cid, page=cid.split(".")[0], area="x", clauses=(cid,), summary="",
                requires=(), two_node=two_node, file="", line=0, binary=binary, no_ia=False,
                needs=())


def test_previous_run_overrides_the_shipped_table(tmp_path):
    (tmp_path / "results.jsonl").write_text(
        json.dumps({"id": "a.slow", "duration_ms": 900.0}) + "\n"
        + json.dumps({"id": "a.fast", "duration_ms": 2.0}) + "\n"
        + '{"id": "a.torn", "durat')   # a killed run's torn last line
    ms = expected_durations(tmp_path)
    assert ms["a.slow"] == 900.0 and ms["a.fast"] == 2.0
    assert "a.torn" not in ms


def test_longest_first_keeps_discovery_order_otherwise():
    cases = [_case(c) for c in ("p.one", "p.two", "p.long", "p.three", "p.mid")]
    order = [c.id for c in longest_first(cases, {"p.long": 2000.0, "p.mid": 300.0})]
    assert order == ["p.long", "p.mid", "p.one", "p.two", "p.three"]


def test_batches_hold_short_single_node_cases_of_one_binary():
    cases = [_case("p.long"), _case("p.a"), _case("p.b"), _case("p.c"),
             _case("p.two", two_node=True), _case("p.d"), _case("q.a", binary="q"),
             _case("q.b", binary="q"), _case("p.e")]
    units = [[c.id for c in u] for u in batched(cases, {"p.long": 900.0}, 2)]
    assert units == [["p.long"], ["p.a", "p.b"], ["p.c"], ["p.two"], ["p.d"],
                     ["q.a", "q.b"], ["p.e"]]
    assert [[c.id for c in u] for u in batched(cases, {}, 1)] == [[c.id] for c in cases]


def test_results_json_text_is_the_document_one_result_a_line():
    doc = {"schema": "datcts-results/1", "run": {"argv": ["run"], "x": "</é>"},
           "results": [{"id": "a.b", "state": "PASS"}, {"id": "a.c", "state": "FAIL"}]}
    text = results_json_text(doc)
    assert json.loads(text) == doc
    lines = text.splitlines()
    assert '  {"id": "a.b", "state": "PASS"},' in lines
    assert '  {"id": "a.c", "state": "FAIL"}' in lines
    assert json.loads(results_json_text({"results": []})) == {"results": []}


def test_callgrind_dump_and_count_lines_parse():
    dump = ("version: 1\ncreator: callgrind-3.19.0\n"
            "desc: Trigger: Client Request: ep_post_send\n"
            "events: Ir\nsummary: 690819\ntotals: 690819\n")
    assert TRIGGER_RE.search(dump).group(1) == "ep_post_send"
    assert TOTAL_RE.search(dump).group(1) == "690819"
    out = "instrbench: count toggle 512\ninstrbench: count ep_post_send 512\n"
    assert dict((m.group(1), int(m.group(2))) for m in COUNT_RE.finditer(out)) == \
        {"toggle": 512, "ep_post_send": 512}
    assert len({n for n, _ in CALLS}) == 7
