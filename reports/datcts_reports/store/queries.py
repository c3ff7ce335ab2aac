"""What the web view (and `datcts store list`) asks of the store: runs by
provider and host, a run's regressions against the previous comparable run,
a clause's history, the provider x clause matrix."""

from __future__ import annotations

import json

from datcts_reports.store.db import Store, unpack

RUN_COLUMNS = ("id", "provider_key", "ia", "provider_name", "library", "library_sha256",
               "registry_name", "registry_version", "registry_sha256", "dat_api", "host",
               "kernel", "os", "machine", "suite_commit", "suite_dirty", "tool_version",
               "catalog_sha256", "started", "finished", "complete", "cases", "states_json",
               "verdict", "verdict_explanation", "registry_verdict", "rules", "source",
               "bundle_manifest_sha256", "ingested", "pruned", "results_sha256")
_SELECT_RUN = "SELECT " + ", ".join(RUN_COLUMNS) + " FROM runs"
# Runs in the order they ran; the id breaks a tie (and orders runs without a start)
_CHRONO = "COALESCE(started, ''), id"
_CHRONO_DESC = "COALESCE(started, '') DESC, id DESC"


def _run(row) -> dict:
    r = dict(zip(RUN_COLUMNS, row))
    r["states"] = json.loads(r.pop("states_json"))
    return r


def runs(store: Store, provider: str | None = None, host: str | None = None) -> list[dict]:
    """Newest first; `host` matches a host's name in the hosts file or its hostname."""
    where, args = [], []
    if provider:
        where.append("provider_key = ?")
        args.append(provider)
    if host:
        where.append("id IN (SELECT run_id FROM run_hosts WHERE hostname = ? OR name = ?)")
        args += [host, host]
    sql = _SELECT_RUN + (" WHERE " + " AND ".join(where) if where else "")
    out = [_run(r) for r in store.read(sql + f" ORDER BY {_CHRONO_DESC}", args)]
    hosts = _hosts_of(store, [r["id"] for r in out])
    for r in out:
        r["hosts"] = hosts.get(r["id"], [])
    return out


def _hosts_of(store: Store, ids: list[int]) -> dict[int, list[dict]]:
    if not ids:
        return {}
    out: dict[int, list[dict]] = {}
    rows = store.read("SELECT run_id, name, hostname, kernel, machine, library_sha256, "
                      "registry_sha256 FROM run_hosts WHERE run_id IN "
                      f"({', '.join('?' * len(ids))}) ORDER BY run_id, name", ids)
    for run_id, *h in rows:
        out.setdefault(run_id, []).append(dict(zip(
            ("name", "hostname", "kernel", "machine", "library_sha256", "registry_sha256"), h)))
    return out


def run(store: Store, run_id: int) -> dict | None:
    rows = store.read(_SELECT_RUN + " WHERE id = ?", (run_id,))
    if not rows:
        return None
    r = _run(rows[0])
    r["hosts"] = _hosts_of(store, [run_id]).get(run_id, [])
    return r


def latest_runs(store: Store) -> list[dict]:
    """The newest run of each provider, by provider."""
    latest: dict[str, dict] = {}
    for r in runs(store):   # newest first: the first seen of a provider is its latest
        latest.setdefault(r["provider_key"], r)
    return [latest[k] for k in sorted(latest)]


def previous_run(store: Store, r: dict) -> dict | None:
    """The run of the same provider just before r."""
    rows = store.read(_SELECT_RUN + " WHERE provider_key = ? AND "
                      "(COALESCE(started, '') < ? OR (COALESCE(started, '') = ? AND id < ?)) "
                      f"ORDER BY {_CHRONO_DESC} LIMIT 1",
                      (r["provider_key"], r["started"] or "", r["started"] or "", r["id"]))
    return _run(rows[0]) if rows else None


def changes(store: Store, r: dict) -> dict:
    """Against the previous comparable run: regressions (a clause that held
    then and fails now, the shall clauses first) and fixes (the reverse)."""
    prev = previous_run(store, r)
    out = {"previous": prev, "regressions": [], "fixes": []}
    if prev is None:
        return out
    rows = store.read(
        "SELECT n.clause_id, n.page, n.level, n.outcome, n.status, n.why, o.outcome, o.status "
        "FROM clause_outcomes n JOIN clause_outcomes o "
        "ON o.clause_id = n.clause_id AND o.run_id = ? WHERE n.run_id = ? AND "
        "((o.outcome = 'holds' AND n.outcome = 'fails') OR "
        "(o.outcome = 'fails' AND n.outcome = 'holds'))", (prev["id"], r["id"]))
    for cid, page, level, oc, status, why, old_oc, old_status in sorted(
            rows, key=lambda x: (x[2] != "shall", x[0])):
        item = {"clause": cid, "page": page, "level": level, "status": status, "why": why,
                "old_status": old_status, "run": r, "previous": prev}
        out["regressions" if oc == "fails" else "fixes"].append(item)
    return out


def regressions_now(store: Store) -> list[dict]:
    """The regressions of each provider's latest run, shall clauses first."""
    out = []
    for r in latest_runs(store):
        out += changes(store, r)["regressions"]
    out.sort(key=lambda x: (x["level"] != "shall", x["run"]["provider_key"], x["clause"]))
    return out


def outcomes(store: Store, run_id: int) -> list[dict]:
    rows = store.read("SELECT clause_id, page, level, subject, status, outcome, why, cases_json "
                      "FROM clause_outcomes WHERE run_id = ? ORDER BY clause_id", (run_id,))
    return [{"clause": c, "page": p, "level": lv, "subject": s, "status": st, "outcome": oc,
             "why": why, "cases": json.loads(cs)} for c, p, lv, s, st, oc, why, cs in rows]


def case_list(store: Store, run_id: int) -> list[dict]:
    rows = store.read("SELECT case_id, page, state, waived, duration_ms, message "
                      "FROM case_results WHERE run_id = ? ORDER BY page, case_id", (run_id,))
    return [dict(zip(("id", "page", "state", "waived", "duration_ms", "message"), r))
            for r in rows]


def case_result(store: Store, run_id: int, case_id: str) -> dict | None:
    """The case's result as results.json had it (output included), from the
    raw results.json; None once the run is pruned."""
    rows = store.read("SELECT results_z FROM runs WHERE id = ?", (run_id,))
    if not rows or rows[0][0] is None:
        return None
    return next((r for r in json.loads(unpack(rows[0][0]))["results"] if r["id"] == case_id),
                None)


def report_html(store: Store, run_id: int) -> bytes | None:
    rows = store.read("SELECT report_z FROM runs WHERE id = ?", (run_id,))
    return unpack(rows[0][0]) if rows else None


def clause_history(store: Store, clause_id: str) -> list[dict]:
    """Per provider, the clause's outcome in each of its runs (oldest first),
    and its present streak: when it started failing (the first run of the
    failing streak that reaches the latest run), the first run that ever
    showed it failing, and how many runs have failed it since."""
    rows = store.read(
        "SELECT r.id, r.provider_key, r.started, r.host, r.suite_commit, r.library_sha256, "
        "c.outcome, c.status, c.why, c.level FROM clause_outcomes c JOIN runs r "
        f"ON r.id = c.run_id WHERE c.clause_id = ? ORDER BY r.provider_key, {_CHRONO}",
        (clause_id,))
    by: dict[str, list] = {}
    for rid, key, started, host, commit, lsha, oc, status, why, level in rows:
        by.setdefault(key, []).append({"run": rid, "started": started, "host": host,
                                       "suite_commit": commit, "library_sha256": lsha,
                                       "outcome": oc, "status": status, "why": why,
                                       "level": level})
    out = []
    for key in sorted(by):
        hist = by[key]
        streak = []
        for h in reversed(hist):
            if h["outcome"] != "fails":
                break
            streak.append(h)
        first = next((h for h in hist if h["outcome"] == "fails"), None)
        out.append({"provider_key": key, "history": hist, "latest": hist[-1],
                    "failing_since": streak[-1] if streak else None,
                    "runs_failing": len(streak),
                    "first_failing": first})
    return out


def matrix(store: Store, only_differing: bool = False) -> dict:
    """Clauses x the latest run of each provider, each cell the clause's
    outcome there.  only_differing: the clauses that do not hold everywhere."""
    cols = latest_runs(store)
    ids = [r["id"] for r in cols]
    cells: dict[str, dict] = {}
    meta: dict[str, tuple] = {}
    if ids:
        for rid, cid, page, level, oc, status in store.read(
                "SELECT run_id, clause_id, page, level, outcome, status FROM clause_outcomes "
                f"WHERE run_id IN ({', '.join('?' * len(ids))})", ids):
            cells.setdefault(cid, {})[rid] = {"outcome": oc, "status": status}
            meta[cid] = (page, level)
    rows = []
    for cid in sorted(cells):
        if only_differing and all(c["outcome"] == "holds" for c in cells[cid].values()) \
                and len(cells[cid]) == len(ids):
            continue
        rows.append({"clause": cid, "page": meta[cid][0], "level": meta[cid][1],
                     "cells": [cells[cid].get(r["id"]) for r in cols]})
    return {"runs": cols, "rows": rows}


def stats(store: Store) -> dict:
    version, by = store.version()
    (n, full), = store.read("SELECT COUNT(*), COALESCE(SUM(1 - pruned), 0) FROM runs")
    (cases,), = store.read("SELECT COUNT(*) FROM case_results")
    (clauses,), = store.read("SELECT COUNT(*) FROM clause_outcomes")
    return {"url": store.url, "kind": store.kind, "schema_version": version, "written_by": by,
            "runs": n, "full_runs": full, "pruned_runs": n - full, "case_results": cases,
            "clause_outcomes": clauses, "bytes": store.size(),
            "providers": len({r["provider_key"] for r in latest_runs(store)})}
