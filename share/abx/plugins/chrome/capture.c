/*
 * capture.c — one load of one page in a browser already started, and
 * everything the chrome hook keeps of it (chrome.c includes it, after
 * cdp.c and warcwrite.c).
 *
 * capture_page(C, CP, URL, DEADLINE): over the pipe C (cdp.c),
 *  0. with CP->proxy (a kept browser, keep.c: the snapshot's egress gate,
 *     HOST:PORT), a browser context of its own (Target.createBrowserContext:
 *     off the record, nothing shared with other snapshots' contexts), its
 *     proxy the gate with loopback not bypassed ("<-loopback>"), into
 *     CP->context; cap_dispose disposes of it, its tab with it;
 *  1. a new tab (Target.createTarget about:blank, in that context if any),
 *     attached in flat mode
 *     (Target.attachToTarget: its events and commands carry its sessionId);
 *     Page.enable, Network.enable (with buffers large enough that the
 *     bodies are still there at the end), the viewport CP->width x
 *     CP->height (Emulation.setDeviceMetricsOverride); and, unless URL is
 *     itself a /favicon.ico, Network.setBlockedURLs "*\/favicon.ico":
 *     the browser asks for a site's icon at every load of a fresh
 *     context, and the favicon hook fetches it once per site and crawl;
 *     a page's own <link rel=icon> is loaded as any other resource;
 *  2. Page.navigate URL; an errorText (net::ERR_...) fails the capture
 *     with it.  Then events until Page.loadEventFired and a network idle
 *     (no request in flight for IDLE_US, at most SETTLE_US after the load),
 *     or 60% of the time left: a page that has not loaded by then is
 *     captured as it is, and CP->note says so;
 *  3. document.title (Runtime.evaluate) into CP->title; the href of the
 *     first <link> whose rel has the token "icon" (any case), resolved by
 *     the browser against the document's base, into CP->icon (empty if
 *     none, if its href is empty, or if it is not http(s)); the DOM
 *     serialised, its doctype first as chromium's --dump-dom writes it,
 *     into CP->dom; Page.captureScreenshot (PNG) into CP->png;
 *     Page.printToPDF (backgrounds printed) into CP->pdf;
 *  4. for every request that finished loading, its body
 *     (Network.getResponseBody, base64-decoded when CDP says so).
 * Each request the page made is in CP->req, in the order it was sent: a
 * redirect is a request of its own (the hop's response, no body), with
 * the same requestId as the request it led to.  The main document is the
 * last request whose requestId is the navigation's loaderId (cap_main).
 * Returns 0; -1 with C->why when a step failed; -2 when the browser died
 * or a signal came (C->dead, *C->stop).
 *
 * cap_warc(CP, FD): the WARC records of CP->req into FD (warcwrite.c): a
 * warcinfo record, then for each http(s) request that has a response (and
 * a body, unless its status has none: 1xx, 204, 304, or a redirect) a
 * response record and its request record, each naming the other in
 * WARC-Concurrent-To.  The response's head is rebuilt from CDP: "HTTP/1.1
 * <status> <text>", the headers as CDP gave them (one line per value: CDP
 * joins a repeated header's values with newlines), but for the body's
 * framing (Content-Encoding, Transfer-Encoding, Content-Length: the body
 * CDP gives is decoded) and HTTP/2's pseudo-headers, then the decoded
 * body's Content-Length.  The request's: "<method> <path> HTTP/1.1", Host
 * (unless CDP gave one), the headers, then the POST data if any.
 * Returns the number of response records, or -1 (errno).
 *
 * cap_headers(CP, OUT): headers.json of the main document's final response
 * as the headers plugin writes it (headers.c): {"status": N, then each
 * header, its name lower-cased, repeated values joined with ", "},
 * two-space indented; -1 if there is no main response.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/json.h"

/* The href of the first <link> whose rel has the token "icon" (any case),
 * as the browser resolved it against the document's base; "" if there is
 * none, its href is empty or it is not http(s). */
#define ICON_JS "{\"expression\":\"(function (e) { var h = e && e.getAttribute('href') ? e.href : '';" \
	" return /^https?:/i.test(h) ? h : ''; })(document.querySelector('link[rel~=icon i]'))\"," \
	"\"returnByValue\":true}"

#define IDLE_US   500000      /* no request in flight this long: idle */
#define SETTLE_US 3000000     /* at most this long after the load event */

enum { RQ_FLIGHT, RQ_DONE, RQ_FAILED, RQ_REDIRECTED };

typedef struct {
	char *id, *url, *method, *reqhdr, *post;
	int status, state, has_body;
	char *stext, *resphdr;
	char date[24];             /* WARC-Date of the response */
	buf_t body;
} netreq_t;

typedef struct {
	int width, height;
	const char *proxy;         /* a kept browser's: the gate, HOST:PORT */
	char *context;             /* the browser context made for it */
	char *target, *session, *loader;
	int loaded, crashed;
	int64_t loaded_at, last_net;
	netreq_t *req;
	size_t nreq, capreq;
	buf_t title, dom, png, pdf;
	buf_t icon;                /* the page's icon link, resolved; "": none */
	char note[256];
} cap_t;

static void
cap_free(cap_t *cp)
{
	for (size_t i = 0; i < cp->nreq; i++) {
		netreq_t *r = &cp->req[i];
		free(r->id), free(r->url), free(r->method), free(r->reqhdr), free(r->post);
		free(r->stext), free(r->resphdr), buf_free(&r->body);
	}
	free(cp->req), free(cp->context), free(cp->target), free(cp->session), free(cp->loader);
	buf_free(&cp->title), buf_free(&cp->dom), buf_free(&cp->png), buf_free(&cp->pdf);
	buf_free(&cp->icon);
	int w = cp->width, h = cp->height;
	const char *proxy = cp->proxy;
	memset(cp, 0, sizeof *cp);
	cp->width = w, cp->height = h, cp->proxy = proxy;
}

/* The last request with requestId id, or NULL. */
static netreq_t *
cap_find(cap_t *cp, const char *id)
{
	for (size_t i = cp->nreq; i-- > 0;)
		if (!strcmp(cp->req[i].id, id))
			return &cp->req[i];
	return NULL;
}

static void
warc_now(char out[24])
{
	char iso[ISO_LEN + 1];
	clock_iso(clock_now(), iso);
	snprintf(out, 24, "%.19sZ", iso);
}

/* The response fields of raw (a CDP Network.Response) into r. */
static void
cap_response(netreq_t *r, const char *raw)
{
	rec_t p;
	if (!raw || rec_parse(&p, raw, strlen(raw)) < 0)
		return;
	r->status = (int)rec_int(&p, "status", 0);
	free(r->stext), free(r->resphdr);
	r->stext = rec_str(&p, "statusText");
	const char *h = rec_raw(&p, "headers");
	r->resphdr = xstrdup(h ? h : "{}");
	warc_now(r->date);
	rec_free(&p);
}

static void
cap_event(cdp_t *c, const char *method, const rec_t *msg, void *arg)
{
	cap_t *cp = arg;
	(void)c;
	if (!cp->session || !rec_streq(msg, "sessionId", cp->session))
		return;   /* another tab's: a kept browser has served others */
	if (!strcmp(method, "Inspector.targetCrashed")) {
		cp->crashed = 1;
		return;
	}
	const char *raw = rec_raw(msg, "params");
	rec_t p;
	if (!raw || rec_parse(&p, raw, strlen(raw)) < 0)
		return;
	char *id = rec_str(&p, "requestId");
	int64_t now = clock_mono();
	if (!strcmp(method, "Page.loadEventFired")) {
		cp->loaded = 1;
		cp->loaded_at = now;
	} else if (id && !strcmp(method, "Network.requestWillBeSent")) {
		netreq_t *prev = cap_find(cp, id);
		const char *redir = rec_raw(&p, "redirectResponse");
		if (prev && redir && prev->state == RQ_FLIGHT) {
			cap_response(prev, redir);
			prev->state = RQ_REDIRECTED;
		}
		rec_t q;
		const char *rq = rec_raw(&p, "request");
		if (rq && rec_parse(&q, rq, strlen(rq)) == 0) {
			if (cp->nreq == cp->capreq) {
				cp->capreq = cp->capreq ? cp->capreq * 2 : 64;
				cp->req = xrealloc(cp->req, cp->capreq * sizeof *cp->req);
			}
			netreq_t *r = &cp->req[cp->nreq++];
			memset(r, 0, sizeof *r);
			r->id = xstrdup(id);
			r->url = rec_str(&q, "url");
			r->method = rec_str(&q, "method");
			r->post = rec_str(&q, "postData");
			const char *h = rec_raw(&q, "headers");
			r->reqhdr = xstrdup(h ? h : "{}");
			if (!r->url)
				r->url = xstrdup("");
			if (!r->method)
				r->method = xstrdup("GET");
			rec_free(&q);
		}
		cp->last_net = now;
	} else if (id && !strcmp(method, "Network.responseReceived")) {
		netreq_t *r = cap_find(cp, id);
		if (r)
			cap_response(r, rec_raw(&p, "response"));
		cp->last_net = now;
	} else if (id && (!strcmp(method, "Network.loadingFinished") ||
	                     !strcmp(method, "Network.loadingFailed"))) {
		netreq_t *r = cap_find(cp, id);
		if (r && r->state == RQ_FLIGHT)
			r->state = !strcmp(method, "Network.loadingFinished") ? RQ_DONE : RQ_FAILED;
		cp->last_net = now;
	}
	free(id);
	rec_free(&p);
}

static size_t
cap_inflight(const cap_t *cp)
{
	size_t n = 0;
	for (size_t i = 0; i < cp->nreq; i++)
		n += cp->req[i].state == RQ_FLIGHT;
	return n;
}

/* The string at key of the object raw (CDP's Runtime.RemoteObject): malloc'd or NULL. */
static char *
cap_value(const rec_t *res)
{
	const char *raw = rec_raw(res, "result");
	rec_t o;
	if (!raw || rec_parse(&o, raw, strlen(raw)) < 0)
		return NULL;
	char *v = rec_str(&o, "value");
	rec_free(&o);
	return v;
}

/* Call and take the base64 "data" of the result into out. */
static int
cap_data(cdp_t *c, cap_t *cp, const char *method, const char *params, int64_t deadline, buf_t *out)
{
	rec_t res;
	int rc = cdp_call(c, cp->session, method, params, deadline, &res);
	if (rc < 0)
		return rc;
	const char *raw = rec_raw(&res, "data");
	buf_t s = {0};
	if (raw && *raw == '"')
		json_unescape(raw + 1, strlen(raw) - 2, &s);
	rec_free(&res);
	rc = s.len && b64_decode(s.p, s.len, out) == 0 && out->len ? 0 : -1;
	buf_free(&s);
	if (rc < 0)
		snprintf(c->why, sizeof c->why, "%s gave no data", method);
	return rc;
}

static int
capture_page(cdp_t *c, cap_t *cp, const char *url, int64_t deadline)
{
	rec_t res;
	int rc;
	char params[512];
	buf_t b = {0};

	/* 0. its own context, through the gate */
	if (cp->proxy) {
		char *ps = xasprintf("http://%s", cp->proxy);
		buf_adds(&b, "{\"proxyServer\":");
		buf_json_strz(&b, ps);
		buf_adds(&b, ",\"proxyBypassList\":\"<-loopback>\"}");
		free(ps);
		rc = cdp_call(c, NULL, "Target.createBrowserContext", buf_cstr(&b), deadline, &res);
		buf_free(&b);
		if (rc < 0)
			return rc;
		cp->context = rec_str(&res, "browserContextId");
		rec_free(&res);
		if (!cp->context) {
			snprintf(c->why, sizeof c->why, "Target.createBrowserContext gave no browserContextId");
			return -1;
		}
	}
	/* 1. the tab */
	buf_adds(&b, "{\"url\":\"about:blank\"");
	if (cp->context) {
		buf_adds(&b, ",\"browserContextId\":");
		buf_json_strz(&b, cp->context);
	}
	buf_adds(&b, "}");
	rc = cdp_call(c, NULL, "Target.createTarget", buf_cstr(&b), deadline, &res);
	buf_free(&b);
	if (rc < 0)
		return rc;
	cp->target = rec_str(&res, "targetId");
	rec_free(&res);
	if (!cp->target) {
		snprintf(c->why, sizeof c->why, "Target.createTarget gave no targetId");
		return -1;
	}
	buf_adds(&b, "{\"flatten\":true,\"targetId\":");
	buf_json_strz(&b, cp->target);
	buf_adds(&b, "}");
	rc = cdp_call(c, NULL, "Target.attachToTarget", buf_cstr(&b), deadline, &res);
	buf_free(&b);
	if (rc < 0)
		return rc;
	cp->session = rec_str(&res, "sessionId");
	rec_free(&res);
	if (!cp->session) {
		snprintf(c->why, sizeof c->why, "Target.attachToTarget gave no sessionId");
		return -1;
	}
	snprintf(params, sizeof params, "{\"width\":%d,\"height\":%d,\"deviceScaleFactor\":1,\"mobile\":false}",
	    cp->width, cp->height);
	if ((rc = cdp_call(c, cp->session, "Page.enable", NULL, deadline, &res)) < 0 ||
	    (rec_free(&res), rc = cdp_call(c, cp->session, "Network.enable",
	         "{\"maxTotalBufferSize\":200000000,\"maxResourceBufferSize\":50000000}", deadline, &res)) < 0 ||
	    (rec_free(&res), rc = cdp_call(c, cp->session, "Emulation.setDeviceMetricsOverride", params,
	         deadline, &res)) < 0)
		return rc;
	rec_free(&res);
	size_t ul = strlen(url);
	if (!(ul >= 12 && !strcmp(url + ul - 12, "/favicon.ico"))) {
		if ((rc = cdp_call(c, cp->session, "Network.setBlockedURLs", "{\"urls\":[\"*/favicon.ico\"]}", deadline,
		         &res)) < 0)
			return rc;
		rec_free(&res);
	}

	/* 2. the page */
	int64_t start = clock_mono();
	int64_t nav_end = start + (deadline - start) * 6 / 10;
	buf_adds(&b, "{\"url\":");
	buf_json_strz(&b, url);
	buf_adds(&b, "}");
	rc = cdp_call(c, cp->session, "Page.navigate", buf_cstr(&b), nav_end, &res);
	buf_free(&b);
	if (rc < 0)
		return rc;
	char *errtext = rec_str(&res, "errorText");
	cp->loader = rec_str(&res, "loaderId");
	rec_free(&res);
	if (errtext && *errtext) {
		snprintf(c->why, sizeof c->why, "chromium could not load the page: %s", errtext);
		free(errtext);
		return -1;
	}
	free(errtext);
	for (;;) {
		int64_t now = clock_mono();
		if (cp->crashed) {
			snprintf(c->why, sizeof c->why, "the page's renderer crashed");
			c->dead = 1;
			return -2;
		}
		if (cp->loaded && ((cap_inflight(cp) == 0 && now - cp->last_net >= IDLE_US) ||
		                      now - cp->loaded_at >= SETTLE_US))
			break;
		if (now >= nav_end) {
			if (!cp->loaded)
				snprintf(cp->note, sizeof cp->note,
				    "the page had not finished loading after %llds: captured as it was",
				    (long long)((now - start) / 1000000));
			break;
		}
		int64_t step = now + 100000;
		if (cdp_step(c, step < nav_end ? step : nav_end) < 0)
			return -2;
	}

	/* 3. title, DOM, screenshot, PDF */
	if ((rc = cdp_call(c, cp->session, "Runtime.evaluate",
	         "{\"expression\":\"document.title\",\"returnByValue\":true}", deadline, &res)) < 0)
		return rc;
	char *v = cap_value(&res);
	rec_free(&res);
	if (v)
		buf_adds(&cp->title, v);
	free(v);
	if ((rc = cdp_call(c, cp->session, "Runtime.evaluate", ICON_JS, deadline, &res)) < 0)
		return rc;
	v = cap_value(&res);
	rec_free(&res);
	if (v)
		buf_adds(&cp->icon, v);
	free(v);
	if ((rc = cdp_call(c, cp->session, "Runtime.evaluate",
	         "{\"expression\":\"(document.doctype ? new XMLSerializer().serializeToString(document.doctype)"
	         " + '\\\\n' : '') + (document.documentElement ? document.documentElement.outerHTML : '')\","
	         "\"returnByValue\":true}",
	         deadline, &res)) < 0)
		return rc;
	v = cap_value(&res);
	rec_free(&res);
	if (v)
		buf_adds(&cp->dom, v);
	free(v);
	if ((rc = cap_data(c, cp, "Page.captureScreenshot", "{\"format\":\"png\"}", deadline, &cp->png)) < 0 ||
	    (rc = cap_data(c, cp, "Page.printToPDF", "{\"printBackground\":true}", deadline, &cp->pdf)) < 0)
		return rc;

	/* 4. the bodies */
	for (size_t i = 0; i < cp->nreq; i++) {
		netreq_t *r = &cp->req[i];
		if (r->state != RQ_DONE || r->status <= 0)
			continue;
		buf_adds(&b, "{\"requestId\":");
		buf_json_strz(&b, r->id);
		buf_adds(&b, "}");
		rc = cdp_call(c, cp->session, "Network.getResponseBody", buf_cstr(&b), deadline, &res);
		buf_free(&b);
		if (rc == -2)
			return rc;
		if (rc < 0)
			continue;   /* evicted, or a response without one */
		const char *raw = rec_raw(&res, "body");
		buf_t s = {0};
		if (raw && *raw == '"')
			json_unescape(raw + 1, strlen(raw) - 2, &s);
		const char *b64 = rec_raw(&res, "base64Encoded");
		if (b64 && !strcmp(b64, "true")) {
			r->has_body = b64_decode(s.p ? s.p : "", s.len, &r->body) == 0;
		} else {
			buf_add(&r->body, s.p ? s.p : "", s.len);
			r->has_body = 1;
		}
		buf_free(&s);
		rec_free(&res);
	}
	return 0;
}

/* Dispose of the context capture_page made, and so of its tab: 0, or
 * cdp_call's -1 or -2. */
static int
cap_dispose(cdp_t *c, cap_t *cp, int64_t deadline)
{
	if (!cp->context)
		return 0;
	buf_t b = {0};
	rec_t res;
	buf_adds(&b, "{\"browserContextId\":");
	buf_json_strz(&b, cp->context);
	buf_adds(&b, "}");
	int rc = cdp_call(c, NULL, "Target.disposeBrowserContext", buf_cstr(&b), deadline, &res);
	buf_free(&b);
	if (rc == 0)
		rec_free(&res);
	free(cp->context);
	cp->context = NULL;
	return rc;
}

/* The main document's final response, or NULL. */
static netreq_t *
cap_main(cap_t *cp)
{
	netreq_t *r = cp->loader ? cap_find(cp, cp->loader) : NULL;
	return r && r->status > 0 ? r : NULL;
}

/* Each header of the CDP headers object raw: fn(name, value, arg) for each
 * of its newline-separated values. */
static void
cap_each_header(const char *raw, void (*fn)(const char *, const char *, size_t, void *), void *arg)
{
	rec_t h;
	if (!raw || rec_parse(&h, raw, strlen(raw)) < 0)
		return;
	for (int i = 0; i < h.n; i++) {
		buf_t v = {0};
		const char *t = h.f[i].val;
		if (*t == '"')
			json_unescape(t + 1, strlen(t) - 2, &v);
		const char *p = v.p ? v.p : "";
		for (size_t k = 0; k <= v.len;) {
			const char *nl = memchr(p + k, '\n', v.len - k);
			size_t e = nl ? (size_t)(nl - p) : v.len;
			fn(h.f[i].key, p + k, e - k, arg);
			k = e + 1;
		}
		buf_free(&v);
	}
	rec_free(&h);
}

static int
has_header(const char *raw, const char *name)
{
	rec_t h;
	int found = 0;
	if (!raw || rec_parse(&h, raw, strlen(raw)) < 0)
		return 0;
	for (int i = 0; i < h.n; i++)
		found |= !strcasecmp(h.f[i].key, name);
	rec_free(&h);
	return found;
}

static void
add_req_header(const char *name, const char *v, size_t n, void *arg)
{
	buf_t *b = arg;
	if (name[0] == ':')
		return;
	for (const char *p = name; *p; p++)
		buf_addc(b, *p == '\r' || *p == '\n' ? ' ' : *p);
	buf_adds(b, ": ");
	for (size_t i = 0; i < n; i++)
		buf_addc(b, v[i] == '\r' || v[i] == '\n' ? ' ' : v[i]);
	buf_adds(b, "\r\n");
}

static void
add_resp_header(const char *name, const char *v, size_t n, void *arg)
{
	if (name[0] == ':' || !strcasecmp(name, "content-encoding") ||
	    !strcasecmp(name, "transfer-encoding") || !strcasecmp(name, "content-length"))
		return;
	add_req_header(name, v, n, arg);
}

static const char *
reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 206: return "Partial Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 500: return "Internal Server Error";
	}
	return "Unknown";
}

static int
is_http(const char *url)
{
	return !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
}

static int
cap_warc(cap_t *cp, int fd)
{
	char date[24], info[46], rid[46], qid[46];
	int n = 0;
	buf_t head = {0}, body = {0};
	warc_now(date);
	warc_uuid(info);
	buf_adds(&body, "software: abx chrome hook (chromium over --remote-debugging-pipe)\r\n"
	                "format: WARC File Format 1.1\r\n"
	                "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n");
	if (warc_record(fd, "warcinfo", NULL, date, info, NULL, "application/warc-fields", NULL, &body) < 0)
		goto fail;
	for (size_t i = 0; i < cp->nreq; i++) {
		netreq_t *r = &cp->req[i];
		int bodyless = r->state == RQ_REDIRECTED || r->status < 200 || r->status == 204 ||
		               r->status == 304;
		if (!is_http(r->url) || r->status <= 0 || !(bodyless || (r->state == RQ_DONE && r->has_body)))
			continue;
		warc_uuid(rid);
		warc_uuid(qid);
		/* the response */
		buf_reset(&head);
		buf_addf(&head, "HTTP/1.1 %d %s\r\n", r->status,
		    r->stext && *r->stext ? r->stext : reason(r->status));
		cap_each_header(r->resphdr, add_resp_header, &head);
		buf_addf(&head, "Content-Length: %zu\r\n\r\n", bodyless ? 0 : r->body.len);
		buf_t empty = {0};
		if (warc_record(fd, "response", r->url, r->date, rid, qid, "application/http; msgtype=response",
		        &head, bodyless ? &empty : &r->body) < 0)
			goto fail;
		/* its request */
		const char *hp = strstr(r->url, "://") + 3;
		size_t hl = strcspn(hp, "/?#");
		const char *path = hp + hl;
		size_t pl = strcspn(path, "#");
		const char *at = memchr(hp, '@', hl);
		if (at)
			hl -= at + 1 - hp, hp = at + 1;
		buf_reset(&head);
		buf_addf(&head, "%s %s%.*s HTTP/1.1\r\n", r->method, *path == '/' ? "" : "/", (int)pl, path);
		if (!has_header(r->reqhdr, "host"))
			buf_addf(&head, "Host: %.*s\r\n", (int)hl, hp);
		cap_each_header(r->reqhdr, add_req_header, &head);
		buf_adds(&head, "\r\n");
		buf_reset(&body);
		if (r->post)
			buf_adds(&body, r->post);
		if (warc_record(fd, "request", r->url, r->date, qid, rid, "application/http; msgtype=request",
		        &head, &body) < 0)
			goto fail;
		n++;
	}
	buf_free(&head), buf_free(&body);
	return n;
fail:
	buf_free(&head), buf_free(&body);
	return -1;
}

typedef struct {
	char **names;
	buf_t *vals;
	size_t n;
} hjoin_t;

static void
join_header(const char *name, const char *v, size_t n, void *arg)
{
	hjoin_t *j = arg;
	buf_t low = {0};
	for (const char *p = name; *p; p++)
		buf_addc(&low, (char)tolower((unsigned char)*p));
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->names[i], buf_cstr(&low))) {
			buf_adds(&j->vals[i], ", ");
			buf_add(&j->vals[i], v, n);
			buf_free(&low);
			return;
		}
	j->names = xrealloc(j->names, (j->n + 1) * sizeof *j->names);
	j->vals = xrealloc(j->vals, (j->n + 1) * sizeof *j->vals);
	j->names[j->n] = xstrdup(buf_cstr(&low));
	memset(&j->vals[j->n], 0, sizeof j->vals[j->n]);
	buf_add(&j->vals[j->n], v, n);
	j->n++;
	buf_free(&low);
}

static int
cap_headers(cap_t *cp, buf_t *out)
{
	netreq_t *r = cap_main(cp);
	if (!r)
		return -1;
	hjoin_t j = {0};
	cap_each_header(r->resphdr, join_header, &j);
	buf_addf(out, "{\n  \"status\": %d", r->status);
	for (size_t i = 0; i < j.n; i++) {
		if (j.names[i][0] != ':' && strcmp(j.names[i], "status")) {
			buf_adds(out, ",\n  ");
			buf_json_strz(out, j.names[i]);
			buf_adds(out, ": ");
			buf_json_str(out, j.vals[i].p ? j.vals[i].p : "", j.vals[i].len);
		}
		free(j.names[i]);
		buf_free(&j.vals[i]);
	}
	free(j.names), free(j.vals);
	buf_adds(out, "\n}\n");
	return 0;
}
