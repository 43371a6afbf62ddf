# tap.sh — TAP helpers for the shell tests; source it from tests/*.sh.
#
#   . "$(dirname "$0")/lib/tap.sh"
#   plan 3        (optional: done_testing prints the plan if not given)
#   ok "abx-add queues a crawl" test -s "$D/crawls.jsonl"
#   is "$(abx-ls -d "$D" | wc -l)" 2 "two records"
#   expect_exit 65 "bad url" abx-add -d "$D" 'not a url'
#
# Every test gets a fresh data directory in $T (removed at exit) and the
# freshly built tools first on PATH: $ABX_TEST_BIN (make check: the
# sanitizer build's, build/asan/bin), else bin/.  $SHARE is the share/
# directory those tools use (build/asan/share under make check).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${ABX_TEST_BIN:-$TOP/bin}
SHARE=${ABX_TEST_SHARE:-$TOP/share}
PATH="$BIN:$PATH"
export PATH TOP BIN SHARE
T=$(mktemp -d "${TMPDIR:-/tmp}/abx-test.XXXXXX")
export T
unset ABX_DIR ABX_NOW ABX_TEST_FAULT ABX_PLUGINS_DIR
_n=0
_failed=0
cleanup() {
	# kill anything a test left in the background (jobs must run in this
	# shell, not in a pipeline's subshell, to see the jobs)
	jobs -p >"$T/.jobs" 2>/dev/null
	xargs -r kill -9 <"$T/.jobs" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

_planned=0
# plan N: announce N tests up front; without it, done_testing prints the plan
plan() { _planned=1; echo "1..$1"; }
pass() { _n=$((_n + 1)); echo "ok $_n - $1"; }
# a failure and its diagnostics also go to stderr, which prove shows
# without -v: a CI log then says what failed and why, not only its number
fail() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $1"; echo "# not ok $_n - $1" >&2; }
diag() { printf '# %s\n' "$@" >&2; }

# ok DESC CMD...: passes if CMD exits 0
ok() {
	_d=$1; shift
	if "$@"; then pass "$_d"; else fail "$_d"; diag "command failed: $*"; fi
}
# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then pass "$3"; else fail "$3"; diag "got:  '$1'" "want: '$2'"; fi
}
# expect_exit CODE DESC CMD...: passes if CMD exits CODE; its stderr is in $T/stderr
expect_exit() {
	_c=$1 _d=$2; shift 2
	"$@" >"$T/stdout" 2>"$T/stderr"
	_rc=$?
	if [ "$_rc" -eq "$_c" ]; then pass "$_d"; else
		fail "$_d"; diag "exit $_rc, want $_c: $*"; diag "stderr: $(head -c 600 "$T/stderr")"; fi
}
# like TEXT REGEX DESC (grep -E)
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then pass "$3"; else fail "$3"; diag "no match for /$2/ in: $(printf '%s' "$1" | head -c 600)"; fi
}
# wait_for SECONDS CMD...: poll CMD every 0.05 s
wait_for() {
	_t=$1; shift
	_end=$(( $(date +%s) + _t ))
	while ! "$@" 2>/dev/null; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep 0.05
	done
}
done_testing() {
	[ "$_planned" -eq 1 ] || echo "1..$_n"
	[ "$_failed" -eq 0 ]
}
