"""The clause catalog (clauses/*.toml, docs/clauses.md) and its snapshot.

A report needs the catalog as it was when the verdict was drawn, so a bundle
carries a snapshot (catalog.json, "datcts-catalog/1"): the pages and clauses
in a canonical order, with a sha256 over their canonical JSON.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from datcts_reports import CATALOG_SCHEMA, LEVELS, ReportError

CLAUSE_KEYS = ("id", "section", "level", "text", "expect", "return", "subtype", "gates", "also",
               "dat2", "subject", "contested")
# A contested clause (docs/clauses.md, "Contested clauses"): the page can be
# read both ways; both readings, and where the question came up.
CONTESTED_KEYS = ("fails", "holds", "raised")

# Whose rule a clause is (docs/clauses.md, "Subjects"): the provider's unless
# the catalog says the DAT registry's.
SUBJECTS = ("provider", "registry")


@dataclass
class Clause:
    id: str
    page: str
    section: str
    level: str
    text: str
    expect: str
    returns: list = field(default_factory=list)
    subtype: str = ""
    gates: list = field(default_factory=list)
    also: list = field(default_factory=list)
    dat2: str = ""  # the clause's DAT 2.0 form, where the 2.0 headers change it
    subject: str = "provider"  # or "registry": the rule is the DAT registry's
    # {"fails": the reading the case checks, "holds": the reading a provider
    # that fails the case can claim, "raised": where it came up}
    contested: dict = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.id.split(".", 1)[1] if "." in self.id else self.id

    @property
    def optional(self) -> bool:
        """UNSUPPORTED is an allowed answer: the clause is gated by a provider
        attribute, or the page lets the provider answer DAT_MODEL_NOT_SUPPORTED."""
        return bool(self.gates) or "DAT_MODEL_NOT_SUPPORTED" in self.returns

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "section": self.section,
            "level": self.level,
            "text": self.text,
            "expect": self.expect,
            "return": list(self.returns),
            "subtype": self.subtype,
            "gates": list(self.gates),
            "also": list(self.also),
            **({"dat2": self.dat2} if self.dat2 else {}),
            # only when not the default, so older snapshots keep their sha256
            **({"subject": self.subject} if self.subject != "provider" else {}),
            **({"contested": dict(self.contested)} if self.contested else {}),
        }


@dataclass
class Page:
    page: str
    title: str
    source: str
    clauses: list

    def to_json(self) -> dict:
        return {"page": self.page, "title": self.title, "source": self.source,
                "clauses": [c.to_json() for c in self.clauses]}


class Catalog:
    def __init__(self, pages: list, origin: str):
        self.pages: dict[str, Page] = {p.page: p for p in sorted(pages, key=lambda p: p.page)}
        self.origin = origin
        self.clauses: dict[str, Clause] = {}
        for p in self.pages.values():
            for c in p.clauses:
                if c.id in self.clauses:
                    raise ReportError(f"{origin}: clause id {c.id} appears twice")
                self.clauses[c.id] = c

    def to_json(self) -> dict:
        return {"schema": CATALOG_SCHEMA,
                "pages": [p.to_json() for p in self.pages.values()],
                "sha256": self.sha256()}

    def sha256(self) -> str:
        body = json.dumps([p.to_json() for p in self.pages.values()],
                          sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()


def _clause(d: dict, page: str, where: str) -> Clause:
    if not isinstance(d, dict):
        raise ReportError(f"{where}: a [[clause]] must be a table")
    for k in ("id", "level", "text"):
        if not isinstance(d.get(k), str) or not d[k].strip():
            raise ReportError(f"{where}: clause {d.get('id', '?')} lacks '{k}'")
    if d["level"] not in LEVELS:
        raise ReportError(f"{where}: clause {d['id']}: level {d['level']!r} is not one of "
                          + ", ".join(LEVELS))
    subject = d.get("subject") or "provider"
    if subject not in SUBJECTS:
        raise ReportError(f"{where}: clause {d['id']}: subject {subject!r} is not one of "
                          + ", ".join(SUBJECTS))
    contested = d.get("contested") or {}
    if contested:
        if not isinstance(contested, dict) or \
                any(not isinstance(contested.get(k), str) or not contested[k].strip()
                    for k in CONTESTED_KEYS) or set(contested) - set(CONTESTED_KEYS):
            raise ReportError(f"{where}: clause {d['id']}: contested must be a table with "
                              "exactly " + ", ".join(CONTESTED_KEYS) + " (non-empty strings)")
        if d["level"] != "shall":
            raise ReportError(f"{where}: clause {d['id']}: only a shall clause can be contested")
    return Clause(
        id=d["id"], page=page, section=d.get("section", ""), level=d["level"],
        text=d["text"], expect=d.get("expect", ""),
        returns=list(d.get("return") or []), subtype=d.get("subtype") or "",
        gates=list(d.get("gates") or []), also=list(d.get("also") or []),
        dat2=d.get("dat2") or "",
        subject=subject,
        contested=dict(contested),
    )


def load_dir(path: Path) -> Catalog:
    """clauses/*.toml"""
    path = Path(path)
    files = sorted(path.glob("dat_*.toml"))
    if not files:
        raise ReportError(f"{path}: no clause catalog (*.toml) there")
    pages = []
    for f in files:
        try:
            d = tomllib.loads(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise ReportError(f"{f}: cannot read: {e}")
        except tomllib.TOMLDecodeError as e:
            raise ReportError(f"{f}: not valid TOML: {e}")
        page = d.get("page") or f.stem
        clauses = [_clause(c, page, str(f)) for c in d.get("clause") or []]
        pages.append(Page(page, d.get("title", ""), d.get("source", ""), clauses))
    return Catalog(pages, str(path))


def load_snapshot(doc: dict, origin: str = "catalog.json", *, check_hash=True) -> Catalog:
    """A catalog.json document (as written by to_json)."""
    if not isinstance(doc, dict) or doc.get("schema") != CATALOG_SCHEMA:
        raise ReportError(f"{origin}: not a {CATALOG_SCHEMA} document")
    pages = []
    for p in doc.get("pages") or []:
        page = p.get("page")
        pages.append(Page(page, p.get("title", ""), p.get("source", ""),
                          [_clause(c, page, origin) for c in p.get("clauses") or []]))
    cat = Catalog(pages, origin)
    if check_hash and doc.get("sha256") != cat.sha256():
        raise ReportError(f"{origin}: its sha256 field ({doc.get('sha256')}) does not match "
                          f"its pages and clauses ({cat.sha256()})")
    return cat


def load(path) -> Catalog:
    """A clauses/ directory or a catalog.json snapshot."""
    path = Path(path)
    if path.is_dir():
        return load_dir(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: no such catalog (a clauses/ directory or a catalog.json)")
    except (OSError, ValueError) as e:
        raise ReportError(f"{path}: cannot read the catalog: {e}")
    return load_snapshot(doc, str(path))
