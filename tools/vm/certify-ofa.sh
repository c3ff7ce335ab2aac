#!/usr/bin/env bash
# Certification runs of OFA dapl 2.1.10 (Debian libdapl2) inside the VM, run by
# tools/certify-ofa.sh (which starts the VM) or by tools/vm/verbs-suite.sh (the CI subset):
#   tools/vm/certify-ofa.sh BUILD_DIR OUT_DIR IA... [-- DATCTS_RUN_OPTION...]
# IA is one of ofa-v2-cma-rxe0, ofa-v2-cma-siw0 (libdaplofa, rdma_cm), ofa-v2-scm-rxe0
# (libdaploscm, socket CM) and ofa-v2-ucm-rxe0 (libdaploucm, UD CM). For each: the DAT 2.0
# build of the suite on that IA (`datcts run`, which picks the build from the entry's u2.0),
# then `datcts bundle` and `datcts verify`. Without --expectations among the run options, each
# run takes the device's waivers of the reference provider (tests/vm-suite/waivers-<dev>.toml):
# a case that fails with the reference provider on that device says nothing of another provider
# there, and the report shows each such case as waived, with the device's reason. With
# --expectations among the run options (the CI subset), a waived case that passes is an error
# too: OFA's behaviour changed, so the waiver must go. Writes OUT_DIR/dat.conf, OUT_DIR/<ia>/ (the run), OUT_DIR/<ia>.bundle (its path) and
# OUT_DIR/summary.txt.
# Exit status: 0 when every run finished and its bundle verifies (and, with expectations, no
# waived case passing, and no unwaived failure that fails again when run alone); 1 otherwise.
set -uo pipefail
[[ "${DATCTS_VM:-}" == 1 ]] || { echo "certify-ofa.sh: run me inside the VM (tools/vm/run)" >&2; exit 2; }
build=$(realpath "${1:?BUILD_DIR}")
out=$(realpath -m "${2:?OUT_DIR}")
shift 2
ias=()
while (($#)) && [[ $1 != -- ]]; do
	ias+=("$1")
	shift
done
[[ ${1:-} == -- ]] && shift
run_opts=("$@")
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"

# netdev_of DEVICE: the netdev holding the device's address (rdma_cm picks the device by it)
netdev_of() {
	local kind=${1%0} ip_var ip
	ip_var=DATCTS_VM_${kind^^}_IP
	ip=${!ip_var:-}
	[[ -n $ip ]] || return 1
	ip -o -4 addr show to "$ip/32" | awk '{print $2; exit}'
}
conf=$out/dat.conf
{
	echo "# OFA dapl 2.1.10 (Debian libdapl2) on this VM's soft devices: tools/vm/certify-ofa.sh"
	for dev in $DATCTS_VM_DEVICES; do
		nd=$(netdev_of "$dev") || continue
		echo "ofa-v2-cma-$dev u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 \"$nd 0\" \"\""
		echo "ofa-v2-scm-$dev u2.0 nonthreadsafe default libdaploscm.so.2 dapl.2.0 \"$dev 1\" \"\""
		echo "ofa-v2-ucm-$dev u2.0 nonthreadsafe default libdaploucm.so.2 dapl.2.0 \"$dev 1\" \"\""
	done
} >"$conf"

expectations=0
for o in "${run_opts[@]}"; do [[ $o == --expectations* ]] && expectations=1; done
rc=0
for ia in "${ias[@]}"; do
	grep -q "^$ia " "$conf" || { echo "$ia: not on this VM (devices: $DATCTS_VM_DEVICES)" | tee -a "$summary"; rc=1; continue; }
	start=$SECONDS
	device_waivers=()
	dev_file=$repo/tests/vm-suite/waivers-${ia##*-}.toml
	((expectations)) || [[ ! -f $dev_file ]] || device_waivers=(--expectations "$dev_file")
	# --watch-kernel-log: a case that fails while the kernel faults (a device driver's oops)
	# leaves its clause not demonstrated, the device's, never a charge against OFA
	"$repo/bin/datcts" run --build-dir "$build" --ia "$ia" --dat-conf "$conf" --out "$out/$ia" -q \
		--watch-kernel-log "${device_waivers[@]}" "${run_opts[@]}" >"$out/$ia.log" 2>&1
	r=$?
	bundle=$("$repo/bin/datcts" bundle "$out/$ia" -o "$out" 2>>"$out/$ia.log")
	if [[ -n $bundle ]] && "$repo/bin/datcts" verify "$bundle" >>"$out/$ia.log" 2>&1; then
		echo "$bundle" >"$out/$ia.bundle"
		v="bundle verifies"
	else
		v="BUNDLE DOES NOT VERIFY"
		rc=1
	fi
	states=$(/usr/bin/python3 - "$out/$ia/results.json" "$expectations" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
try:
    v = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "verdict.json")))
    subjects = v.get("subjects") or {"provider": v}
    print("; ".join("%s %s (shall: %s)" % (name, sv["label"], ", ".join(
        "%s %s" % (k, n) for k, n in sv["shall"].items() if n and not isinstance(n, dict))) for name, sv in subjects.items()) + ";",
          end=" ")
except (OSError, ValueError, KeyError) as e:
    print("verdict unreadable (%s);" % e, end=" ")
print(" ".join("%s %d" % (k, v) for k, v in s["states"].items() if v),
      "| waived %d, waived but passing %d, unwaived failures %d, complete %s"
      % (s["waived"], s["waived_but_passing"], s["unwaived_failures"], d["run"]["complete"]))
bad = not d["run"]["complete"]
if sys.argv[2] == "1":
    passing = [r["id"] for r in d["results"] if r.get("waived_but_passing")]
    if passing:
        print("waived but passing (remove the waiver): " + ", ".join(passing))
    bad = bad or bool(passing)
    failing = [r["id"] for r in d["results"]
               if r["state"] in ("FAIL", "UNRESOLVED", "CRASH", "TIMEOUT") and not r["waived"]]
    if failing and not bad:
        # only unwaived failures: the caller runs them again alone (exit 3)
        print("unwaived failures: " + ",".join(failing), end=" ")
        sys.exit(3)
    bad = bad or bool(failing)
sys.exit(1 if bad else 0)
PY
	)
	s=$?
	if ((s == 3)); then
		# Emulation noise (a watched case that could not catch its message, a connection the
		# device dropped): the unwaived failures run once more alone, as the reference
		# provider's do in tools/vm/verbs-suite.sh. The first run stays the IA's results and
		# bundle; the job passes when each passes the second time, and the summary names it.
		again=${states##*unwaived failures: }
		again=${again%% *}
		if "$repo/bin/datcts" run --build-dir "$build" --ia "$ia" --dat-conf "$conf" \
			--out "$out/$ia-retry" -q --watch-kernel-log "${run_opts[@]}" -k "$again" \
			>"$out/$ia-retry.log" 2>&1; then
			states="$states(flaky: failed, then passed alone)"
			s=0
		else
			states="$states(failed again alone)"
		fi
	fi
	((s == 0)) || rc=1
	echo "$ia: exit $r, $((SECONDS - start)) s; $states; $v" | tee -a "$summary"
done
exit "$rc"
