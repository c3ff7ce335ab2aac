#!/usr/bin/env bash
# Configures and builds datcts out of tree.
#   BUILD_DIR   build directory (default: build, or build-asan when DATCTS_SANITIZE=1)
#   DATCTS_SANITIZE=1   AddressSanitizer + UndefinedBehaviorSanitizer build
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=OFF
[[ "${DATCTS_SANITIZE:-0}" == 1 ]] && sanitize=ON
build=${BUILD_DIR:-build}
[[ $sanitize == ON && -z "${BUILD_DIR:-}" ]] && build=build-asan
cmake -S . -B "$build" -DDATCTS_SANITIZE=$sanitize >&2
cmake --build "$build" -j"$(nproc)" >&2
echo "$build"
