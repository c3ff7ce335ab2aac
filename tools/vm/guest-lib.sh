# Helpers for scripts that run inside the VM (tools/vm/run -- ...). Source it:
#   . "$(dirname "$0")/../../tools/vm/guest-lib.sh"
# shellcheck shell=bash

# vm_wait_listen ADDR PORT [SECONDS]: wait until something listens on ADDR:PORT, either an rdma_cm
# id (rping, perftest -R, a DAT PSP) or a TCP socket (perftest's out-of-band exchange). Returns 1,
# with a message, when SECONDS (default 30) pass first. A readiness signal, never a guess.
vm_wait_listen() {
	local addr=$1 port=$2 limit=${3:-30} end
	end=$(($(date +%s%N) / 1000000 + limit * 1000))
	while :; do
		# A listen bound to ADDR is ready once its device-bound id (a "link" line) is.  A
		# wildcard listen (0.0.0.0 or ::, as perftest's server does) makes one child id per
		# device after the parent: ready only once every device has its child, else a
		# client on the last device can be rejected (no listener yet).
		local ids devs
		ids=$(rdma res show cm_id 2>/dev/null | grep -E "^link .*state LISTEN ")
		grep -Eq "src-addr ${addr//./\\.}:$port( |\$)" <<<"$ids" && return 0
		devs=$(rdma link show 2>/dev/null | grep -c '^link ')
		(($(grep -Ec "src-addr (0\.0\.0\.0|\[?::\]?):$port( |\$)" <<<"$ids") >= devs && devs > 0)) && return 0
		ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && return 0
		if (($(date +%s%N) / 1000000 >= end)); then
			echo "vm_wait_listen: nothing listens on $addr:$port after ${limit}s" >&2
			return 1
		fi
		sleep 0.05
	done
}

# vm_pair NAME SECONDS ADDR PORT "SERVER COMMAND" "CLIENT COMMAND": start the server, wait for it
# to listen on ADDR:PORT, run the client; both under `timeout SECONDS`. Their output goes to
# $VM_PAIR_DIR/NAME.{server,client}.log (default /tmp). Returns 0 when both exit 0, else prints
# both logs' tails to stderr and returns 1.
vm_pair() {
	local name=$1 limit=$2 addr=$3 port=$4 server=$5 client=$6 dir=${VM_PAIR_DIR:-/tmp} spid crc=0 src=0
	timeout "$limit" bash -c "$server" >"$dir/$name.server.log" 2>&1 &
	spid=$!
	if ! vm_wait_listen "$addr" "$port" "$limit"; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		echo "vm_pair $name: the server did not come up; its log:" >&2
		tail -n 20 "$dir/$name.server.log" >&2
		return 1
	fi
	timeout "$limit" bash -c "$client" >"$dir/$name.client.log" 2>&1 || crc=$?
	wait "$spid" || src=$?
	if ((crc || src)); then
		echo "vm_pair $name: client exit $crc, server exit $src" >&2
		echo "--- $name server" >&2 && tail -n 20 "$dir/$name.server.log" >&2
		echo "--- $name client" >&2 && tail -n 20 "$dir/$name.client.log" >&2
		return 1
	fi
	return 0
}
