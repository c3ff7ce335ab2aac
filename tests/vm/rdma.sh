#!/usr/bin/env bash
# ctest vm.rdma: one VM with soft-RoCE and soft-iWARP (tools/vm/run --rdma both): ibv_devices lists
# rxe0 and siw0, and rdma_cm traffic (rping; ib_send_lat -R) passes on each device.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exec "$root/tools/vm/run" --rdma both --timeout 300 -- "$root/tests/vm/guest-rdma.sh"
