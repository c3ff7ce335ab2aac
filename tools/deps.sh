#!/usr/bin/env bash
# Installs what datcts needs on Debian 12 (run as root); installs only what is missing.
#   tools/deps.sh            build + test dependencies
#   tools/deps.sh --report   also headless Chromium for the HTML report's browser test
#   tools/deps.sh --vm       also QEMU and rdma-core for the soft-RoCE/siw VM (tools/vm)
#   tools/deps.sh --bench    also libfabric-bin: fi_pingpong, the anchor of `datcts bench-transport`
#                            (the benchmark only; the suite and its tests do not need it)
set -euo pipefail

packages=(
	build-essential cmake pkg-config          # C toolchain
	clang-14 libclang-rt-14-dev               # the fuzz tree: clang, libFuzzer (libclang_rt.fuzzer)
	python3-clang-14                          # datcts mutate --generated: libclang's Python bindings
	libibverbs-dev librdmacm-dev              # rdma-core: the verbs transport
	libdapl-dev dapl2-utils                   # DAT 2.0: headers, libdat2, OFA's test programs
	python3 python3-pytest python3-jinja2     # the runner and reports
	valgrind iproute2 procps openssh-client   # ip netns + ssh -G: tests/hosts
	debhelper dh-python dpkg-dev lintian man-db   # tests/install: the Debian packages, man pages
	slurmctld slurmd slurm-client munge       # tests/slurm: a real Slurm cluster on network namespaces
	python3-flask python3-psycopg2 postgresql # datcts store/serve: the web view, PostgreSQL stores
	# (daemons the packages may start are left alone: tools/slurm/cluster.py runs its own, with
	# its own configuration, munge socket and network namespaces, so nothing clashes)
)
vm=0
for arg in "$@"; do
	case "$arg" in
	--report) packages+=(chromium) ;;
	--vm) vm=1 ;;
	--bench) packages+=(libfabric-bin) ;;
	*) echo "deps.sh: unknown option $arg" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
((vm)) && "$(dirname "$0")/vm/deps.sh"
exit 0
