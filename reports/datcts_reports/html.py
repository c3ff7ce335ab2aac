"""The HTML compliance report: one self-contained file (inline CSS and SVG,
no scripts that run, no external assets), rendered with Jinja2 from
templates/report.html.j2."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path

import jinja2

from datcts_reports import BAD_STATES, STATES, TEMPLATES, VERDICT_SCHEMA, __version__
from datcts_reports.analysis import CHART_KEYS, Analysis

COLORS = {
    "PASS": "#2e7d32",
    "UNSUPPORTED": "#7d8f99",
    "WAIVED": "#7e57c2",
    "UNRESOLVED": "#e0a100",
    "FAIL": "#d32f2f",
    "TIMEOUT": "#ef6c00",
    "CRASH": "#7f0000",
    "NOT DEMONSTRATED": "#b8a07a",
    "CONTESTED": "#5c6bc0",
    "NOT RUN": "#c9d1d6",
    "NO CASE": "url(#hatch)",
}
# the banner colours of the three verdicts (as the CSS of .verdict)
VERDICT_COLORS = {"conformant": "#2e7d32", "not-conformant": "#c62828", "incomplete": "#b07800"}
STATUS_LABEL = {
    "pass": "PASS",
    "fail": "FAIL",
    "waived": "WAIVED",
    "unsupported": "UNSUPPORTED",
    "not-run": "NOT RUN",
    "no-case": "NO CASE",
    "not-demonstrated": "NOT DEMONSTRATED",
    "contested": "CONTESTED",
}
STATUS_KEY = {"pass": "PASS", "fail": "FAIL", "waived": "WAIVED", "unsupported": "UNSUPPORTED",
              "not-run": "NOT RUN", "no-case": "NO CASE", "not-demonstrated": "NOT DEMONSTRATED",
              "contested": "CONTESTED"}


def _css_class(key: str) -> str:
    return "s-" + key.lower().replace(" ", "-")


def _ms(v) -> str:
    if v is None:
        return ""
    v = float(v)
    if v >= 10000:
        return f"{v / 1000:.1f} s"
    if v >= 1000:
        return f"{v / 1000:.2f} s"
    return f"{v:.0f} ms" if v >= 10 else f"{v:.1f} ms"


def _when(ts) -> str:
    if not ts:
        return "—"
    try:
        t = dt.datetime.fromisoformat(ts)
    except ValueError:
        return ts
    return t.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def _elapsed(a, b) -> str:
    try:
        s = (dt.datetime.fromisoformat(b) - dt.datetime.fromisoformat(a)).total_seconds()
    except (TypeError, ValueError):
        return ""
    s = int(s)
    return f"{s // 3600}h {s // 60 % 60:02d}m {s % 60:02d}s" if s >= 3600 else \
        f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s}s"


# ---------------------------------------------------------------- the chart

CHART = {"width": 1100, "label_w": 250, "right_w": 190, "row_h": 22, "bar_h": 14, "top": 8}


def chart_rows(analysis: Analysis) -> dict:
    pages = [pv for pv in analysis.pages if pv.clauses]
    maxn = max((len(pv.clauses) for pv in pages), default=1)
    span = CHART["width"] - CHART["label_w"] - CHART["right_w"]
    rows = []
    for i, pv in enumerate(pages):
        y = CHART["top"] + i * CHART["row_h"]
        x = float(CHART["label_w"])
        segs = []
        counts = pv.chart()
        for k in CHART_KEYS:
            n = counts[k]
            if not n:
                continue
            w = span * n / maxn
            segs.append({"key": k, "n": n, "x": round(x, 2), "w": round(w, 2),
                         "fill": COLORS[k], "cls": _css_class(k)})
            x += w
        ok = counts["PASS"] + counts["UNSUPPORTED"] + counts["WAIVED"]
        bad = sum(counts[k] for k in ("UNRESOLVED", "FAIL", "TIMEOUT", "CRASH"))
        note = f"{ok}/{len(pv.clauses)} hold"
        if bad:
            note += f" · {bad} fail"
        gaps = counts["NO CASE"]
        if gaps:
            note += f" · {gaps} no case"
        rows.append({"page": pv.page, "anchor": pv.anchor, "y": y, "segs": segs,
                     "note": note, "bad": bool(bad), "end": round(x, 2),
                     "text_y": y + CHART["bar_h"] - 3})
    height = CHART["top"] * 2 + len(rows) * CHART["row_h"]
    ticks = []
    step = 5 if maxn <= 40 else 10
    for n in range(0, maxn + 1, step):
        ticks.append({"n": n, "x": round(CHART["label_w"] + span * n / maxn, 2)})
    return {"rows": rows, "height": height, "width": CHART["width"], "ticks": ticks,
            "bar_h": CHART["bar_h"], "label_x": CHART["label_w"] - 10, "max": maxn}


def bar(counts: dict, keys=CHART_KEYS, width=100.0) -> list:
    """Segments of a stacked bar in percent (for the small per-page bars)."""
    total = sum(counts.get(k, 0) for k in keys) or 1
    out, x = [], 0.0
    for k in keys:
        n = counts.get(k, 0)
        if n:
            w = width * n / total
            out.append({"key": k, "n": n, "x": round(x, 3), "w": round(w, 3),
                        "fill": COLORS[k], "cls": _css_class(k)})
            x += w
    return out


# ---------------------------------------------------------------- rendering


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """The compiled templates, kept between runs (compiling them took most of
    the time of a report): $XDG_CACHE_HOME/datcts/jinja, else
    ~/.cache/datcts/jinja.  Each entry is checked against the template's
    source, so an edited template is compiled again.  None when the folder
    cannot be made (the report is then only slower)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    d = os.path.join(base, "datcts", "jinja")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:
        return None
    if not os.access(d, os.W_OK):
        return None
    return jinja2.FileSystemBytecodeCache(d)


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        bytecode_cache=_bytecode_cache(),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["ms"] = _ms
    env.filters["when"] = _when
    env.filters["cls"] = _css_class
    env.filters["status_label"] = STATUS_LABEL.get
    env.filters["status_key"] = STATUS_KEY.get
    return env


def _json_for_script(obj) -> str:
    # Safe inside <script type="application/json">: no "</" can close it.
    # No indent: json's C encoder (an indent selects the pure-Python one).
    return json.dumps(obj, ensure_ascii=False).replace("</", "<\\/")


MUTANTS_SCHEMA = "datcts-mutants/1"


def _json_next_to(results_path, name: str, schema: str) -> dict | None:
    """The document NAME next to results.json if it is readable and of SCHEMA."""
    if not results_path:
        return None
    try:
        doc = json.loads((Path(results_path).parent / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("schema") == schema else None


def mutants_next_to(results_path) -> dict | None:
    """The kill matrix `datcts mutate` wrote next to results.json
    (docs/mutants.md), shaped for the report's mutation section; None when
    there is none or it is unreadable."""
    doc = _json_next_to(results_path, "mutants.json", MUTANTS_SCHEMA)
    if doc is None:
        return None
    order = {"survived": 0, "no-case": 1, "killed-other": 2, "killed": 3}
    muts = sorted(doc.get("mutants") or [],
                  key=lambda m: (order.get(m.get("status"), 9), m.get("id", "")))
    return {"summary": doc.get("summary") or {}, "run": doc.get("run") or {},
            "mutants": muts,
            "not_killed": [m for m in muts if m.get("status") != "killed"],
            "unproven": doc.get("clauses_unproven") or [],
            "subjects": doc.get("subjects") or {}}


GENERATED_MUTANTS_SCHEMA = "datcts-generated-mutants/1"


def generated_mutants_next_to(results_path) -> dict | None:
    """The generated-mutant run (`datcts mutate --generated`, docs/mutants.md
    "Generated mutants") next to results.json, shaped for the report: files
    and functions with their counts and scores, survivors first with their
    triage, the not-reached lines per function; None when there is none."""
    doc = _json_next_to(results_path, "generated-mutants.json", GENERATED_MUTANTS_SCHEMA)
    if doc is None:
        return None
    muts = doc.get("mutants") or []
    files = []
    for rel, f in sorted((doc.get("files") or {}).items()):
        fns = [{"name": name, "counts": fn.get("counts") or {}, "score": fn.get("score")}
               for name, fn in sorted((f.get("functions") or {}).items())]
        files.append({"file": rel, "counts": f.get("counts") or {}, "score": f.get("score"),
                      "excluded": f.get("excluded", 0), "functions": fns,
                      "not_reached": [fn for fn in fns if fn["counts"].get("not-reached")]})
    survivors = sorted((m for m in muts if m.get("status") == "survived"),
                       key=lambda m: (bool(m.get("triage")), m.get("id", "")))
    return {"summary": doc.get("summary") or {}, "run": doc.get("run") or {},
            "files": files, "survivors": survivors,
            "untriaged": doc.get("untriaged_survivors") or [],
            "stale": doc.get("stale_triages") or []}


def render(analysis: Analysis, *, results_sha256: str | None = None,
           generated: str | None = None, mutants: dict | None = None,
           generated_mutants: dict | None = None) -> str:
    doc = analysis.doc
    if doc is None:
        raise ValueError("a report needs results")
    verdict = analysis.verdict(VERDICT_SCHEMA)
    run = doc["run"]
    prov = run["provider"]
    summary = doc["summary"]
    attrs = prov.get("attributes") or {}
    pname = (attrs.get("provider") or {}).get("provider_name") or ""
    pver = ""
    if attrs.get("provider"):
        p = attrs["provider"]
        pver = f"{p.get('provider_version_major', '?')}.{p.get('provider_version_minor', '?')}"
    sys_ = run.get("system") or {}
    attention = analysis.attention()
    waivers = [r for r in doc["results"] if r.get("waiver")]
    coverage = analysis.coverage()
    shall = verdict["shall"]["by_status"]
    reg = (verdict.get("subjects") or {}).get("registry")  # none in datcts-verdict/1
    shall_bar = bar({"PASS": shall["pass"], "WAIVED": shall["waived"],
                     "UNSUPPORTED": shall["unsupported"], "FAIL": shall["fail"],
                     "NOT DEMONSTRATED": shall["not_demonstrated"],
                     "CONTESTED": shall.get("contested", 0),
                     "NOT RUN": shall["not_run"], "NO CASE": shall["no_case"]})
    tool = doc["tool"]
    ctx = {
        "doc": doc,
        "run": run,
        "prov": prov,
        "dat": run.get("dat") or {"api": "1.2", "registry": None},
        "provider_name": pname,
        "provider_version": pver,
        "system": sys_,
        "tool": tool,
        "summary": summary,
        "states": STATES,
        "bad_states": BAD_STATES,
        "verdict": verdict,
        "reg": reg,
        "reg_recorded": analysis.registry_identity()["recorded"],
        "reg_color": VERDICT_COLORS[reg["verdict"]] if reg else None,
        "verdict_json": _json_for_script(verdict),
        "shall_bar": shall_bar,
        "chart": chart_rows(analysis),
        "colors": COLORS,
        "legend": [(k, COLORS[k]) for k in CHART_KEYS],
        "pages": analysis.pages,
        "attention": attention,
        "waivers": waivers,
        "coverage": coverage,
        "unknown_refs": analysis.unknown_refs,
        "elapsed": _elapsed(run.get("started"), run.get("finished")),
        "results_sha256": results_sha256,
        "catalog_sha256": analysis.catalog.sha256(),
        "catalog_origin": analysis.catalog.origin,
        "generated": generated or dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "reports_version": __version__,
        "bar": bar,
        "levels": ("shall", "should", "may", "qoi"),
        "mutants": mutants,
        "generated_mutants": generated_mutants,
        "run_library_sha256": prov.get("library_sha256"),
    }
    return _env().get_template("report.html.j2").render(**ctx)


def write_report(analysis: Analysis, out: Path, results_path: Path | None = None) -> Path:
    sha = None
    if results_path and Path(results_path).is_file():
        sha = hashlib.sha256(Path(results_path).read_bytes()).hexdigest()
    html = render(analysis, results_sha256=sha, mutants=mutants_next_to(results_path),
                  generated_mutants=generated_mutants_next_to(results_path))
    out = Path(out)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(out)
    return out
