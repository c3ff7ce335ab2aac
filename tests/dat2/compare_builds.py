#!/usr/bin/env python3
"""ctest dat2.suite_ref_sock: the DAT 2.0 build of the cases (BUILD/cases2, libdat2) on
libdaplref2 gives every case the state the DAT 1.2 build (BUILD/cases, libdat) gives it on
libdaplref, natively on sock. The only differences allowed are the libdat2 findings waived in
libdat2-findings.toml, and each of those must still not pass (a waiver that is no longer
needed fails the test, so a change in libdat2 or in a case is seen).

    compare_builds.py REPO BUILD OUT [RESULTS_12]

RESULTS_12: the results.json of a finished, whole 1.2 run of BUILD on ref-sock (ctest passes
suite.ref_sock's); without it, or when that run is incomplete, the 1.2 build runs here.
"""
import json
import subprocess
import sys
from pathlib import Path


# Cases that pass on libdat2 while their last abrupt dat_ia_close (DC_CLEANUP)
# gets DAT_PROVIDER_NOT_FOUND from libdat2 (libdat2-findings.toml, the end).
CLOSE_AFTER_CHECKS_REFUSED = ("dat_registry_add_provider.multiple_registrations",
                              "dat_registry_add_provider.duplicate_refused",
                              "dat_provider_init.explicit_load")


def run(repo, build, out, *args):
    cmd = [str(repo / "bin" / "datcts"), "run", "--build-dir", str(build), "--out", str(out),
           "-q", *args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    doc = json.loads((out / "results.json").read_text())
    return p.returncode, doc, p.stdout


def finished_run(path, build):
    """The document of a complete 1.2 run of @build on ref-sock at @path, else None."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    run_ = doc.get("run") or {}
    dat = run_.get("dat") or {}
    whole = not any((run_.get("filters") or {}).values())
    if (not run_.get("complete") or not whole or dat.get("api") != "1.2" or
            (run_.get("provider") or {}).get("ia") != "ref-sock" or
            Path(run_.get("build_dir") or "").resolve() != build):
        return None
    return doc


def beyond_own_bound(result: dict) -> bool:
    """The case ended at a bound of its own (DC_BEYOND_SUITE_BOUND: not reached in its time)."""
    return ((result.get("cause") or {}).get("needs") or {}).get("kind") == "suite_bound"


def main():
    repo, build, out = (Path(a).resolve() for a in sys.argv[1:4])
    findings = Path(__file__).resolve().parent / "libdat2-findings.toml"
    d12 = finished_run(Path(sys.argv[4]), build) if len(sys.argv) > 4 else None
    if d12 is None:
        _, d12, _ = run(repo, build, out / "dat12", "--dat-conf", str(build / "dat.conf"),
                        "--ia", "ref-sock")
    else:
        print(f"1.2 build: the results of {sys.argv[4]}")
    rc20, d20, log20 = run(repo, build, out / "dat20", "--dat-conf", str(build / "dat2.conf"),
                           "--ia", "ref-sock", "--expectations", str(findings))
    bad = []
    dat = d20["run"].get("dat") or {}
    if dat.get("api") != "2.0" or (dat.get("registry") or {}).get("name") != "libdat2":
        bad.append(f"the 2.0 run did not record DAT 2.0 through libdat2: run.dat = {dat}")
    s12 = {r["id"]: r for r in d12["results"]}
    s20 = {r["id"]: r for r in d20["results"]}
    if set(s12) != set(s20):
        bad.append(f"case sets differ: only 1.2 {sorted(set(s12) - set(s20))[:5]}, "
                   f"only 2.0 {sorted(set(s20) - set(s12))[:5]}")
    for cid in sorted(set(s12) & set(s20)):
        a, b = s12[cid], s20[cid]
        if b.get("waived_but_passing"):
            bad.append(f"{cid}: waived as a libdat2 finding but passes now")
        elif b.get("waived"):
            continue
        elif a["state"] != b["state"] and (beyond_own_bound(a) or beyond_own_bound(b)):
            # a case that stopped at its own time bound gave no result of its build: the
            # machine's load decides it (dat_ia_close.no_memory_growth_only_instance met it in
            # the 1.2 run beside variants-quick, where the 2.0 run passed)
            print(f"note: {cid}: 1.2 {a['state']}, 2.0 {b['state']}: stopped at its own bound "
                  "in one build, not compared")
        elif a["state"] != b["state"]:
            bad.append(f"{cid}: 1.2 {a['state']}, 2.0 {b['state']}: {b['message'][:200]}")
    for cid in CLOSE_AFTER_CHECKS_REFUSED:
        got = [(c.get("call"), (c.get("return") or {}).get("type"),
                (c.get("return") or {}).get("answered_by"))
               for c in (s20.get(cid) or {}).get("cleanup_failures") or []]
        if ("dat_ia_close", "DAT_PROVIDER_NOT_FOUND", "registry") not in got:
            bad.append(f"{cid}: libdat2's refused dat_ia_close after the checks is no longer "
                       f"recorded (cleanup_failures: {got}); revisit libdat2-findings.toml")
    n_waived = sum(1 for r in d20["results"] if r.get("waived"))
    print(f"1.2 build: {d12['summary']['states']}")
    print(f"2.0 build: {d20['summary']['states']} ({n_waived} libdat2 findings waived)")
    for line in bad:
        print("DIFFERENCE " + line)
    if rc20 not in (0, 1):
        print(log20[-2000:])
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
