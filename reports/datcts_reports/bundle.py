"""The submission bundle: everything a customer needs to check a claim.

    datcts bundle RUN_DIR [-o FILE]  -> datcts-bundle-<ia>-<time>.tar.gz
    datcts verify BUNDLE              -> exit 0 when intact and consistent

Layout (one top directory, regular files only):

    manifest.json    datcts-bundle/1: created, tool, ia, verdict, and
                     {path, sha256, size} of every other file
    results.json     the run document (source of truth), byte for byte
    results.jsonl    the runner's journal, when the run has one
    junit.xml        the runner's JUnit XML (generated from results.json if absent)
    report.html      the HTML report, rendered against catalog.json
    verdict.json     the verdict (datcts-verdict/2: the provider's, and both
                     subjects'; bundles of datcts-verdict/1 still verify)
    catalog.json     the clause catalog snapshot the verdict was drawn from
    provider.json    the provider fingerprint: IA, dat.conf line, library path,
                     size and sha256, dat_ia_query attributes
    dat.conf         the dat.conf of the run, when readable
    expectations.toml the waivers file, when the run had one
    logs/<case>.log  each case's captured output (cases with output)

verify checks, in order: the archive is a well-formed tar.gz with one top
directory and regular files only; manifest.json parses; every listed file is
present with its sha256 and size, and no file is unlisted; results.json is a
valid datcts-results/1 document; catalog.json matches its own sha256; the
verdict re-derived from results.json + catalog.json (by the rules of the
verdict schema the bundle records) equals the one in the manifest, in
verdict.json and in report.html (both subjects' for datcts-verdict/2).  The first class of problems
found is reported, each naming the file and why.

The manifest's own sha256 (printed by bundle and verify) is the bundle's
fingerprint: publish it out of band and check it with --manifest-sha256 to
detect a bundle rebuilt wholesale.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
import tarfile
from pathlib import Path, PurePosixPath

from datcts_reports import (BUNDLE_SCHEMA, DEFAULT_CATALOG, VERDICT_SCHEMA, VERDICT_SCHEMA_V1,
                            VERDICT_SCHEMA_V2, VERDICT_SCHEMA_V3, VERDICT_SCHEMA_V4,
                            ReportError, __version__)
from datcts_reports import catalog as catalog_mod
from datcts_reports import html as html_mod
from datcts_reports.analysis import Analysis
from datcts_reports.junit import junit_xml
from datcts_reports.schema import load_results, results_path, validate

# verdict schemas verify accepts: the current one, and that of older bundles
VERDICT_SCHEMAS = (VERDICT_SCHEMA, VERDICT_SCHEMA_V4, VERDICT_SCHEMA_V3, VERDICT_SCHEMA_V2,
                   VERDICT_SCHEMA_V1)

REQUIRED = ("results.json", "report.html", "verdict.json", "catalog.json", "provider.json",
            "junit.xml")


def sha256(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _dump(obj) -> bytes:
    return (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode()


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_") or "x"


def _stamp(ts: str | None) -> str:
    try:
        t = dt.datetime.fromisoformat(ts).astimezone(dt.timezone.utc)
    except (TypeError, ValueError):
        t = dt.datetime.now(dt.timezone.utc)
    return t.strftime("%Y%m%dT%H%M%SZ")


def provider_fingerprint(doc: dict) -> dict:
    prov = doc["run"]["provider"]
    lib = prov.get("library_resolved") or prov.get("library")
    size = None
    if lib:
        try:
            size = Path(lib).stat().st_size
        except OSError:
            pass
    return {
        "ia": prov["ia"],
        "dat_conf": prov["dat_conf"],
        "dat_conf_line": prov.get("dat_conf_line"),
        "library": prov.get("library"),
        "library_resolved": prov.get("library_resolved"),
        "library_sha256": prov.get("library_sha256"),
        "library_size": size,
        "instance_data": prov.get("instance_data"),
        "attributes": prov.get("attributes"),
        "attributes_error": prov.get("attributes_error"),
        "host": doc["run"].get("system"),
    }


def build(run_dir, out=None, catalog_path=None) -> tuple:
    """Writes the bundle; returns (path, manifest sha256, verdict)."""
    rpath = results_path(Path(run_dir))
    run_dir = rpath.parent
    doc = load_results(rpath)
    if doc["run"]["finished"] is None:
        raise ReportError(f"{rpath}: the run is still going (run.finished is null); "
                          "bundle a finished run")
    cat = catalog_mod.load(catalog_path or DEFAULT_CATALOG)
    analysis = Analysis(cat, doc)
    verdict = analysis.verdict()
    results_bytes = rpath.read_bytes()
    files: dict[str, bytes] = {"results.json": results_bytes}
    jl = run_dir / "results.jsonl"
    if jl.is_file():
        files["results.jsonl"] = jl.read_bytes()
    ju = run_dir / "junit.xml"
    files["junit.xml"] = ju.read_bytes() if ju.is_file() else junit_xml(doc)
    files["report.html"] = html_mod.render(analysis, results_sha256=sha256(results_bytes)).encode()
    files["verdict.json"] = _dump(verdict)
    files["catalog.json"] = _dump(cat.to_json())
    files["provider.json"] = _dump(provider_fingerprint(doc))
    conf = Path(doc["run"]["provider"]["dat_conf"])
    if conf.is_file():
        files["dat.conf"] = conf.read_bytes()
    exp = doc["run"].get("expectations")
    if exp and Path(exp).is_file():
        files["expectations.toml"] = Path(exp).read_bytes()
    for r in doc["results"]:
        if r.get("output"):
            files[f"logs/{_safe_name(r['id'])}.log"] = r["output"].encode()
    manifest = {
        "schema": BUNDLE_SCHEMA,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "tool": {"name": "datcts", "version": doc["tool"]["version"],
                 "git_revision": doc["tool"].get("git_revision"), "reports": __version__},
        "ia": doc["run"]["provider"]["ia"],
        "run_started": doc["run"]["started"],
        "verdict": verdict,
        "files": [{"path": p, "sha256": sha256(b), "size": len(b)} for p, b in sorted(files.items())],
    }
    mbytes = _dump(manifest)
    top = f"datcts-bundle-{_safe_name(doc['run']['provider']['ia'])}-{_stamp(doc['run']['started'])}"
    out = Path(out) if out else run_dir / f"{top}.tar.gz"
    if out.is_dir():
        out = out / f"{top}.tar.gz"
    tmp = out.with_name(out.name + ".tmp")
    mtime = int(dt.datetime.now(dt.timezone.utc).timestamp())
    with tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(name, data):
            ti = tarfile.TarInfo(f"{top}/{name}")
            ti.size, ti.mode, ti.mtime = len(data), 0o644, mtime
            ti.uname = ti.gname = "datcts"
            tar.addfile(ti, io.BytesIO(data))
        add("manifest.json", mbytes)
        for p, b in sorted(files.items()):
            add(p, b)
    tmp.replace(out)
    return out, sha256(mbytes), verdict


# ---------------------------------------------------------------- verify


class Verification:
    def __init__(self, path):
        self.path = str(path)
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.manifest_sha256: str | None = None
        self.verdict: dict | None = None
        self.files = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def _read_members(path, v: Verification) -> dict | None:
    try:
        tar = tarfile.open(path, "r:*")
    except FileNotFoundError:
        v.problems.append(f"{path}: no such file")
        return None
    except (tarfile.TarError, OSError, EOFError) as e:
        v.problems.append(f"{path}: not a readable tar.gz archive ({e})")
        return None
    files: dict[str, bytes] = {}
    tops = set()
    try:
        with tar:
            for m in tar:
                name = PurePosixPath(m.name)
                if name.is_absolute() or ".." in name.parts:
                    v.problems.append(f"{m.name}: unsafe path in the archive")
                    continue
                if m.isdir():
                    continue
                if not m.isfile():
                    v.problems.append(f"{m.name}: not a regular file (links and devices are not "
                                      "allowed in a bundle)")
                    continue
                if len(name.parts) < 2:
                    v.problems.append(f"{m.name}: outside the bundle's top directory")
                    continue
                tops.add(name.parts[0])
                rel = str(PurePosixPath(*name.parts[1:]))
                if rel in files:
                    v.problems.append(f"{rel}: appears twice in the archive")
                    continue
                f = tar.extractfile(m)
                files[rel] = f.read() if f else b""
    except (tarfile.TarError, OSError, EOFError, ValueError) as e:
        v.problems.append(f"{path}: the archive is damaged ({e})")
        return None
    if len(tops) > 1:
        v.problems.append(f"the archive has {len(tops)} top directories ({', '.join(sorted(tops))}); "
                          "a bundle has one")
    return files


# Fields added within a verdict schema (docs/results-format.md): a document
# written before them lacks them, and still verifies when they would be empty.
ADDED_WITHIN_SCHEMA = ("contested", "contested_shall")


def _without_later_additions(recorded, derived):
    """@derived without the empty fields @recorded predates."""
    if isinstance(recorded, dict) and isinstance(derived, dict):
        return {k: _without_later_additions(recorded.get(k), v) for k, v in derived.items()
                if k in recorded or k not in ADDED_WITHIN_SCHEMA or v}
    return derived


def _first_difference(a, b, path="") -> str | None:
    if type(a) is not type(b):
        return f"{path or 'verdict'}: {json.dumps(a)[:80]} vs {json.dumps(b)[:80]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present in only one"
            d = _first_difference(a[k], b[k], f"{path}.{k}" if path else k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:80]} vs {json.dumps(b)[:80]}"


def verify(path, manifest_sha256: str | None = None) -> Verification:
    v = Verification(path)
    files = _read_members(path, v)
    if files is None or v.problems:
        return v
    # 1. the manifest
    mb = files.pop("manifest.json", None)
    if mb is None:
        v.problems.append("manifest.json: missing; this is not a datcts bundle")
        return v
    v.manifest_sha256 = sha256(mb)
    if manifest_sha256 and manifest_sha256.lower() != v.manifest_sha256:
        v.problems.append(f"manifest.json: sha256 is {v.manifest_sha256}, not the expected "
                          f"{manifest_sha256.lower()} (the bundle was rebuilt or replaced)")
    try:
        manifest = json.loads(mb)
    except ValueError as e:
        v.problems.append(f"manifest.json: not JSON ({e})")
        return v
    if not isinstance(manifest, dict) or manifest.get("schema") != BUNDLE_SCHEMA:
        v.problems.append(f"manifest.json: not a {BUNDLE_SCHEMA} manifest "
                          f"(schema {manifest.get('schema') if isinstance(manifest, dict) else '?'!r})")
        return v
    listed = manifest.get("files")
    if not isinstance(listed, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("sha256"), str)
            for e in listed):
        v.problems.append("manifest.json: 'files' must list {path, sha256, size} objects")
        return v
    # 2. every file as recorded, nothing more
    seen = set()
    for e in listed:
        p = e["path"]
        seen.add(p)
        b = files.get(p)
        if b is None:
            v.problems.append(f"{p}: listed in the manifest but missing from the bundle")
            continue
        got = sha256(b)
        if got != e["sha256"]:
            v.problems.append(f"{p}: sha256 mismatch: the manifest records {e['sha256']}, the file "
                              f"has {got} (the file was changed after bundling)")
        elif e.get("size") is not None and e["size"] != len(b):
            v.problems.append(f"{p}: size {len(b)} differs from the manifest's {e['size']}")
    for p in sorted(set(files) - seen):
        v.problems.append(f"{p}: in the bundle but not in the manifest (added after bundling)")
    for p in REQUIRED:
        if p not in files and p not in {e["path"] for e in listed}:
            v.problems.append(f"{p}: missing; every bundle has one")
    v.files = len(seen)
    if v.problems:
        return v
    # 3. the results and the catalog
    try:
        doc = json.loads(files["results.json"])
    except ValueError as e:
        v.problems.append(f"results.json: not JSON ({e})")
        return v
    errs = validate(doc)
    if errs:
        v.problems.append("results.json: not a valid datcts-results/1 document: " + "; ".join(errs[:10])
                          + (f"; ... and {len(errs) - 10} more" if len(errs) > 10 else ""))
        return v
    try:
        cat = catalog_mod.load_snapshot(json.loads(files["catalog.json"]), "catalog.json")
    except (ValueError, ReportError) as e:
        v.problems.append(f"catalog.json: {e}")
        return v
    # 4. the verdict follows from them, by the rules of the verdict schema
    # the bundle was made with (datcts-verdict/1: one verdict over every
    # clause; /2: the provider's at the top level, both subjects beside)
    recorded = manifest.get("verdict")
    vschema = recorded.get("schema") if isinstance(recorded, dict) else None
    if vschema not in VERDICT_SCHEMAS:
        v.problems.append(f"manifest.json: verdict schema {vschema!r} is not one of "
                          + ", ".join(VERDICT_SCHEMAS))
        return v
    derived = Analysis(cat, doc).verdict(vschema)
    v.verdict = derived
    if not isinstance(recorded, dict):
        v.problems.append("manifest.json: no verdict recorded")
    elif recorded.get("verdict") != derived["verdict"]:
        v.problems.append(f"verdict: the manifest records {recorded.get('label', recorded.get('verdict'))!r}, "
                          f"but results.json with catalog.json gives {derived['label']!r} "
                          f"({derived['explanation']})")
    else:
        d = _first_difference(recorded, _without_later_additions(recorded, derived))
        if d:
            v.problems.append(f"verdict: the manifest's verdict details differ from what "
                              f"results.json with catalog.json gives, first at {d}")
    try:
        vj = json.loads(files["verdict.json"])
    except ValueError as e:
        v.problems.append(f"verdict.json: not JSON ({e})")
        vj = None
    if vj is not None:
        d = _first_difference(vj, _without_later_additions(vj, derived))
        if d:
            v.problems.append(f"verdict.json: differs from the verdict results.json with "
                              f"catalog.json gives, first at {d}")
    m = re.search(rb'<meta name="datcts-verdict" content="([^"]*)">', files["report.html"])
    if not m:
        v.problems.append("report.html: carries no datcts-verdict")
    elif m.group(1).decode() != derived["verdict"]:
        v.problems.append(f"report.html: shows the verdict {m.group(1).decode()!r}, but "
                          f"results.json with catalog.json gives {derived['verdict']!r}")
    if "subjects" in derived:
        want = derived["subjects"]["registry"]["verdict"]
        m = re.search(rb'<meta name="datcts-verdict-registry" content="([^"]*)">',
                      files["report.html"])
        if not m:
            v.problems.append("report.html: carries no datcts-verdict-registry")
        elif m.group(1).decode() != want:
            v.problems.append(f"report.html: shows the registry verdict {m.group(1).decode()!r}, "
                              f"but results.json with catalog.json gives {want!r}")
    return v
