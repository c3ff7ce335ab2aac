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
VM_IP=10.99.0.1

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
wait_for() {
	local what=$1 limit=$2 end
	shift 2
	end=$(($(date +%s%N) / 1000000 + limit * 1000))
	until "$@" >/dev/null; do
		(($(date +%s%N) / 1000000 < end)) || fail "timed out after ${limit}s waiting for $what"
		sleep 0.05
	done
}

# shellcheck source=/dev/null
. "$CTL/boot.conf" || fail "cannot read boot.conf"
say "guest.sh start, kernel $(uname -r), rdma=$VM_RDMA"
hostname datcts-vm 2>/dev/null || true

# --- network: eth0 leads nowhere (a QEMU hub with one port); nothing leaves the VM.
ip link set lo up || fail "ip link set lo up"
ip link set eth0 up || fail "no eth0"
ip addr add "$VM_IP/24" dev eth0 || fail "ip addr add $VM_IP/24 dev eth0"
has_carrier() { [[ "$(cat /sys/class/net/eth0/operstate 2>/dev/null)" == up ]]; }
wait_for "eth0 up" 20 has_carrier
say "eth0 up"

# --- RDMA
port_active() { grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null; }
has_ipv4_gid() { grep -qs "0000:0000:0000:0000:0000:ffff:0a63:0001" /sys/class/infiniband/"$1"/ports/1/gids/*; }
devices=()
modules=()
case "$VM_RDMA" in
rxe) modules+=(rdma_rxe) devices+=(rxe0) ;;
siw) modules+=(siw) devices+=(siw0) ;;
both) modules+=(rdma_rxe siw) devices+=(rxe0 siw0) ;;
none) ;;
*) fail "unknown rdma mode $VM_RDMA" ;;
esac
if ((${#modules[@]})); then
	for m in "${modules[@]}" ib_uverbs rdma_ucm; do
		modprobe "$m" || fail "modprobe $m"
		say "modprobe $m"
	done
	for d in "${devices[@]}"; do
		rdma link add "$d" type "${d%0}" netdev eth0 || fail "rdma link add $d type ${d%0} netdev eth0"
		wait_for "$d port ACTIVE" 20 port_active "$d"
		[[ $d == rxe0 ]] && wait_for "rxe0's IPv4 GID" 20 has_ipv4_gid rxe0
		wait_for "/dev/infiniband/uverbs*" 20 compgen -G '/dev/infiniband/uverbs*'
		say "$d ready"
	done
fi
# siw enforces RLIMIT_MEMLOCK even for root; verbs users register memory freely here.
ulimit -l unlimited || fail "ulimit -l unlimited"
ulimit -c 0

# --- the command's stdout and stderr: virtio-serial ports named by tools/vm/run
port_dev() {
	local p
	for p in /sys/class/virtio-ports/*; do
		[[ "$(cat "$p/name" 2>/dev/null)" == "$1" ]] && [[ -c /dev/${p##*/} ]] && {
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
start=$(date +%s)
(
	# the host's environment, not PID 1's
	for v in $(compgen -e); do unset "$v" 2>/dev/null; done
	# shellcheck source=/dev/null
	. "$CTL/env"
	export DATCTS_VM=1 DATCTS_VM_RDMA="$VM_RDMA" DATCTS_VM_IP="$VM_IP" DATCTS_VM_NETDEV=eth0
	export DATCTS_VM_DEVICES="${devices[*]}"
	exec timeout -k 5 "$VM_TIMEOUT" "${argv[@]}"
) </dev/null >"$out" 2>"$err"
rc=$?
if ((rc == 124 && $(date +%s) - start >= VM_TIMEOUT)); then
	: >"$CTL/timedout"
fi
echo "$rc" >"$CTL/rc.tmp" && mv "$CTL/rc.tmp" "$CTL/rc"
say "command exited rc=$rc"
off
