#!/bin/sh
# Acknowledge after durable, checked statically (issue 15): under strace,
# an abx-add (that makes the data directory), a claim and its release, a
# pause and a resume, and an abx-tick crawl with the pf and wget plugins.
# tests/lib/powerfail-strace.py reads the trace:
#   - every file a succeeded ArchiveResult names is fsync'd after its last
#     write, and every directory entry down to it after its creation,
#     before the journal write of that record;
#   - every abx tool that exits 0 has fsync'd the directory of each name it
#     created (O_CREAT, mkdir, rename, link) before it exits;
#   - and every file of the data directory it wrote.
# Hints that are rebuilt (index/, locks/, tmp/, the site and snapshot
# index files, hook logs) are not checked: see the script's header.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
. "$(dirname "$0")/lib/powerfail-lib.sh"
for c in strace python3 curl wget; do
	command -v $c >/dev/null 2>&1 || { echo "1..0 # SKIP $c is not installed"; exit 0; }
done
if ! strace -f -qq -o /dev/null true 2>/dev/null; then
	echo "1..0 # SKIP strace cannot trace here (ptrace not permitted)"
	exit 0
fi
httpd_start || exit 1
pf_plugin
D=$T/data
# every syscall that creates, writes, renames or syncs; chdir, fork and
# execve to resolve relative paths and tell the tools from their hooks
SYSCALLS=open,openat,openat2,creat,write,pwrite64,writev,pwritev,pwritev2,ftruncate,rename,renameat,renameat2
SYSCALLS=$SYSCALLS,link,linkat,symlink,symlinkat,mkdir,mkdirat,unlink,unlinkat,rmdir
SYSCALLS=$SYSCALLS,fsync,fdatasync,syncfs,sync,chdir,fchdir,clone,clone3,fork,vfork,execve

# First the checker itself, on a fake tool whose syncs are known: it
# writes two output files (one in a subdirectory), syncs them and each new
# directory entry with sync(1), then appends a succeeded ArchiveResult that
# names them to a journal and syncs that; with "bad" it skips the sync of
# g.txt and of the directory that holds it and sub/, and creates own.txt,
# whose directory it never syncs (g.txt and own.txt are created by the
# shell, so by the tool's own process).
mkdir -p "$T/fakebin" "$T/fake-good" "$T/fake-bad"
cat >"$T/fakebin/abx-fake" <<'EOF'
#!/bin/sh
cd "$1" || exit 1
mkdir -p crawls/c1/s1/p/sub
sync . crawls crawls/c1 crawls/c1/s1
printf abc >crawls/c1/s1/p/sub/f.txt
printf ab >crawls/c1/s1/p/g.txt
sync crawls/c1/s1/p/sub/f.txt crawls/c1/s1/p/sub
if [ "$2" = bad ]; then
	: >own.txt
else
	sync crawls/c1/s1/p/g.txt crawls/c1/s1/p
fi
echo '{"type":"ArchiveResult","id":"r1","snapshot_id":"s1","plugin":"p","hook_name":"h","status":"succeeded","output_files":{"sub/f.txt":{"size":3},"g.txt":{"size":2}}}' \
	>>crawls/c1/snapshots.jsonl
sync crawls/c1/snapshots.jsonl crawls/c1
EOF
chmod +x "$T/fakebin/abx-fake"
for how in good bad; do
	strace -f -y -q -s 65536 -o "$T/fake-$how.trace" -e trace="$SYSCALLS" \
		"$T/fakebin/abx-fake" "$T/fake-$how" "$how" 2>"$T/fake.err"
	python3 "$TOP/tests/lib/powerfail-strace.py" "$T/fake-$how.trace" "$T/fake-$how" >"$T/fake-$how.found" 2>&1
done
is "$(grep -c '^V' "$T/fake-good.found")" 0 "checker: a tool that syncs everything in order passes"
[ "$(grep -c '^V' "$T/fake-good.found")" = 0 ] || sed 's/^/#   /' "$T/fake-good.found"
like "$(grep '^V	result-files' "$T/fake-bad.found")" \
	"files not fsync'd since their last write: g.txt; names whose directory was not fsync'd since they were created: s1/p/g.txt, s1/p/sub\$" \
	"checker: an output file not synced and a directory entry not synced are found"
like "$(grep '^V	names' "$T/fake-bad.found")" "abx-fake .*: crawls/c1/s1/p/g.txt \\(line [0-9]+\\), own.txt \\(line [0-9]+\\)\$" \
	"checker: a name the tool created and exited 0 without syncing its directory is found"

cat >"$T/work.sh" <<'EOF'
D=$1 BASE=$2
set -e
C=$(abx-add -d "$D" --depth 1 --plugins pf,wget "$BASE/site/" | sed -n 's/^{"type":"Crawl","id":"\([^"]*\)".*/\1/p')
abx-add -d "$D" --plugins pf "$BASE/site/page1.html" >/dev/null
S=$(abx-claim -d "$D" -k snapshot -l 60 | sed -n 's/^{"type":"Snapshot","id":"\([^"]*\)".*/\1/p')
abx-claim -d "$D" --release "$S"
abx-ctl -d "$D" pause "$C"
abx-ctl -d "$D" resume "$C"
abx-tick -d "$D" >/dev/null
EOF
# (LeakSanitizer cannot run under ptrace: off for the traced run of an ASan build)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -y -q -s 65536 -o "$T/trace" -e trace="$SYSCALLS" sh "$T/work.sh" "$D" "$BASE" 2>"$T/work.err"
is "$?" 0 "the traced workload ran (add, claim, release, pause, resume, tick)"
[ -s "$T/work.err" ] && diag "stderr: $(head -c 600 "$T/work.err")"
is "$(abx-ls -d "$D" -k snapshot -s sealed --jsonl | wc -l | tr -d ' ')" 5 "and sealed the five snapshots"

python3 "$TOP/tests/lib/powerfail-strace.py" "$T/trace" "$D" >"$T/found" 2>"$T/found.err"
is "$?" 0 "the trace is read"
[ -s "$T/found.err" ] && diag "$(head -c 600 "$T/found.err")"
stat() { awk -F '\t' -v k="$1" '$1 == "S" && $2 == k { print $3 }' "$T/found"; }
ok "it saw the succeeded results and their files ($(stat results) records naming $(stat files) files, $(stat tools) abx tools that exited 0)" \
	test "$(stat results)" -gt 0 -a "$(stat files)" -gt 0 -a "$(stat tools)" -gt 5

rule() {
	_r=$1 _desc=$2
	awk -F '\t' -v r="$_r" '$1 == "V" && $2 == r { print $3 }' "$T/found" >"$T/rule"
	if [ -s "$T/rule" ]; then
		fail "$_desc ($(grep -vc '^\.\.\. and' "$T/rule") violations shown)"
		sed 's/^/#   /' "$T/rule"
	else
		pass "$_desc"
	fi
}
rule result-files "every file a succeeded result names is synced, with its directory entries, before the record"
rule names "every abx tool that exits 0 has synced the directory of each name it created"
rule data "every abx tool that exits 0 has synced each file it wrote in the data directory"
done_testing
