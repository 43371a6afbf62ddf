/*
 * pack.c — seal_pack() and pack_on_seal() (pack.h): a sealed item into an
 * archive through libarchive, a tar or zip of its directory or a WACZ
 * (wacz.h).
 *
 * The archive is written to a file without a name in FILE's directory
 * (O_TMPFILE) and linked as FILE only once it is whole and synced: a
 * failure or a kill leaves nothing.  Without --force the link refuses an
 * existing FILE (linkat fails with EEXIST: no window between a test and
 * the write); with it, the file is linked under a temp name and renamed
 * over FILE.  Where O_TMPFILE or /proc is missing, a named temp file
 * ".FILE.tmp.PID" in the same directory stands in (removed on failure, left
 * by a SIGKILL).
 *
 * A crawl's removed snapshots (deleted_at: abx-ctl remove) are history:
 * the directories of those removed with their files kept are left out, as
 * wacz.c leaves their WARCs out; its journal, which says they were
 * removed, is packed whole.
 *
 * File names are bytes: a tar's pax header wants them in UTF-8, and
 * libarchive converts from the locale's charset, which under cron (LANG
 * unset: the C locale, ASCII) fails on "café.png" with EILSEQ.  So the
 * packing runs with LC_CTYPE C.UTF-8 for this thread (uselocale(3); the
 * process's locale is untouched), and a name that is not UTF-8 at all,
 * which libarchive then stores as its bytes ("hdrcharset=BINARY") with a
 * warning (ARCHIVE_WARN), is written, not a failure.  Zip marks UTF-8 names
 * itself.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/fs.h"
#include "pack/pack.h"
#include "pack/packfmt.h"
#include "store/record.h"
#include "seal/seal.h"
#include "pack/wacz.h"

/* A header written, though maybe with a name kept as raw bytes. */
static int
header_ok(int r)
{
	return r == ARCHIVE_OK || r == ARCHIVE_WARN;
}

/* The ids of a crawl's removed snapshots (deleted_at), sorted: their
 * directories, still there when their files were kept, are not packed. */
typedef struct {
	char (*v)[ID_LEN + 1];
	size_t n;
} gone_t;

static int
by_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int
each_gone(rec_t *r, void *arg)
{
	gone_t *g = arg;
	char *id = rec_str(r, "id");
	if (rec_streq(r, "type", "Snapshot") && !rec_isnull(r, "deleted_at") && id_valid(id)) {
		g->v = xrealloc(g->v, (g->n + 1) * sizeof *g->v);
		memcpy(g->v[g->n++], id, ID_LEN + 1);
	}
	free(id);
	return 0;
}

static int
is_gone(const gone_t *g, const char *name)
{
	return g && g->n && bsearch(name, g->v, g->n, sizeof *g->v, by_id) != NULL;
}

/* rel (below dfd) into the archive as name; a directory whole, less the
 * children gone names (the top level of a crawl: its removed snapshots). */
static int
pack_tree(store_t *s, struct archive *a, int dfd, const char *rel, const char *name, const gone_t *gone)
{
	struct stat st;
	if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return 0;   /* sockets, fifos, devices: not archived (a fifo would block) */
	struct archive_entry *e = archive_entry_new();
	archive_entry_set_pathname(e, name);
	archive_entry_set_mtime(e, st.st_mtime, 0);
	archive_entry_set_perm(e, st.st_mode & 07777);
	int rc = 0;
	if (S_ISLNK(st.st_mode)) {
		/* kept as a link, never followed out of the data directory */
		char target[4096];
		ssize_t n = readlinkat(dfd, rel, target, sizeof target - 1);
		if (n >= 0) {
			target[n] = 0;
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, target);
			if (!header_ok(archive_write_header(a, e)))
				rc = -1;
		}
		archive_entry_free(e);
		return rc;
	}
	int fd = openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		archive_entry_free(e);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		archive_entry_set_filetype(e, AE_IFDIR);
		if (!header_ok(archive_write_header(a, e)))
			rc = -1;
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			archive_entry_free(e);
			return -1;
		}
		struct dirent *de;
		char **names = NULL;
		size_t nn = 0;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				names = xrealloc(names, (nn + 1) * sizeof(char *));
				names[nn++] = xstrdup(de->d_name);
			}
		for (size_t i = 0; i < nn; i++) {
			char child[4096];
			snprintf(child, sizeof child, "%s/%s", name, names[i]);
			if (!is_gone(gone, names[i]) && pack_tree(s, a, dirfd(d), names[i], child, NULL) < 0)
				rc = -1;
			free(names[i]);
		}
		free(names);
		closedir(d);
	} else {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, st.st_size);
		if (!header_ok(archive_write_header(a, e)))
			rc = -1;
		char buf[65536];
		ssize_t n;
		while (rc == 0 && (n = read(fd, buf, sizeof buf)) > 0)
			if (archive_write_data(a, buf, n) != n)
				rc = -1;
		close(fd);
	}
	archive_entry_free(e);
	return rc;
}


/* ------------------------------------------------------------ the file */

typedef struct {
	int dfd, fd;
	int anon;              /* O_TMPFILE: no name yet */
	char base[256], tmp[300];
} outfile_t;

static int
out_open(outfile_t *o, const char *file)
{
	const char *slash = strrchr(file, '/');
	char dir[4096];
	memset(o, 0, sizeof *o);
	o->fd = -1;
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - file + (slash == file)), file);
	else
		snprintf(dir, sizeof dir, ".");
	if (snprintf(o->base, sizeof o->base, "%s", slash ? slash + 1 : file) >= (int)sizeof o->base) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((o->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (access("/proc/self/fd", X_OK) == 0) {
		o->fd = openat(o->dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
		o->anon = o->fd >= 0;
	}
	if (o->fd < 0) {
		snprintf(o->tmp, sizeof o->tmp, ".%s.tmp.%ld", o->base, (long)getpid());
		o->fd = openat(o->dfd, o->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	}
	if (o->fd < 0) {
		int e = errno;
		close(o->dfd);
		errno = e;
		return -1;
	}
	return 0;
}

static void
out_abort(outfile_t *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (!o->anon && o->tmp[0])
		unlinkat(o->dfd, o->tmp, 0);
	close(o->dfd);
	o->fd = o->dfd = -1;
}

/* Sync and name the file: 0, SEAL_EXISTS (not forced, FILE exists), or
 * -1 (errno).  The outfile is closed (and its temp name removed) either
 * way. */
static int
out_commit(outfile_t *o, int force)
{
	int rc = fsync(o->fd);
	if (rc == 0 && o->anon) {
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
		if (!force) {
			rc = linkat(AT_FDCWD, proc, o->dfd, o->base, AT_SYMLINK_FOLLOW);
		} else {
			snprintf(o->tmp, sizeof o->tmp, ".%s.tmp.%ld", o->base, (long)getpid());
			unlinkat(o->dfd, o->tmp, 0);
			o->anon = 0;   /* from here on a name to remove on failure */
			rc = linkat(AT_FDCWD, proc, o->dfd, o->tmp, AT_SYMLINK_FOLLOW);
			if (rc == 0 && (rc = renameat(o->dfd, o->tmp, o->dfd, o->base)) == 0)
				o->tmp[0] = 0;
		}
	} else if (rc == 0 && !force) {
		rc = linkat(o->dfd, o->tmp, o->dfd, o->base, 0);   /* out_abort unlinks the temp name */
	} else if (rc == 0 && (rc = renameat(o->dfd, o->tmp, o->dfd, o->base)) == 0) {
		o->tmp[0] = 0;
	}
	int e = errno;
	if (rc == 0)
		fsync(o->dfd);
	out_abort(o);
	errno = e;
	return rc < 0 && e == EEXIST && !force ? SEAL_EXISTS : rc;
}

/* ------------------------------------------------------------ packing */

/* The crawl's own record, crawl.json at the top of its directory. */
static int
pack_crawl_record(struct archive *a, const rec_t *r, const char *id, time_t mtime)
{
	buf_t b = {0};
	rec_line(r, &b);
	buf_addc(&b, '\n');
	struct archive_entry *e = archive_entry_new();
	char name[128];
	snprintf(name, sizeof name, "%s/crawl.json", id);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, b.len);
	archive_entry_set_mtime(e, mtime, 0);
	int rc = archive_write_header(a, e) == ARCHIVE_OK &&
	         archive_write_data(a, b.p, b.len) == (la_ssize_t)b.len ? 0 : -1;
	archive_entry_free(e);
	buf_free(&b);
	return rc;
}

static int
pack_dir(store_t *s, struct archive *a, const rec_t *r, const char *dir)
{
	const char *slash = strrchr(dir, '/');
	char parent[256];
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - dir), dir);
	int pfd = fs_opendir(s->dfd, parent);
	gone_t gone = {0};
	if (rec_streq(r, "type", "Crawl")) {
		char j[128];
		store_crawl_journal(slash + 1, j, sizeof j);
		store_each(s, j, "\"Snapshot\"", each_gone, &gone);
		if (gone.n)
			qsort(gone.v, gone.n, sizeof *gone.v, by_id);
	}
	int rc = pfd < 0 ? -1 : pack_tree(s, a, pfd, slash + 1, slash + 1, &gone);
	free(gone.v);
	if (pfd >= 0)
		close(pfd);
	if (rc == 0 && rec_streq(r, "type", "Crawl")) {
		char rel[300];
		snprintf(rel, sizeof rel, "%s/crawl.json", dir);
		int64_t mod = 0;
		char *m = rec_str(r, "modified_at");
		if (!m || clock_parse(m, &mod) < 0)
			mod = clock_now();
		free(m);
		if (!fs_exists(s->dfd, rel))
			rc = pack_crawl_record(a, r, slash + 1, (time_t)(mod / 1000000));
	}
	if (rc < 0)
		store_fail(s, EX_CANTCREAT_, 0, "unable to write %s into the archive: %s", dir,
		    archive_error_string(a) ? archive_error_string(a) : strerror(errno));
	return rc;
}

int
seal_pack(store_t *s, const char *id, const char *file, int flags)
{
	int f = pack_format_of(file);
	if (f < 0)
		return SEAL_BADFORMAT;
	rec_t r;
	char dir[256];
	if (store_get(s, id, &r) < 0)
		return SEAL_NOTFOUND;
	if (seal_dir_of(&r, dir, sizeof dir) < 0) {
		rec_free(&r);
		return SEAL_BADKIND;
	}
	struct stat st;
	if (!(flags & SEAL_PACK_FORCE) && lstat(file, &st) == 0) {
		rec_free(&r);
		return SEAL_EXISTS;
	}
	outfile_t o;
	if (out_open(&o, file) < 0) {
		store_fail(s, EX_CANTCREAT_, errno, "unable to create %s", file);
		rec_free(&r);
		return SEAL_ERR;
	}
	/* names in UTF-8 whatever the process's locale (above) */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0), was = (locale_t)0;
	if (utf8 == (locale_t)0)
		utf8 = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
	if (utf8 != (locale_t)0)
		was = uselocale(utf8);
	struct archive *a = archive_write_new();
	int ok;
	if (pack_formats[f].kind == PACK_TAR) {
		ok = archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
		     archive_write_add_filter(a, pack_formats[f].filter) == ARCHIVE_OK;
	} else {
		ok = archive_write_set_format_zip(a) == ARCHIVE_OK;
	}
	int rc = -1;
	if (!ok || archive_write_open_fd(a, o.fd) != ARCHIVE_OK) {
		store_fail(s, EX_CANTCREAT_, 0, "%s: %s", file, archive_error_string(a));
	} else {
		int skipped;
		rc = pack_formats[f].kind == PACK_WACZ ? wacz_write(s, &r, a, &skipped) : pack_dir(s, a, &r, dir);
		if (archive_write_close(a) != ARCHIVE_OK && rc == 0)
			rc = store_fail(s, EX_IOERR_, 0, "%s: %s", file, archive_error_string(a));
	}
	archive_write_free(a);
	if (utf8 != (locale_t)0) {
		uselocale(was);
		freelocale(utf8);
	}
	rec_free(&r);
	if (rc < 0) {
		out_abort(&o);   /* no partial archive left behind */
		return SEAL_ERR;
	}
	fault_point("pack-before-link");
	rc = out_commit(&o, flags & SEAL_PACK_FORCE);
	if (rc == SEAL_EXISTS)
		return SEAL_EXISTS;
	if (rc < 0) {
		store_fail(s, EX_CANTCREAT_, errno, "unable to write %s", file);
		return SEAL_ERR;
	}
	return SEAL_OK;
}

int
pack_on_seal(store_t *s, const char *crawl_id, const char *formats_list)
{
	long long n;
	if (!formats_list || pack_parse_formats(formats_list, &n) < 0 || n == 0)
		return 0;
	if (fs_mkdirs(s->dfd, "packs") < 0)
		return store_fail(s, EX_CANTCREAT_, errno, "unable to create %s/packs", s->dir);
	/* packs/ opened without following a link (a hook could have made
	 * one), and written through that descriptor */
	int pfd = fs_opendir(s->dfd, "packs");
	if (pfd < 0)
		return store_fail(s, EX_CANTCREAT_, errno, "unable to open %s/packs", s->dir);
	char *list = xstrdup(formats_list);
	int rc = 0;
	for (char *save = NULL, *t = strtok_r(list, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		char file[4096], via[4096];
		snprintf(file, sizeof file, "%s/packs/%s.%s", s->dir, crawl_id, t);
		snprintf(via, sizeof via, "/proc/self/fd/%d/%s.%s", pfd, crawl_id, t);
		int k = seal_pack(s, crawl_id, access("/proc/self/fd", X_OK) == 0 ? via : file, SEAL_PACK_FORCE);
		if (k != SEAL_OK) {
			if (k != SEAL_ERR)
				store_fail(s, EX_CANTCREAT_, 0, "unable to pack crawl %s into %s", crawl_id, file);
			rc = -1;
		}
	}
	free(list);
	close(pfd);
	return rc;
}
