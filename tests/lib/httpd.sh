# httpd.sh — start and stop tests/httpd.py from a shell test; source it after tap.sh.
# shellcheck shell=sh
#
#   . "$(dirname "$0")/lib/tap.sh"
#   . "$(dirname "$0")/lib/httpd.sh"
#   httpd_start --log "$T/requests.log"      # or --root DIR, --pages N, --latency-ms N
#   curl -s "$BASE/site/"
#   httpd_stop                               # also done by tap.sh's cleanup (kill of jobs)
#
# httpd_start runs the server in the background, waits (up to 30 s) for its
# port file and exports HTTPD_PORT, HTTPD_PID and BASE=http://127.0.0.1:PORT.
# It returns 1 if the server did not come up; the server's stderr is in
# $T/httpd.stderr.  One server per test script (a second start stops the first).

httpd_start() {
	[ -n "${HTTPD_PID:-}" ] && httpd_stop
	_httpd_pf="$T/httpd.port"
	rm -f "$_httpd_pf"
	python3 "$TOP/tests/httpd.py" --port-file "$_httpd_pf" "$@" 2>"$T/httpd.stderr" &
	HTTPD_PID=$!
	_httpd_end=$(( $(date +%s) + 30 ))
	while [ ! -s "$_httpd_pf" ]; do
		if ! kill -0 "$HTTPD_PID" 2>/dev/null || [ "$(date +%s)" -ge "$_httpd_end" ]; then
			echo "# httpd did not start: $(head -c 400 "$T/httpd.stderr")"
			HTTPD_PID=
			return 1
		fi
		sleep 0.02
	done
	HTTPD_PORT=$(cat "$_httpd_pf")
	BASE="http://127.0.0.1:$HTTPD_PORT"
	export HTTPD_PORT HTTPD_PID BASE
}

httpd_stop() {
	if [ -n "${HTTPD_PID:-}" ]; then
		kill "$HTTPD_PID" 2>/dev/null
		wait "$HTTPD_PID" 2>/dev/null
	fi
	HTTPD_PID=
	return 0
}
