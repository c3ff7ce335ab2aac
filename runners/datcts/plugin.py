"""pytest underneath: one pytest item per case, so pytest's JUnit XML has
one testcase per case.  The cases run in a thread pool started when
collection finishes; each item waits for its own result, so --jobs works
without pytest-xdist and the report order is the selection order."""

from __future__ import annotations

from pathlib import Path

import pytest

from datcts.waivers import annotate


class CaseFailed(Exception):
    def __init__(self, result: dict):
        super().__init__(result["state"])
        self.result = result


class CaseUnresolved(CaseFailed):
    pass


def _report_text(r: dict) -> str:
    lines = [f"{r['state']}: {r['message']}".rstrip(), f"at {r['file']}:{r['line']}"]
    if r.get("signal"):
        lines.append(f"signal: {r['signal']}")
    if r.get("halves"):
        for role, h in r["halves"].items():
            lines.append(f"{role}: {h['state']} {h.get('message', '')}".rstrip())
    if r.get("waiver"):
        w = r["waiver"]
        lines.append(f"waiver: {w['reason']} (expires {w['expires']})")
    out = (r.get("output") or "").rstrip()
    if out:
        tail = out[-4000:]
        lines.append("--- output" + (" (tail)" if len(out) > 4000 else "") + " ---")
        lines.append(tail)
    return "\n".join(lines)


class CaseItem(pytest.Item):
    def __init__(self, *, case, run, **kw):
        super().__init__(**kw)
        self.case = case
        self.run = run
        self.result = None

    def _get(self) -> dict:
        if self.result is None:
            raw = self.run.wait(self.case.id)
            if raw is None:
                raise KeyboardInterrupt
            self.result = annotate(raw, self.run.waivers)
            r = self.result
            self.user_properties.extend([
                ("state", r["state"]),
                ("clauses", " ".join(r["clauses"])),
                ("page", r["page"]),
                ("duration_ms", f"{r['duration_ms']:.3f}"),
            ])
            if r["waived"]:
                self.user_properties.append(("waived", r["waiver"]["reason"]))
            if r["waived_but_passing"]:
                self.user_properties.append(("waived_but_passing", "true"))
            if self.case.id in self.run.resumed:
                self.user_properties.append(("resumed", "true"))
        return self.result

    def setup(self) -> None:
        r = self._get()
        if r["state"] == "UNRESOLVED" and not r["waived"]:
            raise CaseUnresolved(r)

    def runtest(self) -> None:
        r = self._get()
        st = r["state"]
        if r["waived"]:
            pytest.xfail(f"waived ({r['waiver']['reason']}): {st}: {r['message']}")
        if st == "PASS":
            return
        if st == "UNSUPPORTED":
            pytest.skip(r["message"] or "unsupported")
        raise CaseFailed(r)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailed):
            return _report_text(excinfo.value.result)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return Path(self.case.file or "."), self.case.line - 1, self.case.id

    @property
    def location(self):
        # The case's source, relative to the repository (not to pytest's rootdir).
        return (self.case.file, self.case.line - 1, self.case.id)


class AreaNode(pytest.Collector):
    def __init__(self, *, cases, run, **kw):
        super().__init__(**kw)
        self.cases = cases
        self.run = run

    def collect(self):
        for c in self.cases:
            yield CaseItem.from_parent(self, name=c.id, case=c, run=self.run)


class CaseFile(pytest.File):
    def __init__(self, *, run, **kw):
        super().__init__(**kw)
        self.run = run

    def collect(self):
        areas: dict[str, list] = {}
        for c in self.run.cases:
            areas.setdefault(c.area, []).append(c)
        for area, cases in areas.items():
            yield AreaNode.from_parent(self, name=area, cases=cases, run=self.run)


class DatctsPlugin:
    def __init__(self, run, sentinel: Path):
        self.run = run
        self.sentinel = sentinel

    def pytest_collect_file(self, file_path, parent):
        if Path(file_path) == self.sentinel:
            return CaseFile.from_parent(parent, path=Path(file_path), run=self.run)
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session):
        self.run.start()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        if isinstance(item, CaseItem) and item.result is not None:
            # JUnit time = the case's own duration, not the wait for it.
            rep.duration = item.result["duration_ms"] / 1000.0 if call.when == "call" else 0.0
            if call.when == "setup" and rep.failed:
                rep.duration = item.result["duration_ms"] / 1000.0
