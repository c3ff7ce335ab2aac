#!/usr/bin/env bash
# Inside the VM of vm.contract: records what it got, writes to both streams, exits 42.
set -euo pipefail
printf '%s\0' "$@" >argv.guest
printf '%s\0' "$DATCTS_T_SPACES" "$DATCTS_T_NL" "$DATCTS_T_Q" "$DATCTS_VM" >env.guest
pwd -P >cwd.guest
echo to-stdout
echo to-stderr >&2
head -c 1048576 /dev/urandom | base64 >big.guest
cat big.guest
echo written >"/var/tmp/$DATCTS_T_TOKEN" && cat "/var/tmp/$DATCTS_T_TOKEN" >overlay.guest
exit 42
