#!/bin/sh
# GlusterFS with its default options (client caches on) is refused with 78,
# naming what to change, unless abx.conf says FS_UNSAFE_OK=true; a mount
# without the coherent mount options is refused too, naming them; with the
# coherent options abx runs (tests/gluster-claim-race.sh).
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/gluster-rig.sh"
rig_start default
plan 10

expect_exit 78 "abx-add on a default GlusterFS volume is refused" \
    abx-add -d "$M1/data" http://127.0.0.1:1/
err=$(cat "$T/stderr")
diag "$err"
like "$err" "GlusterFS volume abx" "the message names the volume"
like "$err" "gluster volume set abx performance.write-behind off" "... the volume option to turn off"
like "$err" "direct-io-mode=enable,attribute-timeout=0,entry-timeout=0" "... the mount options"
like "$err" "gluster volume set abx client.strict-locks on" "... the lock option to turn on"
like "$err" "FS_UNSAFE_OK=true" "... and the setting that overrides it"
ok "nothing was queued" test ! -e "$M1/data/crawls.jsonl"

# the mount options right, the volume's caches still on: the volume is named
rig_mount m3 "$RIG_MOUNT_OPTS" || fail "mount m3"
expect_exit 78 "a coherent mount of a caching volume is refused" \
    abx-ls -d "$RIG/m3/data"
case $(cat "$T/stderr") in
*direct-io-mode*) fail "only the volume options are named"; diag "$(cat "$T/stderr")" ;;
*performance.write-behind*) pass "only the volume options are named" ;;
*) fail "only the volume options are named"; diag "$(cat "$T/stderr")" ;;
esac

echo FS_UNSAFE_OK=true >>"$M1/data/abx.conf"
expect_exit 0 "FS_UNSAFE_OK=true in abx.conf lets abx use it" \
    abx-add -d "$M1/data" http://127.0.0.1:1/
done_testing
