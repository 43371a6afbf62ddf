/*
 * offline.c — see offline.h.  Sections: the source page, the href of a
 * link, the rewrite (a tolerant scan of tags and attributes: no tree, the
 * bytes between the rewritten attributes copied as they are), one page,
 * a crawl.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/ids.h"
#include "net/url.h"
#include "seal/html.h"
#include "seal/offline.h"
#include "seal/viewtype.h"

struct offmap {
	struct offent {
		char *url;            /* url_canon() form */
		char id[ID_LEN + 1];
	} *v;
	size_t n, cap;
};

/* ------------------------------------------------------------ the source */

static int
ends_html(const char *s)
{
	size_t n = strlen(s);
	return (n > 5 && !strcasecmp(s + n - 5, ".html")) || (n > 4 && !strcasecmp(s + n - 4, ".htm"));
}

/* A relative path of plain segments: none empty, "." or "..". */
static int
path_plain(const char *p)
{
	if (*p == '/')
		return 0;
	for (const char *s = p;; s++) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
		if (!*s)
			return 1;
	}
}

char *
offline_source(const rec_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rec_t *r = &v[i];
		if (!rec_streq(r, "type", "ArchiveResult") || !rec_streq(r, "plugin", "wget") ||
		    !rec_streq(r, "status", "succeeded"))
			continue;
		char *os = rec_str(r, "output_str");
		if (os && !strncmp(os, "wget/", 5) && path_plain(os) && ends_html(os))
			return os;
		free(os);
	}
	return NULL;
}

/* ------------------------------------------------------------ a link's href */

typedef struct {
	const char *src;          /* the page, below the snapshot directory */
	const char *url;          /* its URL */
	const char *self;         /* the snapshot's id */
	const offmap_t *map;
	buf_t up;                 /* "../" for each directory of src: to the snapshot's */
} ctx_t;

static void
utf8_put(buf_t *b, unsigned long c)
{
	if (c < 0x80) {
		buf_addc(b, (char)c);
	} else if (c < 0x800) {
		buf_addc(b, (char)(0xc0 | c >> 6));
		buf_addc(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		buf_addc(b, (char)(0xe0 | c >> 12));
		buf_addc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (c & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | c >> 18));
		buf_addc(b, (char)(0x80 | ((c >> 12) & 0x3f)));
		buf_addc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		buf_addc(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* An attribute's value as a browser reads it: the character references a
 * URL holds (&amp; &lt; &gt; &quot; &apos; and numeric ones) decoded,
 * surrounding ASCII whitespace dropped. */
static void
attr_value(const char *p, size_t n, buf_t *out)
{
	static const struct {
		const char *name;
		char c;
	} named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
	while (n && isspace((unsigned char)*p))
		p++, n--;
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '&') {
			buf_addc(out, p[i]);
			continue;
		}
		size_t k;
		for (k = 0; k < sizeof named / sizeof named[0]; k++) {
			size_t l = strlen(named[k].name);
			if (i + 1 + l <= n && !strncmp(p + i + 1, named[k].name, l)) {
				buf_addc(out, named[k].c);
				i += l;
				break;
			}
		}
		if (k < sizeof named / sizeof named[0])
			continue;
		if (i + 2 < n && p[i + 1] == '#') {
			int hex = p[i + 2] == 'x' || p[i + 2] == 'X';
			size_t j = i + 2 + hex;
			unsigned long c = 0;
			while (j < n && (hex ? isxdigit((unsigned char)p[j]) : isdigit((unsigned char)p[j])) &&
			       c <= 0x10ffff)
				c = c * (hex ? 16 : 10) + (unsigned long)(isdigit((unsigned char)p[j]) ? p[j] - '0'
				                                              : (tolower((unsigned char)p[j]) - 'a' + 10)),
				j++;
			if (j < n && p[j] == ';' && j > i + 2 + hex && c > 0 && c <= 0x10ffff) {
				utf8_put(out, c);
				i = j;
				continue;
			}
		}
		buf_addc(out, '&');
	}
}

static int
by_url(const void *a, const void *b)
{
	return strcmp(((const struct offent *)a)->url, ((const struct offent *)b)->url);
}

static const char *
map_find(const offmap_t *m, const char *url)
{
	if (!m || !m->n)
		return NULL;
	struct offent k = {(char *)url, ""};
	struct offent *e = bsearch(&k, m->v, m->n, sizeof *m->v, by_url);
	return e ? e->id : NULL;
}

/* Whether rel (a relative path, no query or fragment) names src from src's
 * directory, "." and ".." segments resolved, %XX decoded. */
static int
names_src(const char *src, const char *rel)
{
	buf_t p = {0};
	const char *slash = strrchr(src, '/');
	buf_add(&p, src, slash ? (size_t)(slash - src) + 1 : 0);
	for (const char *s = rel; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char h[3] = {s[1], s[2], 0};
			buf_addc(&p, (char)strtol(h, NULL, 16));
			s += 2;
		} else {
			buf_addc(&p, *s);
		}
	}
	/* resolve the segments in place */
	char *path = buf_cstr(&p), *w = path;
	for (char *seg = path; *seg;) {
		size_t n = strcspn(seg, "/");
		int last = seg[n] == 0;
		if (n == 1 && seg[0] == '.') {
			/* nothing */
		} else if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (w > path) {
				w--;
				while (w > path && w[-1] != '/')
					w--;
			}
		} else {
			memmove(w, seg, n);
			w += n;
			if (!last)
				*w++ = '/';
		}
		seg += n + !last;
	}
	*w = 0;
	int same = strcmp(path, src) == 0;
	buf_free(&p);
	return same;
}

/* The new href of a link whose value is v (decoded) into out: 1, or 0 to
 * keep it as it is. */
static int
new_href(const ctx_t *c, const char *v, buf_t *out)
{
	const char *hash = strchr(v, '#');
	size_t sl = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	int scheme = sl > 0 && isalpha((unsigned char)v[0]) && v[sl] == ':';
	const char *id = NULL;
	if (*v == 0 || *v == '#') {
		id = c->self;
	} else if (scheme || v[0] == '/' || v[0] == '?') {
		if (scheme && strncasecmp(v, "http:", 5) && strncasecmp(v, "https:", 6))
			return 0;
		const char *why;
		char *canon = url_canon(v, c->url, &why);
		id = canon ? map_find(c->map, canon) : NULL;
		free(canon);
	} else {
		char *rel = xstrndup(v, strcspn(v, "?#"));
		if (strchr(v, '?') == NULL || (hash && strchr(v, '?') > hash))
			id = names_src(c->src, rel) ? c->self : NULL;
		free(rel);
	}
	if (!id)
		return 0;
	buf_add(out, c->up.p, c->up.len);
	if (strcmp(id, c->self) != 0)
		buf_addf(out, "../%s/", id);
	buf_adds(out, "offline.html");
	if (hash)
		buf_adds(out, hash);
	return 1;
}

/* ------------------------------------------------------------ the rewrite */

/* The index just past the first `end` (ASCII case ignored) from i, or n;
 * at it with at = 1. */
static size_t
find_ci(const char *p, size_t n, size_t i, const char *end, int at)
{
	size_t m = strlen(end);
	for (; i + m <= n; i++)
		if (!strncasecmp(p + i, end, m))
			return at ? i : i + m;
	return n;
}

static void
flush(buf_t *out, const char *p, size_t *from, size_t to)
{
	if (to > *from)
		buf_add(out, p + *from, to - *from);
	*from = to;
}

static void
put_base(buf_t *out, const ctx_t *c)
{
	const char *slash = strrchr(c->src, '/');
	char *d = xstrndup(c->src, slash ? (size_t)(slash - c->src) + 1 : 0);
	buf_adds(out, "<base href=\"");
	html_href(out, d);
	buf_adds(out, "\">");
	free(d);
}

/* The tag at p[i] (after "<" and a letter): attributes rewritten into out;
 * returns the index after its ">". */
static size_t
tag(buf_t *out, const char *p, size_t n, size_t i, size_t *from, const char *name, const ctx_t *c)
{
	int link = !strcmp(name, "a") || !strcmp(name, "area");
	size_t j = i;
	for (;;) {
		while (j < n && (isspace((unsigned char)p[j]) || p[j] == '/'))
			j++;
		if (j >= n || p[j] == '>')
			break;
		size_t a0 = j;
		while (j < n && !isspace((unsigned char)p[j]) && p[j] != '=' && p[j] != '>' && p[j] != '/')
			j++;
		if (j == a0) {
			j++;   /* a stray "=" */
			continue;
		}
		size_t a1 = j, k = j, v0 = 0, v1 = 0;
		while (k < n && isspace((unsigned char)p[k]))
			k++;
		if (k >= n || p[k] != '=')
			continue;
		for (k++; k < n && isspace((unsigned char)p[k]);)
			k++;
		if (k < n && (p[k] == '"' || p[k] == '\'')) {
			v0 = v1 = k + 1;
			while (v1 < n && p[v1] != p[k])
				v1++;
			j = v1 < n ? v1 + 1 : n;
		} else {
			v0 = v1 = k;
			while (v1 < n && !isspace((unsigned char)p[v1]) && p[v1] != '>')
				v1++;
			j = v1;
		}
		if (!link || a1 - a0 != 4 || strncasecmp(p + a0, "href", 4))
			continue;
		buf_t v = {0}, nv = {0};
		attr_value(p + v0, v1 - v0, &v);
		if (new_href(c, buf_cstr(&v), &nv)) {
			flush(out, p, from, a0);
			buf_adds(out, "href=\"");
			html_esc(out, buf_cstr(&nv));
			buf_addc(out, '"');
			*from = j;
		}
		buf_free(&v), buf_free(&nv);
		link = 0;   /* the first href counts, as a browser reads it */
	}
	return j < n ? j + 1 : n;
}

static void
rewrite(buf_t *out, const char *p, size_t n, const ctx_t *c)
{
	static const char *rawtext[] = {"script", "style", "title", "textarea", "xmp", "noembed",
	    "noframes", "iframe", NULL};
	size_t i = 0, from = 0;
	int based = 0;
	while (i < n) {
		if (p[i] != '<' || i + 1 >= n) {
			i++;
			continue;
		}
		if (i + 4 <= n && !strncmp(p + i, "<!--", 4)) {
			i = find_ci(p, n, i + 4, "-->", 0);
			continue;
		}
		if (p[i + 1] == '!' || p[i + 1] == '?' || p[i + 1] == '/') {
			i = find_ci(p, n, i + 1, ">", 0);
			continue;
		}
		if (!isalpha((unsigned char)p[i + 1])) {
			i++;
			continue;
		}
		size_t t = i + 1;
		char name[16];
		size_t nl = 0;
		while (t < n && (isalnum((unsigned char)p[t]) || p[t] == '-' || p[t] == ':')) {
			if (nl < sizeof name - 1)
				name[nl++] = (char)tolower((unsigned char)p[t]);
			t++;
		}
		name[nl] = 0;
		if (!based && strcmp(name, "html") && strcmp(name, "head")) {
			flush(out, p, &from, i);
			put_base(out, c);
			based = 1;
		}
		i = tag(out, p, n, t, &from, name, c);
		if (!based && !strcmp(name, "head")) {
			flush(out, p, &from, i);
			put_base(out, c);
			based = 1;
		}
		for (int k = 0; rawtext[k]; k++)
			if (!strcmp(name, rawtext[k])) {
				char end[24];
				snprintf(end, sizeof end, "</%s", name);
				i = find_ci(p, n, i, end, 1);
				break;
			}
	}
	flush(out, p, &from, n);
}

/* ------------------------------------------------------------ one page */

int
offline_page(int dfd, const char *dir, const char *src, const char *url, const offmap_t *map, int sync)
{
	char path[4096], dst[4096];
	const char *self = strrchr(dir, '/');
	if (snprintf(path, sizeof path, "%s/%s", dir, src) >= (int)sizeof path ||
	    snprintf(dst, sizeof dst, "%s/offline.html", dir) >= (int)sizeof dst)
		return 1;
	int fd = fs_open(dfd, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? 1 : -1;
	struct stat st;
	buf_t in = {0}, out = {0};
	int rc = 1;
	if (fstat(fd, &st) < 0) {
		rc = -1;
	} else if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= OFFLINE_MAX) {
		rc = fs_read_fd(fd, &in) < 0 ? -1 : 1;
	}
	int e = errno;
	close(fd);
	if (rc == 1 && in.len &&
	    viewtype_bytes((const unsigned char *)in.p, in.len < VIEWTYPE_SNIFF ? in.len : VIEWTYPE_SNIFF) ==
	        VK_MARKUP) {
		ctx_t c = {src, url ? url : "", self ? self + 1 : dir, map, {0}};
		for (const char *s = src; (s = strchr(s, '/')); s++)
			buf_adds(&c.up, "../");
		rewrite(&out, in.p, in.len, &c);
		buf_free(&c.up);
		rc = fs_write_new_sync(dfd, dst, out.p, out.len, sync) < 0 ? -1 : 0;
		e = errno;
	}
	buf_free(&in), buf_free(&out);
	errno = e;
	return rc;
}

/* ------------------------------------------------------------ a crawl */

typedef struct {
	char id[ID_LEN + 1];
	char *url;
	char *src;
} page_t;

typedef struct {
	const char *cid;
	page_t *v;                /* sealed snapshots */
	size_t n, cap;
	struct src {
		char sid[ID_LEN + 1];
		char *src;
	} *s;                     /* wget's pages, by snapshot id */
	size_t ns, scap;
} crawl_t;

static int
collect(rec_t *r, void *arg)
{
	crawl_t *c = arg;
	char *id = NULL;
	if (!rec_isnull(r, "deleted_at"))
		return 0;   /* removed (abx-ctl remove): no copy, and none links it */
	if (rec_streq(r, "type", "Snapshot") && rec_streq(r, "crawl_id", c->cid) &&
	    rec_streq(r, "status", "sealed") && id_valid(id = rec_str(r, "id"))) {
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->v = xrealloc(c->v, c->cap * sizeof *c->v);
		}
		page_t *p = &c->v[c->n++];
		memcpy(p->id, id, ID_LEN + 1);
		p->url = rec_str(r, "url");
		p->src = NULL;
	} else if (rec_streq(r, "type", "ArchiveResult") && id_valid(id = rec_str(r, "snapshot_id"))) {
		char *src = offline_source(r, 1);
		if (src) {
			if (c->ns == c->scap) {
				c->scap = c->scap ? 2 * c->scap : 64;
				c->s = xrealloc(c->s, c->scap * sizeof *c->s);
			}
			memcpy(c->s[c->ns].sid, id, ID_LEN + 1);
			c->s[c->ns++].src = src;
		}
	}
	free(id);
	return 0;
}

static int
by_sid(const void *a, const void *b)
{
	return strcmp(((const struct src *)a)->sid, ((const struct src *)b)->sid);
}

void
offline_crawl(store_t *s, const char *cid)
{
	if (!id_valid(cid))
		return;
	crawl_t c = {cid, NULL, 0, 0, NULL, 0, 0};
	offmap_t m = {0};
	char j[128];
	store_crawl_journal(cid, j, sizeof j);
	store_each(s, j, NULL, collect, &c);
	if (c.ns)
		qsort(c.s, c.ns, sizeof *c.s, by_sid);
	m.v = xmalloc((c.n ? c.n : 1) * sizeof *m.v);
	for (size_t i = 0; i < c.n; i++) {
		struct src k, *f;
		memcpy(k.sid, c.v[i].id, ID_LEN + 1);
		f = c.ns ? bsearch(&k, c.s, c.ns, sizeof *c.s, by_sid) : NULL;
		const char *why;
		char dir[ID_LEN * 2 + 32];
		snprintf(dir, sizeof dir, "crawls/%s/%s/offline.html", cid, c.v[i].id);
		/* its seal made the copy: a page that is not markup has none */
		char *canon = f && c.v[i].url && fs_exists(s->dfd, dir) == 1 ? url_canon(c.v[i].url, NULL, &why)
		                                                               : NULL;
		if (!canon)
			continue;
		c.v[i].src = f->src;
		m.v[m.n].url = canon;
		memcpy(m.v[m.n++].id, c.v[i].id, ID_LEN + 1);
	}
	if (m.n)
		qsort(m.v, m.n, sizeof *m.v, by_url);
	for (size_t i = 0; i < c.n; i++) {
		char dir[ID_LEN * 2 + 16];
		snprintf(dir, sizeof dir, "crawls/%s/%s", cid, c.v[i].id);
		int w = c.v[i].src ? offline_page(s->dfd, dir, c.v[i].src, c.v[i].url, &m, 0) : 1;
		if (w < 0 && errno != ENOENT)
			warnx_("unable to write %s/%s/offline.html: %s", s->dir, dir, strerror(errno));
		/* the new name durable before the tool says done, as the
		 * seal's own files are (a syncfs would do it on ext4; this
		 * does it on every filesystem, perfile's too) */
		if (w == 0 && s->durable && fs_fsync_dir(s->dfd, dir) < 0)
			warnx_("unable to sync %s/%s: %s", s->dir, dir, strerror(errno));
	}
	for (size_t i = 0; i < m.n; i++)
		free(m.v[i].url);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].url);
	for (size_t i = 0; i < c.ns; i++)
		free(c.s[i].src);
	free(m.v), free(c.v), free(c.s);
}
