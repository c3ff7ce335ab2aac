#!/usr/bin/env bash
# The main job: installs what is missing, builds, and lists the providers of
# this build's dat.conf (the reference provider on its embedded sock transport).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
build=$(tools/build.sh | tail -n 1)
export DAT_OVERRIDE=${DAT_OVERRIDE:-$PWD/$build/dat.conf}
"$build/bin/dat-providers"
