#!/bin/sh
# The egress gate in a crawl (abx(7) SECURITY, lib/hook/phase_gate.c): every
# shipped hook that fetches goes through the gate abx-hook starts, which
# refuses by the address a connection goes to.  The site is on 127.0.0.1
# (the seed's zone, loopback, is allowed); its page's requisites, icon and
# the targets of its redirects are on 0.0.0.0 (the unspecified zone), which
# Linux delivers to the same server: its log shows what got through, and
# nothing leaves the machine.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/procs.sh"

python3 "$TOP/tests/lib/gatesite.py" "$T/port" "$T/site.log" 0.0.0.0 2>"$T/site.err" &
i=0
while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$T/port" ] || { echo "1..0 # SKIP the test site did not start: $(head -c 300 "$T/site.err")"; exit 0; }
P=$(cat "$T/port")
BASE=http://127.0.0.1:$P
if command -v chromium >/dev/null 2>&1; then PL=wget,title,favicon,headers,dom; else PL=wget,title,favicon,headers; fi
export CHROME_SANDBOX=false TIMEOUT=40

# crawl DIR URL [VAR=value...]: archive URL at depth 0 with $PL to the end
crawl() {
	_d=$1 _u=$2
	shift 2
	: >"$T/site.log"
	env "$@" abx-add -d "$_d" --depth 0 --plugins "$PL" "$_u" >/dev/null &&
		env "$@" abx-tick -d "$_d" >"$_d.out" 2>"$_d.err"
}
# private: what reached 0.0.0.0 (asked for with that Host)
private() { grep -e '^0\.0\.0\.0' -e '^\[::ffff' "$T/site.log" | cut -d' ' -f2 | sort | tr '\n' ' '; }
notes() { abx-ls -d "$1" -k result --jsonl | jq -r "select(.plugin == \"$2\") | .notes"; }

crawl "$T/a" "$BASE/page"
is "$(private)" "" "nothing on 0.0.0.0 was fetched: no requisite, script, style sheet or icon"
is "$(abx-ls -d "$T/a" -k snapshot --jsonl | jq -r .sealed_reason)" archived "the page itself is archived"
like "$(notes "$T/a" wget)" "egress gate refused .*0\.0\.0\.0:$P/img2\.png.*unspecified" \
	"the wget result's notes name a requisite refused after a redirect, and its zone"
like "$(notes "$T/a" favicon)" "egress gate refused .*i\.ico.*unspecified" "the favicon result's notes name the icon"
if [ "$PL" != "${PL%dom}" ]; then
	like "$(notes "$T/a" dom)" "egress gate refused .*unspecified" "chromium (dom) went through the gate too"
else
	skip "chromium not installed"
fi
ok "the gate is gone with the phase" none_in "$T/a"

crawl "$T/b" "$BASE/away"
is "$(private)" "" "a page that redirects into another zone: its target is not fetched"
is "$(abx-ls -d "$T/b" -k snapshot --jsonl | jq -r .sealed_reason)" network_zone "the page is sealed network_zone"
is "$(abx-ls -d "$T/b" -k result --jsonl | jq -r 'select(.plugin == "wget") | .network_zone')" unspecified \
	"the wget result names the zone of the page's refused fetch"
like "$(notes "$T/b" title)" "0\.0\.0\.0:$P/secret \(0\.0\.0\.0, unspecified\)" "so do the title hook's notes"

crawl "$T/c" "$BASE/page" ALLOW_PRIVATE_NETWORKS=unspecified
like "$(private)" "/img.png" "with ALLOW_PRIVATE_NETWORKS=unspecified the requisites are fetched (the control)"
is "$(abx-ls -d "$T/c" -k result --jsonl | jq -r 'select(.notes | test("egress gate")) | .plugin')" "" \
	"and nothing is refused"

# what a hook is given: the proxy variables, never the user's no_proxy
mkdir -p "$T/plugins/envp"
cat >"$T/plugins/envp/on_Snapshot__50_envp.sh" <<'EOS'
#!/bin/sh
env | grep -i -e '^[a-z_]*proxy=' -e '^ABX_GATE=' | sort >env.txt
echo '{"type":"ArchiveResult","status":"succeeded","output_str":"env.txt"}'
EOS
chmod +x "$T/plugins/envp/on_Snapshot__50_envp.sh"
envp() {
	_d=$1
	shift
	mkdir -p "$_d" && printf 'no_proxy=*\nNO_PROXY=*\n' >"$_d/abx.conf"
	env ABX_PLUGINS_DIR="$T/plugins" no_proxy='*' http_proxy=http://127.0.0.1:9/ "$@" \
		abx-add -d "$_d" --depth 0 --plugins envp "$BASE/page" >/dev/null &&
		env ABX_PLUGINS_DIR="$T/plugins" no_proxy='*' "$@" abx-tick -d "$_d" >/dev/null 2>&1
	cat "$_d"/crawls/*/*/envp/env.txt
}
E=$(envp "$T/e")
g=$(echo "$E" | sed -n 's/^ABX_GATE=//p')
like "$g" '^127\.0\.0\.1:[0-9]+$' "a hook gets ABX_GATE ($g)"
is "$(echo "$E" | grep -c "=http://$g/\$")" 6 "and http_proxy, https_proxy, HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, all_proxy at it"
is "$(echo "$E" | grep -ci '^no_proxy=')" 0 "no_proxy and NO_PROXY from the environment and abx.conf are removed"
E=$(envp "$T/f" ALLOW_PRIVATE_NETWORKS=true)
like "$(echo "$E" | sed -n 's/^ABX_GATE=//p')" '^127\.0\.0\.1:[0-9]+$' "a crawl that may enter every zone still has a gate: it paces (gate-pace.sh)"

done_testing
