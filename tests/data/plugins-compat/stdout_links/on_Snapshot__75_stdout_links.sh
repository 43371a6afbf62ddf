#!/bin/sh
# Two outlinks as Snapshot records on stdout (tags as a list), one that is
# the snapshot itself (a title, not a child), and no urls.jsonl.
url=${1#--url=}
base=${url%/*}
case "$url" in
*/bookmarks.html) ;;
*) echo '{"type":"ArchiveResult","status":"skipped","output_str":"not a bookmarks file"}'; exit 10 ;;
esac
printf '{"type":"Snapshot","url":"%s","title":"the page itself"}\n' "$url"
printf '{"type":"Snapshot","url":"%s/printed-1","title":"printed one","tags":["x","y","x"]}\n' "$base"
printf '{"type":"Snapshot","url":"%s/printed-2"}\n' "$base"
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"2 outlinks printed"}'
