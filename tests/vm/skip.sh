#!/usr/bin/env bash
# ctest vm.skip: tools/vm/run says SKIPPED (exit 77) with its reason where QEMU cannot run, turns
# that into a failure under DATCTS_VM_REQUIRE=1, and rejects bad usage with 2. Boots no VM.
set -euo pipefail
run=$(cd "$(dirname "$0")/../.." && pwd)/tools/vm/run
export DATCTS_VM_REQUIRE=0 # the default outside CI, which this test checks
fails=0
passes=0
check() { # check NAME WANT_RC WANT_REGEX COMMAND...
	local name=$1 want=$2 re=$3 out rc=0
	shift 3
	out=$("$@" 2>&1) || rc=$?
	if [[ $rc == "$want" && "$out" =~ $re ]]; then
		echo "PASS: $name"
		passes=$((passes + 1))
	else
		echo "FAIL: $name: exit $rc (want $want), output:"
		echo "$out" | sed 's/^/    /'
		fails=$((fails + 1))
	fi
}
check "no QEMU: SKIPPED with the reason, exit 77" 77 'SKIPPED: DATCTS_VM_QEMU=/nonexistent/qemu is not an executable' \
	env DATCTS_VM_QEMU=/nonexistent/qemu "$run" -- true
check "no QEMU under DATCTS_VM_REQUIRE=1: a failure (125)" 125 'required here .*cannot run' \
	env DATCTS_VM_QEMU=/nonexistent/qemu DATCTS_VM_REQUIRE=1 "$run" -- true
check "bad --rdma: usage error (2)" 2 '--rdma must be rxe, siw, both or none' "$run" --rdma foo -- true
check "bad --timeout: usage error (2)" 2 '--timeout must be' "$run" --timeout 0 -- true
check "no COMMAND: usage error (2)" 2 'no COMMAND given' "$run" --rdma none --
echo "$passes passed, $fails failed"
((fails == 0))
