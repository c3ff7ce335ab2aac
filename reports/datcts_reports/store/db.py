"""The store's database: one schema for SQLite (the embedded default) and
PostgreSQL (python3-psycopg2), built by numbered migrations recorded in
`schema_version`.

SQL is written once, with `?` parameters and `{id_pk}`/`{id_ref}`/`{blob}`
placeholders in the DDL; the dialect fills them in.  Every write happens in
a transaction (`Store.transaction()`): SQLite takes its write lock at BEGIN
(BEGIN IMMEDIATE), so two writers never deadlock on a lock upgrade;
PostgreSQL runs migrations under an advisory lock, so two processes opening a
new store at once do not both create it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import sqlite3
import time
import urllib.parse
import zlib
from pathlib import Path

from datcts_reports import ReportError, __version__


class StoreError(ReportError):
    """The store cannot be opened or used, or an input cannot be stored; the
    message says which and why."""


# An arbitrary constant: the key of the PostgreSQL advisory lock migrations
# take ("datcts" in ASCII, folded into a bigint).
_PG_MIGRATION_LOCK = 0x646174637473


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def pack(data: bytes | str | None) -> bytes | None:
    """zlib for the raw documents (results.json, report.html): they are JSON
    and HTML, ten times smaller compressed, and read back whole."""
    if data is None:
        return None
    return zlib.compress(data.encode() if isinstance(data, str) else data, 6)


def unpack(blob) -> bytes | None:
    return None if blob is None else zlib.decompress(bytes(blob))


# ---------------------------------------------------------------- migrations

def _backfill_run_hosts(store: "Store") -> None:
    """Schema 2 keeps each host of a run (multi-host and Slurm runs have
    several); runs stored before it get theirs from their raw results.json,
    or, once pruned, the one host the run row names."""
    from datcts_reports.store.ingest import host_rows

    for run_id, blob, host, kernel, machine, sha in store.q(
            "SELECT id, results_z, host, kernel, machine, library_sha256 FROM runs").fetchall():
        if blob is not None:
            rows = host_rows(json.loads(unpack(blob)))
        else:
            rows = [(host or "local", host, kernel, machine, sha, None)]
        store.many("INSERT INTO run_hosts (run_id, name, hostname, kernel, machine, "
                   "library_sha256, registry_sha256) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [(run_id, *r) for r in rows])


# Each entry: (what it does, DDL statements, an optional Python step run after
# them in the same transaction).  Append only: a store records the number of
# entries it has had applied, and a released entry never changes.
MIGRATIONS = [
    ("the first schema: runs, their case results and clause outcomes, catalog snapshots", [
        """CREATE TABLE catalogs (
             sha256 TEXT PRIMARY KEY,
             catalog_z {blob} NOT NULL)""",
        """CREATE TABLE runs (
             id {id_pk},
             results_sha256 TEXT NOT NULL UNIQUE,
             provider_key TEXT NOT NULL,
             ia TEXT, provider_name TEXT, library TEXT, library_resolved TEXT,
             library_sha256 TEXT,
             registry_name TEXT, registry_library TEXT, registry_sha256 TEXT,
             registry_version TEXT, dat_api TEXT,
             host TEXT, kernel TEXT, os TEXT, machine TEXT,
             suite_commit TEXT, suite_dirty INTEGER, tool_version TEXT,
             catalog_sha256 TEXT NOT NULL REFERENCES catalogs(sha256),
             started TEXT, finished TEXT, complete INTEGER NOT NULL,
             cases INTEGER NOT NULL, states_json TEXT NOT NULL,
             verdict TEXT NOT NULL, verdict_explanation TEXT, registry_verdict TEXT,
             rules TEXT NOT NULL,
             source TEXT NOT NULL, bundle_manifest_sha256 TEXT,
             ingested TEXT NOT NULL,
             results_z {blob}, report_z {blob},
             pruned INTEGER NOT NULL DEFAULT 0)""",
        "CREATE INDEX runs_by_provider ON runs (provider_key, started)",
        """CREATE TABLE case_results (
             run_id {id_ref} NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
             case_id TEXT NOT NULL, page TEXT NOT NULL, state TEXT NOT NULL,
             waived INTEGER NOT NULL, message TEXT, duration_ms REAL,
             cause_json TEXT, output TEXT,
             PRIMARY KEY (run_id, case_id))""",
        """CREATE TABLE clause_outcomes (
             run_id {id_ref} NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
             clause_id TEXT NOT NULL, page TEXT NOT NULL, level TEXT NOT NULL,
             subject TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT NOT NULL,
             why TEXT, cases_json TEXT NOT NULL,
             PRIMARY KEY (run_id, clause_id))""",
        "CREATE INDEX clause_outcomes_by_clause ON clause_outcomes (clause_id)",
    ], None),
    ("each host of a run (multi-host and Slurm runs), to list runs by host", [
        """CREATE TABLE run_hosts (
             run_id {id_ref} NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
             name TEXT NOT NULL, hostname TEXT, kernel TEXT, machine TEXT,
             library_sha256 TEXT, registry_sha256 TEXT,
             PRIMARY KEY (run_id, name))""",
        "CREATE INDEX run_hosts_by_hostname ON run_hosts (hostname)",
    ], _backfill_run_hosts),
]
SCHEMA_VERSION = len(MIGRATIONS)


# ---------------------------------------------------------------- dialects

class _SQLite:
    name = "sqlite"
    ddl = {"id_pk": "INTEGER PRIMARY KEY", "id_ref": "INTEGER", "blob": "BLOB"}
    integrity_errors = (sqlite3.IntegrityError,)

    def __init__(self, path: str, readonly: bool):
        self.path = path
        if readonly:
            if not Path(path).is_file():
                raise StoreError(f"{path}: no such store")
            self.conn = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True,
                                        timeout=60,
                                        isolation_level=None, check_same_thread=False)
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            # autocommit mode: transactions are explicit (BEGIN IMMEDIATE);
            # writers wait up to a minute for each other's lock
            self.conn = sqlite3.connect(path, timeout=60, isolation_level=None)
            self._enter_wal(path)
        self.conn.execute("PRAGMA foreign_keys=ON")

    def _enter_wal(self, path: str) -> None:
        """WAL mode, so that readers never block the writer. Switching a new
        file to WAL needs it alone and SQLite answers "locked" at once rather
        than waiting out the busy timeout, so a store that other processes are
        opening at the same moment is retried for the same minute."""
        deadline = time.monotonic() + 60
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                busy = "locked" in str(e) or "busy" in str(e)
                if not busy or time.monotonic() > deadline:
                    raise StoreError(f"{path}: cannot open the store ({e})")
                time.sleep(0.05)
            except sqlite3.DatabaseError as e:
                raise StoreError(f"{path}: not an SQLite database ({e})")

    def sql(self, s: str) -> str:
        return s

    def begin(self, cur) -> None:
        cur.execute("BEGIN IMMEDIATE")

    def begin_migration(self, cur) -> None:
        cur.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def has_table(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                                 (name,)).fetchone() is not None

    def size(self) -> int:
        p = Path(self.path)
        return sum(f.stat().st_size for f in (p, p.with_name(p.name + "-wal")) if f.exists())

    def compact(self) -> None:
        self.conn.execute("VACUUM")
        # VACUUM writes the whole file through the WAL: fold it back in
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class _Postgres:
    name = "postgresql"
    ddl = {"id_pk": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "id_ref": "BIGINT",
           "blob": "BYTEA"}

    def __init__(self, url: str, readonly: bool):
        try:
            import psycopg2
        except ImportError:
            raise StoreError("a PostgreSQL store needs psycopg2 (Debian: apt install "
                             "python3-psycopg2; tools/deps.sh installs it)")
        self.integrity_errors = (psycopg2.IntegrityError,)
        try:
            self.conn = psycopg2.connect(url)
        except psycopg2.Error as e:
            raise StoreError(f"{url}: cannot connect: {str(e).strip()}")
        if readonly:
            self.conn.set_session(readonly=True)

    def sql(self, s: str) -> str:
        return s.replace("%", "%%").replace("?", "%s")

    def begin(self, cur) -> None:
        pass  # psycopg2 opens a transaction at the first statement

    def begin_migration(self, cur) -> None:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (_PG_MIGRATION_LOCK,))

    def commit(self) -> None:
        self.conn.commit()

    def rollback(self) -> None:
        self.conn.rollback()

    def has_table(self, name: str) -> bool:
        cur = self.conn.cursor()
        cur.execute("SELECT to_regclass(%s)", (name,))
        found = cur.fetchone()[0] is not None
        self.conn.rollback()
        return found

    def size(self) -> int:
        cur = self.conn.cursor()
        cur.execute("SELECT pg_database_size(current_database())")
        n = cur.fetchone()[0]
        self.conn.rollback()
        return n

    def compact(self) -> None:
        self.conn.autocommit = True  # VACUUM cannot run in a transaction
        try:
            self.conn.cursor().execute("VACUUM")
        finally:
            self.conn.autocommit = False


def database_errors() -> tuple:
    """The exceptions either database raises (a lock held too long, a server
    gone, a disk full): the commands report them as errors, not tracebacks."""
    try:
        import psycopg2
    except ImportError:
        return (sqlite3.Error,)
    return (sqlite3.Error, psycopg2.Error)


def _dialect(url: str, readonly: bool):
    if url.startswith(("postgresql://", "postgres://")):
        return _Postgres(url, readonly)
    if url.startswith("sqlite:///"):
        # as SQLAlchemy spells it: sqlite:///relative/path, sqlite:////absolute/path
        return _SQLite(url[len("sqlite:///"):], readonly)
    if "://" in url:
        raise StoreError(f"{url}: not a store URL (sqlite:///PATH, a file path, or "
                         "postgresql://...)")
    return _SQLite(url, readonly)


# ---------------------------------------------------------------- the store

class Store:
    """A connection to a store.  open() checks the schema version and (unless
    readonly) brings an older store up to date."""

    def __init__(self, url: str, *, readonly: bool = False, migrate: bool = True):
        self.url = url
        self.db = _dialect(url, readonly)
        self.kind = self.db.name
        self._cur = None
        try:
            self._check_version(migrate and not readonly)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- statements

    def q(self, sql: str, params=()):
        cur = self._cur or self.db.conn.cursor()
        cur.execute(self.db.sql(sql), tuple(params))
        return cur

    def many(self, sql: str, rows) -> None:
        cur = self._cur or self.db.conn.cursor()
        cur.executemany(self.db.sql(sql), [tuple(r) for r in rows])

    def read(self, sql: str, params=()) -> list:
        """Rows of a query outside any write; ends PostgreSQL's implicit
        transaction so a long-lived reader sees new runs."""
        rows = self.q(sql, params).fetchall()
        if self._cur is None and self.kind == "postgresql":
            self.db.rollback()
        return rows

    @contextlib.contextmanager
    def transaction(self, *, migration: bool = False):
        cur = self.db.conn.cursor()
        (self.db.begin_migration if migration else self.db.begin)(cur)
        self._cur = cur
        try:
            yield self
            self.db.commit()
        except BaseException:
            self.db.rollback()
            raise
        finally:
            self._cur = None

    def is_duplicate(self, e: Exception) -> bool:
        return isinstance(e, self.db.integrity_errors)

    # -- version

    def version(self) -> tuple[int, str | None]:
        """(schema version, the datcts that applied it); (0, None) when empty."""
        if not self.db.has_table("schema_version"):
            return 0, None
        row = self.read("SELECT version, datcts FROM schema_version ORDER BY version DESC LIMIT 1")
        return (row[0][0], row[0][1]) if row else (0, None)

    def _refuse_newer(self, have: int, by: str | None) -> None:
        if have > SCHEMA_VERSION:
            raise StoreError(
                f"{self.url}: the store's schema is version {have} (written by datcts "
                f"{by or '?'}); this datcts ({__version__}) knows versions up to "
                f"{SCHEMA_VERSION}: use a newer datcts with this store")

    def _check_version(self, migrate: bool) -> None:
        have, by = self.version()
        self._refuse_newer(have, by)
        if have == SCHEMA_VERSION:
            return
        if not migrate:
            raise StoreError(f"{self.url}: the store's schema is version {have}, this datcts's "
                             f"is {SCHEMA_VERSION}: run `datcts store --store URL info` once "
                             "to migrate it" if have else f"{self.url}: not a datcts store "
                             "(no schema_version table)")
        self.migrate()

    def migrate(self, upto: int = SCHEMA_VERSION) -> list[int]:
        """Applies the migrations the store lacks, each in its own
        transaction; returns their numbers.  `upto` stops early (tests build
        a store of the first schema with it)."""
        applied = []
        with self.transaction(migration=True):
            self.q("CREATE TABLE IF NOT EXISTS schema_version ("
                   "version INTEGER PRIMARY KEY, applied TEXT NOT NULL, datcts TEXT NOT NULL, "
                   "description TEXT NOT NULL)")
        while True:
            with self.transaction(migration=True):
                # under the lock: another process may have migrated meanwhile
                row = self.q("SELECT version, datcts FROM schema_version "
                             "ORDER BY version DESC LIMIT 1").fetchone()
                have = row[0] if row else 0
                self._refuse_newer(have, row[1] if row else None)
                if have >= upto:
                    return applied
                n = have + 1
                what, ddl, step = MIGRATIONS[n - 1]
                for stmt in ddl:
                    self.q(stmt.format(**self.db.ddl))
                if step:
                    step(self)
                self.q("INSERT INTO schema_version (version, applied, datcts, description) "
                       "VALUES (?, ?, ?, ?)", (n, now(), __version__, what))
                applied.append(n)

    def size(self) -> int:
        return self.db.size()

    def compact(self) -> None:
        self.db.compact()
