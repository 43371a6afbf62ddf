#!/bin/sh
# Every tool: --version; --help prints every option of its man page's
# SYNOPSIS on a line of its own and names the man page; a usage error says
# what was wrong, as a fatal error (never "warning:"), and exits 64.
. "$(dirname "$0")/lib/tap.sh"
for tool in abx-add abx-claim abx-hook abx-seal abx-tick abx-ls abx-ctl; do
	expect_exit 0 "$tool --version" "$tool" --version
	like "$(cat "$T/stdout")" "^$tool \(abx\) [0-9]" "$tool --version prints its name and version"
	expect_exit 0 "$tool --help" "$tool" --help
	cp "$T/stdout" "$T/help"
	like "$(cat "$T/help")" "man $tool" "$tool --help names its man page"
	# each flag of the SYNOPSIS starts a line of the help
	flags=$(awk '/^\.Sh SYNOPSIS/{p=1;next} /^\.Sh/{p=0} p' "$TOP/man/$tool.1" |
		grep -o 'Fl [-a-z]*' | sed 's/^Fl /-/' | sort -u)
	missing=
	for f in $flags; do
		grep -Eq -- "^ +(-[a-z], )?$f([ ,=]|$)" "$T/help" || missing="$missing $f"
	done
	is "$missing" "" "$tool --help has a line for every option of its SYNOPSIS"
	expect_exit 0 "$tool -h" "$tool" -h
done

usage_error() {   # usage_error DESC REGEX CMD...
	_desc=$1 _re=$2; shift 2
	expect_exit 64 "$_desc" "$@"
	like "$(head -n 1 "$T/stderr")" "^$1: fatal: .*$_re" "$_desc: says what was wrong, as fatal"
	if grep -q 'warning:' "$T/stderr"; then fail "$_desc: no warning:"; else pass "$_desc: no warning:"; fi
	like "$(cat "$T/stderr")" "usage: $1" "$_desc: and prints the usage"
}
usage_error "abx-ctl without a command" "no command given" abx-ctl
usage_error "abx-ctl with an unknown command" "unknown command frob; the commands are: pause" abx-ctl frob x
usage_error "abx-ctl pause without an id" "pause takes one or more ids" abx-ctl pause
usage_error "abx-ctl status with an operand" "status takes no operand" abx-ctl status x
usage_error "abx-ctl remove with --plugins" "remove does not take --plugins" abx-ctl remove --plugins wget x
usage_error "abx-ctl retry with nothing to retry" "retry wants an ID, or --failed" abx-ctl retry
usage_error "abx-add --depth 9" "--depth must be 0 to 4: 9" abx-add --depth 9 http://127.0.0.1:1/
usage_error "abx-claim -l with no number" "-l wants a number of seconds: x" abx-claim -l x
usage_error "abx-hook without an id" "no ID given" abx-hook
usage_error "abx-seal without an id" "no ID given" abx-seal
usage_error "abx-seal --index with an id" "--index takes no ID" abx-seal --index x
usage_error "abx-seal -f without --pack" "-f goes with --pack" abx-seal -f 01234567-89ab-7cde-8f01-23456789abcd
usage_error "abx-tick --poll without --daemon" "--poll goes with --daemon" abx-tick --poll 5
usage_error "abx-tick with an operand" "no operand is taken: x" abx-tick x
usage_error "abx-ls --crawl with ids" "--crawl goes without ID operands" abx-ls --crawl 01234567-89ab-7cde-8f01-23456789abcd 01234567-89ab-7cde-8f01-23456789abcd
done_testing
