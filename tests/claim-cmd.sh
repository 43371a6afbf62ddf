#!/bin/sh
# abx-claim CMD: the command runs as flock(1) runs one, through spawn()
# (base/spawn.h, 7): it gets the descriptors the user gave abx-claim and
# the lease ($ABX_LEASE_FD), every signal at its default and none blocked
# whatever abx-claim inherited, a script without #! is run by /bin/sh as
# execvp(3) runs it, and its exit status is abx-claim's.
. "$(dirname "$0")/lib/tap.sh"
D=$T/data
i=0
while [ $i -lt 6 ]; do echo "http://127.0.0.1:1/$i"; i=$((i + 1)); done | abx-add -d "$D" >/dev/null

# a descriptor of the user's reaches the command
echo "the user's file" >"$T/f"
abx-claim -d "$D" -k snapshot sh -c 'cat <&7' 7<"$T/f" >"$T/out" 2>"$T/err"
is "$?" 0 "the command ran"
is "$(cat "$T/out")" "the user's file" "fd 7, given to abx-claim, reaches the command"

# the lease is the descriptor $ABX_LEASE_FD names, and holds the lock
# shellcheck disable=SC2016  # expanded by the command's shell
abx-claim -d "$D" -k snapshot sh -c \
	'[ -n "$ABX_LEASE_FD" ] && [ -e "/proc/$$/fd/$ABX_LEASE_FD" ] && readlink "/proc/$$/fd/$ABX_LEASE_FD"' \
	>"$T/lease" 2>"$T/err"
is "$?" 0 "\$ABX_LEASE_FD is open in the command"
like "$(cat "$T/lease")" "/locks/" "and it is the item's lock file"

# signals: none ignored and none blocked in the command, though abx-claim
# was started with SIGINT, SIGQUIT and SIGUSR1 ignored (as a shell's
# background job has SIGINT and SIGQUIT)
# (exec: the command reads its own status; a shell that forked grep
# instead may still block every signal around its fork when grep reads)
# shellcheck disable=SC2016  # the command's own $$
(trap '' INT QUIT USR1; exec abx-claim -d "$D" -k snapshot sh -c 'exec grep -E "^Sig(Ign|Blk):" /proc/$$/status') \
	>"$T/sig" 2>"$T/err"
is "$?" 0 "the command ran with signals ignored in abx-claim"
is "$(awk '$1 == "SigBlk:" { print $2 }' "$T/sig")" 0000000000000000 "no signal is blocked in the command"
ign=$(awk '$1 == "SigIgn:" { print $2 }' "$T/sig")
# bits 2 (INT), 3 (QUIT) and 10 (USR1), as /proc shows them: 0x206
is "$(( 0x$ign & 0x206 ))" 0 "SIGINT, SIGQUIT and SIGUSR1 are not ignored in the command (SigIgn $ign)"

# a script without #! runs through /bin/sh, with its arguments
# shellcheck disable=SC2016  # the script's own $1
printf 'echo "no shebang: $1"\nexit 3\n' >"$T/script"
chmod +x "$T/script"
abx-claim -d "$D" -k snapshot "$T/script" arg1 >"$T/out" 2>"$T/err"
is "$?" 3 "its exit status is abx-claim's"
is "$(cat "$T/out")" "no shebang: arg1" "a script without #! runs through /bin/sh"

# a command that cannot run: 127 (not found), 126 (not executable)
expect_exit 127 "a missing command exits 127" abx-claim -d "$D" -k snapshot "$T/nope"
printf 'x\n' >"$T/noexec"
expect_exit 126 "a command that is not executable exits 126" abx-claim -d "$D" -k snapshot "$T/noexec"
done_testing
