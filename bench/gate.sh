#!/bin/sh
# gate.sh — the egress gate's own cost (abx-gate(1), lib/net/gate.h): N
# sequential curl GETs of a small page from tests/httpd.py on 127.0.0.1,
# through abx-gate --allow loopback, and the gate's CPU time (utime +
# stime of the gate process, every thread counted: /proc/PID/stat) before
# and after, divided by N.  The same N GETs straight to the server and
# through the gate give the wall time each, for scale (a curl's own start
# is most of either).  Environment: ABX_BENCH_GATE_N (500).
LC_ALL=C
export LC_ALL
top=$(cd "$(dirname "$0")/.." && pwd) || exit 1
n=${ABX_BENCH_GATE_N:-500}
[ -x "$top/bin/abx-gate" ] || {
	echo "gate: error: $top/bin/abx-gate is not built (run make)" >&2
	exit 69
}
command -v curl >/dev/null || {
	echo "gate: error: no curl" >&2
	exit 69
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/abx-bench-gate.XXXXXX") || exit 73
srv='' gate=''
trap 'exec 8>&-; [ -n "$gate" ] && kill "$gate"; [ -n "$srv" ] && kill "$srv"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

python3 "$top/tests/httpd.py" --port-file "$tmp/port" 2>"$tmp/httpd.err" &
srv=$!
mkfifo "$tmp/in"
"$top/bin/abx-gate" --allow loopback <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
gate=$!
exec 8>"$tmp/in"
i=0
while { [ ! -s "$tmp/port" ] || [ ! -s "$tmp/out" ]; } && [ "$i" -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
if [ ! -s "$tmp/port" ] || [ ! -s "$tmp/out" ]; then
	echo "gate: error: the server or the gate did not start: $(cat "$tmp/httpd.err" "$tmp/err")" >&2
	exit 70
fi
url="http://127.0.0.1:$(cat "$tmp/port")/site/style.css"
proxy="http://$(head -n 1 "$tmp/out")"
child=$(tr -d ' ' <"/proc/$gate/task/$gate/children")

# cpu PID: utime + stime in clock ticks (after the ")" that ends comm)
cpu() {
	read -r st <"/proc/$1/stat"
	# shellcheck disable=SC2086
	set -- ${st##*") "}
	echo $((${12} + ${13}))
}
# gets [CURL-ARGS]: n GETs of $url; the wall time in ms
gets() {
	t0=$(date +%s%N)
	i=0
	while [ "$i" -lt "$n" ]; do
		curl -s -o /dev/null "$@" "$url" || return 1
		i=$((i + 1))
	done
	echo $((($(date +%s%N) - t0) / 1000000))
}

direct=$(gets) || { echo "gate: error: a GET failed" >&2; exit 70; }
c0=$(cpu "$child")
via=$(gets -x "$proxy") || { echo "gate: error: a GET through the gate failed" >&2; exit 70; }
c1=$(cpu "$child")
hz=$(getconf CLK_TCK)
echo "gate: $n GETs, $direct ms straight, $via ms through the gate ($(((via - direct) * 1000 / n)) us more a GET)"
echo "gate: the gate's own CPU: $(((c1 - c0) * 1000000 / hz / n)) us a request ($((c1 - c0)) ticks of 1/$hz s for $n)"
