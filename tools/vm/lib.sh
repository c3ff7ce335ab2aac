# Shared by tools/vm/{deps.sh,prepare.sh,run}. Sourced, never run.
# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_REPO=$(cd "$VM_DIR/../.." && pwd)
VM_CACHE=${DATCTS_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/datcts-vm}

# Exit codes of tools/vm/* (documented in docs/vm.md).
VM_EXIT_TIMEOUT=124   # COMMAND (or the VM's boot) ran past its deadline
VM_EXIT_VMFAIL=125    # the VM or its set-up failed (not COMMAND)
VM_EXIT_SKIP=77       # QEMU cannot run here (automake/ctest "skipped")

vm_log() { echo "datcts-vm: $*" >&2; }
vm_die() { local rc=$1; shift; echo "datcts-vm: ERROR: $*" >&2; exit "$rc"; }

# vm_skip REASON: QEMU cannot run here. Exit 77 with "SKIPPED: REASON" on stdout,
# unless DATCTS_VM_REQUIRE=1 (CI that must run the VM), where it is a failure (125).
vm_skip() {
	if [[ "${DATCTS_VM_REQUIRE:-0}" == 1 ]]; then
		vm_die "$VM_EXIT_VMFAIL" "the VM is required here (DATCTS_VM_REQUIRE=1) but cannot run: $*"
	fi
	echo "SKIPPED: $*"
	exit "$VM_EXIT_SKIP"
}

vm_is_root() { [[ $(id -u) == 0 ]]; }

vm_have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# The kernel release to use (e.g. 6.1.0-56-amd64), printed on stdout:
#   1. DATCTS_VM_KVER, when set (a pin);
#   2. with --apt (prepare.sh, deps.sh): what apt offers now, i.e. the linux-image-6.1.0-*-amd64
#      that Debian's linux-image-amd64 metapackage depends on;
#   3. otherwise the one recorded in the cache by the last successful prepare ($VM_CACHE/current).
# Prints nothing when none is known.
vm_pick_kver() {
	if [[ -n "${DATCTS_VM_KVER:-}" ]]; then
		echo "$DATCTS_VM_KVER"
		return
	fi
	if [[ "${1:-}" == --apt ]]; then
		local dep
		dep=$(apt-cache show --no-all-versions linux-image-amd64 2>/dev/null |
			sed -n 's/^Depends:.*linux-image-\(6\.1\.0-[0-9]*-amd64\).*/\1/p' | head -n 1)
		if [[ -n "$dep" ]]; then
			echo "$dep"
			return
		fi
	fi
	[[ -r "$VM_CACHE/current" ]] && head -n 1 "$VM_CACHE/current"
	return 0
}

# Cache layout for one kernel release.
vm_kdir() { echo "$VM_CACHE/$1"; }
vm_kroot() { echo "$VM_CACHE/$1/kroot"; }
vm_initramfs() { echo "$VM_CACHE/$1/initramfs.cpio.gz"; }
# The kernel image QEMU boots: the decompressed PVH vmlinux when prepare.sh made one, else vmlinuz.
vm_kernel() {
	if [[ -f "$VM_CACHE/$1/vmlinux" ]]; then echo "$VM_CACHE/$1/vmlinux"; else echo "$VM_CACHE/$1/kroot/boot/vmlinuz-$1"; fi
}
vm_siw_ko() { echo "$VM_CACHE/$1/kroot/lib/modules/$1/updates/siw.ko"; }

# The initramfs is keyed by its inputs: the init script, the module list and busybox.
VM_INITRAMFS_MODULES="virtio_pci virtio_console 9pnet_virtio 9p overlay virtio_net"
vm_initramfs_key() {
	{
		cat "$VM_DIR/initramfs-init"
		echo "$VM_INITRAMFS_MODULES"
		dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || true
	} | sha256sum | cut -c1-16
}

# Is the cache for kernel $1 complete enough to boot (and, with "siw", to run siw)?
vm_cache_ready() {
	local k=$1 need=${2:-}
	[[ -f "$(vm_kdir "$k")/kernel.ok" && -f "$(vm_kroot "$k")/boot/vmlinuz-$k" ]] || return 1
	[[ -f "$(vm_kdir "$k")/vmlinux" || -f "$(vm_kdir "$k")/vmlinux.none" ]] || return 1
	[[ -f "$(vm_initramfs "$k")" && "$(cat "$(vm_kdir "$k")/initramfs.key" 2>/dev/null)" == "$(vm_initramfs_key)" ]] || return 1
	if [[ "$need" == siw ]]; then
		[[ -f "$(vm_kdir "$k")/siw.ok" && -f "$(vm_siw_ko "$k")" ]] || return 1
	fi
	return 0
}
