#!/usr/bin/env python3
"""Learning unreported attributes (harness/learn.c), proven on a provider
that does not report them: the hand-written mutant
ia-query-srq-attrs-unwritten leaves srq_supported, srq_watermarks_supported,
srq_ep_pz_difference_supported, srq_info_supported and ep_recv_info_supported
as the Consumer's memory had them, as OFA dapl 2.1.10 does
(docs/certification/ofa-dapl-2.1.10/prov-attr-unfilled.md).

Checks, against the reference provider run the same way without the mutant:
- dat_ia_query.fills_requested fails (the defect is charged where it is);
- every case of the SRQ pages and dat_ep_recv_query that passes without the
  mutant passes with it, except the cases whose clause is about the
  attribute's report itself (DC_NEED_REPORTED: those may not learn);
- each of those passing cases that needed an unreported attribute records
  what it learned ("learned" in its result), from the page's own call.

usage: check_learning.py BUILD_DIR OUT_DIR
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MUTANT = "ia-query-srq-attrs-unwritten"
PAGES = "dat_srq_*,dat_ep_recv_query,dat_ep_create_with_srq,dat_ia_query"
UNWRITTEN = {"srq_supported", "srq_watermarks_supported", "srq_ep_pz_difference_supported",
             "srq_info_supported", "ep_recv_info_supported"}


def datcts(*args, env=None) -> None:
    subprocess.run([str(REPO / "bin" / "datcts"), *args], check=False, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1500)


def results(out: Path) -> dict:
    d = json.loads((out / "results.json").read_text())
    if not d["run"].get("complete"):
        sys.exit(f"check_learning: the run in {out} did not finish")
    return {r["id"]: r for r in d["results"]}


def needs_reported(case_ids: list) -> set:
    """The cases that use DC_NEED_REPORTED (the source is the catalog of it)."""
    out = set()
    for src in (REPO / "cases").rglob("*.c"):
        text = src.read_text()
        for block in text.split("DC_CASE(")[1:]:
            head, _, body = block.partition("{")
            page, _, name = head.partition(",")
            cid = f"{page.strip()}.{name.split(',')[0].split(')')[0].strip()}"
            if "DC_NEED_REPORTED(" in body:
                out.add(cid)
    return out & set(case_ids)


def main() -> int:
    build, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # the mutant's copy (datcts mutate builds it, and checks the kill by its clause)
    datcts("mutate", "--build-dir", str(build), "-m", MUTANT, "--out", str(out / "mutate"), "-q")
    conf = out / "mutate" / "hand-dat.conf"
    if not conf.is_file():
        print(f"check_learning: no {conf}: the mutant's copy was not built")
        return 1
    kill = json.loads((out / "mutate" / "mutants.json").read_text())
    base_env = {k: v for k, v in os.environ.items()
                if k not in ("DATREF_MUTANT", "DATLIB_MUTANT", "DATREF_VARIANT")}
    datcts("run", "--build-dir", str(build), "--page", PAGES, "--out", str(out / "baseline"),
           "-q", env=base_env)
    datcts("run", "--build-dir", str(build), "--dat-conf", str(conf), "--page", PAGES,
           "--out", str(out / "unreported"), "-q", env={**base_env, "DATREF_MUTANT": MUTANT})
    base, mut = results(out / "baseline"), results(out / "unreported")
    bad = []
    m = next((x for x in kill.get("mutants", []) if x.get("id") == MUTANT), None)
    if not m or m.get("status") != "killed":
        bad.append(f"{MUTANT} is not killed by its clause in {out / 'mutate'}")
    if mut.get("dat_ia_query.fills_requested", {}).get("state") != "FAIL":
        bad.append("dat_ia_query.fills_requested does not fail with the attributes unwritten")
    iff = needs_reported(list(base))
    judged = learned = 0
    for cid, r in sorted(base.items()):
        if r["state"] != "PASS" or cid in iff or cid.startswith("dat_ia_query."):
            continue
        got = mut.get(cid)
        if not got or got["state"] != "PASS":
            bad.append(f"{cid}: PASS without the mutant, {got and got['state']} with it"
                       f" ({got and got.get('message')})")
            continue
        judged += 1
        if any(x.get("attribute") in UNWRITTEN for x in got.get("learned", [])):
            learned += 1
    if learned == 0:
        bad.append("no passing case recorded a learned attribute")
    print(f"check_learning: {judged} cases of the SRQ pages pass with the attributes unwritten, "
          f"{learned} of them by what they learned; {len(iff)} about the report itself left out")
    for b in bad:
        print("  BAD", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
