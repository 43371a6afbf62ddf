#!/bin/sh
# The power-loss model's FUSE semantics (tests/lib/powerfail.c with
# ABX_POWERFAIL_FUSE=1): syncfs and sync save nothing, as on GlusterFS's
# client or LazyFS, while fsync of a file and of its directory still does.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/powerfail-lib.sh"
pf_build || exit 0

content() { if [ -f "$1" ]; then cat "$1"; else printf '<absent>'; fi; }

for how in "sync -f ." "sync"; do
	R=$T/m/root S=$T/m/shadow O=$T/m/out
	rm -rf "$T/m" && mkdir -p "$R"
	"$PF" snapshot "$R" "$S"
	# shellcheck disable=SC2016
	ABX_POWERFAIL_FUSE=1 pf_preload "$R" "$S" "$PF" run "$S" 20000 sh -c \
		'cd "$1" && mkdir -p x/y && printf deep >x/y/f && printf top >t && '"$how"' &&
		 printf kept >k && sync k && sync .' sh "$R" >/dev/null
	"$PF" restore "$S" "$O"
	# t's name is saved by the later fsync of its directory, not its data
	is "$(content "$O/x/y/f")|$(content "$O/t")" "<absent>|" "FUSE: $how saves nothing"
	is "$(content "$O/k")" "kept" "FUSE: fsync of a file and of its directory saves it"
done
done_testing
