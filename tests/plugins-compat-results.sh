#!/bin/sh
# ArchiveBox's plugins under abx (issue 9, points 3, 6 and 7): what abx
# makes of what a hook did.  A hook that prints no ArchiveResult is judged
# as abx-dl judges it; Snapshot records a hook prints on stdout become
# discovered snapshots as urls.jsonl lines do; a discovered snapshot's
# tags are the crawl's, then its record's, as a set (a stand-in of abx-plugins' bookmarks
# parser, which prints Tag records for every tag of the file first).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/httpd.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
# the verdicts daemon says when its SIGTERM trap is set (its hook 16 waits)
export VERDICTS_READY="$T/verdicts.ready"
mkdir -p "$T/plugins" "$T/www"
for p in verdicts parse_netscape_urls stdout_links; do cp -R "$TOP/tests/data/plugins-compat/$p" "$T/plugins/"; done
cat >"$T/www/bookmarks.html" <<'EOF'
<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><A HREF="/kelp.html" ADD_DATE="1497562974" TAGS="fish,intertidal">Kelp forests</A>
<DT><A HREF="/rocks.html" ADD_DATE="1497562975" TAGS="seaweed, seaweed,rocks">Rock pools</A>
<DT><A HREF="/plain.html" ADD_DATE="1497562976">No tags</A>
</DL><p>
EOF
httpd_start --root "$T/www" || exit 1
D=$T/data

# point 6: hooks that print no ArchiveResult
abx-add -d "$D" --plugins verdicts http://127.0.0.1:9/v >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
expect_exit 0 "abx-hook runs the hooks" abx-hook -d "$D" "$S"
st() { jq -r "select(.type == \"ArchiveResult\" and .hook_name == \"$1\") | .$2" "$T/stdout"; }
is "$(st on_Snapshot__10_file status)" succeeded "exit 0 with a new file: succeeded"
is "$(st on_Snapshot__11_nothing status)" noresults "exit 0 with only its own log and pid file: noresults"
is "$(st on_Snapshot__12_exit1 status)" failed "exit 1: failed"
like "$(st on_Snapshot__12_exit1 notes)" "exit status 1.*it broke" "with the exit status and stderr in notes"
is "$(st on_Snapshot__13_exit10 status)" failed "exit 10 without an ArchiveResult: failed, as abx-dl records it"
is "$(st on_Snapshot__14_daemon.daemon.bg status)" failed \
	"a daemon SIGTERM ended at the end of the phase, having printed nothing: not succeeded"
like "$(st on_Snapshot__14_daemon.daemon.bg notes)" "signal 15" "the notes say how it ended"
is "$(st on_Snapshot__15_daemon_clean.daemon.bg status)" succeeded \
	"a daemon that exits 0 on SIGTERM with its capture saved: succeeded"
ok "it had said its trap was set before the phase ended" test -e "$VERDICTS_READY"
is "$(st on_Snapshot__16_reported status)" skipped "a reported status is honoured"

# points 3 and 7: discovery
C=$(abx-add -d "$D" --depth 1 --tag mine --plugins parse_netscape_urls,stdout_links "$BASE/bookmarks.html" | jq -r .id)
# the children are 404s on the test server: the parser fails on them, and
# the tick says so (exit 2: hooks failed)
expect_exit 2 "abx-tick crawls the bookmarks file (its 404 children fail the parser)" abx-tick -d "$D" --crawl "$C"
kids() { abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.crawl_id == \"$C\" and .depth == 1) | $1" | sort; }
is "$(kids '"\(.url | sub(".*/"; "")) \(.tags)"' | tr '\n' '|')" \
	"kelp.html mine,fish,intertidal|plain.html mine|printed-1 mine,x,y|printed-2 mine|rocks.html mine,seaweed,rocks|" \
	"each child has the crawl's tag, then its record's, as a set, not its parent's own (abx(7) Tags)"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.crawl_id == \"$C\" and .depth == 0) | .tags")" \
	"mine,fish,intertidal,rocks,seaweed" "the bookmarks file itself has the crawl's tag and the Tag records'"
is "$(kids '.url' | grep -c printed)" 2 "Snapshot records printed on stdout became discovered snapshots"
is "$(kids '.url' | uniq -d)" "" "a URL both printed and in urls.jsonl is queued once"
is "$(abx-ls -d "$D" -k snapshot --jsonl | jq -r "select(.crawl_id == \"$C\" and .depth == 0) | .title")" \
	"the page itself" "a printed Snapshot record of the page itself is its title, not a child"
is "$(kids '"\(.url | sub(".*/"; "")) \(.title)"' | grep -E '^(kelp|printed-1)')" \
	"kelp.html Kelp forests
printed-1 printed one" "children keep their records' titles"
done_testing
