#!/usr/bin/env bash
# ctest vm.verbs_suite: tools/vm/verbs-suite.sh (every case, both devices side by side, then the
# benchmarks) in one VM with rxe0 and siw0.
#   run.sh BUILD_DIR OUT_DIR
# Exit 77 (SKIPPED) where QEMU cannot run (tools/vm/run decides; DATCTS_VM_REQUIRE=1 makes it a
# failure).  DATCTS_VERBS_SUITE=ci runs the representative subset instead.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath "${1:?BUILD_DIR}")
out=${2:?OUT_DIR}
rm -rf "$out"
mkdir -p "$out"
[[ -f "$build/dat-verbs.conf" ]] || { echo "SKIPPED: $build has no dat-verbs.conf (built without rdma-core)"; exit 77; }
cd "$repo"
exec tools/vm/run --rdma both --timeout 2500 --rw "$out" -- \
	tools/vm/verbs-suite.sh "$build" "$out" "${DATCTS_VERBS_SUITE:-full}"
