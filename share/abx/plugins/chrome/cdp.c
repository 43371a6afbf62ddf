/*
 * cdp.c — the Chrome DevTools Protocol over --remote-debugging-pipe, for
 * the chrome hook (chrome.c includes it; one program, one translation unit).
 *
 * Chromium started with --remote-debugging-pipe reads commands on its fd 3
 * and writes replies and events on its fd 4: each message one JSON object
 * followed by a NUL byte.  No WebSocket, no port: nothing else on the
 * machine can reach the browser.
 *
 *   cdp_t c = {.wfd = to_browser, .rfd = from_browser, .on_event = fn, .arg = a};
 *   cdp_call(&c, SESSION, "Page.navigate", "{\"url\":...}", deadline, &result);
 *   cdp_step(&c, deadline);          read and dispatch what comes, once
 *   cdp_free(&c);
 *
 * cdp_send writes {"id":N,"method":M,"params":P[,"sessionId":S]} and a NUL
 * (ids count up from 1; SESSION NULL: the browser itself).  cdp_step waits
 * (ppoll, the signal mask c->mask in effect while it waits, so that a
 * blocked SIGTERM wakes it) until the pipe has something or the deadline
 * (clock_mono µs) passes, reads it, and hands every whole message on: an
 * event (one with "method") to c->on_event(c, method, msg, arg), the reply
 * to the id cdp_call waits for into its result.  cdp_call sends, then
 * steps until that reply: 0 and *res the parsed "result" object; -1 with
 * c->why "METHOD: MESSAGE" for an error reply, "timed out waiting for
 * METHOD" at the deadline; -2 when the browser is gone (c->dead: the pipe
 * was closed or broken, c->why says how) or *c->stop was set (a signal).
 * A wait that times out also checks whether the browser (c->pid, when
 * set) has exited: a browser whose pipe a child of its own still holds
 * open is dead all the same.  A message that is not one JSON object is
 * dropped.  Nothing here exits.
 *
 * Through a kept browser (keep.c, keepclient.c) the same messages come
 * over a unix socket instead of the pipes (wfd and rfd are the socket),
 * and the keeper adds its own events: "Keeper.died" (the browser died;
 * params.why says how) marks c dead with that cause, as a closed pipe
 * does (c->told says the keeper said so); the others go to on_event.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/json.h"
#include "base/spawn.h"

typedef struct cdp cdp_t;
typedef void (*cdp_event_fn)(cdp_t *c, const char *method, const rec_t *msg, void *arg);

struct cdp {
	int wfd, rfd;                   /* to the browser (its 3), from it (its 4) */
	cdp_event_fn on_event;
	void *arg;
	const sigset_t *mask;           /* the mask while waiting; NULL: as it is */
	volatile sig_atomic_t *stop;    /* set by a signal handler: give up */
	long next;                      /* the last id sent */
	long want;                      /* the id cdp_call waits for */
	pid_t pid;                      /* the browser: its exit is its death */
	int got, dead;
	int told;                       /* the keeper said why it is dead */
	rec_t reply;                    /* the reply to want, when got */
	buf_t in;                       /* read, not yet a whole message */
	char why[512];
};

static void
cdp_free(cdp_t *c)
{
	buf_free(&c->in);
	if (c->got)
		rec_free(&c->reply);
	c->got = 0;
}

/* Send METHOD with PARAMS (a JSON object's text; NULL: {}) to SESSION. */
static long
cdp_send(cdp_t *c, const char *session, const char *method, const char *params)
{
	if (c->dead)
		return -1;
	buf_t m = {0};
	buf_addf(&m, "{\"id\":%ld,\"method\":", ++c->next);
	buf_json_strz(&m, method);
	buf_adds(&m, ",\"params\":");
	buf_adds(&m, params ? params : "{}");
	if (session) {
		buf_adds(&m, ",\"sessionId\":");
		buf_json_strz(&m, session);
	}
	buf_adds(&m, "}");
	buf_addc(&m, 0);
	for (size_t off = 0; off < m.len;) {
		ssize_t w = write(c->wfd, m.p + off, m.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(c->why, sizeof c->why, "cannot write to chromium's pipe: %s",
			    strerror(w < 0 ? errno : EPIPE));
			c->dead = 1;
			buf_free(&m);
			return -1;
		}
		off += w;
	}
	buf_free(&m);
	return c->next;
}

/* One whole message, len bytes at p. */
static void
cdp_dispatch(cdp_t *c, const char *p, size_t len)
{
	rec_t r;
	if (rec_parse(&r, p, len) < 0)
		return;
	char *method = rec_str(&r, "method");
	if (method) {
		if (!strcmp(method, "Keeper.died")) {
			const char *raw = rec_raw(&r, "params");
			rec_t p;
			char *why = NULL;
			if (raw && rec_parse(&p, raw, strlen(raw)) == 0) {
				why = rec_str(&p, "why");
				rec_free(&p);
			}
			snprintf(c->why, sizeof c->why, "%s", why ? why : "the kept chromium died");
			free(why);
			c->dead = c->told = 1;
		} else if (c->on_event)
			c->on_event(c, method, &r, c->arg);
		free(method);
	} else if (c->want && rec_int(&r, "id", -1) == c->want && !c->got) {
		c->reply = r;
		c->got = 1;
		return;
	}
	rec_free(&r);
}

static int
cdp_step(cdp_t *c, int64_t deadline)
{
	if (c->dead || (c->stop && *c->stop))
		return -1;
	int64_t left = deadline - clock_mono();
	if (left < 0)
		left = 0;
	struct timespec ts = {left / 1000000, (left % 1000000) * 1000};
	struct pollfd pf = {c->rfd, POLLIN, 0};
	int n = ppoll(&pf, 1, &ts, c->mask);
	if (n < 0 && errno != EINTR) {
		snprintf(c->why, sizeof c->why, "cannot wait for chromium's pipe: %s", strerror(errno));
		c->dead = 1;
		return -1;
	}
	if (c->stop && *c->stop)
		return -1;
	if (n == 0 && c->pid > 0) {
		int st;
		if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
			snprintf(c->why, sizeof c->why, "chromium exited (%d)", spawn_code(st));
			c->pid = 0;
			c->dead = 1;
			return -1;
		}
	}
	if (n <= 0)
		return 0;
	buf_grow(&c->in, 1 << 16);
	ssize_t r = read(c->rfd, c->in.p + c->in.len, c->in.cap - c->in.len - 1);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		snprintf(c->why, sizeof c->why, "chromium closed its pipe%s%s",
		    r < 0 ? ": " : " (it died)", r < 0 ? strerror(errno) : "");
		c->dead = 1;
		return -1;
	}
	size_t from = c->in.len;
	c->in.len += r;
	size_t start = 0;
	for (size_t i = from; i < c->in.len; i++)
		if (c->in.p[i] == 0) {
			cdp_dispatch(c, c->in.p + start, i - start);
			start = i + 1;
		}
	memmove(c->in.p, c->in.p + start, c->in.len - start);
	c->in.len -= start;
	return 0;
}

static int
cdp_call(cdp_t *c, const char *session, const char *method, const char *params, int64_t deadline,
    rec_t *res)
{
	memset(res, 0, sizeof *res);
	if (c->got)
		rec_free(&c->reply);
	c->got = 0;
	c->want = cdp_send(c, session, method, params);
	if (c->want < 0) {
		c->want = 0;
		return -2;
	}
	while (!c->got) {
		if (cdp_step(c, deadline) < 0) {
			c->want = 0;
			if (c->stop && *c->stop && !c->dead)
				snprintf(c->why, sizeof c->why, "interrupted");
			return -2;
		}
		if (!c->got && clock_mono() >= deadline) {
			c->want = 0;
			snprintf(c->why, sizeof c->why, "timed out waiting for %s", method);
			return -1;
		}
	}
	c->want = 0;
	c->got = 0;
	rec_t *r = &c->reply;
	const char *err = rec_raw(r, "error");
	int rc = 0;
	if (err) {
		rec_t e;
		char *m = NULL;
		if (rec_parse(&e, err, strlen(err)) == 0) {
			m = rec_str(&e, "message");
			rec_free(&e);
		}
		snprintf(c->why, sizeof c->why, "%s: %s", method, m ? m : err);
		free(m);
		rc = -1;
	} else {
		const char *raw = rec_raw(r, "result");
		if (!raw || rec_parse(res, raw, strlen(raw)) < 0)
			memset(res, 0, sizeof *res);
	}
	rec_free(r);
	return rc;
}
