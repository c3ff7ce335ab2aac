"""`datcts variants`: the suite on each conforming variant of the reference
provider (reference-provider/core/profile.c, switched on with
DATREF_VARIANT=<id>).

A variant is a different legal provider: it chose differently where the man
pages leave the choice open (a smaller limit, an optional feature absent,
another legal value).  The rule this command enforces is that no variant is
judged NOT CONFORMANT: a case that fails a variant fails a provider that
conforms, so the case is wrong.  CONFORMANT and INCOMPLETE (clauses not
demonstrated where the variant really lacks what they need) are allowed and
listed.  Mutants (`datcts mutate`) are the other half: providers the suite
must fail.

Each variant is one `datcts run` into OUT/<variant>/ (results, report,
verdict); OUT/variants.json sums them up (docs/mutants.md, "Conforming
variants").
"""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SCHEMA = "datcts-variants/1"

# Read in a child process: loading the provider runs its constructors.
_LISTER = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
fn = lib.daplref_test_variant
fn.argtypes = [ctypes.c_int] + [ctypes.POINTER(ctypes.c_char_p)] * 3
out, i = [], 0
while True:
    v = [ctypes.c_char_p() for _ in range(3)]
    if fn(i, *(ctypes.byref(x) for x in v)):
        break
    out.append({"id": v[0].value.decode(), "allowed_by": v[1].value.decode(),
                "kind": v[2].value.decode()})
    i += 1
json.dump(out, sys.stdout)
"""


class VariantsError(Exception):
    """A usage or configuration problem (exit 2)."""


def add_parser(sub, add_build_opts) -> None:
    p = sub.add_parser(
        "variants",
        help="run the suite on each conforming variant of the reference provider; "
             "none may be NOT CONFORMANT")
    add_build_opts(p)
    p.add_argument("--ia", help="IA of the reference provider (default: ref-sock)")
    p.add_argument("--dat-conf", help="dat.conf (default: BUILD/dat.conf)")
    p.add_argument("--library", help="the provider library whose variant table is read "
                                     "(default: BUILD/lib/libdaplref.so)")
    p.add_argument("--variant", "-v", action="append",
                   help="variant id glob (repeat or comma-separate; default: all)")
    p.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="case runs in parallel within each variant's run")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per case run")
    p.add_argument("--out", default="out-variants", help="output directory")
    p.add_argument("--list", action="store_true", help="print the variants, run nothing")
    p.add_argument("--quiet", "-q", action="store_true", help="print only the summary")


def load_variants(library: Path) -> list[dict]:
    if not library.is_file():
        raise VariantsError(f"{library}: no such provider library (build the project)")
    # A sanitizer build's library wants the ASan runtime loaded first, which
    # python is not; the lister only reads a static table, so the order check
    # is switched off for it (the suite's runs load it properly).
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0"]))
    p = subprocess.run([sys.executable, "-c", _LISTER, str(library)],
                       capture_output=True, text=True, timeout=60, env=env)
    if p.returncode != 0:
        raise VariantsError(f"{library}: cannot read its variant table "
                            f"(daplref_test_variant): {p.stderr.strip()}")
    return json.loads(p.stdout)


def select(variants: list, globs: list | None) -> list:
    pats = [g for arg in globs or [] for g in arg.split(",") if g]
    if not pats:
        return variants
    picked = [v for v in variants if any(fnmatch.fnmatchcase(v["id"], g) for g in pats)]
    if not picked:
        raise VariantsError(f"no variant matches {', '.join(pats)}")
    return picked


def judge(variant: dict, out_dir: Path) -> dict:
    """One variant's entry of variants.json, from its run's files."""
    entry = dict(variant)
    try:
        verdict = json.loads((out_dir / "verdict.json").read_text())
        doc = json.loads((out_dir / "results.json").read_text())
    except (OSError, ValueError) as e:
        entry.update(verdict="error", label="NO VERDICT", explanation=f"{out_dir}: {e}")
        return entry
    attrs = ((doc["run"]["provider"].get("attributes") or {}).get("provider") or {})
    honoured = (attrs.get("provider_specific_attr") or {}).get("datcts.variant")
    provider = (verdict.get("subjects") or {}).get("provider") or verdict
    entry.update(
        verdict=provider["verdict"], label=provider["label"],
        explanation=provider["explanation"],
        honoured=honoured == variant["id"],
        failing_shall=[f["clause"] for f in provider.get("failing_shall") or []],
        not_demonstrated_shall=[{"clause": f["clause"], "why": f.get("why", "")}
                                for f in provider.get("not_demonstrated_shall") or []],
        unsupported_shall=list(provider.get("unsupported_shall") or []),
        not_passing=[{"id": r["id"], "state": r["state"], "message": r["message"]}
                     for r in doc["results"] if r["state"] != "PASS"],
        out=str(out_dir),
    )
    if not entry["honoured"]:
        entry.update(verdict="error", label="NOT HONOURED",
                     explanation=f"the provider reports datcts.variant={honoured!r}, "
                                 f"not {variant['id']!r}: the run judged another provider")
    return entry


def cmd_variants(args) -> int:
    build = Path(args.build_dir).resolve()
    library = Path(args.library) if args.library else build / "lib" / "libdaplref.so"
    variants = select(load_variants(library), args.variant)
    if args.list:
        for v in variants:
            print(f"{v['id']:<26} {v['kind']:<8} {v['allowed_by']}")
        return 0
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    dat_conf = args.dat_conf or str(build / "dat.conf")
    started = time.time()
    entries = []
    for v in variants:
        vdir = out / v["id"]
        cmd = [sys.executable, "-m", "datcts", "run", "--build-dir", str(build),
               "--ia", args.ia or "ref-sock", "--dat-conf", dat_conf, "--out", str(vdir),
               "--jobs", str(args.jobs), "--timeout", str(args.timeout), "--quiet"]
        env = dict(os.environ, DATREF_VARIANT=v["id"])
        env.pop("DATREF_MUTANT", None)
        t0 = time.time()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL if args.quiet else None)
        e = judge(v, vdir)
        e["seconds"] = round(time.time() - t0, 1)
        entries.append(e)
        if not args.quiet:
            print(f"variant {v['id']}: {e['label']}: {e['explanation']} ({e['seconds']} s)")
    bad = [e for e in entries if e["verdict"] in ("not-conformant", "error")]
    doc = {
        "schema": SCHEMA,
        "library": str(library),
        "elapsed_s": round(time.time() - started, 1),
        "summary": {
            "variants": len(entries),
            "conformant": sum(e["verdict"] == "conformant" for e in entries),
            "incomplete": sum(e["verdict"] == "incomplete" for e in entries),
            "not_conformant": sum(e["verdict"] == "not-conformant" for e in entries),
            "errors": sum(e["verdict"] == "error" for e in entries),
        },
        "variants": entries,
    }
    (out / "variants.json").write_text(json.dumps(doc, indent=1) + "\n")
    for e in bad:
        print(f"datcts: variant {e['id']} is {e['label']}: {e['explanation']}", file=sys.stderr)
        for c in e.get("failing_shall") or []:
            print(f"datcts:   fails {c}", file=sys.stderr)
    s = doc["summary"]
    print(f"datcts: {s['variants']} conforming variants: {s['conformant']} CONFORMANT, "
          f"{s['incomplete']} INCOMPLETE, {s['not_conformant']} NOT CONFORMANT"
          + (f", {s['errors']} without a verdict" if s["errors"] else "")
          + f" ({doc['elapsed_s']} s); {out / 'variants.json'}")
    return 1 if bad else 0
