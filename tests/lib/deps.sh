#!/bin/sh
# deps.sh — install the Debian packages abx builds, tests and benchmarks with.
# Installs only what is missing, after apt-get update; needs root (or sudo).
set -eu
# one package a line (merges of additions stay clean)
pkgs="
build-essential
pkg-config
libarchive-dev
libjsmn-dev
libinotifytools0-dev
libarchive-tools
libsqlite3-dev
mandoc
shellcheck
jq
wget
curl
python3
perl
procps
psmisc
file
strace
chromium
fonts-dejavu-core
wget2
libpsl-dev
publicsuffix
zlib1g-dev
libidn2-dev
libunistring-dev
python3-croniter
bc
openssl
iproute2
"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
