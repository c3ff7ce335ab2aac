#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Collateral-check lint: a case fails its clause only through a call of
that clause's own page, unless the clause's text asks for more.

Lists every asserting check in cases/ (DC_ASSERT_RET, _RET_SUB, _RET_ANY,
DC_ASSERT_SUCCESS, DC_ASSERT_INVALID_HANDLE) whose DAT call belongs to
another page than every clause the check is charged to.  Such a check is
allowed only with a justification citing the clause's text, on the line of
the check or in the comment just above it:

    /* collateral: dat_ep_create(3DAT) DESCRIPTION: the new EP must take
     * posted receives */

Otherwise it is a collateral check: make it set-up (DC_SETUP, an
UNRESOLVED instead of a FAIL), or remove it.

Usage: tools/lint-collateral.py [--list] [CASES_DIR]
Exit status: 0 when every collateral check is justified, 1 otherwise.
"""
import argparse
import pathlib
import re
import sys

CHECK = re.compile(
    r"\bDC_ASSERT_(?:RET|RET_SUB|RET_SUB_OR_NONE|RET_ANY|SUCCESS|INVALID_HANDLE)\(\s*(dat_\w+)\s*\(")
CASE_HEAD = re.compile(r"\b(DC_CASE|DC_TWO_NODE_CASE|DC_PASSIVE|DC_ACTIVE)\(\s*(\w+)\s*,\s*(\w+)")
CLAUSES = re.compile(r'\.clauses\s*=\s*((?:"[^"]*"\s*)+)')
JUSTIFIED = re.compile(r"collateral:\s*\w+\(3DAT\)\s+[A-Z][A-Z ]+:\s*\S")
# calls that are not a page of their own (the registry's reserved names)
NOT_A_PAGE = {"dat_strerror"}


# entry points documented on another function's page
SAME_PAGE = {"dat_ia_openv": "dat_ia_open", "dat_ia_closev": "dat_ia_close"}


def page_of_call(fn):
    """dat_ep_post_send -> dat_ep_post_send; the page is the function's own,
    but for the versioned entries behind a page's macro."""
    return SAME_PAGE.get(fn, fn)


def case_clause_pages(src):
    """{(page, name): set of pages of the clauses the case is charged to}"""
    pages = {}
    for m in CASE_HEAD.finditer(src):
        kind, page, name = m.groups()
        if kind not in ("DC_CASE", "DC_TWO_NODE_CASE"):
            continue
        # the initialisers run to the closing parenthesis of the macro call
        depth, i = 0, m.end()
        while i < len(src):
            c = src[i]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            i += 1
        head = src[m.end():i]
        cl = CLAUSES.search(head)
        if cl:
            ids = "".join(re.findall(r'"([^"]*)"', cl.group(1))).replace(",", " ").split()
            pages[(page, name)] = {c.split(".")[0] for c in ids}
        else:
            pages[(page, name)] = {page}
    return pages


def enclosing_case(src, pos):
    """The (page, name) of the last case head before pos, if the check is
    in its body; None in a helper function."""
    best = None
    for m in CASE_HEAD.finditer(src, 0, pos):
        best = m
    if not best:
        return None
    # a helper function defined after the case head ends the case
    between = src[best.end():pos]
    if re.search(r"^(?:static\s+)?[\w\s\*]+\b\w+\s*\([^;{]*\)\s*\{", between, re.M):
        return None
    return best.group(2), best.group(3)


def justified(lines, lineno):
    """A collateral: comment on the check's line or in the comment block
    right above it (lineno is 1-based)."""
    if JUSTIFIED.search(lines[lineno - 1]):
        return True
    i = lineno - 2
    block = []
    while i >= 0:
        s = lines[i].strip()
        if not s:
            break
        if s.startswith(("/*", "*", "//")) or s.endswith("*/"):
            block.insert(0, s)
            i -= 1
            continue
        break
    return bool(JUSTIFIED.search(" ".join(block)))


def scan(cases_dir):
    found = []
    for path in sorted(pathlib.Path(cases_dir).rglob("*.[ch]")):
        src = path.read_text()
        lines = src.splitlines()
        file_page = path.stem if path.stem.startswith("dat_") else None
        clause_pages = case_clause_pages(src)
        for m in CHECK.finditer(src):
            fn = m.group(1)
            if fn in NOT_A_PAGE:
                continue
            case = enclosing_case(src, m.start())
            if case and case in clause_pages:
                pages = clause_pages[case]
            elif case:
                pages = {case[0]}
            elif file_page:
                pages = {file_page}
            else:
                continue  # shared fixture header: its callers decide
            if page_of_call(fn) in pages:
                continue
            lineno = src.count("\n", 0, m.start()) + 1
            found.append((str(path), lineno, "/".join(sorted(pages)), fn,
                          justified(lines, lineno)))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases_dir", nargs="?", default="cases")
    ap.add_argument("--list", action="store_true",
                    help="list the justified collateral checks too")
    a = ap.parse_args()
    found = scan(a.cases_dir)
    bad = [f for f in found if not f[4]]
    for path, line, pages, fn, ok in found:
        if ok and not a.list:
            continue
        print(f"{path}:{line}: {'justified' if ok else 'collateral'}: "
              f"a check of {fn} charged to {pages}")
    print(f"{len(found)} checks through another page: "
          f"{len(found) - len(bad)} justified, {len(bad)} not", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
