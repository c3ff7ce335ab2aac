"""datcts-probe (the provider fingerprint), run metadata, and JUnit output."""

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from datcts_reports import runmeta
from datcts_reports.junit import junit_xml

from helpers import make_doc, ref_doc, result

BUILD = Path(os.environ.get("DATCTS_TEST_BUILD_ROOT", "/nonexistent"))
PROBE = BUILD / "bin" / "datcts-probe"
needs_build = pytest.mark.skipif(not PROBE.is_file() or not (BUILD / "dat.conf").is_file(),
                                 reason="needs a build tree (DATCTS_TEST_BUILD_ROOT, set by ctest)")


def _env():
    return dict(os.environ, DAT_OVERRIDE=str(BUILD / "dat.conf"))


@needs_build
def test_probe_reports_the_attributes():
    ia = runmeta.dat_conf_line(BUILD / "dat.conf", "ref-sock")
    assert ia and ia["text"].startswith("ref-sock ")
    p = subprocess.run([str(PROBE), "--ia", "ref-sock"], capture_output=True, text=True,
                       env=_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["ia"] == "ref-sock"
    assert doc["provider"]["provider_name"]
    assert doc["provider"]["srq_supported"] is True
    assert doc["provider"]["dapl_version_major"] == 1 and doc["provider"]["dapl_version_minor"] == 2
    assert len(doc["provider"]["evd_stream_merging_supported"]) == 6
    assert doc["ia_attr"]["max_eps"] > 0
    assert isinstance(doc["ia_attr"]["transport_attr"], dict)


@needs_build
def test_probe_unknown_ia_is_a_clear_error():
    p = subprocess.run([str(PROBE), "--ia", "no-such-ia"], capture_output=True, text=True,
                       env=_env(), timeout=60)
    assert p.returncode == 1
    err = json.loads(p.stdout)["error"]
    assert err.startswith("dat_ia_open returned DAT_PROVIDER_NOT_FOUND"), err


@needs_build
def test_provider_fields():
    prov = {"ia": "ref-sock", "dat_conf": str(BUILD / "dat.conf"),
            "library": str(BUILD / "lib" / "libdaplref.so"), "instance_data": "",
            "generated_dat_conf": False}
    f = runmeta.provider_fields(prov, _env(), BUILD)
    assert f["dat_conf_line"]["number"] >= 1
    assert len(f["library_sha256"]) == 64
    assert Path(f["library_resolved"]).is_file()
    assert f["attributes"]["provider"]["provider_name"] and f["attributes_error"] is None


def test_provider_fields_without_probe(tmp_path):
    conf = tmp_path / "dat.conf"
    conf.write_text("# c\nbad line\nx u1.2 nonthreadsafe default /nope/lib.so v \"\" \"\"\n")
    f = runmeta.provider_fields({"ia": "x", "dat_conf": str(conf), "library": "/nope/lib.so"},
                                dict(os.environ, PATH="/nonexistent"), tmp_path)
    assert f["dat_conf_line"] == {"number": 3, "text": 'x u1.2 nonthreadsafe default /nope/lib.so v "" ""'}
    assert f["library_sha256"] is None and f["attributes"] is None
    assert "datcts-probe not found" in f["attributes_error"]


def test_system_and_git():
    s = runmeta.system()
    assert s["kernel"] and s["hostname"]
    rev, dirty = runmeta.git_revision()
    assert rev is None or len(rev) == 40


def test_junit_from_results():
    doc = make_doc([result("dat_ep_free.frees"), result("dat_ep_free.invalid_handle", "FAIL"),
                    result("dat_cr_query.x", "UNRESOLVED"), result("dat_cr_query.y", "UNSUPPORTED"),
                    result("dat_cr_query.z", "CRASH", waiver="bug 1")])
    root = ET.fromstring(junit_xml(doc))
    suite = root.find("testsuite")
    assert suite.get("tests") == "5" and suite.get("failures") == "1"
    assert suite.get("errors") == "1" and suite.get("skipped") == "2"
    tc = {t.get("name"): t for t in suite.iter("testcase")}
    assert tc["dat_ep_free.invalid_handle"].find("failure") is not None
    assert tc["dat_cr_query.z"].find("skipped").get("type") == "pytest.xfail"
    props = {p.get("name"): p.get("value") for p in tc["dat_ep_free.frees"].iter("property")}
    assert props["clauses"] == "dat_ep_free.frees" and props["state"] == "PASS"


def test_junit_realistic():
    root = ET.fromstring(junit_xml(ref_doc()))
    assert len(list(root.iter("testcase"))) == 511
