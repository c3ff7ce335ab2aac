"""Choosing the provider under test: an IA name from a dat.conf, or a
provider library for which the runner writes a dat.conf of its own."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from datcts import layout


class ProviderError(Exception):
    pass


DEFAULT_IA_FOR_LIBRARY = "datcts-ia"


@dataclass
class ProviderSetup:
    ia: str
    dat_conf: Path
    library: str | None  # the provider library, when known
    instance_data: str | None
    generated: bool  # dat.conf written by the runner
    api: str = "1.2"  # DAT API of the IA: "1.2" or "2.0" (picks the case build)

    def env(self, base: dict | None = None) -> dict:
        env = dict(os.environ if base is None else base)
        env["DAT_OVERRIDE"] = str(self.dat_conf)
        env["DATCTS_IA"] = self.ia
        env.pop("DATCTS_TIMEOUT", None)
        return env

    def describe(self) -> dict:
        return {
            "ia": self.ia,
            "dat_conf": str(self.dat_conf),
            "library": self.library,
            "instance_data": self.instance_data,
            "generated_dat_conf": self.generated,
        }


def entry_api(api_field: str) -> str:
    """The DAT API a dat.conf entry names: "u2.0" (and any later u2.x) is
    "2.0", every other uDAPL entry "1.2"."""
    return "2.0" if api_field.startswith("u2.") else "1.2"


def library_api(lib: Path) -> str:
    """The DAT API of a provider library given with --provider: "2.0" when it
    is linked to OFA's registry (it names libdat2.so), else "1.2"."""
    try:
        data = lib.read_bytes()
    except OSError:
        return "1.2"
    return "2.0" if b"libdat2.so" in data else "1.2"


@dataclass
class ConfEntry:
    ia: str
    api: str
    thread_safety: str
    default: str
    library: str
    version: str
    instance_data: str
    platform: str
    line: int


def parse_dat_conf(path: Path) -> list[ConfEntry]:
    """Entries of a dat.conf (8 blank-separated fields, quotes allowed).
    Malformed lines are skipped, as libdat does."""
    entries = []
    try:
        text = path.read_text(errors="replace")
    except OSError as e:
        raise ProviderError(f"cannot read {path}: {e}") from e
    for no, raw in enumerate(text.splitlines(), 1):
        try:
            fields = shlex.split(raw, comments=True, posix=True)
        except ValueError:
            continue
        if len(fields) != 8:
            continue
        entries.append(ConfEntry(*fields, line=no))
    return entries


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_dat_conf(path: Path, ia: str, library: Path, instance_data: str,
                   api: str = "1.2") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (
        f"{ia} u{api} nonthreadsafe default {library} datcts.{api} "
        f"{_quote(instance_data)} \"\"\n"
    )
    tmp = path.with_suffix(".tmp")
    tmp.write_text("# written by datcts for --provider; one entry\n" + line)
    os.replace(tmp, path)


def _default_entries(conf: Path) -> list[ConfEntry]:
    return [e for e in parse_dat_conf(conf) if e.api.startswith("u") and e.default == "default"]


def _fallback_conf(name: str | None) -> Path:
    """/etc/dat.conf or (installed) the reference provider's dat.conf under
    the prefix (layout.fallback_dat_confs): the first that has the IA asked
    for, or a default uDAPL entry when none is named; the first that exists
    otherwise, so the error names it."""
    existing = [c for c in layout.fallback_dat_confs(name is not None) if c.is_file()]
    for c in existing:
        try:
            entries = _default_entries(c)
        except ProviderError:
            continue
        if (name is None and entries) or any(e.ia == name for e in entries):
            return c
    return existing[0] if existing else layout.SYSTEM_DAT_CONF


def resolve(
    *,
    build_dir: Path,
    out_dir: Path,
    ia: str | None,
    dat_conf: str | None,
    provider: str | None,
    instance_data: str | None,
) -> ProviderSetup:
    if provider:
        lib = Path(provider).resolve()
        if not lib.is_file():
            raise ProviderError(f"--provider {provider}: no such file")
        name = ia or DEFAULT_IA_FOR_LIBRARY
        conf = out_dir / "provider-dat.conf"
        api = library_api(lib)
        write_dat_conf(conf, name, lib, instance_data or "", api)
        return ProviderSetup(name, conf, str(lib), instance_data or "", True, api)

    name = ia or os.environ.get("DATCTS_IA")
    if dat_conf:
        conf = Path(dat_conf)
    elif os.environ.get("DAT_OVERRIDE"):
        conf = Path(os.environ["DAT_OVERRIDE"])
    elif (build_dir / "dat.conf").is_file():
        conf = build_dir / "dat.conf"
    else:
        conf = _fallback_conf(name)
    conf = conf.resolve()
    if not conf.is_file():
        raise ProviderError(
            f"no dat.conf at {conf}: pass --dat-conf, --provider, or build the "
            "reference provider"
        )
    entries = _default_entries(conf)
    if not name:
        if not entries:
            raise ProviderError(f"{conf} has no default uDAPL entry; pass --ia")
        name = entries[0].ia
    match = next((e for e in entries if e.ia == name), None)
    if match is None:
        known = ", ".join(e.ia for e in entries) or "none"
        raise ProviderError(f"IA {name!r} is not a default entry of {conf} (it has: {known})")
    return ProviderSetup(name, conf, match.library, match.instance_data, False,
                         entry_api(match.api))
