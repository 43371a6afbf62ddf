#!/bin/sh
# A kept gate (gate.h "Kept", gatekeep.c) switching snapshots: what a
# client of snapshot A holds open across the switch is cut and carries
# nothing more, under nobody's rules.
#
# The test is the worker's side of `abx-gate --kept` (gatekeep.c's
# control protocol, spoken by a python driver: its control socket as fd
# 3, "begin" with fresh listeners and a refusal log, "end"), and three
# snapshots one after the other:
#   A  loopback allowed, paced (4 connections a host, on $T/d), page
#      http://0.0.0.0:9/page-a
#   B  loopback refused, page $BASE/site/?page-b; begun after A's "end"
#   C  loopback allowed, paced (1 connection a host, on $T/d); begun with
#      no "end" of B before
# Held across A's end, each begun before it: an idle proxy connection
# (h1), a plain request whose head is not finished (h2), a CONNECT tunnel
# with nothing in it (h3), one with half a request in it (h4: the client
# spoke last, so the tunnel never yields its pacing slot), a request whose
# answer is still on its way (h5: /slow), an idle connection that later
# asks for a refused address (h6); across B's end, an idle connection
# (h7).  After the next snapshot began, each sends (the rest of) a
# request: no byte comes back, the origin logs none of them, and no
# refusal log (A's, B's or C's) gains a line.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
httpd_start --log "$T/requests.log" || exit 1
ABX_TEST_LIB=$TOP/tests/lib   # heldconn.py, for the drivers below
export ABX_TEST_LIB
mkdir -p "$T/d/locks"
chmod 700 "$T/d/locks"

cat >"$T/drive.py" <<'EOF'
import os, sys, time
sys.path.insert(0, os.environ["ABX_TEST_LIB"])
from heldconn import after  # noqa: E402
from keptgate import KeptGate, connect, fetch, logof, refused, tunnel  # noqa: E402

port, data, out = int(sys.argv[1]), sys.argv[2], open(sys.argv[3], "w")
reqlog = sys.argv[4]
kg = KeptGate(port, data)
base, begin, end = kg.base, kg.begin, kg.end

def say(k, v):
    out.write("%s %s\n" % (k, v))
    out.flush()

say("gate", kg.gate.pid)

def logged(path, word):
    try:
        return any(word in l for l in open(path))
    except OSError:
        return False

# --- snapshot A
got, pa, la = begin(3, "http://0.0.0.0:9/page-a", 4)
say("a.begin", got)
# h4 first: its tunnel holds the host's first pacing slot, the one C's
# single connection a host needs, and never yields it (its client spoke
# last)
h4, st4 = tunnel(pa[0], port, b"GET /site/?h4-after HTTP/1.0\r\n")
say("h4.tunnel", st4)
say("a.ok", fetch(pa[1], base + "/site/?a-ok"))
say("a.page", fetch(pa[1], "http://0.0.0.0:9/page-a"))
h1 = connect(pa[0])
h2 = connect(pa[0])
h2.sendall(("GET %s/site/?h2-after HTTP/1.1\r\nHost: x\r\n" % base).encode())
h3, st3 = tunnel(pa[0], port)
say("h3.tunnel", st3)
h5 = connect(pa[0])
h5.sendall(("GET %s/slow?s=4&h5 HTTP/1.1\r\nHost: x\r\n\r\n" % base).encode())
h6 = connect(pa[0])
# served after h1..h6 were taken (one accept queue): they are the gate's
say("a.last", fetch(pa[0], base + "/site/?a-last"))
end_by = time.time() + 30
while not logged(reqlog, "h5") and time.time() < end_by:
    time.sleep(0.05)
say("h5.arrived", "yes" if logged(reqlog, "h5") else "no")
a_log = logof(la)
say("a.end", end())
say("a.ports", " ".join(refused(p) for p in pa))

# --- snapshot B
got, pb, lb = begin(1, base + "/site/?page-b", 0)
say("b.begin", got)
say("h1", after(h1, ("GET %s/site/?h1-after HTTP/1.1\r\nHost: x\r\n\r\n" % base).encode()))
say("h2", after(h2, b"\r\n"))
say("h3", after(h3, b"GET /site/?h3-after HTTP/1.0\r\n\r\n"))
say("h4", after(h4, b"\r\n"))
say("h5", after(h5, b""))
say("h6", after(h6, b"GET http://0.0.0.0:9/h6-after HTTP/1.1\r\nHost: x\r\n\r\n"))
say("a.log.same", "yes" if logof(la) == a_log else "no")
say("b.loopback", fetch(pb[0], base + "/site/?b-refused"))
say("b.page", fetch(pb[1], base + "/site/?page-b"))
say("b.apage", fetch(pb[1], "http://0.0.0.0:9/page-a"))
h7 = connect(pb[0])
say("b.last", fetch(pb[0], "http://0.0.0.0:9/b-last"))
b_log = logof(lb)

# --- snapshot C, begun with no end of B
got, pc, lc = begin(3, "", 1)
say("c.begin", got)
say("b.ports", " ".join(refused(p) for p in pb))
say("h7", after(h7, ("GET %s/site/?h7-after HTTP/1.1\r\nHost: x\r\n\r\n" % base).encode()))
say("b.log.same", "yes" if logof(lb) == b_log else "no")
say("c.ok", fetch(pc[0], base + "/site/?c-ok"))
say("c.refused", fetch(pc[1], "http://0.0.0.0:9/c"))
say("c.end", end())
say("c.ports", " ".join(refused(p) for p in pc))

for k, fd in (("a", la), ("b", lb), ("c", lc)):
    for i, l in enumerate(logof(fd).splitlines()):
        say("%s.log%d" % (k, i), l)

say("exit", kg.close())
EOF

timeout 300 python3 "$T/drive.py" "$HTTPD_PORT" "$T/d" "$T/out" "$T/requests.log" 2>"$T/drive.err"
is "$?" 0 "the driver ran to its end"
[ -s "$T/drive.err" ] && diag "$(head -c 2000 "$T/drive.err")"
got() { sed -n "s/^$1 //p" "$T/out"; }

is "$(got a.begin)" "0|" "A: the kept gate took its rules"
is "$(got a.ok)" 200 "A: a fetch through its gate is served"
is "$(got a.page)" 403 "A: its page's fetch of 0.0.0.0 is refused"
is "$(got h3.tunnel)" "HTTP/1.1 200 Connection established" "A: a tunnel is open (h3)"
is "$(got h4.tunnel)" "HTTP/1.1 200 Connection established" "A: a tunnel with half a request in it is open (h4)"
is "$(got a.last)" 200 "A: served after the held connections were taken"
is "$(got h5.arrived)" yes "A: the slow request reached the origin before A's end (h5)"
is "$(got a.end)" "0|" "A's end is answered"
is "$(got a.ports)" "refused refused" "A's ports refuse a new connection after its end"
is "$(got b.begin)" "0|" "B: the kept gate took its rules"

is "$(got h1)" none "an idle connection of A asked after the switch: no answer (h1)"
is "$(got h2)" none "a request of A finished after the switch: no answer (h2)"
is "$(got h3)" none "a request in A's empty tunnel after the switch: no answer (h3)"
is "$(got h4)" none "a request of A's tunnel finished after the switch: no answer (h4)"
is "$(got h5)" none "the answer to A's slow request does not reach its client (h5)"
is "$(got h6)" none "a refused address asked on A's connection after the switch: no answer (h6)"
for h in h1 h2 h3 h4; do
	ok "the origin saw no request of $h" sh -c "! grep -q '$h-after' '$T/requests.log'"
done
is "$(got a.log.same)" yes "A's refusal log gained nothing after its end"

is "$(got b.loopback)" 403 "B: loopback is refused (its zones, not A's)"
is "$(got b.page)" 403 "B: its page is refused"
is "$(got b.apage)" 403 "B: A's page is refused"
is "$(got b.log0)" "{\"listener\":0,\"url\":\"$BASE/site/?b-refused\",\"host\":\"127.0.0.1\",\"address\":\"127.0.0.1\",\"zone\":\"loopback\",\"page\":false}" \
	"B's log: the loopback refusal"
is "$(got b.log1)" "{\"listener\":1,\"url\":\"$BASE/site/?page-b\",\"host\":\"127.0.0.1\",\"address\":\"127.0.0.1\",\"zone\":\"loopback\",\"page\":true}" \
	"B's log: its page's refusal, the page's"
is "$(got b.log2)" '{"listener":1,"url":"http://0.0.0.0:9/page-a","host":"0.0.0.0","address":"0.0.0.0","zone":"unspecified","page":false}' \
	"B's log: A's page, not B's page"
is "$(got b.log3)" '{"listener":0,"url":"http://0.0.0.0:9/b-last","host":"0.0.0.0","address":"0.0.0.0","zone":"unspecified","page":false}' \
	"B's log: its last refusal"
is "$(got b.log4)" "" "B's log holds only B's refusals"
is "$(got a.log0)" '{"listener":1,"url":"http://0.0.0.0:9/page-a","host":"0.0.0.0","address":"0.0.0.0","zone":"unspecified","page":true}' \
	"A's log: its page's refusal"
is "$(got a.log1)" "" "A's log holds only A's refusal (none of h6's)"

is "$(got c.begin)" "0|" "C: begun with no end of B"
is "$(got b.ports)" "refused refused" "B's ports refuse a new connection once C began"
is "$(got h7)" none "an idle connection of B asked after C began: no answer (h7)"
ok "the origin saw no request of h7" sh -c "! grep -q 'h7-after' '$T/requests.log'"
is "$(got b.log.same)" yes "B's refusal log gained nothing after C began"
is "$(got c.ok)" 200 "C: served with 1 connection a host (A's held tunnel gave its slot back)"
is "$(got c.refused)" 403 "C: 0.0.0.0 is refused"
is "$(got c.log0)" '{"listener":1,"url":"http://0.0.0.0:9/c","host":"0.0.0.0","address":"0.0.0.0","zone":"unspecified","page":false}' \
	"C's log: its refusal"
is "$(got c.log1)" "" "C's log holds only C's refusal"
is "$(got c.end)" "0|" "C's end is answered"
is "$(got c.ports)" "refused refused" "C's ports refuse a new connection after its end"
is "$(got exit)" 0 "the kept gate exits 0 at the end of its control socket"
for w in a-ok a-last h5 c-ok; do
	ok "the origin saw $w" grep -q "$w" "$T/requests.log"
done
is "$(grep -c 'page-b\|b-refused' "$T/requests.log")" 0 "the origin saw nothing of B's refused fetches"

# The same through a serving worker (abx-hook --serve, one slot: one
# worker, one kept gate for its snapshots).  The sw plugin's first run
# leaves a holder for the worker's later snapshots (ABX_KEPT=$ABX_WORKER,
# as a kept browser is left: phase.h), which opens a CONNECT tunnel through
# the run's gate with half a request in it and an idle proxy connection;
# the second run, on the same kept gate, lets it finish both: nothing
# comes back, and the origin sees neither.
cat >"$T/holder.py" <<'EOF'
import os, socket, sys, time
sys.path.insert(0, os.environ["ABX_TEST_LIB"])
from heldconn import after  # noqa: E402
gate, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
host, gport = gate.rsplit(":", 1)
t = socket.create_connection((host, int(gport)), timeout=30)
t.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (port, port))
b = b""
while b"\r\n\r\n" not in b:
    k = t.recv(4096)
    if not k:
        break
    b += k
t.sendall(b"GET /site/?held-tunnel HTTP/1.0\r\n")
i = socket.create_connection((host, int(gport)), timeout=30)
with open(out + ".ready.tmp", "w") as f:
    f.write(b.split(b"\r\n")[0].decode(errors="replace") + "\n")
os.rename(out + ".ready.tmp", out + ".ready")
end = time.time() + 120
while not os.path.exists(out + ".go") and time.time() < end:
    time.sleep(0.05)


r = "%s %s" % (after(t, b"\r\n"),
               after(i, b"GET http://127.0.0.1:%d/site/?held-idle HTTP/1.1\r\nHost: x\r\n\r\n" % port))
with open(out + ".result.tmp", "w") as f:
    f.write(r + "\n")
os.rename(out + ".result.tmp", out + ".result")
EOF
mkdir -p "$T/plugins/sw"
cat >"$T/plugins/sw/on_Snapshot__20_sw.sh" <<'EOF'
#!/bin/sh
gate=-
for c in $(cat /proc/$PPID/task/*/children); do
	case $(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null) in
	*abx-gate\ --kept*) gate=$c ;;
	esac
done
waitfile() {
	n=0
	while [ ! -e "$1" ] && [ "$n" -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
}
if [ ! -e "$ABX_TEST_SW.ready" ]; then
	ABX_KEPT=$ABX_WORKER setsid python3 "$ABX_TEST_HOLDER" "$ABX_GATE" "$ABX_TEST_PORT" "$ABX_TEST_SW" \
		</dev/null >/dev/null 2>"$ABX_TEST_SW.err" &
	waitfile "$ABX_TEST_SW.ready"
	echo "1 $gate ${ABX_GATE#127.0.0.1:} $(cat "$ABX_TEST_SW.ready" 2>/dev/null)" >>"$ABX_TEST_SW"
else
	: >"$ABX_TEST_SW.go"
	waitfile "$ABX_TEST_SW.result"
	echo "2 $gate ${ABX_GATE#127.0.0.1:} $(cat "$ABX_TEST_SW.result" 2>/dev/null)" >>"$ABX_TEST_SW"
fi
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"noted"}'
EOF
chmod +x "$T/plugins/sw/on_Snapshot__20_sw.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR
printf '%s\n' "$BASE/site/?p=1" "$BASE/site/?p=2" >"$T/swurls"
abx-add -d "$T/w" --plugins sw --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 <"$T/swurls" >/dev/null
ABX_TEST_SW=$T/sw ABX_TEST_HOLDER=$T/holder.py ABX_TEST_PORT=$HTTPD_PORT \
	timeout 300 abx-tick -d "$T/w" >"$T/swtick.out" 2>"$T/swtick.err"
is "$?" 0 "the worker's tick exits 0"
[ -s "$T/sw.err" ] && diag "holder: $(head -c 1000 "$T/sw.err")"
swcol() { awk -v r="$1" -v c="$2" '$1 == r { print $c }' "$T/sw"; }
is "$(sed -n 's/^1 [^ ]* [^ ]* //p' "$T/sw")" "HTTP/1.1 200 Connection established" \
	"the first snapshot's holder opened a tunnel through its gate"
ok "both snapshots ran on one kept gate" test "$(swcol 1 2)" = "$(swcol 2 2)" -a "$(swcol 1 2)" != -
ok "each had ports of its own" test "$(swcol 1 3)" != "$(swcol 2 3)"
is "$(swcol 2 4) $(swcol 2 5)" "none none" \
	"the held tunnel and idle connection carried nothing in the second snapshot"
ok "the origin saw neither held request" sh -c "! grep -q 'held-' '$T/requests.log'"

done_testing
