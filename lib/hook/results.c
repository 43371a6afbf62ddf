/* results.c — see results.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "hook/results.h"
#include "store/store.h"

#define MAX_TAGS 100
#define MAX_BINS 16

/* ------------------------------------------------------------ stdout */

static void
add_tag(hookout_t *o, const rec_t *r)
{
	char *name = rec_str(r, "name");
	if (!name)
		return;
	char *t = name;
	while (*t == ' ' || *t == '\t')
		t++;
	size_t n = strlen(t);
	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		t[--n] = 0;
	int ok = n > 0 && n <= 100 && o->ntags < MAX_TAGS && !strpbrk(t, ",\n\r");
	for (size_t i = 0; ok && i < o->ntags; i++)
		if (strcmp(o->tags[i], t) == 0)
			ok = 0;
	if (ok) {
		o->tags = xrealloc(o->tags, (o->ntags + 1) * sizeof(char *));
		o->tags[o->ntags++] = xstrdup(t);
	}
	free(name);
}

static const char *
blank_end(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* p at a quote: past the closing one, or NULL. */
static const char *
quote_end(const char *p, const char *e)
{
	for (p++; p < e && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < e ? p + 1 : NULL;
}

/* The end of a value in text that may not be JSON: the first ',' or closer
 * outside strings and brackets, or NULL if there is none. */
static const char *
loose_end(const char *p, const char *e)
{
	int depth = 0;
	while (p < e) {
		if (*p == '"') {
			if (!(p = quote_end(p, e)))
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
		p++;
	}
	return NULL;
}

/*
 * A line that looks like a record but is not JSON, split at its top level
 * (keys must be JSON strings): a value that is valid JSON is kept, one that
 * is not becomes a string of its text, and its key is added to bad ("a, b"),
 * or sets *oj_bad if it is output_json.  So a hook's ArchiveResult with a
 * malformed output_json still counts, and nothing invalid is kept.
 */
static int
loose_record(rec_t *r, const char *p, size_t n, buf_t *bad, int *oj_bad)
{
	const char *e = p + n;
	memset(r, 0, sizeof *r);
	if (n < 2 || p[0] != '{' || e[-1] != '}')
		return -1;
	buf_t k = {0}, v = {0};
	int rc = -1;
	for (p = blank_end(p + 1, e); p < e && *p == '"';) {
		const char *ks = p, *ke = quote_end(p, e), *ve, *vend;
		if (!ke || !json_valid(ks, ke - ks))
			break;
		p = blank_end(ke, e);
		if (p == e || *p != ':')
			break;
		p = blank_end(p + 1, e);
		if (!(ve = loose_end(p, e)) || (*ve != ',' && ve != e - 1))
			break;
		for (vend = ve; vend > p && (vend[-1] == ' ' || vend[-1] == '\t' || vend[-1] == '\r'); vend--)
			;
		buf_reset(&k);
		json_unescape(ks + 1, ke - ks - 2, &k);
		buf_reset(&v);
		buf_add(&v, p, vend - p);
		if (json_valid(v.p, v.len)) {
			rec_set_raw(r, buf_cstr(&k), v.p);
		} else {
			rec_set_strn(r, buf_cstr(&k), v.p, v.len);
			if (strcmp(k.p, "output_json") == 0) {
				*oj_bad = 1;
			} else {
				if (bad->len)
					buf_adds(bad, ", ");
				buf_adds(bad, k.p);
			}
		}
		if (ve == e - 1) {
			rc = 0;
			break;
		}
		p = blank_end(ve + 1, e);
	}
	buf_free(&k), buf_free(&v);
	if (rc < 0)
		rec_free(r);
	return rc;
}

/* One stdout line as a record: strict JSON, or a malformed ArchiveResult
 * (loose_record); 0, or -1 if it is neither. */
static int
line_record(const char *line, size_t n, rec_t *r, buf_t *bad, int *oj_bad)
{
	if (rec_parse(r, line, n) == 0)
		return 0;
	if (loose_record(r, line, n, bad, oj_bad) < 0)
		return -1;
	if (rec_streq(r, "type", "ArchiveResult"))
		return 0;
	rec_free(r);
	buf_reset(bad);
	*oj_bad = 0;
	return -1;
}

static void
take_record(hookout_t *o, const char *line, size_t n, const char *url, long lineno)
{
	while (n && (*line == ' ' || *line == '\t' || *line == '\r'))
		line++, n--;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
		n--;
	if (n == 0)
		return;
	if (line[0] != '{') {
		o->garbage++;
		return;
	}
	/* bytes that are not UTF-8 (Latin-1 in a title) cost a character, not the record */
	buf_t text = {0}, bad = {0};
	int oj_bad = 0;
	json_fix_utf8(line, n, &text);
	rec_t r;
	int rc = line_record(text.p, text.len, &r, &bad, &oj_bad);
	buf_free(&text);
	if (rc < 0) {
		/* it looked like a record: say so, never store it */
		o->garbage++;
		if (!o->bad_records++)
			o->first_bad_record = lineno;
		buf_free(&bad);
		return;
	}
	char *type = rec_str(&r, "type");
	if (!type) {
		rec_free(&r);
		buf_free(&bad);
		return;
	}
	if (strcmp(type, "ArchiveResult") == 0) {
		if (o->have_ar)
			rec_free(&o->ar);
		o->ar = r;
		o->have_ar = 1;
		buf_free(&o->ar_invalid);
		o->ar_invalid = bad;
		o->ar_oj_invalid = oj_bad;
		free(type);
		return;
	}
	buf_free(&bad);
	if (strcmp(type, "Tag") == 0) {
		add_tag(o, &r);
	} else if (strcmp(type, "Snapshot") == 0) {
		char *t = rec_str(&r, "title"), *u = rec_str(&r, "url");
		int ours = !u || (url && strcmp(u, url) == 0);
		if (t && ours) {
			free(o->title);
			o->title = t;
			t = NULL;
		}
		long long code = rec_int(&r, "http_status", 0);
		if (ours && code >= 100 && code <= 999)
			o->http_status = (long)code;
		free(t), free(u);
	} else if (strcmp(type, "Binary") == 0) {
		char *nm = rec_str(&r, "name"), *ap = rec_str(&r, "abspath");
		if (nm && *nm && ap && ap[0] == '/' && o->nbins < MAX_BINS) {
			o->bins = xrealloc(o->bins, (o->nbins + 1) * sizeof(rec_t));
			o->bins[o->nbins++] = r;
			r.n = 0, r.f = NULL;
		}
		free(nm), free(ap);
	}
	free(type);
	rec_free(&r);
}

void
hookout_read(int fd, const char *url, hookout_t *o)
{
	memset(o, 0, sizeof *o);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return;
	char *chunk = xmalloc(65536);
	buf_t line = {0};
	long lineno = 1;
	int skipping = 0;
	ssize_t got;
	while ((got = read(fd, chunk, 65536)) > 0 || (got < 0 && errno == EINTR)) {
		char *p = chunk, *end = chunk + (got > 0 ? got : 0);
		while (p < end) {
			char *nl = memchr(p, '\n', end - p);
			char *seg_end = nl ? nl : end;
			if (!skipping) {
				buf_add(&line, p, seg_end - p);
				if (line.len > RESULT_LINE_MAX) {
					if (!o->overlong++)
						o->first_overlong = lineno;
					buf_reset(&line);
					skipping = 1;
				}
			}
			if (nl) {
				if (!skipping)
					take_record(o, line.p ? line.p : "", line.len, url, lineno);
				buf_reset(&line);
				skipping = 0;
				lineno++;
			}
			p = nl ? nl + 1 : end;
		}
	}
	if (!skipping && line.len)
		take_record(o, line.p, line.len, url, lineno);
	buf_free(&line);
	free(chunk);
}

void
hookout_free(hookout_t *o)
{
	if (o->have_ar)
		rec_free(&o->ar);
	for (size_t i = 0; i < o->ntags; i++)
		free(o->tags[i]);
	free(o->tags);
	free(o->title);
	for (size_t i = 0; i < o->nbins; i++)
		rec_free(&o->bins[i]);
	free(o->bins);
	buf_free(&o->ar_invalid);
	memset(o, 0, sizeof *o);
}

void
log_tail(int fd, buf_t *out)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return;
	off_t from = st.st_size > 4096 ? st.st_size - 4096 : 0;
	char buf[4097];
	ssize_t n = pread(fd, buf, 4096, from);
	if (n <= 0)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		n--;
	char *start = buf;
	int lines = 0;
	for (char *p = buf + n; p > buf; p--)
		if (p[-1] == '\n' && ++lines == 10) {
			start = p;
			break;
		}
	if (buf + n - start > 2048)
		start = buf + n - 2048;
	buf_add(out, start, buf + n - start);
	buf_cstr(out);
}

/* ------------------------------------------------------------ status */

static const char *
normal_status(const char *s)
{
	static const char *ok[] = {"succeeded", "failed", "skipped", "noresults", NULL};
	if (!s)
		return NULL;
	if (strcmp(s, "noresult") == 0)
		return "noresults";
	for (int i = 0; ok[i]; i++)
		if (strcmp(s, ok[i]) == 0)
			return ok[i];
	return NULL;
}

static void
note(buf_t *b, const char *s)
{
	if (!s || !*s)
		return;
	if (b->len)
		buf_adds(b, "; ");
	buf_adds(b, s);
}

/* Why a hook's output_json is stored as a string (output_json_set), or NULL. */
static const char *
output_json_note(const hookout_t *o)
{
	const char *oj = rec_raw(&o->ar, "output_json");
	if (o->ar_oj_invalid)
		return "output_json was not valid JSON; stored as a string";
	if (oj && strcmp(oj, "null") != 0 && oj[0] != '{')
		return "output_json was not a JSON object; stored as a string";
	return NULL;
}

void
result_verdict(const proc_t *p, int spawn_err, const char *path, const hookout_t *o,
    const char *tail, verdict_t *v)
{
	memset(v, 0, sizeof *v);
	buf_t reason = {0};
	if (spawn_err) {
		v->status = "failed";
		buf_addf(&v->notes, "unable to execute %s: %s", path, strerror(spawn_err));
		buf_cstr(&v->notes);
		return;
	}
	int code = proc_exit_code(p);
	int stopped_ok = p->why == WHY_STOPPED && !p->killed;
	v->status = code == 0 || stopped_ok ? "succeeded" : code == 10 ? "skipped" : "failed";
	if (p->status >= 0 && WIFSIGNALED(p->status) && !p->why)
		buf_addf(&reason, "killed by signal %d", WTERMSIG(p->status));
	else if (code != 0 && code != 10 && !p->why)
		buf_addf(&reason, "exit status %d", code);
	char *err = NULL;
	if (o && o->have_ar) {
		char *st = rec_str(&o->ar, "status");
		const char *ns = normal_status(st);
		if (ns)
			v->status = ns;
		else {
			buf_t b = {0};
			buf_addf(&b, "hook reported an unknown status \"%s\"", st ? st : "");
			note(&reason, buf_cstr(&b));
			buf_free(&b);
		}
		free(st);
		err = rec_str(&o->ar, "error");
	}
	if (p->why == WHY_TIMEOUT) {
		v->status = "failed";
		buf_reset(&reason);
		buf_addf(&reason, "timed out after %ld s", p->timeout);
		if (p->killed)
			buf_addf(&reason, " (killed: it ignored SIGTERM for %ld s)", p->grace);
	} else if (p->why == WHY_INTERRUPTED) {
		v->status = "failed";
		buf_reset(&reason);
		buf_adds(&reason, "interrupted: abx-hook was stopped by a signal");
	} else if (p->why == WHY_LIMIT) {
		v->status = "failed";
		buf_reset(&reason);
		buf_adds(&reason, "stopped: the snapshot reached SNAPSHOT_MAX_SIZE");
	} else if (p->why == WHY_STOPPED && p->killed) {
		buf_addf(&reason, "daemon killed: it ignored SIGTERM for %ld s", p->grace);
	}
	note(&v->notes, buf_cstr(&reason));
	if (err && *err)
		note(&v->notes, err);
	else if (strcmp(v->status, "failed") == 0)
		note(&v->notes, tail);
	if (o && o->have_ar && o->ar_invalid.len) {
		buf_t b = {0};
		buf_addf(&b, "the ArchiveResult's %s: not valid JSON, read as text", o->ar_invalid.p);
		note(&v->notes, buf_cstr(&b));
		buf_free(&b);
	}
	if (o && o->have_ar)
		note(&v->notes, output_json_note(o));
	if (o && o->bad_records) {
		buf_t b = {0};
		buf_addf(&b, "stdout line %ld begins with { but is not a JSON record (RFC 8259): not recorded",
		    o->first_bad_record);
		if (o->bad_records > 1)
			buf_addf(&b, " (%ld such lines)", o->bad_records);
		note(&v->notes, buf_cstr(&b));
		buf_free(&b);
	}
	if (o && o->overlong) {
		buf_t b = {0};
		buf_addf(&b, "stdout line %ld longer than %d bytes: cut and ignored", o->first_overlong,
		    RESULT_LINE_MAX);
		if (o->overlong > 1)
			buf_addf(&b, " (%ld such lines)", o->overlong);
		note(&v->notes, buf_cstr(&b));
		buf_free(&b);
	}
	buf_cstr(&v->notes);
	free(err);
	buf_free(&reason);
}

/* ------------------------------------------------------------ reasons */

/* Lines that say nothing about why a hook failed. */
static const char *const noise[] = {
	"dbus", "D-Bus", "Failed to connect to the bus", "org.freedesktop.", "bus.cc(",
	"object_proxy.cc(", ":WARNING:", ":INFO:", ":VERBOSE", "Fontconfig error", NULL,
};

static int
noisy(const char *p, size_t n)
{
	for (int i = 0; noise[i]; i++)
		if (memmem(p, n, noise[i], strlen(noise[i])))
			return 1;
	return 0;
}

/* The next part of text (a line, or up to "; "), trimmed; NULL at the end. */
static const char *
next_part(const char **at, size_t *len)
{
	const char *p = *at;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || (*p == ';' && p[1] == ' '))
		p++;
	if (!*p)
		return NULL;
	const char *e = p;
	while (*e && *e != '\n' && !(*e == ';' && e[1] == ' '))
		e++;
	*at = e;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*len = e - p;
	return p;
}

static int
bare_status(const char *p, size_t n)
{
	static const char *const pre[] = {"exit status ", "killed by signal ", NULL};
	for (int i = 0; pre[i]; i++) {
		size_t k = strlen(pre[i]);
		if (n > k && !memcmp(p, pre[i], k) && strspn(p + k, "0123456789") == n - k)
			return 1;
	}
	return 0;
}

void
result_reason_line(const char *notes, buf_t *out)
{
	buf_t b = {0};
	const char *at = notes ? notes : "", *p;
	size_t n;
	int parts = 0;
	while (parts < 2 && (p = next_part(&at, &n))) {
		if (noisy(p, n))
			continue;
		if (parts++)
			buf_adds(&b, ": ");
		buf_add(&b, p, n);
		if (!bare_status(p, n))
			break;
	}
	size_t len = b.len;
	if (len > 200) {
		len = 200;
		while (len > 0 && ((unsigned char)b.p[len] & 0xC0) == 0x80)
			len--;   /* not in the middle of a character */
	}
	for (size_t i = 0; i < len; i++)
		buf_addc(out, (unsigned char)b.p[i] < 0x20 || b.p[i] == 0x7f ? ' ' : b.p[i]);
	buf_cstr(out);
	buf_free(&b);
}

/* ------------------------------------------------------------ records */

static void
set_time(rec_t *r, const char *key, int64_t us)
{
	rec_set_time(r, key, us > 0 ? us : -1);
}

static void
argv_json(buf_t *b, char *const *argv)
{
	buf_addc(b, '[');
	for (int i = 0; argv && argv[i]; i++) {
		if (i)
			buf_addc(b, ',');
		buf_json_strz(b, argv[i]);
	}
	buf_addc(b, ']');
}

/*
 * A hook's output_json: a JSON object is kept as it is, null or none is null,
 * and anything else is stored as a string — a string as it is, other values
 * as their text (output_json_note says so in the notes).  rec_parse has
 * checked the text; json_valid checks it again, since an invalid raw value
 * would make the whole journal unreadable to jq.
 */
static void
output_json_set(rec_t *r, const hookout_t *o)
{
	const char *oj = o && o->have_ar ? rec_raw(&o->ar, "output_json") : NULL;
	if (!oj || strcmp(oj, "null") == 0)
		rec_set_null(r, "output_json");
	else if ((oj[0] == '{' || oj[0] == '"') && json_valid(oj, strlen(oj)))
		rec_set_raw(r, "output_json", oj);
	else
		rec_set_str(r, "output_json", oj);
}

void
result_archive(rec_t *r, const result_t *x)
{
	memset(r, 0, sizeof *r);
	rec_set_str(r, "type", "ArchiveResult");
	rec_set_str(r, "id", x->id);
	rec_set_str(r, "crawl_id", x->crawl_id);
	rec_set_str(r, "snapshot_id", x->snapshot_id);
	rec_set_str(r, "plugin", x->plugin);
	rec_set_str(r, "hook_name", x->hook_name);
	rec_set_str(r, "status", x->status);
	char *os = x->out && x->out->have_ar ? rec_str(&x->out->ar, "output_str") : NULL;
	rec_set_str(r, "output_str", os ? os : "");
	free(os);
	output_json_set(r, x->out);
	/* built by abx with every name escaped; checked all the same */
	const char *of = x->files && x->files->files.p ? x->files->files.p : "{}";
	rec_set_raw(r, "output_files", json_valid(of, strlen(of)) ? of : "{}");
	rec_set_int(r, "output_size", x->files ? x->files->size : 0);
	rec_set_str(r, "output_mimetypes", x->files ? x->files->mimetypes.p : "");
	set_time(r, "start_ts", x->proc ? x->proc->started : x->now);
	set_time(r, "end_ts", x->proc ? x->proc->ended : x->now);
	if (x->process_id) {
		buf_t b = {0};
		buf_adds(&b, "{\"cmd\":");
		argv_json(&b, x->argv);
		buf_addf(&b, ",\"pid\":%ld,\"exit_code\":", (long)x->proc->pid);
		if (x->proc->state == PROC_DETACHED)
			buf_adds(&b, "null");
		else
			buf_addf(&b, "%d", proc_exit_code(x->proc));
		buf_adds(&b, ",\"pwd\":");
		buf_json_strz(&b, x->pwd);
		buf_addf(&b, ",\"timeout\":%ld}", x->proc->timeout);
		rec_set_raw(r, "process", buf_cstr(&b));
		buf_free(&b);
		rec_set_str(r, "process_id", x->process_id);
	} else {
		rec_set_null(r, "process");
		rec_set_null(r, "process_id");
	}
	rec_set_str(r, "notes", x->notes ? x->notes : "");
	rec_set_null(r, "retry_at");
	if (x->created_at)
		rec_set_raw(r, "created_at", x->created_at);
	else
		set_time(r, "created_at", x->now);
}

void
result_process(rec_t *r, const result_t *x, const char *host, int running)
{
	memset(r, 0, sizeof *r);
	const proc_t *p = x->proc;
	rec_set_str(r, "type", "Process");
	rec_set_str(r, "id", x->process_id);
	rec_set_str(r, "crawl_id", x->crawl_id);
	rec_set_str(r, "snapshot_id", x->snapshot_id && *x->snapshot_id ? x->snapshot_id : NULL);
	rec_set_str(r, "plugin", x->plugin);
	rec_set_str(r, "hook_name", x->hook_name);
	rec_set_str(r, "process_type", "hook");
	buf_t b = {0};
	argv_json(&b, x->argv);
	rec_set_raw(r, "cmd", buf_cstr(&b));
	buf_free(&b);
	rec_set_str(r, "pwd", x->pwd);
	rec_set_int(r, "timeout", p->timeout);
	rec_set_int(r, "pid", p->pid);
	rec_set_str(r, "host", host);
	set_time(r, "started_at", p->started);
	if (running) {
		rec_set_null(r, "ended_at");
		rec_set_null(r, "exit_code");
		rec_set_str(r, "status", "running");
	} else {
		set_time(r, "ended_at", p->ended);
		rec_set_int(r, "exit_code", proc_exit_code(p));
		rec_set_str(r, "status", "exited");
	}
	set_time(r, "created_at", x->now);
}
