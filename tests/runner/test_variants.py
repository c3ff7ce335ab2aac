"""datcts variants: how one variant's run is judged, and the selection."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "runners"))
from datcts import variants  # noqa: E402

VARIANT = {"id": "no-rmr", "kind": "feature", "allowed_by": "dat_rmr_create(3DAT) RETURN VALUES"}


def _run_dir(tmp_path, verdict, honoured="no-rmr", results=()):
    d = tmp_path / "no-rmr"
    d.mkdir()
    provider = {"verdict": verdict, "label": verdict.upper(),
                "explanation": "why", "failing_shall": [], "not_demonstrated_shall": [],
                "unsupported_shall": []}
    if verdict == "not-conformant":
        provider["failing_shall"] = [{"clause": "dat_pz_free.refused_while_in_use"}]
    (d / "verdict.json").write_text(json.dumps({"subjects": {"provider": provider}}))
    doc = {"run": {"provider": {"attributes": {"provider": {
        "provider_specific_attr": {"datcts.variant": honoured}}}}},
        "results": list(results)}
    (d / "results.json").write_text(json.dumps(doc))
    return d


def test_a_failing_clause_is_reported(tmp_path):
    fail = {"id": "dat_pz_free.refused_while_rmr_uses", "state": "FAIL", "message": "m"}
    e = variants.judge(VARIANT, _run_dir(tmp_path, "not-conformant", results=[fail]))
    assert e["verdict"] == "not-conformant"
    assert e["failing_shall"] == ["dat_pz_free.refused_while_in_use"]
    assert e["not_passing"] == [fail]


def test_a_conformant_variant(tmp_path):
    e = variants.judge(VARIANT, _run_dir(tmp_path, "conformant"))
    assert e["verdict"] == "conformant" and e["honoured"]


def test_a_variant_the_provider_did_not_switch_on_is_an_error(tmp_path):
    # a run of the plain provider says nothing of the variant
    e = variants.judge(VARIANT, _run_dir(tmp_path, "conformant", honoured=""))
    assert e["verdict"] == "error" and e["label"] == "NOT HONOURED"


def test_a_run_without_a_verdict_is_an_error(tmp_path):
    e = variants.judge(VARIANT, tmp_path / "missing")
    assert e["verdict"] == "error"


def test_select():
    vs = [{"id": "no-rmr"}, {"id": "no-srq"}, {"id": "few-eps"}]
    assert [v["id"] for v in variants.select(vs, ["no-*"])] == ["no-rmr", "no-srq"]
    assert [v["id"] for v in variants.select(vs, ["few-eps,no-srq"])] == ["no-srq", "few-eps"]
    assert variants.select(vs, None) == vs
    with pytest.raises(variants.VariantsError):
        variants.select(vs, ["nothing"])
