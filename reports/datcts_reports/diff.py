"""datcts diff OLD NEW: what changed between two runs.

Categories (docs/results-format.md, "datcts diff"):
  regressions        unwaived FAIL/CRASH/TIMEOUT/UNRESOLVED in NEW that was not
                     an unwaived failure in OLD (or is a new case), or a failure
                     that got worse (FAIL -> CRASH)          -> exit status 1
  fixes              a failure (waived or not) in OLD that passes in NEW
  state changes      every other change of state or of waiver status
  waived but passing NEW cases whose waiver can go
  duration outliers  cases whose time changed by FACTOR or more relative to the
                     run-wide median change, and by at least MIN_MS
  added / removed    cases in only one of the runs
"""

from __future__ import annotations

import json
import math
import statistics

from datcts_reports import BAD_STATES, DIFF_SCHEMA, STATES


def _sev(state: str) -> int:
    return STATES.index(state) if state in STATES else len(STATES)


def _bad(r: dict | None) -> bool:
    return bool(r) and r["state"] in BAD_STATES and not r.get("waived")


def _label(r: dict | None) -> str:
    if r is None:
        return "absent"
    return r["state"] + (" (waived)" if r.get("waived") else "")


def diff(old: dict, new: dict, *, factor: float = 2.0, min_ms: float = 50.0) -> dict:
    o = {r["id"]: r for r in old["results"]}
    n = {r["id"]: r for r in new["results"]}
    regressions, fixes, changes, outliers = [], [], [], []
    for cid, nr in n.items():
        orr = o.get(cid)
        entry = {"id": cid, "old": _label(orr), "new": _label(nr), "message": nr["message"],
                 "file": nr["file"], "line": nr["line"]}
        if _bad(nr) and not _bad(orr):
            entry["kind"] = "new case, failing" if orr is None else "new failure"
            regressions.append(entry)
        elif _bad(nr) and _bad(orr) and _sev(nr["state"]) > _sev(orr["state"]):
            entry["kind"] = "worse"
            regressions.append(entry)
        elif orr is None:
            continue
        elif orr["state"] in BAD_STATES and nr["state"] == "PASS":
            fixes.append(entry)
        elif _label(orr) != _label(nr):
            if nr["state"] != orr["state"]:
                entry["kind"] = "worse" if _sev(nr["state"]) > _sev(orr["state"]) else "better"
            else:
                entry["kind"] = "newly waived" if nr.get("waived") else "no longer waived"
            changes.append(entry)
    # Durations: relative to the run-wide median ratio, so a slower machine
    # does not flag every case.
    pairs = [(cid, o[cid]["duration_ms"], n[cid]["duration_ms"]) for cid in n
             if cid in o and "TIMEOUT" not in (o[cid]["state"], n[cid]["state"])
             and o[cid]["duration_ms"] > 0 and n[cid]["duration_ms"] > 0]
    median = statistics.median([b / a for _, a, b in pairs]) if pairs else 1.0
    for cid, a, b in pairs:
        rel = (b / a) / median
        if (rel >= factor or rel <= 1 / factor) and abs(b - a) >= min_ms:
            outliers.append({"id": cid, "old_ms": a, "new_ms": b, "ratio": round(b / a, 3),
                             "relative": round(rel, 3),
                             "direction": "slower" if rel > 1 else "faster"})
    outliers.sort(key=lambda x: -abs(math.log(x["relative"])))
    wbp = [{"id": r["id"], "reason": r["waiver"]["reason"], "expires": r["waiver"]["expires"]}
           for r in new["results"] if r.get("waived_but_passing")]

    def side(doc):
        run, prov = doc["run"], doc["run"]["provider"]
        return {"ia": prov["ia"], "library": prov.get("library"),
                "library_sha256": prov.get("library_sha256"), "started": run["started"],
                "host": run.get("host"), "git_revision": doc["tool"].get("git_revision"),
                "cases": len(doc["results"])}

    notes = []
    so, sn = side(old), side(new)
    if so["ia"] != sn["ia"]:
        notes.append(f"different IAs: {so['ia']} -> {sn['ia']}")
    if so["library_sha256"] and sn["library_sha256"] and so["library_sha256"] != sn["library_sha256"]:
        notes.append("the provider library changed (sha256 "
                     f"{so['library_sha256'][:12]} -> {sn['library_sha256'][:12]})")
    return {
        "schema": DIFF_SCHEMA,
        "old": so,
        "new": sn,
        "notes": notes,
        "common": sum(1 for c in n if c in o),
        "regressions": regressions,
        "fixes": fixes,
        "state_changes": changes,
        "waived_but_passing": wbp,
        "duration_outliers": outliers,
        "duration_median_ratio": round(median, 3),
        "added": sorted(c for c in n if c not in o),
        "removed": sorted(c for c in o if c not in n),
        "factor": factor,
        "min_ms": min_ms,
    }


def _ms(v: float) -> str:
    return f"{v / 1000:.2f} s" if v >= 1000 else f"{v:.0f} ms"


def cause_changes(vo: dict, vn: dict) -> dict:
    """Blocking causes (datcts-verdict/3, every subject) that appeared in NEW,
    went away from OLD, or now block a different number of clauses."""
    def index(v):
        out = {}
        for subj, sv in (v.get("subjects") or {"provider": v}).items():
            for g in sv.get("blocking_causes") or []:
                out[(subj, g["outcome"], g["cause"])] = g["count"]
        return out
    io, in_ = index(vo), index(vn)

    def entry(k, old, new):
        return {"subject": k[0], "outcome": k[1], "cause": k[2], "old": old, "new": new}
    return {
        "appeared": [entry(k, 0, c) for k, c in sorted(in_.items(), key=lambda x: -x[1])
                     if k not in io],
        "gone": [entry(k, c, 0) for k, c in sorted(io.items(), key=lambda x: -x[1])
                 if k not in in_],
        "changed": [entry(k, io[k], c) for k, c in sorted(in_.items(), key=lambda x: -x[1])
                    if k in io and io[k] != c],
    }


def format_text(d: dict, verdicts: tuple | None = None, limit: int = 50) -> str:
    out = []
    o, n = d["old"], d["new"]
    out.append(f"datcts diff: {o['ia']} {o['started']} ({o['cases']} cases) -> "
               f"{n['ia']} {n['started']} ({n['cases']} cases)")
    out.append(f"  {d['common']} cases in both, {len(d['added'])} added, {len(d['removed'])} removed")
    for note in d["notes"]:
        out.append(f"  note: {note}")
    if verdicts:
        vo, vn = verdicts
        arrow = "unchanged" if vo["verdict"] == vn["verdict"] else "changed"
        out.append(f"  verdict (provider): {vo['label']} -> {vn['label']} "
                   f"({arrow}; {vn['explanation']})")
        ro, rn = vo["subjects"]["registry"], vn["subjects"]["registry"]
        arrow = "unchanged" if ro["verdict"] == rn["verdict"] else "changed"
        who = rn["name"] + (f" {rn['version']}" if rn.get("version") else "")
        out.append(f"  verdict (registry {who}): {ro['label']} -> {rn['label']} "
                   f"({arrow}; {rn['explanation']})")

    def section(title, items, fmt):
        out.append("")
        out.append(f"{title} ({len(items)})")
        if not items:
            out.append("  none")
        for it in items[:limit]:
            out.append("  " + fmt(it))
        if len(items) > limit:
            out.append(f"  ... and {len(items) - limit} more (--json lists all)")

    def change(e):
        s = f"{e['new']:<20} {e['id']}  (was {e['old']})"
        if e.get("kind") in ("new failure", "new case, failing", "worse"):
            s += f"  [{e['kind']}]"
        if e.get("message") and e["new"] != "PASS":
            s += f"\n{'':22}{e['message']}\n{'':22}at {e['file']}:{e['line']}"
        return s

    bc = d.get("blocking_causes")
    if bc:
        def cause_line(e):
            return (f"{e['old']:>4} -> {e['new']:<4} {e['outcome']:<16} {e['cause']}"
                    + (f"  [{e['subject']}]" if e["subject"] != "provider" else ""))
        section("BLOCKING CAUSES THAT APPEARED", bc["appeared"], cause_line)
        section("BLOCKING CAUSES THAT WENT AWAY", bc["gone"], cause_line)
        if bc["changed"]:
            section("BLOCKING CAUSES THAT BLOCK A DIFFERENT NUMBER OF CLAUSES", bc["changed"],
                    cause_line)
    section("REGRESSIONS", d["regressions"], change)
    section("FIXED", d["fixes"], lambda e: f"{e['new']:<20} {e['id']}  (was {e['old']})")
    section("STATE CHANGES", d["state_changes"],
            lambda e: f"{e['new']:<20} {e['id']}  (was {e['old']}; {e['kind']})")
    section("WAIVED BUT PASSING (the waiver can go)", d["waived_but_passing"],
            lambda e: f"{e['id']}  ({e['reason']}; expires {e['expires']})")
    out.append("")
    out.append(f"DURATION OUTLIERS ({len(d['duration_outliers'])}; {d['factor']:g}x or more against "
               f"the run-wide median change x{d['duration_median_ratio']:g}, and at least "
               f"{d['min_ms']:g} ms)")
    if not d["duration_outliers"]:
        out.append("  none")
    for e in d["duration_outliers"][:limit]:
        out.append(f"  {e['direction']:<7} {e['id']}  {_ms(e['old_ms'])} -> {_ms(e['new_ms'])} "
                   f"(x{e['ratio']:g})")
    if d["added"] or d["removed"]:
        out.append("")
        if d["added"]:
            out.append(f"ADDED ({len(d['added'])}): " + ", ".join(d["added"][:limit]))
        if d["removed"]:
            out.append(f"REMOVED ({len(d['removed'])}): " + ", ".join(d["removed"][:limit]))
    out.append("")
    r = len(d["regressions"])
    out.append(f"datcts diff: {r} regression(s), {len(d['fixes'])} fix(es), "
               f"{len(d['state_changes'])} other change(s)")
    return "\n".join(out) + "\n"


def format_json(d: dict) -> str:
    return json.dumps(d, indent=1, ensure_ascii=False) + "\n"
