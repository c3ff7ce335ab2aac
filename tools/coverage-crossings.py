#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The crossings table of issue 54 (docs/coverage-crossings.md).

Issue 54 found provider bugs that no single case misses but that fall
between cases: a setting changed and never used, a count tested with one
kind of completion, a state entered and nothing arriving in it, a page that
changes an object never met by the page that reads it.  This script derives
the rows of those four crossings from the headers (include/dat/) and the
clause catalog (clauses/*.toml), takes each cell from clauses/crossings.toml,
and writes docs/coverage-crossings.md.

The rows, derived here (the data file must have every one, and no other):

  settings    every DAT_EP_FIELD_* of dat.h that dat_ep_modify's mask can
              change (all but the masks *_ALL and the fields whose
              dat_ep_modify.<field>_read_only clause says the page forbids
              the change), and every other page of the catalog that changes
              an object after its creation (SETTING_PAGE below); a page's
              row may be split into "page:what" rows.  One cell: the cases
              that USE the changed value afterwards.
  accounting  every shall clause of the pages that count DTOs, buffers or
              events (ACCOUNTING_PAGES) whose words are about such a count
              (ACCOUNTING_WORDS), crossed with the kinds of completion.
  states      every DAT_EP_STATE_* of dat.h crossed with what can follow.
  objects     per object kind, the pages whose first argument is that
              kind's handle (udat.h, dat.h), split into the pages that read
              it (READER) and those that change it (the rest, less create,
              free and the readers); every changer crossed with every reader.
              The data file may add pages of other objects that change the
              kind (a row of its own).
  asymmetric  every pair of members of one struct of dat.h/udat.h, and of
              parameters of one function, of the same type whose names
              differ only by one word of a pair that names two sides of one
              thing (ANTONYMS: recv/request, in/out, read/write,
              local/remote, soft/hard): a swap of the two is a plausible
              bug.  One cell: the cases that give the two different values
              and would see them swapped.  The data file may add pairs no
              name shows (`hand = true`, e.g. two counts of one query).

A cell is a list of case ids (each must exist: DC_CASE and its wrappers in
cases/, and `--list` of the case binaries of --build-dir; without binaries
the ids no source line spells out are reported as not checked), or
"gap: what is missing", or "n/a: page(3DAT) SECTION: why".  A row may give
`all = "n/a: ..."` for every one of its cells, and `note` for the table.

Usage: tools/coverage-crossings.py [--check] [--build-dir DIR] [--root DIR]
  (no option)   write docs/coverage-crossings.md
  --check       compare instead of writing; exit 1 on a difference or an error
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]

SETTING_PAGE = re.compile(
    r"^dat_(?:\w+_)?(?:modify\w*|resize|set_\w+|clear_\w+|enable|disable|bind)$")
ACCOUNTING_PAGES = {
    "dat_srq_query", "dat_srq_resize", "dat_srq_post_recv", "dat_srq_set_lw",
    "dat_ep_recv_query", "dat_ep_get_status", "dat_ep_set_watermark",
    "dat_evd_wait", "dat_evd_dequeue", "dat_evd_resize", "dat_evd_query",
    "dat_ep_post_send", "dat_ep_post_recv", "dat_ep_post_rdma_read",
    "dat_ep_post_rdma_write", "dat_rmr_bind"}
ACCOUNTING_WORDS = re.compile(
    r"\b(outstanding\w*|available\w*|allocated|span|idle|nmore|queued|counts? as|counted"
    r"|holds more|fewer buffers|no room|room in)\b", re.I)
COMPLETIONS = [("success", "successful"), ("failed", "failed (reaped)"),
               ("flushed", "flushed"), ("failed_unreaped", "failed, not yet reaped")]
FOLLOWS = [("dto_posted", "a DTO posted"), ("message_arrives", "a message arrives"),
           ("peer_disconnects", "the peer disconnects"),
           ("connection_request", "a connection request"),
           ("free", "dat_ep_free"), ("reset", "dat_ep_reset")]
ANTONYMS = [("recv", "request"), ("in", "out"), ("read", "write"), ("local", "remote"),
            ("soft", "hard")]
READER = re.compile(r"^dat_\w+_(query|get_status)$|^dat_get_\w+$")
NOT_CHANGER = re.compile(r"_(create\w*|free)$")
HANDLE_KIND = {"DAT_CR_HANDLE": "CR", "DAT_EVD_HANDLE": "EVD", "DAT_EP_HANDLE": "EP",
               "DAT_LMR_HANDLE": "LMR", "DAT_RMR_HANDLE": "RMR", "DAT_PSP_HANDLE": "PSP",
               "DAT_RSP_HANDLE": "RSP", "DAT_PZ_HANDLE": "PZ", "DAT_SRQ_HANDLE": "SRQ",
               "DAT_CNO_HANDLE": "CNO", "DAT_IA_HANDLE": "IA", "DAT_HANDLE": "any"}
CASE_MACRO = re.compile(r"\b(?:DC_CASE|DC_TWO_NODE_CASE|[A-Z][A-Z0-9_]*CASE[A-Z0-9_]*)"
                        r"\(\s*(dat_\w+)\s*,\s*(\w+)\s*[,)]")


def catalog(root):
    out = {}
    for p in sorted((root / "clauses").glob("dat_*.toml")):
        with open(p, "rb") as f:
            out[p.stem] = tomllib.load(f).get("clause", [])
    return out


def header_text(root):
    inc = root / "include/dat"
    return "".join((inc / n).read_text() for n in ("dat.h", "udat.h"))


def derive(root):
    """{section: [row key]} in table order, and {kind: (changers, readers)}."""
    cat = catalog(root)
    hdr = header_text(root)
    fields = [f for f in re.findall(r"#define\s+(DAT_EP_FIELD_\w+)", hdr)
              if not f.endswith("_ALL")]
    ro = [c["id"].split(".", 1)[1][:-len("_read_only")].upper()
          for c in cat["dat_ep_modify"] if c["id"].endswith("_read_only")]
    fields = [f for f in fields
              if not any(f.replace("DAT_EP_FIELD_", "").startswith(r) for r in ro)]
    settings = [f"dat_ep_modify:{f}" for f in fields]
    setting_pages = sorted(p for p in cat if SETTING_PAGE.match(p) and p != "dat_ep_modify")
    accounting = [c["id"] for p in sorted(ACCOUNTING_PAGES) for c in cat.get(p, [])
                  if c["level"] == "shall" and ACCOUNTING_WORDS.search(c["text"])]
    states = re.findall(r"^\s*(DAT_EP_STATE_\w+)\s*=", hdr, re.M)
    kinds = {}
    for fn, typ in re.findall(r"extern DAT_RETURN\s+(dat_\w+)\s*\(\s*(?:const\s+)?(\w+)", hdr):
        kind = HANDLE_KIND.get(typ)
        if kind in (None, "IA") or fn not in cat:
            continue
        ch, rd = kinds.setdefault(kind, ([], []))
        if READER.match(fn):
            rd.append(fn)
        elif not NOT_CHANGER.search(fn):
            ch.append(fn)
    kinds = {k: v for k, v in kinds.items() if v[0] and v[1]}
    return {"settings": settings, "setting_pages": setting_pages,
            "accounting": accounting, "states": states,
            "asymmetric": asymmetric_pairs(hdr)}, kinds


def declared(text):
    """[(type, name)] of a struct body or a parameter list."""
    out = []
    for d in re.split(r"[;,]", re.sub(r"/\*.*?\*/", "", text, flags=re.S)):
        d = re.sub(r"\b(IN|OUT|INOUT|const)\b", "", d).strip()
        m = re.match(r"(\w+)\s*\**\s*(\w+)\s*(\[[^]]*\])?$", d)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def asymmetric_pairs(hdr):
    """Row keys "STRUCT.a/b" and "function(a/b)": same-typed members or
    parameters whose names differ by one ANTONYMS word."""
    groups = [(name, body, ".") for body, name in
              re.findall(r"typedef\s+struct\s+\w*\s*\{(.*?)\}\s*(\w+)\s*;", hdr, re.S)]
    groups += [(fn, args, "()") for fn, args in
               re.findall(r"extern DAT_RETURN\s+(dat_\w+)\s*\((.*?)\)\s*;", hdr, re.S)]
    rows = []
    for owner, text, how in groups:
        typed = dict((n, t) for t, n in declared(text))
        for a, b in ANTONYMS:
            for n, typ in typed.items():
                words = n.split("_")
                if a not in words:
                    continue
                other = "_".join(b if w == a else w for w in words)
                if typed.get(other) == typ:
                    key = f"{owner}.{n}/{other}" if how == "." else f"{owner}({n}/{other})"
                    if key not in rows:
                        rows.append(key)
    return rows


def case_ids(root, build):
    ids = set()
    for p in (root / "cases").rglob("*.[ch]"):
        for m in CASE_MACRO.finditer(p.read_text()):
            ids.add(f"{m.group(1)}.{m.group(2)}")
    listed = 0
    if build:
        for exe in sorted((build / "cases").glob("datcts-cases-*")):
            if not exe.is_file() or exe.suffix or not (exe.stat().st_mode & 0o111):
                continue
            try:
                out = subprocess.run([str(exe), "--list"], capture_output=True, text=True,
                                     timeout=60, check=True).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            for c in json.loads(out):
                ids.add(c["id"])
            listed += 1
    return ids, listed


NA = re.compile(r"^n/a: \w+\(3DAT\) [A-Z][A-Z ]*[A-Z]\b")


def cell_problems(where, cell, ids):
    if isinstance(cell, list):
        if not cell:
            return [f"{where}: an empty list (name cases, or say gap:/n/a:)"]
        return [f"{where}: no case {c}" for c in cell if c not in ids]
    if isinstance(cell, str):
        if cell.startswith("gap: ") and len(cell) > 10:
            return []
        if NA.match(cell):
            return []
        return [f"{where}: neither cases, 'gap: ...' nor 'n/a: page(3DAT) SECTION: why'"]
    return [f"{where}: a cell must be a list of case ids or a string"]


def cells(row, columns):
    if "all" in row:
        return {c: row["all"] for c in columns}
    return {c: row.get(c) for c in columns}


def fmt(cell):
    if isinstance(cell, list):
        return ", ".join(f"`{c}`" for c in cell)
    return (cell or "").replace("|", "\\|")


def kind_of(cell):
    if isinstance(cell, list):
        return "cases"
    return "gap" if cell.startswith("gap:") else "n/a"


def build(root, build_dir):
    rows, kinds = derive(root)
    with open(root / "clauses/crossings.toml", "rb") as f:
        data = tomllib.load(f)
    ids, listed = case_ids(root, build_dir)
    problems = []
    tally = {"rows": 0, "cases": 0, "gap": 0, "n/a": 0}
    tables = []

    def table(title, intro, sect, keys, columns, extra_ok=()):
        given = data.get(sect, {})
        for k in keys:
            if k not in given:
                problems.append(f"[{sect}] lacks the derived row {k!r}")
        for k in given:
            if k not in keys and not any(k.startswith(e) for e in extra_ok):
                problems.append(f"[{sect}] {k!r} is no derived row")
        order = [k for k in keys if k in given] + [k for k in given if k not in keys]
        lines = [f"### {title}", "", intro, "",
                 "| row | " + " | ".join(c[1] for c in columns) + " |",
                 "|---|" + "---|" * len(columns)]
        for k in order:
            row = given[k]
            cs = cells(row, [c[0] for c in columns])
            for c, v in cs.items():
                problems.extend(cell_problems(f"[{sect}] {k} / {c}", v, ids))
            tally["rows"] += 1
            for v in cs.values():
                if isinstance(v, (list, str)):
                    tally[kind_of(v)] += 1
            name = f"`{k}`" + (f"<br>{row['note']}" if row.get("note") else "")
            if "all" in row:
                lines.append(f"| {name} | {fmt(row['all'])} |" + " |" * (len(columns) - 1))
            else:
                lines.append(f"| {name} | " + " | ".join(fmt(cs[c[0]]) for c in columns) + " |")
        tables.append("\n".join(lines) + "\n")

    settings_keys = rows["settings"]
    pages = rows["setting_pages"]
    given = data.get("settings", {})
    for p in pages:
        if not any(k == p or k.startswith(p + ":") for k in given):
            problems.append(f"[settings] lacks a row of the derived page {p!r}")
    keys = settings_keys + [k for k in given if k.split(":")[0] in pages]
    table("1. Settings changed after creation, and the cases that use the changed value",
          "Rows: the DAT_EP_FIELD_* that dat_ep_modify's mask can change, and every page "
          "that changes an object after its creation. A case is named only where it uses "
          "the new value (posts through it, hits the limit it sets, shares the EVD it "
          "names), not where it reads it back.",
          "settings", keys, [("used_by", "used afterwards by")])
    table("2. Accounting rules crossed with the kinds of completion",
          "Rows: the shall clauses of the pages that count DTOs, buffers or events, "
          "about such a count. A case is named where the count is checked with a "
          "completion of that kind in it.",
          "accounting", rows["accounting"], COMPLETIONS)
    table("3. EP states crossed with what can follow them",
          "Rows: DAT_EP_STATE_* of dat.h. A case is named where the EP is in that state "
          "when the event, peer action or call arrives, and the case checks what follows.",
          "states", rows["states"], FOLLOWS)
    obj = data.get("objects", {})
    for kind, (changers, readers) in sorted(kinds.items()):
        sect = obj.get(kind, {})
        extra = [k for k in sect if k not in changers]
        data[f"objects.{kind}"] = sect
        table(f"4.{kind} {kind}: pages that change it crossed with pages that read it",
              f"Changers: the pages whose first argument is a {kind} handle, less create, "
              f"free and the readers ({', '.join(readers)}); rows added below them are pages "
              "of other objects that change it.",
              f"objects.{kind}", changers + extra, [(r, r) for r in readers])
    given = data.get("asymmetric", {})
    table("5. Asymmetric values: pairs where a swap is a plausible bug",
          "Rows: the same-typed members of one struct, and parameters of one function, of "
          "dat.h and udat.h whose names differ only by recv/request, in/out, read/write, "
          "local/remote or soft/hard; below them, pairs the data file adds by hand (two "
          "counts or contexts no name pairs). A case is named where it gives the two "
          "different values and would see them swapped (reported or used).",
          "asymmetric", rows["asymmetric"] + [k for k in given if given[k].get("hand")
                                               and k not in rows["asymmetric"]],
          [("used_by", "different values used by")])
    for kind in obj:
        if kind not in kinds:
            problems.append(f"[objects.{kind}] is no derived kind")
    head = ["# Coverage crossings (issue 54)", "",
            "Generated by `tools/coverage-crossings.py` from `clauses/crossings.toml`, the "
            "headers and the clause catalog; do not edit (ctest `lint.coverage_crossings` "
            "fails when it is stale). docs/mutants.md, \"Bug classes an independent set "
            "slipped through (issue 54)\", says why these crossings matter; each cell names "
            "the cases that do it, a gap, or why the pages leave it out.", "",
            f"**{tally['rows']} rows; cells: {tally['cases']} with cases, {tally['gap']} gaps, "
            f"{tally['n/a']} n/a.**", ""]
    return "\n".join(head) + "\n" + "\n".join(tables), problems, listed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--root", type=pathlib.Path, default=ROOT)
    ap.add_argument("--build-dir", type=pathlib.Path)
    a = ap.parse_args()
    bd = a.build_dir or (a.root / "build")
    text, problems, listed = build(a.root, bd if bd.exists() else None)
    if not listed:
        # without the case binaries, ids pasted together by macros (the
        # STATE_CASE matrices) cannot be known: say so, and judge the rest
        unknown = [p for p in problems if ": no case " in p]
        problems = [p for p in problems if ": no case " not in p]
        print(f"coverage-crossings: no case binaries under {bd}/cases: {len(unknown)} case "
              "ids not checked (run with --build-dir of a build)", file=sys.stderr)
    for p in problems:
        print(f"coverage-crossings: {p}", file=sys.stderr)
    out = a.root / "docs/coverage-crossings.md"
    if a.check:
        old = out.read_text() if out.exists() else ""
        if old != text:
            print("coverage-crossings: docs/coverage-crossings.md is stale; run "
                  "tools/coverage-crossings.py", file=sys.stderr)
            return 1
        return 1 if problems else 0
    out.write_text(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
