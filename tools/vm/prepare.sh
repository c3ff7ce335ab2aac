#!/usr/bin/env bash
# Builds (or reuses) the VM cache: Debian's kernel, the initramfs and siw.ko.
#
#   tools/vm/prepare.sh            kernel + initramfs + siw.ko
#   tools/vm/prepare.sh --no-siw   kernel + initramfs only
#
# Cache: ${DATCTS_VM_CACHE:-$HOME/.cache/datcts-vm}/<kver>/ (one folder per kernel release):
#   kroot/            dpkg -x of linux-image-<kver> (boot/vmlinuz-<kver>, lib/modules/<kver>),
#                     siw.ko in lib/modules/<kver>/updates/, depmod'ed
#   initramfs.cpio.gz static busybox + virtio/9p/overlay modules + tools/vm/initramfs-init
#   vmlinux           the kernel, decompressed (QEMU boots it through its PVH entry: faster)
#   initramfs.key     hash of the initramfs inputs (a changed init script rebuilds it)
#   siw-src/          drivers/infiniband/sw/siw from Debian's linux-source (built out of tree)
#   versions          what was used (package versions) and how long each step took
#   kernel.ok siw.ok  completion stamps
# and $DATCTS_VM_CACHE/current names the kernel release of the last successful prepare.
# The kernel release is what apt offers now (linux-image-amd64's dependency), or DATCTS_VM_KVER.
# Idempotent and safe to run concurrently (flock). Missing packages are installed through
# tools/vm/deps.sh when running as root, unless DATCTS_VM_NO_INSTALL=1.
# Exit: 0 ready; 77 with "SKIPPED: <reason>" when QEMU or the kernel cannot be had here; 1 error.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

siw=1
for arg in "$@"; do
	case "$arg" in
	--no-siw) siw=0 ;;
	-h | --help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) vm_die 2 "prepare.sh: unknown option $arg" ;;
	esac
done

t0=$(date +%s.%N)
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# One prepare at a time (apt and the cache): concurrent runs on a fresh machine wait here.
mkdir -p "$VM_CACHE"
exec 9>"$VM_CACHE/.lock"
flock 9

# --- host tools
need_cmds=(qemu-system-x86_64 busybox depmod modprobe cpio gzip flock)
((siw)) && need_cmds+=(make gcc)
missing_cmd() {
	local c
	for c in "${need_cmds[@]}"; do
		[[ $c == busybox ]] && { [[ -x /bin/busybox ]] || { echo busybox; return; }; continue; }
		command -v "$c" >/dev/null 2>&1 || [[ -x /usr/sbin/$c || -x /sbin/$c ]] || { echo "$c"; return; }
	done
}
install_deps() { # install_deps WHY
	if [[ "${DATCTS_VM_NO_INSTALL:-0}" == 1 ]]; then
		return 1
	fi
	vm_is_root || return 1
	vm_log "prepare: $1; running tools/vm/deps.sh"
	local opts=()
	((siw)) || opts=(--no-siw)
	"$VM_DIR/deps.sh" "${opts[@]}" >&2
}
m=$(missing_cmd)
if [[ -n "$m" ]]; then
	install_deps "$m is missing" ||
		vm_skip "$m is not installed and cannot be installed here (run tools/vm/deps.sh as root)"
	m=$(missing_cmd)
	[[ -z "$m" ]] || vm_skip "$m is still missing after tools/vm/deps.sh"
fi
if ldd /bin/busybox >/dev/null 2>&1; then
	vm_die 1 "/bin/busybox is not static: install busybox-static"
fi


kver=$(vm_pick_kver --apt)
if [[ -z "$kver" ]] && vm_is_root && [[ "${DATCTS_VM_NO_INSTALL:-0}" != 1 ]]; then
	apt-get update -qq >&2 || true
	kver=$(vm_pick_kver --apt)
fi
[[ -n "$kver" ]] || vm_skip "no Debian kernel known: apt offers no linux-image-amd64 and the cache ($VM_CACHE) has none"
[[ "$kver" =~ ^[0-9][0-9a-z.+-]*$ ]] || vm_die 1 "bad kernel release '$kver'"
kdir=$(vm_kdir "$kver")
kroot=$(vm_kroot "$kver")
mkdir -p "$kdir"
record() { # record KEY VALUE: one line per key in $kdir/versions
	local f="$kdir/versions"
	{ grep -v "^$1 " "$f" 2>/dev/null || true; echo "$1 $2"; } >"$f.tmp"
	mv "$f.tmp" "$f"
}
tmp=$(mktemp -d "$kdir/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- the kernel: Debian's linux-image, extracted into a private root
if [[ ! -f "$kdir/kernel.ok" || ! -f "$kroot/boot/vmlinuz-$kver" ]]; then
	t=$(date +%s.%N)
	vm_log "prepare: downloading linux-image-$kver"
	(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "linux-image-$kver" >&2) ||
		vm_skip "cannot download linux-image-$kver (apt-get download failed)"
	deb=$(ls "$tmp"/linux-image-"$kver"_*.deb)
	rm -rf "$kroot" "$tmp/kroot"
	dpkg-deb -x "$deb" "$tmp/kroot"
	[[ -f "$tmp/kroot/boot/vmlinuz-$kver" ]] || vm_die 1 "linux-image-$kver has no boot/vmlinuz-$kver"
	depmod -b "$tmp/kroot" "$kver"
	mv "$tmp/kroot" "$kroot"
	record linux-image "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
	record time-kernel "$(elapsed "$t")s"
	rm -f "$deb" "$kdir/siw.ok" "$kdir/vmlinux" "$kdir/vmlinux.none"
	touch "$kdir/kernel.ok"
fi

# --- vmlinux: the kernel decompressed once here. QEMU boots it directly through its PVH entry
# point, which saves the ~5 s that decompressing Debian's xz bzImage takes under TCG.
if [[ ! -f "$kdir/vmlinux" ]]; then
	t=$(date +%s.%N)
	vmlinuz=$kroot/boot/vmlinuz-$kver
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -n 1 | cut -d: -f1 || true)
	# (no pipes into early-exiting readers: pipefail would call their writers' SIGPIPE a failure)
	if [[ -n "$off" ]] && xz -dc --single-stream >"$tmp/vmlinux" 2>/dev/null < <(tail -c +$((off + 1)) "$vmlinuz") &&
		[[ "$(head -c 4 "$tmp/vmlinux")" == $'\x7fELF' ]] &&
		[[ "$(readelf -n "$tmp/vmlinux" 2>/dev/null)" =~ Xen[^$'\n']*(0x00000012|PHYS32_ENTRY) ]]; then
		mv "$tmp/vmlinux" "$kdir/vmlinux"
		record time-vmlinux "$(elapsed "$t")s"
	else
		vm_log "prepare: cannot extract a PVH vmlinux from vmlinuz-$kver; the VM boots the bzImage (slower)"
		: >"$kdir/vmlinux.none"
	fi
fi

# --- the initramfs
key=$(vm_initramfs_key)
if [[ ! -f "$(vm_initramfs "$kver")" || "$(cat "$kdir/initramfs.key" 2>/dev/null)" != "$key" ]]; then
	t=$(date +%s.%N)
	vm_log "prepare: building the initramfs"
	w=$tmp/initramfs
	mkdir -p "$w"/{bin,proc,sys,dev,mods,ctl,lower,rw,newroot}
	cp /bin/busybox "$w/bin/busybox"
	order=()
	for mod in $VM_INITRAMFS_MODULES; do
		deps=$(modprobe -d "$kroot" -S "$kver" --show-depends "$mod") ||
			vm_die 1 "module $mod not found in linux-image-$kver"
		while read -r verb path _; do
			[[ $verb == insmod ]] || continue # "builtin X" needs nothing
			f=$(basename "$path")
			[[ " ${order[*]} " == *" $f "* ]] && continue
			cp "$path" "$w/mods/$f"
			order+=("$f")
		done <<<"$deps"
	done
	echo "${order[*]}" >"$w/mods/order"
	install -m 0755 "$VM_DIR/initramfs-init" "$w/init"
	(cd "$w" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$tmp/initramfs.cpio.gz"
	mv "$tmp/initramfs.cpio.gz" "$(vm_initramfs "$kver")"
	echo "$key" >"$kdir/initramfs.key"
	record busybox-static "$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || echo unknown)"
	record initramfs-modules "${order[*]}"
	record time-initramfs "$(elapsed "$t")s"
fi

# --- siw.ko: Debian does not build soft-iWARP; build it out of tree from Debian's linux-source.
if ((siw)) && [[ ! -f "$kdir/siw.ok" || ! -f "$(vm_siw_ko "$kver")" ]]; then
	t=$(date +%s.%N)
	hdr=/usr/src/linux-headers-$kver
	if [[ ! -f $hdr/Makefile ]]; then
		install_deps "linux-headers-$kver is missing" || true
		[[ -f $hdr/Makefile ]] ||
			vm_skip "linux-headers-$kver is not installed and cannot be installed here: siw.ko cannot be built (run tools/vm/deps.sh as root, or prepare.sh --no-siw)"
	fi
	if [[ ! -f "$kdir/siw-src/siw_main.c" ]]; then
		# linux-source at the kernel package's version when apt still has it, else its candidate
		kpkgver=$(awk '$1=="linux-image" {print $3}' "$kdir/versions" 2>/dev/null)
		vm_log "prepare: downloading linux-source-6.1${kpkgver:+ $kpkgver} (for siw)"
		(cd "$tmp" && { apt-get download -qq -o APT::Sandbox::User=root "linux-source-6.1${kpkgver:+=$kpkgver}" >&2 ||
			apt-get download -qq -o APT::Sandbox::User=root linux-source-6.1 >&2; }) ||
			vm_skip "cannot download linux-source-6.1 (apt-get download failed): siw.ko cannot be built"
		src=$(ls "$tmp"/linux-source-6.1_*.deb)
		record linux-source "$(dpkg-deb -f "$src" Version)"
		mkdir -p "$tmp/src"
		dpkg-deb --fsys-tarfile "$src" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
			tar -xJ -C "$tmp/src" --strip-components=5 linux-source-6.1/drivers/infiniband/sw/siw
		rm -f "$src"
		[[ -f "$tmp/src/siw_main.c" ]] || vm_die 1 "linux-source-6.1 has no drivers/infiniband/sw/siw"
		rm -rf "$kdir/siw-src"
		mv "$tmp/src" "$kdir/siw-src"
	fi
	rm -rf "$tmp/siw" && cp -r "$kdir/siw-src" "$tmp/siw"
	vm_log "prepare: building siw.ko against linux-headers-$kver"
	make -C "$hdr" M="$tmp/siw" CONFIG_RDMA_SIW=m modules >"$tmp/siw-build.log" 2>&1 || {
		tail -n 30 "$tmp/siw-build.log" >&2
		vm_die 1 "building siw.ko failed"
	}
	mkdir -p "$kroot/lib/modules/$kver/updates"
	cp "$tmp/siw/siw.ko" "$(vm_siw_ko "$kver")"
	depmod -b "$kroot" "$kver"
	record linux-headers "$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null || echo unknown)"
	record time-siw "$(elapsed "$t")s"
	touch "$kdir/siw.ok"
fi

echo "$kver" >"$VM_CACHE/current.tmp" && mv "$VM_CACHE/current.tmp" "$VM_CACHE/current"
vm_log "prepare: ready: $kdir ($(elapsed "$t0")s)"
