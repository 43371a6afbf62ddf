#!/bin/sh
# abx-tick's serving workers (abx-hook --serve, WORKER_MAX_SNAPSHOTS): a
# depth-2 crawl of the test site at 2 slots seals every page with the same
# results as one-shot workers (WORKER_MAX_SNAPSHOTS=0), while starting
# about two abx-hook processes, not one a page; WORKER_MAX_SNAPSHOTS=3
# replaces them every 3 snapshots; a bad request to abx-hook --serve gets
# an end line and no run; a snapshot it ran gets an end line that says the
# bytes under its directory (the size the tick counts and seals).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/tick-lib.sh"
httpd_start || exit 1
P=wget,title,parse_html_urls,ppid

# the ppid plugin: each run appends its worker's pid and command line to
# $ABX_TEST_PPIDS (a hook's parent is its worker: abx-hook)
mkdir -p "$T/plugins/ppid"
cat >"$T/plugins/ppid/on_Snapshot__20_ppid.sh" <<'EOF'
#!/bin/sh
echo "$PPID $(tr '\0' ' ' </proc/$PPID/cmdline)" >>"$ABX_TEST_PPIDS"
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"noted"}'
EOF
chmod +x "$T/plugins/ppid/on_Snapshot__20_ppid.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

# results DIR: "DEPTH URL PLUGIN HOOK STATUS" of every snapshot, sorted
results() {
	for _s in $(abx-ls -d "$1" -k snapshot --jsonl | jq -r .id); do
		_sd=$(snapdir "$1" "$_s")
		_u=$(abx-ls -d "$1" "$_s" | jq -r '"\(.depth) \(.url)"')
		jq -r 'select(.type == "ArchiveResult") | "\(.plugin) \(.hook_name) \(.status)"' "$_sd/index.jsonl" |
			sed "s|^|$_u |"
	done | sort
}
# workers FILE: how many workers ran the ppid hooks listed in FILE
workers() { awk '{ print $1 }' "$1" | sort -u | wc -l | tr -d ' '; }

# one-shot workers: the reference
abx-add -d "$T/one" --depth 2 --plugins $P --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 "$BASE/site/" >/dev/null
WORKER_MAX_SNAPSHOTS=0 ABX_TEST_PPIDS=$T/one.pp abx-tick -d "$T/one" >"$T/one.out" 2>"$T/one.err"
is "$?" 0 "one-shot workers: abx-tick exits 0"
is "$(nsnap "$T/one" sealed)" 10 "one-shot workers: every page within two links sealed"
is "$(workers "$T/one.pp")" 10 "one-shot workers: one abx-hook a page"

# serving workers (the default)
abx-add -d "$T/srv" --depth 2 --plugins $P --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=2 "$BASE/site/" >/dev/null
ABX_TEST_PPIDS=$T/srv.pp abx-tick -d "$T/srv" >"$T/srv.out" 2>"$T/srv.err"
is "$?" 0 "serving workers: abx-tick exits 0"
is "$(cat "$T/srv.err")" "" "and says nothing on stderr"
reachable "$BASE/site/" 2 >"$T/want"
is "$(snapshots "$T/srv" sealed)" "$(cat "$T/want")" "serving workers: every page within two links sealed"
is "$(nsnap "$T/srv")" 10 "and no other snapshot"
is "$(results "$T/srv")" "$(results "$T/one")" "the same results as one-shot workers"
ok "each snapshot's index.jsonl has one result per hook" all_results_once "$T/srv"
is "$(wc -l <"$T/srv.pp" | tr -d ' ')" 10 "the ppid hook ran once a page"
n=$(workers "$T/srv.pp")
ok "serving workers: $n abx-hook processes for 10 pages at 2 slots" test "$n" -ge 1 -a "$n" -le 3
is "$(grep -c ' --serve $' "$T/srv.pp")" 10 "each of them abx-hook --serve"

# WORKER_MAX_SNAPSHOTS=3: replaced every 3 snapshots
abx-add -d "$T/three" --depth 2 --plugins $P --config CRAWL_MAX_CONCURRENT_SNAPSHOTS=1 \
	--config WORKER_MAX_SNAPSHOTS=3 "$BASE/site/" >/dev/null
ABX_TEST_PPIDS=$T/three.pp abx-tick -d "$T/three" >/dev/null 2>"$T/three.err"
is "$?" 0 "WORKER_MAX_SNAPSHOTS=3: abx-tick exits 0"
is "$(nsnap "$T/three" sealed)" 10 "every page sealed"
is "$(workers "$T/three.pp")" 4 "by 4 workers at 1 slot (3, 3, 3 and 1 snapshots)"
WORKER_MAX_SNAPSHOTS=x expect_exit 78 "WORKER_MAX_SNAPSHOTS=x is refused" abx-tick -d "$T/three" -n

# --serve by hand: a request that is not one, and one without its lease
S=$(abx-ls -d "$T/srv" -k snapshot --jsonl | jq -r .id | head -1)
printf 'nonsense\n' | abx-hook -d "$T/srv" --serve >"$T/bad.out" 2>"$T/bad.err"
is "$?" 74 "abx-hook --serve on a pipe (not a SOCK_SEQPACKET socket) exits 74"
expect_exit 64 "abx-hook --serve ID is a usage error" abx-hook -d "$T/srv" --serve "$S"
python3 - "$(command -v abx-hook)" "$T/srv" "$S" >"$T/py.out" 2>"$T/py.err" <<'PY'
import socket, subprocess, sys, json
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen([sys.argv[1], "-d", sys.argv[2], "--serve"], stdin=b, stdout=subprocess.PIPE)
b.close()
a.send(b"bad")
a.send(("%s\t\t0\t" % sys.argv[3]).encode())   # no lease attached
a.close()
out = p.stdout.read().decode()
print(out, end="")
sys.exit(p.wait())
PY
is "$?" 0 "abx-hook --serve exits 0 at end of file"
is "$(jq -c '[.type, .exit]' "$T/py.out" | tr '\n' ' ')" '["PhaseEnd",65] ["PhaseEnd",75] ' \
	"a bad request ends 65, a snapshot without its lease 75, each with a PhaseEnd line"
like "$(cat "$T/py.err")" "not a lock on locks/$S" "the missing lease is named"

# a snapshot it ran (0 or 1): its PhaseEnd says the bytes under its
# directory ("size"), which the tick counts and seals instead of walking it
abx-add -d "$T/sz" --plugins title,ppid "$BASE/site/" >/dev/null
S=$(abx-ls -d "$T/sz" -k snapshot --jsonl | jq -r .id)
SD=$(snapdir "$T/sz" "$S")
ABX_TEST_PPIDS=$T/sz.pp python3 - "$(command -v abx-hook)" "$T/sz" "$S" "$SD" >"$T/sz.out" 2>"$T/sz.err" <<'PY'
import fcntl, os, socket, subprocess, sys, json
hook, d, sid, sd = sys.argv[1:5]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen([hook, "-d", d, "--serve"], stdin=b, stdout=subprocess.PIPE)
b.close()
os.makedirs(os.path.join(d, "locks"), exist_ok=True)
lease = os.open(os.path.join(d, "locks", sid), os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(lease, fcntl.LOCK_EX)
socket.send_fds(a, [("%s\t\t0\t" % sid).encode()], [lease])
end = None
for line in p.stdout:
    r = json.loads(line)
    if r.get("type") == "PhaseEnd":
        end = r
        break
a.close()
p.wait()
walked = 0
for root, dirs, files in os.walk(sd):
    for f in files:
        st = os.lstat(os.path.join(root, f))
        if (st.st_mode & 0o170000) == 0o100000:
            walked += st.st_size
print(json.dumps({"exit": end and end.get("exit"), "size": end and end.get("size"), "walked": walked}))
PY
is "$?" 0 "abx-hook --serve runs a snapshot given with its lease"
is "$(jq -r .exit "$T/sz.out")" 0 "its PhaseEnd says exit 0"
ok "and a size above 0 ($(jq -r .size "$T/sz.out"))" test "$(jq -r .size "$T/sz.out")" -gt 0
is "$(jq -r .size "$T/sz.out")" "$(jq -r .walked "$T/sz.out")" \
	"the bytes of the regular files under its directory when it ended"

done_testing
