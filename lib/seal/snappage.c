/*
 * snappage.c — see snappage.h.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "seal/html.h"
#include "base/ids.h"
#include "base/json.h"
#include "seal/offline.h"
#include "seal/snappage.h"
#include "net/url.h"
#include "seal/viewtype.h"

/*
 * The viewer: "?view=K" shows the K-th archived document of this page in an
 * <iframe sandbox> without allow-same-origin, so its scripts run in an
 * opaque origin and can read nothing of the archive (abx(7) SECURITY).  K
 * only selects one of the page's own links, whose data-src is a relative
 * path abx wrote: nothing of the query becomes a URL.  Without script the
 * link shows this page again, never the document unsandboxed.  From a file:
 * URL (location.protocol, which a server cannot set) the link to the
 * offline copy (data-offline, offline.h) opens the copy itself: a sandboxed
 * frame may load no file: URL, so the copy would show without its style
 * sheets and images, and a browser gives each file: URL an origin of its
 * own, so the copy's scripts read nothing of the archive either way.
 */
static const char viewer_js[] =
    "<script>(function(){"
    "var file=location.protocol==='file:';"
    "if(file)document.querySelectorAll('a[data-offline]').forEach(function(a){"
    "a.href=a.getAttribute('data-offline');});"
    "var m=/[?&]view=([0-9]+)(&|$)/.exec(location.search);if(!m)return;"
    "var a=document.querySelector('a[data-view=\"'+m[1]+'\"]');if(!a)return;"
    "if(file&&a.hasAttribute('data-offline')){location.replace(a.getAttribute('data-offline'));return;}"
    "var f=document.createElement('iframe');"
    "f.setAttribute('sandbox','allow-scripts allow-forms allow-popups');"
    "f.setAttribute('referrerpolicy','no-referrer');f.src=a.getAttribute('data-src');"
    "f.style.cssText='border:0;width:100%;height:calc(100vh - 44px);display:block;background:#fff';"
    "var bar=document.createElement('div'),back=document.createElement('a');"
    "bar.style.cssText='height:44px;box-sizing:border-box;padding:10px 16px;background:#23395d;"
    "color:#c9d4e5;font:14px system-ui,sans-serif;white-space:nowrap;overflow:hidden';"
    "back.href=location.pathname;back.textContent='\u2190 '+document.title;back.style.color='#fff';"
    "bar.appendChild(back);bar.appendChild(document.createTextNode("
    "' \u00b7 '+a.textContent+' (sandboxed: its scripts cannot read the archive)'));"
    "document.body.replaceChildren(bar,f);document.body.style.margin='0';"
    "})();</script>";

/*
 * The page's Content-Type as the headers hook recorded it
 * (headers/headers.json, the response wget's page came from), or NULL.
 * Read whole but bounded: a hook writes it.
 */
static char *
page_ctype(int dfd, const char *dir)
{
	char path[4096];
	char buf[65536];
	size_t n = 0;
	snprintf(path, sizeof path, "%s/headers/headers.json", dir);
	int fd = fs_open(dfd, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return NULL;
	for (ssize_t r; n < sizeof buf && (r = read(fd, buf + n, sizeof buf - n)) != 0;) {
		if (r < 0) {
			n = 0;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	rec_t h;
	if (n == 0 || n == sizeof buf || rec_parse(&h, buf, n) < 0)
		return NULL;
	char *t = rec_str(&h, "content-type");
	rec_free(&h);
	return t;
}

/* How each output file is linked: judged from its bytes (viewtype.h). */
typedef struct {
	int dfd;
	const char *dir;     /* the snapshot's, below dfd */
	char *page_ctype;    /* of wget's page, or NULL */
	int nview;           /* viewer links so far */
	int sync;            /* the offline copy fsync'd as written */
	int failed;          /* ... and that failed */
} links_t;

static void
files_list(buf_t *b, links_t *l, const char *plugin, const char *files_raw, const char *output_str)
{
	rec_t f;
	if (!files_raw || files_raw[0] != '{' || rec_parse(&f, files_raw, strlen(files_raw)) < 0)
		return;
	buf_adds(b, "<ul>");
	for (int i = 0; i < f.n && i < 200; i++) {
		char path[4096], rel[4096];
		int pn = snprintf(path, sizeof path, "%s/%s", plugin, f.f[i].key);
		int rn = snprintf(rel, sizeof rel, "%s/%s", l->dir, path);
		const char *ctype = !strcmp(plugin, "wget") && output_str && !strcmp(output_str, path)
		                        ? l->page_ctype : NULL;
		/* a name too long to open whole is judged as nothing: sandboxed */
		int how = pn < (int)sizeof path && rn < (int)sizeof rel ? viewtype_file(l->dfd, rel, ctype)
		                                                        : VIEW_SANDBOX;
		if (how == VIEW_SANDBOX) {
			++l->nview;
			buf_addf(b, "<li><a href=\"?view=%d\" data-view=\"%d\" data-src=\"", l->nview, l->nview);
		} else {
			buf_adds(b, how == VIEW_DOWNLOAD ? "<li><a download href=\"" : "<li><a href=\"");
		}
		html_href(b, path);
		buf_adds(b, "\">");
		html_esc(b, f.f[i].key);
		buf_adds(b, "</a></li>");
	}
	if (f.n > 200)
		buf_addf(b, "<li>… and %d more</li>", f.n - 200);
	buf_adds(b, "</ul>");
	rec_free(&f);
}

static int
count_elem(const char *raw, size_t n, void *arg)
{
	(void)raw, (void)n;
	++*(long *)arg;
	return 0;
}

long
snappage_missing(const rec_t *v, size_t n)
{
	long missing = 0;
	for (size_t i = 0; i < n; i++) {
		const char *oj = rec_streq(&v[i], "type", "ArchiveResult") ? rec_raw(&v[i], "output_json") : NULL;
		rec_t o;
		if (!oj || *oj != '{' || rec_parse(&o, oj, strlen(oj)) < 0)
			continue;
		const char *inc = rec_raw(&o, "incomplete"), *list = rec_raw(&o, "missing_requisites");
		if (inc && !strcmp(inc, "true")) {
			long k = 0;
			if (list && *list == '[')
				json_array_each(list, count_elem, &k);
			missing += k ? k : 1;
		}
		rec_free(&o);
	}
	return missing;
}

void
snappage_mark(rec_t *snap, const rec_t *v, size_t n)
{
	if (snappage_missing(v, n))
		rec_set_raw(snap, "incomplete", "true");
	else
		rec_del(snap, "incomplete");
}

/* The link to the offline copy of the page (offline.h), written now
 * without the crawl's other pages (its crawl's seal adds them). */
static void
offline_link(buf_t *b, links_t *l, const rec_t *snap, const rec_t *v, size_t n)
{
	char *src = offline_source(v, n), *url = rec_str(snap, "url");
	int w = src ? offline_page(l->dfd, l->dir, src, url, NULL, l->sync) : 1;
	if (w < 0)
		l->failed = 1;
	if (w == 0) {
		++l->nview;
		buf_addf(b, "<p class=\"open\"><a href=\"?view=%d\" data-view=\"%d\" data-src=\"offline.html\" "
		            "data-offline=\"offline.html\">Open the archived page</a> <span class=\"meta\">(wget's "
		            "copy, with its style sheets and images; its links to pages archived in the same "
		            "crawl open their copies)</span></p>", l->nview, l->nview);
	}
	free(src), free(url);
}

/* Has plugin a result among v (a file of it is looked for only then: on
 * a network filesystem a look for a file that is not there costs round
 * trips too)? */
static int
has_result(const rec_t *v, size_t n, const char *plugin)
{
	for (size_t i = 0; i < n; i++)
		if (rec_streq(&v[i], "type", "ArchiveResult") && rec_streq(&v[i], "plugin", plugin))
			return 1;
	return 0;
}

int
snappage_html(buf_t *b, const rec_t *snap, const rec_t *v, size_t n, int dfd, const char *dir, int sync)
{
	links_t l = {dfd, dir, has_result(v, n, "headers") ? page_ctype(dfd, dir) : NULL, 0, sync, 0};
	char shot[4096];
	snprintf(shot, sizeof shot, "%s/screenshot/screenshot.png", dir);
	char *title = rec_str(snap, "title"), *url = rec_str(snap, "url"), *st = rec_str(snap, "status");
	char *tags = rec_str(snap, "tags"), *ts = rec_str(snap, "bookmarked_at");
	buf_adds(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
	html_esc(b, title && *title ? title : url);
	buf_addf(b, "</title><style>%s</style></head><body><header><h1>", html_css);
	html_esc(b, title && *title ? title : url);
	buf_adds(b, "</h1><a href=\"");
	html_esc(b, url);
	buf_adds(b, "\">");
	html_esc(b, url);
	buf_adds(b, "</a><div class=\"meta\">");
	html_esc(b, st);
	/* what the site answered: a 404 is archived as answered (abx(7)) */
	html_http(b, snap, 1, " · ");
	buf_adds(b, " · bookmarked ");
	html_esc(b, ts);
	if (tags && *tags) {
		buf_adds(b, " · tags: ");
		html_esc(b, tags);
	}
	buf_addf(b, " · depth %lld · output %lld bytes", rec_int(snap, "depth", 0),
	    rec_int(snap, "output_size", 0));
	long missing = snappage_missing(v, n);
	if (missing)
		buf_addf(b, " · <span class=\"incomplete\">incomplete: %ld page requisite%s missing, named in "
		            "the notes below</span>", missing, missing == 1 ? "" : "s");
	buf_adds(b, "</div></header><main>");
	offline_link(b, &l, snap, v, n);
	if (has_result(v, n, "screenshot") && viewtype_file(dfd, shot, NULL) == VIEW_RAW)
		buf_adds(b, "<a href=\"screenshot/screenshot.png\"><img class=\"preview\" alt=\"screenshot\" "
		            "src=\"screenshot/screenshot.png\"></a>");
	buf_adds(b, "<table><tr><th>plugin</th><th>status</th><th>output</th><th>files</th></tr>");
	for (size_t i = 0; i < n; i++) {
		const rec_t *r = &v[i];
		if (!rec_streq(r, "type", "ArchiveResult"))
			continue;
		char *pl = rec_str(r, "plugin"), *hk = rec_str(r, "hook_name"), *s = rec_str(r, "status");
		char *os = rec_str(r, "output_str"), *notes = rec_str(r, "notes");
		buf_adds(b, "<tr><td>");
		html_esc(b, pl);
		buf_adds(b, "<br><code>");
		html_esc(b, hk);
		buf_adds(b, "</code></td><td class=\"");
		html_esc(b, s);
		buf_adds(b, "\">");
		html_esc(b, s);
		buf_adds(b, "</td><td>");
		html_esc(b, os);
		if (notes && *notes) {
			buf_adds(b, "<div class=\"meta\">");
			html_esc(b, notes);
			buf_adds(b, "</div>");
		}
		buf_adds(b, "</td><td>");
		if (pl && name_valid(pl))
			files_list(b, &l, pl, rec_raw(r, "output_files"), os);
		buf_adds(b, "</td></tr>");
		free(pl), free(hk), free(s), free(os), free(notes);
	}
	buf_adds(b, "</table><p class=\"meta\"><a href=\"index.json\">index.json</a> · "
	            "<a href=\"index.jsonl\">index.jsonl</a></p></main>");
	if (l.nview)
		buf_adds(b, viewer_js);
	buf_adds(b, "</body></html>\n");
	free(title), free(url), free(st), free(tags), free(ts), free(l.page_ctype);
	return l.failed ? -1 : 0;
}

/* ------------------------------------------------------------ JSON */

static void
json_field(buf_t *b, const char *k, const char *raw, int *first)
{
	buf_adds(b, *first ? "{\n  " : ",\n  ");
	*first = 0;
	buf_json_strz(b, k);
	buf_adds(b, ": ");
	buf_adds(b, raw ? raw : "null");
}

void
snappage_json(buf_t *b, const rec_t *snap, const rec_t *rv, size_t rn, const char *dir)
{
	static const char *keys[] = {"id", "crawl_id", "url", "timestamp", "title", "downloaded_at",
	    "bookmarked_at", "created_at", "modified_at", "retry_at", "depth", "status", "output_size", NULL};
	int first = 1, outs = 0, fails = 0;
	json_field(b, "TYPE", "\"core.models.Snapshot\"", &first);
	for (int i = 0; keys[i]; i++)
		json_field(b, keys[i], rec_raw(snap, keys[i]), &first);
	if (rec_raw(snap, "incomplete"))
		json_field(b, "incomplete", rec_raw(snap, "incomplete"), &first);
	if (rec_int(snap, "http_status", 0) > 0)
		json_field(b, "http_status", rec_raw(snap, "http_status"), &first);
	/* tags as a sorted list */
	char *tags = rec_str(snap, "tags");
	buf_t t = {0};
	buf_addc(&t, '[');
	int nt = 0;
	char *save = NULL, *dup = xstrdup(tags ? tags : "");
	char *names[256];
	for (char *x = strtok_r(dup, ",", &save); x && nt < 256; x = strtok_r(NULL, ",", &save))
		names[nt++] = x;
	for (int i = 1; i < nt; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *tmp = names[j];
			names[j] = names[j - 1];
			names[j - 1] = tmp;
		}
	for (int i = 0; i < nt; i++) {
		if (i)
			buf_addc(&t, ',');
		buf_json_strz(&t, names[i]);
	}
	buf_addc(&t, ']');
	json_field(b, "tags", t.p, &first);
	char *url = rec_str(snap, "url");
	char host[512];
	url_host(url ? url : "", host, sizeof host);
	buf_t v = {0};
	buf_json_strz(&v, host);
	json_field(b, "domain", v.p, &first);
	buf_reset(&v);
	const char *colon = url ? strchr(url, ':') : NULL;
	buf_json_str(&v, url ? url : "", colon ? (size_t)(colon - url) : 0);
	json_field(b, "scheme", v.p, &first);
	buf_reset(&v);
	buf_json_strz(&v, dir);
	json_field(b, "output_dir", v.p, &first);
	for (size_t i = 0; i < rn; i++)
		if (rec_streq(&rv[i], "type", "ArchiveResult")) {
			outs += rec_streq(&rv[i], "status", "succeeded");
			fails += rec_streq(&rv[i], "status", "failed");
		}
	char num[32];
	snprintf(num, sizeof num, "%d", outs);
	json_field(b, "num_outputs", num, &first);
	snprintf(num, sizeof num, "%d", fails);
	json_field(b, "num_failures", num, &first);
	buf_adds(b, "\n}\n");
	free(tags), free(dup), free(url);
	buf_free(&t);
	buf_free(&v);
}
