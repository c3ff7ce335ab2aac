"""Fixtures of the store tests: runs made from the real run in
tests/reports/data (ref-run.json, its catalog ref-catalog.json) with chosen
clauses turned failing or passing, and a store of each kind: SQLite in a
temp dir, and PostgreSQL in a throw-away cluster this session starts
(initdb + pg_ctl, unix socket only, as an unprivileged user when root)."""

import copy
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
for p in (REPO / "reports", REPO / "runners", REPO / "tests" / "reports"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import helpers  # noqa: E402  (tests/reports/helpers.py: fix_summary)

CATALOG = helpers.DATA / "ref-catalog.json"
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def base_doc() -> dict:
    return helpers.ref_doc()


def passing_cases(doc: dict, n: int) -> list[str]:
    """The first n PASS cases that each check one shall clause of the
    provider, a different one each (so failing a case moves exactly its
    clause)."""
    from datcts_reports import catalog as catalog_mod
    cat = catalog_mod.load(CATALOG)
    out, seen = [], set()
    for r in doc["results"]:
        c = cat.clauses.get(r["clauses"][0])
        if r["state"] == "PASS" and len(r["clauses"]) == 1 and c is not None \
                and c.level == "shall" and c.subject == "provider" and not c.contested \
                and not r.get("waiver") and c.id not in seen:
            out.append(r["id"])
            seen.add(c.id)
            if len(out) == n:
                return out
    raise LookupError(f"fewer than {n} single-clause PASS cases")


def make_run(*, started: str, ia: str | None = None, library: str | None = None,
             fail=(), passing=(), host: str | None = None, doc: dict | None = None) -> dict:
    """ref-run.json as another run: its own start, optionally another
    provider (IA, library) or host, the cases `fail` failing their check and
    the cases `passing` passing."""
    d = copy.deepcopy(doc or base_doc())
    run = d["run"]
    run["started"] = started
    run["finished"] = started[:14] + "59:59+00:00"  # within the hour it started
    if ia:
        run["provider"]["ia"] = ia
    if library:
        run["provider"]["library"] = library
    if host:
        run["system"]["hostname"] = host
    by_id = {r["id"]: r for r in d["results"]}
    for cid in fail:
        r = by_id[cid]
        r.update(state="FAIL", message=f"{cid}: expected DAT_SUCCESS, got DAT_INVALID_STATE "
                 f"at {r['file']}:{r['line']}", exit_status=1,
                 cause={"phase": "check", "call": "dat_x", "expr": "dat_x(h)",
                        "return": None, "answered_by": "provider"})
        r["output"] = (r.get("output") or "") + f"failing output of {cid}\n"
    for cid in passing:
        r = by_id[cid]
        r.update(state="PASS", message="", signal=None, exit_status=0)
        for k in ("cause", "reached", "teardown_failure", "cleanup_failures", "clause_at"):
            r.pop(k, None)
    return helpers.fix_summary(d)


def write_run(dirpath: Path, doc: dict, report=True) -> Path:
    """A run directory; with the report the runner would have left (rendered
    here, so ingest does not render one per process)."""
    from datcts_reports import catalog as catalog_mod
    from datcts_reports.analysis import Analysis
    from datcts_reports.html import write_report

    dirpath.mkdir(parents=True, exist_ok=True)
    (dirpath / "results.json").write_text(json.dumps(doc, indent=1))
    if report:
        write_report(Analysis(catalog_mod.load(CATALOG), doc), dirpath / "report.html",
                     dirpath / "results.json")
    return dirpath


# ---------------------------------------------------------------- PostgreSQL

class PgCluster:
    """A PostgreSQL 15 cluster in a temp dir, listening on a unix socket only
    (no TCP port to collide with), owned by an unprivileged user when the
    tests run as root (initdb refuses root)."""

    def __init__(self, root: Path):
        self.root = root
        self.data = root / "data"
        self.sock = root  # the socket beside the data, in a directory only the owner writes
        self.user = "nobody" if os.geteuid() == 0 else None
        self.n = 0

    def _as_owner(self, argv: list) -> list:
        return ["runuser", "-u", self.user, "--", *argv] if self.user else argv

    def _run(self, argv: list) -> None:
        p = subprocess.run(self._as_owner(argv), capture_output=True, text=True, cwd="/")
        if p.returncode:
            log = self.root / "log"
            raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}):\n{p.stdout}{p.stderr}"
                               + (log.read_text() if log.is_file() else ""))

    def up(self) -> None:
        if self.user:
            pw = pwd.getpwnam(self.user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        self._run([str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "datcts",
                   "--no-sync", "-E", "UTF8"])
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w", "-l",
                   str(self.root / "log"), "-o",
                   f"-c listen_addresses='' -k {self.sock} -c fsync=off -c max_connections=40",
                   "start"])

    def down(self) -> None:
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"])

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://datcts@/{db}?host={self.sock}"

    def new_database(self) -> str:
        import psycopg2
        self.n += 1
        name = f"store{self.n}"
        conn = psycopg2.connect(self.url())
        conn.autocommit = True
        conn.cursor().execute(f"CREATE DATABASE {name}")
        conn.close()
        return self.url(name)


def pg_unavailable() -> str | None:
    if not (PG_BIN / "initdb").is_file():
        return f"no PostgreSQL 15 server in {PG_BIN} (tools/deps.sh installs postgresql)"
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "no psycopg2 (tools/deps.sh installs python3-psycopg2)"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root without runuser to start PostgreSQL as nobody"
    return None


@pytest.fixture(scope="session")
def pg():
    why = pg_unavailable()
    if why:
        pytest.skip(why)
    c = PgCluster(Path(tempfile.mkdtemp(prefix="datcts-pg-")))
    try:
        c.up()
        yield c
    finally:
        c.down()
        shutil.rmtree(c.root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    return request.getfixturevalue("pg").new_database()


@pytest.fixture(scope="session")
def three_runs(tmp_path_factory) -> list:
    """Three runs of the reference provider, one after the other, clause A
    holding, failing, failing; clause B failing, holding, failing."""
    a, b = passing_cases(base_doc(), 2)
    root = tmp_path_factory.mktemp("runs")
    docs = [make_run(started="2026-11-20T01:00:00+00:00", fail=[b]),
            make_run(started="2026-11-21T01:00:00+00:00", fail=[a]),
            make_run(started="2026-11-22T01:00:00+00:00", fail=[a, b])]
    return [{"dir": write_run(root / f"run{i}", d), "doc": d, "a": a, "b": b}
            for i, d in enumerate(docs, 1)]

