#!/usr/bin/env bash
# One ctest fuzz smoke (fuzz/smoke.cmake): smoke.sh FUZZ_TREE OUT DATCTS ARGS...
# Skips (77) when the fuzz tree was not built (no clang/libFuzzer: fuzz.build
# said so); fails when `datcts fuzz` reports a finding (its reproducer is in
# the output) or does not run.
set -euo pipefail
tree=$1 out=$2 datcts=$3
shift 3
if [[ ! -d "$tree/fuzz" ]]; then
	echo "SKIPPED: no fuzz tree at $tree (fuzz.build: clang or libFuzzer missing)"
	exit 77
fi
rm -rf "$out"
"$datcts" fuzz --fuzz-build "$tree" --out "$out" "$@"
