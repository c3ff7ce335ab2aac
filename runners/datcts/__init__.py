"""datcts: the runner of the uDAPL (DAT 1.2) conformance test suite.

Run it as ``python3 -m datcts`` (with ``runners/`` on PYTHONPATH) or through
``bin/datcts``.  The formats it reads and writes are described in
docs/results-format.md.
"""

__version__ = "0.1.0"

# Version of results.json / results.jsonl (docs/results-format.md).
SCHEMA_VERSION = "datcts-results/1"

# Case states, best to worst.
STATES = ("PASS", "UNSUPPORTED", "UNRESOLVED", "FAIL", "TIMEOUT", "CRASH")
# States that make the exit code non-zero unless waived.
BAD_STATES = frozenset(("FAIL", "CRASH", "TIMEOUT", "UNRESOLVED"))
