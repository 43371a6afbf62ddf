#!/bin/sh
# The wget hook fetches an https page: tests/httpd.py --tls serves the test
# site with a certificate made here for 127.0.0.1.  The hook starts wget with
# GNUTLS_NO_IMPLICIT_INIT=1 (GnuTLS does not set itself up when it is loaded;
# wget sets it up before its first TLS connection), and wget still checks
# the certificate: with the certificate given as a CA the page and its
# requisites are saved over TLS, without it the page fails and names the
# certificate, and CHECK_SSL_VALIDITY=false fetches it anyway.
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"
# shellcheck source-path=SCRIPTDIR source=lib/httpd.sh
. "$(dirname "$0")/lib/httpd.sh"

WH=$SHARE/abx/plugins/wget/on_Snapshot__06_wget.finite.bg.bin
WGET=$(command -v wget)
plan 9

if ! openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >"$T/openssl.out" 2>&1; then
	diag "openssl could not make a certificate: $(head -c 400 "$T/openssl.out")"
	exit 1
fi
cat "$T/key.pem" "$T/cert.pem" >"$T/server.pem"
httpd_start --tls "$T/server.pem" --log "$T/requests.log" || exit 1
S="https://127.0.0.1:$HTTPD_PORT"

# wget, recording the GNUTLS_NO_IMPLICIT_INIT it was given
cat >"$T/wget-env" <<EOF
#!/bin/sh
printf '%s\n' "\${GNUTLS_NO_IMPLICIT_INIT-unset}" >"$T/gnutls"
exec "$WGET" "\$@"
EOF
chmod +x "$T/wget-env"

# run DIR [VAR=value...]: the wget hook on $S/site/ with cwd DIR (made),
# stdout in $T/out, its exit code in $rc
run() {
	_d=$1
	shift
	mkdir -p "$_d"
	(cd "$_d" && exec env -u GNUTLS_NO_IMPLICIT_INIT PATH=/nonexistent TIMEOUT=30 \
		WGET_BINARY="$T/wget-env" "$@" "$WH" --url="$S/site/" >"$T/out" 2>"$T/err")
	rc=$?
}
field() { jq -r "select(.type == \"ArchiveResult\") | .$1" "$T/out"; }

run "$T/a/wget" WGET_ARGS_EXTRA="--ca-certificate=$T/cert.pem"
is "$rc/$(field status)" "0/succeeded" "an https page whose certificate is trusted: succeeded"
is "$(cat "$T/gnutls")" "1" "with wget started under GNUTLS_NO_IMPLICIT_INIT=1"
is "$(field output_str)" "wget/127.0.0.1+$HTTPD_PORT/site/index.html" "and names the page it saved"
like "$(cat "$T/a/wget/127.0.0.1+$HTTPD_PORT/site/index.html" 2>&1)" "<title>abx test site</title>" \
	"which is the page, fetched over TLS"
ok "its requisites came over TLS too" grep -qx '/site/style.css' "$T/requests.log"
ok "and the WARC records the https URL" \
	sh -c "gzip -dc '$T'/a/wget/warc/*.warc.gz | grep -q 'WARC-Target-URI: <$S/site/>'"

run "$T/b/wget"
is "$rc/$(field status)" "1/failed" "a certificate no CA vouches for: failed (wget still checks it)"
like "$(field error)" "certificate" "and the error names the certificate"

run "$T/c/wget" CHECK_SSL_VALIDITY=false
is "$rc/$(field status)" "0/succeeded" "CHECK_SSL_VALIDITY=false: the same page is fetched"
