"""JUnit XML from results.json, for results that lack the runner's
junit.xml (e.g. a results.json brought from elsewhere into a bundle).
The layout matches the runner's (docs/results-format.md, "JUnit")."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import OrderedDict


def _text(r: dict) -> str:
    lines = [f"{r['state']}: {r['message']}".rstrip(), f"at {r['file']}:{r['line']}"]
    if r.get("signal"):
        lines.append(f"signal: {r['signal']}")
    out = (r.get("output") or "").rstrip()
    if out:
        lines += ["--- output ---", out[-4000:]]
    return "\n".join(lines)


def junit_xml(doc: dict) -> bytes:
    suites = ET.Element("testsuites")
    by_area: "OrderedDict[str, list]" = OrderedDict()
    for r in doc["results"]:
        by_area.setdefault(r.get("area") or "cases", []).append(r)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    suite = ET.SubElement(suites, "testsuite", name="datcts")
    for area, rs in by_area.items():
        for r in rs:
            t = r["duration_ms"] / 1000.0
            tc = ET.SubElement(suite, "testcase", classname=f"datcts.{area}", name=r["id"],
                               file=r["file"], line=str(r["line"]), time=f"{t:.3f}")
            props = ET.SubElement(tc, "properties")
            for k, v in (("state", r["state"]), ("clauses", " ".join(r["clauses"])),
                         ("page", r["page"]), ("duration_ms", f"{r['duration_ms']:.3f}")):
                ET.SubElement(props, "property", name=k, value=v)
            total["tests"] += 1
            total["time"] += t
            if r.get("waived"):
                ET.SubElement(props, "property", name="waived", value=r["waiver"]["reason"])
                ET.SubElement(tc, "skipped", type="pytest.xfail",
                              message=f"waived ({r['waiver']['reason']}): {r['state']}").text = _text(r)
                total["skipped"] += 1
            elif r["state"] == "PASS":
                if r.get("waived_but_passing"):
                    ET.SubElement(props, "property", name="waived_but_passing", value="true")
            elif r["state"] == "UNSUPPORTED":
                ET.SubElement(tc, "skipped", message=r["message"] or "unsupported")
                total["skipped"] += 1
            elif r["state"] == "UNRESOLVED":
                ET.SubElement(tc, "error", message=r["message"]).text = _text(r)
                total["errors"] += 1
            else:
                ET.SubElement(tc, "failure", message=r["message"] or r["state"]).text = _text(r)
                total["failures"] += 1
    for k, v in total.items():
        suite.set(k, f"{v:.3f}" if k == "time" else str(v))
    ET.indent(suites)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="utf-8")
