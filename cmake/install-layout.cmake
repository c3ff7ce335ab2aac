# Runs at install time (included by cmake/install.cmake's install(CODE)), when
# CMAKE_INSTALL_PREFIX is the prefix given to `cmake --install`.  Writes the
# two files that tell an installed datcts where its parts are:
#   _installed.py   (into the datcts and datcts_reports packages)
#   datcts          (bin/datcts: runs the package with Debian's python3)
# Paths are relative to the prefix, found from the module's own place, so
# the installed tree still works when moved as a whole.
string(REGEX REPLACE "/+$" "" _prefix "${CMAKE_INSTALL_PREFIX}")
if(_prefix STREQUAL "")
  set(_prefix "/")
endif()
if(IS_ABSOLUTE "${DATCTS_PYDIR}")
  message(FATAL_ERROR "datcts install: DATCTS_INSTALL_PYTHONDIR must be relative to the prefix")
endif()
string(REGEX MATCHALL "[^/]+" _parts "${DATCTS_PYDIR}")
list(LENGTH _parts _depth)
math(EXPR _depth "${_depth} + 1")   # <prefix>/<pydir>/datcts/_installed.py -> parents[_depth]

file(WRITE "${DATCTS_GEN}/_installed.py"
"\"\"\"Written by `cmake --install` (cmake/install.cmake): this datcts is installed,
and these are the places of its parts.\"\"\"

from pathlib import Path

PREFIX = Path(__file__).resolve().parents[${_depth}]
# The build tree's layout (cases/, bench/, bin/): the default --build-dir.
SUITE_DIR = PREFIX / \"${DATCTS_SUITEDIR}\"
CATALOG = PREFIX / \"${DATCTS_SHAREDIR}/clauses\"
TEMPLATES = PREFIX / \"${DATCTS_SHAREDIR}/templates\"
# The reference provider's dat.conf entries (after /etc/dat.conf).
DAT_CONFS = (PREFIX / \"${DATCTS_SHAREDIR}/ref-provider/dat.conf\",
             PREFIX / \"${DATCTS_SHAREDIR}/ref-provider/dat2.conf\")
")

# bin/datcts.  Debian's python3 finds <pydir> by itself under /usr and
# /usr/local; under any other prefix the wrapper puts it on PYTHONPATH
# (relative to itself).  -P: the current directory never shadows the package.
file(RELATIVE_PATH _rel "/p/${DATCTS_BINDIR}" "/p/${DATCTS_PYDIR}")
set(_pypath "")
if(NOT ("${_prefix}/${DATCTS_PYDIR}" STREQUAL "/usr/lib/python3/dist-packages"
        OR "${_prefix}/${DATCTS_PYDIR}" MATCHES "^/usr/local/lib/python3\\.[0-9]+/dist-packages$"))
  set(_pypath "here=$(dirname -- \"$(readlink -f -- \"$0\")\")
PYTHONPATH=\"$here/${_rel}\${PYTHONPATH:+:$PYTHONPATH}\"
export PYTHONPATH
")
endif()
file(WRITE "${DATCTS_GEN}/datcts"
"#!/bin/sh
# datcts: the runner of the uDAPL (DAT 1.2) conformance test suite, installed
# (datcts(1)).  Runs its Python package with Debian's python3; DATCTS_PYTHON
# overrides the interpreter.
py=\${DATCTS_PYTHON:-/usr/bin/python3}
${_pypath}exec \"$py\" -P -m datcts \"$@\"
")
