#!/usr/bin/env bash
# The verbs transport of the reference provider, inside the VM (docs/verbs.md):
#   tools/vm/run --rdma both -- tools/vm/verbs-suite.sh BUILD_DIR OUT_DIR [full|ci]
# For each device the VM brought up (rxe0, siw0): the conformance suite on IA ref-verbs-<dev>
# (full: every case; ci: the representative subset below), then datbench over verbs against
# perftest's ib_send_lat / ib_write_bw on the same device, in the same VM. Writes
# OUT_DIR/<dev>/ (the run's results) and OUT_DIR/bench.txt (one line per figure and the ratios).
# Exit status: non-zero when a suite run has a failure or a benchmark could not run.
set -uo pipefail
# shellcheck source=tools/vm/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
[[ "${DATCTS_VM:-}" == 1 ]] || { echo "verbs-suite.sh: run me inside the VM (tools/vm/run)" >&2; exit 2; }
build=$(realpath "${1:?BUILD_DIR}")
out=${2:?OUT_DIR}
scope=${3:-ci}
repo=$(cd "$(dirname "$0")/../.." && pwd)
conf=$build/dat-verbs.conf
mkdir -p "$out"
bench=$out/bench.txt
: >"$bench"
rc=0
# The CI subset (~345 cases per device, ~6-7 min each under TCG on 2 cores; the full suite takes
# ~18 min per device): the areas whose behaviour rides on the transport (cm: connection
# management; lmr, rmr: registration and rkeys; pz) whole, plus the ep/srq pages of the data
# path, connect/disconnect and the SRQ low watermark.  The state matrices of dat_ep_modify /
# dat_ep_query / dat_ep_free, evd/ia/cno and the rest of srq/ are core-only logic, identical on
# every transport, and are left to the full run.
ci_filter=(--area "cm,lmr,rmr,pz"
	--page "dat_ep_post_send,dat_ep_post_recv,dat_ep_post_rdma_read,dat_ep_post_rdma_write,dat_ep_connect,dat_ep_disconnect,dat_srq_post_recv,dat_srq_set_lw")
for dev in $DATCTS_VM_DEVICES; do
	ia=ref-verbs-$dev
	# TCG emulation is slow (ibv_reg_mr-heavy cases need the time); the
	# device's known differences are waived with reasons (tests/vm-suite)
	suite_opts=(--timeout 180)
	waivers=$repo/tests/vm-suite/waivers-$dev.toml
	[[ -f $waivers ]] && suite_opts+=(--expectations "$waivers")
	args=(run --build-dir "$build" --ia "$ia" --dat-conf "$conf" --out "$out/$dev" -q "${suite_opts[@]}")
	start=$(date +%s)
	if [[ $scope == ci ]]; then
		# two selections (areas, pages) OR'ed: run them one after the other
		"$repo/bin/datcts" run --build-dir "$build" --ia "$ia" --dat-conf "$conf" --out "$out/$dev-areas" -q "${suite_opts[@]}" \
			--area "${ci_filter[1]}" || rc=1
		"$repo/bin/datcts" run --build-dir "$build" --ia "$ia" --dat-conf "$conf" --out "$out/$dev-pages" -q "${suite_opts[@]}" \
			--page "${ci_filter[3]}" || rc=1
	else
		"$repo/bin/datcts" "${args[@]}" || rc=1
	fi
	echo "$dev suite ($scope): $(($(date +%s) - start)) s" >>"$bench"
done
# Benchmarks: datbench (fork mode: both ends in this VM) vs perftest on the same device.
export DAT_OVERRIDE=$conf
VM_PAIR_DIR=$(mktemp -d)
export VM_PAIR_DIR
port=18515
for dev in $DATCTS_VM_DEVICES; do
	kind=${dev%0}
	ip_var=DATCTS_VM_${kind^^}_IP
	ip=${!ip_var}
	common="-d $dev -R -F -p $port"
	pl=$(vm_pair "$dev-lat" 120 "$ip" "$port" "ib_send_lat $common -n 1000" "ib_send_lat $common -n 1000 $ip" &&
		awk '$1 == 2 && NF >= 9 { print $5 }' "$VM_PAIR_DIR/$dev-lat.client.log")
	pb=$(vm_pair "$dev-bw" 180 "$ip" "$port" "ib_write_bw $common -n 1000" "ib_write_bw $common -n 1000 $ip" &&
		awk '$1 == 65536 && NF >= 5 { print $4 }' "$VM_PAIR_DIR/$dev-bw.client.log")
	dl=$(timeout 120 "$build/bin/datbench" -d "ref-verbs-$dev" -t lat -o send -s 2 -n 1000 2>&1 |
		sed -n 's/.*one-way (median \([0-9.]*\) us).*/\1/p')
	db=$(timeout 180 "$build/bin/datbench" -d "ref-verbs-$dev" -t bw -o write -s 65536 -n 1000 -w 64 2>&1 |
		sed -n 's/.* \([0-9.]*\) MB\/s.*/\1/p')
	echo "$dev ib_send_lat 2B typical ${pl:-?} us; datbench lat send 2B median ${dl:-?} us" >>"$bench"
	echo "$dev ib_write_bw 64KiB ${pb:-?} MB/s; datbench bw write 64KiB ${db:-?} MB/s" >>"$bench"
	if [[ -n "$pl" && -n "$dl" && -n "$pb" && -n "$db" ]]; then
		awk -v d="$dev" -v pl="$pl" -v dl="$dl" -v pb="$pb" -v db="$db" 'BEGIN {
			printf "%s ratio latency datbench/ib_send_lat %.2f, bandwidth datbench/ib_write_bw %.2f\n", d, dl / pl, db / pb }' >>"$bench"
	else
		rc=1
	fi
done
cat "$bench"
exit "$rc"
