"""The verdict of a cluster run (datcts run --slurm) per node and per link.

A cluster run records, for each single-node case, its result on every node
(`nodes`) and, for each two-node case, its result in every direction of the
pairs (`directions`).  Here each node is judged on the single-node cases it
ran (its own provider), and each link (an unordered pair of nodes) on the
two-node cases run over it, both ways, by the same per-clause rules as the
run's verdict (attribution.py): a shall clause that fails there makes the
node or link NOT CONFORMANT, one not demonstrated there INCOMPLETE.

Nodes and links whose outcome differs from the others' are singled out: for
each, the clauses whose outcome there differs from the most common outcome
of the clause on the others, and the fingerprint fields (kernel, provider
library and its sha256, registry, provider attributes) that differ from the
most common value.  docs/multi-host.md, "Slurm"; docs/results-format.md.
"""

from __future__ import annotations

from collections import Counter

# outcome of a clause at one place, worst last
RANK = {"holds": 0, "contested": 0, "not-demonstrated": 1, "fails": 2}
VERDICT_OF = {"holds": "conformant", "not-demonstrated": "incomplete",
              "fails": "not-conformant"}
LABEL = {"conformant": "CONFORMANT", "incomplete": "INCOMPLETE",
         "not-conformant": "NOT CONFORMANT"}
# The result fields that belong to the case, not to one place of it.
CASE_FIELDS = ("id", "clauses", "page", "area", "file", "line", "needs", "waived", "waiver")
# Fingerprint fields compared between nodes; the host name, the address and
# the dat.conf line name the node itself and always differ.
FINGERPRINT_FIELDS = ("kernel", "machine", "library_resolved", "library_sha256",
                      "registry_resolved", "registry_sha256", "build_dir", "ia")


def link_name(a: str, b: str, order: list) -> str:
    x, y = sorted((a, b), key=lambda n: order.index(n) if n in order else len(order))
    return f"{x}~{y}"


def places(r: dict):
    """(kind, where, the result at that place): ("node", NAME, ...) for a
    single-node case, ("link", (PASSIVE, ACTIVE), ...) per direction."""
    base = {k: r[k] for k in CASE_FIELDS if k in r}
    if r.get("nodes"):
        for e in r["nodes"]:
            yield "node", e["node"], dict(base, **e)
    elif r.get("directions"):
        for e in r["directions"]:
            yield "link", (e["passive"], e["active"]), dict(base, **e)
    elif r.get("halves"):
        yield "link", tuple(r["hosts"][:2]), r
    else:
        yield "node", (r.get("hosts") or ["local"])[0], r


def _flat_attributes(attrs, prefix="attributes") -> dict:
    """Provider attributes as dotted keys; the IA's own address differs on
    every node by nature and is left out."""
    out = {}
    if isinstance(attrs, dict):
        for k, v in attrs.items():
            if "address" in k:
                continue
            out.update(_flat_attributes(v, f"{prefix}.{k}"))
    elif attrs is not None:
        out[prefix] = attrs
    return out


def fingerprint(host: dict) -> dict:
    fp = {k: host.get(k) for k in FINGERPRINT_FIELDS}
    fp.update(_flat_attributes(host.get("attributes")))
    return fp


def _majority(values: list):
    """The most common value (the first seen on a tie), None when no
    value is shared by more than one place."""
    if len(values) < 2:
        return None
    c = Counter(map(repr, values))
    top, n = c.most_common(1)[0]
    if n < 2:
        return None
    return next(v for v in values if repr(v) == top)


class _Place:
    def __init__(self, name: str):
        self.name = name
        self.outcomes: dict = {}     # clause id -> outcome (the worst there)
        self.states: Counter = Counter()
        self.cases = 0
        self.host_failures = 0

    def add(self, view: dict, catalog, outcome_of) -> None:
        self.cases += 1
        self.states[view["state"]] += 1
        if view.get("host_failure"):
            self.host_failures += 1
        for cid in view.get("clauses") or ():
            clause = catalog.clauses.get(cid)
            oc = outcome_of(view, clause)
            if clause is not None and clause.contested and oc == "fails":
                oc = "contested"
            if RANK[oc] >= RANK.get(self.outcomes.get(cid), -1):
                self.outcomes[cid] = oc

    def verdict(self, catalog) -> dict:
        shall = {cid: oc for cid, oc in self.outcomes.items()
                 if (catalog.clauses.get(cid) is None
                     or catalog.clauses[cid].level == "shall")}
        worst = max(shall.values(), key=RANK.get, default="holds")
        v = VERDICT_OF[worst]
        return {"verdict": v, "label": LABEL[v], "cases": self.cases,
                "states": {k: n for k, n in sorted(self.states.items())},
                "fails": sorted(c for c, o in shall.items() if o == "fails"),
                "not_demonstrated": sorted(c for c, o in shall.items()
                                           if o == "not-demonstrated"),
                "host_failures": self.host_failures}


def _differences(places_: dict) -> dict:
    """name -> {clause: {"here": outcome, "others": best elsewhere}} for the
    clauses whose outcome at a place is worse than at another place.  Not
    the majority: one bad node of three spoils two of the three ring links,
    and the good link is not the odd one.  A clause that fails everywhere
    singles out nothing (the provider's, not a node's)."""
    out: dict = {}
    clauses = sorted({c for p in places_.values() for c in p.outcomes})
    for cid in clauses:
        at = {n: p.outcomes[cid] for n, p in places_.items() if cid in p.outcomes}
        for n, oc in at.items():
            others = [o for m, o in at.items() if m != n]
            best = min(others, key=RANK.get, default=None)
            if best is not None and RANK[best] < RANK[oc]:
                out.setdefault(n, {})[cid] = {"here": oc, "others": best}
    return out


def _fingerprint_differences(hosts: dict) -> dict:
    """node -> {field: {"here": value, "others": most common value}}."""
    fps = {n: fingerprint(h) for n, h in hosts.items()}
    fields = sorted({k for fp in fps.values() for k in fp})
    out: dict = {}
    for f in fields:
        for n, fp in fps.items():
            if f not in fp:
                continue  # not recorded there (no attributes): unknown, not different
            common = _majority([o[f] for m, o in fps.items() if m != n and f in o])
            if common is not None and common != fp.get(f):
                out.setdefault(n, {})[f] = {"here": fp.get(f), "others": common}
    return out


def cluster_verdict(doc: dict, catalog, outcome_of) -> dict | None:
    """verdict.json's `cluster`, or None for a run that is not a cluster
    run.  `outcome_of(result, clause)` is the run verdict's per-clause rule
    (analysis.outcome_v3) mapped to holds / not-demonstrated / fails."""
    run = (doc or {}).get("run") or {}
    cl = run.get("cluster")
    if not cl:
        return None
    order = list(cl.get("nodes") or [])
    nodes = {n: _Place(n) for n in order}
    links: dict = {}
    matrix: dict = {}     # "passive>active" -> states of the two-node cases there
    for r in doc.get("results") or ():
        for kind, where, view in places(r):
            if kind == "node":
                nodes.setdefault(where, _Place(where)).add(view, catalog, outcome_of)
                continue
            p, a = where
            name = link_name(p, a, order)
            links.setdefault(name, _Place(name)).add(view, catalog, outcome_of)
            cell = matrix.setdefault(f"{p}>{a}", _Place(f"{p}>{a}"))
            cell.add(view, catalog, outcome_of)
    hosts = {h["name"]: h for h in run.get("hosts") or ()}
    node_diff = _differences(nodes)
    link_diff = _differences(links)
    fp_diff = _fingerprint_differences({n: hosts[n] for n in order if n in hosts})
    out_nodes = {}
    for n, p in nodes.items():
        v = p.verdict(catalog)
        v["differs"] = {"clauses": node_diff.get(n, {}), "fingerprint": fp_diff.get(n, {})}
        h = hosts.get(n) or {}
        v["died"] = h.get("died")
        v["fingerprint"] = {"hostname": h.get("hostname"), "kernel": h.get("kernel"),
                            "library": h.get("library_resolved") or h.get("library"),
                            "library_sha256": h.get("library_sha256"),
                            "registry_sha256": h.get("registry_sha256")}
        out_nodes[n] = v
    out_links = {}
    for name, p in links.items():
        v = p.verdict(catalog)
        ends = name.split("~")
        v["nodes"] = ends
        v["differs"] = {"clauses": link_diff.get(name, {}),
                        "fingerprint": {e: fp_diff[e] for e in ends if e in fp_diff}}
        out_links[name] = v
    cells = {k: p.verdict(catalog) for k, p in matrix.items()}
    every = [("node", n, v) for n, v in out_nodes.items()] + \
            [("link", n, v) for n, v in out_links.items()]
    worst_rank = max((RANK[_outcome_of_verdict(v["verdict"])] for _, _, v in every), default=0)
    worst = [(k, n) for k, n, v in every
             if RANK[_outcome_of_verdict(v["verdict"])] == worst_rank]
    wv = VERDICT_OF[{0: "holds", 1: "not-demonstrated", 2: "fails"}[worst_rank]]
    singled = sorted({n for n, v in out_nodes.items()
                      if v["differs"]["clauses"] or v["differs"]["fingerprint"]},
                     key=lambda n: order.index(n) if n in order else len(order))
    return {
        "launcher": cl.get("launcher"),
        "job_id": cl.get("job_id"),
        "pairs": cl.get("pairs"),
        "node_order": order,
        "nodes": out_nodes,
        "links": out_links,
        "matrix": cells,
        "worst": {"verdict": wv, "label": LABEL[wv],
                  "nodes": [n for k, n in worst if k == "node"],
                  "links": [n for k, n in worst if k == "link"]},
        "singled_out": {"nodes": singled,
                        "links": sorted(n for n, v in out_links.items()
                                        if v["differs"]["clauses"])},
    }


def _outcome_of_verdict(v: str) -> str:
    return {"conformant": "holds", "incomplete": "not-demonstrated",
            "not-conformant": "fails"}[v]
