"""What a result says about which clause, and whose: the honest-verdict
rules of datcts-verdict/5, /4 and /3 (docs/results-format.md, "Verdict").

A clause *fails* only where a check of that clause was seen to fail, or the
provider crashed or hung inside a call the case made; what could not be
judged is *not demonstrated*; a failure outside the case's own checks (the
teardown's abrupt close, the process's end, a set-up call the registry
answered) is charged to the clause of the call that failed, and to the
subject (provider or registry) that answered it.  Everything here reads the
result's structured fields (`state`, `reached`, `cause`, `teardown_failure`,
`host_failure`, `device_fault`), never its message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The clause a failure outside the case's checks breaks, by where it struck
# and who answered.  Each entry cites the page that makes it a failure.
TEARDOWN_CLAUSE = {
    # dat_ia_close(3DAT) USAGE: the abrupt close is the cleanup of last
    # resort and completes, whatever state the instance is in.
    "provider": "dat_ia_close.abrupt_always_succeeds",
    # dat_ia_close(3DAT) DESCRIPTION: a close of an open IA destroys the
    # instance (the registry routes it to the provider that opened it).
    "registry": "dat_ia_close.destroys_instance",
}
# dat_ia_close(3DAT) USAGE: closing leaves no hidden resources behind; a
# provider thread or handler that outlives the close and kills the process
# as it ends is such a resource.
EXIT_CLAUSE = {"provider": "dat_ia_close.no_leaks"}
# A set-up call the registry answered (a DAT_PROVIDER_* return, a crash
# inside libdat/libdat2), charged to the registry's clause of that call.
REGISTRY_CALL_CLAUSE = {
    "dat_ia_close": "dat_ia_close.destroys_instance",
}

NEEDS_WHY = {
    "hook": "needs the test hook {name}, which only the reference provider has",
    "suite_attr": "needs the provider attribute {name}, which only the reference provider "
                  "publishes",
    "attribute": "the case needs {name}, which the provider says it lacks, and the catalog "
                 "does not make the clause optional",
    "suite_bound": "the case stopped at a bound of its own ({name}) before the state the "
                   "clause speaks of",
    "unreported": "the case's requirement ({name}) names an attribute that dat_ia_query did "
                  "not write, so whether the case applies is not known",
    "model_not_supported": "the provider answered DAT_MODEL_NOT_SUPPORTED, which "
                           "{name}(3DAT) allows, and the catalog does not make the clause "
                           "optional",
}


@dataclass
class Charge:
    """A failure charged to a clause other than the case's own."""
    clause: str
    subject: str        # who answered: provider | registry
    case: str           # the case it happened in
    state: str          # CRASH, TIMEOUT or FAIL (a close that did not succeed)
    why: str
    waived: bool = False
    cause: str = ""     # the blocking-cause line many charges can share


def cause(r: dict) -> dict:
    return r.get("cause") or {}


def phase(r: dict) -> str | None:
    """Where a result's failure struck; for results without a cause (older
    runs) the phase that follows from `reached` alone."""
    p = cause(r).get("phase")
    if p:
        return p
    if r.get("reached"):
        return "teardown"
    return None


def answered_by(r: dict) -> str | None:
    c = cause(r)
    return c.get("answered_by") or (c.get("return") or {}).get("answered_by")


SUITE_NEEDS = ("hook", "suite_attr", "suite_bound")
# needs that say nothing of whether the provider has the feature
NOT_A_LACK = SUITE_NEEDS + ("unreported",)


def _needs_why(r: dict) -> str:
    n = cause(r).get("needs") or {}
    tmpl = NEEDS_WHY.get(n.get("kind"))
    if tmpl:
        return tmpl.format(name=n.get("name") or "?")
    return "the case ended UNSUPPORTED, and the catalog does not make the clause optional"


def outcome(r: dict, optional: bool, is_registry_clause: bool,
            clause: str | None = None, rules: int = 5) -> tuple[str, str]:
    """The status a result gives one clause it names (@clause), and why (for
    not-demonstrated).  Waivers are applied by the caller."""
    if r.get("device_fault") and r.get("reached") in ("PASS", "UNSUPPORTED"):
        # the checks passed (or found the feature absent) before the kernel's
        # fault stopped the process: what they showed stands, nothing is charged
        return _outcome(dict(r, state=r["reached"], device_fault=None), optional,
                        is_registry_clause)
    status, why = _outcome(r, optional, is_registry_clause)
    if rules >= 4 and status == "not-demonstrated" and _passed_then_charged(r):
        # the checks were seen to pass; the crash after them is charged to
        # the clause of the call that crashed (charges), not to this one
        return "pass", ""
    if rules >= 5 and status == "not-demonstrated" and _found_absent_then_charged(r):
        # the same after the case found the provider without the feature:
        # what the UNSUPPORTED gave the clause stands
        return _outcome(dict(r, state="UNSUPPORTED"), optional, is_registry_clause)
    at = r.get("clause_at") or {}
    if status == "fail" and clause and at.get("clause") and at["clause"] != clause:
        # a case of several clauses missed at a check of another one
        # (DC_FOR_CLAUSE): those before it held, those after were not reached
        if clause in (at.get("held") or []):
            return "pass", ""
        return "not-demonstrated", (f"the case stopped at a check of {at['clause']}, "
                                    "before this clause's checks")
    return status, why


def _outcome(r: dict, optional: bool, is_registry_clause: bool) -> tuple[str, str]:
    st = r["state"]
    if st == "PASS":
        return "pass", ""
    if st == "UNSUPPORTED":
        # what only the suite has says nothing of the provider, even where
        # the clause is optional and the provider has the feature
        not_a_lack = (cause(r).get("needs") or {}).get("kind") in NOT_A_LACK
        if optional and not not_a_lack:
            return "unsupported", ""
        return "not-demonstrated", _needs_why(r)
    if r.get("host_failure"):
        hf = r["host_failure"]
        return "not-demonstrated", f"host {hf.get('host')} failed: {hf.get('reason')}"
    if r.get("device_fault"):
        return "not-demonstrated", device_fault_text(r) + " (not the provider's failure)"
    if st == "FAIL":
        return "fail", ""
    if st == "UNRESOLVED":
        who = answered_by(r)
        if who == "registry" and not is_registry_clause:
            return "not-demonstrated", "the set-up failed in the registry, not the provider"
        return "not-demonstrated", "the set-up failed, so the clause was not checked"
    # CRASH, TIMEOUT
    reached = r.get("reached")
    if reached:
        if reached == "FAIL":
            return "fail", ""
        return "not-demonstrated", (f"the case reached {reached}, then the "
                                    + ("process died as it ended" if phase(r) == "exit"
                                       else "teardown's abrupt dat_ia_close "
                                       + ("hung" if st == "TIMEOUT" else "crashed"))
                                    + " (charged to that call's clause)")
    p = phase(r)
    if p in ("setup", "ia_open"):
        return "not-demonstrated", ("the provider " + ("crashed" if st == "CRASH" else "hung")
                                    + " in the set-up, before the clause's check")
    if p == "cleanup":
        return "not-demonstrated", ("the provider " + ("crashed" if st == "CRASH" else "hung")
                                    + f" in the clean-up {cause(r).get('expr') or 'call'} "
                                    "after the clause's checks (charged to that call's clause)")
    if answered_by(r) == "registry" and not is_registry_clause:
        return "not-demonstrated", "the crash was inside the registry, not the provider"
    return "fail", ""


def device_fault_text(r: dict) -> str:
    """A kernel fault while the case ran (`device_fault`, datcts run
    --watch-kernel-log), named by where it struck, without addresses: the
    same fault reads the same in every result."""
    f = r.get("device_fault") or {}
    where = re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", f.get("where") or "")
    first = re.sub(r"(, address:? [0-9a-fx]+| at [0-9a-fx]{8,}|: [0-9a-f]{4,} \[#\d+\].*)",
                   "", f.get("first") or "a fault")
    return f"the kernel faulted while the case ran ({first.strip()}" + \
        (f" in {where}" if where else "") + ")"


def _passed_then_charged(r: dict) -> bool:
    """A case that reached PASS (or passed its checks and crashed inside a
    DC_CLEANUP abrupt close), whose later failure is charged elsewhere."""
    if r["state"] not in ("CRASH", "TIMEOUT"):
        return False
    after_checks = r.get("reached") == "PASS" or \
        (not r.get("reached") and phase(r) == "cleanup" and _abrupt_close(cause(r)))
    return after_checks and bool(charges(r))


def _found_absent_then_charged(r: dict) -> bool:
    """A case that reached UNSUPPORTED, whose later crash or hang (in the
    teardown, at the process's end) is charged elsewhere."""
    return r["state"] in ("CRASH", "TIMEOUT") and r.get("reached") == "UNSUPPORTED" and \
        bool(charges(r))


def page_of_call(call: str | None) -> str | None:
    """The man page of a DAT call as a result records it
    ("dat_ia_query(DAT_IA_FIELD_ALL, ...)" -> "dat_ia_query"); None for a
    helper or an expression."""
    if not call:
        return None
    name = call.split("(", 1)[0].strip()
    return name if name.startswith("dat_") and name.isidentifier() else None


ABSENT_TYPES = ("DAT_MODEL_NOT_SUPPORTED", "DAT_NOT_IMPLEMENTED")


def excuse(r: dict, page: str, failing_pages: set, failing_clauses: set,
           documents_model_not_supported) -> str | None:
    """datcts-verdict/4 and /5: why a case that did not reach a clause's checks was
    stopped by something the clause is not about, or None when it was not
    (docs/results-format.md, "Verdict").  @page: the clause's page;
    @failing_pages / @failing_clauses: what fails in this run;
    @documents_model_not_supported(page): the pages that list that code."""
    c = cause(r)
    needs = c.get("needs") or {}
    kind = needs.get("kind")
    st = r["state"]
    if st == "UNSUPPORTED" or r.get("reached") == "UNSUPPORTED":
        if kind == "attribute":
            return f"the provider lacks {needs.get('name')}, so this way to the clause does not apply"
        if kind == "model_not_supported":
            return (f"{c.get('call') or needs.get('name')} answered DAT_MODEL_NOT_SUPPORTED, which "
                    f"{needs.get('name')}(3DAT) allows: this way to the clause does not apply")
        return None     # the suite's own hooks and bounds, an unreported attribute
    at = r.get("clause_at") or {}
    if at.get("clause") and at["clause"] in failing_clauses:
        return f"stopped at a failing check of {at['clause']}, before this clause's checks"
    if r.get("host_failure") or r.get("device_fault"):
        return None
    if kind == "state":
        return (f"the provider never showed the EP in {needs.get('name')}, which it may pass "
                "through at once: the clause's checks in that state do not apply")
    if st in ("CRASH", "TIMEOUT") and answered_by(r) == "registry" and \
            not r.get("reached") and phase(r) in ("check", None):
        return ("the registry " + ("crashed" if st == "CRASH" else "hung")
                + f" in {entry_symbol(r) or 'its dispatch'} before the provider was reached "
                "(a DAT 2.0 registry reads the handle to find its provider)")
    if phase(r) not in ("setup",):
        return None
    call = page_of_call(c.get("call"))
    if not call or call == page:
        return None
    rtype = (c.get("return") or {}).get("type")
    if rtype == "DAT_MODEL_NOT_SUPPORTED" and documents_model_not_supported(call):
        return f"the set-up's {call} answered DAT_MODEL_NOT_SUPPORTED, which {call}(3DAT) allows"
    if call in failing_pages:
        what = f"-> {rtype}" if rtype else ("crashed" if st == "CRASH" else
                                             "hung" if st == "TIMEOUT" else "failed")
        return f"the set-up's {call} {what}, a defect {call}'s own failing clauses judge"
    return None


def charges(r: dict) -> list[Charge]:
    """The failures a result charges to clauses other than its own."""
    if r.get("device_fault"):
        return []       # what failed after the kernel faulted is the kernel's
    out = []
    st = r["state"]
    who = answered_by(r) or "provider"
    waived = bool(r.get("waived"))
    p = phase(r)
    if st in ("CRASH", "TIMEOUT") and r.get("reached"):
        what = (f"{r.get('signal') or 'a fatal signal'}" if st == "CRASH" else "a hang")
        if p == "exit":
            clause = EXIT_CLAUSE.get(who)
            why = f"{what} as the process ended, after the teardown (case {r['id']})"
        else:
            clause = TEARDOWN_CLAUSE.get(who)
            why = f"{what} in the teardown's abrupt dat_ia_close (case {r['id']})"
        if clause:
            out.append(Charge(clause, who, r["id"], st, why, waived, blocking_cause(r)[0]))
    if st in ("CRASH", "TIMEOUT") and not r.get("reached") and p == "cleanup" and \
            _abrupt_close(cause(r)):
        clause = TEARDOWN_CLAUSE.get(who)
        if clause:
            what = (f"{r.get('signal') or 'a fatal signal'}" if st == "CRASH" else "a hang")
            out.append(Charge(clause, who, r["id"], st,
                              f"{what} in {cause(r).get('expr')} after the checks of case "
                              f"{r['id']}", waived, blocking_cause(r)[0]))
    tf = r.get("teardown_failure")
    if tf:
        ret = tf.get("return") or {}
        tw = ret.get("answered_by") or "provider"
        clause = TEARDOWN_CLAUSE.get(tw)
        if clause:
            rt = ret.get("type") or ret.get("code")
            out.append(Charge(clause, tw, r["id"], "FAIL",
                              f"the teardown's abrupt dat_ia_close returned {rt} (case {r['id']})",
                              waived, f"dat_ia_close -> {rt} in the teardown"))
    for cf in r.get("cleanup_failures") or []:
        # an abrupt close after the checks (DC_CLEANUP): the same rule as the
        # teardown's; other clean-up calls (a graceful close, a free) may
        # fail for reasons their pages allow, so they are shown, not charged
        ret = cf.get("return") or {}
        if not _abrupt_close(cf):
            continue
        cw = ret.get("answered_by") or "provider"
        clause = TEARDOWN_CLAUSE.get(cw)
        if clause:
            rt = ret.get("type") or ret.get("code")
            out.append(Charge(clause, cw, r["id"], "FAIL",
                              f"{cf.get('expr')} returned {rt} after the checks of case "
                              f"{r['id']} ({cf.get('file')}:{cf.get('line')})", waived,
                              f"dat_ia_close -> {rt} after a case's checks"))
    if st in ("UNRESOLVED", "CRASH", "TIMEOUT") and not r.get("reached") and \
            answered_by(r) == "registry":
        call = cause(r).get("call") or entry_symbol(r)
        clause = REGISTRY_CALL_CLAUSE.get(call or "")
        if clause:
            out.append(Charge(clause, "registry", r["id"], st,
                              f"{blocking_cause(r)[0]} (in the set-up of case {r['id']})",
                              waived, blocking_cause(r)[0]))
    return out


def _abrupt_close(call: dict) -> bool:
    """A clean-up call that is an abrupt dat_ia_close (its recorded call and
    expression)."""
    return call.get("call") == "dat_ia_close" and "ABRUPT" in (call.get("expr") or "")


def entry_symbol(r: dict) -> str | None:
    c = cause(r)
    for k in ("entry", "frame"):
        f = c.get(k) or {}
        if f.get("symbol"):
            return f["symbol"]
    return None


def _where(f: dict | None) -> str:
    if not f or not f.get("object"):
        return ""
    return f"{f['symbol']} ({f['object']})" if f.get("symbol") else f["object"]


def blocking_cause(r: dict, default_side: str = "provider",
                   check: str | None = None) -> tuple[str, str]:
    """A result's cause as one line that many results can share, and the
    side that answered (provider, registry, or "suite" for what the suite
    itself lacks): "dat_ep_connect -> DAT_INSUFFICIENT_RESOURCES",
    "SIGSEGV in dapl_ep_free (libdaplofa.so.2)".  A cause names a call and
    its answer, or the check the clause makes (@check: the catalog's
    `expect`), never a source line or a variable of the case."""
    c = cause(r)
    st = r["state"]
    if r.get("reached") == "FAIL":
        st = "FAIL"     # the case's check decided; the crash after it is charged apart
    who = answered_by(r) or default_side
    if who == "provider" and default_side == "registry" and not \
            (c.get("return") or {}).get("type", "").startswith("DAT_PROVIDER"):
        who = "registry"    # a check of the registry's own call
    stage = {"setup": " in the set-up", "ia_open": " opening the IA",
             "teardown": " in the teardown's abrupt dat_ia_close",
             "cleanup": f" in the clean-up {c.get('call') or 'call'}",
             "exit": " as the process ended"}.get(phase(r) or "", "")
    if r.get("host_failure"):
        return f"host {r['host_failure'].get('host')} failed", "suite"
    if r.get("device_fault"):
        return device_fault_text(r), "device"
    needs = c.get("needs")
    if needs:
        kind = needs.get("kind")
        if kind in ("hook", "suite_attr"):
            return (f"needs {'the test hook' if kind == 'hook' else 'the attribute'} "
                    f"{needs.get('name')} (reference provider only)"), "suite"
        if kind == "suite_bound":
            return f"beyond the case's own bound: {needs.get('name')}", "suite"
        if kind == "attribute":
            # a limit the IA reports is the device's; a feature is the provider's
            name = needs.get("name") or ""
            return (f"the provider lacks {name}",
                    "device" if name.startswith(("max_", "ia.max_")) else "provider")
        if kind == "unreported":
            return f"dat_ia_query did not report an attribute of {needs.get('name')}", "provider"
        if kind == "state":
            return f"the provider never showed the EP in {needs.get('name')}", "provider"
        return f"DAT_MODEL_NOT_SUPPORTED from {c.get('call') or needs.get('name')}", "provider"
    if st in ("CRASH", "TIMEOUT"):
        # where it struck (a hang: where the case's thread waited when the
        # supervisor asked); and the call it came through when that was
        # another library's (a provider crash inside libdat2's dispatch)
        frame, entry = c.get("frame") or {}, c.get("entry") or {}
        where = _where(frame) or _where(entry)
        if frame.get("object") and entry.get("object") and \
                entry.get("object") != frame.get("object"):
            where += f" via {_where(entry)}"
        if st == "TIMEOUT":
            return ("hang" + (f" in {where}" if where else "")
                    + (stage or ("" if where else " in a call of the case"))), who
        return (f"{r.get('signal') or 'crash'}" + (f" in {where}" if where else "")
                + stage), who
    ret = c.get("return") or {}
    ev = c.get("event") or {}
    # the DAT call that answered; a variable the case kept the answer in
    # ("r") stands for the call of the case's own page
    call = page_of_call(c.get("call")) or page_of_call(c.get("expr")) or \
        page_of_call(r.get("page"))
    if ev:
        got = ev.get("got") or ret.get("type") or "nothing"
        return f"{ev.get('expected')} expected{stage}, {got} came", who
    if ret:
        return f"{call or 'a call'} -> {ret.get('type') or ret.get('code')}{stage}", who
    if st == "FAIL":
        return (f"the check of the clause ({check})" if check else
                f"a check of case {r['id']}"), who
    msg = re.sub(r" at [\w./-]+:\d+$", "", (r.get("message") or "").strip())
    if st == "UNRESOLVED" and msg:
        return msg, who
    return f"{st.lower()}{stage} in case {r['id']}", who
