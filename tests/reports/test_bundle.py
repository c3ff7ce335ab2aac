"""datcts bundle / datcts verify: round trip, and tampering caught with a reason."""

import hashlib
import io
import json
import subprocess
import sys
import tarfile

import pytest

from datcts_reports.bundle import build, verify

from conftest import reports_env
from helpers import DATA, ref_doc, save

CATALOG = DATA / "ref-catalog.json"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("bundle")
    d = tmp_path / "run"
    doc = ref_doc()
    conf = tmp_path / "dat.conf"
    conf.write_text(doc["run"]["provider"]["dat_conf_line"]["text"] + "\n")
    doc["run"]["provider"]["dat_conf"] = str(conf)
    save(doc, d / "results.json")
    (d / "results.jsonl").write_text("\n".join(json.dumps(r) for r in doc["results"]) + "\n")
    return d


@pytest.fixture(scope="module")
def bundle(run_dir):
    path, msha, v = build(run_dir, run_dir.parent / "b.tar.gz", CATALOG)
    return path


def members(path) -> dict:
    with tarfile.open(path) as t:
        return {m.name: (m, t.extractfile(m).read() if m.isfile() else None) for m in t}


def rewrite(src, dst, change):
    """Copies a bundle, letting change(name, bytes) -> bytes|None (None drops)."""
    with tarfile.open(src) as t, tarfile.open(dst, "w:gz") as out:
        for m in t:
            data = t.extractfile(m).read() if m.isfile() else None
            new = change(m.name, data) if data is not None else data
            if data is not None and new is None:
                continue
            if data is not None:
                m.size = len(new)
                out.addfile(m, io.BytesIO(new))
            else:
                out.addfile(m)
    return dst


def fix_manifest(name, data, files):
    """After changing files, a careful forger recomputes their manifest entries."""
    if name.endswith("/manifest.json"):
        m = json.loads(data)
        for e in m["files"]:
            if e["path"] in files:
                e["sha256"] = hashlib.sha256(files[e["path"]]).hexdigest()
                e["size"] = len(files[e["path"]])
        return json.dumps(m).encode()
    return data


def test_round_trip(bundle):
    v = verify(bundle)
    assert v.ok, v.problems
    assert v.verdict["verdict"] == "not-conformant"
    names = {n.split("/", 1)[1] for n in members(bundle) if "/" in n}
    for f in ("manifest.json", "results.json", "results.jsonl", "junit.xml", "report.html",
              "verdict.json", "catalog.json", "provider.json", "dat.conf"):
        assert f in names, f
    assert any(n.startswith("logs/") for n in names)
    top = {n.split("/")[0] for n in members(bundle)}
    assert top == {"datcts-bundle-ref-sock-20261121T083507Z"}


def test_manifest_hashes_every_file(bundle):
    ms = members(bundle)
    man = json.loads(next(d for n, (m, d) in ms.items() if n.endswith("/manifest.json")))
    listed = {e["path"]: e["sha256"] for e in man["files"]}
    for n, (m, d) in ms.items():
        rel = n.split("/", 1)[1]
        if rel != "manifest.json":
            assert listed[rel] == hashlib.sha256(d).hexdigest()
    prov = json.loads(ms[next(n for n in ms if n.endswith("/provider.json"))][1])
    assert prov["library_sha256"] == ref_doc()["run"]["provider"]["library_sha256"]
    assert prov["attributes"]["provider"]["provider_name"]


def test_tampered_file_fails_naming_it(bundle, tmp_path):
    bad = rewrite(bundle, tmp_path / "bad.tar.gz",
                  lambda n, d: d.replace(b"NOT CONFORMANT", b"CONFORMANT")
                  if n.endswith("/report.html") else d)
    v = verify(bad)
    assert not v.ok
    assert v.problems[0].startswith("report.html: sha256 mismatch: the manifest records ")
    assert "changed after bundling" in v.problems[0]


def test_missing_and_extra_files(bundle, tmp_path):
    bad = rewrite(bundle, tmp_path / "bad.tar.gz",
                  lambda n, d: None if n.endswith("/junit.xml") else d)
    assert verify(bad).problems == ["junit.xml: listed in the manifest but missing from the bundle"]
    with tarfile.open(bundle) as t, tarfile.open(tmp_path / "extra.tar.gz", "w:gz") as out:
        top = None
        for m in t:
            top = m.name.split("/")[0]
            out.addfile(m, t.extractfile(m) if m.isfile() else None)
        ti = tarfile.TarInfo(f"{top}/logs/extra.log")
        ti.size = 3
        out.addfile(ti, io.BytesIO(b"hi\n"))
    assert verify(tmp_path / "extra.tar.gz").problems == [
        "logs/extra.log: in the bundle but not in the manifest (added after bundling)"]


def test_tampered_verdict_in_manifest_fails(bundle, tmp_path):
    def change(n, d):
        if n.endswith("/manifest.json"):
            m = json.loads(d)
            m["verdict"]["verdict"], m["verdict"]["label"] = "conformant", "CONFORMANT"
            return json.dumps(m).encode()
        return d
    v = verify(rewrite(bundle, tmp_path / "bad.tar.gz", change))
    assert not v.ok
    assert v.problems[0].startswith("verdict: the manifest records 'CONFORMANT', but results.json "
                                    "with catalog.json gives 'NOT CONFORMANT'")


def test_tampered_results_with_fixed_hashes_fail_on_the_verdict(bundle, tmp_path):
    """A forger flips the failures to PASS in results.json (and its summary)
    and recomputes the hashes: the recorded verdict no longer follows."""
    ms = members(bundle)
    rname = next(n for n in ms if n.endswith("/results.json"))
    doc = json.loads(ms[rname][1])
    for r in doc["results"]:
        if r["state"] not in ("PASS", "UNSUPPORTED") and not r["waived"]:
            r.update(state="PASS", message="")
    from helpers import fix_summary
    fix_summary(doc)
    files = {"results.json": json.dumps(doc).encode()}
    bad = rewrite(bundle, tmp_path / "bad.tar.gz",
                  lambda n, d: files["results.json"] if n == rname else fix_manifest(n, d, files))
    v = verify(bad)
    assert not v.ok
    assert any(p.startswith("verdict: the manifest records 'NOT CONFORMANT', but results.json with "
                            "catalog.json gives 'INCOMPLETE'") for p in v.problems), v.problems


def test_tampered_verdict_json_with_fixed_hash(bundle, tmp_path):
    ms = members(bundle)
    vname = next(n for n in ms if n.endswith("/verdict.json"))
    vj = json.loads(ms[vname][1])
    vj["shall"]["fails"] -= 1
    files = {"verdict.json": json.dumps(vj).encode()}
    bad = rewrite(bundle, tmp_path / "bad.tar.gz",
                  lambda n, d: files["verdict.json"] if n == vname else fix_manifest(n, d, files))
    v = verify(bad)
    assert v.problems == ["verdict.json: differs from the verdict results.json with catalog.json "
                          "gives, first at shall.fails: 8 vs 9"]


def test_invalid_results_in_bundle(bundle, tmp_path):
    ms = members(bundle)
    rname = next(n for n in ms if n.endswith("/results.json"))
    doc = json.loads(ms[rname][1])
    doc["results"][0]["state"] = "GREAT"
    files = {"results.json": json.dumps(doc).encode()}
    bad = rewrite(bundle, tmp_path / "bad.tar.gz",
                  lambda n, d: files["results.json"] if n == rname else fix_manifest(n, d, files))
    p = verify(bad).problems
    assert len(p) == 1 and p[0].startswith("results.json: not a valid datcts-results/1 document: "
                                           "results[0].state: \"GREAT\" is not one of")


def test_not_a_bundle(tmp_path):
    f = tmp_path / "x.tar.gz"
    f.write_bytes(b"hello")
    assert "not a readable tar.gz archive" in verify(f).problems[0]
    assert verify(tmp_path / "nope.tar.gz").problems == [f"{tmp_path / 'nope.tar.gz'}: no such file"]


def test_unsafe_member(tmp_path):
    f = tmp_path / "evil.tar.gz"
    with tarfile.open(f, "w:gz") as t:
        ti = tarfile.TarInfo("../etc/x")
        ti.size = 1
        t.addfile(ti, io.BytesIO(b"x"))
    assert verify(f).problems == ["../etc/x: unsafe path in the archive"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "datcts_reports", *map(str, args)],
                          capture_output=True, text=True, env=reports_env())


def test_cli(run_dir, tmp_path):
    p = _cli("bundle", run_dir, "--catalog", CATALOG)
    assert p.returncode == 0, p.stderr
    path = p.stdout.strip()
    assert path.endswith(".tar.gz") and path.startswith(str(run_dir))
    msha = next(l for l in p.stderr.splitlines() if "manifest sha256" in l).split()[3]
    p = _cli("verify", path, "--manifest-sha256", msha)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("datcts verify: OK: ")
    assert "NOT CONFORMANT" in p.stdout
    p = _cli("verify", path, "--manifest-sha256", "0" * 64)
    assert p.returncode == 1 and "not the expected" in p.stderr
    bad = rewrite(path, tmp_path / "bad.tar.gz",
                  lambda n, d: d + b" " if n.endswith("/dat.conf") else d)
    p = _cli("verify", bad)
    assert p.returncode == 1
    assert "FAILED" in p.stderr and "dat.conf: sha256 mismatch" in p.stderr


def test_a_run_still_going_is_not_bundled(tmp_path):
    from datcts_reports import ReportError
    doc = ref_doc()
    doc["run"]["finished"], doc["run"]["complete"] = None, False
    save(doc, tmp_path / "run" / "results.json")
    with pytest.raises(ReportError, match="the run is still going"):
        build(tmp_path / "run", tmp_path / "b.tar.gz", CATALOG)


def test_a_v1_bundle_still_verifies(run_dir, tmp_path, monkeypatch):
    """Bundles made before datcts-verdict/2 carry one verdict over every
    clause; verify re-derives it by those rules."""
    from datcts_reports.analysis import Analysis

    real = Analysis.verdict
    monkeypatch.setattr(Analysis, "verdict", lambda self, schema="datcts-verdict/1": real(self, schema))
    path, _, v = build(run_dir, tmp_path / "v1.tar.gz", CATALOG)
    monkeypatch.undo()
    assert v["schema"] == "datcts-verdict/1"
    got = verify(path)
    assert got.ok, got.problems
    assert got.verdict["schema"] == "datcts-verdict/1"


def test_a_v2_bundle_still_verifies(run_dir, tmp_path, monkeypatch):
    """Bundles made before datcts-verdict/3 (two outcomes, per subject);
    verify re-derives their verdict by those rules."""
    from datcts_reports.analysis import Analysis

    real = Analysis.verdict
    monkeypatch.setattr(Analysis, "verdict", lambda self, schema="datcts-verdict/2": real(self, schema))
    path, _, v = build(run_dir, tmp_path / "v2.tar.gz", CATALOG)
    monkeypatch.undo()
    assert v["schema"] == "datcts-verdict/2" and "by_status" not in v["shall"]
    got = verify(path)
    assert got.ok, got.problems
    assert got.verdict["schema"] == "datcts-verdict/2"


@pytest.mark.parametrize("schema", ["datcts-verdict/3", "datcts-verdict/4"])
def test_an_older_bundle_still_verifies(run_dir, tmp_path, monkeypatch, schema):
    """Bundles made under datcts-verdict/3 (the worst case decided a clause)
    and /4 (the committed certification of 2026-11-27 among them); verify
    re-derives their verdict by their own rules."""
    from datcts_reports.analysis import Analysis

    real = Analysis.verdict
    monkeypatch.setattr(Analysis, "verdict", lambda self, schema=schema: real(self, schema))
    path, _, v = build(run_dir, tmp_path / "old.tar.gz", CATALOG)
    monkeypatch.undo()
    assert v["schema"] == schema
    # /3 counted no judged clauses
    assert ("judged" in v["shall"]) == (schema != "datcts-verdict/3")
    got = verify(path)
    assert got.ok, got.problems
    assert got.verdict["schema"] == schema


def test_current_bundle_checks_the_registry_line(bundle, tmp_path):
    ms = members(bundle)
    assert json.loads(next(d for n, (_, d) in ms.items() if n.endswith("/verdict.json")))["schema"] \
        == "datcts-verdict/5"
    hname = next(n for n in ms if n.endswith("/report.html"))
    html = ms[hname][1].replace(b'name="datcts-verdict-registry" content="',
                             b'name="datcts-verdict-registry" content="x')
    files = {"report.html": html}
    dst = tmp_path / "t.tar.gz"
    rewrite(bundle, dst, lambda n, d: html if n == hname else fix_manifest(n, d, files))
    v = verify(dst)
    assert any("registry verdict" in p for p in v.problems), v.problems
