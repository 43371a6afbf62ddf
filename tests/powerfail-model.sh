#!/bin/sh
# The power-loss model itself (tests/lib/powerfail.c), on workloads whose
# durable outcome is known: what was never synced comes back empty, a
# synced file whose name was never synced is gone, a rename stands only
# once its directory is synced, syncfs and sync save everything, the power
# switch freezes the shadow and kills every process of the workload, and
# acknowledgements stop at the power loss.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/powerfail-lib.sh"
pf_build || exit 0

# content PATH: the file's bytes, or "<absent>"
content() { if [ -f "$1" ]; then cat "$1"; else printf '<absent>'; fi; }

# the baseline tree
R=$T/m1/root S=$T/m1/shadow O=$T/m1/out
mkdir -p "$R" && cd "$R" || exit 1
mkdir a b c d e e2 g h i j k k2 p
printf old >d/f
printf old >e/f
printf old >e2/f
printf 'line1\n' >g/f
printf old >k/f
printf old >k2/f
printf base >base.txt
ln -s base.txt link
printf outside >"$T/outside.txt"
ok "snapshot of the baseline" "$PF" snapshot "$R" "$S"
cd "$T" || exit 1

cat >"$T/w1.sh" <<'EOF'
set -e
cd "$1"
printf x >a/f; sync a                          # name durable, content never synced
printf y >b/f; sync b/f                        # content durable, name never synced
printf z >c/f; sync c/f; sync c                # both durable
printf new >d/f                                # baseline file rewritten, no sync
printf new >e/f.tmp; sync e/f.tmp; mv e/f.tmp e/f              # rename, no dir sync
printf new >e2/f.tmp; sync e2/f.tmp; mv e2/f.tmp e2/f; sync e2  # rename, dir synced
printf 'line2\n' >>g/f; sync -d g/f            # fdatasync of an append
printf 'not synced\n' >>g/f                    # and a later append, not synced
mkdir h/sub; printf s >h/sub/f; sync h/sub/f; sync h/sub       # h never synced
mkdir i/sub; printf s >i/sub/f; sync i          # i/sub itself never synced
printf hl >j/f; sync j/f; ln j/f j/g; sync j    # hard link
rm k/f                                          # unlink, no dir sync
rm k2/f; sync k2                                # unlink, dir synced
ln -s ../base.txt p/l; sync p                   # a new symlink
printf changed >"$2"; sync "$2"                 # outside the root: ignored
python3 - <<'PY'
import mmap, os
# a write-only descriptor synced; a shared mapping synced with msync
fd = os.open("c/wo", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"write-only"); os.fsync(fd); os.close(fd)
fd = os.open("c/mm", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"aaaa")
m = mmap.mmap(fd, 4)
m[0:4] = b"bbbb"; m.flush()
m[0:4] = b"cccc"
os.close(fd)
d = os.open("c", os.O_RDONLY | os.O_DIRECTORY); os.fsync(d); os.close(d)
PY
EOF
n_before=$(find "$S/f" -type f | wc -l)
cp -a "$R" "$T/m1/plain"
sh "$T/w1.sh" "$T/m1/plain" "$T/outside2.txt"
pf_preload "$R" "$S" "$PF" run "$S" 20000 sh "$T/w1.sh" "$R" "$T/outside.txt" >"$T/run1" 2>"$T/run1.err"
like "$(cat "$T/run1")" '^off_ms=[0-9]+ cmd=exited:0 ' "the workload ran to its end, then the power went off"
[ -s "$T/run1.err" ] && diag "stderr: $(cat "$T/run1.err")"
ok "restore builds the image" "$PF" restore "$S" "$O"

is "$(content "$O/a/f")|$(stat -c %s "$O/a/f" 2>/dev/null)" "|0" "a new file never synced, its name synced: present, empty"
is "$(content "$O/b/f")" "<absent>" "a file synced, its new name never synced: absent"
is "$(content "$O/c/f")" "z" "a file and its directory synced: present with its content"
is "$(content "$O/d/f")" "old" "a baseline file rewritten without a sync keeps its baseline content"
is "$(content "$O/e/f")|$(content "$O/e/f.tmp")" "old|<absent>" "a rename without a sync of the directory is not durable"
is "$(content "$O/e2/f")|$(content "$O/e2/f.tmp")" "new|<absent>" "a rename with a sync of the directory is"
is "$(content "$O/g/f")" "$(printf 'line1\nline2\n')" "fdatasync saves the append and the size, not the later append"
is "$(content "$O/h/sub/f")|$(find "$O/h" -mindepth 1 | wc -l | tr -d ' ')" "<absent>|0" \
	"a synced directory in a never-synced directory is gone with its files"
ok "a new directory whose parent was synced exists" test -d "$O/i/sub"
is "$(find "$O/i/sub" -mindepth 1 | wc -l | tr -d ' ')" 0 "and is empty, never synced itself"
is "$(content "$O/j/f")|$(content "$O/j/g")|$(stat -c %h "$O/j/f" 2>/dev/null)" "hl|hl|2" "a hard link is restored as one"
is "$(content "$O/k/f")" "old" "an unlink without a sync of the directory is undone"
is "$(content "$O/k2/f")" "<absent>" "an unlink with a sync of the directory is not"
is "$(readlink "$O/link")|$(readlink "$O/p/l")" "base.txt|../base.txt" "symlinks keep their targets"
is "$(content "$O/c/wo")" "write-only" "fsync of a write-only descriptor saves the content"
is "$(content "$O/c/mm")" "bbbb" "msync(MS_SYNC) saves the mapped content as it was at the msync"
is "$(find "$S/f" -type f | wc -l)" "$((n_before + 8))" \
	"exactly the eight files synced under the root were recorded (not the one outside)"
is "$(cd "$R" && find . -printf '%p %s\n' | sort)" "$(cd "$T/m1/plain" && find . -printf '%p %s\n' | sort)" \
	"the shim wrote nothing under the root (the same workload without it leaves the same tree)"
is "$(find "$S/tmp" -mindepth 1 | wc -l | tr -d ' ')" 0 "no temporary file left in the shadow"

# syncfs and sync save the whole tree
for how in "sync -f ." "sync"; do
	R=$T/m2/root S=$T/m2/shadow O=$T/m2/out
	rm -rf "$T/m2" && mkdir -p "$R"
	"$PF" snapshot "$R" "$S"
	# shellcheck disable=SC2016
	pf_preload "$R" "$S" "$PF" run "$S" 20000 sh -c \
		'cd "$1" && mkdir -p x/y && printf deep >x/y/f && printf top >t && '"$how" sh "$R" >/dev/null
	"$PF" restore "$S" "$O"
	is "$(content "$O/x/y/f")|$(content "$O/t")" "deep|top" "$how saves every file and directory"
done

# the power switch: the shadow is frozen at the power-off, every process of
# the workload is killed (one in a session of its own too), and the
# acknowledgements stop there
R=$T/m3/root S=$T/m3/shadow O=$T/m3/out
mkdir -p "$R"
"$PF" snapshot "$R" "$S"
cat >"$T/w3.sh" <<'EOF'
cd "$1" || exit 1
setsid sh -c 'echo $$ >"$0"; exec sleep 30' "$2/escaped.pid" &
printf 1 >f; sync f; sync .
echo before | "$PF" ack "$S" "$2/acks" first
while [ ! -e "$S/off" ]; do sleep 0.01; done
printf 2 >f
sync f &
sleep 0.2
echo after | "$PF" ack "$S" "$2/acks" second
echo "ack after the power-off: exit $?" >"$2/late"
EOF
start=$(date +%s)
pf_preload "$R" "$S" env S="$S" "$PF" run "$S" 300 sh "$T/w3.sh" "$R" "$T" >"$T/run3"
like "$(cat "$T/run3")" '^off_ms=[0-9]+ cmd=running killed=[0-9]+' "the workload was cut off while running"
ok "in well under the 30 s its escaped process would have lived" test $(($(date +%s) - start)) -lt 10
escaped() { ! kill -0 "$(cat "$T/escaped.pid")" 2>/dev/null; }
ok "the process in its own session was killed too" escaped
"$PF" restore "$S" "$O"
is "$(content "$O/f")" "1" "a sync after the power-off saves nothing"
is "$(cat "$T/acks")" "$(printf 'first\tbefore')" "an acknowledgement after the power-off is not recorded"
is "$(content "$T/late")" "<absent>" "(the workload died before it could write anything)"
echo x | "$PF" ack "$S" "$T/acks2" tag
is "$?" 3 "ack refuses once the power is off"
done_testing
