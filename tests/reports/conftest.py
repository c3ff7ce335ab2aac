"""Fixtures of the report tests (tests/reports)."""

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
for p in (REPO / "reports", HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from datcts_reports import catalog  # noqa: E402

import helpers  # noqa: E402


@pytest.fixture(scope="session")
def ref_catalog():
    return catalog.load(helpers.DATA / "ref-catalog.json")


@pytest.fixture
def ref_doc():
    return helpers.ref_doc()


@pytest.fixture
def small_cat(tmp_path):
    return helpers.small_catalog(tmp_path)


@pytest.fixture(scope="session")
def out_dir() -> Path:
    """Where tests leave artifacts to look at (the screenshot): $DATCTS_TEST_OUT
    (ctest sets BUILD/tests/reports/out), else tests/reports/out in the build
    tree's absence."""
    d = Path(os.environ.get("DATCTS_TEST_OUT") or (REPO / "build" / "tests" / "reports" / "out"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def reports_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "reports"), str(REPO / "runners")] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
