"""datcts_reports: compliance reports for datcts runs.

results.json (written by the runner, the source of truth) + the clause
catalog (clauses/*.toml) -> coverage, verdict, an HTML report, JUnit XML,
a run-to-run diff and a verifiable submission bundle.

Formats: docs/results-format.md ("Reports").  Stdlib + Jinja2 only.
"""

from pathlib import Path

__version__ = "0.1.0"

# The results.json format this package reads and validates.
RESULTS_SCHEMA = "datcts-results/1"
CATALOG_SCHEMA = "datcts-catalog/1"
VERDICT_SCHEMA = "datcts-verdict/5"     # /4, and a crash after UNSUPPORTED leaves it unsupported
VERDICT_SCHEMA_V4 = "datcts-verdict/4"  # three outcomes, decided by what was observed (older bundles)
VERDICT_SCHEMA_V3 = "datcts-verdict/3"  # three outcomes, the worst case decides (older bundles)
VERDICT_SCHEMA_V2 = "datcts-verdict/2"  # two outcomes, per subject (older bundles)
VERDICT_SCHEMA_V1 = "datcts-verdict/1"  # one verdict over all clauses (older bundles)
BUNDLE_SCHEMA = "datcts-bundle/1"
DIFF_SCHEMA = "datcts-diff/1"

# Case states, best to worst (same order as the runner's).
STATES = ("PASS", "UNSUPPORTED", "UNRESOLVED", "FAIL", "TIMEOUT", "CRASH")
BAD_STATES = frozenset(("FAIL", "CRASH", "TIMEOUT", "UNRESOLVED"))

LEVELS = ("shall", "should", "may", "qoi")

# The repository this package sits in (reports/datcts_reports/..).
REPO = Path(__file__).resolve().parents[2]
DEFAULT_CATALOG = REPO / "clauses"
TEMPLATES = Path(__file__).resolve().parent / "templates"
try:  # installed: `cmake --install` wrote where the catalog and templates are
    from datcts_reports import _installed
except ImportError:
    _installed = None
else:
    DEFAULT_CATALOG = _installed.CATALOG
    TEMPLATES = _installed.TEMPLATES


class ReportError(Exception):
    """A report input is missing or malformed; the message says which and why."""
