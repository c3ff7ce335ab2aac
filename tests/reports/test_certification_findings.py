"""tools/certification-findings.py --check: the failing provider clauses of certification runs
that map to no finding (docs/clauses.md, "Failing clauses of a certification")."""

import json
import subprocess
import sys

from conftest import REPO

TOOL = REPO / "tools" / "certification-findings.py"


def run_dir(tmp_path, name, failing):
    """A datcts run directory whose verdict fails the given clauses, one case each."""
    d = tmp_path / name
    d.mkdir()
    results = [{"id": cid, "state": "FAIL", "message": "check failed"} for cid in failing]
    (d / "results.json").write_text(json.dumps({"results": results}))
    (d / "verdict.json").write_text(json.dumps({
        "label": "NOT CONFORMANT",
        "failing_shall": [{"clause": cid, "cases": [{"id": cid}]} for cid in failing]}))
    return d


def check(*dirs):
    return subprocess.run([sys.executable, str(TOOL), "--check", *map(str, dirs)],
                          capture_output=True, text=True)


def test_a_clause_without_a_finding_fails_the_check(tmp_path):
    # dat_ep_get_status.recv_idle has a finding (ep-idle-flags-inverted); creates_pz has none
    a = run_dir(tmp_path, "ofa-v2-cma-rxe0",
                ["dat_ep_get_status.recv_idle", "dat_pz_create.creates_pz"])
    b = run_dir(tmp_path, "ofa-v2-scm-rxe0", ["dat_pz_create.creates_pz"])
    r = check(a, b)
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["dat_pz_create.creates_pz: ofa-v2-cma-rxe0, ofa-v2-scm-rxe0"]
    assert "1 of 3 failing (clause, IA) pairs map to a finding" in r.stderr


def test_mapped_and_registry_clauses_pass_the_check(tmp_path):
    # a registry clause is the registry's: its findings are in the certification document
    a = run_dir(tmp_path, "ofa-v2-cma-rxe0",
                ["dat_ep_get_status.recv_idle", "dat_strerror.success_code"])
    r = check(a)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == ""


def test_a_finding_accounts_only_for_the_ias_it_shows_on(tmp_path):
    # srq-resize-internal-error shows on cma-siw0 only (soft-iWARP cannot resize an SRQ): the
    # same clause failing on cma-rxe0 has another cause, which that finding does not explain
    siw = run_dir(tmp_path, "ofa-v2-cma-siw0", ["dat_srq_resize.below_outstanding_on_srq"])
    rxe = run_dir(tmp_path, "ofa-v2-cma-rxe0", ["dat_srq_resize.below_outstanding_on_srq"])
    assert check(siw).returncode == 0
    r = check(siw, rxe)
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["dat_srq_resize.below_outstanding_on_srq: ofa-v2-cma-rxe0"]
