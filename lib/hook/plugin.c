/* plugin.c — see plugin.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/ids.h"
#include "base/json.h"
#include "hook/plugin.h"

/* ------------------------------------------------------------ hook names */

int
hook_parse_name(const char *file, hook_t *h)
{
	memset(h, 0, sizeof *h);
	if (strncmp(file, "on_", 3) != 0)
		return -1;
	const char *fam = file + 3, *sep = strstr(fam, "__");
	if (!sep || sep == fam)
		return -1;
	for (const char *p = fam; p < sep; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9')))
			return -1;
	for (const unsigned char *p = (const unsigned char *)file; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return -1;
	const char *rest = sep + 2, *d = rest;
	int order = 0;
	while (*d >= '0' && *d <= '9')
		d++;
	if (d > rest && *d == '_' && d - rest < 9) {
		order = atoi(rest);
		rest = d + 1;
	}
	if (!*rest || strlen(file) > 200)
		return -1;
	const char *dot = strrchr(file, '.');
	h->file = xstrdup(file);
	h->stem = dot && dot > sep ? xstrndup(file, dot - file) : xstrdup(file);
	h->family = xstrndup(fam, sep - fam);
	h->order = order;
	h->bg = strstr(file, ".bg.") != NULL;
	h->daemon = strstr(file, ".daemon.") != NULL;
	return 0;
}

void
hook_free(hook_t *h)
{
	free(h->path), free(h->file), free(h->stem), free(h->family);
	memset(h, 0, sizeof *h);
}

/* ------------------------------------------------------------ search path */

static void
path_add(char ***v, size_t *n, const char *dir)
{
	char real[PATH_MAX];
	if (!dir || !*dir || !realpath(dir, real))
		return;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], real) == 0)
			return;
	*v = xrealloc(*v, (*n + 2) * sizeof(char *));
	(*v)[(*n)++] = xstrdup(real);
	(*v)[*n] = NULL;
}

char **
plugins_path(const char *datadir)
{
	char **v = xcalloc(1, sizeof(char *));
	size_t n = 0;
	const char *env = getenv("ABX_PLUGINS_DIR");
	if (env) {
		char *dup = xstrdup(env), *save = NULL;
		for (char *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save))
			path_add(&v, &n, d);
		free(dup);
	}
	if (datadir) {
		char *d = xasprintf("%s/plugins", datadir);
		path_add(&v, &n, d);
		free(d);
	}
	const char *share = getenv("ABX_SHARE_DIR");
	if (share) {
		char *d = xasprintf("%s/plugins", share);
		path_add(&v, &n, d);
		free(d);
		return v;
	}
	char exe[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (l > 0) {
		exe[l] = 0;
		char *sl = strrchr(exe, '/');
		if (sl) {
			*sl = 0;
			char *d = xasprintf("%s/../share/abx/plugins", exe);
			path_add(&v, &n, d);
			free(d);
		}
	}
	path_add(&v, &n, ABX_SHAREDIR "/plugins");
	return v;
}

/* ------------------------------------------------------------ listing */

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of a directory's entries (not "." or ".."). */
static char **
list_dir(int fd, size_t *np)
{
	DIR *d = fdopendir(fd);
	char **v = NULL;
	size_t n = 0;
	if (!d) {
		close(fd);
		*np = 0;
		return NULL;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(char *));
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(char *), name_cmp);
	*np = n;
	return v;
}

static int
add_required(const char *raw, size_t n, void *arg)
{
	char ***req = arg;
	size_t k = 0;
	while (*req && (*req)[k])
		k++;
	buf_t b = {0};
	if (n >= 2 && raw[0] == '"')
		json_unescape(raw + 1, n - 2, &b);
	if (b.len && name_valid(buf_cstr(&b))) {
		*req = xrealloc(*req, (k + 2) * sizeof(char *));
		(*req)[k] = buf_cstr(&b);
		(*req)[k + 1] = NULL;
	} else {
		buf_free(&b);
	}
	return 0;
}

/* Did this discovery warn (then it is not kept: its warnings are said at
 * every phase, as before)? */
static int warned;

static void
load_config_json(plugin_t *p, int dfd)
{
	buf_t b = {0};
	rec_t r;
	if (fs_read(dfd, "config.json", &b) < 0) {
		if (errno != ENOENT) {
			warnsys("unable to read %s/config.json", p->dir);
			warned = 1;
		}
		buf_free(&b);
		return;
	}
	if (rec_parse(&r, b.p, b.len) < 0) {
		warnx_("%s/config.json: not a JSON object; ignored", p->dir);
		warned = 1;
		buf_free(&b);
		return;
	}
	const char *props = rec_raw(&r, "properties");
	if (props && schema_parse(&p->schema, props) < 0) {
		warnx_("%s/config.json: \"properties\" is not an object; ignored", p->dir);
		warned = 1;
	}
	const char *req = rec_raw(&r, "required_plugins");
	if (req)
		json_array_each(req, add_required, &p->requires);
	const char *bins = rec_raw(&r, "required_binaries");
	if (bins && bins[0] == '[')
		p->binaries = xstrdup(bins);
	rec_free(&r);
	buf_free(&b);
}

/* ------------------------------------------------------------ kept */

/* A serving worker's last discovery (plugins_keep), and the state of what
 * it read: each path directory, each entry there that could be a plugin,
 * each plugin's config.json and hook files, as stat saw them before they
 * were read.  It holds while the path is the same and every one of them
 * stats the same. */
typedef struct {
	char *path;
	int nofollow, err;
	struct stat st;
} stamp_t;

static struct {
	int on, valid, busy, stamping;
	char **path;
	plugins_t ps;
	stamp_t *st;
	size_t nst;
} kept;

static int
stat_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_mode == b->st_mode &&
	       a->st_uid == b->st_uid && a->st_gid == b->st_gid && a->st_size == b->st_size &&
	       a->st_nlink == b->st_nlink &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Note what dir/name was (st, or err if it could not be stat'd). */
static void
stamp(const char *dir, const char *name, int nofollow, const struct stat *st, int err)
{
	if (!kept.stamping)
		return;
	kept.st = xrealloc(kept.st, (kept.nst + 1) * sizeof *kept.st);
	stamp_t *t = &kept.st[kept.nst++];
	t->path = name ? xasprintf("%s/%s", dir, name) : xstrdup(dir);
	t->nofollow = nofollow;
	t->err = st ? 0 : err;
	if (st)
		t->st = *st;
	else
		memset(&t->st, 0, sizeof t->st);
}

static void
kept_drop(void)
{
	for (size_t i = 0; i < kept.nst; i++)
		free(kept.st[i].path);
	free(kept.st);
	kept.st = NULL;
	kept.nst = 0;
	for (char **d = kept.path; d && *d; d++)
		free(*d);
	free(kept.path);
	kept.path = NULL;
	if (kept.valid) {
		kept.ps.kept = 0;
		plugins_free(&kept.ps);
	}
	kept.valid = 0;
}

static int
kept_holds(char **path)
{
	if (!kept.valid)
		return 0;
	size_t i = 0;
	for (; path[i] && kept.path[i]; i++)
		if (strcmp(path[i], kept.path[i]) != 0)
			return 0;
	if (path[i] || kept.path[i])
		return 0;
	for (i = 0; i < kept.nst; i++) {
		struct stat st;
		const stamp_t *t = &kept.st[i];
		int rc = fstatat(AT_FDCWD, t->path, &st, t->nofollow ? AT_SYMLINK_NOFOLLOW : 0);
		if (rc < 0 ? errno != t->err : t->err || !stat_same(&st, &t->st))
			return 0;
	}
	return 1;
}

void
plugins_keep(void)
{
	kept.on = 1;
}

/* ------------------------------------------------------------ discovery */

static void
load_hooks(plugin_t *p, int dfd)
{
	size_t n;
	char **names = list_dir(dup(dfd), &n);
	for (size_t i = 0; i < n; i++) {
		hook_t h;
		struct stat st;
		if (hook_parse_name(names[i], &h) == 0) {
			int ok = fstatat(dfd, names[i], &st, 0) == 0;
			stamp(p->dir, names[i], 0, ok ? &st : NULL, errno);
			if (ok && S_ISREG(st.st_mode) &&
			    faccessat(dfd, names[i], X_OK, AT_EACCESS) == 0) {
				h.path = xasprintf("%s/%s", p->dir, names[i]);
				p->hooks = xrealloc(p->hooks, (p->nhooks + 1) * sizeof(hook_t));
				p->hooks[p->nhooks++] = h;
			} else {
				hook_free(&h);
			}
		}
		free(names[i]);
	}
	free(names);
}

static char *
plugin_key(const char *name)
{
	char *k = xstrdup(name);
	for (char *c = k; *c; c++) {
		if (*c >= 'a' && *c <= 'z')
			*c -= 'a' - 'A';
		else if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	}
	return k;
}

static void
discover(plugins_t *ps, char **path)
{
	memset(ps, 0, sizeof *ps);
	for (char **dir = path; dir && *dir; dir++) {
		struct stat st;
		int ok = stat(*dir, &st) == 0;
		stamp(*dir, NULL, 0, ok ? &st : NULL, errno);
		int fd = open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		size_t n;
		char **names = list_dir(dup(fd), &n);
		for (size_t i = 0; i < n; i++) {
			const char *nm = names[i];
			if (nm[0] == '.' || nm[0] == '_' || !name_valid(nm) || id_valid(nm) || plugins_find(ps, nm)) {
				free(names[i]);
				continue;
			}
			ok = fstatat(fd, nm, &st, 0) == 0;
			stamp(*dir, nm, 0, ok ? &st : NULL, errno);
			if (!ok || !S_ISDIR(st.st_mode)) {
				free(names[i]);
				continue;
			}
			int pfd = openat(fd, nm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (pfd >= 0) {
				ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof(plugin_t));
				plugin_t *p = &ps->v[ps->n++];
				memset(p, 0, sizeof *p);
				p->name = xstrdup(nm);
				p->key = plugin_key(nm);
				p->dir = xasprintf("%s/%s", *dir, nm);
				ok = fstatat(pfd, "config.json", &st, AT_SYMLINK_NOFOLLOW) == 0;
				stamp(p->dir, "config.json", 1, ok ? &st : NULL, errno);
				load_config_json(p, pfd);
				load_hooks(p, pfd);
				close(pfd);
			}
			free(names[i]);
		}
		free(names);
		close(fd);
	}
	/* hooks point at their plugin only now that the array stopped moving */
	for (size_t i = 0; i < ps->n; i++)
		for (size_t j = 0; j < ps->v[i].nhooks; j++)
			ps->v[i].hooks[j].plugin = &ps->v[i];
}

void
plugins_discover(plugins_t *ps, char **path)
{
	if (!kept.on || kept.busy || !path) {
		discover(ps, path);
		return;
	}
	if (!kept_holds(path)) {
		kept_drop();
		warned = 0;
		kept.stamping = 1;
		discover(&kept.ps, path);
		kept.stamping = 0;
		if (warned) {
			*ps = kept.ps;   /* said again at the next phase: not kept */
			memset(&kept.ps, 0, sizeof kept.ps);
			kept_drop();
			return;
		}
		size_t n = 0;
		while (path[n])
			n++;
		kept.path = xcalloc(n + 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			kept.path[i] = xstrdup(path[i]);
		kept.ps.kept = 1;
		kept.valid = 1;
	}
	kept.busy = 1;
	*ps = kept.ps;
}

plugin_t *
plugins_find(const plugins_t *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i].name, name) == 0)
			return &ps->v[i];
	return NULL;
}

void
plugins_free(plugins_t *ps)
{
	if (ps->kept) {   /* the worker's, for its next phase */
		for (size_t i = 0; i < ps->n; i++)
			ps->v[i].selected = 0;
		memset(ps, 0, sizeof *ps);
		kept.busy = 0;
		return;
	}
	for (size_t i = 0; i < ps->n; i++) {
		plugin_t *p = &ps->v[i];
		free(p->name), free(p->key), free(p->dir), free(p->binaries);
		schema_free(&p->schema);
		for (char **r = p->requires; r && *r; r++)
			free(*r);
		free(p->requires);
		for (size_t j = 0; j < p->nhooks; j++)
			hook_free(&p->hooks[j]);
		free(p->hooks);
	}
	free(ps->v);
	memset(ps, 0, sizeof *ps);
}

/* ------------------------------------------------------------ config */

static void
collect_schemas(const plugins_t *ps, const plugin_t *p, const schema_t **out, size_t max,
    size_t *n, int depth)
{
	for (char **r = p->requires; r && *r && depth < 16; r++) {
		const plugin_t *q = plugins_find(ps, *r);
		if (q && q != p)
			collect_schemas(ps, q, out, max, n, depth + 1);
	}
	for (size_t i = 0; i < *n; i++)
		if (out[i] == &p->schema)
			return;
	if (*n < max)
		out[(*n)++] = &p->schema;
}

size_t
plugin_schemas(const plugins_t *ps, const plugin_t *p, const schema_t **out, size_t max)
{
	size_t n = 0;
	const plugin_t *base = plugins_find(ps, "base");
	if (base && base != p && max)
		out[n++] = &base->schema;
	collect_schemas(ps, p, out, max, &n, 0);
	return n;
}

void
plugin_conf(const plugins_t *ps, const plugin_t *p, const conf_t *c, conf_t *out)
{
	const schema_t *sc[64];
	size_t n = plugin_schemas(ps, p, sc, 64);
	conf_copy(out, c);
	conf_resolve(out, sc, n, p->name);
}

long
plugin_timeout(const plugin_t *p, const conf_t *pc)
{
	char k[200];
	snprintf(k, sizeof k, "%s_TIMEOUT", p->key);
	long t = conf_seconds(conf_get(pc, "TIMEOUT"), 60);
	return conf_seconds(conf_get(pc, k), t);
}

/* ------------------------------------------------------------ selection */

static int
plugin_enabled(const plugins_t *ps, const plugin_t *p, const conf_t *c)
{
	const schema_t *sc[64];
	size_t n = plugin_schemas(ps, p, sc, 64);
	char k[200];
	snprintf(k, sizeof k, "%s_ENABLED", p->key);
	char *v = conf_resolve_one(c, sc, n, k, p->name);
	int on = conf_bool(v, 1);
	free(v);
	return on;
}

static void
want(plugins_t *ps, plugin_t *p, char *wanted, int depth)
{
	size_t i = p - ps->v;
	if (wanted[i] || depth > 16)
		return;
	wanted[i] = 1;
	for (char **r = p->requires; r && *r; r++) {
		plugin_t *q = plugins_find(ps, *r);
		if (q)
			want(ps, q, wanted, depth + 1);
	}
}

int
plugins_select(plugins_t *ps, const conf_t *c, char **names, const char **missing)
{
	char *wanted = xcalloc(ps->n + 1, 1);
	char **list = names;
	const char *pl = conf_get(c, "PLUGINS");
	int rc = 0;
	if (!names && conf_parse_plugins(pl, &list) < 0) {
		/* nothing is wanted: never every plugin for a value nobody meant */
		warnx_("PLUGINS=%s is not a list of plugin names separated by commas; no plugin is run", pl);
	} else if (list) {
		for (char **n = list; *n; n++) {
			plugin_t *p = plugins_find(ps, *n);
			if (p)
				want(ps, p, wanted, 0);
			else if (names) {
				*missing = *n;
				rc = -1;
			} else
				warnx_("PLUGINS names %s, which is not installed; ignored", *n);
		}
	} else {
		memset(wanted, 1, ps->n);
	}
	for (size_t i = 0; i < ps->n; i++)
		ps->v[i].selected = wanted[i] && plugin_enabled(ps, &ps->v[i], c);
	/* drop plugins whose requirements are missing or dropped, to a fixed point */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < ps->n; i++) {
			plugin_t *p = &ps->v[i];
			for (char **r = p->requires; p->selected && r && *r; r++) {
				plugin_t *q = plugins_find(ps, *r);
				if (!q || !q->selected) {
					if (!q)
						warnx_("plugin %s requires plugin %s, which is not installed; "
						    "skipping %s", p->name, *r, p->name);
					p->selected = 0;
					changed = 1;
				}
			}
		}
	}
	if (list != names)
		name_list_free(list);
	free(wanted);
	return rc;
}

static int
hook_cmp(const void *a, const void *b)
{
	const hook_t *x = *(hook_t *const *)a, *y = *(hook_t *const *)b;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	int d = strcmp(x->stem, y->stem);
	return d ? d : strcmp(x->plugin->name, y->plugin->name);
}

size_t
plugins_hooks(const plugins_t *ps, const char *family, hook_t ***out)
{
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < ps->n; i++) {
		if (!ps->v[i].selected)
			continue;
		for (size_t j = 0; j < ps->v[i].nhooks; j++)
			if (strcmp(ps->v[i].hooks[j].family, family) == 0) {
				*out = xrealloc(*out, (n + 1) * sizeof(hook_t *));
				(*out)[n++] = &ps->v[i].hooks[j];
			}
	}
	if (n)
		qsort(*out, n, sizeof(hook_t *), hook_cmp);
	return n;
}

/* ------------------------------------------------------------ interpreters */

char *
hook_interpreter(const char *path)
{
	char line[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, line, sizeof line - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	line[n] = 0;
	line[strcspn(line, "\r\n")] = 0;
	char *save = NULL, *w = strtok_r(line + 2, " \t", &save);
	if (!w)
		return NULL;
	size_t wl = strlen(w);
	if (strcmp(w, "env") != 0 && (wl < 4 || strcmp(w + wl - 4, "/env") != 0))
		return xstrdup(w);
	/* env [-S] [-i] [-u NAME] [NAME=VALUE] ... PROGRAM */
	while ((w = strtok_r(NULL, " \t", &save))) {
		if (strcmp(w, "-u") == 0 || strcmp(w, "--unset") == 0 || strcmp(w, "-C") == 0 ||
		    strcmp(w, "--chdir") == 0) {
			strtok_r(NULL, " \t", &save);
			continue;
		}
		if (w[0] == '-' || strchr(w, '='))
			continue;
		return xstrdup(w);
	}
	return NULL;
}

int
interpreter_found(const char *interp, const char *path_env)
{
	if (strchr(interp, '/'))
		return interp[0] == '/' && access(interp, X_OK) == 0;
	char *dup = xstrdup(path_env ? path_env : ""), *save = NULL;
	int found = 0;
	for (char *d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		char *p = xasprintf("%s/%s", d, interp);
		struct stat st;
		found = stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
		free(p);
	}
	free(dup);
	return found;
}

char *
interpreter_missing_note(const char *interp)
{
	static const char *const hints[][2] = {
		{"uv", "Python plugins of abx-plugins need uv"},
		{"node", "JS plugins of abx-plugins need node (Debian: nodejs)"},
		{"python3", "Python hooks need python3"},
		{"bash", "bash hooks need bash"},
	};
	const char *base = strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp;
	for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
		if (strcmp(base, hints[i][0]) == 0)
			return xasprintf("%s: not found \u2014 %s", interp, hints[i][1]);
	return xasprintf("%s: not found \u2014 the interpreter its #! line names", interp);
}
