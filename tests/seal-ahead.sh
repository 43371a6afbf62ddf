#!/bin/sh
# seal-ahead.sh — abx-tick seals a snapshot its worker ran with its files
# built before the store lock (seal.c: seal_snapshot_ahead), and the worker
# pays the fsyncs of its hook's tree before the lock too (presync.c:
# store_presync_result).  Where each file is fsync'd (ABX_DURABILITY=
# perfile: FUSE, NFS) those fsyncs are round trips that, under the lock,
# would serialise every process of every host.  Checked with strace, by pid
# (the tick is the trace's first pid; the worker is the pid that writes the
# ArchiveResult line), never by name:
#   - the tick fsyncs the snapshot's index.json, index.jsonl, index.html and
#     text.txt before the flock(LOCK_EX) of locks/store.lock under which it
#     writes the sealed line, through the descriptor that wrote it (each
#     is opened once before the lock), and opens none of them while that
#     lock is held;
#   - the worker fsyncs its hook's output before the flock under which it
#     writes its ArchiveResult line, and the output is fsync'd once in all;
#   - the sealed line of the journal is, field for field, the first line of
#     the snapshot's index.jsonl (the files show the version committed: the
#     same modified_at).
# And a tick killed (SIGKILL, ABX_TEST_FAULT=seal-ahead) after the files
# are written and before the lock leaves the snapshot unsealed and no lock
# held; the next tick seals it, its files again matching the journal.  The
# same crawl with the default durability seals alike.  And when the record
# changed between the read and the lock, the files the fallback makes again
# (temp + rename) are fsync'd after they are made, though the ones written
# ahead were fsync'd and said so (tests/unit/sealahead.t fallback-durable).
# (awk programs are given in single quotes: their $ are awk's)
# shellcheck disable=SC2016
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"
for c in strace jq; do
	command -v $c >/dev/null 2>&1 || { echo "1..0 # SKIP $c is not installed"; exit 0; }
done
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
	echo "1..0 # SKIP strace cannot trace here (ptrace not permitted)"
	exit 0
fi
plan 43
# LeakSanitizer cannot run under ptrace (the ASan build of make check)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
httpd_start --log "$T/requests.log" || exit 1

# a plugin named dom (seal's text.txt reads dom/output.html) whose hook
# writes one page, output.html, in its directory
mkdir -p "$T/plugins/dom"
cat >"$T/plugins/dom/on_Snapshot__10_dom.sh" <<'EOF'
#!/bin/sh
printf '<html><head><title>Ahead page</title></head><body><p>sealed ahead</p></body></html>\n' >output.html
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"dom/output.html"}'
EOF
chmod +x "$T/plugins/dom/on_Snapshot__10_dom.sh"
ABX_PLUGINS_DIR=$T/plugins
export ABX_PLUGINS_DIR

FILES="index.json index.jsonl index.html text.txt"
opened=

# snap_of DIR: the snapshot's id, its crawl's id in $C
snap_of() {
	S=$(abx-ls -d "$1" -k snapshot --jsonl | jq -r .id | head -n 1)
	C=$(abx-ls -d "$1" -k snapshot --jsonl | jq -r .crawl_id | head -n 1)
}
# journal_sealed DIR: the last Snapshot line of the crawls' journals, sorted
journal_sealed() {
	cat "$1"/crawls/*/snapshots.jsonl | jq -S -c 'select(.type == "Snapshot")' | tail -n 1
}
# index_first DIR: the first line of the snapshot's index.jsonl, sorted
index_first() {
	head -n 1 "$1/crawls/$C/$S/index.jsonl" | jq -S -c .
}
# same_line DIR DESC: the journal's sealed line is index.jsonl's first
same_line() {
	_j=$(journal_sealed "$1")
	_i=$(index_first "$1")
	is "$(printf '%s' "$_j" | jq -r .status)" sealed "$2: the journal's last Snapshot line is sealed"
	ok "$2: it is non-empty" test -n "$_j"
	is "$_j" "$_i" "$2: and it is index.jsonl's first line, field for field"
	is "$(printf '%s' "$_j" | jq -r .modified_at)" "$(printf '%s' "$_i" | jq -r .modified_at)" \
		"$2: with the same modified_at"
}

# at PID WHAT TRACE: the trace's line numbers (one a line) of PID's calls
# WHAT (awk program text run on each line, $3 the call, p the line's pid, sd =
# $SD, cj = $CJ, sid = $S, lk = "locks/store.lock>")
at() {
	SD=$SD CJ=$CJ SID=$S awk -v want="$1" '
	BEGIN { sd = ENVIRON["SD"]; cj = ENVIRON["CJ"]; sid = ENVIRON["SID"]; lk = "/locks/store.lock>" }
	want == "all" || $1 == want { p = $1; if ('"$2"') print NR }' "$3"
}
first() { head -n 1; }
quiet() { "$@" >/dev/null; }
last() { tail -n 1; }
# held_from PID LINE TRACE: the line of the flock(LOCK_EX) of store.lock
# that took the lock PID holds at LINE (the first LOCK_EX after its last
# LOCK_UN before LINE)
held_from() {
	_u=$(at "$1" 'index($0, lk) && $3 ~ /^flock\(/ && /LOCK_UN/' "$3" | awk -v l="$2" '$1 < l' | last)
	at "$1" 'index($0, lk) && $3 ~ /^flock\(/ && /LOCK_EX/' "$3" | awk -v l="$2" -v u="${_u:-0}" \
		'$1 > u && $1 < l' | first
}
# held_to PID LINE TRACE: the line of PID's LOCK_UN of store.lock after LINE
held_to() {
	at "$1" 'index($0, lk) && $3 ~ /^flock\(/ && /LOCK_UN/' "$3" | awk -v l="$2" '$1 > l' | first
}

# ---- 1. perfile, under strace
ABX_DURABILITY=perfile
export ABX_DURABILITY
D=$T/perfile
abx-add -d "$D" --plugins dom "$BASE/site/" >/dev/null
snap_of "$D"
RD=$(cd "$D" && pwd -P)
SD=$RD/crawls/$C/$S
CJ=$RD/crawls/$C/snapshots.jsonl
strace -f -y -tt -qq -s 65536 -o "$T/tick.trace" \
	-e trace=fsync,fdatasync,flock,open,openat,openat2,creat,write,writev,pwrite64 \
	abx-tick -d "$D" >"$T/tick.out" 2>"$T/tick.err"
rc=$?
is "$rc" 0 "abx-tick crawls the page (perfile, under strace)"
[ "$rc" = 0 ] || diag "$(head -c 600 "$T/tick.err")"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status)" sealed "and seals it"
TR=$T/tick.trace
TICK=$(awk 'NR == 1 { print $1 }' "$TR")
# the tick's write of the sealed line to crawls/C/snapshots.jsonl
W=$(at "$TICK" '$3 ~ /^(write|writev|pwrite64)\(/ && index($0, cj) &&
	index($0, "\\\"id\\\":\\\"" sid "\\\"") && index($0, "\\\"status\\\":\\\"sealed\\\"")' "$TR" | first)
ok "the tick writes the snapshot's sealed line (trace line ${W:-none})" test -n "$W"
K=$(held_from "$TICK" "${W:-0}" "$TR")
U=$(held_to "$TICK" "${W:-0}" "$TR")
ok "under a flock(LOCK_EX) of locks/store.lock (lines ${K:-none} to ${U:-none})" \
	test -n "$K" -a -n "$U"
: "${K:=0}" "${U:=0}"
for f in $FILES; do
	pat="$(printf '%s' "$f" | sed 's/\./\\./g')"
	n=$(at "$TICK" '$3 ~ /^(fsync|fdatasync)\(/ && index($0, sd "/'"$f"'>")' "$TR" | awk -v k="$K" \
		'$1 < k' | wc -l | tr -d ' ')
	ok "the tick fsyncs $f before that lock ($n)" test "$n" -ge 1
	n=$(at "$TICK" '$3 ~ /^(open|openat|openat2|creat)\(/ && $0 ~ /= [0-9]+<[^>]*\/'"$pat"'>$/ &&
		index($0, sd "/")' "$TR" | awk -v k="$K" '$1 < k' | wc -l | tr -d ' ')
	is "$n" 1 "through the descriptor that wrote it: $f is opened once before the lock"
	n=$(at "$TICK" '$3 ~ /^(open|openat|openat2|creat)\(/ && $0 ~ /= [0-9]+<[^>]*\/\.?'"$pat"'(\.tmp\.[0-9]+)?>$/ &&
		index($0, sd "/")' "$TR" | awk -v k="$K" -v u="$U" '$1 > k && $1 < u' | wc -l | tr -d ' ')
	is "$n" 0 "and opens no $f while it holds it"
	[ "$(at "$TICK" '$3 ~ /^(open|openat|openat2|creat)\(/ && $0 ~ /= [0-9]+<[^>]*\/\.?'"$pat"'(\.tmp\.[0-9]+)?>$/ &&
		index($0, sd "/")' "$TR" | wc -l)" -ge 1 ] || opened="$opened $f"
done
is "${opened:-}" "" "(the tick's opens of those files are seen in the trace at all)"
# the worker: the pid that writes the ArchiveResult line
A=$(at all '$3 ~ /^(write|writev|pwrite64)\(/ && index($0, cj) && index($0, "ArchiveResult")' "$TR" | first)
WPID=$(awk -v l="${A:-0}" 'NR == l { print $1 }' "$TR")
ok "a worker process writes the ArchiveResult line (pid ${WPID:-none})" \
	test -n "$WPID" -a "${WPID:-0}" != "$TICK"
KA=$(held_from "${WPID:-none}" "${A:-0}" "$TR")
ok "under its flock(LOCK_EX) of locks/store.lock (line ${KA:-none})" test -n "$KA"
n=$(at "${WPID:-none}" '$3 ~ /^(fsync|fdatasync)\(/ && index($0, sd "/dom/output.html>")' "$TR" |
	awk -v k="${KA:-0}" '$1 < k' | wc -l | tr -d ' ')
is "$n" 1 "the worker fsyncs the hook's output before that lock"
is "$(at all '$3 ~ /^(fsync|fdatasync)\(/ && index($0, sd "/dom/output.html>")' "$TR" | wc -l | tr -d ' ')" 1 \
	"and it is fsync'd once in all"
same_line "$D" "perfile"

# ---- 2. killed (SIGKILL) after the files, before the lock
D=$T/fault
abx-add -d "$D" --plugins dom "$BASE/site/" >/dev/null
snap_of "$D"
ABX_TEST_FAULT=seal-ahead abx-tick -d "$D" >"$T/fault.out" 2>"$T/fault.err"
is "$?" 137 "abx-tick dies by SIGKILL at the fault point seal-ahead"
st=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .status)
ok "the snapshot is not sealed ($st)" test "$st" != sealed
missing=
for f in $FILES; do
	[ -s "$D/crawls/$C/$S/$f" ] || missing="$missing $f"
done
is "$missing" "" "its index files were written"
t0=$(date +%s)
ok "abx-ls gets the store within 2 s" quiet timeout 2 abx-ls -d "$D"
ok "so does abx-add" quiet timeout 2 abx-add -d "$D" --plugins dom "$BASE/site/page1.html"
ok "both within 3 s of the death" test $(($(date +%s) - t0)) -le 3
timeout 60 abx-tick -d "$D" >"$T/tick2.out" 2>"$T/tick2.err"
rc=$?
is "$rc" 0 "the next abx-tick runs the crawl again"
[ "$rc" = 0 ] || diag "$(head -c 600 "$T/tick2.err")"
is "$(abx-ls -d "$D" "$S" | jq -r .status)" sealed "and seals the snapshot"
is "$(jq -r --arg s "$S" 'select(.type == "Snapshot" and .id == $s and .status == "sealed") | .id' \
	"$D/crawls/$C/snapshots.jsonl" | wc -l | tr -d ' ')" 1 "once"
j=$(jq -S -c --arg s "$S" 'select(.type == "Snapshot" and .id == $s)' "$D/crawls/$C/snapshots.jsonl" | tail -n 1)
is "$j" "$(index_first "$D")" "its sealed line is index.jsonl's first line again"

# ---- 3. the default durability
unset ABX_DURABILITY
D=$T/default
abx-add -d "$D" --plugins dom "$BASE/site/" >/dev/null
snap_of "$D"
expect_exit 0 "abx-tick crawls the page (default durability)" abx-tick -d "$D"
same_line "$D" "default"

# ---- 4. a fallback's files are fsync'd again (perfile)
ut=$BIN/../tests/unit/sealahead.t
if [ -x "$ut" ]; then
	strace -f -y -qq -o "$T/fb.trace" -e trace=fsync,fdatasync,rename,renameat,renameat2 "$ut" fallback-durable \
		>"$T/fb.out" 2>"$T/fb.err"
	is "$?" 0 "the unit program's fallback seals (SEAL_OK)"
	sd=$(cat "$T/fb.out")
	case $sd in /tmp/abx-sealahead-test.*/crawls/*/*) rmdir_top=${sd%/crawls/*} ;; *) rmdir_top= ;; esac
	# the line of the last rename onto index.json, and of the last fsync of it
	last() { awk -v pat="$1" '$0 ~ pat { n = NR } END { print n + 0 }' "$T/fb.trace"; }
	rn=$(last 'rename.*"index\.json"')
	fs=$(last '^[0-9]+ +f(data)?sync\([0-9]+<[^>]*/index\.json>')
	ok "the fallback rewrote index.json by rename (line $rn)" test "$rn" -gt 0
	ok "and fsynced it after that rename (line $fs)" test "$fs" -gt "$rn"
	[ -n "$rmdir_top" ] && rm -rf "$rmdir_top"
else
	pass "# SKIP $ut is not built"
	pass "# SKIP $ut is not built"
	pass "# SKIP $ut is not built"
fi

done_testing
