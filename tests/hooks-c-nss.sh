#!/bin/sh
# The wget hook looks up its page's host name through the system's NSS, as
# make links it (static: glibc's own "files" and "dns", any other source of
# nsswitch.conf loaded at run time; abx-internals(7), "The cost of a page").  In a
# private mount namespace, /etc/hosts names the page's host (a name under
# .test, RFC 6761) as 127.0.0.1 and nsswitch.conf puts a module glibc loads
# at run time (hesiod, shipped with glibc) before "files".  The page is
# then in the loopback zone, so its requisite on 127.0.0.1 is fetched: a
# hook that could not resolve the name takes the page as public and
# refuses that requisite.
# shellcheck source-path=SCRIPTDIR source=lib/mountns.sh
. "$(dirname "$0")/lib/mountns.sh"
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

NAME=abx-nss-page.test
mkdir -p "$T/root"
{
	cat /etc/hosts
	echo "127.0.0.1 $NAME"
} >"$T/hosts"
src=files
for d in /lib/*-linux-gnu /usr/lib/*-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
	if [ -e "$d/libnss_hesiod.so.2" ]; then
		src="hesiod files"
		break
	fi
done
printf 'hosts: %s\n' "$src" >"$T/nsswitch.conf"
if ! mount --bind "$T/hosts" /etc/hosts 2>"$T/mount.err" ||
	! mount --bind "$T/nsswitch.conf" /etc/nsswitch.conf 2>>"$T/mount.err"; then
	echo "1..0 # SKIP cannot bind /etc/hosts and /etc/nsswitch.conf: $(cat "$T/mount.err")"
	exit 0
fi
trap 'umount -l /etc/nsswitch.conf /etc/hosts 2>/dev/null; cleanup' EXIT
httpd_start --root "$T/root" --log "$T/requests.log" || exit 1
cat >"$T/root/page.html" <<EOS
<!doctype html><html><head><title>nss</title></head><body>
<img src="http://127.0.0.1:$HTTPD_PORT/loopback.png">
</body></html>
EOS
printf '\211PNG\r\n\032\n' >"$T/root/loopback.png"
H=$(ls "$SHARE"/abx/plugins/wget/on_Snapshot__*)
diag "hosts: $src; the hook: $(file -b "$H" 2>/dev/null | cut -d, -f1-4)"

# wget_hook DIR URL [VAR=value...]: the wget hook on URL, cwd DIR/wget
wget_hook() {
	_wd=$1 _u=$2
	shift 2
	mkdir -p "$_wd/wget"
	: >"$T/requests.log"
	(cd "$_wd/wget" && env -u ALLOW_PRIVATE_NETWORKS TIMEOUT=30 WGET_SAVE_WARC=false "$@" "$H" \
		--url="$_u" >"$_wd/out" 2>"$_wd/err")
}
fetched() { sed -n 's|^/\(.*\)\.png$|\1|p' "$T/requests.log" | sort | tr '\n' ' '; }

expect_exit 0 "the wget hook archives a page whose host is a name ($NAME) only /etc/hosts knows" \
	wget_hook "$T/a" "http://$NAME:$HTTPD_PORT/page.html"
is "$(jq -r .status "$T/a/out")" succeeded "and succeeds"
is "$(fetched)" "loopback " "the name resolved to loopback: the page's own zone, so its requisite there is fetched"

expect_exit 0 "with ALLOW_PRIVATE_NETWORKS=false, the same" \
	wget_hook "$T/b" "http://$NAME:$HTTPD_PORT/page.html" ALLOW_PRIVATE_NETWORKS=false
is "$(fetched)" "loopback " "the page's own zone is always allowed"

# what the hook gives wget: a stand-in that records its arguments
cat >"$T/wget-args" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$T/args"
exit 4
EOF
chmod +x "$T/wget-args"
# has WHAT: the --reject-regex wget was given holds the text WHAT
has() { grep '^--reject-regex=' "$T/args" | grep -qF -- "$1"; }
wget_hook "$T/c" "http://$NAME:$HTTPD_PORT/page.html" WGET_BINARY="$T/wget-args"
ok "the regex wget gets for the page on $NAME refuses the other private zones (0.0.0.0/8)" \
	has '|0\.[0-9.]+|'
ok "but not its own, loopback" sh -c "! grep '^--reject-regex=' '$T/args' | grep -qF '127\.'"
# a name nothing knows: unresolved, the page is taken as public (the stand-in
# is all that runs: no request is made)
wget_hook "$T/d" "http://abx-nss-none.test:$HTTPD_PORT/page.html" WGET_BINARY="$T/wget-args"
ok "a page whose host does not resolve is public: loopback is refused too" has '|127\.[0-9.]+|'
done_testing
