"""The results store: every run, per clause and provider, over time
(docs/store.md).

db.py       the database (SQLite or PostgreSQL), its schema and migrations
ingest.py   runs in (run directories, verified bundles), retention, recompute
queries.py  what the web view asks: history, matrix, regressions
web.py      `datcts serve`: the read-only web view (Flask)
cli.py      `datcts store ...` and `datcts serve`
"""
