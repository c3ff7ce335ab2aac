"""The expectations file: waivers for known failures, each with a reason
and an expiry date (docs/results-format.md, "Expectations")."""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass
from pathlib import Path

from datcts import BAD_STATES


class ExpectationsError(Exception):
    pass


@dataclass(frozen=True)
class Waiver:
    id: str
    reason: str
    expires: dt.date

    def describe(self) -> dict:
        return {"id": self.id, "reason": self.reason, "expires": self.expires.isoformat()}


_KEYS = {"id", "reason", "expires"}


def load(path: Path, today: dt.date | None = None):
    """Returns (active waivers by id, expired waivers, warnings)."""
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
        if wid in active or wid in expired:
            raise ExpectationsError(f"{where}: {wid} is waived twice")
        waiver = Waiver(wid, reason.strip(), expires)
        if expires < today:
            expired[wid] = waiver
            warnings.append(
                f"waiver for {wid} expired on {expires.isoformat()}; ignored"
            )
        else:
            active[wid] = waiver
    return active, expired, warnings


def annotate(result: dict, active: dict) -> dict:
    """Adds the waiver fields to a result (a copy)."""
    r = dict(result)
    w = active.get(r["id"])
    r["waiver"] = w.describe() if w else None
    r["waived"] = bool(w and r["state"] in BAD_STATES)
    r["waived_but_passing"] = bool(w and r["state"] == "PASS")
    return r
