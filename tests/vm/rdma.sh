#!/usr/bin/env bash
# ctest vm.rdma: one VM with soft-RoCE and soft-iWARP (tools/vm/run --rdma both): ibv_devices lists
# rxe0 and siw0, and rdma_cm traffic (rping; ib_send_lat -R) passes on each device.
set -euo pipefail
# CI must run the VM: there, "cannot run" is a failure, not a skip.
[[ "${CI:-}" == true ]] && export DATCTS_VM_REQUIRE=${DATCTS_VM_REQUIRE:-1}
root=$(cd "$(dirname "$0")/../.." && pwd)
exec "$root/tools/vm/run" --rdma both --timeout 300 -- "$root/tests/vm/guest-rdma.sh"
