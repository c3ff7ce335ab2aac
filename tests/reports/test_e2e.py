"""End to end through bin/datcts on the real build: run -> report.html with
the run metadata, then report, coverage, diff, bundle and verify."""

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from datcts_reports.schema import validate

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DATCTS_TEST_BUILD_ROOT", "/nonexistent"))
DATCTS = REPO / "bin" / "datcts"

pytestmark = pytest.mark.skipif(
    not (BUILD / "cases" / "datcts-cases-srq").is_file() or not (BUILD / "bin" / "datcts-probe").is_file(),
    reason="needs a built tree with the srq cases and datcts-probe (DATCTS_TEST_BUILD_ROOT, set by ctest)")


def datcts(*args, cwd=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DAT_OVERRIDE", "DATCTS_IA", "PYTHONPATH")}
    return subprocess.run([str(DATCTS), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("e2e") / "run1"
    p = datcts("run", "--build-dir", BUILD, "--page", "dat_srq_resize", "--out", out, "-j2", "-q")
    return p, out


def test_run_ends_with_the_report(run):
    p, out = run
    assert p.returncode in (0, 1), p.stderr
    last = p.stderr.splitlines()[-1]
    assert last == f"datcts: HTML report: {out / 'report.html'}"
    assert "datcts: verdict INCOMPLETE" in p.stderr   # one page of many
    html = (out / "report.html").read_text()
    assert '<meta name="datcts-verdict" content="incomplete">' in html
    assert json.loads((out / "verdict.json").read_text())["verdict"] == "incomplete"


def test_run_records_the_metadata(run):
    p, out = run
    doc = json.loads((out / "results.json").read_text())
    assert validate(doc) == []
    assert doc["schema"] == "datcts-results/1"
    prov = doc["run"]["provider"]
    assert prov["ia"] == "ref-sock"
    lib = Path(prov["library_resolved"])
    assert prov["library_sha256"] == hashlib.sha256(lib.read_bytes()).hexdigest()
    assert prov["dat_conf_line"]["text"].startswith("ref-sock ")
    assert prov["attributes"]["provider"]["srq_supported"] is True
    assert prov["attributes_error"] is None
    assert doc["run"]["system"]["kernel"]
    assert doc["run"]["not_selected"] and all(
        not c["id"].startswith("dat_srq_resize.") for c in doc["run"]["not_selected"])
    assert {r["page"] for r in doc["results"]} == {"dat_srq_resize"}


def test_report_coverage_diff_bundle_verify(run, tmp_path):
    p, out = run
    r = datcts("report", out, "-o", tmp_path / "r.html")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "r.html").is_file() and (tmp_path / "verdict.json").is_file()
    c = datcts("coverage", "--build-dir", BUILD, "--page", "dat_srq_*", "--json")
    assert c.returncode == 0, c.stderr
    cov = json.loads(c.stdout)
    assert {pg["page"] for pg in cov["pages"]} >= {"dat_srq_resize", "dat_srq_create"}
    d = datcts("diff", out, out)
    assert d.returncode == 0 and "REGRESSIONS (0)" in d.stdout, d.stdout + d.stderr
    b = datcts("bundle", out, "-o", tmp_path)
    assert b.returncode == 0, b.stderr
    bundle = Path(b.stdout.strip())
    assert bundle.parent == tmp_path and bundle.name.startswith("datcts-bundle-ref-sock-")
    v = datcts("verify", bundle)
    assert v.returncode == 0, v.stderr
    assert "OK" in v.stdout
