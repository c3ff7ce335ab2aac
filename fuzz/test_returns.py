#!/usr/bin/env python3
"""ctest fuzz.returns_table: the API fuzzer's table of return types, made by
gen_returns.py from the catalog, has each page with the types its RETURN
VALUES lists (the page's `returns`) and those its clauses name, checked on a
few pages; gen_returns.py itself refuses a name that is not a DAT return
type."""
import re
import subprocess
import sys
import tempfile
from pathlib import Path

here = Path(__file__).resolve().parent
repo = here.parent


def table(out: Path) -> dict:
    subprocess.run([sys.executable, str(here / "gen_returns.py"), str(out), str(repo / "clauses"),
                    str(repo / "include" / "dat" / "dat_error.h")], check=True)
    rows = {}
    for line in out.read_text().splitlines():
        m = re.match(r'FZ_RETURNS\("([a-z_]+)", (\d+), (.*)\)$', line)
        if m:
            types = [t.strip() for t in m.group(3).split(",")]
            assert int(m.group(2)) == len(types), line
            rows[m.group(1)] = set(types)
    return rows


def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        rows = table(Path(d) / "r.inc")
    pages = {p.stem for p in (repo / "clauses").glob("dat_*.toml")}
    bad = []
    if set(rows) != pages:
        bad.append(f"pages differ: {sorted(set(rows) ^ pages)}")
    want = {
        "dat_pz_free": {"DAT_SUCCESS", "DAT_INVALID_HANDLE", "DAT_INVALID_STATE"},
        "dat_ep_recv_query": {"DAT_SUCCESS", "DAT_INVALID_HANDLE", "DAT_INVALID_PARAMETER",
                              "DAT_MODEL_NOT_SUPPORTED"},
        "dat_get_handle_type": {"DAT_SUCCESS", "DAT_INVALID_HANDLE"},
        # RETURN VALUES lists DAT_INSUFFICIENT_RESOURCES, which no clause checks
        # (no trigger described); DAT_LENGTH_ERROR comes from a DESCRIPTION clause
        "dat_ep_post_recv": {"DAT_SUCCESS", "DAT_INSUFFICIENT_RESOURCES",
                             "DAT_INVALID_PARAMETER", "DAT_INVALID_HANDLE",
                             "DAT_PROTECTION_VIOLATION", "DAT_PRIVILEGES_VIOLATION",
                             "DAT_LENGTH_ERROR"},
        # no man page (source = "headers"): the clauses' types only
        "dat_evd_create": None,
    }
    for page, types in want.items():
        if types is None:
            if page not in rows:
                bad.append(f"{page}: missing")
            continue
        if rows.get(page) != types:
            bad.append(f"{page}: {sorted(rows.get(page, ()))}, want {sorted(types)}")
    for b in bad:
        print(f"fuzz.returns_table: {b}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
