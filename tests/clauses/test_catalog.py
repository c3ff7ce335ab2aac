"""Schema check of the clause catalog (clauses/*.toml), see docs/clauses.md.

Every file must parse, name its own page, and give each clause a unique,
page-prefixed id with the required keys and a known level and section.
"""
import pathlib
import re
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLAUSES = ROOT / "clauses"
FILES = sorted(CLAUSES.glob("dat_*.toml"))  # outputs.toml is the outputs map (docs/clauses.md, "Outputs")

LEVELS = {"shall", "should", "may", "qoi"}
SECTIONS = {"DESCRIPTION", "RETURN VALUES", "USAGE", "PARAMETERS", "NOTES", "ATTRIBUTES"}
SOURCES = {"man3dat", "headers"}
REQUIRED = {"id", "section", "level", "text", "expect"}
OPTIONAL = {"return", "subtype", "gates", "also", "dat2", "subject", "contested"}
SUBJECTS = {"provider", "registry"}
SLUG = re.compile(r"^[a-z0-9_]+$")
DAT_NAME = re.compile(r"^DAT_[A-Z0-9_]+$")


def load(path):
    with path.open("rb") as f:
        return tomllib.load(f)


def all_ids():
    ids = set()
    for path in FILES:
        for c in load(path).get("clause", []):
            ids.add(c.get("id"))
    return ids


def test_catalog_not_empty():
    assert FILES, "no clauses/*.toml files"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_file_header(path):
    doc = load(path)
    assert doc.get("page") == path.stem, "page must equal the file name"
    assert isinstance(doc.get("title"), str) and doc["title"].strip()
    assert doc.get("source") in SOURCES
    assert isinstance(doc.get("clause"), list) and doc["clause"], "no [[clause]]"
    top = {"page", "title", "source", "returns", "clause"}
    assert set(doc) <= top, f"unknown top-level keys {set(doc) - top}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_clauses(path):
    doc = load(path)
    page = path.stem
    seen = set()
    for c in doc["clause"]:
        cid = c.get("id", "<no id>")
        missing = REQUIRED - set(c)
        assert not missing, f"{cid}: missing {sorted(missing)}"
        unknown = set(c) - REQUIRED - OPTIONAL
        assert not unknown, f"{cid}: unknown keys {sorted(unknown)}"
        prefix, _, slug = cid.partition(".")
        assert prefix == page, f"{cid}: id must start with '{page}.'"
        assert SLUG.match(slug), f"{cid}: slug must be lower_snake_case"
        assert cid not in seen, f"{cid}: duplicate id"
        seen.add(cid)
        assert c["level"] in LEVELS, f"{cid}: level {c['level']!r}"
        assert c["section"] in SECTIONS, f"{cid}: section {c['section']!r}"
        for key in ("text", "expect"):
            assert isinstance(c[key], str) and c[key].strip(), f"{cid}: empty {key}"
        for r in c.get("return", []):
            assert DAT_NAME.match(r), f"{cid}: return {r!r}"
        sub = c.get("subtype", "")
        assert sub == "" or DAT_NAME.match(sub), f"{cid}: subtype {sub!r}"
        if sub:
            assert c.get("return"), f"{cid}: a subtype needs a return type"
        for g in c.get("gates", []):
            assert SLUG.match(g), f"{cid}: gate {g!r}"
        assert c.get("subject", "provider") in SUBJECTS, f"{cid}: subject {c['subject']!r}"
        for key in ("gates", "also", "return"):
            assert isinstance(c.get(key, []), list), f"{cid}: {key} must be a list"


def test_ids_unique_across_files():
    seen = {}
    for path in FILES:
        for c in load(path)["clause"]:
            assert c["id"] not in seen, f"{c['id']} in {path.name} and {seen[c['id']]}"
            seen[c["id"]] = path.name


def test_also_points_to_known_clauses():
    ids = all_ids()
    for path in FILES:
        for c in load(path)["clause"]:
            for other in c.get("also", []):
                # a reference to a page whose catalog is not written yet is fine
                page = other.split(".", 1)[0]
                if (CLAUSES / f"{page}.toml").exists():
                    assert other in ids, f"{c['id']}: also {other!r} is unknown"
