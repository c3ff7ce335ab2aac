#!/usr/bin/env bash
# OFA's own DAT 2.0 programs on one verbs device, inside the VM (docs/reference-provider.md,
# "DAT 2.0"): run by tools/vm/verbs-suite.sh as
#   tools/vm/ofa.sh BUILD_DIR OUT_DIR BENCH_FILE programs|perf DEVICE
# programs: tools/ofa/programs.py against libdaplref2 (IA ref-verbs-DEVICE); a functional test,
#   so it may run beside other work.
# perf: dapltest -T P for libdaplref2 and OFA's libdaplofa (IA ofa-v2-DEVICE, rdma_cm on the same
#   netdev) side by side, medians of three rounds, ratios libdaplref2/libdaplofa; a measurement,
#   so the caller runs it with nothing beside it.
# instructions: datcts bench-instructions, libdaplref2 (ref-verbs-DEVICE) against libdaplofa
#   (ofa-v2-DEVICE): user-space instructions per call under callgrind, ratios to libdaplofa; its
#   table goes to OUT_DIR/DEVICE-instructions.txt (docs/reference-provider.md, "Instructions per
#   call").
# Appends its lines to BENCH_FILE. Exit status: non-zero when a program run is not as expected or
# a figure is missing.
set -uo pipefail
[[ "${DATCTS_VM:-}" == 1 ]] || { echo "ofa.sh: run me inside the VM (tools/vm/run)" >&2; exit 2; }
build=$(realpath "${1:?BUILD_DIR}")
out=${2:?OUT_DIR}
bench=${3:?BENCH_FILE}
mode=${4:?programs|perf|instructions}
dev=${5:?DEVICE}
repo=$(cd "$(dirname "$0")/../.." && pwd)
programs=$repo/tools/ofa/programs.py
[[ -f $build/dat2-verbs.conf ]] || { echo "ofa $build/dat2-verbs.conf missing (no DAT 2.0 build)" >>"$bench"; exit 1; }
command -v dapltest >/dev/null || { echo "ofa: dapl2-utils not installed" >>"$bench"; exit 1; }
kind=${dev%0}
ip_var=DATCTS_VM_${kind^^}_IP
ip=${!ip_var}
nd=$(ip -o -4 addr show to "$ip/32" | awk '{print $2; exit}')
conf=$out/ofa-dat.conf.$dev
{
	grep -v '^#' "$build/dat2-verbs.conf"
	echo "ofa-v2-$dev u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"$nd 0\" \"\""
} >"$conf"
case $mode in
programs)
	skip=()
	# dtestcm on siw0: rdma-core's siw provider returns no CQ (NULL, errno unset, no failing
	# system call under strace) for some of the connections dtestcm sets up (52 of 1000 with
	# its defaults, 2 of 100 with -c 100 -b 10, even with -b 1); the provider reports each
	# as DAT_CONNECTION_EVENT_NON_PEER_REJECTED, and dtestcm's client then reads the NULL
	# private data of that event: its event check passes any event outside UD mode
	# (OFA dtestcm.c, conn_client). OFA's libdaplofa cannot run dtestcm on siw0 at all (its
	# server's create_qp fails with EINVAL). docs/reference-provider.md, "DAT 2.0".
	[[ $dev == siw0 ]] && skip+=(--skip "dtestcm=siw0 refuses CQs during dtestcm's connection storm; dtestcm then reads a rejected event's NULL private data (docs/reference-provider.md, DAT 2.0)")
	start=$SECONDS
	/usr/bin/python3 "$programs" --dat-conf "$conf" --ia "ref-verbs-$dev" --host "$ip" "${skip[@]}" >"$out/$dev-ofa.txt" 2>&1
	r=$?
	note=""
	if ((r)); then
		# Emulation noise, as for the suite (verbs-suite.sh, run_device): the scenarios not
		# as expected run once more on their own; the first run's output stays, its reasons in
		# BENCH_FILE, and the status names them as flaky when all of them pass the second time.
		failed=$(awk '$1 == "FAIL" {print $2}' "$out/$dev-ofa.txt" | paste -sd, -)
		reasons=$(awk '$1 == "FAIL" {name = $2; getline; sub(/^ +/, ""); printf "%s%s: %s", sep, name, $0; sep = "; "}' "$out/$dev-ofa.txt")
		if [[ -n $failed ]]; then
			note=", not as expected: $reasons"
			if /usr/bin/python3 "$programs" --dat-conf "$conf" --ia "ref-verbs-$dev" \
				--host "$ip" --only "$failed" >"$out/$dev-ofa-retry.txt" 2>&1; then
				r=0
				note=", flaky (failed, then passed alone): $reasons"
			fi
		fi
	fi
	echo "$dev ofa programs on libdaplref2: exit $r, $((SECONDS - start)) s ($(tail -n 1 "$out/$dev-ofa.txt"))$note" >>"$bench"
	exit "$r"
	;;
perf)
	rc=0
	/usr/bin/python3 "$programs" --perf --rounds "${DATCTS_VM_BENCH_ROUNDS:-3}" \
		--dat-conf "$conf" --ia "ref-verbs-$dev,ofa-v2-$dev" --host "$ip" \
		>"$out/$dev-ofa-perf.txt" 2>&1 || rc=1
	sed -n "s/^/$dev dapltest -T P /p" "$out/$dev-ofa-perf.txt" | grep -E 'median|ratio|no figure' >>"$bench"
	exit "$rc"
	;;
instructions)
	"$repo/bin/datcts" bench-instructions --build-dir "$build" \
		--column "libdaplref2=ref-verbs-$dev@$conf" --column "libdaplofa=ofa-v2-$dev@$conf" \
		>"$out/$dev-instructions.txt" 2>&1
	r=$?
	sed -n "s/^/$dev instructions /p" "$out/$dev-instructions.txt" | grep '| dat_' >>"$bench"
	exit "$r"
	;;
*)
	echo "ofa.sh: mode is programs, perf or instructions, not $mode" >&2
	exit 2
	;;
esac
