#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the whole suite
# against the reference provider on its embedded default (ref-sock, TCP on
# loopback). Results, JUnit XML and the HTML report land in ./out.
# Extra arguments go to `datcts run` (e.g. --area srq, --jobs 4).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
build=$(tools/build.sh | tail -n 1)
exec bin/datcts run --build-dir "$build" --ia ref-sock --dat-conf "$build/dat.conf" --out out "$@"
