#!/bin/bash
# PID 1 of the datcts VM, after the initramfs switched to the overlay of the host root.
# tools/vm/run copies it to the control share (/run/datcts-vm) with:
#   boot.conf  VM_RDMA (rxe|siw|both|none), VM_TIMEOUT (s), VM_CWD, VM_KROOT
#   env        the host environment, as bash "export NAME=VALUE" lines
#   argv       COMMAND and its arguments, NUL-separated
# It brings up the network and soft-RoCE / soft-iWARP, runs COMMAND in VM_CWD with its stdout and
# stderr on the virtio-serial ports datcts.stdout / datcts.stderr, writes its exit code to
# ctl/rc (and ctl/timedout when the deadline hit), and powers the VM off.
# Set-up failures write ctl/fail and print "DATCTS-VM-FAIL: ..." on the console.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CTL=/run/datcts-vm

say() {
	local up _
	read -r up _ </proc/uptime
	echo "DATCTS-VM: $* t=$up" >/dev/console
}
off() {
	sync
	echo o >/proc/sysrq-trigger
	exec sleep 3600 # the kernel powers off; PID 1 must not exit before
}
fail() {
	echo "DATCTS-VM-FAIL: $*" >/dev/console
	echo "$*" >"$CTL/fail"
	off
}
# wait_for DESCRIPTION DEADLINE_S COMMAND...: poll a readiness condition until it holds.
# (Builtins only in the conditions: every fork+exec costs tens of ms under TCG.)
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
wait_for() {
	local what=$1 limit=$2 end
	shift 2
	end=$(($(now_ms) + limit * 1000))
	until "$@" >/dev/null; do
		(($(now_ms) < end)) || fail "timed out after ${limit}s waiting for $what"
		sleep 0.05
	done
}
# file_has FILE TEXT: FILE's first line contains TEXT
file_has() {
	local line
	{ read -r line <"$1"; } 2>/dev/null || return 1
	[[ $line == *"$2"* ]]
}

# shellcheck source=/dev/null
. "$CTL/boot.conf" || fail "cannot read boot.conf"
say "guest.sh start, kernel $(uname -r), rdma=$VM_RDMA"
hostname datcts-vm 2>/dev/null || true

# --- network: eth0 (and eth1 with --rdma both) lead nowhere (QEMU hubs with one port each);
# nothing leaves the VM. With both devices, siw0 gets eth1 so that rdma_cm reaches each device by
# its own address (rdma_cm picks the device by the netdev that holds the address).
netdevs=(eth0)
[[ $VM_RDMA == both ]] && netdevs+=(eth1)
ipcmds="link set lo up"$'\n'
for i in "${!netdevs[@]}"; do
	ipcmds+="link set ${netdevs[$i]} up"$'\n'"addr add 10.99.$i.1/24 dev ${netdevs[$i]}"$'\n'
done
ip -batch - <<<"$ipcmds" || fail "ip -batch: ${ipcmds//$'\n'/; }"
is_up() { file_has "/sys/class/net/$1/operstate" up; }
for n in "${netdevs[@]}"; do wait_for "$n up" 20 is_up "$n"; done
say "${netdevs[*]} up"

# --- RDMA
port_active() { file_has "/sys/class/infiniband/$1/ports/1/state" ACTIVE; }
has_gid() {
	local g
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do file_has "$g" "$2" && return 0; done
	return 1
}
# shellcheck disable=SC2086 # split the address into its four numbers
gid_of() { printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ }; }
devices=()
declare -A ip_of=()
case "$VM_RDMA" in
rxe) devices=(rxe0) ip_of=([rxe0]=10.99.0.1) ;;
siw) devices=(siw0) ip_of=([siw0]=10.99.0.1) ;;
both) devices=(rxe0 siw0) ip_of=([rxe0]=10.99.0.1 [siw0]=10.99.1.1) ;;
none) ;;
*) fail "unknown rdma mode $VM_RDMA" ;;
esac
if ((${#devices[@]})); then
	modules=()
	for d in "${devices[@]}"; do modules+=("$([[ $d == rxe0 ]] && echo rdma_rxe || echo siw)"); done
	modprobe -a "${modules[@]}" ib_uverbs rdma_ucm || fail "modprobe ${modules[*]} ib_uverbs rdma_ucm"
	say "modprobe ${modules[*]} ib_uverbs rdma_ucm"
	for d in "${devices[@]}"; do
		ip=${ip_of[$d]}
		nd=$(ip -o -4 addr show to "$ip/32" | awk '{print $2; exit}')
		rdma link add "$d" type "${d%0}" netdev "$nd" || fail "rdma link add $d type ${d%0} netdev $nd"
		wait_for "$d port ACTIVE" 20 port_active "$d"
		[[ $d == rxe0 ]] && wait_for "rxe0's GID for $ip" 20 has_gid rxe0 "$(gid_of "$ip")"
		say "$d ready on $nd ($ip)"
	done
	wait_for "/dev/infiniband/uverbs*" 20 compgen -G '/dev/infiniband/uverbs*'
fi
# siw enforces RLIMIT_MEMLOCK even for root; verbs users register memory freely here.
ulimit -l unlimited || fail "ulimit -l unlimited"
ulimit -c 0

# --- the command's stdout and stderr: virtio-serial ports named by tools/vm/run
port_dev() {
	local p
	for p in /sys/class/virtio-ports/*; do
		file_has "$p/name" "$1" && [[ -c /dev/${p##*/} ]] && {
			echo "/dev/${p##*/}"
			return 0
		}
	done
	return 1
}
wait_for "the virtio-serial ports" 20 port_dev datcts.stderr
out=$(port_dev datcts.stdout) || fail "no datcts.stdout port"
err=$(port_dev datcts.stderr) || fail "no datcts.stderr port"

mapfile -d '' argv <"$CTL/argv" || fail "cannot read argv"
((${#argv[@]})) || fail "empty command"
cd -- "$VM_CWD" 2>/dev/null || fail "the working directory $VM_CWD does not exist in the VM"

say "setup done, devices: ${devices[*]:-none}"
: >"$CTL/started"
start=$(now_ms)
(
	# the host's environment, not PID 1's
	for v in $(compgen -e); do unset "$v" 2>/dev/null; done
	# shellcheck source=/dev/null
	. "$CTL/env"
	export DATCTS_VM=1 DATCTS_VM_RDMA="$VM_RDMA" DATCTS_VM_IP=10.99.0.1 DATCTS_VM_NETDEV=eth0
	export DATCTS_VM_DEVICES="${devices[*]}"
	[[ -n "${ip_of[rxe0]:-}" ]] && export DATCTS_VM_RXE_IP=${ip_of[rxe0]}
	[[ -n "${ip_of[siw0]:-}" ]] && export DATCTS_VM_SIW_IP=${ip_of[siw0]}
	exec timeout -k 5 "$VM_TIMEOUT" "${argv[@]}"
) </dev/null >"$out" 2>"$err"
rc=$?
if (((rc == 124 || rc == 137) && $(now_ms) - start >= VM_TIMEOUT * 1000)); then
	: >"$CTL/timedout"
fi
echo "$rc" >"$CTL/rc.tmp" && mv "$CTL/rc.tmp" "$CTL/rc"
say "command exited rc=$rc"
off
