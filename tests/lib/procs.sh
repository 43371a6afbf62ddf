# procs.sh — find a test's own processes by the test's own directory, never
# by a name that a program run by anything else on the machine may share
# (two `make check` side by side run the same tools with the same flags);
# source it after tap.sh.  Linux: it reads /proc.
# shellcheck shell=sh
#
#   procs_in DIR [NAME]   the pids, one a line, of the processes that have
#                         DIR or a path under it as their working directory
#                         or as one of their arguments (whole, or after an
#                         "=": --dir=DIR/x); with NAME, only those whose
#                         program is NAME (/proc/PID/comm, as `ps -o comm`:
#                         at most 15 characters).  Zombies have neither, so
#                         they are not listed; nor are the caller and its
#                         own subshells (the shells above this one), but a
#                         command beside it in a pipeline is, if it runs in
#                         DIR: give NAME, or call it alone.
#   none_in DIR [NAME]    true if procs_in DIR NAME lists nothing
#
# DIR is the test's own: $T or a directory under it (tap.sh makes $T with
# mktemp), so a test running beside another never sees the other's
# processes.  DIR is matched as written and as its physical path (pwd -P:
# what /proc/PID/cwd shows).

# _pi_esc S: S as an ERE in _pi_e (every character but letters, digits,
# "_" and "-" in brackets, the first "/" too, so that grep's own argument
# does not match it) and as a glob of find's -lname in _pi_g
_pi_esc() {
	_pi_s=$1 _pi_e="" _pi_g=""
	while [ -n "$_pi_s" ]; do
		_pi_r=${_pi_s#?}
		_pi_ch=${_pi_s%"$_pi_r"}
		_pi_s=$_pi_r
		case $_pi_ch in
		[A-Za-z0-9_-]) _pi_e=$_pi_e$_pi_ch ;;
		^) _pi_e="$_pi_e\\^" ;;
		*) _pi_e="${_pi_e}[$_pi_ch]" ;;
		esac
		case $_pi_ch in
		[][*?\\]) _pi_g="$_pi_g\\$_pi_ch" ;;
		*) _pi_g=$_pi_g$_pi_ch ;;
		esac
	done
}

procs_in() {
	_pi_dir=${1%/} _pi_name=${2:-}
	_pi_phys=$(cd "$_pi_dir" 2>/dev/null && pwd -P) || _pi_phys=$_pi_dir
	# the shells above us: this one (/proc/self, opened by the shell
	# itself for a builtin's redirection) and its parents
	_pi_up=" "
	_pi_st=
	{ read -r _pi_st </proc/self/stat; } 2>/dev/null
	_pi_p=${_pi_st%% *}
	while [ -n "$_pi_p" ] && [ "$_pi_p" -gt 1 ]; do
		_pi_up="$_pi_up$_pi_p "
		_pi_st=
		{ read -r _pi_st <"/proc/$_pi_p/stat"; } 2>/dev/null
		# after the last ")" (comm may hold anything): state, ppid
		# shellcheck disable=SC2086
		set -- ${_pi_st##*") "}
		_pi_p=${2:-}
	done
	# an argument DIR, DIR/..., or ...=DIR...; a working directory DIR or
	# under it (find runs after grep, and has ended before its own pid
	# could be looked at)
	_pi_esc "$_pi_dir"
	_pi_re=$_pi_e _pi_g1=$_pi_g
	_pi_esc "$_pi_phys"
	_pi_hit="$(grep -lzsE -- "(^|=)($_pi_re|$_pi_e)(/|\$)" /proc/[0-9]*/cmdline)
$(find /proc/[0-9]*/cwd -maxdepth 0 \( -lname "$_pi_g1" -o -lname "$_pi_g1/*" \
	-o -lname "$_pi_g1 (deleted)" -o -lname "$_pi_g" -o -lname "$_pi_g/*" \
	-o -lname "$_pi_g (deleted)" \) 2>/dev/null)"
	_pi_seen=" "
	for _pi_f in $_pi_hit; do
		_pi_f=${_pi_f#/proc/}
		_pi_f=${_pi_f%%/*}
		case $_pi_up$_pi_seen in *" $_pi_f "*) continue ;; esac
		_pi_seen="$_pi_seen$_pi_f "
		_pi_c=
		{ read -r _pi_c <"/proc/$_pi_f/comm"; } 2>/dev/null || continue
		[ -z "$_pi_name" ] || [ "$_pi_c" = "$_pi_name" ] || continue
		echo "$_pi_f"
	done
}

none_in() { [ -z "$(procs_in "$@")" ]; }
