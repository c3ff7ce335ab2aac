"""`datcts serve` read in headless Chromium: the DOM Chromium builds from
the pages (not a screenshot) shows a regression listed first, a clause's
history (failing since, first failing, runs since) and the provider x clause
matrix; each run links to its stored report and its cases' output."""

import os
import shutil
import subprocess
import urllib.parse
import urllib.request
from html.parser import HTMLParser

import pytest
from conftest import CATALOG, REPO, make_run, write_run

from datcts_reports.store.db import Store
from datcts_reports.store.ingest import ingest_path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REF = "ref-sock · libdaplref.so"
OFA = "ofa-v2-ib0 · libdaplofa.so.2"


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag=None, **attrs) -> list:
        """Descendants in document order with this tag and these attributes
        (class_ matches one class of the element)."""
        out = []
        for c in self.children:
            if isinstance(c, str):
                continue
            want_class = attrs.get("class_")
            if (tag is None or c.tag == tag) and all(
                    c.attrs.get(k) == v for k, v in attrs.items() if k != "class_") and \
                    (want_class is None or want_class in (c.attrs.get("class") or "").split()):
                out.append(c)
            out += c.all(tag, **attrs)
        return out

    def one(self, tag=None, **attrs) -> "Node":
        found = self.all(tag, **attrs)
        assert found, f"no <{tag} {attrs}> in the DOM"
        return found[0]


class DomBuilder(HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#document", {})

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in self.VOID:
            self.cur = n

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


@pytest.fixture(scope="module")
def served(three_runs, tmp_path_factory):
    """A store of the three runs of the reference provider and one of
    another provider, served by `datcts serve` on a free port."""
    tmp = tmp_path_factory.mktemp("web")
    url = str(tmp / "web.sqlite")
    ofa = write_run(tmp / "ofa", make_run(started="2026-11-21T12:00:00+00:00", ia="ofa-v2-ib0",
                                          library="libdaplofa.so.2", host="node7"))
    with Store(url) as st:
        ids = [ingest_path(st, r["dir"], CATALOG).run_id for r in three_runs]
        ingest_path(st, ofa, CATALOG)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.Popen([str(REPO / "bin" / "datcts"), "serve", "--store", url, "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        line = p.stdout.readline()  # printed once the socket is bound
        assert line.startswith("datcts serve: http://"), f"serve said {line!r}"
        yield {"base": line.split()[2], "ids": ids, "runs": three_runs, "tmp": tmp}
    finally:
        p.terminate()
        p.wait(30)


def dom(served, path: str) -> Node:
    """The DOM headless Chromium builds from the page."""
    if not CHROMIUM:
        pytest.skip("chromium is not installed (tools/deps.sh --report installs it; CI has it)")
    prof = served["tmp"] / "profile"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={prof}"]
    p = subprocess.run([CHROMIUM, *flags, "--dump-dom", served["base"] + path.lstrip("/")],
                       capture_output=True, text=True, timeout=180,
                       env=dict(os.environ, HOME=str(served["tmp"])))
    assert "<main>" in p.stdout, p.stderr[-3000:]
    b = DomBuilder()
    b.feed(p.stdout)
    return b.root


def clause_of(served, case_id: str) -> str:
    doc = served["runs"][0]["doc"]
    return next(r["clauses"][0] for r in doc["results"] if r["id"] == case_id)


def test_a_regression_is_listed_first(served):
    main = dom(served, "/").one("main")
    sections = main.all("section")
    assert sections[0].attrs.get("id") == "regressions", "regressions come before the runs"
    rows = sections[0].all("tr", class_="regression")
    # clause B held in run 2 and fails in run 3, the reference provider's latest
    assert [(r.attrs["data-clause"], r.attrs["data-provider"]) for r in rows] == \
        [(clause_of(served, served["runs"][0]["b"]), REF)]
    links = [a.attrs["href"] for a in rows[0].all("a")]
    assert f"/run/{served['ids'][2]}" in links and f"/run/{served['ids'][1]}" in links
    # then the runs, by provider (the one run most recently first), each with its hosts
    runs = main.one("section", id="runs")
    assert [h.attrs["data-provider"] for h in runs.all("h3", class_="provider")] == [REF, OFA]
    assert "node7" in runs.text()


def test_a_clauses_history(served):
    ids = served["ids"]
    a = clause_of(served, served["runs"][0]["a"])
    b = clause_of(served, served["runs"][0]["b"])
    sec = dom(served, f"/clause/{urllib.parse.quote(a)}").one("section", **{"data-provider": REF})
    rows = sec.one("table", class_="history").all("tr", **{})[1:]
    assert [(int(r.attrs["data-run"]), r.attrs["data-outcome"]) for r in rows] == \
        [(ids[0], "holds"), (ids[1], "fails"), (ids[2], "fails")]
    assert sec.one("a", class_="failing-since").attrs["data-run"] == str(ids[1])
    assert sec.one("span", class_="runs-failing").text() == "2"
    assert sec.one("a", class_="first-failing").attrs["data-run"] == str(ids[1])
    # B: failed in the first run, held, fails again: failing since the third
    sec = dom(served, f"/clause/{urllib.parse.quote(b)}").one("section", **{"data-provider": REF})
    assert sec.one("a", class_="failing-since").attrs["data-run"] == str(ids[2])
    assert sec.one("span", class_="runs-failing").text() == "1"
    assert sec.one("a", class_="first-failing").attrs["data-run"] == str(ids[0])


def test_the_provider_by_clause_matrix(served):
    table = dom(served, "/matrix").one("table", id="matrix")
    assert [th.attrs["data-provider"] for th in table.all("th", class_="provider")] == [OFA, REF]
    rows = {r.attrs["data-clause"]: r for r in table.all("tr") if "data-clause" in r.attrs}
    a = clause_of(served, served["runs"][0]["a"])
    b = clause_of(served, served["runs"][0]["b"])
    for clause in (a, b):   # fail in the reference provider's latest run, hold in OFA's
        cells = {td.attrs["data-provider"]: td.one("span").attrs["data-outcome"]
                 for td in rows[clause].all("td", class_="cell")}
        assert cells == {OFA: "holds", REF: "fails"}
    # only the clauses that do not hold everywhere, unless all=1 (the server's
    # HTML is enough to count them)
    with urllib.request.urlopen(served["base"] + "matrix?all=1") as r:
        everything = r.read().decode().count("<tr data-clause=")
    assert everything > len(rows)


def test_a_run_links_its_report_and_its_cases_output(served):
    run_id, run = served["ids"][2], served["runs"][2]
    page = dom(served, f"/run/{run_id}")
    report = page.one("a", id="report-link").attrs["href"]
    with urllib.request.urlopen(served["base"] + report.lstrip("/")) as r:
        assert b'<meta name="datcts-verdict" content="not-conformant">' in r.read()
    case_link = next(a.attrs["href"] for a in page.all("a")
                     if a.attrs.get("href", "").endswith("/case/" + run["a"]))
    case = dom(served, case_link)
    assert f"failing output of {run['a']}" in case.one("pre", class_="out").text()
