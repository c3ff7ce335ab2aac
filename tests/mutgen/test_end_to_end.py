"""`datcts mutate --generated` end to end on one provider function, in a copy
of the tree: ref_pz_free of reference-provider/core/pz.c, its return-error
and field-assign-del mutants, the dat_pz_free cases.

The outcomes are constructed, not remembered:
* killed: the copy's ref_pz_free ends as the original does, `return
  DAT_SUCCESS` after freeing the PZ; dat_pz_free(3DAT) says a successful
  free returns DAT_SUCCESS, so a case freeing a PZ must fail when it is
  replaced by an error;
* survivor: the copy adds `pz->obj.destroy = pz_destroy;` before the free,
  a field that dat_pz_create already set to that value: removing the
  assignment changes nothing any case can see.

Needs the project's build (DATCTS_BUILD_DIR, set by ctest)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from datcts import mutgen_run

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("DATCTS_BUILD_DIR", ROOT / "build"))
REDUNDANT = "pz->obj.destroy = pz_destroy;"


@pytest.fixture(scope="module")
def tree(tmp_path_factory, cindex):
    if not (BUILD / "compile_commands.json").is_file() or not (BUILD / "dat.conf").is_file():
        pytest.skip(f"no configured and built project in {BUILD} (DATCTS_BUILD_DIR)")
    src = tmp_path_factory.mktemp("tree")
    pz = (ROOT / "reference-provider/core/pz.c").read_text()
    anchor = "\tref_obj_unregister(obj);\n\tref_obj_free(pz);\n"
    assert pz.count(anchor) == 1, "ref_pz_free's end changed: update the construction"
    mutgen_run.sync_tree(ROOT, src, {
        "reference-provider/core/pz.c": pz.replace(anchor, f"\t{REDUNDANT}\n" + anchor).encode()})
    return src


def run(tree: Path, out: Path, *extra) -> subprocess.CompletedProcess:
    argv = [str(ROOT / "bin/datcts"), "mutate", "--generated", "--source-dir", str(tree),
            "--build-dir", str(BUILD), "--files", "pz.c", "--functions", "ref_pz_free",
            "--operators", "return-error,field-assign-del", "--page", "dat_pz_free",
            "--jobs", "2", "--out", str(out), "-q", *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def test_killed_and_survivor_then_triage(tree, tmp_path):
    out = tmp_path / "out"
    p = run(tree, out)
    assert p.returncode == 0, p.stderr
    doc = json.loads((out / "generated-mutants.json").read_text())
    assert doc["schema"] == "datcts-generated-mutants/1"
    mutants = {m["id"]: m for m in doc["mutants"]}
    assert {m["function"] for m in mutants.values()} == {"ref_pz_free"}
    assert {m["operator"] for m in mutants.values()} == {"return-error", "field-assign-del"}

    survivor = [m for m in mutants.values() if m["original"] + ";" == REDUNDANT]
    assert len(survivor) == 1
    survivor = survivor[0]
    assert survivor["status"] == "survived", survivor
    assert survivor["runs"] and all(r["state"] in ("PASS", "UNSUPPORTED")
                                    for r in survivor["runs"])
    assert survivor["id"] in doc["untriaged_survivors"]

    last_return = max((m for m in mutants.values() if m["operator"] == "return-error"),
                      key=lambda m: m["line"])
    assert last_return["original"] == "DAT_SUCCESS"
    assert last_return["status"] == "killed", last_return
    cov = json.loads((out / "coverage-map.json").read_text())["cases"]
    for cid in last_return["killed_by"]:
        assert cid.startswith("dat_pz_free.")
        assert cov[cid]["state"] == "PASS"          # it passes without the mutant
        assert last_return["line"] in cov[cid]["lines"]["reference-provider/core/pz.c"]
    # the summary counts what the mutants say, per file and function
    fn = doc["files"]["reference-provider/core/pz.c"]["functions"]["ref_pz_free"]["counts"]
    assert sum(fn.values()) == len(mutants)
    assert fn["survived"] == sum(m["status"] == "survived" for m in mutants.values())
    assert "SURVIVED " + survivor["id"] in p.stdout
    # the run's killers, for the next run's --history
    killers = json.loads((out / "killers.json").read_text())
    assert killers["killers"][last_return["id"]] == last_return["killed_by"][0]
    assert survivor["id"] not in killers["killers"]
    # a history that names another case reaching it, not the one that ran first
    named = sorted(cid for cid, c in cov.items() if cid.startswith("dat_pz_free.") and
                   c["state"] == "PASS" and cid != last_return["runs"][0]["id"] and
                   last_return["line"] in c["lines"].get("reference-provider/core/pz.c", []))
    assert named, "no second case reaches the last return: update the construction"
    history = tmp_path / "killers.json"
    history.write_text(json.dumps({"schema": killers["schema"],
                                   "killers": {last_return["id"]: named[0]}}))

    # an untriaged survivor fails --threshold; triaged equivalent, it does not,
    # and a triage of a mutant that no longer exists is stale
    assert run(tree, out, "--threshold", "1").returncode == 1
    triage = tmp_path / "triage.toml"
    gone = "core/pz.c:ref_pz_free:call-del:99:000000"
    triage.write_text(f'["{survivor["id"]}"]\nkind = "equivalent"\n'
                      f'reason = "dat_pz_create set the same destroy callback"\n'
                      f'["{gone}"]\nkind = "gap"\ncloses = "nothing: it is gone"\n')
    p = run(tree, out, "--threshold", "1", "--triage", str(triage))
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads((out / "generated-mutants.json").read_text())
    assert doc["untriaged_survivors"] == []
    assert doc["stale_triages"] == [gone]
    assert doc["summary"]["excluded_by_triage"] >= 1

    # --trust-triage (the CI sample): the triaged survivor is not run again
    # and counts as its triage says; the other mutants still run
    # --history: the killer it names runs first for its mutant
    p = run(tree, out, "--threshold", "1", "--triage", str(triage), "--trust-triage",
            "--history", str(history))
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads((out / "generated-mutants.json").read_text())
    again = {m["id"]: m for m in doc["mutants"]}
    assert again[last_return["id"]]["runs"][0]["id"] == named[0]
    assert doc["run"]["history"] == str(history) and doc["run"]["history_used"] == 1
    assert again[survivor["id"]]["status"] == "survived"
    assert again[survivor["id"]]["rerun"] is False and again[survivor["id"]]["runs"] == []
    assert again[last_return["id"]]["status"] == "killed" and again[last_return["id"]]["runs"]
    assert doc["run"]["not_rerun"] == 1 and doc["summary"]["excluded_by_triage"] >= 1
    assert "not re-run" in p.stdout
