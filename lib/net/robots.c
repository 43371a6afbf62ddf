/*
 * robots.c — see robots.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/json.h"
#include "net/netzone.h"
#include "net/robots.h"
#include "net/url.h"
#include "store/store.h"
#include "base/spawn.h"

extern char **environ;

struct robots_rule {
	char *pat;
	int allow;
};

int
conf_parse_robots(const char *s, long long *out)
{
	*out = s && strcasecmp(s, "obey") == 0;
	return s && (strcasecmp(s, "obey") == 0 || strcasecmp(s, "ignore") == 0) ? 0 : -1;
}

static void
add_rule(robots_t *r, const char *pat, size_t n, int allow)
{
	r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
	r->v[r->n].pat = xstrndup(pat, n);
	r->v[r->n].allow = allow;
	r->n++;
}

void
robots_parse(robots_t *r, const char *text, size_t len, const char *agent)
{
	memset(r, 0, sizeof *r);
	/* two passes: our agent's groups, else "*" */
	for (int pass = 0; pass < 2 && r->n == 0 && !r->crawl_delay; pass++) {
		int in_agents = 0, ours = 0, found = 0;
		const char *p = text, *end = text + len;
		while (p < end) {
			const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
			const char *hash = memchr(p, '#', le - p), *e = hash ? hash : le;
			while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
				e--;
			const char *colon = memchr(p, ':', e - p);
			if (colon) {
				const char *k = p, *ke = colon, *v = colon + 1;
				while (k < ke && (*k == ' ' || *k == '\t'))
					k++;
				while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
					ke--;
				while (v < e && (*v == ' ' || *v == '\t'))
					v++;
				size_t kl = ke - k, vl = e - v;
				if (kl == 10 && strncasecmp(k, "user-agent", 10) == 0) {
					if (!in_agents)
						ours = 0;
					in_agents = 1;
					int m = pass == 0 ? (vl > 0 && vl <= strlen(agent) && strncasecmp(v, agent, vl) == 0)
					                  : (vl == 1 && *v == '*');
					if (m)
						ours = found = 1;
				} else {
					in_agents = 0;
					if (ours && kl == 5 && strncasecmp(k, "allow", 5) == 0 && vl)
						add_rule(r, v, vl, 1);
					else if (ours && kl == 8 && strncasecmp(k, "disallow", 8) == 0 && vl)
						add_rule(r, v, vl, 0);
					else if (ours && kl == 11 && strncasecmp(k, "crawl-delay", 11) == 0) {
						char num[32];
						snprintf(num, sizeof num, "%.*s", (int)(vl < 31 ? vl : 31), v);
						double d = strtod(num, NULL);
						if (d > 0 && d < 86400)
							r->crawl_delay = (int64_t)(d * 1e6);
					}
				}
			}
			p = nl ? nl + 1 : end;
		}
		if (found)
			break;
	}
}

/* Does pattern pat (with * and a final $) match the start of s?  One
 * pass, remembering only the last "*" (a robots.txt is someone else's
 * text: backtracking over every "*" would be exponential). */
static int
match(const char *pat, const char *s)
{
	const char *star = NULL, *ss = NULL;
	for (;;) {
		if (*pat == '$' && !pat[1] && !*s)
			return 1;
		if (!*pat)
			return 1;   /* the pattern is a prefix of s */
		if (*pat == '*') {
			star = ++pat;
			ss = s;
			continue;
		}
		if (*s && *pat == *s && !(*pat == '$' && !pat[1])) {
			pat++, s++;
			continue;
		}
		if (star && *ss) {
			pat = star;
			s = ++ss;
			continue;
		}
		return 0;
	}
}

int
robots_allows(const robots_t *r, const char *url)
{
	if (r->disallow_all)
		return 0;
	const char *p = strstr(url, "://");
	p = p ? strchr(p + 3, '/') : NULL;
	char path[8192];
	snprintf(path, sizeof path, "%.*s", p ? (int)strcspn(p, "#") : 1, p ? p : "/");
	if (strcmp(path, "/robots.txt") == 0)
		return 1;
	size_t best = 0;
	int allow = 1, any = 0;
	for (int i = 0; i < r->n; i++) {
		size_t l = strlen(r->v[i].pat);
		if (!match(r->v[i].pat, path))
			continue;
		if (!any || l > best || (l == best && r->v[i].allow)) {
			best = l;
			allow = r->v[i].allow;
			any = 1;
		}
	}
	return allow;
}

void
robots_free(robots_t *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->v[i].pat);
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* GET url into fd (a file we opened: no path of the data directory is
 * handed to curl); the HTTP status, or 0 if no answer came.  Redirects
 * are not followed: their target would escape the zone rule (netzone.h),
 * so a 3xx counts as no robots.txt. */
static int
fetch(const char *curl, const char *ua, const char *url, const char *pin, int fd)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return 0;
	/* stdio only, every signal at its default: nothing of the tick's */
	char *argv[] = {(char *)curl, "-s", "--max-time", "5", "--max-filesize", "512000", "--proto",
	    "=http,https", "-A", (char *)ua, "-w", "%{stderr}%{http_code}", "--noproxy", "*",
	    pin ? "--resolve" : "--", pin ? (char *)pin : (char *)url, pin ? "--" : NULL, (char *)url, NULL};
	spawn_t sp;
	spawn_init(&sp, curl, argv, environ);
	sp.fd[1] = fd, sp.fd[2] = pfd[1];
	pid_t pid;
	int rc = spawn(&sp, &pid);
	close(pfd[1]);
	if (rc != 0) {
		close(pfd[0]);
		return 0;
	}
	/* to its end: curl may write the code in pieces */
	char out[16] = "";
	size_t n = 0;
	for (ssize_t got; n < sizeof out - 1 &&
	     ((got = read(pfd[0], out + n, sizeof out - 1 - n)) > 0 || (got < 0 && errno == EINTR));)
		n += got > 0 ? (size_t)got : 0;
	close(pfd[0]);
	out[n] = 0;
	return spawn_wait(pid) == 0 ? atoi(out) : 0;
}

/* The address curl is to fetch url's robots.txt from, as its --resolve
 * "HOST:PORT:ADDR" into pin: 0; 1 if the host is in no zone of zones
 * (nothing to fetch); -1 if it cannot be resolved (curl says so). */
static int
pin_host(const char *url, unsigned zones, char *pin, size_t n)
{
	char hp[512];
	url_host(url, hp, sizeof hp);
	int port = strncasecmp(url, "https:", 6) == 0 ? 443 : 80;
	char *colon = hp[0] == '[' ? strstr(hp, "]:") : strrchr(hp, ':');
	if (colon) {
		if (*colon == ']')
			colon++;
		port = atoi(colon + 1);
		*colon = 0;
	}
	char addr[INET6_ADDRSTRLEN + 3];
	netzone_t z;
	int rc = netzone_pin(hp, zones, addr, sizeof addr, &z);
	if (rc == 0)
		snprintf(pin, n, "%s:%d:%s", hp, port, addr);
	return rc;
}

int
robots_get(int dfd, const char *key, const char *url, const conf_t *c, unsigned zones, robots_t *r)
{
	char rel[640], meta[640], body[640];
	memset(r, 0, sizeof *r);
	snprintf(rel, sizeof rel, "hosts/%s", key);
	snprintf(meta, sizeof meta, "hosts/%s/robots.json", key);
	snprintf(body, sizeof body, "hosts/%s/robots.txt", key);
	int64_t now = clock_now();
	long long status = -1;
	buf_t b = {0};
	rec_t m;
	if (fs_read(dfd, meta, &b) == 0 && rec_parse(&m, b.p, b.len) == 0) {
		long long at = rec_int(&m, "fetched_us", 0);
		long long st = rec_int(&m, "status", 0);
		int64_t ttl = (st >= 200 && st < 500) ? 86400LL * 1000000 : 3600LL * 1000000;
		if (at <= now && now - at < ttl)
			status = st;
		rec_free(&m);
	}
	buf_free(&b);
	if (status < 0) {
		if (fs_mkdirs(dfd, rel) < 0)
			return -1;
		/* scheme://host[:port]/robots.txt */
		const char *p = strstr(url, "://");
		size_t hl = p ? strcspn(p + 3, "/?#") + (p + 3 - url) : 0;
		if (!p)
			return -1;
		char rurl[1024], tmp[700], pin[700];
		snprintf(rurl, sizeof rurl, "%.*s/robots.txt", (int)hl, url);
		int pinned = pin_host(rurl, zones, pin, sizeof pin);
		if (pinned == 1)
			return 0;   /* out of the crawl's zones: no rules, the gate refuses */
		snprintf(tmp, sizeof tmp, "hosts/%s/.robots.%d", key, (int)getpid());
		unlinkat(dfd, tmp, 0);
		int fd = fs_open(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);   /* no symlink followed */
		if (fd < 0)
			return -1;
		const char *curl = conf_get(c, "CURL_BINARY");
		const char *ua = conf_get(c, "USER_AGENT");
		status = fetch(curl && *curl ? curl : "curl", ua ? ua : "abx", rurl, pinned == 0 ? pin : NULL, fd);
		close(fd);
		if (status >= 200 && status < 300) {
			if (renameat(dfd, tmp, dfd, body) < 0)
				status = 0;
		} else {
			unlinkat(dfd, tmp, 0);
			unlinkat(dfd, body, 0);
		}
		rec_t w = {0};
		char iso[ISO_LEN + 1];
		clock_iso(now, iso);
		rec_set_str(&w, "fetched", iso);
		rec_set_int(&w, "fetched_us", now);
		rec_set_int(&w, "status", status);
		rec_set_str(&w, "url", rurl);
		buf_t o = {0};
		rec_line(&w, &o);
		buf_addc(&o, '\n');
		fs_replace(dfd, meta, o.p, o.len, 0);
		buf_free(&o);
		rec_free(&w);
	}
	if (status >= 200 && status < 300) {
		buf_t t = {0};
		if (fs_read(dfd, body, &t) == 0)
			robots_parse(r, t.p, t.len, "abx");
		buf_free(&t);
	} else if (status >= 300 && status < 500) {
		/* unavailable: no rules */
	} else {
		r->disallow_all = 1;   /* unreachable: RFC 9309 2.3.1.4 */
	}
	return 0;
}
