#!/usr/bin/env bash
# The verbs transport of the reference provider, inside the VM (docs/verbs.md):
#   tools/vm/run --rdma both -- tools/vm/verbs-suite.sh BUILD_DIR OUT_DIR [full|ci|bench|dat2]
# For each device the VM brought up (rxe0, siw0), the two devices side by side: the conformance
# suite on IA ref-verbs-<dev> (full: every case; ci: a turning shard of the representative subset
# below; bench: none;
# dat2: only the DAT 2.0 build's subset below, then exit), then the DAT 2.0 build's subset, then
# OFA's programs (and on rxe0 the OFA certification subset). Then, with nothing beside them, the
# measurements: datbench over verbs against perftest's ib_send_lat / ib_write_bw on the same
# device, and dapltest -T P for libdaplref2 and OFA's libdaplofa. Writes OUT_DIR/<dev>/ (the
# run's results) and OUT_DIR/bench.txt (one line per figure and the ratios).
# Exit status: non-zero when a suite run has a failure or a benchmark could not run.
set -uo pipefail
# shellcheck source=tools/vm/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
[[ "${DATCTS_VM:-}" == 1 ]] || { echo "verbs-suite.sh: run me inside the VM (tools/vm/run)" >&2; exit 2; }
build=$(realpath "${1:?BUILD_DIR}")
out=${2:?OUT_DIR}
scope=${3:-full}
repo=$(cd "$(dirname "$0")/../.." && pwd)
conf=$build/dat-verbs.conf
mkdir -p "$out"
bench=$out/bench.txt
: >"$bench"
rc=0
# The devices' suites run side by side (two runs of --jobs ${DATCTS_VM_JOBS:-3} each): most of a
# case's time under TCG is waiting (connection set-up, timeouts), so two runs fill the VM's
# CPUs better than one; the full suite takes ~11 min per device alone, ~15 min for both.
# The ci scope (what ctest vm.verbs_suite runs, inside CI's budget) is a representative subset
# (444 cases per device), the DAT 2.0 build's data-path pages on siw0 only (rxe0 runs the OFA
# certification subset in that time), and one round of each measurement instead of three. The
# subset: the areas whose behaviour
# rides on the transport (cm, lmr, rmr, pz) whole, plus the ep/srq pages of the data path,
# connect/disconnect and the SRQ low watermark; the state matrices of dat_ep_modify /
# dat_ep_query / dat_ep_free, evd/ia/cno and the rest of srq/ are core-only logic.
# (the areas as their pages: one run, so one report and no idle tail between two runs)
ci_area_pages="dat_cr_*,dat_psp_*,dat_rsp_*,dat_lmr_*,dat_rmr_*,dat_pz_*"
ci_data_pages="dat_ep_post_send,dat_ep_post_recv,dat_ep_post_rdma_read,dat_ep_post_rdma_write"
ci_data_pages+=",dat_ep_connect,dat_ep_disconnect,dat_srq_post_recv,dat_srq_set_lw"
ci_pages="$ci_area_pages,$ci_data_pages"
# The ci scope runs a shard of that subset on each device (datcts run --shard I/N, a case's shard
# a hash of its id), the devices on different shards, turning with the commit count
# (DATCTS_VM_ROTATE, from tests/vm-suite/run.sh): every commit runs 2/N of the subset, and N
# successive commits run every case on every device. The whole subset on both devices took
# 1475 s per device under TCG (a fresh-clone CI run, 2026-11-28), more than half of CI's budget.
ci_shards=${DATCTS_VM_SHARDS:-4}
rotation=${DATCTS_VM_ROTATE:-0}
# device_index DEV: DEV's place among the VM's devices (0, 1)
device_index() {
	local i=0 d
	for d in $DATCTS_VM_DEVICES; do
		[[ $d == "$1" ]] && break
		i=$((i + 1))
	done
	echo "$i"
}
# ci_shard DEV: DEV's shard this commit, as I/N
ci_shard() {
	echo "$(((rotation + $(device_index "$1") * ci_shards / 2) % ci_shards))/$ci_shards"
}
run_device() {
	local dev=$1 ia=ref-verbs-$1 start=$SECONDS r=0
	# TCG emulation is slow (ibv_reg_mr-heavy cases need the time); the
	# device's known differences are waived with reasons (tests/vm-suite)
	local opts=(--build-dir "$build" --ia "$ia" --dat-conf "$conf" -q --timeout 180
		--jobs "${DATCTS_VM_JOBS:-3}" --watch-kernel-log)
	local waivers=$repo/tests/vm-suite/waivers-$dev.toml
	[[ -f $waivers ]] && opts+=(--expectations "$waivers")
	local what=$scope
	if [[ $scope == ci ]]; then
		opts+=(--page "$ci_pages" --shard "$(ci_shard "$dev")")
		what="ci, shard $(ci_shard "$dev")"
	fi
	"$repo/bin/datcts" run "${opts[@]}" --out "$out/$dev" || r=1
	local note=""
	if ((r)); then
		# Emulation noise: a case that failed unwaived runs once more on its own.
		# The first run's results stay the device's results (its report shows the
		# failure); the job passes when every such case passes the second time,
		# and the status names them as flaky.
		local again
		again=$(unwaived_failures "$out/$dev/results.json")
		if [[ -n $again ]] && "$repo/bin/datcts" run "${opts[@]}" --out "$out/$dev-retry" -k "$again"; then
			r=0
			note=", flaky (failed, then passed alone): $again"
		fi
	fi
	echo "$dev suite ($what): $((SECONDS - start)) s, exit $r$note" >"$out/$dev.status"
	return "$r"
}
# unwaived_failures RESULTS_JSON...: the ids of their unwaived FAIL/UNRESOLVED/CRASH/TIMEOUT
# results, comma-separated (none from a run that did not finish).
unwaived_failures() {
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
ids = []
for path in sys.argv[1:]:
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        continue
    if d["run"].get("complete"):
        ids += [r["id"] for r in d["results"]
                if r["state"] in ("FAIL", "UNRESOLVED", "CRASH", "TIMEOUT") and not r["waived"]]
print(",".join(ids))
PY
}
# The DAT 2.0 build of the cases (BUILD/cases2 through Debian's libdat2) on libdaplref2, the
# representative subset on each device, after the 1.2 suites (scope ci, full or dat2): judged
# like them, with the device's waivers plus the libdat2 findings (tests/dat2), so the two builds
# give the same verdict there (issue 17: zero false FAILs in the 2.0 build on verbs too).
run_device_dat2() {
	local dev=$1 start=$SECONDS r=0 w=$out/$1-dat2-waivers.toml
	local conf2=$build/dat2-verbs.conf pages=$ci_pages what="the ci subset" shard=()
	if [[ $scope == ci ]]; then
		[[ $dev == siw0 ]] || return 0
		# an eighth, turning with the commit count (a quarter took 245 s in CI, 2026-11-28)
		local part="$(((rotation + 1) % 8))/8"
		shard=(--shard "$part")
		pages=$ci_data_pages what="the data-path pages of the ci subset, shard $part"
	fi
	[[ -f $conf2 ]] || { echo "$dev suite (DAT 2.0): no $conf2 (no DAT 2.0 build)" >"$out/$dev-dat2.status"; return 1; }
	cat "$repo/tests/dat2/libdat2-findings.toml" >"$w"
	[[ -f $repo/tests/vm-suite/waivers-$dev.toml ]] && cat "$repo/tests/vm-suite/waivers-$dev.toml" >>"$w"
	local opts=(--build-dir "$build" --ia "ref-verbs-$dev" --dat-conf "$conf2" -q --timeout 180
		--jobs "${DATCTS_VM_JOBS:-3}" --watch-kernel-log --expectations "$w" --page "$pages" "${shard[@]}")
	"$repo/bin/datcts" run "${opts[@]}" --out "$out/$dev-dat2" || r=1
	local note=""
	if ((r)); then
		local again
		again=$(unwaived_failures "$out/$dev-dat2/results.json")
		if [[ -n $again ]] && "$repo/bin/datcts" run "${opts[@]}" --out "$out/$dev-dat2-retry" -k "$again"; then
			r=0
			note=", flaky (failed, then passed alone): $again"
		fi
	fi
	echo "$dev suite (DAT 2.0, $what): $((SECONDS - start)) s, exit $r$note" >"$out/$dev-dat2.status"
	return "$r"
}
# on_each_device FUNCTION: FUNCTION DEV for every device, side by side; non-zero when one failed
on_each_device() {
	local pids=() pid r=0
	for dev in $DATCTS_VM_DEVICES; do
		"$1" "$dev" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || r=1
	done
	return "$r"
}
if [[ $scope == dat2 ]]; then
	on_each_device run_device_dat2 || rc=1
	for dev in $DATCTS_VM_DEVICES; do
		cat "$out/$dev-dat2.status" | tee -a "$bench"
	done
	exit "$rc"
fi
# device_chain DEV: the device's functional work, one step after the other, while the other
# device's chain runs beside it: its suite and the DAT 2.0 subset (not in scope bench), OFA's
# programs against libdaplref2, and on rxe0 the OFA certification subset (the DAT 2.0 build of
# the suite against OFA's libdaplofa: the SRQ pages and the receive-side queries, OFA's known
# failures waived with reasons, docs/certification/ofa-dapl-2.1.10.md). rxe0's suite ends about
# three minutes before siw0's, so the OFA steps there cost the run no time; the measurements
# (below) wait for both chains, so nothing runs beside them. DATCTS_VM_OFA=0 leaves OFA out.
device_chain() {
	local dev=$1 r=0
	if [[ $scope != bench ]]; then
		run_device "$dev" || r=1
		run_device_dat2 "$dev" || r=1
	fi
	if [[ "${DATCTS_VM_OFA:-1}" == 1 ]]; then
		# one device's programs at a time: they use fixed ports (dtest's address exchange on TCP
		# 15828); side by side, rxe0's dtest client found no server there. In the ci scope one
		# device's per commit, the devices in turn (255-314 s each in CI, 2026-11-28).
		local ndev
		ndev=$(wc -w <<<"$DATCTS_VM_DEVICES")
		if [[ $scope != ci ]] || (($(device_index "$dev") == rotation % ndev)); then
			flock "$out/.ofa-programs.lock" \
				"$repo/tools/vm/ofa.sh" "$build" "$out" "$out/$dev-ofa.status" programs "$dev" || r=1
		else
			echo "$dev ofa programs: not this commit (ci scope: one device's per commit, in turn)" >"$out/$dev-ofa.status"
		fi
		if [[ $dev == rxe0 ]]; then
			# in the ci scope a quarter of it, turning with the commit count (half took 312 s)
			local part=()
			[[ $scope == ci ]] && part=(--shard "$((rotation % 4))/4")
			"$repo/tools/vm/certify-ofa.sh" "$build" "$out/certify-ofa" ofa-v2-cma-rxe0 -- \
				--timeout 60 --jobs 3 --page 'dat_srq_*,dat_ep_recv_query,dat_ep_set_watermark' \
				"${part[@]}" --expectations "$repo/tests/vm-suite/ofa-waivers-cma-rxe0.toml" || r=1
			sed "s|^|ofa certification subset${part[1]:+, shard ${part[1]}}: |" "$out/certify-ofa/summary.txt" >"$out/certify-ofa.status"
		fi
	fi
	return "$r"
}
on_each_device device_chain || rc=1
# The OFA findings' reproducers (docs/certification/ofa-dapl-2.1.10/, tools/ofa/findings.py):
# each must still show its defect on every OFA IA it names, and be absent on libdaplref2 over
# the same device (the control). A few seconds each; after both chains, before the measurements.
# Against OFA's IAs three at a time (a reproducer that does not show is tried again alone); the
# controls one at a time (a control gets no second try). In the ci scope each finding runs on one
# of its IAs and its control on one device, rotating with the commit count, so that successive
# commits walk every pair (findings.py --rotate; the full scope runs them all): 260 pairs and 170
# controls had made this step the longest of the ci scope's tail.
if [[ "${DATCTS_VM_OFA:-1}" == 1 && $scope != bench ]]; then
	rotate=()
	# DATCTS_VM_ROTATE: the commit count, from tests/vm-suite/run.sh on the host
	# and half of the findings (297 s for all of them in CI, 2026-11-28), the halves in turn
	[[ $scope == ci ]] && rotate=(--rotate "$rotation" --shard "$((rotation % 2))/2")
	findings_ias=()
	for dev in $DATCTS_VM_DEVICES; do
		findings_ias+=(--ia "ofa-v2-cma-$dev")
		[[ $dev == rxe0 ]] && findings_ias+=(--ia ofa-v2-scm-rxe0 --ia ofa-v2-ucm-rxe0)
	done
	start=$SECONDS
	fr=0
	if [[ -f $out/certify-ofa/dat.conf ]]; then
		/usr/bin/python3 "$repo/tools/ofa/findings.py" --jobs 3 --build "$build" --dat-conf "$out/certify-ofa/dat.conf" \
			"${findings_ias[@]}" "${rotate[@]}" --expect shows >"$out/ofa-findings.txt" 2>&1 || fr=1
	else
		echo "no $out/certify-ofa/dat.conf (the OFA certification subset did not run)" >"$out/ofa-findings.txt"
		fr=1
	fi
	controls=()
	for dev in $DATCTS_VM_DEVICES; do controls+=(--ia "ref-verbs-$dev"); done
	/usr/bin/python3 "$repo/tools/ofa/findings.py" --build "$build" --dat-conf "$build/dat2-verbs.conf" \
		"${controls[@]}" "${rotate[@]}" --expect absent --allow-cannot >>"$out/ofa-findings.txt" 2>&1 || fr=1
	echo "ofa findings' reproducers: exit $fr, $((SECONDS - start)) s ($(grep -c '^ok' "$out/ofa-findings.txt") as expected, $(grep -c '^BAD' "$out/ofa-findings.txt") not${rotate[1]:+; rotation ${rotate[1]}, shard ${rotate[3]}})" >>"$bench"
	((fr)) && { rc=1; cat "$out/ofa-findings.txt"; }
fi
for dev in $DATCTS_VM_DEVICES; do
	for f in "$dev.status" "$dev-dat2.status" "$dev-ofa.status"; do
		[[ -f $out/$f ]] && cat "$out/$f" >>"$bench"
	done
done
[[ -f $out/certify-ofa.status ]] && cat "$out/certify-ofa.status" >>"$bench"
# Benchmarks: datbench (fork mode: both ends in this VM) vs perftest on the same device.
# median V...: the median of the non-empty values (empty when there are none).
median() {
	printf '%s\n' "$@" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
export DAT_OVERRIDE=$conf
# the guest's clock source: where it is not the TSC (an emulated HPET), every clock read of a
# poll loop costs microseconds
echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?')" >>"$bench"
bench_start=$SECONDS
bench_rounds=3
[[ $scope == ci ]] && bench_rounds=1
export DATCTS_VM_BENCH_ROUNDS=$bench_rounds	# tools/vm/ofa.sh perf
VM_PAIR_DIR=$(mktemp -d)
export VM_PAIR_DIR
port=18515
# One figure of a measurement; a run that gives none is tried once more (said in bench.txt), for
# perftest and datbench alike: under software emulation a run now and then fails on its own
# (perftest's ib_send_lat on siw0 with a flushed work completion, CI 2026-11-28), as
# tools/ofa/programs.py --perf does for dapltest.
first_figure() {	# LABEL COMMAND...: its output, the command run once more when it gives none
	local label=$1 v attempt
	shift
	for attempt in 1 2; do
		v=$("$@")
		[[ -n $v ]] && break
		((attempt == 1)) && echo "$label: no figure; trying again" >>"$bench"
	done
	echo "$v"
}
perftest_figure() {	# NAME LIMIT COMMAND AWK-PROGRAM (the client adds the server's address)
	first_figure "$1" perftest_run "$@"
}
perftest_run() {
	vm_pair "$1" "$2" "$ip" "$port" "$3" "$3 $ip" && awk "$4" "$VM_PAIR_DIR/$1.client.log"
}
datbench_figure() {	# LIMIT SED-PROGRAM DATBENCH-ARGS...
	first_figure "$dev datbench ${*:3}" datbench_run "$@"
}
datbench_run() {
	local limit=$1 prog=$2
	shift 2
	timeout "$limit" "$build/bin/datbench" -d "ref-verbs-$dev" "$@" 2>&1 | sed -n "$prog"
}
for dev in $DATCTS_VM_DEVICES; do
	kind=${dev%0}
	ip_var=DATCTS_VM_${kind^^}_IP
	ip=${!ip_var}
	common="-d $dev -R -F -p $port"
	# latency: busy polling on both sides (perftest's default; datbench -P
	# polls with dat_evd_dequeue), then event-driven (perftest -e; datbench
	# waits in dat_evd_wait).  Under TCG single runs vary by tens of percent:
	# every figure is the median of three runs, taken in turns (one in the ci scope).
	pl=() pe=() pb=() dl=() de=() db=()
	for ((round = 1; round <= bench_rounds; round++)); do
		pl+=("$(perftest_figure "$dev-lat" 120 "ib_send_lat $common -n 2000" '$1 == 2 && NF >= 9 { print $5 }')")
		dl+=("$(datbench_figure 120 's/.*one-way (median \([0-9.]*\) us).*/\1/p' -t lat -o send -s 2 -n 2000 -P)")
		pe+=("$(perftest_figure "$dev-late" 120 "ib_send_lat $common -e -n 1000" '$1 == 2 && NF >= 9 { print $5 }')")
		de+=("$(datbench_figure 120 's/.*one-way (median \([0-9.]*\) us).*/\1/p' -t lat -o send -s 2 -n 1000)")
		pb+=("$(perftest_figure "$dev-bw" 180 "ib_write_bw $common -n 1000" '$1 == 65536 && NF >= 5 { print $4 }')")
		db+=("$(datbench_figure 180 's/.* \([0-9.]*\) MB\/s.*/\1/p' -t bw -o write -s 65536 -n 1000 -w 64)")
	done
	echo "$dev runs: ib_send_lat ${pl[*]}; datbench -P ${dl[*]}; ib_send_lat -e ${pe[*]}; datbench ${de[*]}; ib_write_bw ${pb[*]}; datbench bw ${db[*]}" >>"$bench"
	pl=$(median "${pl[@]}") dl=$(median "${dl[@]}") pe=$(median "${pe[@]}")
	de=$(median "${de[@]}") pb=$(median "${pb[@]}") db=$(median "${db[@]}")
	echo "$dev ib_send_lat 2B typical ${pl:-?} us; datbench -P lat send 2B median ${dl:-?} us (medians of $bench_rounds runs)" >>"$bench"
	echo "$dev ib_send_lat -e 2B typical ${pe:-?} us; datbench lat send 2B (dat_evd_wait) median ${de:-?} us" >>"$bench"
	echo "$dev ib_write_bw 64KiB ${pb:-?} MB/s; datbench bw write 64KiB ${db:-?} MB/s" >>"$bench"
	if [[ -n "$pl" && -n "$dl" && -n "$pe" && -n "$de" && -n "$pb" && -n "$db" ]]; then
		awk -v d="$dev" -v pl="$pl" -v dl="$dl" -v pe="$pe" -v de="$de" -v pb="$pb" -v db="$db" 'BEGIN {
			printf "%s ratio latency (polling) datbench/ib_send_lat %.2f, latency (events) %.2f, bandwidth datbench/ib_write_bw %.2f\n",
				d, dl / pl, de / pe, db / pb }' >>"$bench"
	else
		rc=1
	fi
done
# dapltest -T P, libdaplref2 vs OFA's libdaplofa on each device (docs/reference-provider.md,
# "DAT 2.0"), after the other measurements; DATCTS_VM_OFA=0 leaves it out
if [[ "${DATCTS_VM_OFA:-1}" == 1 ]]; then
	for dev in $DATCTS_VM_DEVICES; do
		"$repo/tools/vm/ofa.sh" "$build" "$out" "$bench" perf "$dev" || rc=1
	done
fi
echo "measurements: $((SECONDS - bench_start)) s; the whole job in the VM: $SECONDS s" >>"$bench"
cat "$bench"
exit "$rc"
