"""The join of a run's results with the clause catalog: per clause its cases
and status, coverage (clauses with no case), and the verdict.

Rules (docs/results-format.md, "Verdict").  datcts-verdict/5 (the default) is
/4 and one more point: a case that reached UNSUPPORTED (the provider lacks an
optional feature) and whose teardown then crashed gives its clause what the
UNSUPPORTED gave, the crash charged as after a PASS.  datcts-verdict/4
decides a clause by what was observed: a check that failed fails it; a case
whose checks passed and whose teardown then crashed holds it (the crash is
charged to the clause of the call that crashed); a clause holds when every
case that reached its checks passed, at least one did, and each case that did
not reach them was stopped by something the clause is not about
(attribution.excuse: another page's optional feature or failing call, a
failing check of another clause); otherwise it is not demonstrated.  The
verdict says how many of a clause's cases judged it.  datcts-verdict/3 (older
bundles) is the same but for those three points:
three outcomes per clause, fails > not demonstrated > holds, decided by
attribution.py from the results' structured fields:
  holds              pass, unsupported (optional), waived (with a reason)
  not demonstrated   the clause could not be judged: set-up failed, UNSUPPORTED
                     for want of something of the suite's own or of a clause the
                     catalog does not make optional, a host died, the checks
                     passed and then the teardown crashed; not run; no case
  fails              a check of the clause failed, or the provider crashed or
                     hung inside a call the case made; or a failure outside the
                     cases' checks was charged to it (attribution.charges)
  not-conformant  some shall clause fails
  incomplete      none fails, but one is not demonstrated, or the run did not
                  complete
  conformant      every shall clause holds
Blocking causes group the failing and not-demonstrated clauses by the cause
of their decisive result.

datcts-verdict/2 and /1 (older bundles), the rules below:

A case's outcome for one of its clauses:
  PASS                                    -> pass
  UNSUPPORTED, the clause is optional     -> unsupported   (optional: gated by a
                                             provider attribute, or the page allows
                                             DAT_MODEL_NOT_SUPPORTED)
  UNSUPPORTED, the clause is not optional -> fail
  FAIL/CRASH/TIMEOUT/UNRESOLVED, waived
     by an active waiver with a reason    -> waived
  FAIL/CRASH/TIMEOUT/UNRESOLVED otherwise -> fail, except UNRESOLVED
  because a host of a multi-host run died (host_failure): not-run
A clause's status is the worst of its cases' outcomes, in the order
fail > not-run > waived > unsupported > pass; "not-run" when a case exists
but has no result in this run (not selected, or the run was interrupted),
"no-case" when no case checks the clause at all.

The verdict counts the "shall" clauses, per subject (the catalog's `subject`:
the provider's clauses, and the DAT registry's); the provider's verdict is
the certificate (the top level of verdict.json), the registry's is reported
beside it.  For each subject:
  not-conformant  some shall clause is "fail"
  incomplete      none fails, but some shall clause is "not-run" or "no-case",
                  or the run did not complete
  conformant      every shall clause is pass, waived or unsupported
should/may/qoi clauses are reported (advisories) but do not decide the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from datcts_reports import (BAD_STATES, STATES, VERDICT_SCHEMA, VERDICT_SCHEMA_V1,
                            VERDICT_SCHEMA_V2, VERDICT_SCHEMA_V3, VERDICT_SCHEMA_V4)
from datcts_reports import attribution, cluster
from datcts_reports.catalog import SUBJECTS, Catalog, Clause

STATUS_ORDER = ("pass", "unsupported", "waived", "not-run", "no-case", "not-demonstrated",
                "contested", "fail")
STATUS_ORDER_V2 = ("pass", "unsupported", "waived", "not-run", "no-case", "fail")
# How bad a status is, for "the worst of": no-case only when nothing else.
_RANK = {"pass": 0, "unsupported": 1, "waived": 2, "not-run": 3, "not-demonstrated": 4,
         "fail": 5}
# The three outcomes of datcts-verdict/3, worst last; and "contested": a
# clause the catalog marks contested (the page can be read both ways) whose
# cases fail, reported on its own line and never deciding the verdict.
OUTCOMES = ("holds", "not-demonstrated", "contested", "fails")
OUTCOME_OF = {"pass": "holds", "unsupported": "holds", "waived": "holds",
              "not-run": "not-demonstrated", "no-case": "not-demonstrated",
              "not-demonstrated": "not-demonstrated", "contested": "contested",
              "fail": "fails"}
# The rules of each verdict schema: 2 (two outcomes) or 3 (three).
RULES_OF = {VERDICT_SCHEMA: 5, VERDICT_SCHEMA_V4: 4, VERDICT_SCHEMA_V3: 3, VERDICT_SCHEMA_V2: 2,
            VERDICT_SCHEMA_V1: 2}

# Who could change what leaves a clause not demonstrated (a blocking cause's
# side): the provider (a defect or lack that blocks), the registry, the suite
# (a test hook only the reference provider has, a case not run), the device
# (a limit the IA reports).
SIDES = ("provider", "registry", "suite", "device")

# Chart categories (per clause), in stacking order.
CHART_KEYS = ("PASS", "UNSUPPORTED", "WAIVED", "NOT DEMONSTRATED", "CONTESTED", "UNRESOLVED",
              "FAIL", "TIMEOUT", "CRASH", "NOT RUN", "NO CASE")

VERDICT_LABEL = {
    "conformant": "CONFORMANT",
    "not-conformant": "NOT CONFORMANT",
    "incomplete": "INCOMPLETE",
}


def outcome(result: dict, clause: Clause | None) -> str:
    st = result["state"]
    if st == "PASS":
        return "pass"
    if st == "UNSUPPORTED":
        return "unsupported" if clause is None or clause.optional else "fail"
    if result.get("device_fault"):
        return "not-run"    # the kernel faulted while the case ran: not the provider's
    if st == "UNRESOLVED" and result.get("host_failure"):
        # A host of a multi-host run died: the clause went unchecked, which
        # says nothing about the provider (the exit code still fails).
        return "not-run"
    if st in BAD_STATES:
        w = result.get("waiver") or {}
        if result.get("waived") and str(w.get("reason", "")).strip():
            return "waived"
        return "fail"
    return "fail"


def outcome_v3(result: dict, clause: Clause | None, rules: int = 5) -> str:
    """The datcts-verdict/4 (or /3) status a result gives one of its clauses."""
    if result["state"] in BAD_STATES and result.get("waived") and \
            str((result.get("waiver") or {}).get("reason", "")).strip():
        return "waived"
    return attribution.outcome(result, clause is None or clause.optional,
                               clause is not None and clause.subject == "registry",
                               clause.id if clause is not None else None, rules)[0]


@dataclass
class ClauseView:
    clause: Clause
    results: list = field(default_factory=list)   # results of the cases that ran
    not_run: list = field(default_factory=list)   # ids of cases known but not run
    charges: list = field(default_factory=list)   # attribution.Charge, from other cases
    status: str = "no-case"
    chart: str = "NO CASE"
    why: str = ""
    rules: int = 5
    # datcts-verdict/4: the cases that did not reach the clause's checks, each
    # with what stopped it, when none of that was about the clause
    excused: list = field(default_factory=list)     # [(result, why)]

    def outcome(self, r: dict) -> str:
        return outcome_v3(r, self.clause, self.rules) if self.rules >= 3 else \
            outcome(r, self.clause)

    @property
    def judged_by(self) -> tuple[int, int]:
        """(cases that judged the clause, cases that ran)."""
        n = len(self.results)
        return n - sum(1 for r in self.results if self.outcome(r) == "not-demonstrated"), n

    @property
    def verdict_outcome(self) -> str:
        """holds, not-demonstrated or fails (datcts-verdict/3)."""
        return OUTCOME_OF[self.status]

    def decisive(self) -> list:
        """The results (and charges) that gave the clause its status."""
        status = "fail" if self.status == "contested" else self.status
        out = [r for r in self.results if self.outcome(r) == status]
        if status in ("fail", "waived"):
            want = status == "waived"
            out += [c for c in self.charges if c.waived == want]
        return out

    @property
    def id(self) -> str:
        return self.clause.id

    @property
    def level(self) -> str:
        return self.clause.level


def _conformant_explanation(n: int, by: dict) -> str:
    expl = f"all {n} shall clauses hold"
    extra = []
    if by["waived"]:
        extra.append(f"{len(by['waived'])} waived with a reason")
    if by["unsupported"]:
        extra.append(f"{len(by['unsupported'])} optional and unsupported")
    return expl + (" (" + ", ".join(extra) + ")" if extra else "")


@dataclass
class PageView:
    page: str
    title: str
    in_catalog: bool
    clauses: list = field(default_factory=list)   # ClauseView
    cases: list = field(default_factory=list)     # results whose page is this one
    orphans: list = field(default_factory=list)   # results naming no catalogued clause

    @property
    def anchor(self) -> str:
        return "page-" + self.page

    def case_states(self) -> dict:
        c = {s: 0 for s in STATES}
        for r in self.cases:
            c[r["state"]] += 1
        return c

    def chart(self) -> dict:
        c = {k: 0 for k in CHART_KEYS}
        for cv in self.clauses:
            c[cv.chart] += 1
        return c

    def status_counts(self) -> dict:
        c = {k: 0 for k in STATUS_ORDER}
        for cv in self.clauses:
            c[cv.status] += 1
        return c

    @property
    def shall_failing(self) -> int:
        return sum(1 for cv in self.clauses if cv.level == "shall" and cv.status == "fail")


def _worst_bad_state(results: list) -> str:
    bad = [r["state"] for r in results if r["state"] in BAD_STATES]
    return max(bad, key=STATES.index) if bad else "FAIL"


def _resolve_not_failing(cv: ClauseView, outs: list) -> None:
    """not-run, waived, or holding (pass/unsupported): the chart and why."""
    if cv.status == "not-run":
        cv.chart = "NOT RUN"
        cv.why = "not run: " + ", ".join(cv.not_run)
    elif cv.status == "waived":
        cv.chart = "WAIVED"
        cv.why = "; ".join(f"{r['id']} waived: {r['waiver']['reason']}"
                           for o, r in outs if o == "waived")
    else:
        _resolve_holds(cv)


def _resolve_holds(cv: ClauseView) -> None:
    """pass or unsupported: the chart and why."""
    if cv.status == "unsupported":
        cv.chart = "UNSUPPORTED"
        cv.why = "the provider lacks this optional feature ("
        cv.why += ", ".join(cv.clause.gates or ["DAT_MODEL_NOT_SUPPORTED"]) + ")"
    else:
        cv.chart = "PASS"


def _resolve_v3(cv: ClauseView) -> None:
    outs = [(outcome_v3(r, cv.clause, cv.rules), r) for r in cv.results]
    ranked = [o for o, _ in outs] + (["not-run"] if cv.not_run else [])
    ranked += ["waived" if c.waived else "fail" for c in cv.charges]
    if not ranked:
        cv.status, cv.chart = "no-case", "NO CASE"
        cv.why = "no case checks this clause"
        return
    cv.status = max(ranked, key=_RANK.__getitem__)
    if cv.status == "fail":
        failing = [r for o, r in outs if o == "fail"]
        charged = [c for c in cv.charges if not c.waived]
        cv.chart = _worst_bad_state(failing + [{"state": c.state} for c in charged])
        parts = [f"{r['id']}: {r['state']}" + (f": {r['message']}" if r["message"] else "")
                 for r in failing]
        parts += [f"charged: {c.why}" for c in charged]
        cv.why = "; ".join(parts)
        if cv.clause.contested:
            # the page can be read both ways: the failure is reported under
            # its readings, never as the provider's
            cv.status, cv.chart = "contested", "CONTESTED"
    elif cv.status == "not-demonstrated":
        cv.chart = "NOT DEMONSTRATED"
        cv.why = "; ".join(
            f"{r['id']}: {attribution.outcome(r, cv.clause.optional, cv.clause.subject == 'registry', cv.id, cv.rules)[1]}"
            f" ({r['state']}" + (f": {r['message']}" if r["message"] else "") + ")"
            for o, r in outs if o == "not-demonstrated")
    elif cv.status == "not-run":
        cv.chart = "NOT RUN"
        cv.why = "not run: " + ", ".join(cv.not_run)
    elif cv.status == "waived":
        cv.chart = "WAIVED"
        bits = [f"{r['id']} waived: {r['waiver']['reason']}" for o, r in outs if o == "waived"]
        bits += [f"charged and waived: {c.why}" for c in cv.charges if c.waived]
        cv.why = "; ".join(bits)
    else:
        _resolve_holds(cv)


def _excuse_v4(cv: ClauseView, failing_pages: set, failing_clauses: set) -> None:
    """datcts-verdict/4: a not-demonstrated clause holds when each case that
    did not reach its checks was stopped by something it is not about, and
    at least one case judged it (attribution.excuse)."""
    if cv.status != "not-demonstrated":
        return
    outs = [(cv.outcome(r), r) for r in cv.results]
    judged = [o for o, _ in outs if o in ("pass", "unsupported", "waived")]
    if not judged:
        return
    excused = []
    for o, r in outs:
        if o != "not-demonstrated":
            continue
        why = attribution.excuse(r, cv.clause.page, failing_pages, failing_clauses,
                                 dc_documents_model_not_supported)
        if why is None:
            return
        excused.append((r, why))
    cv.excused = excused
    ranked = judged + (["not-run"] if cv.not_run else [])
    cv.status = max(ranked, key=_RANK.__getitem__)
    _resolve_not_failing(cv, outs)
    n, m = cv.judged_by
    cv.why = (cv.why + "; " if cv.why else "") + f"judged by {n} of its {m} cases; " + \
        "; ".join(f"{r['id']} not: {why}" for r, why in excused)


# The pages whose RETURN VALUES list DAT_MODEL_NOT_SUPPORTED (the harness's
# list, harness/attrs.c model_ns_pages; tests/reports checks they agree).
MODEL_NOT_SUPPORTED_PAGES = frozenset((
    "dat_ep_connect", "dat_ep_create", "dat_ep_create_with_srq", "dat_ep_dup_connect",
    "dat_ep_recv_query", "dat_ep_set_watermark", "dat_lmr_create", "dat_psp_create",
    "dat_psp_create_any", "dat_rmr_bind", "dat_srq_create", "dat_srq_set_lw"))


def dc_documents_model_not_supported(page: str) -> bool:
    return page in MODEL_NOT_SUPPORTED_PAGES


def _resolve(cv: ClauseView) -> None:
    if cv.rules >= 3:
        _resolve_v3(cv)
        return
    outs = [(outcome(r, cv.clause), r) for r in cv.results]
    ranked = [o for o, _ in outs] + (["not-run"] if cv.not_run else [])
    if not ranked:
        cv.status, cv.chart = "no-case", "NO CASE"
        cv.why = "no case checks this clause"
        return
    cv.status = max(ranked, key=_RANK.__getitem__)
    failing = [r for o, r in outs if o == "fail"]
    if cv.status == "fail":
        cv.chart = _worst_bad_state(failing)
        parts = []
        for r in failing:
            if r["state"] == "UNSUPPORTED":
                parts.append(f"{r['id']}: UNSUPPORTED, but the catalog makes this clause "
                             "mandatory (no gate, no DAT_MODEL_NOT_SUPPORTED)")
            else:
                parts.append(f"{r['id']}: {r['state']}" + (f": {r['message']}" if r["message"] else ""))
        cv.why = "; ".join(parts)
    else:
        _resolve_not_failing(cv, outs)


class Analysis:
    """results.json (or None: coverage only) joined with a catalog.
    `known_cases`: extra cases that exist but have no result
    ({"id","page","clauses"}), e.g. run.not_selected or a --list."""

    def __init__(self, catalog: Catalog, doc: dict | None = None, known_cases=None,
                 rules: int = 5):
        self.catalog = catalog
        self.doc = doc
        self.rules = rules
        self._known_cases = known_cases
        self.results = list(doc["results"]) if doc else []
        known = list(known_cases or [])
        if doc:
            known += doc["run"].get("not_selected") or []
            known += doc["run"].get("not_finished") or []
        self.unknown_refs: list = []  # (case id, clause id) not in the catalog
        # clause -> [(case id, [what of the suite's own it needs])]
        self.suite_needs: dict[str, list] = {}
        for k in self.results + known:
            if not k.get("needs"):
                continue
            for cid in k.get("clauses") or [k["id"]]:
                self.suite_needs.setdefault(cid, []).append((k["id"], list(k["needs"])))
        views: dict[str, ClauseView] = {cid: ClauseView(c, rules=rules)
                                        for cid, c in catalog.clauses.items()}
        pages: dict[str, PageView] = {}
        for name, p in catalog.pages.items():
            pv = PageView(name, p.title, True)
            pv.clauses = [views[c.id] for c in p.clauses]
            pages[name] = pv
        ran = set()
        for r in self.results:
            ran.add(r["id"])
            pv = pages.get(r["page"])
            if pv is None:
                pv = pages[r["page"]] = PageView(r["page"], "", False)
            pv.cases.append(r)
            hit = False
            for cid in r["clauses"]:
                cv = views.get(cid)
                if cv is None:
                    self.unknown_refs.append((r["id"], cid))
                else:
                    cv.results.append(r)
                    hit = True
            if not hit:
                pv.orphans.append(r)
            if rules >= 3:
                for ch in attribution.charges(r):
                    cv = views.get(ch.clause)
                    if cv is not None:
                        cv.charges.append(ch)
        for k in known:
            if k["id"] in ran:
                continue
            for cid in k.get("clauses") or [k["id"]]:
                cv = views.get(cid)
                if cv is None:
                    self.unknown_refs.append((k["id"], cid))
                elif k["id"] not in cv.not_run:
                    cv.not_run.append(k["id"])
        for cv in views.values():
            _resolve(cv)
        if rules >= 4:
            failing = [cv for cv in views.values() if cv.status in ("fail", "contested")]
            failing_pages = {cv.clause.page for cv in failing}
            failing_clauses = {cv.id for cv in failing}
            for cv in views.values():
                _excuse_v4(cv, failing_pages, failing_clauses)
        self.views = views
        self.pages = [pages[k] for k in sorted(pages)]

    # ---- coverage ----

    def coverage(self) -> dict:
        out_pages = []
        total = covered = 0
        for pv in self.pages:
            if not pv.in_catalog:
                continue
            gaps = [cv for cv in pv.clauses if cv.status == "no-case"]
            total += len(pv.clauses)
            covered += len(pv.clauses) - len(gaps)
            out_pages.append({
                "page": pv.page,
                "clauses": len(pv.clauses),
                "covered": len(pv.clauses) - len(gaps),
                "uncovered": [{"id": cv.id, "level": cv.level, "section": cv.clause.section,
                               "text": cv.clause.text} for cv in gaps],
            })
        return {
            "clauses": total,
            "covered": covered,
            "uncovered": total - covered,
            "needs_test_hook": self._needs_test_hook(),
            "pages": out_pages,
            "unknown_clause_refs": [{"case": a, "clause": b} for a, b in self.unknown_refs],
            "pages_not_in_catalog": [pv.page for pv in self.pages if not pv.in_catalog],
        }

    def _needs_test_hook(self) -> list:
        """The catalogued clauses a case of which needs a test hook or a
        datcts.* attribute (DC_CASE .needs): on a third-party provider they
        stay not demonstrated, so this is what such runs cannot check."""
        out = []
        for cid in sorted(self.suite_needs):
            cv = self.views.get(cid)
            if cv is None:
                continue
            seen = {}
            for case, needs in self.suite_needs[cid]:
                seen.setdefault(case, needs)
            out.append({"id": cid, "level": cv.level, "page": cv.clause.page,
                        "cases": [{"id": c, "needs": n} for c, n in sorted(seen.items())]})
        return out

    # ---- verdict ----

    def _subject_verdict(self, views: list, complete: bool) -> dict:
        """The verdict fields over the clauses @views (one subject's, or
        the whole catalog's for a datcts-verdict/1 document)."""
        shall = sorted((cv for cv in views if cv.level == "shall"), key=lambda cv: cv.id)
        by = {k: [cv for cv in shall if cv.status == k] for k in STATUS_ORDER_V2}
        advisories = sorted(cv.id for cv in views if cv.level != "shall" and cv.status == "fail")
        n = len(shall)
        if not n:
            v = "incomplete"
            expl = "the catalog gives it no shall clause"
        elif by["fail"]:
            v = "not-conformant"
            expl = f"{len(by['fail'])} of {n} shall clauses fail"
        elif by["not-run"] or by["no-case"] or not complete:
            v = "incomplete"
            bits = []
            if by["no-case"]:
                bits.append(f"{len(by['no-case'])} have no case yet")
            if by["not-run"]:
                bits.append(f"{len(by['not-run'])} were not run")
            checked = n - len(by["no-case"]) - len(by["not-run"])
            expl = f"no shall clause fails, but {' and '.join(bits)}" if bits else \
                "no shall clause fails"
            expl += f" ({checked} of {n} checked)"
            if not complete:
                expl += "; the run did not complete"
        else:
            v, expl = "conformant", _conformant_explanation(n, by)

        def case_list(cv, keep):
            return [{"id": r["id"], "state": r["state"]} for r in cv.results
                    if outcome(r, cv.clause) in keep]

        return {
            "verdict": v,
            "label": VERDICT_LABEL[v],
            "explanation": expl,
            "shall": {"total": n, **{k.replace("-", "_"): len(by[k]) for k in STATUS_ORDER_V2}},
            "failing_shall": [{"clause": cv.id, "cases": case_list(cv, {"fail"})}
                              for cv in by["fail"]],
            "waived_shall": [{"clause": cv.id, "cases": [
                {"id": r["id"], "state": r["state"], "reason": r["waiver"]["reason"],
                 "expires": r["waiver"]["expires"]}
                for r in cv.results if outcome(r, cv.clause) == "waived"]}
                for cv in by["waived"]],
            "unsupported_shall": [cv.id for cv in by["unsupported"]],
            "unchecked_shall": [{"clause": cv.id, "why": cv.status}
                                for cv in by["not-run"] + by["no-case"]],
            "advisories": advisories,
        }

    def registry_identity(self) -> dict:
        """The registry the run went through (results.json run.dat.registry);
        absent in older documents: the DAT 1.2 build's own libdat, version
        unknown (recorded: false)."""
        run = (self.doc or {}).get("run") or {}
        reg = (run.get("dat") or {}).get("registry") or {}
        return {"name": reg.get("name") or "libdat",
                "library": reg.get("library"),
                "version": reg.get("version"),
                "recorded": bool(reg)}

    def _subject_verdict_v3(self, views: list, complete: bool) -> dict:
        """The datcts-verdict/3 fields over one subject's clauses."""
        shall = sorted((cv for cv in views if cv.level == "shall"), key=lambda cv: cv.id)
        by = {k: [cv for cv in shall if cv.status == k] for k in STATUS_ORDER}
        fam = {o: [cv for cv in shall if cv.verdict_outcome == o] for o in OUTCOMES}
        advisories = sorted(cv.id for cv in views if cv.level != "shall" and cv.status == "fail")
        n = len(shall)
        nd = fam["not-demonstrated"]
        contested = fam["contested"]
        if not n:
            v, expl = "incomplete", "the catalog gives it no shall clause"
        elif fam["fails"]:
            v = "not-conformant"
            expl = f"{len(fam['fails'])} of {n} shall clauses fail"
            if nd:
                expl += f"; {len(nd)} more are not demonstrated"
        elif nd or not complete:
            v = "incomplete"
            bits = []
            if by["not-demonstrated"]:
                bits.append(f"{len(by['not-demonstrated'])} could not be judged")
            if by["no-case"]:
                bits.append(f"{len(by['no-case'])} have no case yet")
            if by["not-run"]:
                bits.append(f"{len(by['not-run'])} were not run")
            expl = "no shall clause fails"
            if bits:
                expl += f", but {len(nd)} of {n} are not demonstrated ({', '.join(bits)})"
            if not complete:
                expl += "; the run did not complete"
        else:
            v, expl = "conformant", _conformant_explanation(n, by)
        if contested:
            expl += (f"; {len(contested)} contested clause{'s' if len(contested) != 1 else ''} "
                     "fail under one reading of the page (reported apart, not counted)")

        def evidence(cv):
            out = []
            for x in cv.decisive():
                if isinstance(x, attribution.Charge):
                    out.append({"id": x.case, "state": x.state, "charged": True, "why": x.why})
                else:
                    out.append({"id": x["id"], "state": x["state"]})
            return out

        causes = self.blocking_causes([cv for cv in views if cv.level == "shall"])
        not_judged_by = {side: 0 for side in SIDES}
        for g in causes:
            if g["outcome"] == "not-demonstrated":
                not_judged_by[g["side"]] = not_judged_by.get(g["side"], 0) + g["count"]
        return {
            "verdict": v,
            "label": VERDICT_LABEL[v],
            "explanation": expl,
            "shall": {"total": n, **{o.replace("-", "_"): len(fam[o]) for o in OUTCOMES},
                      **({"judged": n - len(nd), "not_judged_by": not_judged_by}
                         if self.rules >= 4 else {}),
                      "by_status": {k.replace("-", "_"): len(by[k]) for k in STATUS_ORDER}},
            "failing_shall": [{"clause": cv.id, "cases": evidence(cv)} for cv in fam["fails"]],
            "contested_shall": [{"clause": cv.id, "readings": dict(cv.clause.contested),
                                 "cases": evidence(cv)} for cv in contested],
            "not_demonstrated_shall": [{"clause": cv.id, "status": cv.status, "why": cv.why,
                                        "cases": evidence(cv) if cv.status == "not-demonstrated"
                                        else [{"id": i, "state": None} for i in cv.not_run]}
                                       for cv in nd],
            "waived_shall": [{"clause": cv.id, "cases": [
                {"id": r["id"], "state": r["state"], "reason": r["waiver"]["reason"],
                 "expires": r["waiver"]["expires"]}
                for r in cv.results if cv.outcome(r) == "waived"]}
                for cv in by["waived"]],
            "unsupported_shall": [cv.id for cv in by["unsupported"]],
            "advisories": advisories,
            "blocking_causes": causes,
            **({"partly_judged_shall": [
                {"clause": cv.id, "judged_by": list(cv.judged_by),
                 "not_judging": [{"id": r["id"], "state": r["state"], "why": why}
                                 for r, why in cv.excused]}
                for cv in shall if cv.excused]} if self.rules >= 4 else {}),
        }

    def blocking_causes(self, views: list | None = None) -> list:
        """Failing and not-demonstrated clauses grouped by the cause of their
        decisive result (the first, in run order), the causes that block the
        most clauses first."""
        if views is None:
            views = list(self.views.values())
        groups: dict = {}
        for cv in sorted(views, key=lambda cv: cv.id):
            oc = cv.verdict_outcome
            if oc in ("holds", "contested"):
                continue
            if cv.status == "no-case":
                key, side, case = "no case checks it yet", "suite", None
            elif cv.status == "not-run":
                key, side, case = "not run in this run", "suite", cv.not_run[0]
            else:
                first = cv.decisive()[0]
                if isinstance(first, attribution.Charge):
                    key, side, case = first.cause, first.subject, first.case
                else:
                    key, side = attribution.blocking_cause(
                        first, cv.clause.subject,
                        cv.clause.expect or cv.clause.text)
                    case = first["id"]
            g = groups.setdefault((oc, key), {"cause": key, "outcome": oc, "side": side,
                                              "clauses": [], "cases": []})
            g["clauses"].append(cv.id)
            if case and case not in g["cases"]:
                g["cases"].append(case)
        out = list(groups.values())
        for g in out:
            g["count"] = len(g["clauses"])
        out.sort(key=lambda g: (g["outcome"] != "fails", -g["count"], g["cause"]))
        return out

    def verdict(self, schema: str = VERDICT_SCHEMA) -> dict:
        """datcts-verdict/2: the top level is the provider's verdict (its
        certificate counts the provider's clauses only); `subjects` holds the
        provider's and the registry's.  schema="datcts-verdict/1" gives the
        old single verdict over the whole catalog (to verify old bundles)."""
        if schema not in RULES_OF:
            raise ValueError(f"unknown verdict schema {schema!r}")
        if RULES_OF[schema] != self.rules:
            return Analysis(self.catalog, self.doc, self._known_cases,
                            rules=RULES_OF[schema]).verdict(schema)
        subject_verdict = self._subject_verdict_v3 if self.rules >= 3 else self._subject_verdict
        complete = bool(self.doc and self.doc["run"].get("complete"))
        views = list(self.views.values())
        run = (self.doc or {}).get("run") or {}
        prov = run.get("provider") or {}
        states = {s: 0 for s in STATES}
        for r in self.results:
            states[r["state"]] += 1
        if schema == VERDICT_SCHEMA_V1:
            top = self._subject_verdict(views, complete)
        else:
            subjects = {
                subj: subject_verdict([cv for cv in views if cv.clause.subject == subj],
                                      complete)
                for subj in SUBJECTS}
            reg = self.registry_identity()
            subjects["registry"].update(name=reg["name"], library=reg["library"],
                                        version=reg["version"])
            top = subjects["provider"]
        out = {"schema": schema, **{k: top[k] for k in ("verdict", "label", "explanation")},
               "run_complete": complete,
               **{k: v for k, v in top.items() if k not in ("verdict", "label", "explanation")},
               "case_states": states,
               "cases": len(self.results),
               "catalog_sha256": self.catalog.sha256(),
               "run": {"ia": prov.get("ia"), "library_sha256": prov.get("library_sha256"),
                       "started": run.get("started"), "finished": run.get("finished")}}
        if schema != VERDICT_SCHEMA_V1:
            out["subjects"] = subjects
        if self.rules >= 3:
            cl = cluster.cluster_verdict(self.doc, self.catalog,
                                         lambda r, c: OUTCOME_OF[outcome_v3(r, c, self.rules)])
            if cl is not None:
                # a cluster run: each node's and link's verdict; the worst named
                out["cluster"] = cl
                where = cl["worst"]["nodes"] + cl["worst"]["links"]
                if cl["worst"]["verdict"] != "conformant" and where:
                    out["worst_at"] = where
        return out

    # ---- what a maintainer looks at first ----

    def attention(self) -> dict:
        fails = [cv for cv in self.views.values() if cv.status == "fail"]
        contested = sorted((cv for cv in self.views.values() if cv.status == "contested"),
                           key=lambda cv: cv.id)
        fails.sort(key=lambda cv: (cv.level != "shall", cv.id))
        # the same, grouped by page for the person who fixes them: pages with
        # a failing shall clause first, the provider's before the registry's
        titles = {pv.page: pv.title for pv in self.pages}
        groups: dict = {}
        for cv in fails:
            groups.setdefault(cv.clause.page, []).append(cv)
        by_page = [{"page": page, "title": titles.get(page, ""), "anchor": "page-" + page,
                    "clauses": cvs,
                    "shall": sum(1 for cv in cvs if cv.level == "shall"),
                    "subject": ("registry" if all(cv.clause.subject == "registry" for cv in cvs)
                                else "provider")}
                   for page, cvs in groups.items()]
        by_page.sort(key=lambda g: (g["subject"] != "provider", g["shall"] == 0, g["page"]))
        waived = [r for r in self.results if r.get("waived")]
        wbp = [r for r in self.results if r.get("waived_but_passing")]
        return {"failing": fails, "failing_by_page": by_page, "contested": contested,
                "waived": waived,
                "waived_but_passing": wbp,
                "blocking_causes": [
                    dict(g, subject=subj) for subj in SUBJECTS
                    for g in self.blocking_causes([cv for cv in self.views.values()
                                                   if cv.level == "shall"
                                                   and cv.clause.subject == subj])]}
