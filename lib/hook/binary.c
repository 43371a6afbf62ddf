/* binary.c — see binary.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hook/binary.h"
#include "hook/launcher.h"
#include "base/jsonline.h"
#include "base/spawn.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/ids.h"

#define BACKOFF_BASE (60 * 1000000LL)
#define BACKOFF_MAX (24 * 3600 * 1000000LL)
#define VERSION_WAIT_MS 2000

/* ------------------------------------------------------------ specs */

/* Replace {KEY} with KEY's value in pc (empty if unset). */
static char *
hydrate(const char *s, const conf_t *pc)
{
	buf_t b = {0};
	for (const char *p = s; *p;) {
		const char *close = *p == '{' ? strchr(p, '}') : NULL;
		if (close) {
			char *k = xstrndup(p + 1, close - p - 1);
			if (conf_key_valid(k)) {
				const char *v = conf_get(pc, k);
				buf_adds(&b, v ? v : "");
				free(k);
				p = close + 1;
				continue;
			}
			free(k);
		}
		buf_addc(&b, *p++);
	}
	return buf_cstr(&b);
}

static int
csv_add(const char *raw, size_t n, void *arg)
{
	buf_t *b = arg;
	if (n < 2 || raw[0] != '"')
		return 0;
	if (b->len)
		buf_addc(b, ',');
	json_unescape(raw + 1, n - 2, b);
	return 0;
}

typedef struct {
	const conf_t *pc;
	binreq_t *v;
	size_t n;
} parse_t;

static void
binreqs_free_one(binreq_t *q)
{
	for (char **a = q->args; a && *a; a++)
		free(*a);
	free(q->args);
	free(q->name), free(q->key), free(q->binproviders);
}

/* --key=value for one field of the entry, or NULL if it is null. */
static char *
field_arg(const char *key, const char *raw)
{
	if (!raw || strncmp(raw, "null", 4) == 0)
		return NULL;
	buf_t b = {0};
	buf_adds(&b, "--");
	for (const char *k = key; *k; k++)
		buf_addc(&b, *k == '_' ? '-' : *k);
	buf_addc(&b, '=');
	if (raw[0] == '"')
		json_unescape(raw + 1, strlen(raw) - 2, &b);
	else
		json_line(raw, strlen(raw), &b);
	return buf_cstr(&b);
}

/* The entry's fields but name and binproviders, in abx-dl's order. */
static char **
request_args(const rec_t *r)
{
	static const char *const known[] = {"min_version", "postinstall_scripts", "min_release_age", "overrides"};
	char **v = xcalloc(r->n + 1, sizeof(char *));
	size_t n = 0;
	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		char *a = field_arg(known[k], rec_raw(r, known[k]));
		if (a)
			v[n++] = a;
	}
	for (int i = 0; i < r->n; i++) {
		const char *k = r->f[i].key;
		int skip = !strcmp(k, "name") || !strcmp(k, "binproviders") || !conf_key_valid(k);
		for (size_t j = 0; j < sizeof known / sizeof known[0] && !skip; j++)
			skip = !strcmp(k, known[j]);
		char *a = skip ? NULL : field_arg(k, r->f[i].val);
		if (a)
			v[n++] = a;
	}
	return v;
}

static int
parse_one(const char *raw, size_t n, void *arg)
{
	parse_t *ps = arg;
	rec_t r;
	if (rec_parse(&r, raw, n) < 0)
		return 0;
	char *name = rec_str(&r, "name");
	if (!name) {
		rec_free(&r);
		return 0;
	}
	binreq_t q = {0};
	q.name = hydrate(name, ps->pc);
	size_t nl = strlen(name);
	if (nl > 2 && name[0] == '{' && name[nl - 1] == '}' && !strchr(name + 1, '{')) {
		q.key = xstrndup(name + 1, nl - 2);
		if (!conf_key_valid(q.key)) {
			free(q.key);
			q.key = NULL;
		}
	}
	q.args = request_args(&r);
	buf_t bp = {0};
	const char *bpr = rec_raw(&r, "binproviders");
	if (bpr && bpr[0] == '[')
		json_array_each(bpr, csv_add, &bp);
	else if (bpr && bpr[0] == '"') {
		char *v = rec_str(&r, "binproviders");
		char *h = hydrate(v, ps->pc);
		buf_adds(&bp, h);
		free(v), free(h);
	}
	q.binproviders = xstrdup(bp.len ? buf_cstr(&bp) : "env");
	buf_free(&bp);
	free(name);
	rec_free(&r);
	if (!*q.name || strchr(q.name, '\n')) {
		binreqs_free_one(&q);
		return 0;
	}
	ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof(binreq_t));
	ps->v[ps->n++] = q;
	return 0;
}

size_t
binreqs_parse(const char *raw, const conf_t *pc, binreq_t **out)
{
	parse_t ps = {pc, NULL, 0};
	if (raw)
		json_array_each(raw, parse_one, &ps);
	*out = ps.v;
	return ps.n;
}

void
binreqs_free(binreq_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		binreqs_free_one(&v[i]);
	free(v);
}

/* ------------------------------------------------------------ lookups */

static int
executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *
binary_which(const char *name, const char *path_env)
{
	if (strchr(name, '/'))
		return name[0] == '/' && executable(name) ? xstrdup(name) : NULL;
	char *dup = xstrdup(path_env ? path_env : ""), *save = NULL;
	char *found = NULL;
	for (char *d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;   /* a relative PATH entry depends on the cwd: never */
		char *p = xasprintf("%s/%s", d, name);
		if (executable(p))
			found = p;
		else
			free(p);
	}
	free(dup);
	return found;
}

/* The first word that looks like a version: digits, a dot, more. */
static char *
version_word(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (!(*p >= '0' && *p <= '9') || (p > s && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.')))
			continue;
		const char *e = p;
		while ((*e >= '0' && *e <= '9') || *e == '.' || (*e >= 'a' && *e <= 'z') || *e == '-' ||
		       *e == '+')
			e++;
		while (e > p && (e[-1] == '.' || e[-1] == '-'))
			e--;
		if (memchr(p, '.', e - p) && e - p < 64)
			return xstrndup(p, e - p);
	}
	return NULL;
}

char *
binary_version(const char *abspath)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return NULL;
	char prog[4096];
	if (launcher_program(abspath, prog, sizeof prog))
		abspath = prog;   /* the program a distribution's script starts */
	char *argv[] = {(char *)abspath, "--version", NULL};
	char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "LC_ALL=C", NULL};
	spawn_t sp;
	spawn_init(&sp, abspath, argv, envp);
	sp.fd[1] = sp.fd[2] = pfd[1], sp.cwd = "/", sp.session = 1;
	pid_t pid;
	int rc = spawn(&sp, &pid);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return NULL;
	}
	char out[4097];
	size_t len = 0;
	int64_t end = clock_mono() + VERSION_WAIT_MS * 1000LL;
	for (;;) {
		int64_t left = end - clock_mono();
		struct pollfd p = {pfd[0], POLLIN, 0};
		if (left <= 0 || poll(&p, 1, left / 1000 + 1) <= 0)
			break;
		ssize_t n = read(pfd[0], out + len, sizeof out - 1 - len);
		if (n <= 0 || (len += n) == sizeof out - 1)
			break;
	}
	close(pfd[0]);
	killpg(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	out[len] = 0;
	char *nl = strchr(out, '\n');
	char *v = NULL;
	if (nl) {   /* the first line first, then the rest */
		*nl = 0;
		v = version_word(out);
		if (!v)
			v = version_word(nl + 1);
	} else {
		v = version_word(out);
	}
	return v;
}

/* ------------------------------------------------------------ records */

typedef struct {
	const char *name;
	rec_t rec;
	int found;
} find_t;

static int
find_bin(rec_t *r, void *arg)
{
	find_t *f = arg;
	if (rec_streq(r, "type", "Binary") && rec_streq(r, "name", f->name)) {
		if (f->found)
			rec_free(&f->rec);
		rec_copy(&f->rec, r);
		f->found = 1;
	}
	return 0;
}

static int
find_record(store_t *s, const char *name, rec_t *out)
{
	buf_t filt = {0};
	buf_adds(&filt, "\"name\":");
	buf_json_strz(&filt, name);
	find_t f = {name, {0}, 0};
	store_each(s, "binaries.jsonl", buf_cstr(&filt), find_bin, &f);
	buf_free(&filt);
	*out = f.rec;
	return f.found ? 0 : -1;
}

static void
fail_msg(binres_t *res, const char *name, const char *why, int64_t retry)
{
	char iso[ISO_LEN + 1];
	clock_iso(retry, iso);
	buf_t b = {0};
	buf_addf(&b, "binary %s %s; next check at %s", name, why, iso);
	res->why = buf_cstr(&b);
}

void
binary_resolve(store_t *s, const binreq_t *req, const char *path_env, binary_provider_fn prov,
    void *arg, binres_t *res)
{
	memset(res, 0, sizeof *res);
	rec_t old;
	int have = find_record(s, req->name, &old) == 0;
	int64_t now = clock_now();
	if (have) {
		char *ap = rec_str(&old, "abspath");
		if (rec_streq(&old, "status", "installed") && ap && executable(ap)) {
			res->ok = 1;
			res->abspath = ap;
			rec_free(&old);
			return;
		}
		free(ap);
		int64_t retry = rec_time(&old, "retry_at");
		if (!rec_streq(&old, "status", "installed") && retry > now) {
			char *why = rec_str(&old, "notes");
			fail_msg(res, req->name, why && *why ? why : "not found", retry);
			free(why);
			rec_free(&old);
			return;
		}
	}
	char id[ID_LEN + 1];
	char *oid = have ? rec_str(&old, "id") : NULL;
	if (!id_valid(oid))
		id_new(id);
	else
		snprintf(id, sizeof id, "%s", oid);
	free(oid);
	/* look it up: PATH, then the providers in their order */
	char *ap = binary_which(req->name, path_env), *ver = NULL;
	const char *by = "env";
	char *provs = xstrdup(req->binproviders), *save = NULL;
	buf_t asked = {0};
	for (char *pv = strtok_r(provs, ",", &save); !ap && pv && prov && !strchr(req->name, '/');
	     pv = strtok_r(NULL, ",", &save)) {
		while (*pv == ' ')
			pv++;
		if (strcmp(pv, "env") == 0 || !name_valid(pv))
			continue;
		int r = prov(arg, pv, req, id, &ap, &ver);
		if (r == 0 && ap)
			by = pv;
		else if (r == -1)
			buf_addf(&asked, "%s%s", asked.len ? "," : "", pv);
	}
	rec_t r = {0};
	rec_set_str(&r, "type", "Binary");
	rec_set_str(&r, "id", id);
	rec_set_str(&r, "name", req->name);
	rec_set_str(&r, "binproviders", req->binproviders);
	long long failed = have ? rec_int(&old, "num_uses_failed", 0) : 0;
	if (ap) {
		if (!ver)
			ver = binary_version(ap);
		rec_set_str(&r, "binprovider", by);
		rec_set_str(&r, "abspath", ap);
		rec_set_str(&r, "version", ver);
		rec_set_str(&r, "status", "installed");
		rec_set_null(&r, "retry_at");
		rec_set_int(&r, "num_uses_failed", failed);
		rec_set_str(&r, "notes", "");
		res->ok = 1;
		res->abspath = ap;
	} else {
		failed++;
		int64_t delay = BACKOFF_BASE;
		for (long long i = 1; i < failed && delay < BACKOFF_MAX; i++)
			delay *= 2;
		if (delay > BACKOFF_MAX)
			delay = BACKOFF_MAX;
		const char *why = strchr(req->name, '/') ? "not found (no such executable file)" :
		    !asked.len ? "not found in PATH" : NULL;
		buf_t w = {0};
		if (!why) {
			buf_addf(&w, "not found in PATH or by provider %s", buf_cstr(&asked));
			why = buf_cstr(&w);
		}
		rec_set_null(&r, "binprovider");
		rec_set_null(&r, "abspath");
		rec_set_null(&r, "version");
		rec_set_str(&r, "status", "queued");
		rec_set_time(&r, "retry_at", now + delay);
		rec_set_int(&r, "num_uses_failed", failed);
		rec_set_str(&r, "notes", why);
		fail_msg(res, req->name, why, now + delay);
		buf_free(&w);
	}
	if (have) {
		const char *ca = rec_raw(&old, "created_at");
		rec_set_raw(&r, "created_at", ca ? ca : "null");
		rec_free(&old);
	} else {
		rec_set_time(&r, "created_at", now);
	}
	res->rec = r;
	res->changed = 1;
	free(ver);
	free(provs);
	buf_free(&asked);
}

void
binary_commit(store_t *s, binres_t *res)
{
	if (!res->changed)
		return;
	char *name = rec_str(&res->rec, "name");
	rec_t cur;
	if (name && find_record(s, name, &cur) == 0) {
		const char *id = rec_raw(&cur, "id");
		if (id)
			rec_set_raw(&res->rec, "id", id);
		rec_free(&cur);
	}
	free(name);
	store_put(s, &res->rec);
}

void
binres_free(binres_t *res)
{
	free(res->abspath);
	free(res->why);
	if (res->changed)
		rec_free(&res->rec);
	memset(res, 0, sizeof *res);
}
