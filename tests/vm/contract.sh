#!/usr/bin/env bash
# ctest vm.contract: what tools/vm/run promises, in two VMs (--rdma none):
#  1. argv (spaces, newlines, quotes, empty, globs) and the environment survive; COMMAND runs in
#     the host's working directory, which (--rw) is writable and whose files land on the host;
#     writes elsewhere stay in the VM's overlay; stdout and stderr stream apart and complete
#     (1 MiB, byte for byte); COMMAND's exit code comes back (42).
#  2. --timeout: COMMAND killed, exit 124 and a clear message, output up to then kept.
set -euo pipefail
# CI must run the VM: there, "cannot run" is a failure, not a skip.
[[ "${CI:-}" == true ]] && export DATCTS_VM_REQUIRE=${DATCTS_VM_REQUIRE:-1}
here=$(cd "$(dirname "$0")" && pwd)
run=$here/../../tools/vm/run
work=$(mktemp -d "$PWD/contract.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
passes=0
ok() { echo "PASS: $*"; passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

args=("two  words" $'line1\nline2' "\$HOME \"dq\" 'sq' \\back \`cmd\`" "" '*' "-v")
export DATCTS_T_SPACES='a b  c ' DATCTS_T_NL=$'x\ny\n' DATCTS_T_Q="it's \"q\" \$(no) \`no\` \\"
export DATCTS_T_TOKEN="probe-$$-$RANDOM"
rc=0
"$run" --rdma none --rw "$work" --timeout 120 -- "$here/guest-contract.sh" "${args[@]}" >out 2>err || rc=$?
if ((rc == 77)); then
	cat out
	exit 77
fi
[[ $rc == 42 ]] && ok "COMMAND's exit code comes back (42)" || { bad "exit code $rc, want 42"; sed 's/^/    /' err; }
printf '%s\0' "${args[@]}" >argv.want
cmp -s argv.want argv.guest && ok "argv survives (spaces, newline, quotes, empty, glob)" || bad "argv differs"
printf '%s\0' "$DATCTS_T_SPACES" "$DATCTS_T_NL" "$DATCTS_T_Q" "1" >env.want
cmp -s env.want env.guest && ok "the environment survives (+ DATCTS_VM=1)" || bad "environment differs"
[[ "$(cat cwd.guest 2>/dev/null)" == "$(pwd -P)" ]] && ok "COMMAND runs in the host's working directory" ||
	bad "cwd in the VM: $(cat cwd.guest 2>/dev/null), want $(pwd -P)"
[[ -s big.guest ]] && ok "files written in the VM under --rw land on the host" || bad "big.guest missing"
{ echo to-stdout; cat big.guest; } >out.want
cmp -s out.want out && ok "stdout streams back complete ($(stat -c %s out) bytes)" || bad "stdout differs ($(stat -c %s out) bytes, want $(stat -c %s out.want))"
grep -qx to-stderr err && ! grep -q to-stderr out && ok "stderr streams back, apart from stdout" || bad "stderr: $(head -c 300 err)"
[[ ! -e "/var/tmp/$DATCTS_T_TOKEN" && "$(cat overlay.guest 2>/dev/null)" == written ]] &&
	ok "writes outside the writable shares stay in the VM" || bad "overlay probe: $(cat overlay.guest 2>/dev/null)"
rm -f "/var/tmp/$DATCTS_T_TOKEN"

rc=0
"$run" --rdma none --timeout 2 -- sh -c 'echo started; exec sleep 60' >out 2>err || rc=$?
[[ $rc == 124 ]] && ok "--timeout 2: exit 124" || bad "--timeout 2: exit $rc, want 124"
grep -q 'timed out after 2s' err && ok "--timeout: a clear message" || bad "--timeout message: $(cat err)"
grep -qx started out && ok "--timeout: output before the deadline kept" || bad "--timeout: stdout $(cat out)"

echo "$passes passed, $fails failed"
((fails == 0))
