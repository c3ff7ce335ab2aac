#!/usr/bin/env bash
# Configures and builds the fuzz tree (docs/fuzzing.md): clang + libFuzzer,
# ASan + UBSan, the reference providers with coverage, the fuzz targets.
#   BUILD_DIR   build directory (default: build-fuzz)
# Exits 77 when clang or libFuzzer is missing (tools/deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-fuzz}
cc=${DATCTS_FUZZ_CC:-$(command -v clang-14 || command -v clang || true)}
if [[ -z "$cc" ]]; then
	echo "build-fuzz.sh: no clang (apt-get install clang-14 libclang-rt-14-dev)" >&2
	exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>"$probe/err"; then
	echo "build-fuzz.sh: $cc cannot link libFuzzer (apt-get install libclang-rt-14-dev):" >&2
	cat "$probe/err" >&2
	exit 77
fi
cmake -S . -B "$build" -DCMAKE_C_COMPILER="$cc" -DDATCTS_FUZZ=ON -DBUILD_TESTING=OFF >&2
cmake --build "$build" --target fuzz -j"${DATCTS_FUZZ_JOBS:-2}" >&2
echo "$build"
