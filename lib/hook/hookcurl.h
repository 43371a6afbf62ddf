/*
 * hookcurl.h — curl run as the shell hooks' hook_curl ran it (it is gone from hook.sh), for the
 * shipped hooks written in C (title, headers):
 *
 *   $CURL_BINARY (default curl, looked up in PATH) --silent --show-error
 *     --location --max-redirs 10 --proto =http,https --proto-redir
 *     =http,https --max-time T --user-agent UA [--insecure]
 *     [--cookie FILE] ARGS... -- URL
 *
 * with --insecure when CHECK_SSL_VALIDITY is false, --cookie when
 * COOKIES_FILE names a readable file, UA $USER_AGENT else abx's default,
 * and the URL's spaces sent as %20 (curl refuses a URL with a space; a
 * browser sends %20) and its trailing newlines dropped.
 *
 * curl is started by spawn() (spawn.h: every signal at its default, none
 * blocked, in the hook's process group), its stdin /dev/null; its stdout
 * and stderr are unlinked temp files (hook_tmpfile), read back into
 * r->out and r->err when it has exited; if fd3 >= 0 it is curl's
 * descriptor 3, so that an ARG can name /dev/fd/3 (--output,
 * --dump-header) and nothing is left behind by a kill.  Nothing else of
 * ours is open in curl.
 *
 * SIGTERM and SIGINT are blocked from the start (hook_curl_block, the
 * first thing a hook's main does) and waited for with curl's exit
 * (sigtimedwait): one that came before curl started, or while it runs,
 * stops it (SIGTERM) and is named in r->sig, as is one still pending when
 * it has ended; the caller prints its "interrupted" result.  One that
 * comes after the last fetch waits while the hook finishes its result.
 * Returns curl's exit status (128 + N if signal N ended it), or -1 if it
 * could not be run (r->why says why).
 */
#ifndef ABX_HOOKCURL_H
#define ABX_HOOKCURL_H

#include "base/buf.h"

typedef struct {
	int sig;           /* SIGTERM or SIGINT that came, else 0 */
	buf_t out, err;    /* curl's stdout and stderr */
	char why[512];     /* why it could not be run */
} hcurl_t;

void hook_curl_block(void);
int hook_curl_run(const char *url, const char *const args[], long timeout, int fd3, hcurl_t *r);
/* As hook_curl_run, with fd4 (if >= 0) as curl's descriptor 4 too
 * (/dev/fd/4), and /dev/null on 3 if fd3 is -1. */
int hook_curl_run2(const char *url, const char *const args[], long timeout, int fd3, int fd4, hcurl_t *r);
void hcurl_free(hcurl_t *r);
/* After hook_curl_run returned rc: 0 if curl succeeded; else 1, with
 * curl's stderr (or why it could not run) copied to ours and, in msg, the
 * result's words: its last line, else "curl failed". */
int hook_curl_failed(int rc, const hcurl_t *r, char *msg, size_t n);
/* An unlinked read-write temp file in $TMPDIR, else /tmp; -1 (errno). */
int hook_tmpfile(void);
/* Append what fd holds, read from offset 0, to b: at most max bytes (0: all). */
void hook_slurp(int fd, buf_t *b, size_t max);
/* The result's words for r->sig: "interrupted by SIGINT" or "... SIGTERM". */
const char *hook_curl_interrupted(int sig);
/* The last line of b (without its newline), into out; "" if none. */
void hook_last_line(const buf_t *b, char *out, size_t n);

/*
 * HTTP status is data (abx(7), HTTP STATUS): a page the site answered with
 * 4xx or 5xx was captured as it was answered, and the hook that fetched it
 * succeeded, as Heritrix and Browsertrix record a 404 as a capture; so a
 * broken link deep in a crawl is no failure under cron and no work for
 * retry --failed.  The exceptions, which fail:
 *   - the snapshot is a seed: EXTRA_CONTEXT's snapshot_depth is 0, or there
 *     is no snapshot_depth (a hook run by hand outside abx-hook), since a
 *     seed that is missing is what the user must hear about;
 *   - FAIL_ON_HTTP_ERROR is true (Browsertrix's --failOnInvalidStatus).
 * hook_http_fails(CODE): 1 if CODE is 400 or above and one of these holds.
 *
 * hook_print_http(STATUS, OUTPUT_STR, ERROR, CODE, TITLE): one Snapshot
 * line, {"type":"Snapshot","title":TITLE,"http_status":CODE} (the
 * snapshot's record keeps them: results.h), each member only when given
 * (TITLE not NULL, CODE above 0) and none at all without either; then the
 * ArchiveResult line of hook_print, with "output_json":{"http_status":CODE}
 * when CODE is above 0.
 */
int hook_http_fails(long code);

/*
 * The egress gate's own answer is no answer from the site (abx-gate(1)):
 * a response whose head has an X-Abx-Gate header (lib/net/gateconn.c:
 * 502 when the host does not resolve or refused the connection, 403 for
 * a zone the crawl may not enter, 503 when paced in vain) is the gate
 * speaking, and its status is not the page's http_status.
 * hook_gate_answer(HEAD, BODY, URL, MSG, N): HEAD what curl's
 * --dump-header wrote (a block a response, the last the final one's);
 * if the last block has X-Abx-Gate and answers a plain http request (the
 * scheme of URL, then of each 3xx's absolute Location): 1, and MSG gets
 * "no answer: the
 * egress gate " and the rest of the first line of BODY when it begins
 * "abx-gate " (the gate's sentence, e.g. "no answer: the egress gate
 * could not reach URL: could not connect to 127.0.0.1 port 1 (of
 * 127.0.0.1): Connection refused"), else words made of the header and
 * the status naming URL.  Else 0.  BODY may be NULL.  Why only http: the
 * gate drops the header from every head it relays in the clear, so there
 * a site cannot pass its answer off as the gate's; an https answer comes
 * through a tunnel the gate does not read (a CONNECT the gate refuses
 * makes curl fail, with the gate's status in its message).
 */
int hook_gate_answer(const buf_t *head, const buf_t *body, const char *url, char *msg, size_t n);
void hook_print_http(const char *status, const char *output_str, const char *error, long code,
    const buf_t *title);

#endif
