/*
 * lssearch.c — abx-ls --search: see lssearch.h.
 *
 * 1. The snapshots that pass the filters, kept (copies) in listing order.
 * 2. Their text files: those that are there as regular files (fstatat,
 *    no symlink followed).
 * 3. With ripgrep: the files that hold search_token(), marked; a batch
 *    that fails drops back to 4 for all.
 * 4. Each snapshot in order: its text read (with ripgrep, only those
 *    marked; a file not marked cannot match, so it matches by its title
 *    alone or not at all) and every word looked for in title and text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "base/spawn.h"
#include "ctl/listing.h"
#include "ctl/lssearch.h"
#include "ctl/search.h"
#include "seal/seal.h"
#include "seal/sealtext.h"

#define RG_BATCH 2000

extern char **environ;

typedef struct {
	rec_t r;
	char path[2 * ID_LEN + 32];   /* crawls/C/S/text.txt */
	int file, hit;
} cand_t;

typedef struct {
	cand_t *v;
	size_t n, cap;
} cands_t;

static void
keep(void *arg, const rec_t *r)
{
	cands_t *c = arg;
	if (!rec_streq(r, "type", "Snapshot"))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	cand_t *k = &c->v[c->n++];
	memset(k, 0, sizeof *k);
	rec_copy(&k->r, r);
	char dir[2 * ID_LEN + 16];
	if (seal_dir_of(r, dir, sizeof dir) == 0)
		snprintf(k->path, sizeof k->path, "%s/%s", dir, SEALTEXT_FILE);
}

static int
by_path(const void *a, const void *b)
{
	return strcmp((*(cand_t *const *)a)->path, (*(cand_t *const *)b)->path);
}

/* One batch through ripgrep: the files it lists marked.  0, or -1. */
static int
rg_batch(store_t *s, const char *prog, const char *token, cand_t **files, size_t n, cand_t **sorted,
    size_t nsorted)
{
	const char *head[] = {prog, "--files-with-matches", "--null", "--fixed-strings", "--ignore-case",
	    "--no-config", "--no-messages", "-e", token, "--"};
	size_t nh = sizeof head / sizeof *head;
	char **argv = xcalloc(nh + n + 1, sizeof *argv);
	memcpy(argv, head, sizeof head);
	for (size_t i = 0; i < n; i++)
		argv[nh + i] = files[i]->path;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		free(argv);
		return -1;
	}
	spawn_t sp;
	spawn_init(&sp, prog, argv, environ);
	sp.fd[1] = pfd[1];
	sp.cwdfd = s->dfd;
	pid_t pid;
	int e = spawn(&sp, &pid);
	close(pfd[1]);
	free(argv);
	buf_t out = {0};
	if (e == 0)
		fs_read_fd(pfd[0], &out);
	close(pfd[0]);
	int code = e == 0 ? spawn_wait(pid) : -1;
	if (code == 0)
		for (const char *p = out.p, *end = out.p + out.len; p && p < end;) {
			const char *z = memchr(p, 0, end - p);
			if (!z)
				break;
			cand_t key, *kp = &key, **hit;
			snprintf(key.path, sizeof key.path, "%.*s", (int)(z - p), p);
			if ((hit = bsearch(&kp, sorted, nsorted, sizeof *sorted, by_path)))
				(*hit)->hit = 1;
			p = z + 1;
		}
	buf_free(&out);
	if (e == ENOENT)
		return -2;   /* not installed */
	return code == 0 || code == 1 ? 0 : -1;
}

/* Step 3: 0 (files marked), or -1 (no ripgrep, or it failed). */
static int
rg_mark(store_t *s, const search_t *q, cands_t *c)
{
	const char *env = getenv("ABX_RG"), *prog = env ? env : "rg";
	size_t tl;
	const char *t = search_token(q, &tl);
	if (!*prog || !t)
		return -1;
	char *token = xstrndup(t, tl);
	cand_t **files = xcalloc(c->n + 1, sizeof *files), **sorted = xcalloc(c->n + 1, sizeof *sorted);
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].file)
			files[n] = sorted[n] = &c->v[i], n++;
	qsort(sorted, n, sizeof *sorted, by_path);
	int rc = 0;
	for (size_t at = 0; at < n && rc == 0; at += RG_BATCH)
		rc = rg_batch(s, prog, token, files + at, n - at < RG_BATCH ? n - at : RG_BATCH, sorted, n);
	if (rc == -1 || (rc == -2 && env))
		warnx_("%s failed on the text files (%s): searching them without it", prog,
		    rc == -2 ? strerror(ENOENT) : "an exit status other than 0 or 1");
	free(files), free(sorted), free(token);
	return rc == 0 ? 0 : -1;
}

/* Does every word occur in the title or the text? */
static int
holds_all(const search_t *q, const char *title, const buf_t *text)
{
	for (size_t k = 0; k < q->n; k++)
		if (!(title && search_has(q, k, title, strlen(title))) &&
		    !(text->len && search_has(q, k, text->p, text->len)))
			return 0;
	return 1;
}

/* At most SEARCH_MAX_FILE bytes of a regular file, no symlink followed. */
static void
read_text(store_t *s, const char *rel, buf_t *b)
{
	int fd = fs_open(s->dfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size_t want = st.st_size < SEARCH_MAX_FILE ? (size_t)st.st_size : SEARCH_MAX_FILE;
		buf_grow(b, want + 1);
		ssize_t k;
		while (b->len < want && (k = read(fd, b->p + b->len, want - b->len)) > 0)
			b->len += (size_t)k;
	}
	close(fd);
}

int
ls_search(store_t *s, filter_t *f, char **ids, int nids, const char *words, ctl_emit_fn emit, void *arg,
    buf_t *why)
{
	search_t q;
	if (search_parse(&q, words, why) < 0) {
		search_free(&q);
		return -1;
	}
	cands_t c = {0};
	int bad = nids ? listing_ids(s, f, ids, nids, keep, &c) : listing_all(s, f, keep, &c);
	for (size_t i = 0; i < c.n; i++) {
		struct stat st;
		c.v[i].file = c.v[i].path[0] && fstatat(s->dfd, c.v[i].path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		              S_ISREG(st.st_mode);
	}
	int marked = rg_mark(s, &q, &c) == 0;
	buf_t text = {0};
	for (size_t i = 0; i < c.n; i++) {
		cand_t *k = &c.v[i];
		char *title = rec_str(&k->r, "title");
		buf_reset(&text);
		if (k->file && (!marked || k->hit))
			read_text(s, k->path, &text);
		if (holds_all(&q, title, &text))
			emit(arg, &k->r);
		free(title);
		rec_free(&k->r);
	}
	buf_free(&text);
	free(c.v);
	search_free(&q);
	return bad;
}
