"""Each operator's mutants on a small fixture, id stability, and the mutant
schemata: it compiles, and DATCTS_GENMUT switches one mutant on at run time."""
import dataclasses
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from datcts import mutgen, mutgen_run

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixture.c"
ARGS = ["-std=c11"]
REL = "tests/mutgen/fixture.c"


def generate(cindex, path=FIXTURE, operators=None):
    return mutgen.generate(path, ARGS, REL, operators, cindex)


def pairs(mutants, function):
    return {(" ".join(m.original.split()), m.replacement) for m in mutants
            if m.function == function}


# operator -> function of the fixture -> the (original, replacement) it must give
EXPECTED = {
    "rel-boundary": {"relational": {("a < b", "a <= b"), ("a >= b", "a > b")},
                     "condition": {("a > 100", "a >= 100")}},
    "eq-swap": {"equality": {("a == b", "a != b")}},
    "logic-swap": {"logic": {("a && b", "a || b")}},
    "cond-negate": {"condition": {("a > 100", "!(a > 100)"), ("a", "!(a)")}},
    "const-plus1": {"constant": {("7", "(7 + 1)")}},
    "const-minus1": {"constant": {("7", "(7 - 1)")}},
    "return-success": {"returns": {("DAT_INVALID_STATE", "DAT_SUCCESS")}},
    "return-error": {"returns": {("DAT_INVALID_STATE", "DAT_INVALID_PARAMETER"),
                                 ("DAT_SUCCESS", "DAT_INVALID_PARAMETER")}},
    "field-assign-del": {"field": {("c->value = 5", "(void)0"), ("c->seen += 1", "(void)0")}},
    "call-del": {"call": {("touch()", "(void)0")}},
}


@pytest.mark.parametrize("operator", sorted(EXPECTED))
def test_operator_generates_expected_mutants(cindex, operator):
    mutants = generate(cindex, operators=[operator])
    assert {m.operator for m in mutants} == {operator}
    for function, want in EXPECTED[operator].items():
        assert pairs(mutants, function) == want, function


def test_operators_leave_alone_what_is_not_theirs(cindex):
    mutants = generate(cindex)
    by_fn = {}
    for m in mutants:
        by_fn.setdefault(m.function, set()).add((m.operator, m.original))
    # a case label is a constant expression: never mutated
    assert not any(orig == "3" for _, orig in by_fn["with_case"])
    # a plain variable increment is not a field assignment; DAT_SUCCESS is not replaced by itself
    assert "field-assign-del" not in {op for op, _ in by_fn.get("touch", set())}
    assert ("return-success", "DAT_SUCCESS") not in by_fn["returns"]
    # only functions returning DAT_RETURN get return mutants
    assert not any(op.startswith("return-") for fn, s in by_fn.items() if fn != "returns"
                   for op, _ in s)


def test_ids_name_file_function_operator_ordinal_hash(cindex):
    mutants = generate(cindex)
    ids = [m.id for m in mutants]
    assert len(ids) == len(set(ids))
    for m in mutants:
        assert re.fullmatch(r"tests/mutgen/fixture\.c:\w+:[a-z0-9-]+:\d+:[0-9a-f]{6}", m.id), m.id
        assert m.id.split(":")[1:4] == [m.function, m.operator, str(m.ordinal)]


def test_ids_stable_when_another_function_changes(cindex, tmp_path):
    before = generate(cindex)
    text = FIXTURE.read_text()
    # a new function before everything, and an edit inside equality()
    text = text.replace("static int calls;",
                        "static int calls;\n\nint added(int x)\n{\n\tif (x > 2)\n"
                        "\t\treturn x + 1;\n\treturn 0;\n}\n", 1)
    text = text.replace("\treturn a == b;", "\tint twice = a * 2;\n\n"
                        "\treturn a == b && twice != 3;", 1)
    edited = tmp_path / "fixture.c"
    edited.write_text(text)
    after = generate(cindex, edited)
    untouched = lambda ms: {m.id for m in ms if m.function not in ("equality", "added")}
    assert untouched(before) == untouched(after)
    assert untouched(before)
    # the lines moved: the ids did not follow them
    moved = {m.id: m.line for m in after}
    assert all(moved[m.id] > m.line for m in before if m.id in moved and m.function == "returns")
    assert any(m.function == "added" for m in after)


def test_reach_spans_the_whole_expression(cindex, tmp_path):
    """gcov charges a multi-line expression to its first line: a mutant on a
    continuation line is reached by what ran any line of the expression."""
    src = tmp_path / "span.c"
    src.write_text("int span(int a, int b, int c)\n{\n"       # lines 1-2
                   "\tif (a > 1 &&\n"                         # 3
                   "\t    b < 2 &&\n"                         # 4
                   "\t    c == 3)\n"                          # 5
                   "\t\treturn 1;\n"                          # 6
                   "\treturn a +\n"                           # 7
                   "\t       4;\n}\n")                        # 8
    ms = generate(cindex, src)
    by = {(m.operator, " ".join(m.original.split())): m for m in ms}
    eq = by[("eq-swap", "c == 3")]
    assert (eq.line, eq.end_line) == (5, 5)
    assert list(eq.reach_lines()) == [3, 4, 5]
    assert list(by[("rel-boundary", "b < 2")].reach_lines()) == [3, 4, 5]
    assert list(by[("const-plus1", "4")].reach_lines()) == [7, 8]
    cond = by[("cond-negate", "a > 1 && b < 2 && c == 3")]
    assert list(cond.reach_lines()) == [3, 4, 5]
    cov = {"cases": {"first-line-only": {"lines": {REL: [3]}},
                     "elsewhere": {"lines": {REL: [6]}}}}
    assert mutgen_run.reaching(eq, cov) == ["first-line-only"]


def compile_and_run(tmp_path, source: bytes, name: str, env=None) -> str:
    cc = shutil.which("cc") or shutil.which("gcc")
    src = tmp_path / f"{name}.c"
    src.write_bytes(source)
    exe = tmp_path / name
    if not exe.exists():
        subprocess.run([cc, "-std=c11", "-o", str(exe), str(src), str(HERE / "driver.c")],
                       check=True, capture_output=True)
    try:
        p = subprocess.run([str(exe)], capture_output=True, timeout=5, check=True,
                           env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        return "(hangs)"
    return p.stdout.decode()


def test_schemata_compiles_and_switches_one_mutant(cindex, tmp_path):
    mutants = generate(cindex)
    entry = {"directory": str(tmp_path), "file": str(FIXTURE),
             "command": f"cc -std=c11 -Wall -Wextra -Werror -o fixture.o -c {FIXTURE}"}
    log = tmp_path / "build.log"
    schemata, failed = mutgen_run.schemata_for(FIXTURE, entry, mutants, log)
    # the static assertion needs a constant: its mutants cannot compile, the rest do
    assert failed and {m.function for m in failed} == {"with_static_assert"}
    assert all(m.line == failed[0].line for m in failed)
    # every guard stands on its mutant's own line (compiler messages name it)
    body = schemata.split(b"#line 1\n", 1)[1].decode()
    for m in mutants:
        if m not in failed:
            at = body.index(f"DATCTS_MUT({m.index})")
            assert body.count("\n", 0, at) + 1 == m.line, m.id
    assert body.count("\n") == FIXTURE.read_text().count("\n")
    original = compile_and_run(tmp_path, FIXTURE.read_bytes(), "original")
    assert compile_and_run(tmp_path, schemata, "schemata") == original
    observable = [m for m in mutants if m not in failed and
                  (m.function, m.operator) in {
                      ("relational", "rel-boundary"), ("equality", "eq-swap"),
                      ("logic", "logic-swap"), ("condition", "cond-negate"),
                      ("constant", "const-plus1"), ("constant", "const-minus1"),
                      ("returns", "return-success"), ("returns", "return-error"),
                      ("field", "field-assign-del"), ("call", "call-del")}]
    assert len(observable) >= 12
    for m in observable:
        out = compile_and_run(tmp_path, schemata, "schemata", {mutgen.ENV_VAR: m.id})
        assert out != original, m.id
    # an id of no mutant switches nothing on
    assert compile_and_run(tmp_path, schemata, "schemata",
                           {mutgen.ENV_VAR: "fixture.c:none:x:1:000000"}) == original
    # a list of ids switches each of them on, as each alone does: a group's run
    # (mutgen_run.run_group) is every member's own change at once
    a = next(m for m in observable if m.function == "relational")
    b = next(m for m in observable if m.function == "call")
    changed = {}
    for m in (a, b):
        out = compile_and_run(tmp_path, schemata, "schemata", {mutgen.ENV_VAR: m.id})
        changed[m.id] = {i for i, (x, y) in enumerate(zip(out.splitlines(),
                                                         original.splitlines())) if x != y}
    both = compile_and_run(tmp_path, schemata, "schemata", {mutgen.ENV_VAR: f"{a.id},{b.id}"})
    assert {i for i, (x, y) in enumerate(zip(both.splitlines(), original.splitlines()))
            if x != y} == changed[a.id] | changed[b.id]
    # an id that is only a prefix of another's names nothing
    assert compile_and_run(tmp_path, schemata, "schemata",
                           {mutgen.ENV_VAR: a.id[:-1]}) == original


def test_triage_file_and_stale_entries(tmp_path, cindex):
    mutants = generate(cindex)
    real = mutants[0].id
    gone = "tests/mutgen/fixture.c:relational:rel-boundary:9:abcdef"
    other_file = "core/other.c:f:call-del:1:abcdef"
    path = tmp_path / "triage.toml"
    path.write_text(f'["{real}"]\nkind = "equivalent"\nreason = "no observable change"\n'
                    f'["{gone}"]\nkind = "gap"\ncloses = "a case at the boundary"\n'
                    f'["{other_file}"]\nkind = "unspecified"\npage = "p"\nsection = "s"\n'
                    f'words = "w"\n')
    triage = mutgen_run.load_triage(path)
    assert set(triage) == {real, gone, other_file}
    # stale: its file was generated and it is not among the mutants; other files are not judged
    assert mutgen_run.stale_triages(triage, {REL: mutants}) == [gone]
    path.write_text(f'["{real}"]\nkind = "unspecified"\npage = "p"\n')
    with pytest.raises(mutgen_run.GeneratedError, match="section, words"):
        mutgen_run.load_triage(path)


def test_a_triage_entry_is_checked_against_the_code_it_was_judged_on(cindex):
    # the constant's mutant in context, «» around the changed part; an entry
    # judged on other code (its ordinal moved onto another `7`) is moved
    mutants = generate(cindex)
    seven = next(m for m in mutants if m.operator == "const-plus1" and m.function == "constant")
    two = next(m for m in mutants if m.operator == "const-plus1" and m.function == "relational")
    # a declaration's initialiser in its declaration, a part of an
    # expression in the whole of it
    assert (seven.code, two.code) == ("int n = «7»", "(a < b) + «2» * (a >= b)")
    other = next(m for m in mutants if m.operator == "cond-negate")
    triage = {seven.id: {"kind": "equivalent", "reason": "r", "code": seven.code},
              other.id: {"kind": "equivalent", "reason": "r", "code": "x = «7»"},
              mutants[0].id: {"kind": "equivalent", "reason": "r"}}
    assert mutgen_run.moved_triages(triage, {REL: mutants}) == \
        [{"id": other.id, "judged_on": "x = «7»", "code_now": other.code}]
    assert mutgen_run.unanchored_triages(triage, {REL: mutants}) == [mutants[0].id]


def test_score_excludes_build_failed_and_triaged():
    counts = {"killed": 6, "timed-out": 1, "survived": 2, "not-reached": 1, "build-failed": 3}
    # (6 + 1) / (13 - 3 - 1 excluded by triage)
    assert mutgen_run.score(counts, 1) == round(100 * 7 / 9, 2)
    assert mutgen_run.score({"build-failed": 2}, 0) is None


def test_killed_mutant_triaged_equivalent_counts_once_and_is_a_triage_error():
    eq = {"kind": "equivalent"}
    results = [
        {"id": "a", "file": "f.c", "function": "g", "status": "killed", "triage": eq,
         "killed_by": ["c1"]},
        {"id": "b", "file": "f.c", "function": "g", "status": "survived", "triage": eq},
        {"id": "c", "file": "f.c", "function": "g", "status": "survived", "triage": None},
        {"id": "d", "file": "f.c", "function": "g", "status": "killed", "triage": None},
    ]
    # a: killed, so in the score as killed (not excluded); b: excluded
    f = mutgen_run.summarise(results)["f.c"]
    assert f["excluded"] == 1
    assert f["score"] == round(100 * 2 / 3, 2)
    assert mutgen_run.triage_errors(results) == [
        {"id": "a", "kind": "equivalent", "status": "killed", "killed_by": "c1"}]


def test_sample_is_fixed_by_its_seed(cindex):
    generated = {REL: generate(cindex)}
    ids = lambda ms: sorted(m.id for m in ms)
    first = mutgen_run.select(generated, [], 10, 7)
    assert len(first) == 10
    assert ids(first) == ids(mutgen_run.select(generated, [], 10, 7))
    assert ids(first) != ids(mutgen_run.select(generated, [], 10, 8))
    # the function filter applies before the sample
    only = mutgen_run.select(generated, ["returns"], 2, 7)
    assert {m.function for m in only} == {"returns"} and len(only) == 2
    # -m ID globs (datcts mutate --generated -m ...) select by id
    one = first[0].id
    assert ids(mutgen_run.select(generated, [], None, 0, [one])) == [one]
    assert ids(mutgen_run.select(generated, [], None, 0, ["*:returns:*"])) == \
        ids(mutgen_run.select(generated, ["returns"], None, 0))


def test_sample_survives_an_edit_elsewhere(cindex):
    """A bottom-k sample: mutants added or removed by an edit change the
    sample by at most as many, the rest of it stays (the CI gate's sample
    is not redrawn by every change of core/)."""
    generated = {REL: generate(cindex)}
    every = [m for ms in generated.values() for m in ms]
    before = {m.id for m in mutgen_run.select(generated, [], 10, 7)}
    gone = sorted(before)[0]
    after = {m.id for m in mutgen_run.select({REL: [m for m in every if m.id != gone]},
                                             [], 10, 7)}
    assert len(before - after) == 1 and len(after - before) == 1
    extra = dataclasses.replace(every[0], id=every[0].id + "-new")
    grown = {m.id for m in mutgen_run.select({REL: every + [extra]}, [], 10, 7)}
    assert len(before - grown) <= 1


def test_hand_written_mutant_code_is_left_alone(cindex):
    """Code that runs only with a hand-written mutant on, and operands whose
    value the switch makes irrelevant, give no mutant (they would be
    equivalent); the operators joining them to the condition still do."""
    got = pairs(generate(cindex), "switched")
    originals = {orig for orig, _ in got}
    assert "a + 5" not in originals and "5" not in originals     # the mutant's branch
    assert "a > 2" not in originals and "a == 1" not in originals  # masked operands
    assert ('a > 2 && ref_mutant("x")', "!(a > 2 && ref_mutant(\"x\"))") not in got
    assert ('a == 1 || !ref_mutant("y")', 'a == 1 && !ref_mutant("y")') in got


def test_op_mutant_is_a_switch_too(cindex, tmp_path):
    """dto.c's op_mutant picks a hand-written mutant by operation: it is
    the switch, so neither its body nor what it guards is mutated."""
    src = tmp_path / "op.c"
    src.write_text("static int ref_mutant(const char *id) { return id == (const char *)0; }\n"
                   "static int op_mutant(int op, int rule)\n{\n"
                   "\tif (op == 3)\n\t\treturn ref_mutant(\"a\");\n"
                   "\treturn rule > 1;\n}\n"
                   "int post(int op, int state)\n{\n"
                   "\tif (state == 2 && op_mutant(op, 7))\n\t\treturn 9;\n"
                   "\treturn state;\n}\n")
    ms = generate(cindex, src)
    assert not [m for m in ms if m.function == "op_mutant"]
    originals = {" ".join(m.original.split()) for m in ms}
    assert "9" not in originals and "state == 2" not in originals and "7" not in originals
    assert "state == 2 && op_mutant(op, 7)" not in originals   # negated it runs the mutant


def test_state_only_mutants_use_is_left_alone(cindex):
    got = pairs(generate(cindex), "mutant_state")
    assert got == {("s->live = 0", "(void)0"), ("0", "(0 + 1)"), ("0", "(0 - 1)"),
                   ("s->live = 2", "(void)0"), ("2", "(2 + 1)"), ("2", "(2 - 1)")}


TCE_SOURCE = """\
static void nothing(void)
{
}

int decide(int a)
{
	nothing();
	if (a < 10)
		return 1;
	return 0;
}
"""


def test_identical_code_settles_only_what_compiles_the_same(cindex, tmp_path):
    """tce.identical: a mutant that compiles to the original's object code
    (a call to an empty function removed) is identical; one that changes a
    decision is not; the digests are cached for the next run."""
    from datcts import tce

    path = tmp_path / "tce.c"
    path.write_text(TCE_SOURCE)
    mutants = mutgen.generate(path, ARGS, "tce.c", ["call-del", "rel-boundary"], cindex)
    kinds = {m.operator: m for m in mutants}
    assert set(kinds) == {"call-del", "rel-boundary"}, [m.id for m in mutants]
    entry = {"directory": str(tmp_path), "file": str(path),
             "command": f"cc -std=c11 -O2 -g -Wall -Werror -o tce.o -c {path}"}
    cache = tmp_path / "cache.json"
    first = tce.identical(tmp_path, lambda rel: entry, mutants, 2, cache)
    assert first == {kinds["call-del"].id: True, kinds["rel-boundary"].id: False}
    assert len(json.loads(cache.read_text())) == 3    # the original and two mutants
    assert tce.identical(tmp_path, lambda rel: entry, mutants, 2, cache) == first
    # the mutated text keeps the original's lines
    m = kinds["rel-boundary"]
    assert tce.mutated(path.read_bytes(), m).count(b"\n") == TCE_SOURCE.count("\n")


def test_score_leaves_out_identical_code():
    counts = {"killed": 6, "survived": 2, "identical": 3}
    assert mutgen_run.score(counts, 0) == round(100 * 6 / 8, 2)
    assert not mutgen_run.excluded_by_triage({"status": "identical",
                                              "triage": {"kind": "equivalent"}})
