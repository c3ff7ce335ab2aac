"""Where datcts finds its parts: a build tree when it runs from a checkout,
the install prefix once `cmake --install` (or the Debian package) put it
there (docs/install.md).

An installed datcts has a module ``datcts._installed``, written by
cmake/install.cmake, that names the places under the prefix; a checkout has
none and keeps today's defaults (``./build``, ``<build>/dat.conf``).
"""

from __future__ import annotations

from pathlib import Path

try:
    from datcts import _installed  # written by `cmake --install`
except ImportError:
    _installed = None

INSTALLED = _installed is not None

# dat.conf tried when neither --dat-conf nor $DAT_OVERRIDE names one and the
# build tree has none.
SYSTEM_DAT_CONF = Path("/etc/dat.conf")


def default_build_dir() -> str:
    """--build-dir's default: the build tree (``build``) in a checkout; the
    installed suite directory (cases/, bench/, bin/ as in a build tree)."""
    return str(_installed.SUITE_DIR) if INSTALLED else "build"


def fallback_dat_confs(ia_named: bool) -> list[Path]:
    """An IA asked for by name is looked up in /etc/dat.conf first, then in
    the installed reference provider's entries; with no IA named an installed
    datcts tests its reference provider (as a checkout tests its build's),
    and /etc/dat.conf's first default entry only when that is not there."""
    ref = [Path(p) for p in _installed.DAT_CONFS] if INSTALLED else []
    return [SYSTEM_DAT_CONF, *ref] if ia_named else [*ref, SYSTEM_DAT_CONF]
