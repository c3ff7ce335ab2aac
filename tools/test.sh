#!/usr/bin/env bash
# The project's tests: installs what is missing, builds, runs every unit and
# integration test (ctest drives the C tests and the pytest suites).
#   DATCTS_SANITIZE=1 tools/test.sh   the same under ASan + UBSan
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh --report --vm
build=$(tools/build.sh | tail -n 1)
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
