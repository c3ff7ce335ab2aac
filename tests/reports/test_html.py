"""The HTML report: content, self-containedness, and a render in headless
Chromium whose screenshot is saved to the test output directory."""

import os
import re
import shutil
import struct
import subprocess

import pytest

from datcts_reports.analysis import Analysis
from datcts_reports.html import render

from helpers import all_passing, make_doc, result


@pytest.fixture(scope="module")
def ref_html(ref_catalog):
    from helpers import ref_doc
    return render(Analysis(ref_catalog, ref_doc()), results_sha256="ab" * 32,
                  generated="2026-11-21T09:00:00+00:00")


def test_self_contained(ref_html):
    h = ref_html
    assert "<link" not in h
    assert "@import" not in h
    assert not re.search(r"<(img|iframe|object|embed|audio|video|source)\b", h)
    # the only script is inert JSON data
    assert re.findall(r"<script[^>]*>", h) == ['<script type="application/json" id="datcts-verdict">']
    # no reference to anything outside the file (anchors within it are fine)
    for attr in re.findall(r'\b(?:href|src|xlink:href|action)="([^"]*)"', h):
        assert attr.startswith("#"), attr
    for url in re.findall(r"url\(([^)]*)\)", h):
        assert url.startswith("#"), url
    assert "http://" not in h.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in h


def test_content(ref_html, ref_catalog):
    h = ref_html
    assert '<meta name="datcts-verdict" content="not-conformant">' in h
    assert '<div class="label">NOT CONFORMANT</div>' in h
    assert "9 of 306 shall clauses fail; 30 more are not demonstrated." in h
    # the three outcomes in the banner; blocking causes open "Needs attention"
    for label in ("FAILS", "NOT DEMONSTRATED", "HOLDS"):
        assert f'">{label}</span>' in h
    att = h.index('id="attention"')
    assert att < h.index('id="blocking-causes"') < h.index('class="grid attn"')
    assert "no case checks it yet" in h
    assert "<svg" in h and "Clauses per man page" in h
    for page in ref_catalog.pages:                  # every page has its section
        assert f'id="page-{page}"' in h
    assert "provider bug 17: returns DAT_PROTECTION_VIOLATION" in h     # waiver reason
    assert "waived but passing" in h
    assert "SIGSEGV" in h                                                # crash evidence
    assert "Coverage: clauses with no case" in h and "dat_cr_accept" in h
    # every case, under each of its clauses
    from helpers import ref_doc
    refs = sum(sum(1 for c in r["clauses"] if c in ref_catalog.clauses) or 1
               for r in ref_doc()["results"])
    assert h.count('<details class="case">') == refs
    assert "datcts reference provider" in h          # dat_ia_query attributes
    assert "libdaplref.so" in h and "ref-sock u1.2" in h


def test_escaping(small_cat):
    rs = all_passing()
    rs[0] = result(rs[0]["id"], "FAIL", message="<script>alert(1)</script>", output="a < b & c")
    h = render(Analysis(small_cat, make_doc(rs)))
    assert "<script>alert(1)" not in h
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in h
    assert "a &lt; b &amp; c" in h


def test_conformant_banner(small_cat):
    h = render(Analysis(small_cat, make_doc(all_passing())))
    assert '<section class="verdict conformant"' in h and ">CONFORMANT<" in h
    assert "Nothing: no clause fails" in h


def _png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed (tools/deps.sh --report installs "
                    "it; CI has it)")
def test_renders_in_headless_chromium(ref_html, out_dir, tmp_path):
    html = out_dir / "report.html"
    html.write_text(ref_html, encoding="utf-8")
    png = out_dir / "report.png"
    if png.exists():
        png.unlink()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    env = dict(os.environ, HOME=str(tmp_path))
    p = subprocess.run([CHROMIUM, *flags, f"--screenshot={png}", "--window-size=1280,2000",
                        html.as_uri()], capture_output=True, text=True, timeout=180, env=env)
    assert png.is_file(), f"no screenshot; chromium said:\n{p.stderr[-3000:]}"
    assert _png_size(png) == (1280, 2000)
    assert png.stat().st_size > 60_000, "the screenshot looks blank"
    # and the DOM Chromium built has the report in it
    d = subprocess.run([CHROMIUM, *flags, "--dump-dom", html.as_uri()],
                       capture_output=True, text=True, timeout=180, env=env)
    assert '<div class="label">NOT CONFORMANT</div>' in d.stdout, d.stderr[-3000:]
    print(f"screenshot: {png}")


def test_registry_line(tmp_path):
    """The provider's certificate in the banner, the registry on its own line
    (datcts-verdict/2), named from results.json run.dat.registry."""
    from test_verdict import SUBJECT_CATALOG, SUBJECT_IDS
    from helpers import small_catalog
    cat = small_catalog(tmp_path, SUBJECT_CATALOG)
    doc = make_doc([result(c, "FAIL" if c == "dat_strerror.success_code" else "PASS")
                    for c in SUBJECT_IDS])
    h = render(Analysis(cat, doc))
    assert '<meta name="datcts-verdict" content="conformant">' in h
    assert '<meta name="datcts-verdict-registry" content="not-conformant">' in h
    line = h[h.index('id="verdict-registry"'):]
    line = line[:line.index("</div>\n</div>")]
    assert "NOT CONFORMANT" in line and "Registry <b>libdat</b>" in line
    assert '(this build)</span> · <span class="muted">version unknown' in line
    assert "1 of 2 shall clauses fail" in line
    assert '<span class="subj"' in h      # the registry's clauses are marked as such
    doc["run"]["dat"] = {"api": "2.0", "cases_build": "/b/cases2",
                         "registry": {"name": "libdat2", "library": "libdat2.so.2",
                                      "resolved": "/usr/lib/libdat2.so.2", "sha256": None,
                                      "version": "2.1.10-1"}}
    h = render(Analysis(cat, doc))
    assert "<h1>uDAPL (DAT 2.0) compliance report</h1>" in h
    line = h[h.index('id="verdict-registry"'):]
    assert "Registry <b>libdat2</b>" in line and "2.1.10-1" in line and "libdat2.so.2" in line
    assert "(this build)" not in line[:400]


def test_attention_grouped_by_page(ref_html):
    """Needs attention: the failing clauses grouped under their page, a page
    with a failing shall clause before one with only lower levels, each clause
    with what it requires and each failing case with its evidence."""
    h = ref_html
    sect = h[h.index('id="attention"'):h.index('id="chart"')]
    groups = re.findall(r'<tr class="pagegrp"><td colspan="4"><a class="mono" href="#page-([a-z_]+)">'
                        r'.*?· (\d+) failing(?:, (\d+) shall)?', sect)
    assert groups, "no page groups in Needs attention"
    pages = [g[0] for g in groups]
    assert len(pages) == len(set(pages)), "a page appears twice"
    with_shall = [bool(g[2]) for g in groups if True]
    assert with_shall == sorted(with_shall, reverse=True), "a page without failing shall comes first"
    # the rows between two group headers are that page's clauses
    for page, body in zip(pages, re.split(r'<tr class="pagegrp">', sect)[1:]):
        for cid in re.findall(r'<a class="cid" href="#([a-z_0-9.]+)"', body):
            assert cid.startswith(page + "."), (page, cid)
    assert sect.count("requires: ") == sum(int(g[1]) for g in groups)
    assert re.search(r'<span class="mono">cases/[a-z/_]+\.c:\d+</span>', sect)
