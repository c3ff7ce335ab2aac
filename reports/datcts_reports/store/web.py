"""`datcts serve`: a read-only web view of a store, on Flask (Debian's
python3-flask).  Pages are rendered with the report's own Jinja2
environment (its filters, its style sheet templates/_style.css.j2 and its
case partial templates/case.html.j2), so a run looks the same here as in
its report.

  /                          regressions first, then the runs by provider and host
  /run/ID                    a run: verdict, changes against the previous run, clauses, cases
  /run/ID/report.html        the run's stored report
  /run/ID/case/CASE          one case's result and output
  /clause/ID                 a clause's history across runs, per provider
  /matrix                    provider x clause, the latest run of each provider

Each request opens its own read-only connection: the server is threaded, and
a connection (SQLite's above all) belongs to one thread.
"""

from __future__ import annotations

import flask

from datcts_reports import __version__
from datcts_reports.html import COLORS, STATUS_KEY, VERDICT_COLORS, _env
from datcts_reports.store import queries
from datcts_reports.store.db import Store

# runs of each provider on the index page (all of them under ?provider=)
RUNS_SHOWN = 20
# a clause outcome -> the report's badge key
OUTCOME_KEY = {"holds": "PASS", "fails": "FAIL", "not-demonstrated": "NOT DEMONSTRATED",
               "contested": "CONTESTED"}


def create_app(url: str) -> flask.Flask:
    app = flask.Flask("datcts_store")
    env = _env()
    env.filters["outcome_key"] = OUTCOME_KEY.get
    env.filters["status_key"] = STATUS_KEY.get

    def store() -> Store:
        if "store" not in flask.g:
            flask.g.store = Store(url, readonly=True)
        return flask.g.store

    @app.teardown_appcontext
    def close(_exc):
        st = flask.g.pop("store", None)
        if st is not None:
            st.close()

    def page(template: str, **ctx) -> str:
        return env.get_template(f"store/{template}").render(
            colors=COLORS, verdict_colors=VERDICT_COLORS, store_url=url, version=__version__,
            **ctx)

    def run_or_404(run_id: int) -> dict:
        r = queries.run(store(), run_id)
        if r is None:
            flask.abort(404, f"no run {run_id} in the store")
        return r

    @app.route("/")
    def index():
        provider = flask.request.args.get("provider") or None
        host = flask.request.args.get("host") or None
        rs = queries.runs(store(), provider, host)
        by_provider: dict[str, list] = {}
        for r in rs:
            by_provider.setdefault(r["provider_key"], []).append(r)
        hosts = sorted({h["hostname"] or h["name"] for r in rs for h in r["hosts"]})
        return page("index.html.j2", regressions=queries.regressions_now(store()),
                    by_provider=by_provider, hosts=hosts, provider=provider, host=host,
                    # a nightly provider's years of runs: its latest here, all on its own page
                    shown=None if provider else RUNS_SHOWN)

    @app.route("/run/<int:run_id>")
    def run(run_id: int):
        r = run_or_404(run_id)
        oc = queries.outcomes(store(), run_id)
        rank = {"fails": 0, "contested": 1, "not-demonstrated": 2, "holds": 3}
        not_holding = sorted((o for o in oc if o["outcome"] != "holds"),
                             key=lambda o: (rank[o["outcome"]], o["level"] != "shall", o["clause"]))
        return page("run.html.j2", run=r, changes=queries.changes(store(), r),
                    not_holding=not_holding, holding=len(oc) - len(not_holding),
                    cases=queries.case_list(store(), run_id))

    @app.route("/run/<int:run_id>/report.html")
    def report(run_id: int):
        html = queries.report_html(store(), run_or_404(run_id)["id"])
        if html is None:
            flask.abort(404, f"run {run_id} was pruned: its clause outcomes are kept, its "
                        "report is not")
        return flask.Response(html, mimetype="text/html")

    @app.route("/run/<int:run_id>/case/<case_id>")
    def case(run_id: int, case_id: str):
        r = run_or_404(run_id)
        res = queries.case_result(store(), run_id, case_id)
        if res is None:
            flask.abort(404, f"run {run_id} has no result for {case_id}"
                        + (" (the run was pruned)" if r["pruned"] else ""))
        return page("case.html.j2", run=r, r=res)

    @app.route("/clause/<clause_id>")
    def clause(clause_id: str):
        hist = queries.clause_history(store(), clause_id)
        if not hist:
            flask.abort(404, f"no stored run has an outcome for {clause_id}")
        return page("clause.html.j2", clause_id=clause_id, providers=hist)

    @app.route("/matrix")
    def matrix():
        only = flask.request.args.get("all") != "1"
        return page("matrix.html.j2", m=queries.matrix(store(), only_differing=only),
                    only_differing=only)

    return app
