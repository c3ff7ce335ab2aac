"""Taking runs into the store, pruning old ones, and recomputing their clause
outcomes under the current verdict rules.

A run is known by the sha256 of its results.json bytes: the run directory
and the bundle made from it (which carries results.json byte for byte) are
the same run, stored once.  What is stored of it: the run row (identity,
fingerprints, verdict), each case result, each clause outcome with its why,
and the raw results.json, the catalog snapshot and the report, compressed:
with them a later datcts recomputes every clause outcome by its own rules
(`datcts store recompute`), whatever rules were current at ingest.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from datcts_reports import DEFAULT_CATALOG, RESULTS_SCHEMA, VERDICT_SCHEMA, ReportError
from datcts_reports import catalog as catalog_mod
from datcts_reports.analysis import Analysis
from datcts_reports.schema import upgrade_legacy, validate
from datcts_reports.store.db import Store, StoreError, now, pack, unpack


@dataclass
class Source:
    """A run as read from a run directory or a verified bundle."""
    origin: str                  # what was ingested, for the run row and messages
    results: bytes               # results.json, byte for byte
    doc: dict                    # results.json, validated (legacy schema 1 upgraded)
    catalog: catalog_mod.Catalog
    catalog_json: bytes          # the catalog snapshot (datcts-catalog/1), canonical
    report_html: bytes | None
    manifest_sha256: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.results).hexdigest()


def _parse_results(data: bytes, where: str) -> dict:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise StoreError(f"{where}: not JSON ({e}); a truncated or damaged results.json "
                         "is not stored")
    if isinstance(doc, dict) and doc.get("schema") == 1:
        doc = upgrade_legacy(doc)
    errs = validate(doc)
    if errs:
        raise StoreError(f"{where}: not a valid {RESULTS_SCHEMA} document, not stored:\n  "
                         + "\n  ".join(errs[:20])
                         + (f"\n  ... and {len(errs) - 20} more" if len(errs) > 20 else ""))
    return doc


def _snapshot(cat: catalog_mod.Catalog) -> bytes:
    return json.dumps(cat.to_json(), sort_keys=True, ensure_ascii=False).encode()


def read_run_dir(path: Path, catalog_path=None) -> Source:
    """A run directory (or its results.json): the catalog is --catalog's, or
    the suite's own, as `datcts report` takes it; a missing report.html is
    rendered, so every stored run has one to link to."""
    rpath = path / "results.json" if path.is_dir() else path
    try:
        data = rpath.read_bytes()
    except OSError as e:
        raise StoreError(f"{rpath}: cannot read ({e.strerror or e}); pass a run directory, "
                         "its results.json or a bundle")
    doc = _parse_results(data, str(rpath))
    cat = catalog_mod.load(catalog_path or DEFAULT_CATALOG)
    try:
        html = (rpath.parent / "report.html").read_bytes()
    except OSError:
        from datcts_reports.html import render
        html = render(Analysis(cat, doc)).encode()
    return Source(str(rpath.resolve()), data, doc, cat, _snapshot(cat), html)


def read_bundle(path: Path) -> Source:
    """A bundle, verified first (hashes, the verdict re-derived) by `datcts
    verify`'s own code; a bundle that fails a check is refused whole."""
    from datcts_reports import bundle as bundle_mod

    v = bundle_mod.verify(path)
    if not v.ok:
        raise StoreError(f"{path}: the bundle fails verification, not stored:\n  "
                         + "\n  ".join(v.problems))
    files = bundle_mod._read_members(path, bundle_mod.Verification(path))
    doc = _parse_results(files["results.json"], f"{path}:results.json")
    cat = catalog_mod.load_snapshot(json.loads(files["catalog.json"]), f"{path}:catalog.json")
    return Source(str(path.resolve()), files["results.json"], doc, cat, _snapshot(cat),
                  files.get("report.html"), v.manifest_sha256)


def read_source(path, catalog_path=None) -> Source:
    """A run directory, a results.json, or else a bundle."""
    p = Path(path)
    if p.is_dir() or p.suffix == ".json":
        return read_run_dir(p, catalog_path)
    return read_bundle(p)


# ---------------------------------------------------------------- derived rows

def provider_key(doc: dict) -> str:
    """What makes two runs comparable: the same IA through the same provider
    library (by name, not by hash: a rebuilt library is the next run of the
    same provider)."""
    prov = doc["run"]["provider"]
    lib = Path(prov.get("library") or "?").name
    return f"{prov.get('ia') or '?'} · {lib}"


def host_rows(doc: dict) -> list[tuple]:
    """(name, hostname, kernel, machine, library sha256, registry sha256) of
    each host of the run: the hosts file's (multi-host and Slurm runs), else
    the one it ran on."""
    run = doc["run"]
    hosts = run.get("hosts") or []
    if hosts:
        return [(h.get("name"), h.get("hostname"), h.get("kernel"), h.get("machine"),
                 h.get("library_sha256"), h.get("registry_sha256")) for h in hosts]
    sys_ = run.get("system") or {}
    reg = (run.get("dat") or {}).get("registry") or {}
    return [("local", sys_.get("hostname") or run.get("host"), sys_.get("kernel"),
             sys_.get("machine"), run["provider"].get("library_sha256"), reg.get("sha256"))]


def clause_rows(a: Analysis) -> list[tuple]:
    """(clause, page, level, subject, status, outcome, why, cases) of every
    clause of the catalog, by the rules of the code running now."""
    return [(cv.id, cv.clause.page, cv.level, cv.clause.subject, cv.status,
             cv.verdict_outcome, cv.why,
             json.dumps([r["id"] for r in cv.results] + list(cv.not_run)))
            for cv in sorted(a.views.values(), key=lambda cv: cv.id)]


def case_rows(doc: dict) -> list[tuple]:
    """What is asked of a case across runs; the rest of its result (phases,
    halves, hosts...) stays in the raw results.json, where the web view
    reads it (a copy here would double the store's size)."""
    return [(r["id"], r["page"], r["state"], int(bool(r.get("waived"))), r.get("message"),
             r.get("duration_ms"), json.dumps(r["cause"]) if r.get("cause") else None,
             r.get("output")) for r in doc["results"]]


def _verdict_fields(a: Analysis) -> tuple:
    v = a.verdict(VERDICT_SCHEMA)
    reg = (v.get("subjects") or {}).get("registry") or {}
    return v["verdict"], v["explanation"], reg.get("verdict")


# ---------------------------------------------------------------- ingest

@dataclass
class Ingested:
    run_id: int
    new: bool
    origin: str
    sha256: str
    seconds: float = 0.0


def stored_run(store: Store, sha: str) -> int | None:
    row = store.read("SELECT id FROM runs WHERE results_sha256 = ?", (sha,))
    return row[0][0] if row else None


def ingest(store: Store, src: Source) -> Ingested:
    """Stores a run unless it is there already.  Two processes storing the
    same run at once: the unique results_sha256 lets one insert commit and
    the other roll back whole, so the run is stored once and complete."""
    t0 = time.monotonic()
    sha = src.sha256
    have = stored_run(store, sha)
    if have is not None:
        return Ingested(have, False, src.origin, sha)
    doc = src.doc
    a = Analysis(src.catalog, doc)
    verdict, explanation, reg_verdict = _verdict_fields(a)
    run = doc["run"]
    prov = run["provider"]
    attrs = (prov.get("attributes") or {}).get("provider") or {}
    sys_ = run.get("system") or {}
    reg = (run.get("dat") or {}).get("registry") or {}
    tool = doc.get("tool") or {}
    cat_sha = src.catalog.sha256()
    row = {
        "results_sha256": sha, "provider_key": provider_key(doc),
        "ia": prov.get("ia"), "provider_name": attrs.get("provider_name"),
        "library": prov.get("library"), "library_resolved": prov.get("library_resolved"),
        "library_sha256": prov.get("library_sha256"),
        "registry_name": reg.get("name") or "libdat", "registry_library": reg.get("library"),
        "registry_sha256": reg.get("sha256"), "registry_version": reg.get("version"),
        "dat_api": (run.get("dat") or {}).get("api") or "1.2",
        "host": sys_.get("hostname") or run.get("host"), "kernel": sys_.get("kernel"),
        "os": sys_.get("os"), "machine": sys_.get("machine"),
        "suite_commit": tool.get("git_revision"),
        "suite_dirty": None if tool.get("git_dirty") is None else int(tool["git_dirty"]),
        "tool_version": tool.get("version"), "catalog_sha256": cat_sha,
        "started": run.get("started"), "finished": run.get("finished"),
        "complete": int(bool(run.get("complete"))), "cases": len(doc["results"]),
        "states_json": json.dumps(doc["summary"]["states"]),
        "verdict": verdict, "verdict_explanation": explanation, "registry_verdict": reg_verdict,
        "rules": VERDICT_SCHEMA, "source": src.origin,
        "bundle_manifest_sha256": src.manifest_sha256, "ingested": now(),
        "results_z": pack(src.results), "report_z": pack(src.report_html),
    }
    cases, clauses, hosts = case_rows(doc), clause_rows(a), host_rows(doc)
    try:
        with store.transaction():
            store.q("INSERT INTO catalogs (sha256, catalog_z) VALUES (?, ?) "
                    "ON CONFLICT (sha256) DO NOTHING", (cat_sha, pack(src.catalog_json)))
            cols = ", ".join(row)
            run_id = store.q(f"INSERT INTO runs ({cols}) VALUES ({', '.join('?' * len(row))}) "
                             "RETURNING id", list(row.values())).fetchone()[0]
            store.many("INSERT INTO case_results (run_id, case_id, page, state, waived, message, "
                       "duration_ms, cause_json, output) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, *r) for r in cases])
            store.many("INSERT INTO clause_outcomes (run_id, clause_id, page, level, subject, "
                       "status, outcome, why, cases_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, *r) for r in clauses])
            store.many("INSERT INTO run_hosts (run_id, name, hostname, kernel, machine, "
                       "library_sha256, registry_sha256) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, *r) for r in hosts])
    except Exception as e:
        if not store.is_duplicate(e):
            raise
        # another process stored this run between our look and our insert
        have = stored_run(store, sha)
        if have is None:
            raise
        return Ingested(have, False, src.origin, sha)
    return Ingested(run_id, True, src.origin, sha, time.monotonic() - t0)


def ingest_path(store: Store, path, catalog_path=None) -> Ingested:
    t0 = time.monotonic()
    try:
        src = read_source(path, catalog_path)
    except ReportError as e:  # a malformed catalog, say: the store's error, as it is
        raise e if isinstance(e, StoreError) else StoreError(str(e))
    got = ingest(store, src)
    got.seconds = time.monotonic() - t0
    return got


# ---------------------------------------------------------------- retention

def prune(store: Store, keep: int) -> list[int]:
    """Keeps the last `keep` runs of each provider in full; of older ones
    only the run row, its hosts and its clause outcomes (their history);
    their case results, raw results.json and report go.  Returns the runs
    pruned now."""
    if keep < 1:
        raise StoreError("--keep must be at least 1")
    pruned = []
    with store.transaction():
        runs = store.q("SELECT id, provider_key, pruned FROM runs ORDER BY provider_key, "
                       "COALESCE(started, '') DESC, id DESC").fetchall()
        seen: dict[str, int] = {}
        for run_id, key, already in runs:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] <= keep or already:
                continue
            store.q("DELETE FROM case_results WHERE run_id = ?", (run_id,))
            store.q("UPDATE runs SET results_z = NULL, report_z = NULL, pruned = 1 WHERE id = ?",
                    (run_id,))
            pruned.append(run_id)
    if pruned:
        store.compact()  # give the space back (SQLite's file, PostgreSQL's tables)
    return pruned


def recompute(store: Store) -> tuple[int, int]:
    """Clause outcomes and verdicts of every run still held in full, again,
    by the rules of the code running now (after the verdict rules changed).
    Pruned runs keep the outcomes they were stored with (`rules` says whose).
    Returns (recomputed, pruned and left)."""
    runs = store.read("SELECT id, catalog_sha256, results_z IS NULL FROM runs ORDER BY id")
    done = left = 0
    cats: dict[str, catalog_mod.Catalog] = {}
    for run_id, cat_sha, gone in runs:
        if gone:
            left += 1
            continue
        if cat_sha not in cats:
            blob = store.read("SELECT catalog_z FROM catalogs WHERE sha256 = ?", (cat_sha,))[0][0]
            cats[cat_sha] = catalog_mod.load_snapshot(json.loads(unpack(blob)), "the store",
                                                      check_hash=False)
        blob = store.read("SELECT results_z FROM runs WHERE id = ?", (run_id,))[0][0]
        doc = _parse_results(unpack(blob), f"run {run_id}")
        a = Analysis(cats[cat_sha], doc)
        verdict, explanation, reg_verdict = _verdict_fields(a)
        rows = clause_rows(a)
        with store.transaction():
            store.q("DELETE FROM clause_outcomes WHERE run_id = ?", (run_id,))
            store.many("INSERT INTO clause_outcomes (run_id, clause_id, page, level, subject, "
                       "status, outcome, why, cases_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       [(run_id, *r) for r in rows])
            store.q("UPDATE runs SET verdict = ?, verdict_explanation = ?, registry_verdict = ?, "
                    "rules = ? WHERE id = ?",
                    (verdict, explanation, reg_verdict, VERDICT_SCHEMA, run_id))
        done += 1
    return done, left
