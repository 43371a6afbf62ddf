# gluster-rig.sh — a private GlusterFS volume on loopback, mounted twice
# through FUSE: two clients of one data directory, standing in for two hosts.
# Source it from tests/gluster-*.sh after tap.sh:
#
#   . "$(dirname "$0")/lib/gluster-rig.sh"
#   rig_start coherent     (or: rig_start default)  — skips the test (TAP
#                          "1..0 # SKIP why") when the rig cannot start
#   ... use $M1 and $M2: the same volume, two mounts (two clients) ...
#
# What it brings up, all under $T/rig and torn down by an EXIT/INT/TERM trap
# (before tap.sh's cleanup), even when the test fails or is killed:
#   - a glusterd of its own (working, run and log directories under
#     $T/rig, listening on 127.0.0.1 only);
#   - one volume "abx" with one brick $T/rig/brick ("force": the brick is on
#     the root filesystem), its host a name that resolves to 127.0.0.1 (the
#     CLI refuses localhost and the address itself), the machine's own name
#     if it does, else none and the test is skipped;
#   - two FUSE clients (glusterfs processes) mounted on $M1 and $M2.
#
# Modes:
#   coherent  the volume and mount options abx(7) ASSUMPTIONS requires
#             (RIG_VOLUME_OPTS off, client.strict-locks on, RIG_MOUNT_OPTS):
#             every client cache off, and a lock the brick lost stays lost
#   default   GlusterFS's own defaults (client caches on)
#
# Needs root, /dev/fuse, the glusterd, gluster and glusterfs programs
# (Debian glusterfs-server and glusterfs-client, 23 packages, 36 MB:
# installed here with apt-get when missing and we are root — not by
# tests/lib/deps.sh, because on a machine with systemd the package starts
# and enables a glusterd of the system's, listening on every interface) and
# port 24007 on 127.0.0.1 free (else the test is skipped, saying so): a
# brick finds its glusterd on the default port only, so rigs cannot run side
# by side and rig_start serialises them with a lock on
# /tmp/abx-gluster-rig.lock.
#
# rig_brick_restart: kill -9 the brick and start it again: every client
# loses its connection and the brick its locks.
#
# rig_cut M: cut one client off (kill -9 its glusterfs process, then a lazy
# unmount): what a host that loses the network looks like to the others.
# All traffic is on 127.0.0.1.

RIG_VOL=abx
RIG_VOLUME_OPTS="performance.stat-prefetch performance.quick-read performance.open-behind
performance.write-behind performance.io-cache performance.read-ahead
performance.readdir-ahead performance.nl-cache performance.parallel-readdir"
RIG_MOUNT_OPTS="--direct-io-mode=enable --attribute-timeout=0 --entry-timeout=0 --negative-timeout=0"
RIG=""

rig_skip() {
	echo "1..0 # SKIP $1"
	exit 0
}

# rig_why: print why the rig cannot start here, or nothing
rig_why() {
	[ "$(id -u)" -eq 0 ] || { echo "needs root (glusterd, FUSE mounts)"; return; }
	[ -c /dev/fuse ] || { echo "no /dev/fuse"; return; }
	if ! command -v glusterd >/dev/null 2>&1 || ! command -v glusterfs >/dev/null 2>&1; then
		if command -v apt-get >/dev/null 2>&1; then
			echo "# installing glusterfs-server glusterfs-client with apt-get" >&2
			# one test at a time (dpkg's lock); a later one finds them
			flock -w 600 /tmp/abx-gluster-install.lock sh -c '
			    command -v glusterd >/dev/null 2>&1 && command -v glusterfs >/dev/null 2>&1 && exit 0
			    export DEBIAN_FRONTEND=noninteractive
			    apt-get install -y -qq --no-install-recommends glusterfs-server glusterfs-client ||
			    { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
			        glusterfs-server glusterfs-client; }' >/dev/null 2>&1
		fi
		if ! command -v glusterd >/dev/null 2>&1 || ! command -v glusterfs >/dev/null 2>&1; then
			echo "glusterfs-server and glusterfs-client are not installed and apt-get could not install them"
			return
		fi
	fi
	RIG_HOST=$(hostname 2>/dev/null)
	case $(getent hosts "$RIG_HOST" 2>/dev/null | awk '{print $1; exit}') in
	127.*) ;;
	*) echo "the host name '$RIG_HOST' does not resolve to 127.0.0.x (glusterd needs a brick host name on loopback; add it to /etc/hosts)"; return ;;
	esac
}

rig_stop() {
	[ -n "$RIG" ] && [ -d "$RIG" ] || return 0
	for m in m1 m2 m3; do
		if grep -q " $RIG/$m " /proc/mounts 2>/dev/null; then
			umount "$RIG/$m" 2>/dev/null || umount -l "$RIG/$m" 2>/dev/null
		fi
	done
	for p in "$RIG"/run/m[0-9].pid "$RIG"/run/vols/*/*.pid "$RIG"/run/glusterd.pid; do
		[ -s "$p" ] || continue
		pid=$(cat "$p")
		# a pid file of ours names a gluster process, or nothing
		case $(cat "/proc/$pid/comm" 2>/dev/null) in
		gluster*) kill -9 "$pid" 2>/dev/null ;;
		esac
	done
	for p in "$RIG"/run/m[0-9].pid "$RIG"/run/vols/*/*.pid "$RIG"/run/glusterd.pid; do
		[ -s "$p" ] || continue
		pid=$(cat "$p") n=0
		while [ -d "/proc/$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "" ] &&
		    ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && [ $n -lt 100 ]; do
			sleep 0.05; n=$((n + 1))
		done
	done
	# the brick's unix socket is made in /var/run/gluster whatever we say
	[ -s "$RIG/brick.sock" ] && xargs rm -f <"$RIG/brick.sock"
	rm -rf "$RIG"
	RIG=""
	rm -f "$RIG_LOCKED"   # the next rig may start
}

# At exit: the test's processes first (they hold the mounts), then the rig,
# then tick-lib.sh's cleanup if it is loaded, else tap.sh's.
rig_trap() {
	for _g in ${_tick_groups:-}; do kill -9 "-$_g" 2>/dev/null; done
	jobs -p >"$T/.rigjobs" 2>/dev/null
	xargs -r kill -9 <"$T/.rigjobs" 2>/dev/null
	rig_stop
	if command -v tick_cleanup >/dev/null 2>&1; then tick_cleanup; else cleanup; fi
}

# rig_gluster ARGS...: the CLI, talking to our glusterd only
rig_gluster() {
	gluster --mode=script --glusterd-sock="$RIG/run/gd.sock" --log-file="$RIG/log/cli.log" "$@"
}

# rig_mount m1|m2|NAME [OPTS]: mount a client on $RIG/NAME with the mode's
# options, or OPTS (glusterfs options such as $RIG_MOUNT_OPTS)
rig_mount() {
	mkdir -p "$RIG/$1"
	# shellcheck disable=SC2086
	glusterfs --volfile-server=127.0.0.1 --volfile-id=$RIG_VOL ${2-$RIG_CLIENT_OPTS} \
	    --log-file="$RIG/log/$1.log" -p "$RIG/run/$1.pid" "$RIG/$1" || return 1
	wait_for 10 grep -q " $RIG/$1 fuse.glusterfs" /proc/mounts
}

rig_start() {
	mode=${1:-coherent}
	why=$(rig_why)
	[ -z "$why" ] || rig_skip "$why"
	RIG_HOST=$(hostname)
	# one rig at a time on this machine (port 24007): the lock is held by a
	# process of its own, so that no process the test starts inherits it,
	# and not a job of the test's, so that its "wait" does not wait for it;
	# it lets go when the test removes $RIG_LOCKED or dies
	RIG_LOCKED=$T/.rig-locked
	testpid=$$
	( (
		if flock -w 600 9; then : >"$RIG_LOCKED"; else : >"$RIG_LOCKED.failed"; exit 1; fi
		while kill -0 "$testpid" 2>/dev/null && [ -e "$RIG_LOCKED" ]; do sleep 0.2; done
	) 9>/tmp/abx-gluster-rig.lock & )
	while [ ! -e "$RIG_LOCKED" ]; do
		[ -e "$RIG_LOCKED.failed" ] &&
		    rig_skip "another rig held /tmp/abx-gluster-rig.lock for 10 minutes"
		sleep 0.1
	done
	if ss -Hltn 2>/dev/null | awk '{print $4}' | grep -q ':24007$'; then
		rig_skip "port 24007 is taken (a glusterd of the system's is running?)"
	fi
	RIG=$T/rig
	M1=$RIG/m1 M2=$RIG/m2
	export M1 M2
	trap rig_trap EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir -p "$RIG/gd" "$RIG/run" "$RIG/log" "$RIG/brick" "$M1" "$M2"
	glusterd --xlator-option management.working-directory="$RIG/gd" \
	    --xlator-option management.transport.socket.bind-address=127.0.0.1 \
	    --xlator-option management.run-directory="$RIG/run" \
	    --xlator-option management.glusterd-sockfile="$RIG/run/gd.sock" \
	    --xlator-option management.cluster-test-mode="$RIG/log" \
	    --log-file="$RIG/log/glusterd.log" -p "$RIG/run/glusterd.pid" ||
	    rig_skip "glusterd did not start (see the log)"
	wait_for 20 rig_gluster volume list >/dev/null ||
	    { diag "$(tail -5 "$RIG/log/glusterd.log")"; rig_skip "glusterd did not answer"; }
	rig_gluster volume create $RIG_VOL "$RIG_HOST:$RIG/brick" force >/dev/null ||
	    { diag "$(tail -5 "$RIG/log/cli.log")"; rig_skip "gluster volume create failed"; }
	RIG_CLIENT_OPTS=""
	if [ "$mode" = coherent ]; then
		for o in $RIG_VOLUME_OPTS; do
			rig_gluster volume set $RIG_VOL "$o" off >/dev/null ||
			    rig_skip "gluster volume set $o off failed"
		done
		rig_gluster volume set $RIG_VOL client.strict-locks on >/dev/null ||
		    rig_skip "gluster volume set client.strict-locks on failed"
		RIG_CLIENT_OPTS=$RIG_MOUNT_OPTS
	fi
	rig_gluster volume start $RIG_VOL >/dev/null ||
	    { diag "$(tail -5 "$RIG/log/glusterd.log")"; rig_skip "gluster volume start failed"; }
	# remember the brick's socket in /var/run/gluster, to remove it
	for p in "$RIG"/run/vols/*/*.pid; do
		[ -s "$p" ] || continue
		tr '\0' '\n' <"/proc/$(cat "$p")/cmdline" 2>/dev/null |
		    awk 'prev == "-S" {print} {prev = $0}' >"$RIG/brick.sock"
	done
	rig_mount m1 || rig_skip "mounting the volume on $M1 failed"
	rig_mount m2 || rig_skip "mounting the volume on $M2 failed"
	diag "rig: volume $RIG_VOL ($mode options) on $RIG_HOST:$RIG/brick, mounted on $M1 and $M2"
}

# rig_cut m1|m2: the client dies (its host is cut off)
rig_cut() {
	[ -s "$RIG/run/$1.pid" ] && kill -9 "$(cat "$RIG/run/$1.pid")" 2>/dev/null
	umount -l "$RIG/$1" 2>/dev/null
	return 0
}

rig_brick_up() {
	for p in "$RIG"/run/vols/*/*.pid; do
		[ -s "$p" ] || continue
		_pid=$(cat "$p")
		[ "$(cat "/proc/$_pid/comm" 2>/dev/null)" = glusterfsd ] &&
		    ! grep -q '^State:.*Z' "/proc/$_pid/status" 2>/dev/null && return 0
	done
	return 1
}

rig_brick_restart() {
	for p in "$RIG"/run/vols/*/*.pid; do
		[ -s "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null
		# a dead brick that nobody reaps (a container's init) still has
		# its pid: glusterd would take it for running
		rm -f "$p"
	done
	n=0
	while [ $n -lt 20 ]; do
		sleep 0.5
		rig_gluster volume start $RIG_VOL force >>"$RIG/log/restart.out" 2>&1
		wait_for 3 rig_brick_up && break
		n=$((n + 1))
	done
	for p in "$RIG"/run/vols/*/*.pid; do
		[ -s "$p" ] || continue
		tr '\0' '\n' <"/proc/$(cat "$p")/cmdline" 2>/dev/null |
		    awk 'prev == "-S" {print} {prev = $0}' >>"$RIG/brick.sock"
	done
}
