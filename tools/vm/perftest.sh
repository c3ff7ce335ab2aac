#!/usr/bin/env bash
# The verbs baseline, inside the VM: perftest's ib_send_lat (2 bytes) and ib_write_bw (64 KiB)
# over rdma_cm (-R) on every device the VM brought up. Run it through tools/vm/run:
#   tools/vm/run --rdma both -- tools/vm/perftest.sh [ITERATIONS]
# Prints one line per measurement:
#   <device> ib_send_lat 2B typical <us> avg <us> p99 <us>
#   <device> ib_write_bw 65536B avg <MB/s> peak <MB/s>
# TCG emulates every instruction: compare only figures taken in the same kind of VM.
set -euo pipefail
# shellcheck source=tools/vm/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
[[ "${DATCTS_VM:-}" == 1 ]] || { echo "perftest.sh: run me inside the VM: tools/vm/run --rdma both -- $0" >&2; exit 2; }
n=${1:-1000}
VM_PAIR_DIR=$(mktemp -d)
export VM_PAIR_DIR
port=18515
rc=0
for dev in $DATCTS_VM_DEVICES; do
	kind=${dev%0}
	ip_var=DATCTS_VM_${kind^^}_IP
	ip=${!ip_var}
	common="-d $dev -R -F -p $port"
	if vm_pair "$dev-lat" 120 "$ip" "$port" "ib_send_lat $common -n $n" "ib_send_lat $common -n $n $ip"; then
		awk -v d="$dev" '$1 == 2 && NF >= 9 { printf "%s ib_send_lat 2B typical %s us avg %s us p99 %s us\n", d, $5, $6, $8 }' \
			"$VM_PAIR_DIR/$dev-lat.client.log"
	else rc=1; fi
	if vm_pair "$dev-bw" 180 "$ip" "$port" "ib_write_bw $common -n $n" "ib_write_bw $common -n $n $ip"; then
		awk -v d="$dev" '$1 == 65536 && NF >= 5 { printf "%s ib_write_bw 65536B avg %s MB/s peak %s MB/s\n", d, $4, $3 }' \
			"$VM_PAIR_DIR/$dev-bw.client.log"
	else rc=1; fi
done
exit "$rc"
