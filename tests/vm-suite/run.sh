#!/usr/bin/env bash
# ctest vm.verbs_suite: tools/vm/verbs-suite.sh (the cases, both devices side by side, then the
# benchmarks) in one VM with rxe0 and siw0.
#   run.sh BUILD_DIR OUT_DIR
# Exit 77 (SKIPPED) where QEMU cannot run (tools/vm/run decides; DATCTS_VM_REQUIRE=1 makes it a
# failure).  The scope is ci (the representative subset, inside CI's budget) unless
# DATCTS_VERBS_SUITE says full (every case on both devices: ~45 min under TCG on 2 cores).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:?BUILD_DIR}")
out=${2:?OUT_DIR}
rm -rf "$out"
mkdir -p "$out"
[[ -f "$build/dat-verbs.conf" ]] || { echo "SKIPPED: $build has no dat-verbs.conf (built without rdma-core)"; exit 77; }
cd "$repo"
scope=${DATCTS_VERBS_SUITE:-ci}
# the ci scope's rotation of the OFA findings (tools/vm/verbs-suite.sh), counted here where git
# surely runs; 0 outside a git checkout
DATCTS_VM_ROTATE=$(git -C "$repo" rev-list --count HEAD 2>/dev/null || echo 0)
export DATCTS_VM_ROTATE
# inside ctest's 3300 s. A fresh-clone .ci/run (2026-11-28, another VM beside it for its first
# minutes) used all of 2500 s: each device's suite 1475 s, every part passed, the benchmarks cut
timeout=3000
[[ $scope == full ]] && timeout=5400	# run it as run.sh, or ctest --timeout 5700
exec tools/vm/run --rdma both --timeout "$timeout" --rw "$out" -- \
	tools/vm/verbs-suite.sh "$build" "$out" "$scope"
