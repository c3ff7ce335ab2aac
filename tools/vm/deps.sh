#!/usr/bin/env bash
# Installs (Debian 12, as root) what tools/vm needs, only what is missing:
#   QEMU, static busybox, kmod and cpio (the VM and its initramfs), rdma-core and its tools
#   (used inside the VM through the shared host root), and what building siw.ko needs
#   (linux-headers-<kver> of the kernel the VM boots; linux-source is downloaded by prepare.sh).
#
#   tools/vm/deps.sh            everything
#   tools/vm/deps.sh --no-siw   without the siw build dependencies
#
# The kernel release is the one apt offers (see vm_pick_kver in lib.sh) unless DATCTS_VM_KVER pins it.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

siw=1
for arg in "$@"; do
	case "$arg" in
	--no-siw) siw=0 ;;
	-h | --help) sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) vm_die 2 "deps.sh: unknown option $arg" ;;
	esac
done

packages=(
	qemu-system-x86 busybox-static kmod cpio               # the VM and its initramfs
	rdma-core ibverbs-providers ibverbs-utils rdmacm-utils # verbs inside the VM
	perftest libibverbs-dev librdmacm-dev
	iproute2 procps coreutils util-linux xz-utils          # ip/rdma, timeout, flock, tar -J
)
((siw)) && packages+=(make gcc)

missing=()
for p in "${packages[@]}"; do
	vm_have_pkg "$p" || missing+=("$p")
done

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() {
	((updated)) && return 0
	vm_is_root || vm_die 1 "deps.sh: must run as root to install ${missing[*]:-packages}"
	apt-get update -qq || vm_die 1 "deps.sh: apt-get update failed"
	updated=1
}

if ((siw)); then
	kver=$(vm_pick_kver --apt)
	if [[ -z "$kver" ]]; then
		apt_update
		kver=$(vm_pick_kver --apt)
	fi
	[[ -n "$kver" ]] || vm_die 1 "deps.sh: apt offers no linux-image-6.1.0-*-amd64 (is this Debian 12?)"
	vm_have_pkg "linux-headers-$kver" || missing+=("linux-headers-$kver")
fi

if ((${#missing[@]})); then
	vm_log "deps.sh: installing ${missing[*]}"
	apt_update
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		vm_die 1 "deps.sh: apt-get install ${missing[*]} failed"
fi
