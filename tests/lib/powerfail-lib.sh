# powerfail-lib.sh — build and drive the power-loss model (tests/lib/powerfail.c);
# source it after tap.sh.
# shellcheck shell=sh
#
#   pf_build || exit 0            # $PF (the tool) and $PF_SO (the shim) in $T
#   $PF snapshot "$ROOT" "$SHADOW"
#   pf_preload "$ROOT" "$SHADOW" $PF run "$SHADOW" 300 sh workload.sh
#   $PF restore "$SHADOW" "$OUT"
#   pf_plugin                     # plugin "pf" in $T/plugins (ABX_PLUGINS_DIR)
#
# pf_build compiles both with cc; if that fails, or if $BIN/abx-hook is
# linked statically (LD_PRELOAD cannot reach it), it prints a TAP skip plan
# and returns 1.  pf_preload runs a command with the shim preloaded and the
# shim's variables set; under an ASan build of abx it also tells ASan that
# the shim may come before its runtime in the library list.

pf_build() {
	PF=$T/powerfail
	PF_SO=$T/powerfail.so
	# the shim is preloaded: a static abx-hook (make's default) ignores it
	if command -v readelf >/dev/null 2>&1 && [ -x "$BIN/abx-hook" ] &&
		! readelf -l "$BIN/abx-hook" 2>/dev/null | grep -q 'program interpreter'; then
		echo "1..0 # SKIP $BIN/abx-hook is linked statically, so LD_PRELOAD cannot record its syncs (make check runs this on the sanitizer build; or build with make HOOK_STATIC=)"
		return 1
	fi
	if ! cc -shared -fPIC -O1 -Wall -Wextra -o "$PF_SO" "$TOP/tests/lib/powerfail.c" -ldl 2>"$T/pf-cc.err" ||
		! cc -O1 -Wall -Wextra -DPOWERFAIL_TOOL -o "$PF" "$TOP/tests/lib/powerfail.c" 2>>"$T/pf-cc.err"; then
		echo "1..0 # SKIP cannot build tests/lib/powerfail.c: $(head -c 300 "$T/pf-cc.err" | tr '\n' ' ')"
		return 1
	fi
	if [ -s "$T/pf-cc.err" ]; then
		diag "powerfail.c compiler warnings:"
		sed 's/^/#   /' "$T/pf-cc.err"
	fi
	export PF PF_SO
}

# pf_preload ROOT SHADOW CMD...: run CMD with the shim recording ROOT's syncs
pf_preload() {
	_pf_root=$1 _pf_shadow=$2
	shift 2
	ABX_POWERFAIL_ROOT=$_pf_root ABX_POWERFAIL_SHADOW=$_pf_shadow LD_PRELOAD=$PF_SO \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"
}

# pf_plugin: the plugin "pf" of the power-loss tests, in $T/plugins/pf,
# found through ABX_PLUGINS_DIR (exported): its hook fetches the page with
# curl into page.html, writes meta/headers.txt and meta/url.txt, and the
# page's outlinks into urls.jsonl (parse_html_urls --html), then reports
# "succeeded"; a page that cannot be fetched is "failed".  Three files and a
# subdirectory: what a record names and a power loss can take away.
pf_plugin() {
	mkdir -p "$T/plugins/pf"
	cat >"$T/plugins/pf/on_Snapshot__10_pf.sh" <<EOF
#!/bin/sh
url=
for a; do case \$a in --url=*) url=\${a#--url=} ;; esac; done
mkdir -p meta
if ! curl -sS -f --max-time 20 -D meta/headers.txt -o page.html -- "\$url"; then
	echo '{"type":"ArchiveResult","status":"failed","output_str":"curl failed"}'
	exit 1
fi
printf '%s\n' "\$url" >meta/url.txt
"$SHARE/abx/plugins/parse_html_urls/on_Snapshot__75_parse_html_urls.bin" --url="\$url" --html=page.html >/dev/null
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"pf/page.html"}'
EOF
	chmod +x "$T/plugins/pf/on_Snapshot__10_pf.sh"
	ABX_PLUGINS_DIR=$T/plugins
	export ABX_PLUGINS_DIR
}
