"""Run metadata for results.json: what exactly was tested, where, by what.

The runner calls collect() once per run (docs/results-format.md, "Run
metadata").  Nothing here fails a run: what cannot be found is recorded as
null, and the provider attributes' absence is explained in
`attributes_error`.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shlex
import shutil
import socket
import subprocess
from pathlib import Path

from datcts_reports import REPO

PROBE = "datcts-probe"
PROBE2 = "datcts-probe2"  # the same program built for DAT 2.0 (libdat2)
# The registry each API's case build is linked to: (name, soname).
REGISTRIES = {"1.2": ("libdat", "libdat.so.1"), "2.0": ("libdat2", "libdat2.so.2")}
PROBE_TIMEOUT_S = 30.0


def sha256_file(path) -> str | None:
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None


def dat_conf_line(conf: Path, ia: str) -> dict | None:
    """The dat.conf line libdat uses for `ia`: the first well-formed entry of
    that name (a default entry preferred)."""
    try:
        text = Path(conf).read_text(errors="replace")
    except OSError:
        return None
    found = None
    for no, raw in enumerate(text.splitlines(), 1):
        try:
            fields = shlex.split(raw, comments=True, posix=True)
        except ValueError:
            continue
        if len(fields) != 8 or fields[0] != ia:
            continue
        entry = {"number": no, "text": raw.strip()}
        if fields[3] == "default":
            return entry
        found = found or entry
    return found


def _ld_cache() -> dict:
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    m = {}
    for line in out.splitlines()[1:]:
        name, _, path = line.strip().partition(" => ")
        name = name.split(" (", 1)[0]
        m.setdefault(name, path.strip())
    return m


def resolve_library(lib: str | None, env: dict | None = None) -> str | None:
    """The file dlopen() would load for a dat.conf library field."""
    if not lib:
        return None
    if "/" in lib:
        p = Path(lib)
        return str(p.resolve()) if p.is_file() else lib
    env = env or os.environ
    for d in (env.get("LD_LIBRARY_PATH") or "").split(":"):
        if d and (Path(d) / lib).is_file():
            return str((Path(d) / lib).resolve())
    path = _ld_cache().get(lib)
    if path and Path(path).is_file():
        return str(Path(path).resolve())
    for d in ("/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/local/lib"):
        if (Path(d) / lib).is_file():
            return str((Path(d) / lib).resolve())
    return lib


def find_probe(build_dir: Path | None, cases_dir: Path | None = None,
               api: str = "1.2") -> str | None:
    name = PROBE2 if api == "2.0" else PROBE
    cands = []
    if build_dir:
        cands.append(Path(build_dir) / "bin" / name)
    if cases_dir:
        cands.append(Path(cases_dir).parent / "bin" / name)
    for c in cands:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which(name)


def package_version(path: str | None) -> str | None:
    """The Debian package version of the package that owns path, or None."""
    if not path or not shutil.which("dpkg-query"):
        return None
    try:
        owner = subprocess.run(["dpkg-query", "-S", path], capture_output=True, text=True,
                               timeout=10)
        if owner.returncode != 0:
            # the package may list the /usr/lib path of a /lib file (merged /usr)
            alt = path[4:] if path.startswith("/usr/") else "/usr" + path
            owner = subprocess.run(["dpkg-query", "-S", alt], capture_output=True,
                                   text=True, timeout=10)
        if owner.returncode != 0:
            return None
        pkg = owner.stdout.split(":", 1)[0].strip()
        ver = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                             capture_output=True, text=True, timeout=10)
        return f"{pkg} {ver.stdout.strip()}" if ver.returncode == 0 else pkg
    except (OSError, subprocess.TimeoutExpired):
        return None


def dat_fields(api: str, cases_dir: Path | None, env: dict | None = None) -> dict:
    """results.json run.dat: the DAT API tested and the registry the case
    build loads providers through (docs/results-format.md)."""
    from datcts import __version__  # the runner's package; reports run without it too

    name, soname = REGISTRIES.get(api, REGISTRIES["1.2"])
    resolved = None
    own = False
    if cases_dir:
        ours = Path(cases_dir).parent / "lib" / soname   # the build's own libdat
        if ours.is_file():
            resolved = str(ours.resolve())
            own = True
    if resolved is None:
        resolved = resolve_library(soname, env)
        if resolved == soname:
            resolved = None
    # the build tree's own libdat belongs to no package: dpkg is not asked
    version = None if own else package_version(resolved)
    if version is None and resolved and name == "libdat":
        version = f"datcts {__version__}"
    return {"api": api, "cases_build": str(cases_dir) if cases_dir else None,
            "registry": {"name": name, "library": soname, "resolved": resolved,
                         "sha256": sha256_file(resolved) if resolved else None,
                         "version": version}}


def probe_attributes(probe: str | None, ia: str, env: dict) -> tuple:
    """(attributes or None, error or None) from datcts-probe."""
    if not probe:
        return None, f"{PROBE} not found (build the project; it is built into BUILD/bin)"
    try:
        p = subprocess.run([probe, "--ia", ia], env=env, capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"{PROBE} --ia {ia}: no answer in {PROBE_TIMEOUT_S:g} s"
    except OSError as e:
        return None, f"{PROBE}: {e}"
    try:
        doc = json.loads(p.stdout.decode(errors="replace"))
    except ValueError:
        err = p.stderr.decode(errors="replace").strip()
        how = f"died of signal {-p.returncode}" if p.returncode < 0 else f"exited {p.returncode}"
        return None, f"{PROBE} --ia {ia} {how} without JSON" + (f": {err[-300:]}" if err else "")
    if not isinstance(doc, dict):
        return None, f"{PROBE} printed no JSON object"
    if doc.get("error"):
        return None, f"{PROBE}: {doc['error']}"
    if not isinstance(doc.get("provider"), dict) or not isinstance(doc.get("ia_attr"), dict):
        return None, f"{PROBE} printed no provider/ia_attr objects"
    return {"provider": doc["provider"], "ia_attr": doc["ia_attr"]}, None


def git_revision(repo: Path = REPO) -> tuple:
    """(revision, dirty) of the datcts checkout, (None, None) outside git."""
    if not (Path(repo) / ".git").exists() or not shutil.which("git"):
        return None, None
    try:
        # generous: in the VM the checkout is a 9p mount, and under software emulation a
        # rev-parse has taken over 10 s (a certification bundle then named no commit)
        rev = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"],
                             capture_output=True, text=True, timeout=120)
        if rev.returncode != 0:
            return None, None
        # --no-optional-locks: never take the index lock (a concurrent
        # `git commit` must not fail because a run is looking).
        st = subprocess.run(["git", "--no-optional-locks", "-C", str(repo), "status",
                             "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True, timeout=300)
        dirty = bool(st.stdout.strip()) if st.returncode == 0 else None
        return rev.stdout.strip(), dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def system() -> dict:
    return {
        "hostname": socket.gethostname(),
        "kernel": f"{platform.system()} {platform.release()} {platform.version()}".strip(),
        "os": _os_name(),
        "machine": platform.machine(),
    }


def provider_fields(provider: dict, env: dict, build_dir=None, cases_dir=None,
                    probe: bool = True, api: str = "1.2") -> dict:
    """The runner's provider description plus dat.conf line, library sha256
    and the dat_ia_query attributes."""
    out = dict(provider)
    line = dat_conf_line(Path(provider["dat_conf"]), provider["ia"])
    out["dat_conf_line"] = line
    lib = resolve_library(provider.get("library"), env)
    out["library_resolved"] = lib
    out["library_sha256"] = sha256_file(lib) if lib else None
    if probe:
        attrs, err = probe_attributes(find_probe(build_dir, cases_dir, api), provider["ia"], env)
    else:
        attrs, err = None, "not probed"
    out["attributes"] = attrs
    out["attributes_error"] = err
    return out
