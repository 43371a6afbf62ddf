#!/bin/sh
# The egress gate (abx-gate(1), lib/net/gate.h): a forward proxy that lets a
# request through by the address it goes to.  Real servers on 127.0.0.1
# (tests/httpd.py, and a small one here that echoes what it got and
# redirects where it is told), real clients (curl -x, and curl
# --request-target for the spellings curl would rewrite).  No traffic leaves
# 127.0.0.0/8: the refused addresses are never connected to, and the name
# that does not resolve has a label too long to be asked of DNS.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"

command -v curl >/dev/null || { echo "1..0 # SKIP no curl"; exit 0; }
httpd_start || { echo "1..0 # SKIP the test server did not start"; exit 0; }

# the echo server: /echo answers the request head and body it got; /to?u=URL
# answers 302 to URL
cat >"$T/echo.py" <<'EOF'
import http.server, os, sys, urllib.parse
class H(http.server.BaseHTTPRequestHandler):
    def reply(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        q = urllib.parse.urlsplit(self.path)
        if q.path == "/to":
            self.send_response(302)
            self.send_header("Location", urllib.parse.parse_qs(q.query)["u"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        out = (self.requestline + "\n" + str(self.headers)).encode() + body
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    do_GET = do_POST = reply
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".new", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[1] + ".new", sys.argv[1])
s.serve_forever()
EOF
python3 "$T/echo.py" "$T/echo.port" 2>"$T/echo.stderr" &
wait_for 10 test -s "$T/echo.port" || { echo "1..0 # SKIP the echo server did not start"; exit 0; }
EP=$(cat "$T/echo.port")

# raw HOSTPORT TARGET [CURL-ARGS]: a request for TARGET as written (curl would
# rewrite it given as a URL) sent to the gate at HOSTPORT; what it answers
raw() {
	_g=$1 _t=$2; shift 2
	curl -s -i --path-as-is --request-target "$_t" "$@" "http://$_g/"
}

# gate_up NAME ARGS...: abx-gate ARGS in the background, its stdin a fifo
# held open by this shell on fd 8 (closed: the gate's end); its first
# listener in $G, its pid in $GP, its output in $T/NAME.out
gate_up() {
	_name=$1; shift
	rm -f "$T/$_name.in"
	mkfifo "$T/$_name.in"
	abx-gate "$@" <"$T/$_name.in" >"$T/$_name.out" 2>"$T/$_name.err" &
	GP=$!
	exec 8>"$T/$_name.in"
	wait_for 10 test -s "$T/$_name.out" || { diag "abx-gate did not start: $(cat "$T/$_name.err")"; return 1; }
	G=$(head -n 1 "$T/$_name.out")
}
gate_down() { exec 8>&-; wait "$GP"; }
# the pid of the gate itself, abx-gate's child
gate_child() { tr -d ' ' <"/proc/$1/task/$1/children"; }

expect_exit 64 "abx-gate --allow with no zone name is a usage error" abx-gate --allow intranet
expect_exit 64 "abx-gate takes no operands" abx-gate x
expect_exit 64 "abx-gate --listen 0 is a usage error" abx-gate --listen 0

# --- loopback allowed
gate_up open --allow loopback --listen 2 || exit 1
is "$(grep -c '^127\.0\.0\.1:[0-9]*$' "$T/open.out")" 2 "--listen 2: one 127.0.0.1:PORT line a listener"
out=$(curl -s -x "http://$G" "$BASE/site/")
like "$out" "<title>abx test site</title>" "a GET through the gate, loopback allowed"
out=$(curl -s -x "http://$G" -H 'Proxy-Authorization: Basic eDp5' -H 'Connection: keep-alive, X-Hop' \
	-H 'X-Hop: 1' -H 'X-Kept: 2' --data-binary 'the body, relayed' "http://127.0.0.1:$EP/echo?q=1")
like "$out" "^POST /echo\?q=1 HTTP/1.1" "the request line goes to the server in origin form"
like "$out" "the body, relayed\$" "a POST body is relayed"
like "$out" "X-Kept: 2" "an end-to-end header is kept"
is "$(printf '%s\n' "$out" | grep -ciE '^(proxy-authorization|x-hop|keep-alive):')" 0 \
	"Proxy-* headers and the ones Connection names are dropped"
like "$out" "Connection: close" "the server is sent Connection: close"
out=$(curl -s -p -x "http://$G" "$BASE/site/page1.html")
like "$out" "<title>Page 1</title>" "CONNECT to an allowed 127.0.0.1 port relays bytes both ways"
big=$(curl -s -x "http://$G" "$BASE/big" | wc -c)
ok "a 5 MB answer comes through whole ($big bytes)" test "$big" -gt 5000000
L=$(printf 'a%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 \
	33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64)
out=$(curl -s -i -x "http://$G" "http://$L.test/")
like "$out" "^HTTP/1.1 502" "a name that does not resolve: 502"
like "$out" "does not resolve" "... saying so"
like "$(raw "$G" /site/)" "^HTTP/1.1 400" "a request to the gate itself (origin form): 400"
like "$(raw "$G" ftp://127.0.0.1/)" "^HTTP/1.1 501" "a scheme other than http: 501"
long=$(head -c 70000 /dev/zero | tr '\0' y)
like "$(raw "$G" "$BASE/" -H "X-Long: $long")" "^HTTP/1.1 431" "a head over 64 KiB: 431"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups curl -s -i -x "http://$G" "$BASE/site/")
	like "$out" "X-Abx-Gate: refused uid" "a client of another uid is refused"
else
	pass "# SKIP a client of another uid: not root, or no setpriv"
fi
gc=$(gate_child "$GP")
ok "the gate is abx-gate's child ($gc)" test -n "$gc"
fds=$(find "/proc/$gc/fd" -mindepth 1 ! -name 0 ! -name 1 ! -name 2 | wc -l)
is "$fds" 3 "the gate keeps open its 2 listeners and its log, nothing else (besides stdio)"
is "$(readlink "/proc/$gc/fd/1")" /dev/null "... its stdout is /dev/null"
is "$(find "/proc/$gc/fd" -lname 'socket:*' | wc -l)$(find "/proc/$gc/fd" -lname '/memfd:*' | wc -l)" 21 \
	"... two sockets and a memfd"
kill -9 "$GP"
wait "$GP" 2>/dev/null
exec 8>&-
ok "the gate ends when its parent is killed (SIGKILL)" wait_for 10 test ! -e "/proc/$gc/stat"

# --- loopback not allowed
gate_up shut --page "http://127.0.0.1:$EP/to?u=http://10.0.0.1/secret" || exit 1
out=$(curl -s -i -x "http://$G" "$BASE/site/")
like "$out" "^HTTP/1.1 403 Forbidden" "loopback not allowed: 403"
like "$out" "X-Abx-Gate: refused zone=loopback" "... with X-Abx-Gate naming the zone"
like "$out" "abx-gate refused $BASE/site/: 127.0.0.1 \(of 127.0.0.1\) is in the loopback network zone, which this crawl may not enter" \
	"... and a body naming the URL, the address and the zone"
wait_for 5 grep -q '"url":"'"$BASE"'/site/"' "$T/shut.out"
like "$(grep -F "$BASE/site/" "$T/shut.out")" \
	'^\{"listener":0,"url":"http://127.0.0.1:[0-9]+/site/","host":"127.0.0.1","address":"127.0.0.1","zone":"loopback","page":false\}$' \
	"the refusal is logged"
out=$(curl -s -i -p -x "http://$G" "$BASE/site/")
like "$out" "refused zone=loopback" "a CONNECT to loopback is refused"
wait_for 5 grep -q '"url":"127.0.0.1:'"$HTTPD_PORT"'"' "$T/shut.out"
ok "... and logged as host:port" grep -q '"url":"127.0.0.1:'"$HTTPD_PORT"'"' "$T/shut.out"
n=0
for h in 127.1 2130706433 0x7f000001 127.0.0.1. 0177.0.0.1 '[::1]' '[::ffff:127.0.0.1]' '[::ffff:7f00:1]' \
	'[::7f00:1]' '[0:0:0:0:0:ffff:127.0.0.1]' '[64:ff9b::7f00:1]' '[2002:7f00:1::]' localhost localhost. \
	a.localhost LOCALHOST; do
	out=$(raw "$G" "http://$h:$HTTPD_PORT/site/")
	case $out in
	"HTTP/1.1 403 Forbidden"*) n=$((n + 1)) ;;
	*) diag "$h: $(printf '%s' "$out" | head -n 1)" ;;
	esac
done
is "$n" 16 "every spelling of loopback is refused (16 of 16)"
out=$(curl -s -i -x "http://$G" "http://127.0.0.1:$EP/to?u=http://10.0.0.1/secret")
like "$out" "^HTTP/1.1 403" "the page's own URL is refused too"
wait_for 5 grep -q '"url":"http://127.0.0.1:'"$EP"'/to' "$T/shut.out"
like "$(grep -F 10.0.0.1 "$T/shut.out" | grep -F '"url":"http://127.0.0.1:')" '"page":true' \
	"... as the page's"
gate_down
gate_up chain --allow loopback --page "http://127.0.0.1:$EP/to?u=http://10.0.0.1/secret" || exit 1
out=$(curl -s -i -L -x "http://$G" "http://127.0.0.1:$EP/to?u=http://10.0.0.1/secret")
like "$out" "refused zone=private" "the page redirects to a private address: refused"
wait_for 5 grep -q 10.0.0.1 "$T/chain.out"
like "$(cat "$T/chain.out")" '"url":"http://10.0.0.1/secret","host":"10.0.0.1","address":"10.0.0.1","zone":"private","page":true' \
	"a refusal in the page's redirect chain is the page's"
curl -s -x "http://$G" "http://10.0.0.2/other" >/dev/null
wait_for 5 grep -q 10.0.0.2 "$T/chain.out"
like "$(grep 10.0.0.2 "$T/chain.out")" '"page":false' "a refusal outside the chain is not"
gate_down
is "$?" 0 "abx-gate ends at the end of its stdin, exit 0"
gate_up tls --page "https://127.0.0.1:$HTTPD_PORT/x" || exit 1
curl -s -p -x "http://$G" "http://127.0.0.1:$HTTPD_PORT/y" >/dev/null
wait_for 5 grep -q zone "$T/tls.out"
like "$(cat "$T/tls.out")" '"url":"127.0.0.1:'"$HTTPD_PORT"'".*"page":true' \
	"a CONNECT to the host:port of an https page is the page's"
gate_down
done_testing
