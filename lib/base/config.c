/* config.c — see config.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/jsonline.h"
#include "base/ids.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "base/kept.h"
#include "base/json.h"

/* ------------------------------------------------------------ the map */

int
conf_key_valid(const char *k)
{
	if (!k || !(*k == '_' || (*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z')))
		return 0;
	for (; *k; k++)
		if (!(*k == '_' || (*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
		      (*k >= '0' && *k <= '9')))
			return 0;
	return 1;
}

/* Index of key, or -(insertion point) - 1. */
static long
conf_search(const conf_t *c, const char *key)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = strcmp(c->v[mid].key, key);
		if (d == 0)
			return mid;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(long)lo - 1;
}

void
conf_set(conf_t *c, const char *key, const char *val, int layer)
{
	if (!conf_key_valid(key) || !val)
		return;
	long i = conf_search(c, key);
	if (i >= 0) {
		if (c->v[i].layer > layer)
			return;
		char *v = xstrdup(val);
		free(c->v[i].val);
		c->v[i].val = v;
		c->v[i].layer = layer;
		c->v[i].line = 0;
		return;
	}
	size_t at = -i - 1;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 128;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	memmove(c->v + at + 1, c->v + at, (c->n - at) * sizeof *c->v);
	c->v[at] = (conf_ent_t){xstrdup(key), xstrdup(val), layer, 0};
	c->n++;
}

void
conf_unset(conf_t *c, const char *key)
{
	long i = conf_search(c, key);
	if (i < 0)
		return;
	free(c->v[i].key);
	free(c->v[i].val);
	memmove(c->v + i, c->v + i + 1, (c->n - i - 1) * sizeof *c->v);
	c->n--;
}

const conf_ent_t *
conf_find(const conf_t *c, const char *key)
{
	long i = conf_search(c, key);
	return i >= 0 ? &c->v[i] : NULL;
}

const char *
conf_get(const conf_t *c, const char *key)
{
	const conf_ent_t *e = conf_find(c, key);
	return e ? e->val : NULL;
}

void
conf_copy(conf_t *dst, const conf_t *src)
{
	dst->n = dst->cap = src->n;
	dst->v = xmalloc((src->n ? src->n : 1) * sizeof *dst->v);
	for (size_t i = 0; i < src->n; i++)
		dst->v[i] = (conf_ent_t){xstrdup(src->v[i].key), xstrdup(src->v[i].val), src->v[i].layer,
		    src->v[i].line};
}

void
conf_free(conf_t *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].val);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ layers */

void
conf_builtins(conf_t *c)
{
	static const char *defaults[][2] = {
		{"TIMEOUT", "60"},
		{"ABX_RUNTIME", "abx"},
		{"USER_AGENT", "Mozilla/5.0 (compatible; abx)"},
		{"CHECK_SSL_VALIDITY", "True"},
		{"PATH", "/usr/local/bin:/usr/bin:/bin"},
		{"CRAWL_MAX_URLS", "1000"},   /* abx-add(1): a depth-2 crawl stays a site */
	};
	for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
		conf_set(c, defaults[i][0], defaults[i][1], CONF_BUILTIN);
}

int
conf_load_file(conf_t *c, int dfd, const char *rel)
{
	buf_t b = {0};
	if (kept_read(dfd, rel, &b) < 0) {
		buf_free(&b);
		return errno == ENOENT ? 0 : -1;
	}
	char *p = buf_cstr(&b);
	for (int lineno = 1; *p; lineno++) {
		char *line = p, *nl = strchr(p, '\n');
		if (nl) {
			*nl = 0;
			p = nl + 1;
		} else {
			p += strlen(p);
		}
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '#' || !*line)
			continue;
		if (strncmp(line, "export ", 7) == 0)
			line += 7;
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		char *k = line, *v = eq + 1;
		size_t kl = strlen(k);
		while (kl && (k[kl - 1] == ' ' || k[kl - 1] == '\t'))
			k[--kl] = 0;
		while (*v == ' ' || *v == '\t')
			v++;   /* "KEY = value": blanks around '=' are not the value's */
		size_t vl = strlen(v);
		while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' ' || v[vl - 1] == '\t'))
			v[--vl] = 0;
		if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
			v[vl - 1] = 0;
			v++;
		}
		conf_set(c, k, v, CONF_FILE);
		long i = conf_search(c, k);
		if (i >= 0 && c->v[i].layer == CONF_FILE)
			c->v[i].line = lineno;
	}
	buf_free(&b);
	return 0;
}

void
conf_load_environ(conf_t *c, char **envp)
{
	for (char **e = envp; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq)
			continue;
		char *k = xstrndup(*e, eq - *e);
		conf_set(c, k, eq + 1, CONF_ENV);
		free(k);
	}
}

int
conf_json_text(const char *raw, buf_t *out)
{
	while (*raw == ' ' || *raw == '\t' || *raw == '\n' || *raw == '\r')
		raw++;
	if (strncmp(raw, "null", 4) == 0)
		return -1;
	if (*raw == '"') {
		size_t n = strlen(raw);
		while (n > 1 && raw[n - 1] != '"')
			n--;
		json_unescape(raw + 1, n >= 2 ? n - 2 : 0, out);
	} else if (strncmp(raw, "true", 4) == 0) {
		buf_adds(out, "True");
	} else if (strncmp(raw, "false", 5) == 0) {
		buf_adds(out, "False");
	} else if (*raw == '[' || *raw == '{') {
		json_line(raw, strlen(raw), out);   /* one line, as abx-dl writes it */
	} else {
		buf_adds(out, raw);
	}
	buf_cstr(out);
	return 0;
}

int
conf_load_json(conf_t *c, const char *raw, int layer)
{
	rec_t r;
	if (!raw || rec_parse(&r, raw, strlen(raw)) < 0)
		return -1;
	buf_t b = {0};
	for (int i = 0; i < r.n; i++) {
		buf_reset(&b);
		if (conf_json_text(r.f[i].val, &b) == 0)
			conf_set(c, r.f[i].key, buf_cstr(&b), layer);
	}
	buf_free(&b);
	rec_free(&r);
	return 0;
}

/* ------------------------------------------------------------ values */

long
conf_seconds(const char *v, long dflt)
{
	long long secs;
	return conf_parse_seconds(v, &secs) == 0 && secs >= 1 ? (long)secs : dflt;
}

/* Digits, optionally with a fraction: its value and where it ends. */
static int
decimal(const char *v, double *out, const char **end)
{
	const char *p = v;
	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		if (!isdigit((unsigned char)p[1]))
			return -1;
		for (p++; isdigit((unsigned char)*p);)
			p++;
	}
	*out = strtod(v, NULL);   /* inf if huge: the range checks refuse it */
	*end = p;
	return 0;
}

int
conf_parse_seconds(const char *v, long long *out)
{
	double d;
	const char *end;
	if (!v || decimal(v, &d, &end) < 0 || *end || d > CONF_SECONDS_MAX)
		return -1;
	*out = (long long)d;
	return 0;
}

int
conf_parse_count(const char *v, long long *out)
{
	if (!v || !isdigit((unsigned char)*v))
		return -1;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (*end || errno)
		return -1;
	*out = n;
	return 0;
}

int
conf_parse_size(const char *v, long long *out)
{
	double d;
	const char *p;
	if (!v || decimal(v, &d, &p) < 0)
		return -1;
	while (*p == ' ')
		p++;
	static const char units[] = "kmgt";
	double mult = 1;
	const char *u = *p ? strchr(units, tolower((unsigned char)*p)) : NULL;
	if (u) {
		for (const char *q = units; q <= u; q++)
			mult *= 1024;
		p++;
		if (*p == 'i' || *p == 'I')
			p++;
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p || d * mult >= 0x1p63)
		return -1;
	*out = (long long)(d * mult);
	return 0;
}

long long
parse_size(const char *s)
{
	long long v;
	return s && conf_parse_size(s, &v) == 0 ? v : 0;
}

int
conf_parse_duration(const char *v, long long *out)
{
	static const struct {
		const char *u;
		long long secs;
	} units[] = {
		{"h", 3600}, {"hr", 3600}, {"hrs", 3600}, {"hour", 3600}, {"hours", 3600},
		{"d", 86400}, {"day", 86400}, {"days", 86400}, {"w", 604800}, {"week", 604800},
		{"weeks", 604800}, {"mo", 2592000}, {"month", 2592000}, {"months", 2592000},
		{"y", 31536000}, {"yr", 31536000}, {"yrs", 31536000}, {"year", 31536000},
		{"years", 31536000}, {NULL, 0},
	};
	*out = 0;
	if (!v)
		return 0;
	while (isspace((unsigned char)*v))
		v++;
	if (!*v || !strcmp(v, "0") || !strcasecmp(v, "none") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		return 0;
	if (!isdigit((unsigned char)*v))
		return -1;
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (errno)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	for (int i = 0; units[i].u; i++)
		if (!strcasecmp(end, units[i].u)) {
			/* compared before multiplying: never wraps */
			if (n > CONF_DURATION_MAX / units[i].secs)
				return -1;
			long long secs = n * units[i].secs;
			if (secs && secs < 3600)
				return -1;
			*out = secs;
			return 0;
		}
	return -1;
}

int
conf_parse_plugins(const char *v, char ***names)
{
	*names = NULL;
	if (!v || !*v)
		return 0;
	const char *bad = NULL;
	char **list = name_list(v, &bad);
	if (!list || !list[0]) {
		name_list_free(list);
		return -1;
	}
	*names = list;
	return 0;
}

/* Coerce text to a schema type; malloc'd result or NULL if it does not fit. */
static char *
coerce(const char *v, const char *type)
{
	if (!type || !*type || strcmp(type, "string") == 0)
		return xstrdup(v);
	if (strcmp(type, "boolean") == 0) {
		int b = conf_bool(v, -1);
		return b < 0 ? NULL : xstrdup(b ? "True" : "False");
	}
	char *end;
	if (strcmp(type, "integer") == 0) {
		errno = 0;
		long long x = strtoll(v, &end, 10);
		if (end == v || *end || errno)
			return NULL;
		return xasprintf("%lld", x);
	}
	if (strcmp(type, "number") == 0) {
		strtod(v, &end);
		return end == v || *end ? NULL : xstrdup(v);
	}
	if (strcmp(type, "array") == 0 || strcmp(type, "object") == 0) {
		const char *p = v;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != (type[0] == 'a' ? '[' : '{') || !json_valid(v, strlen(v)))
			return NULL;
		buf_t b = {0};
		json_line(v, strlen(v), &b);
		return buf_cstr(&b);
	}
	return xstrdup(v);   /* unknown type: as is */
}

/* ------------------------------------------------------------ schemas */

static int
add_alias(const char *raw, size_t n, void *arg)
{
	char ***al = arg;
	size_t k = 0;
	while (*al && (*al)[k])
		k++;
	*al = xrealloc(*al, (k + 2) * sizeof(char *));
	buf_t b = {0};
	if (n >= 2 && raw[0] == '"')
		json_unescape(raw + 1, n - 2, &b);
	(*al)[k] = buf_cstr(&b);
	(*al)[k + 1] = NULL;
	return 0;
}

int
schema_parse(schema_t *sc, const char *raw)
{
	rec_t props;
	if (!raw || rec_parse(&props, raw, strlen(raw)) < 0)
		return -1;
	for (int i = 0; i < props.n; i++) {
		rec_t p;
		const char *pv = props.f[i].val;
		if (!conf_key_valid(props.f[i].key) || rec_parse(&p, pv, strlen(pv)) < 0)
			continue;
		sc->v = xrealloc(sc->v, (sc->n + 1) * sizeof *sc->v);
		prop_t *d = &sc->v[sc->n++];
		memset(d, 0, sizeof *d);
		d->key = xstrdup(props.f[i].key);
		char *t = rec_str(&p, "type");
		d->type = t ? t : xstrdup("");
		const char *dv = rec_raw(&p, "default");
		d->dflt = dv ? xstrdup(dv) : NULL;
		d->fallback = rec_str(&p, "x-fallback");
		const char *al = rec_raw(&p, "x-aliases");
		if (al)
			json_array_each(al, add_alias, &d->aliases);
		rec_free(&p);
	}
	rec_free(&props);
	return 0;
}

const prop_t *
schema_find(const schema_t *sc, const char *key)
{
	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->v[i].key, key) == 0)
			return &sc->v[i];
	return NULL;
}

void
schema_free(schema_t *sc)
{
	for (size_t i = 0; i < sc->n; i++) {
		prop_t *p = &sc->v[i];
		free(p->key), free(p->type), free(p->dflt), free(p->fallback);
		for (char **a = p->aliases; a && *a; a++)
			free(*a);
		free(p->aliases);
	}
	free(sc->v);
	memset(sc, 0, sizeof *sc);
}

/* The last schema declaring key wins (the plugin's own over base's). */
static const prop_t *
find_prop(const schema_t *const *sc, size_t n, const char *key)
{
	for (size_t i = n; i-- > 0;) {
		const prop_t *p = schema_find(sc[i], key);
		if (p)
			return p;
	}
	return NULL;
}

typedef struct {
	const conf_t *c;
	const schema_t *const *sc;
	size_t n;
	const char *where;
} resolver_t;

static char *
try_value(const resolver_t *r, const char *key, const char *val, const char *type)
{
	char *v = coerce(val, type);
	if (!v)
		warnx_("%s: %s=%s is not a valid %s; ignored", r->where, key, val, type);
	return v;
}

/* Rules 1 and 2: the highest explicit entry among key and its aliases. */
static char *
explicit_value(const resolver_t *r, const char *key, char *const *aliases, const char *type)
{
	const conf_ent_t *best = NULL;
	const conf_ent_t *e = conf_find(r->c, key);
	if (e && e->layer >= CONF_FILE)
		best = e;
	for (char *const *a = aliases; a && *a; a++) {
		e = conf_find(r->c, *a);
		if (e && e->layer >= CONF_FILE && (!best || e->layer > best->layer))
			best = e;
	}
	return best ? try_value(r, best->key, best->val, type) : NULL;
}

static char *
resolve(const resolver_t *r, const char *key, int depth)
{
	const prop_t *p = find_prop(r->sc, r->n, key);
	if (!p) {
		const char *v = conf_get(r->c, key);
		return v ? xstrdup(v) : NULL;
	}
	char *v = explicit_value(r, key, p->aliases, p->type);
	if (!v && p->fallback && depth < 8) {
		char *f = resolve(r, p->fallback, depth + 1);
		if (f)
			v = try_value(r, p->fallback, f, p->type);
		free(f);
	}
	if (!v && p->dflt) {
		buf_t b = {0};
		if (conf_json_text(p->dflt, &b) == 0)
			v = coerce(buf_cstr(&b), p->type);
		buf_free(&b);
	}
	if (!v) {
		const conf_ent_t *e = conf_find(r->c, key);
		if (e)
			v = try_value(r, key, e->val, p->type);
	}
	return v;
}

char *
conf_resolve_one(const conf_t *c, const schema_t *const *sc, size_t n, const char *key,
    const char *where)
{
	resolver_t r = {c, sc, n, where};
	return resolve(&r, key, 0);
}

void
conf_resolve(conf_t *c, const schema_t *const *sc, size_t n, const char *where)
{
	/* resolve everything against the layers first, then store, so that
	 * the result does not depend on the order of the properties */
	conf_t out = {0};
	resolver_t r = {c, sc, n, where};
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < sc[i]->n; j++) {
			const char *k = sc[i]->v[j].key;
			if (conf_find(&out, k))
				continue;
			char *v = resolve(&r, k, 0);
			if (v)
				conf_set(&out, k, v, CONF_PLUGIN);
			free(v);
		}
	for (size_t i = 0; i < out.n; i++)
		conf_set(c, out.v[i].key, out.v[i].val, CONF_PLUGIN);
	conf_free(&out);
}

/* ------------------------------------------------------------ environment */

char **
conf_envp(const conf_t *c)
{
	char **e = xmalloc((c->n + 1) * sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t kl = strlen(c->v[i].key), vl = strlen(c->v[i].val);
		char *s = xmalloc(kl + vl + 2);
		memcpy(s, c->v[i].key, kl);
		s[kl] = '=';
		memcpy(s + kl + 1, c->v[i].val, vl + 1);
		e[k++] = s;
	}
	e[k] = NULL;
	return e;
}

void
conf_envp_free(char **envp)
{
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
}
