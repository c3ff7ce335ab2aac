#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest install.deb: the Debian packages, built, linted, installed and used
# as a site would (docs/install.md).
#   deb.sh SOURCE_DIR SANITIZE JOBS
# 1. copies the checkout's files (tracked and untracked, not ignored) to a
#    temporary directory: dpkg-buildpackage writes ../*.deb and debian/ build
#    directories, which must not land in the checkout;
# 2. dpkg-buildpackage -us -uc -b there, with nocheck: its dh_auto_test would run tests the
#    plain build's ctest runs anyway, and step 4 runs the whole suite on the installed (hardened)
#    provider (DATCTS_DEB_CHECK=1 runs them; CI's 45 minutes do not);
# 3. lintian on the .changes: an error fails the test, warnings are printed;
# 4. as root: apt-get install of the packages, then from an empty directory
#    `datcts --help`, `man datcts`, `dat-providers`, `datcts run --ia
#    ref-sock` on the installed provider, `datcts report`, `bundle`, `verify`;
#    the packages are purged again unless they were installed before
#    (DATCTS_KEEP_INSTALLED=1 keeps them), and nothing of them may be left.
# Exits 77 (SKIPPED) with the reason when the machine cannot do a step:
# a sanitizer build, missing packaging tools or build dependencies, not root.
set -euo pipefail
src=$(cd "$1" && pwd)
sanitize=${2:-OFF}
jobs=${3:-2}

skip() { echo "SKIPPED: $*"; exit 77; }
step() { printf '\n== %s (%ds)\n' "$*" "$SECONDS"; }

case "$sanitize" in ON|1|TRUE|true|YES|yes)
	skip "sanitizer build: the packages are built and tested by the normal build's pass" ;;
esac
missing=()
for tool in dpkg-buildpackage dh dpkg-checkbuilddeps lintian; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) || skip "no ${missing[*]} (tools/deps.sh installs debhelper, dpkg-dev, lintian)"
if ! deps=$(cd "$src" && dpkg-checkbuilddeps 2>&1); then
	skip "build dependencies missing: ${deps#*: }"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/datcts-deb.XXXXXX")
installed=()
cleanup() {
	if ((${#installed[@]})) && [[ "${DATCTS_KEEP_INSTALLED:-0}" != 1 ]]; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${installed[@]}" >/dev/null 2>&1 ||
			echo "deb.sh: could not remove ${installed[*]}" >&2
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

step "copying the sources to $tmp/datcts"
mkdir "$tmp/datcts"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# tracked and untracked-but-not-ignored files as they are in the work
	# tree (what a build of this checkout sees); deleted ones left out
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [[ -e "$f" || -L "$f" ]] && printf '%s\0' "$f"; done |
		tar -cf - --null --no-recursion -T -) | tar -xf - -C "$tmp/datcts"
else
	(cd "$src" && tar --exclude='./build*' --exclude='./out*' --exclude=.git -cf - .) |
		tar -xf - -C "$tmp/datcts"
fi
rm -rf "$tmp/datcts/obj-"* "$tmp/datcts/debian/.debhelper"

step "dpkg-buildpackage -us -uc -b"
check=nocheck
[[ "${DATCTS_DEB_CHECK:-0}" == 1 ]] && check=""
if ! (cd "$tmp/datcts" && DEB_BUILD_OPTIONS="parallel=$jobs $check ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1); then
	tail -n 60 "$tmp/build.log"
	echo "FAILED: dpkg-buildpackage (last lines above)"
	exit 1
fi
grep -E '^(dpkg-deb: building|[0-9]+% tests passed)' "$tmp/build.log" || true
changes=$(ls "$tmp"/datcts_*.changes)
debs=()
for p in datcts datcts-ref-provider libdat1 libdat-dev; do
	f=$(ls "$tmp/${p}_"*.deb 2>/dev/null) || { echo "FAILED: no ${p}_*.deb"; exit 1; }
	debs+=("$f")
	echo "$(basename "$f"): Depends: $(dpkg-deb -f "$f" Depends)"
	dpkg-deb -c "$f" | awk '{print $6}' | grep -v '/$' | sed 's|^\./||' |
		awk -F/ '{n = NF > 4 ? 4 : NF; s = $1; for (i = 2; i <= n; i++) s = s "/" $i; print "  " s}' | sort -u
done

step "lintian"
# errors fail; warnings and the rest are printed (-I: informational too)
set +e
lintian -I --fail-on error "$changes" 2>&1 | grep -v 'running with root privileges' | tee "$tmp/lintian.log"
lint=${PIPESTATUS[0]}
set -e
echo "lintian: exit $lint, $(grep -c '^E:' "$tmp/lintian.log" || true) error(s), $(grep -c '^W:' "$tmp/lintian.log" || true) warning(s)"
if ((lint != 0)); then
	echo "FAILED: lintian found errors"
	exit 1
fi

if [[ $(id -u) != 0 ]]; then
	skip "built and linted; installing the packages needs root"
fi
command -v apt-get >/dev/null || skip "built and linted; no apt-get to install them"

step "apt-get install ./datcts_*.deb ./datcts-ref-provider_*.deb ./libdat1_*.deb"
for p in datcts datcts-ref-provider libdat1; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || installed+=("$p")
done
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${debs[0]}" "${debs[1]}" "${debs[2]}" >"$tmp/apt.log" 2>&1; then
	cat "$tmp/apt.log"
	echo "FAILED: apt-get install"
	exit 1
fi
grep -E '^(Setting up|Unpacking) ' "$tmp/apt.log" || true

step "the installed suite, from an empty directory"
mkdir "$tmp/site"
cd "$tmp/site"
# what a site's shell has: no checkout, no build tree, no datcts variables
run() { env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp/site" LANG=C.UTF-8 "$@"; }
fail() { echo "FAILED: $*"; exit 1; }
[[ "$(command -v datcts)" == /usr/bin/datcts ]] || fail "datcts is $(command -v datcts), not /usr/bin/datcts"
run datcts --help >help.txt || fail "datcts --help"
grep -q 'bench-overhead' help.txt || fail "datcts --help lists no subcommands"
run datcts --version
run man -P cat datcts >man.txt 2>man.err || { cat man.err; fail "man datcts"; }
grep -q 'PROVIDER UNDER TEST' man.txt || fail "man datcts: not the datcts page"
run man -P cat dat-providers >/dev/null || fail "man dat-providers"
run env DAT_OVERRIDE=/usr/share/datcts/ref-provider/dat.conf dat-providers | tee providers.txt
grep -q '^ref-sock ' providers.txt || fail "dat-providers: no ref-sock in the installed dat.conf"
if dpkg -L datcts-ref-provider | grep -q '/libdaplref2\.so\.'; then
	# the DAT 2.0 provider: its entries name the installed library
	grep -Eq '^ref-sock u2\.0 .* /usr/lib/[^ ]*/libdaplref2\.so\.[0-9]+ ' /usr/share/datcts/ref-provider/dat2.conf ||
		fail "dat2.conf does not name the installed libdaplref2"
fi
run datcts list >list.txt 2>/dev/null || fail "datcts list"
echo "datcts list: $(wc -l <list.txt) cases"

set +e
run datcts run --ia ref-sock --out run -j "$jobs" -q
rc=$?
set -e
((rc == 0)) || fail "datcts run --ia ref-sock: exit $rc"
/usr/bin/python3 - "$tmp/site/run/results.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["run"]
assert run["cases_dir"] == "/usr/libexec/datcts/cases", run["cases_dir"]
p = run["provider"]
assert p["ia"] == "ref-sock", p
assert p["dat_conf"] == "/usr/share/datcts/ref-provider/dat.conf", p["dat_conf"]
assert p["library_resolved"].startswith("/usr/lib/") and "libdaplref.so" in p["library_resolved"], p
assert p["attributes"], p.get("attributes_error")
states = {}
for r in doc["results"]:
    states[r["state"]] = states.get(r["state"], 0) + 1
assert states.get("PASS", 0) > 0 and not set(states) - {"PASS", "UNSUPPORTED"}, states
print(f"results.json: installed suite on {p['library_resolved']}: {states}")
EOF
run datcts report run || fail "datcts report"
[[ -s run/report.html && -s run/verdict.json ]] || fail "datcts report wrote no report.html/verdict.json"
run datcts bundle run -o run.tar.gz || fail "datcts bundle"
run datcts verify run.tar.gz || fail "datcts verify"
run datcts coverage >/dev/null || fail "datcts coverage"
# (datcts mutate is not checked here: it applies the hand-written mutants to a copy of the
# provider's sources, which a checkout has and the packages do not ship; docs/mutants.md)

if ((${#installed[@]})) && [[ "${DATCTS_KEEP_INSTALLED:-0}" != 1 ]]; then
	step "apt-get purge ${installed[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${installed[@]}" >/dev/null 2>&1 ||
		fail "apt-get purge ${installed[*]}"
	installed=()
	# a run as root must not have left files dpkg does not know of (bytecode:
	# dh_python3's postinst compiles it and its prerm removes it)
	left=$(find /usr/lib/python3/dist-packages/datcts /usr/lib/python3/dist-packages/datcts_reports \
		/usr/libexec/datcts /usr/share/datcts 2>/dev/null | head -n 5 || true)
	[[ -z "$left" ]] || fail "left behind after purge: $left"
fi
printf '\nPASSED: packages built, lintian clean of errors, installed suite certified the installed provider (%ds)\n' "$SECONDS"
