#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest install.prefix: `cmake --install BUILD --prefix P` into a temporary
# prefix, then the installed datcts from an empty directory, with nothing
# from the checkout or the environment: it finds its cases, catalog,
# templates and the reference provider's dat.conf under P by itself.
#   prefix.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/datcts-prefix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
fail() { echo "FAILED: $*"; exit 1; }

cmake --install "$build" --prefix "$P" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in bin/datcts bin/dat-providers share/datcts/clauses share/datcts/templates/report.html.j2 \
         share/datcts/ref-provider/dat.conf share/man/man1/datcts.1 share/man/man1/dat-providers.1 \
         share/doc/datcts/README.md libexec/datcts/cases libexec/datcts/bin/datcts-probe \
         share/datcts/examples/datcts-slurm.sbatch; do
	[[ -e "$P/$f" ]] || fail "cmake --install put no $f under the prefix"
done
ls "$P"/libexec/datcts/cases/datcts-cases-* >/dev/null || fail "no case binaries in libexec/datcts/cases"
grep -q "^prefix=$P\$" "$P"/lib*/pkgconfig/dat.pc 2>/dev/null ||
	grep -q "^prefix=$P\$" "$P"/lib/*/pkgconfig/dat.pc || fail "dat.pc's prefix is not $P"
grep -q "^ref-sock .* $P/lib[^ ]*/libdaplref\.so\.1 " "$P/share/datcts/ref-provider/dat.conf" ||
	fail "the installed dat.conf does not name $P's libdaplref.so.1: $(grep ref-sock "$P/share/datcts/ref-provider/dat.conf")"
if grep -rqF "$build" "$P/share/datcts" "$P/bin/datcts" "$P"/lib*/python3*/dist-packages/datcts/_installed.py; then
	fail "an installed file names the build tree $build"
fi

mkdir "$tmp/site" && cd "$tmp/site"
run() { env -i PATH=/usr/bin:/bin HOME="$tmp/site" LANG=C.UTF-8 ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} "$@"; }
run "$P/bin/datcts" --help >/dev/null || fail "datcts --help"
run "$P/bin/datcts" list -k 'dat_srq_*' >list.txt 2>/dev/null || fail "datcts list"
echo "installed datcts list -k 'dat_srq_*': $(wc -l <list.txt) cases"
run "$P/bin/datcts" run -k 'dat_srq_create*,dat_ia_open*' --out run -j 2 -q || fail "datcts run (no --ia: the installed reference provider)"
grep -q "\"dat_conf\": \"$P/share/datcts/ref-provider/dat.conf\"" run/results.json ||
	fail "the run did not use the installed reference provider's dat.conf"
grep -q "\"cases_dir\": \"$P/libexec/datcts/cases\"" run/results.json || fail "the run did not use the installed cases"
run "$P/bin/datcts" report run >/dev/null 2>&1 || fail "datcts report"
run "$P/bin/datcts" bundle run -o run.tar.gz >/dev/null 2>&1 || fail "datcts bundle"
run "$P/bin/datcts" verify run.tar.gz || fail "datcts verify"
run env DAT_OVERRIDE="$P/share/datcts/ref-provider/dat.conf" "$P/bin/dat-providers" | grep -q '^ref-sock ' ||
	fail "dat-providers does not list the installed ref-sock"
echo "PASSED: cmake --install --prefix $P; the installed datcts ran, reported, bundled and verified"
