#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Output lint: every output the pages and headers define is named by a
clause, and a case of that clause reads it (docs/clauses.md, "Outputs").

The outputs, derived here from the DAT 1.2 headers (include/dat/) and the
SYNOPSIS of each page (../shared/spec/man3dat/rendered, or --pages):

  * each field of each event's data, for each way the event arises:
    DAT_EVENT's own event_number and evd_handle, and the members of the
    event's DAT_EVENT_DATA member, e.g.
    DAT_CONNECTION_REQUEST_EVENT@rsp.cr_arrival_event_data.conn_qual;
  * each member of each structure a query returns (DAT_IA_ATTR.max_eps,
    DAT_EP_PARAM.ep_attr.max_recv_iov, ...);
  * each other OUT parameter of a page's SYNOPSIS (dat_lmr_create:
    registered_size).

clauses/outputs.toml maps each output to the clause ids that check it, or
declares it unspecified (where the pages leave the value to the provider or
never define it) with the reason.  The lint fails (exit 1) on:

  * an output that the map does not list;
  * a mapped clause that does not exist;
  * an output whose clauses no case file reads: the output's last member name
    (or parameter name) must occur in a case source of one of its clauses
    (the case's own file, or a header of its area);
  * an entry of the map that names no output (stale).

Usage: tools/lint-outputs.py [--list] [--draft] [--root DIR] [--pages DIR]
  --list    print every output with what checks it
  --draft   print TOML entries for the unmapped outputs (clauses guessed from
            the words of their page's catalog) to start a review from
"""
import argparse
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]

# DAT_EVENT_DATA's member for each event number (the DAT 1.2 header's union)
# and the ways the pages make the event arise.
EVENT_DATA = {
    "DAT_DTO_COMPLETION_EVENT": ("dto_completion_event_data",
                                 ["send", "recv", "rdma_read", "rdma_write"]),
    "DAT_RMR_BIND_COMPLETION_EVENT": ("rmr_completion_event_data", [""]),
    "DAT_CONNECTION_REQUEST_EVENT": ("cr_arrival_event_data",
                                     ["psp", "psp_provider", "rsp"]),
    "DAT_CONNECTION_EVENT_ESTABLISHED": ("connect_event_data", ["active", "passive"]),
    "DAT_CONNECTION_EVENT_PEER_REJECTED": ("connect_event_data", [""]),
    "DAT_CONNECTION_EVENT_NON_PEER_REJECTED": ("connect_event_data", [""]),
    "DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR": ("connect_event_data", [""]),
    "DAT_CONNECTION_EVENT_DISCONNECTED": ("connect_event_data", [""]),
    "DAT_CONNECTION_EVENT_BROKEN": ("connect_event_data", [""]),
    "DAT_CONNECTION_EVENT_TIMED_OUT": ("connect_event_data", [""]),
    "DAT_CONNECTION_EVENT_UNREACHABLE": ("connect_event_data", [""]),
    "DAT_ASYNC_ERROR_EVD_OVERFLOW": ("asynch_error_event_data", [""]),
    "DAT_ASYNC_ERROR_IA_CATASTROPHIC": ("asynch_error_event_data", [""]),
    "DAT_ASYNC_ERROR_EP_BROKEN": ("asynch_error_event_data", [""]),
    "DAT_ASYNC_ERROR_TIMED_OUT": ("asynch_error_event_data", [""]),
    "DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR": ("asynch_error_event_data", [""]),
    "DAT_SOFTWARE_EVENT": ("software_event_data", [""]),
}

# structures a query returns through an OUT parameter, expanded member by member
QUERY_STRUCTS = {"DAT_IA_ATTR", "DAT_PROVIDER_ATTR", "DAT_EP_PARAM", "DAT_SRQ_PARAM",
                 "DAT_LMR_PARAM", "DAT_RMR_PARAM", "DAT_PZ_PARAM", "DAT_PSP_PARAM",
                 "DAT_RSP_PARAM", "DAT_CR_PARAM", "DAT_EVD_PARAM", "DAT_CNO_PARAM"}
# the page whose query returns each (used where the pages are not at hand)
QUERY_PAGE = {"DAT_IA_ATTR": "dat_ia_query", "DAT_PROVIDER_ATTR": "dat_ia_query",
              "DAT_EP_PARAM": "dat_ep_query", "DAT_SRQ_PARAM": "dat_srq_query",
              "DAT_LMR_PARAM": "dat_lmr_query", "DAT_RMR_PARAM": "dat_rmr_query",
              "DAT_PZ_PARAM": "dat_pz_query", "DAT_PSP_PARAM": "dat_psp_query",
              "DAT_RSP_PARAM": "dat_rsp_query", "DAT_CR_PARAM": "dat_cr_query",
              "DAT_EVD_PARAM": "dat_evd_query", "DAT_CNO_PARAM": "dat_cno_query"}
assert set(QUERY_PAGE) == QUERY_STRUCTS
# members that are structures of their own, expanded one level further
NESTED = {"DAT_EP_ATTR"}

# OUT parameters a rendered SYNOPSIS marks IN: dat_psp_create_any(3DAT) lists
# conn_qual as IN, while its RETURN VALUES (and the header's DAT_CONN_QUAL *)
# return the allocated qualifier through it
SYNOPSIS_OUT = {"dat_psp_create_any": [("DAT_CONN_QUAL", "conn_qual")]}

OUT_PARAM = re.compile(r"^\s+(?:OUT|INOUT)\s+((?:const\s+)?\w+)\s+(\**)\(?(\w+)")
STRUCT = re.compile(r"typedef\s+(struct|union)\s+\w*\s*\{([^{}]*)\}\s*(\w+)\s*;")
NAMED_STRUCT = re.compile(r"struct\s+(\w+)\s*\{([^{}]*)\}\s*;")
TYPEDEF_TAG = re.compile(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;")
MEMBER = re.compile(r"^\s*(?:const\s+)?(?:struct\s+)?(\w+)\s+\**\s*(\w+)\s*(?:\[[^\]]*\])*\s*;",
                    re.M)
DC_CASE = re.compile(r"\b(?:DC_CASE|DC_TWO_NODE_CASE|SRQ_CASE|STATE_CASE\w*)\(\s*(dat_\w+)\s*,\s*(\w+)")
# harness checks that read a member for the case (harness/dc_events.h): a case
# that uses one reads the member even where its own text never names it
HARNESS_READS = {
    "event_number": re.compile(r"\b(?:DC_ASSERT_EVENT|DC_ASSERT_CONN_EVENT|DC_ASSERT_DTO)\("),
    "ep_handle": re.compile(r"\bDC_ASSERT_CONN_EVENT\("),
    "user_cookie": re.compile(r"\bDC_ASSERT_DTO\("),
    "status": re.compile(r"\bDC_ASSERT_DTO\("),
}


def structs(include: pathlib.Path) -> dict:
    """{typedef name: [(member type, member name)]} of the DAT headers."""
    text = "\n".join(p.read_text() for p in sorted(include.glob("*.h")))
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = {}
    for _, body, name in STRUCT.findall(text):
        out[name] = MEMBER.findall(body)
    tags = {tag: body for tag, body in NAMED_STRUCT.findall(text)}
    for tag, name in TYPEDEF_TAG.findall(text):
        if tag in tags:
            out[name] = MEMBER.findall(tags[tag])
    return out


def page_out_params(pages: pathlib.Path) -> dict:
    """{page: [(type, name)]} of the OUT and INOUT parameters of each SYNOPSIS."""
    out = {}
    for p in sorted(pages.glob("dat_*.3dat.txt")):
        page = p.name.split(".")[0]
        text = p.read_text(errors="replace")
        syn = text.split("PARAMETERS", 1)[0]
        params = [(m.group(1).replace("const ", ""), m.group(3))
                  for m in map(OUT_PARAM.match, syn.splitlines()) if m]
        params += SYNOPSIS_OUT.get(page, [])
        if params:
            out[page] = params
    return out


def members(st: dict, typ: str) -> list:
    """The outputs of a structure a query returns: each member, a NESTED
    structure's members one level further."""
    out = []
    for mt, mn in st[typ]:
        if mt in NESTED:
            out += [f"{typ}.{mn}.{n2}" for _, n2 in st[mt]]
        else:
            out.append(f"{typ}.{mn}")
    return out


def outputs(include: pathlib.Path, pages: pathlib.Path) -> dict:
    """{output name: page whose clauses should name it}"""
    st = structs(include)
    res = {}
    for ev, (member, ways) in EVENT_DATA.items():
        data_type = dict((n, t) for t, n in st["DAT_EVENT_DATA"])[member]
        for way in ways:
            key = ev + (f"@{way}" if way else "")
            res[f"{key}.event_number"] = "dat_evd_wait"
            res[f"{key}.evd_handle"] = "dat_evd_wait"
            for _, field in st[data_type]:
                res[f"{key}.{member}.{field}"] = "dat_evd_wait"
    if pages is None:
        # a clone without the pages (CI): each structure a query returns is
        # still an output, credited to the page whose query returns it
        for typ, page in QUERY_PAGE.items():
            res.update(dict.fromkeys(members(st, typ), page))
    for page, params in (page_out_params(pages) if pages else {}).items():
        for typ, name in params:
            if typ in QUERY_STRUCTS:
                res.update(dict.fromkeys(members(st, typ), page))
            elif typ != "DAT_EVENT":
                res[f"{page}:{name}"] = page
    return res


def catalog(root: pathlib.Path) -> dict:
    """{clause id: clause} of clauses/*.toml"""
    out = {}
    for p in sorted((root / "clauses").glob("dat_*.toml")):
        with p.open("rb") as f:
            for c in tomllib.load(f).get("clause", []):
                out[c["id"]] = c
    return out


def case_sources(root: pathlib.Path) -> dict:
    """{clause id: set of case source texts that check it}: a case file checks
    the clauses its text names and those of its cases without .clauses (the
    id is then the case's own); each file comes with its area's headers."""
    out: dict = {}
    for area in sorted((root / "cases").iterdir()):
        if not area.is_dir():
            continue
        headers = "\n".join(h.read_text() for h in sorted(area.glob("*.h")))
        for src in sorted(area.glob("*.c")):
            text = src.read_text()
            whole = text + "\n" + headers
            ids = set(re.findall(r"\b(dat_\w+\.\w+)\b", text))
            ids |= {f"{p}.{n}" for p, n in DC_CASE.findall(text)}
            for cid in ids:
                out.setdefault(cid, []).append(whole)
    return out


def last_name(output: str) -> str:
    return re.split(r"[.:]", output)[-1]


def reads(output: str, text: str) -> bool:
    """The floor of "a case reads the output": its last member name (or
    parameter name) occurs in the case source, or the source uses a harness
    check that reads that member; for an OUT parameter (page:name), whose
    name in a case is the case's own variable, a call of the page's function
    also counts."""
    last = last_name(output)
    if re.search(r"\b" + re.escape(last) + r"\b", text):
        return True
    if last in HARNESS_READS and HARNESS_READS[last].search(text):
        return True
    if ":" in output:
        fn = output.split(":")[0]
        return re.search(r"\b(?:dc_)?" + re.escape(fn) + r"\(", text) is not None
    return False


def read_map(path: pathlib.Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


def check(root: pathlib.Path, pages: pathlib.Path, listing: bool) -> list:
    outs = outputs(root / "include/dat", pages)
    mapping = read_map(root / "clauses/outputs.toml")
    if pages is None:
        # without the pages, the OUT parameters the map lists are taken as given
        outs.update({n: n.split(":")[0] for n in mapping if ":" in n})
    cat = catalog(root)
    srcs = case_sources(root)
    problems = []
    for name in sorted(outs):
        entry = mapping.get(name)
        if entry is None:
            problems.append(f"{name}: no clause names it (clauses/outputs.toml)")
            continue
        if "unspecified" in entry:
            if listing:
                print(f"{name}: unspecified: {entry['unspecified']}")
            continue
        ids = entry.get("clauses", [])
        if not ids:
            problems.append(f"{name}: neither clauses nor unspecified")
            continue
        missing = [c for c in ids if c not in cat]
        if missing:
            problems.append(f"{name}: no such clause {', '.join(missing)}")
            continue
        if not any(reads(name, t) for c in ids for t in srcs.get(c, [])):
            problems.append(f"{name}: no case of {', '.join(ids)} reads "
                            f"{last_name(name)}")
            continue
        if listing:
            print(f"{name}: {', '.join(ids)}")
    for name in sorted(set(mapping) - set(outs)):
        problems.append(f"{name}: in clauses/outputs.toml but not an output")
    return problems


def draft(root: pathlib.Path, pages: pathlib.Path) -> None:
    outs = outputs(root / "include/dat", pages)
    mapping = read_map(root / "clauses/outputs.toml") \
        if (root / "clauses/outputs.toml").exists() else {}
    cat = catalog(root)
    srcs = case_sources(root)
    for name, page in sorted(outs.items()):
        if name in mapping:
            continue
        word = re.compile(r"\b" + re.escape(last_name(name)) + r"\b")
        if name.startswith("DAT_") and "@" in name or name.split(".")[0] in EVENT_DATA:
            ev = name.split(".")[0].split("@")[0]
            cands = [c for c in cat.values()
                     if ev in (c["text"] + c["expect"]) and word.search(c["text"] + c["expect"])]
        else:
            cands = [c for c in cat.values() if c["id"].startswith(page + ".")
                     and word.search(c["text"] + " " + c["expect"])]
        cands = [c for c in cands if any(word.search(t) for t in srcs.get(c["id"], []))]
        ids = ", ".join(f'"{c["id"]}"' for c in cands[:3])
        print(f'"{name}" = {{ clauses = [{ids}] }}' if ids else f'# "{name}" = ?')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=pathlib.Path, default=ROOT)
    ap.add_argument("--pages", type=pathlib.Path,
                    default=ROOT.parent / "shared/spec/man3dat/rendered")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--draft", action="store_true")
    a = ap.parse_args()
    if not a.pages.is_dir():
        # a clone without ../shared (CI): the OUT parameters come from the map
        print(f"lint-outputs: no rendered pages at {a.pages}: the OUT parameters "
              "of clauses/outputs.toml are taken as listed", file=sys.stderr)
        a.pages = None
    if a.draft:
        draft(a.root, a.pages)
        return 0
    problems = check(a.root, a.pages, a.list)
    for p in problems:
        print(p)
    print(f"lint-outputs: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
