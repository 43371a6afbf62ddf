#!/bin/sh
# A private data directory (abx(7) FILES): whatever the user's umask (022,
# 002), the data directory and everything abx makes in it — abx.conf, the
# journals, the index, locks, a snapshot's outputs and logs, what a hook
# writes — is readable by its owner only (0700 directories, 0600 files).
# With GROUP_READABLE=true (environment or abx.conf) the group may read
# (0750, 0640), the data directory is setgid, and others still may not.
. "$(dirname "$0")/lib/tap.sh"
P=$T/plugins
mkdir -p "$P/out"
cat >"$P/out/on_Snapshot__10_out.sh" <<'H'
#!/bin/sh
mkdir -p sub
echo page >sub/page.html
echo notes >notes.txt
echo 'a line on stderr' >&2
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"notes.txt"}'
H
chmod +x "$P/out/on_Snapshot__10_out.sh"
ABX_PLUGINS_DIR=$P
export ABX_PLUGINS_DIR

# archive DIR: a crawl queued and run, a seal, a pack: every kind of file
archive() {
	abx-add -d "$1" --plugins out http://127.0.0.1:1/a >/dev/null &&
	abx-tick -d "$1" >/dev/null 2>&1
}
# wide DIR MASK: the paths under DIR with a bit of MASK set (find -perm /MASK)
wide() { find "$1" -perm "/$2" -printf '%m %P\n' | sort; }

for um in 022 002; do
	D=$T/data-$um
	(umask "$um" && archive "$D")
	ok "umask $um: an archive was made" test -s "$D/crawls.jsonl"
	is "$(stat -c %a "$D")" 700 "umask $um: the data directory is 0700"
	is "$(stat -c %a "$D/abx.conf" "$D/crawls.jsonl" "$D/locks" "$D/locks/store.lock" "$D/index" \
		"$D/index/active.jsonl" | tr '\n' ' ')" "600 600 700 600 700 600 " \
		"umask $um: abx.conf, the journal, locks, the index"
	out=$(find "$D" -name notes.txt)
	ok "umask $um: the hook's output is there" test -n "$out"
	is "$(stat -c %a "$out" "$(dirname "$out")" "$(dirname "$out")/sub/page.html")" "600
700
600" "umask $um: a hook's output files and directory (the hook inherits the umask)"
	is "$(wide "$D" 077)" "" "umask $um: nothing in the data directory is open to group or others"
done

D=$T/data-group
(umask 022 && GROUP_READABLE=true archive "$D")
is "$(stat -c %a "$D")" 2750 "GROUP_READABLE=true: the data directory is 0750 and setgid"
is "$(wide "$D" 007)" "" "... nothing is open to others"
is "$(find "$D" ! -perm -040 ! -path "$D/locks*" -printf '%m %P\n')" "" \
	"... everything (but locks/) may be read by the group"
is "$(stat -c %a "$D/locks")" 700 "... and locks/ is the owner's alone"
is "$(find "$D" -type d ! -perm -2000 ! -path "$D/locks" ! -path "$D/locks/*" -printf '%m %P\n')" "" \
	"... every directory in it setgid, so that all keeps the directory's group"

D=$T/data-conf
abx-add -d "$D" --plugins out http://127.0.0.1:1/a >/dev/null
echo GROUP_READABLE=true >>"$D/abx.conf"
(umask 077 && abx-tick -d "$D" >/dev/null 2>&1)
out=$(find "$D" -name notes.txt)
is "$(stat -c %a "$out" "$D" | tr '\n' ' ')" "640 2700 " \
	"GROUP_READABLE=true in abx.conf: new files group-readable (a directory made before keeps its mode, and gets setgid)"
done_testing
