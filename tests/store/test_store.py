"""datcts store against SQLite and a real PostgreSQL: ingest, idempotence,
bundles (verified first, tampered ones refused), bad input, concurrent
ingest, migration from the first schema, a store of a newer datcts,
retention and recompute."""

import io
import json
import multiprocessing
import os
import subprocess
import tarfile
import time
from pathlib import Path

import pytest
from conftest import CATALOG, REPO, make_run, passing_cases, write_run
from datcts_reports import VERDICT_SCHEMA

from datcts_reports import catalog as catalog_mod
from datcts_reports.analysis import Analysis
from datcts_reports.bundle import build as build_bundle
from datcts_reports.store import queries
from datcts_reports.store.db import SCHEMA_VERSION, Store, StoreError
from datcts_reports.store.ingest import ingest_path, prune, recompute


def count(st, table, where="", args=()):
    return st.read(f"SELECT COUNT(*) FROM {table} {where}", args)[0][0]


def n_clauses():
    return len(catalog_mod.load(CATALOG).clauses)


def test_ingest_keeps_the_run_its_cases_and_clause_outcomes(store_url, three_runs):
    run = three_runs[1]
    with Store(store_url) as st:
        got = ingest_path(st, run["dir"], CATALOG)
        assert got.new
        r = queries.run(st, got.run_id)
        doc = run["doc"]
        prov = doc["run"]["provider"]
        assert (r["ia"], r["library_sha256"], r["started"], r["finished"]) == \
            (prov["ia"], prov["library_sha256"], doc["run"]["started"], doc["run"]["finished"])
        assert r["suite_commit"] == doc["tool"]["git_revision"]
        assert r["catalog_sha256"] == catalog_mod.load(CATALOG).sha256()
        assert r["hosts"][0]["hostname"] == doc["run"]["system"]["hostname"]
        assert count(st, "case_results", "WHERE run_id = ?", (got.run_id,)) == len(doc["results"])
        assert count(st, "clause_outcomes", "WHERE run_id = ?", (got.run_id,)) == n_clauses()
        # the failing case: its state, cause and output as results.json had them
        res = queries.case_result(st, got.run_id, run["a"])
        assert res["state"] == "FAIL" and res["cause"]["phase"] == "check"
        assert f"failing output of {run['a']}" in res["output"]
        # the clause outcomes and the verdict are those the current rules give
        a = Analysis(catalog_mod.load(CATALOG), doc)
        want = {cv.id: cv.verdict_outcome for cv in a.views.values()}
        assert {o["clause"]: o["outcome"] for o in queries.outcomes(st, got.run_id)} == want
        clause_a = doc["results"][[x["id"] for x in doc["results"]].index(run["a"])]["clauses"][0]
        assert want[clause_a] == "fails"
        assert r["verdict"] == a.verdict()["verdict"]
        assert b"<html" in queries.report_html(st, got.run_id)


def test_a_run_is_stored_once_from_its_directory_and_its_bundle(store_url, three_runs, tmp_path):
    run = three_runs[0]
    bundle, _, _ = build_bundle(run["dir"] / "results.json", tmp_path, CATALOG)
    with Store(store_url) as st:
        first = ingest_path(st, run["dir"], CATALOG)
        again = ingest_path(st, run["dir"], CATALOG)
        from_bundle = ingest_path(st, bundle)
        assert first.new and not again.new and not from_bundle.new
        assert first.run_id == again.run_id == from_bundle.run_id
        assert count(st, "runs") == 1
        assert count(st, "case_results") == len(run["doc"]["results"])


def _rewrite_bundle(src, dst, change):
    """The bundle with change(name, bytes) -> bytes applied to each member."""
    with tarfile.open(src) as tin, tarfile.open(dst, "w:gz") as tout:
        for m in tin:
            data = tin.extractfile(m).read() if m.isfile() else None
            if data is not None:
                data = change(m.name, data)
                m.size = len(data)
            tout.addfile(m, io.BytesIO(data) if data is not None else None)


def test_tampered_and_truncated_bundles_are_refused(store_url, three_runs, tmp_path):
    run = three_runs[1]
    bundle, _, _ = build_bundle(run["dir"] / "results.json", tmp_path, CATALOG)
    tampered = tmp_path / "tampered.tar.gz"
    # a FAIL made a PASS in results.json, manifest left as it was
    _rewrite_bundle(bundle, tampered, lambda name, b: b.replace(b'"state": "FAIL"',
                                                                 b'"state": "PASS"', 1)
                    if name.endswith("/results.json") else b)
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(bundle.read_bytes()[: bundle.stat().st_size // 2])
    with Store(store_url) as st:
        with pytest.raises(StoreError, match=r"(?s)fails verification.*results.json: sha256 mismatch"):
            ingest_path(st, tampered)
        with pytest.raises(StoreError, match=r"(?s)fails verification.*(damaged|not a readable)"):
            ingest_path(st, truncated)
        assert count(st, "runs") == 0 and count(st, "catalogs") == 0
        assert ingest_path(st, bundle).new  # the genuine one is taken


def test_results_of_an_unknown_schema_or_truncated_are_refused(tmp_path):
    doc = make_run(started="2026-11-20T01:00:00+00:00")
    doc["schema"] = "datcts-results/9"
    d = write_run(tmp_path / "future", doc, report=False)
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "results.json").write_text(json.dumps(make_run(started="2026-11-20T01:00:00+00:00"))[:5000])
    with Store(str(tmp_path / "s.sqlite")) as st:
        with pytest.raises(StoreError, match=r"(?s)datcts-results/9.*is not a results format"):
            ingest_path(st, d, CATALOG)
        with pytest.raises(StoreError, match=r"(?s)not JSON.*truncated"):
            ingest_path(st, cut, CATALOG)
        assert count(st, "runs") == 0


def test_results_of_the_unnamed_schema_1_are_upgraded_and_stored(tmp_path):
    """results.json from before the format had a name ("schema": 1, no run
    metadata) is read as the reports read it: datcts-results/1 with the
    metadata unknown."""
    doc = make_run(started="2026-11-20T01:00:00+00:00")
    doc["schema"] = 1
    del doc["tool"]["git_revision"], doc["tool"]["git_dirty"]
    for k in ("system", "not_selected", "not_finished", "dat"):
        doc["run"].pop(k, None)
    for k in ("dat_conf_line", "library_resolved", "library_sha256", "attributes",
              "attributes_error"):
        doc["run"]["provider"].pop(k, None)
    d = write_run(tmp_path / "old", doc, report=False)
    with Store(str(tmp_path / "s.sqlite")) as st:
        got = ingest_path(st, d, CATALOG)
        r = queries.run(st, got.run_id)
        assert got.new and r["suite_commit"] is None and r["library_sha256"] is None
        assert r["cases"] == len(doc["results"]) and r["host"] == doc["run"]["host"]
        assert b"<html" in queries.report_html(st, got.run_id)  # rendered, as none was there


def test_a_store_of_a_newer_datcts_is_refused(store_url):
    with Store(store_url) as st:
        with st.transaction():
            st.q("INSERT INTO schema_version (version, applied, datcts, description) "
                 "VALUES (?, ?, ?, ?)", (SCHEMA_VERSION + 7, "2030-01-01", "9.9.9", "future"))
    with pytest.raises(StoreError, match=rf"(?s)version {SCHEMA_VERSION + 7} \(written by datcts "
                                         r"9\.9\.9\).*use a newer datcts"):
        Store(store_url)
    with pytest.raises(StoreError, match="use a newer datcts"):
        Store(store_url, readonly=True)


def test_migration_from_the_first_schema(store_url, three_runs):
    """A store of schema 1 (no run_hosts) holding a run in full and a pruned
    one: opening it with this datcts applies migration 2, whose hosts come
    from the raw results.json, or for the pruned run from its run row."""
    with Store(store_url) as st:
        ids = [ingest_path(st, r["dir"], CATALOG).run_id for r in three_runs[:2]]
        prune(st, keep=1)
        # back to schema 1: what migration 2 added, gone
        with st.transaction():
            st.q("DROP TABLE run_hosts")
            st.q("DELETE FROM schema_version WHERE version > 1")
        assert st.version()[0] == 1
    with Store(store_url) as st:
        assert st.version()[0] == SCHEMA_VERSION == 2
        host = three_runs[0]["doc"]["run"]["system"]["hostname"]
        for run_id in ids:
            assert [h["hostname"] for h in queries.run(st, run_id)["hosts"]] == [host]
        assert count(st, "clause_outcomes") == 2 * n_clauses()
        assert queries.run(st, ids[0])["pruned"] and not queries.run(st, ids[1])["pruned"]


def _ingest_all(url, paths, barrier, q):
    try:
        barrier.wait()
        with Store(url) as st:
            q.put([(str(p), ingest_path(st, p, CATALOG).new) for p in paths])
    except BaseException as e:  # the parent reports it
        q.put(repr(e))


def test_eight_processes_ingesting_the_same_runs_lose_and_double_nothing(store_url, three_runs):
    """Eight processes open a new store at once (all migrating it) and each
    stores the same three runs, in different orders: each run is stored by
    exactly one of them, whole."""
    paths = [r["dir"] for r in three_runs]
    ctx = multiprocessing.get_context("fork")
    barrier, q = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=_ingest_all,
                         args=(store_url, paths[i % 3:] + paths[:i % 3], barrier, q))
             for i in range(8)]
    for p in procs:
        p.start()
    got = [q.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
    errors = [g for g in got if isinstance(g, str)]
    assert not errors, errors
    new = [path for g in got for path, was_new in g if was_new]
    assert sorted(new) == sorted(map(str, paths)), "each run stored by exactly one process"
    with Store(store_url) as st:
        assert count(st, "runs") == 3
        assert count(st, "case_results") == sum(len(r["doc"]["results"]) for r in three_runs)
        assert count(st, "clause_outcomes") == 3 * n_clauses()
        assert count(st, "run_hosts") == 3
        assert st.read("SELECT COUNT(*) FROM schema_version")[0][0] == SCHEMA_VERSION


def test_prune_keeps_the_last_runs_in_full_and_the_history_of_all(store_url, three_runs,
                                                                     tmp_path):
    other = write_run(tmp_path / "ofa", make_run(started="2026-11-19T01:00:00+00:00",
                                                  ia="ofa-v2-ib0", library="libdaplofa.so.2"))
    with Store(store_url) as st:
        ids = [ingest_path(st, r["dir"], CATALOG).run_id for r in three_runs]
        ofa = ingest_path(st, other, CATALOG).run_id
        st.compact()
        before = st.size()
        assert sorted(prune(st, keep=1)) == sorted(ids[:2])
        assert prune(st, keep=1) == []  # nothing more to do
        for run_id in ids[:2]:
            r = queries.run(st, run_id)
            assert r["pruned"] and queries.report_html(st, run_id) is None
            assert count(st, "case_results", "WHERE run_id = ?", (run_id,)) == 0
            assert count(st, "clause_outcomes", "WHERE run_id = ?", (run_id,)) == n_clauses()
        for run_id in (ids[2], ofa):  # the latest of each provider, whole
            assert not queries.run(st, run_id)["pruned"]
            assert count(st, "case_results", "WHERE run_id = ?", (run_id,)) > 0
        clause_a = three_runs[0]["doc"]["results"][0]["clauses"][0]
        hist = {p["provider_key"]: p for p in queries.clause_history(st, clause_a)}
        assert len(hist["ref-sock · libdaplref.so"]["history"]) == 3
        # a pruned run is still recognised when it comes again
        assert not ingest_path(st, three_runs[0]["dir"], CATALOG).new
        if st.kind == "sqlite":
            assert st.size() < before


def test_recompute_follows_the_current_rules(store_url, three_runs):
    """Outcomes stored by other rules (here: edited by hand) are recomputed
    from the raw results.json by the rules of the code running now."""
    run = three_runs[1]
    with Store(store_url) as st:
        run_id = ingest_path(st, run["dir"], CATALOG).run_id
        right = {o["clause"]: o["outcome"] for o in queries.outcomes(st, run_id)}
        with st.transaction():
            st.q("UPDATE clause_outcomes SET outcome = 'holds', status = 'pass' WHERE run_id = ?",
                 (run_id,))
            st.q("UPDATE runs SET verdict = 'conformant', rules = 'datcts-verdict/2' "
                 "WHERE id = ?", (run_id,))
        assert recompute(st) == (1, 0)
        assert {o["clause"]: o["outcome"] for o in queries.outcomes(st, run_id)} == right
        r = queries.run(st, run_id)
        assert r["verdict"] == "not-conformant" and r["rules"] == VERDICT_SCHEMA


def datcts(*args, env=None):
    e = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    return subprocess.run([str(REPO / "bin" / "datcts"), *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=e)


def test_cli_ingest_list_info_and_a_refused_bundle(tmp_path, three_runs):
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    p = datcts("store", "--store", url, "ingest", three_runs[0]["dir"], three_runs[1]["dir"],
               "--catalog", CATALOG)
    assert p.returncode == 0, p.stderr
    assert p.stderr.count("as run ") == 2
    p = datcts("store", "ingest", three_runs[0]["dir"], "--catalog", CATALOG,
               env={"DATCTS_STORE": url})
    assert p.returncode == 0 and "is stored already (run 1" in p.stderr, p.stderr
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8b not really a bundle")
    p = datcts("store", "--store", url, "ingest", bad, three_runs[2]["dir"], "--catalog", CATALOG)
    assert p.returncode == 2 and "fails verification" in p.stderr, p.stderr
    assert "as run 3" in p.stderr, "the good input after a bad one is still stored"
    p = datcts("store", "--store", url, "list")
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 3
    p = datcts("store", "--store", url, "info", "--json")
    info = json.loads(p.stdout)
    assert (info["runs"], info["schema_version"]) == (3, SCHEMA_VERSION)


def _build() -> Path | None:
    root = os.environ.get("DATCTS_TEST_BUILD_ROOT")
    b = Path(root) if root else REPO / "build"
    return b if (b / "cases" / "datcts-cases-pz").is_file() else None


@pytest.mark.skipif(_build() is None, reason="no build with cases/datcts-cases-pz "
                    "(tools/build.sh; ctest sets DATCTS_TEST_BUILD_ROOT)")
def test_datcts_run_store_ingests_as_the_run_ends(tmp_path):
    b = _build()
    url = str(tmp_path / "run.sqlite")
    p = datcts("run", "--build-dir", b, "--out", tmp_path / "out", "--page", "dat_pz_create",
               "-j", "2", "-q", "--store", url, env={"DATCTS_STORE": ""})
    assert "as run 1 in" in p.stderr, p.stderr
    assert p.stderr.rstrip().splitlines()[-1].startswith("datcts: HTML report:")
    with Store(url) as st:
        r = queries.run(st, 1)
        doc = json.loads((tmp_path / "out" / "results.json").read_text())
        assert r["cases"] == len(doc["results"]) > 0
        assert r["library_sha256"] == doc["run"]["provider"]["library_sha256"]


def test_size_and_time_of_a_run_of_1153_cases(tmp_path, capsys):
    """The figures docs/store.md gives: a run the size of the suite's (1153
    case results; ref-run.json's 511 cases, and copies of them under other
    ids), its ingest time and its bytes in an SQLite store, in full and
    pruned."""
    doc = make_run(started="2026-11-20T01:00:00+00:00", fail=passing_cases(
        make_run(started="2026-11-20T01:00:00+00:00"), 5))
    extra = []
    while len(doc["results"]) + len(extra) < 1153:
        r = json.loads(json.dumps(doc["results"][len(extra) % len(doc["results"])]))
        r["id"] = f"{r['id']}_copy{len(extra)}"
        if r.get("waiver"):
            r["waiver"]["id"] = r["id"]
        extra.append(r)
    doc["results"] += extra
    doc = make_run(started="2026-11-20T01:00:00+00:00", doc=doc)
    url = str(tmp_path / "size.sqlite")
    times = []
    with Store(url) as st:
        for i in range(3):
            d = make_run(started=f"2026-11-2{i}T01:00:00+00:00", doc=doc)
            t0 = time.monotonic()
            ingest_path(st, write_run(tmp_path / f"r{i}", d), CATALOG)
            times.append(time.monotonic() - t0)
        st.compact()
        empty = Store(str(tmp_path / "empty.sqlite"))
        base = empty.size()
        empty.close()
        full = (st.size() - base) / 3
        prune(st, keep=1)
        pruned = (st.size() - base - full) / 2
    assert len(doc["results"]) == 1153
    with capsys.disabled():
        print(f"\nstore figures: {len(doc['results'])} cases; ingest {min(times):.2f} s "
              f"(best of 3); {full / 1024:.0f} KiB a run in full, {pruned / 1024:.0f} KiB "
              f"pruned (SQLite)")
    assert full > pruned > 0


CERTIFICATION = REPO / "docs" / "certification" / "ofa-dapl-2.1.10" / "bundles"


@pytest.mark.parametrize("bundle", sorted(p.name for p in CERTIFICATION.glob("*.tar.gz")))
def test_the_committed_ofa_certification_is_stored_as_it_was_judged(tmp_path, bundle):
    """A real run: the committed certification bundle of OFA dapl 2.1.10,
    verified and stored; the stored shall-clause outcomes are the ones its
    verdict counted."""
    path = CERTIFICATION / bundle
    with tarfile.open(path) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/verdict.json"))
        verdict = json.load(tar.extractfile(member))
    with Store(str(tmp_path / "cert.sqlite")) as st:
        run_id = ingest_path(st, path).run_id
        stored = dict(st.read("SELECT outcome, COUNT(*) FROM clause_outcomes WHERE run_id = ? "
                              "AND level = 'shall' AND subject = 'provider' GROUP BY outcome",
                              (run_id,)))
        cases = count(st, "case_results", "WHERE run_id = ?", (run_id,))
    shall = verdict["shall"]
    assert stored == {"fails": shall["fails"], "contested": shall["contested"],
                      "not-demonstrated": shall["not_demonstrated"], "holds": shall["holds"]}
    assert cases == sum(verdict["case_states"].values())
