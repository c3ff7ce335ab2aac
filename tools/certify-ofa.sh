#!/usr/bin/env bash
# Certifies OFA dapl 2.1.10 (Debian libdapl2) with the DAT 2.0 build of the suite, on soft-RoCE
# and soft-iWARP inside the project's VM (docs/certification/ofa-dapl-2.1.10.md). One command per
# run, from a fresh clone, as root:
#   tools/certify-ofa.sh [--out DIR] [--vm-timeout S] [IA...] [-- DATCTS_RUN_OPTION...]
# IA: ofa-v2-cma-rxe0 (libdaplofa, rdma_cm), ofa-v2-cma-siw0, ofa-v2-scm-rxe0 (libdaploscm),
# ofa-v2-ucm-rxe0 (libdaploucm); default all four. Run options go to `datcts run` (default
# --timeout 60 --jobs 3; e.g. `-- --page dat_srq_create` for one page).
# Each IA ends in OUT/<ia>/ (results.json, report.html, verdict.json) and a bundle that
# `datcts verify` has accepted; OUT/summary.txt has one line per IA. OUT defaults to
# ./out-certify-ofa.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$PWD/out-certify-ofa
vm_timeout=10800
while (($#)); do
	case "$1" in
	--out) out=$(realpath -m "${2:?}"); shift 2 ;;
	--vm-timeout) vm_timeout=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
ias=()
while (($#)) && [[ $1 != -- ]]; do
	ias+=("$1")
	shift
done
[[ ${1:-} == -- ]] && shift
run_opts=("$@")
((${#ias[@]})) || ias=(ofa-v2-cma-rxe0 ofa-v2-cma-siw0 ofa-v2-scm-rxe0 ofa-v2-ucm-rxe0)
((${#run_opts[@]})) || run_opts=(--timeout 60 --jobs 3)
rdma=none
for ia in "${ias[@]}"; do
	case "$ia" in
	*-rxe0) [[ $rdma == siw ]] && rdma=both || { [[ $rdma == both ]] || rdma=rxe; } ;;
	*-siw0) [[ $rdma == rxe ]] && rdma=both || { [[ $rdma == both ]] || rdma=siw; } ;;
	*) echo "certify-ofa: unknown IA $ia" >&2; exit 2 ;;
	esac
done
cd "$repo"
tools/deps.sh --vm
build=$(tools/build.sh | tail -n 1)
mkdir -p "$out"
rc=0
DATCTS_VM_REQUIRE=1 tools/vm/run --rdma "$rdma" --timeout "$vm_timeout" --rw "$out" -- \
	tools/vm/certify-ofa.sh "$build" "$out" "${ias[@]}" -- "${run_opts[@]}" || rc=$?
echo "certify-ofa: results in $out (summary.txt; <ia>/report.html; bundles: $(cat "$out"/*.bundle 2>/dev/null | tr '\n' ' '))"
exit "$rc"
