#!/bin/sh
# abx-hook: names that try to leave the data dir, URLs full of shell
# metacharacters, and the lease (one worker per snapshot).
. "$(dirname "$0")/lib/tap.sh"
export ABX_PLUGINS_DIR="$T/plugins" ABX_SHARE_DIR="$T/noshare" ABX_SYNC=0
D=$T/data
URL="http://127.0.0.1:9/x?a=\$(touch\${IFS}$T/canary1)&b=\`touch\${IFS}$T/canary2\`;touch\${IFS}$T/canary3|x>y<z'q\"w\\e*f!g#h"
abx-add -d "$D" "$URL" >/dev/null
S=$(abx-ls -d "$D" -k snapshot --jsonl | jq -r .id)
C=$(abx-ls -d "$D" -k crawl --jsonl | jq -r .id)
mkdir -p "$T/plugins/echo"
cat >"$T/plugins/echo/on_Snapshot__10_echo.sh" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >argv.txt
printf '%s\n' "${ABX_LEASE_FD:-no lease fd}" >lease.txt
ls -l /proc/$$/fd/ | grep -c 'locks/' >>lease.txt
EOF
chmod +x "$T/plugins/echo/on_Snapshot__10_echo.sh"

plan 16
expect_exit 65 "an id with ../ is refused" abx-hook -d "$T/nodir" "../../etc/passwd"
like "$(cat "$T/stderr")" "abx-hook: fatal: not an id: \.\./\.\./etc/passwd" "with a clear message"
ok "before touching the filesystem" test ! -e "$T/nodir"
expect_exit 65 "a --plugins name with ../ is refused" abx-hook -d "$T/nodir" --plugins '../../bin' "$S"
expect_exit 65 "so is one with a /" abx-hook -d "$T/nodir" --plugins 'echo,a/b' "$S"
like "$(cat "$T/stderr")" "not a plugin name: a/b" "and named"
expect_exit 65 "an id that is not a snapshot is refused" abx-hook -d "$D" "$C"
expect_exit 64 "an unknown family is a usage error" abx-hook -d "$D" --family Nope "$S"

abx-hook -d "$D" "$S" >/dev/null
# as abx-add stored it: canonical (abx-add(1) URLS), the query's < > ' " encoded, no fragment
CANON=$(printf '%s' "$URL" | sed "s/>/%3E/g; s/</%3C/g; s/'/%27/g; s/\"/%22/g; s/#.*//")
is "$(cat "$D/crawls/$C/$S/echo/argv.txt")" "--url=$CANON" "the URL reaches the hook intact, as one argument"
ok "and no shell ran it" test ! -e "$T/canary1" -a ! -e "$T/canary2" -a ! -e "$T/canary3"
is "$(tr '\n' ' ' <"$D/crawls/$C/$S/echo/lease.txt")" "no lease fd 0 " "the hook inherits neither the lease fd nor its name"

# a worker holds the snapshot: a second abx-hook exits 75
abx-claim -d "$D" -i "$S" sleep 5 >/dev/null &
CL=$!
wait_for 5 abx-claim -d "$D" --test "$S"
expect_exit 75 "a second abx-hook on a leased snapshot exits 75" abx-hook -d "$D" "$S"
like "$(cat "$T/stderr")" "snapshot $S is leased by another worker" "saying who holds what"
kill "$CL" 2>/dev/null
wait
# abx-hook run by abx-claim inherits the lease
rm -f "$D/crawls/$C/$S/echo/argv.txt"
expect_exit 0 "abx-claim -i ID abx-hook ID runs with the inherited lease" \
	abx-claim -d "$D" -i "$S" abx-hook -d "$D" "$S"
ok "and the hook ran" test -s "$D/crawls/$C/$S/echo/argv.txt"
is "$(tr '\n' ' ' <"$D/crawls/$C/$S/echo/lease.txt")" "no lease fd 0 " "not passing the lease on to the hook"
done_testing
