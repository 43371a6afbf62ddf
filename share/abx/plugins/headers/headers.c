/*
 * headers.c — the headers hook: the page's HTTP response headers, as
 * headers.json.  Built as on_Snapshot__55_headers.bin beside this file.
 *
 *   on_Snapshot__55_headers.bin --url=URL      (cwd = <snapshot>/headers/)
 *
 * A hook by ArchiveBox's contract (settings in the environment, JSONL on
 * stdout, logs on stderr; exit 0 succeeded, 10 skipped, else 1), in C
 * because a shell version started seven programs for one page (mktemp,
 * curl, tr, awk, jq, mv, rm): this one starts none when the snapshot
 * captured the page, else curl alone (abx-internals(7), "The cost of a
 * page").
 *
 * Numbered 55: after the chrome hook (29) and the finite background wget
 * hook (06; a hook numbered 50 or more waits for it, phase.h), so that the
 * headers are those of the response the snapshot archived, read from its
 * capture (abx-plugins' headers hook, on_Snapshot__27_headers.daemon.bg.js,
 * likewise records the browser's own navigation).  The site is not asked
 * again (issue 28, "Capture once").
 *
 * 0. HEADERS_ENABLED false: "skipped".  No --url, or one beginning with
 *    "-": "failed".  Not http(s): "skipped".  The timeout is
 *    HEADERS_TIMEOUT, else TIMEOUT, else 60 seconds.
 * 1. From the snapshot's capture (../_lib/capture.c: the chrome hook's
 *    WARC of this run, else wget's; redirects followed in it): the final
 *    response's status and head; when the browser loaded it, its
 *    headers.json (written as below) is taken as it is.  Nothing captured
 *    (no $ABX_RUN, neither hook selected, or both failed): GET the URL
 *    with curl as hook.sh's hook_curl ran it (hookcurl.h: body discarded,
 *    redirects followed, through the egress gate, the headers of every
 *    response dumped into an unlinked temp file).  A HEAD would not do:
 *    servers answer it differently.  curl failed (no response): its stderr
 *    is copied to ours, and the result is "failed" with its last line
 *    (else "curl failed").  The last response is the egress gate's own
 *    (hook_gate_answer, hookcurl.h: it has X-Abx-Gate; the site gave no
 *    answer, e.g. it refused the connection): "failed", with no
 *    http_status, output_str and notes the gate's cause ("no answer: the
 *    egress gate could not reach URL ..."), also on stderr.
 * 2. Keep the last response's block (the lines after the last one that
 *    begins "HTTP/", CRs dropped): each line "Name: value" (a name of at
 *    least one character, not beginning with a space or tab), the name
 *    lower-cased, the spaces and tabs after the colon dropped, a repeated
 *    header's values joined with ", " (RFC 9110 5.3); the status code
 *    (0 if curl gave none) first, as the number under "status", which a
 *    "Status:" header replaces.  Written as headers.json, two-space
 *    indented as jq(1) writes it:
 *      {
 *        "status": 200,
 *        "content-type": "text/html"
 *      }
 * 3. "succeeded" whatever the status (the headers of a 404 are the record
 *    of a 404), output_str "headers.json (HTTP <code>)", over
 *    $EXTRA_CONTEXT's members (hookenv.h), with the code as the snapshot's
 *    http_status and output_json {"http_status":<code>} (hook_print_http,
 *    hookcurl.h; none when curl gave no code).
 * SIGTERM or SIGINT stops curl and prints a "failed" result, "interrupted
 * by SIGTERM" (exit 143) or "by SIGINT" (130).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "hook/hookcurl.h"
#include "hook/hookenv.h"

#include "../_lib/capture.c"

static hcurl_t curl;
static buf_t head;
static long http_code;   /* the last response's status, once curl told it */

/* The headers of the last block: names[i] (lower case), vals[i]. */
typedef struct {
	buf_t *names, *vals;
	size_t n;
} hdrs_t;

static hdrs_t h;

static void
hdrs_clear(void)
{
	for (size_t i = 0; i < h.n; i++)
		buf_free(&h.names[i]), buf_free(&h.vals[i]);
	free(h.names), free(h.vals);
	memset(&h, 0, sizeof h);
}

static noreturn void
done(const char *status, const char *output_str, const char *error)
{
	hook_print_http(status, output_str, error, http_code, NULL);
	hcurl_free(&curl);
	buf_free(&head);
	hdrs_clear();
	exit(hook_exit_code(status, curl.sig));
}

/* Add "name: value" (line, n bytes) to the block, or join its value. */
static void
add_header(const char *line, size_t n)
{
	const char *colon = memchr(line, ':', n);
	if (!colon || colon == line)
		return;
	buf_t name = {0};
	for (const char *p = line; p < colon; p++)
		buf_addc(&name, *p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	const char *v = colon + 1, *end = line + n;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	for (size_t i = 0; i < h.n; i++)
		if (h.names[i].len == name.len && !memcmp(h.names[i].p, name.p, name.len)) {
			buf_adds(&h.vals[i], ", ");
			buf_add(&h.vals[i], v, end - v);
			buf_free(&name);
			return;
		}
	h.names = xrealloc(h.names, (h.n + 1) * sizeof *h.names);
	h.vals = xrealloc(h.vals, (h.n + 1) * sizeof *h.vals);
	h.names[h.n] = name;
	memset(&h.vals[h.n], 0, sizeof h.vals[h.n]);
	buf_add(&h.vals[h.n], v, end - v);
	buf_cstr(&h.vals[h.n]);
	h.n++;
}

int
main(int argc, char **argv)
{
	err_init(argv[0]);
	hook_curl_block();   /* a signal from now on gets its result */
	signal(SIGPIPE, SIG_IGN);
	char msg[1024];
	hook_verdict_t v;
	const char *url = hook_start(argc, argv, "HEADERS", 1, &v);
	if (!url)
		done(v.status, v.out, v.err);

	/* 1. the headers: the capture's, else a fetch */
	char codebuf[32];
	const char *code;
	buf_t json = {0};
	cpage_t cp;
	if (cap_page(url, hook_timeout("HEADERS_TIMEOUT") * 0.8, &cp) == 0) {
		http_code = cp.status;
		snprintf(codebuf, sizeof codebuf, "%ld", http_code);
		code = codebuf;
		if (!strcmp(cp.src, "chrome") && cap_file("chrome/headers.json", &json) < 0)
			buf_reset(&json);
		buf_add(&head, cp.head.p, cp.head.len);
		cpage_free(&cp);
	} else {
		int fd = hook_tmpfile();
		if (fd < 0) {
			snprintf(msg, sizeof msg, "cannot create a temp file: %s", strerror(errno));
			done("failed", msg, msg);
		}
		const char *args[] = {"--output", "/dev/null", "--dump-header", "/dev/fd/3", "--write-out",
		                      "%{http_code}", NULL};
		int rc = hook_curl_run(url, args, hook_timeout("HEADERS_TIMEOUT"), fd, &curl);
		if (curl.sig)
			done("failed", hook_curl_interrupted(curl.sig), NULL);
		if (hook_curl_failed(rc, &curl, msg, sizeof msg))
			done("failed", msg, msg);
		code = buf_cstr(&curl.out);
		if (!*code || strspn(code, "0123456789") != strlen(code) || strlen(code) > 9)
			code = "0";
		http_code = atol(code);
		hook_slurp(fd, &head, 0);
		close(fd);
		if (hook_gate_answer(&head, NULL, url, msg, sizeof msg)) {
			http_code = 0;   /* the gate's status, not the site's */
			fprintf(stderr, "%s\n", msg);
			done("failed", msg, msg);
		}
	}
	long status = http_code;

	/* 2. the last block */
	size_t w = 0;
	for (size_t i = 0; i < head.len; i++)
		if (head.p[i] != '\r')
			head.p[w++] = head.p[i];
	head.len = w;
	for (size_t i = 0; i < head.len && !json.len;) {
		char *nl = memchr(head.p + i, '\n', head.len - i);
		size_t len = nl ? (size_t)(nl - head.p) - i : head.len - i;
		const char *l = head.p + i;
		if (len >= 5 && !memcmp(l, "HTTP/", 5))
			hdrs_clear();
		else if (len > 1 && l[0] != ' ' && l[0] != '\t' && memchr(l + 1, ':', len - 1))
			add_header(l, len);
		i += len + 1;
	}
	if (json.len)
		goto write;   /* the browser's, as it wrote it */
	buf_addf(&json, "{\n  \"status\": ");
	size_t at = json.len;
	buf_addf(&json, "%ld", status);
	for (size_t i = 0; i < h.n; i++) {
		if (!strcmp(buf_cstr(&h.names[i]), "status")) {
			/* a Status: header takes the place of the code */
			buf_t t = {0};
			buf_add(&t, json.p, at);
			buf_json_str(&t, h.vals[i].p, h.vals[i].len);
			buf_add(&t, json.p + at + strcspn(json.p + at, ",\n"),
			    json.len - at - strcspn(json.p + at, ",\n"));
			buf_free(&json);
			json = t;
			continue;
		}
		buf_adds(&json, ",\n  ");
		buf_json_str(&json, h.names[i].p, h.names[i].len);
		buf_adds(&json, ": ");
		buf_json_str(&json, h.vals[i].p ? h.vals[i].p : "", h.vals[i].len);
	}
	buf_adds(&json, "\n}\n");

	/* 3. headers.json */
write:;
	int ok = hook_write_file("headers.json", json.p, json.len) == 0, err = errno;
	buf_free(&json);
	if (!ok) {
		snprintf(msg, sizeof msg, "cannot write headers.json: %s", strerror(err));
		done("failed", msg, msg);
	}
	snprintf(msg, sizeof msg, "headers.json (HTTP %s)", code);
	done("succeeded", msg, NULL);
}
