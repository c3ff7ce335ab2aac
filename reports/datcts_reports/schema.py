"""The results.json schema ("datcts-results/1") and its validator.

A small structural validator written by hand (no third-party jsonschema):
the schema is a tree of type nodes below; validate() walks a document and
returns every problem as "path: what is wrong", e.g.
``results[12].state: 'PASSED' is not one of PASS, UNSUPPORTED, ...``.

Then consistency rules that a structure cannot express (unique ids, the
summary agrees with the results, waiver flags agree with the states).

Compatibility rule (docs/results-format.md): fields may be added within a
version, so unknown keys are accepted; a renamed, removed or re-typed field
bumps the version, and a reader rejects a version it does not know.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
import re
from pathlib import Path

from datcts_reports import BAD_STATES, RESULTS_SCHEMA, STATES, ReportError

# ---------------------------------------------------------------- type nodes


class Node:
    def check(self, v, path: str, errs: list) -> None:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


def _show(v) -> str:
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 60 else s[:57] + "..."


def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


class Str(Node):
    def __init__(self, pattern: str | None = None, nonempty=False, what: str | None = None):
        self.pattern = re.compile(pattern) if pattern else None
        self.nonempty = nonempty
        self.what = what

    def describe(self):
        return self.what or "a string"

    def check(self, v, path, errs):
        if not isinstance(v, str):
            errs.append(f"{path}: expected {self.describe()}, got {_kind(v)} {_show(v)}")
        elif self.nonempty and not v.strip():
            errs.append(f"{path}: must not be empty")
        elif self.pattern and not self.pattern.fullmatch(v):
            errs.append(f"{path}: {_show(v)} is not {self.describe()}")


class Timestamp(Str):
    def __init__(self):
        super().__init__(what="an ISO 8601 date-time with a UTC offset")

    def check(self, v, path, errs):
        if not isinstance(v, str):
            errs.append(f"{path}: expected {self.describe()}, got {_kind(v)} {_show(v)}")
            return
        try:
            t = dt.datetime.fromisoformat(v)
        except ValueError:
            errs.append(f"{path}: {_show(v)} is not {self.describe()}")
            return
        if t.tzinfo is None:
            errs.append(f"{path}: {_show(v)} has no UTC offset")


class Date(Str):
    def __init__(self):
        super().__init__(what="a date (YYYY-MM-DD)")

    def check(self, v, path, errs):
        if not isinstance(v, str):
            errs.append(f"{path}: expected {self.describe()}, got {_kind(v)} {_show(v)}")
            return
        try:
            dt.date.fromisoformat(v)
        except ValueError:
            errs.append(f"{path}: {_show(v)} is not {self.describe()}")


class Int(Node):
    def __init__(self, minimum: int | None = None):
        self.minimum = minimum

    def describe(self):
        return "an integer" + (f" >= {self.minimum}" if self.minimum is not None else "")

    def check(self, v, path, errs):
        if isinstance(v, bool) or not isinstance(v, int):
            errs.append(f"{path}: expected {self.describe()}, got {_kind(v)} {_show(v)}")
        elif self.minimum is not None and v < self.minimum:
            errs.append(f"{path}: {v} is below {self.minimum}")


class Num(Int):
    def describe(self):
        return "a number" + (f" >= {self.minimum}" if self.minimum is not None else "")

    def check(self, v, path, errs):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            errs.append(f"{path}: expected {self.describe()}, got {_kind(v)} {_show(v)}")
        elif self.minimum is not None and v < self.minimum:
            errs.append(f"{path}: {v} is below {self.minimum}")


class Bool(Node):
    def describe(self):
        return "true or false"

    def check(self, v, path, errs):
        if not isinstance(v, bool):
            errs.append(f"{path}: expected {self.describe()}, got {_kind(v)} {_show(v)}")


class Const(Node):
    def __init__(self, value):
        self.value = value

    def describe(self):
        return _show(self.value)

    def check(self, v, path, errs):
        if v != self.value or type(v) is not type(self.value):
            errs.append(f"{path}: expected {self.describe()}, got {_show(v)}")


class Enum(Node):
    def __init__(self, *values):
        self.values = values

    def describe(self):
        return "one of " + ", ".join(self.values)

    def check(self, v, path, errs):
        if v not in self.values:
            errs.append(f"{path}: {_show(v)} is not {self.describe()}")


class Null(Node):
    def describe(self):
        return "null"

    def check(self, v, path, errs):
        if v is not None:
            errs.append(f"{path}: expected null, got {_kind(v)}")


class Nullable(Node):
    def __init__(self, inner: Node):
        self.inner = inner

    def describe(self):
        return f"{self.inner.describe()} or null"

    def check(self, v, path, errs):
        if v is not None:
            self.inner.check(v, path, errs)


class Any(Node):
    def describe(self):
        return "any value"

    def check(self, v, path, errs):
        pass


class List(Node):
    def __init__(self, item: Node, min_items: int = 0):
        self.item = item
        self.min_items = min_items

    def describe(self):
        return "an array"

    def check(self, v, path, errs):
        if not isinstance(v, list):
            errs.append(f"{path}: expected an array, got {_kind(v)} {_show(v)}")
            return
        if len(v) < self.min_items:
            errs.append(f"{path}: needs at least {self.min_items} item(s)")
        for i, x in enumerate(v):
            self.item.check(x, f"{path}[{i}]", errs)


class Map(Node):
    """An object with arbitrary keys, all values of one type."""

    def __init__(self, value: Node):
        self.value = value

    def describe(self):
        return "an object"

    def check(self, v, path, errs):
        if not isinstance(v, dict):
            errs.append(f"{path}: expected an object, got {_kind(v)} {_show(v)}")
            return
        for k, x in v.items():
            self.value.check(x, f"{path}.{k}", errs)


class Obj(Node):
    """An object with required and optional keys; other keys are allowed
    (a newer writer of the same version may add fields)."""

    def __init__(self, required: dict, optional: dict | None = None):
        self.required = required
        self.optional = optional or {}

    def describe(self):
        return "an object"

    def check(self, v, path, errs):
        if not isinstance(v, dict):
            errs.append(f"{path}: expected an object, got {_kind(v)} {_show(v)}")
            return
        for k, node in self.required.items():
            if k not in v:
                errs.append(f"{path}: missing required field '{k}' ({node.describe()})")
            else:
                node.check(v[k], f"{path}.{k}", errs)
        for k, node in self.optional.items():
            if k in v:
                node.check(v[k], f"{path}.{k}", errs)


# ---------------------------------------------------------------- the schema

SHA256 = Str(r"[0-9a-f]{64}", what="a lowercase hex sha256")
CASE_ID = Str(r"[A-Za-z0-9_]+\.[A-Za-z0-9_.]+", what="a case id '<page>.<name>'")
STATE = Enum(*STATES)
PHASES = Map(Num(0))

HALF = Obj(
    {
        "state": STATE,
        "message": Str(),
        "file": Str(),
        "line": Int(0),
        "by_peer": Bool(),
        "host": Str(),
        "output": Str(),
    },
    {
        "duration_ms": Nullable(Num(0)),
        "signal": Nullable(Str()),
        "exit_status": Nullable(Int()),
        "phases": PHASES,
        "reached": STATE,
    },
)

WAIVER = Obj(
    {"id": Str(nonempty=True), "reason": Str(nonempty=True), "expires": Date()},
    {"teardown_crash": Bool()},
)

RESULT = Obj(
    {
        "id": CASE_ID,
        "state": STATE,
        "message": Str(),
        "file": Str(),
        "line": Int(0),
        "duration_ms": Num(0),
        "clauses": List(Str(nonempty=True), min_items=1),
        "page": Str(nonempty=True),
        "area": Str(),
        "output": Str(),
        "signal": Nullable(Str()),
        "hosts": List(Str(), min_items=1),
        "halves": Nullable(Obj({"passive": HALF, "active": HALF})),
        "phases": PHASES,
        "waiver": Nullable(WAIVER),
        "waived": Bool(),
        "waived_but_passing": Bool(),
        "resumed": Bool(),
    },
    {"exit_status": Nullable(Int()), "reached": STATE, "needs": List(Str(nonempty=True))},
)

CASE_REFS = List(Obj({"id": CASE_ID, "page": Str(), "clauses": List(Str())}))

ATTRIBUTES = Obj({"provider": Map(Any()), "ia_attr": Map(Any())})

PROVIDER = Obj(
    {
        "ia": Str(nonempty=True),
        "dat_conf": Str(),
        "dat_conf_line": Nullable(Obj({"number": Int(1), "text": Str()})),
        "library": Nullable(Str()),
        "library_resolved": Nullable(Str()),
        "library_sha256": Nullable(SHA256),
        "instance_data": Nullable(Str()),
        "generated_dat_conf": Bool(),
        "attributes": Nullable(ATTRIBUTES),
        "attributes_error": Nullable(Str()),
    }
)

RUN = Obj(
    {
        "argv": List(Str()),
        "build_dir": Str(),
        "cases_dir": Str(),
        "provider": PROVIDER,
        "jobs": Int(1),
        "timeout_s": Num(0),
        "filters": Map(List(Str())),
        "expectations": Nullable(Str()),
        "resume": Bool(),
        "started": Timestamp(),
        "finished": Nullable(Timestamp()),
        "complete": Bool(),
        "host": Str(),
        "system": Obj({"hostname": Str(), "kernel": Str(), "os": Str(), "machine": Str()}),
        "not_selected": CASE_REFS,
        "not_finished": CASE_REFS,
    }
)

SUMMARY = Obj(
    {
        "selected": Int(0),
        "finished": Int(0),
        "not_run": Int(0),
        "resumed": Int(0),
        "states": Obj({s: Int(0) for s in STATES}),
        "waived": Int(0),
        "waived_but_passing": Int(0),
        "unwaived_failures": Int(0),
    }
)

RESULTS = Obj(
    {
        "schema": Const(RESULTS_SCHEMA),
        "tool": Obj(
            {
                "name": Const("datcts"),
                "version": Str(nonempty=True),
                "git_revision": Nullable(Str(r"[0-9a-f]{7,64}", what="a git revision")),
                "git_dirty": Nullable(Bool()),
            }
        ),
        "run": RUN,
        "summary": SUMMARY,
        "warnings": List(Str()),
        "results": List(RESULT),
    }
)


# ---------------------------------------------------------------- validation


def _consistency(doc: dict, errs: list) -> None:
    results = doc.get("results")
    if not isinstance(results, list):
        return
    seen: dict[str, int] = {}
    counts = {s: 0 for s in STATES}
    waived = passing = unwaived = 0
    for i, r in enumerate(results):
        if not isinstance(r, dict):
            continue
        p = f"results[{i}]"
        rid, st = r.get("id"), r.get("state")
        if isinstance(rid, str):
            if rid in seen:
                errs.append(f"{p}.id: {rid} also at results[{seen[rid]}]")
            seen[rid] = i
            page = r.get("page")
            if isinstance(page, str) and rid.split(".", 1)[0] != page:
                errs.append(f"{p}.page: {page!r} does not match the id {rid!r}")
        if st in counts:
            counts[st] += 1
        w = r.get("waiver")
        if r.get("waived") is True:
            waived += 1
            if not w:
                errs.append(f"{p}.waived: true without a waiver")
            if st not in BAD_STATES:
                errs.append(f"{p}.waived: true but the state is {st} (only "
                            "FAIL, CRASH, TIMEOUT, UNRESOLVED are waived)")
        elif st in BAD_STATES:
            unwaived += 1
            if w:
                errs.append(f"{p}.waived: false but a waiver covers this {st}")
        if r.get("waived_but_passing") is True:
            passing += 1
            if not w or st != "PASS":
                errs.append(f"{p}.waived_but_passing: true needs a waiver and PASS (state {st})")
        if isinstance(w, dict) and isinstance(rid, str):
            if w.get("teardown_crash") is True:
                # a pattern, covering only a CRASH after the case's own result
                if not (isinstance(w.get("id"), str) and fnmatch.fnmatchcase(rid, w["id"])):
                    errs.append(f"{p}.waiver.id: {w.get('id')!r} does not match the case id {rid!r}")
                if st != "CRASH" or not r.get("reached"):
                    errs.append(f"{p}.waiver: a teardown_crash waiver on a {st} "
                                "that did not come after the case's result ('reached')")
            elif w.get("id") != rid:
                errs.append(f"{p}.waiver.id: {w.get('id')!r} is not the case id {rid!r}")
    s = doc.get("summary")
    if isinstance(s, dict):
        st_counts = s.get("states")
        if isinstance(st_counts, dict):
            for k in STATES:
                if isinstance(st_counts.get(k), int) and st_counts[k] != counts[k]:
                    errs.append(f"summary.states.{k}: says {st_counts[k]}, the results have {counts[k]}")
        for key, want in (("finished", len(results)), ("waived", waived),
                          ("waived_but_passing", passing), ("unwaived_failures", unwaived)):
            if isinstance(s.get(key), int) and s[key] != want:
                errs.append(f"summary.{key}: says {s[key]}, the results have {want}")
        if all(isinstance(s.get(k), int) for k in ("selected", "finished", "not_run")):
            if s["selected"] != s["finished"] + s["not_run"]:
                errs.append(f"summary: selected ({s['selected']}) != finished "
                            f"({s['finished']}) + not_run ({s['not_run']})")
    run = doc.get("run")
    if isinstance(run, dict) and isinstance(s, dict) and isinstance(run.get("not_finished"), list) \
            and isinstance(s.get("not_run"), int) and len(run["not_finished"]) != s["not_run"]:
        errs.append(f"run.not_finished: lists {len(run['not_finished'])} case(s), "
                    f"summary.not_run says {s['not_run']}")
    if isinstance(run, dict) and run.get("complete") is True:
        if run.get("finished") is None:
            errs.append("run.complete: true but run.finished is null")
        if isinstance(s, dict) and s.get("not_run"):
            errs.append(f"run.complete: true but summary.not_run is {s['not_run']}")


def validate(doc) -> list[str]:
    """Every problem of a results.json document; [] when it is valid."""
    errs: list[str] = []
    if not isinstance(doc, dict):
        return [f"$: expected an object, got {_kind(doc)}"]
    schema = doc.get("schema")
    if schema != RESULTS_SCHEMA:
        return [f"schema: {_show(schema)} is not a results format this datcts reads "
                f"(it reads {RESULTS_SCHEMA!r})"]
    RESULTS.check(doc, "$", errs)
    errs = [e[2:] if e.startswith("$.") else e for e in errs]
    if not errs:
        _consistency(doc, errs)
    return errs


# ---------------------------------------------------------------- loading


def upgrade_legacy(doc: dict) -> dict:
    """results.json written before the format had a name ("schema": 1,
    without the run metadata) -> datcts-results/1 with the unknown metadata
    null.  Only the documented schema-1 layout is accepted."""
    doc = json.loads(json.dumps(doc))
    doc["schema"] = RESULTS_SCHEMA
    tool = doc.setdefault("tool", {})
    tool.setdefault("git_revision", None)
    tool.setdefault("git_dirty", None)
    run = doc.get("run")
    if isinstance(run, dict):
        prov = run.get("provider")
        if isinstance(prov, dict):
            for k in ("dat_conf_line", "library_resolved", "library_sha256", "attributes"):
                prov.setdefault(k, None)
            prov.setdefault("attributes_error", "not recorded (results from before datcts-results/1)")
        host = run.get("host") or ""
        run.setdefault("system", {"hostname": host, "kernel": "", "os": "", "machine": ""})
        run.setdefault("not_selected", [])
        run.setdefault("not_finished", [])
    doc.setdefault("warnings", []).append(
        "upgraded from the unnamed schema 1: run metadata (library sha256, "
        "attributes, kernel, git revision) was not recorded")
    return doc


def results_path(p: Path) -> Path:
    p = Path(p)
    return p / "results.json" if p.is_dir() else p


def load_results(p, *, check=True) -> dict:
    """Reads results.json (or a run directory holding one) and validates it.
    Raises ReportError naming the file and every problem."""
    path = results_path(Path(p))
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file (pass a run directory or its results.json)")
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: cannot read: {e}")
    except ValueError as e:
        raise ReportError(f"{path}: not JSON: {e}")
    if isinstance(doc, dict) and doc.get("schema") == 1:
        doc = upgrade_legacy(doc)
    if check:
        errs = validate(doc)
        if errs:
            more = f"\n  ... and {len(errs) - 20} more" if len(errs) > 20 else ""
            raise ReportError(f"{path}: not a valid {RESULTS_SCHEMA} document:\n  "
                              + "\n  ".join(errs[:20]) + more)
    return doc
