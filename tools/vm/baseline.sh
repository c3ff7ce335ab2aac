#!/usr/bin/env bash
# Measures the VM's figures for docs/vm.md, printed as Markdown:
#   cold prepare (into a scratch cache, with --cold), warm boot times, and perftest's ib_send_lat /
#   ib_write_bw over rdma_cm on rxe and on siw (tools/vm/perftest.sh), each repeated N times.
#   tools/vm/baseline.sh [--cold] [N]      (default N=3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cold=0
[[ "${1:-}" == --cold ]] && { cold=1; shift; }
n=${1:-3}
load() { cut -d' ' -f1-3 /proc/loadavg; }
wall() { # wall COMMAND...: run it, print its wall time in seconds
	local s
	s=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || { echo "baseline.sh: failed: $*" >&2; return 1; }
	awk -v a="$s" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

echo "| measurement | result | host load (1/5/15 min) |"
echo "|---|---|---|"
if ((cold)); then
	scratch=$(mktemp -d)
	l=$(load)
	t=$(DATCTS_VM_CACHE=$scratch wall "$here/prepare.sh")
	steps=$(awk '/^time-/ { sub("time-", "", $1); printf "%s%s %s", sep, $1, $2; sep=", " }' "$scratch"/*/versions)
	echo "| cold prepare (packages present; downloads, extraction, siw build) | ${t} s ($steps) | $l |"
	rm -rf "$scratch"
fi
"$here/prepare.sh" >/dev/null 2>&1
for mode in none rxe siw both; do
	ts=()
	l=$(load)
	for ((i = 0; i < n; i++)); do ts+=("$(wall "$here/run" --rdma "$mode" -- true)"); done
	echo "| warm run, \`--rdma $mode -- true\` (boot, set-up, command, power-off) | ${ts[*]} s | $l |"
done
for mode in rxe siw; do
	for ((i = 0; i < n; i++)); do
		l=$(load)
		"$here/run" --rdma "$mode" --timeout 600 -- "$here/perftest.sh" |
			awk -v l="$l" '{ r = ""; for (i = 4; i <= NF; i++) r = r (i > 4 ? " " : "") $i
				printf "| %s %s %s, in the VM | %s | %s |\n", $1, $2, $3, r, l }'
	done
done
