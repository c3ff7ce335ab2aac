"""The expectations file: waivers for known failures, each with a reason
and an expiry date (docs/results-format.md, "Expectations")."""

from __future__ import annotations

import datetime as dt
import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path

from datcts import BAD_STATES


class ExpectationsError(Exception):
    pass


@dataclass(frozen=True)
class Waiver:
    id: str               # a case id; a glob when teardown_crash
    reason: str
    expires: dt.date
    teardown_crash: bool = False

    def describe(self) -> dict:
        d = {"id": self.id, "reason": self.reason, "expires": self.expires.isoformat()}
        if self.teardown_crash:
            d["teardown_crash"] = True
        return d

    def names(self, case_id: str) -> bool:
        """Whether the id names the case (a pattern when teardown_crash)."""
        if self.teardown_crash:
            return fnmatch.fnmatchcase(case_id, self.id)
        return case_id == self.id

    def covers(self, result: dict) -> bool:
        """Whether this waiver applies to the result at all. A teardown_crash
        waiver names a provider defect that strikes after a case's verdict,
        in whichever case it happens to: it covers only a CRASH that came
        after the case had reached its result, and never makes a passing
        case 'waived but passing'."""
        if not self.names(result["id"]):
            return False
        return not self.teardown_crash or (result["state"] == "CRASH"
                                           and bool(result.get("reached")))


_KEYS = {"id", "reason", "expires", "teardown_crash"}
_GLOB = set("*?[")


def load(path: Path, today: dt.date | None = None):
    """Returns (active waivers, expired waivers, warnings); the waivers by
    (id, teardown_crash)."""
    today = today or dt.date.today()
    try:
        data = tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise ExpectationsError(f"{path}: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise ExpectationsError(f"{path}: not valid TOML: {e}") from e
    unknown_top = set(data) - {"waiver"}
    if unknown_top:
        raise ExpectationsError(f"{path}: unknown table(s) {sorted(unknown_top)}; use [[waiver]]")
    items = data.get("waiver", [])
    if not isinstance(items, list):
        raise ExpectationsError(f"{path}: 'waiver' must be an array of tables ([[waiver]])")
    active: dict[str, Waiver] = {}
    expired: dict[str, Waiver] = {}
    warnings = []
    for n, w in enumerate(items, 1):
        where = f"{path}: waiver #{n}"
        if not isinstance(w, dict):
            raise ExpectationsError(f"{where}: not a table")
        extra = set(w) - _KEYS
        if extra:
            raise ExpectationsError(f"{where}: unknown key(s) {sorted(extra)}")
        wid, reason, expires = w.get("id"), w.get("reason"), w.get("expires")
        if not isinstance(wid, str) or not wid:
            raise ExpectationsError(f"{where}: 'id' must be a case id string")
        if not isinstance(reason, str) or not reason.strip():
            raise ExpectationsError(f"{where} ({wid}): a waiver needs a 'reason'")
        if isinstance(expires, dt.datetime):
            expires = expires.date()
        elif isinstance(expires, str):
            try:
                expires = dt.date.fromisoformat(expires)
            except ValueError:
                expires = None
        if not isinstance(expires, dt.date):
            raise ExpectationsError(
                f"{where} ({wid}): 'expires' must be a date such as 2027-01-31"
            )
        teardown = w.get("teardown_crash", False)
        if not isinstance(teardown, bool):
            raise ExpectationsError(f"{where} ({wid}): 'teardown_crash' must be true or false")
        if _GLOB & set(wid) and not teardown:
            # a pattern over failures would waive the next new failure too
            raise ExpectationsError(
                f"{where} ({wid}): a pattern id is only allowed with teardown_crash = true")
        key = (wid, teardown)
        if key in active or key in expired:
            raise ExpectationsError(f"{where}: {wid} is waived twice")
        waiver = Waiver(wid, reason.strip(), expires, teardown)
        if expires < today:
            expired[key] = waiver
            warnings.append(
                f"waiver for {wid} expired on {expires.isoformat()}; ignored"
            )
        else:
            active[key] = waiver
    return active, expired, warnings


def find(result: dict, active: dict) -> Waiver | None:
    """The waiver for a result: its case's own, else a teardown_crash
    waiver that covers it."""
    w = active.get((result["id"], False))
    if w:
        return w
    return next((w for w in active.values() if w.teardown_crash and w.covers(result)), None)


def annotate(result: dict, active: dict) -> dict:
    """Adds the waiver fields to a result (a copy)."""
    r = dict(result)
    w = find(r, active)
    r["waiver"] = w.describe() if w else None
    r["waived"] = bool(w and r["state"] in BAD_STATES)
    r["waived_but_passing"] = bool(w and r["state"] == "PASS")
    return r
