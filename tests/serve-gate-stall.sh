#!/bin/sh
# A kept gate (gatekeep.c) ending a snapshot whose relay is blocked
# sending to a server that stopped reading (gate.c, gate_ctx_drop): the
# server's connection is reset at once, so the relay wakes and gives the
# host's pacing slot back, and the next snapshot's fetch from that host
# is served without waiting for the relay's 120 s send timeout.
#
# Snapshot A (loopback allowed, 1 connection a host, paced on $T/d) has
# a CONNECT tunnel to a server on 127.0.0.1 that accepts and never reads;
# its client uploads until nothing moves for a second (the gate's relay
# is then blocked in send(2)).  A ends; snapshot C (the same rules)
# fetches from the test's HTTP server, also on 127.0.0.1, so it needs
# the slot A's tunnel held.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
httpd_start --log "$T/requests.log" || exit 1
ABX_TEST_LIB=$TOP/tests/lib
export ABX_TEST_LIB
mkdir -p "$T/d/locks"
chmod 700 "$T/d/locks"

cat >"$T/drive.py" <<'EOF'
import errno, os, socket, sys, threading, time
sys.path.insert(0, os.environ["ABX_TEST_LIB"])
from keptgate import KeptGate, fetch, tunnel  # noqa: E402

port, data, out = int(sys.argv[1]), sys.argv[2], open(sys.argv[3], "w")
kg = KeptGate(port, data)

def say(k, v):
    out.write("%s %s\n" % (k, v))
    out.flush()

# the server that stops reading: small buffers, so that it fills at once
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
ls.bind(("127.0.0.1", 0))
ls.listen(1)
sport = ls.getsockname()[1]

got, pa, la = kg.begin(3, "", 1)
say("a.begin", got)
c, st = tunnel(pa[0], sport)
say("a.tunnel", st)
ls.settimeout(30)
srv, _ = ls.accept()

sent = [0]
def upload():
    chunk = b"x" * 65536
    try:
        while sent[0] < 256 << 20:
            sent[0] += c.send(chunk)
    except OSError:
        pass
threading.Thread(target=upload, daemon=True).start()
last, still = -1, time.time()
end_by = time.time() + 60
while time.time() < end_by:
    time.sleep(0.1)
    if sent[0] != last:
        last, still = sent[0], time.time()
    elif time.time() - still >= 1.0:
        break
say("a.stalled", "yes" if 0 < sent[0] < 256 << 20 else "no:%d" % sent[0])

say("a.end", kg.end())
t0 = time.time()
err = 0
while time.time() - t0 < 60:
    err = srv.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if err:
        break
    time.sleep(0.05)
say("a.server", errno.errorcode.get(err, str(err)) if err else "not reset in 60 s")

got, pc, lc = kg.begin(3, "", 1)
say("c.begin", got)
r = [None]
th = threading.Thread(target=lambda: r.__setitem__(0, fetch(pc[0], kg.base + "/site/?c-after-stall")),
                      daemon=True)
th.start()
th.join(60)
say("c.fetch", r[0] if r[0] else "no answer in 60 s")
say("c.end", kg.end())
c.close()
srv.close()
say("exit", kg.close())
EOF

timeout 300 python3 "$T/drive.py" "$HTTPD_PORT" "$T/d" "$T/out" 2>"$T/drive.err"
is "$?" 0 "the driver ran to its end"
[ -s "$T/drive.err" ] && diag "$(head -c 2000 "$T/drive.err")"
got() { sed -n "s/^$1 //p" "$T/out"; }

is "$(got a.begin)" "0|" "A: the kept gate took its rules"
is "$(got a.tunnel)" "HTTP/1.1 200 Connection established" "A: a tunnel to the server that stops reading"
is "$(got a.stalled)" yes "A: the upload through it stalled"
is "$(got a.end)" "0|" "A's end is answered"
is "$(got a.server)" ECONNRESET "the stalled server's connection was reset at A's end"
is "$(got c.begin)" "0|" "C: the kept gate took its rules"
is "$(got c.fetch)" 200 "C: a fetch from the same host is served (the stalled relay gave its slot back)"
ok "the origin saw C's fetch" grep -q 'c-after-stall' "$T/requests.log"
is "$(got c.end)" "0|" "C's end is answered"
is "$(got exit)" 0 "the kept gate exits 0 at the end of its control socket"
done_testing
