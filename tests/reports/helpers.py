"""Builders for small, exact report inputs (the realistic ones are in data/)."""

import copy
import json
from pathlib import Path

from datcts_reports import BAD_STATES, RESULTS_SCHEMA, STATES
from datcts_reports.catalog import load_dir

DATA = Path(__file__).resolve().parent / "data"

# page -> [(slug, level, gates[, subject])]
SMALL_CATALOG = {
    "dat_srq_resize": [("grows", "shall", ["srq_supported"]),
                       ("below_low_watermark", "shall", ["srq_supported"]),
                       ("no_message_lost", "should", ["srq_supported"])],
    "dat_ep_free": [("frees", "shall", []),
                    ("invalid_handle", "shall", []),
                    ("connected_refused", "may", [])],
    "dat_cr_query": [("reports_params", "shall", []),
                     ("invalid_handle", "shall", [])],
}


def write_catalog(dirpath: Path, pages=None) -> Path:
    dirpath.mkdir(parents=True, exist_ok=True)
    for page, clauses in (pages or SMALL_CATALOG).items():
        lines = [f'page = "{page}"', f'title = "our paraphrase of {page}"', 'source = "man3dat"', ""]
        for slug, level, gates, *subject in clauses:
            lines += ["[[clause]]", f'id = "{page}.{slug}"', 'section = "DESCRIPTION"',
                      f'level = "{level}"', f'text = "What {slug} requires, in our words."',
                      f'expect = "the check for {slug}"']
            if subject:
                lines.append(f'subject = "{subject[0]}"')
            if gates:
                lines.append("gates = [" + ", ".join(f'"{g}"' for g in gates) + "]")
            lines.append("")
        (dirpath / f"{page}.toml").write_text("\n".join(lines))
    return dirpath


def small_catalog(tmp_path: Path, pages=None):
    return load_dir(write_catalog(tmp_path / "clauses", pages))


def result(cid: str, state: str = "PASS", *, message=None, waiver=None, duration_ms=5.0,
           clauses=None, output="", hosts=("local",)) -> dict:
    page = cid.split(".", 1)[0]
    r = {
        "id": cid, "state": state,
        "message": message if message is not None else ("" if state == "PASS" else f"{state} here"),
        "file": f"cases/x/{page}.c", "line": 10, "duration_ms": duration_ms,
        "clauses": list(clauses or [cid]), "page": page, "area": "x", "output": output,
        "signal": "SIGSEGV" if state == "CRASH" else None, "hosts": list(hosts), "halves": None,
        "phases": {"ia_open_ms": 0.3, "body_ms": 1.0}, "waiver": None, "waived": False,
        "waived_but_passing": False, "resumed": False,
    }
    if waiver:
        r["waiver"] = {"id": cid, "reason": waiver, "expires": "2099-01-01"}
        r["waived"] = state in BAD_STATES
        r["waived_but_passing"] = state == "PASS"
    return r


def fix_summary(doc: dict) -> dict:
    """Recomputes the summary from the results (keeps summary.not_run)."""
    rs = doc["results"]
    not_run = (doc.get("summary") or {}).get("not_run", 0)
    st = {s: 0 for s in STATES}
    for r in rs:
        st[r["state"]] += 1
    doc["summary"] = {
        "selected": len(rs) + not_run, "finished": len(rs), "not_run": not_run,
        "resumed": sum(r["resumed"] for r in rs), "states": st,
        "waived": sum(r["waived"] for r in rs),
        "waived_but_passing": sum(r["waived_but_passing"] for r in rs),
        "unwaived_failures": sum(1 for r in rs if r["state"] in BAD_STATES and not r["waived"]),
    }
    return doc


def make_doc(results, *, complete=True, not_selected=()) -> dict:
    doc = {
        "schema": RESULTS_SCHEMA,
        "tool": {"name": "datcts", "version": "0.1.0", "git_revision": "0123456789abcdef",
                 "git_dirty": False},
        "run": {
            "argv": ["run"], "build_dir": "/b", "cases_dir": "/b/cases",
            "provider": {"ia": "ref-sock", "dat_conf": "/b/dat.conf",
                         "dat_conf_line": {"number": 3, "text": "ref-sock u1.2 ..."},
                         "library": "/b/lib/libdaplref.so", "library_resolved": "/b/lib/libdaplref.so.1",
                         "library_sha256": "ab" * 32, "instance_data": "sock:127.0.0.1",
                         "generated_dat_conf": False,
                         "attributes": {"provider": {"provider_name": "test provider",
                                                     "provider_version_major": 1,
                                                     "provider_version_minor": 2,
                                                     "srq_supported": True},
                                        "ia_attr": {"max_eps": 64}},
                         "attributes_error": None},
            "jobs": 2, "timeout_s": 30.0,
            "filters": {"area": [], "page": [], "clause": [], "k": []},
            "expectations": None, "resume": False,
            "started": "2026-11-21T08:00:00+00:00",
            "finished": "2026-11-21T08:01:00+00:00" if complete else None,
            "complete": complete, "host": "vm",
            "system": {"hostname": "vm", "kernel": "Linux 6.1", "os": "Debian GNU/Linux 12",
                       "machine": "x86_64"},
            "not_selected": [{"id": c, "page": c.split(".")[0], "clauses": [c]} for c in not_selected],
            "not_finished": [],
        },
        "warnings": [],
        "results": list(results),
    }
    return fix_summary(doc)


def all_passing() -> list:
    """Every clause of SMALL_CATALOG checked and passing."""
    return [result(f"{p}.{slug}") for p, cl in SMALL_CATALOG.items() for slug, _, _ in cl]


def ref_doc() -> dict:
    return json.loads((DATA / "ref-run.json").read_text())


def clone(doc):
    return copy.deepcopy(doc)


def save(doc, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1))
    return path
