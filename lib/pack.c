/*
 * pack.c — seal_pack() (seal.h): a sealed item's directory into an
 * archive through libarchive.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fs.h"
#include "record.h"
#include "seal.h"

static int
pack_tree(store_t *s, struct archive *a, int dfd, const char *rel, const char *name)
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
			if (archive_write_header(a, e) != ARCHIVE_OK)
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
		if (archive_write_header(a, e) != ARCHIVE_OK)
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
			if (pack_tree(s, a, dirfd(d), names[i], child) < 0)
				rc = -1;
			free(names[i]);
		}
		free(names);
		closedir(d);
	} else {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, st.st_size);
		if (archive_write_header(a, e) != ARCHIVE_OK)
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

static int
ends(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

int
seal_pack(store_t *s, const char *id, const char *file)
{
	rec_t r;
	char dir[256];
	if (store_get(s, id, &r) < 0)
		return SEAL_NOTFOUND;
	if (seal_dir_of(&r, dir, sizeof dir) < 0) {
		rec_free(&r);
		return SEAL_BADKIND;
	}
	rec_free(&r);
	struct archive *a = archive_write_new();
	int ok = ARCHIVE_OK;
	if (ends(file, ".zip")) {
		ok = archive_write_set_format_zip(a);
	} else {
		ok = archive_write_set_format_pax_restricted(a);
		if (ends(file, ".tar.gz") || ends(file, ".tgz"))
			ok |= archive_write_add_filter_gzip(a);
		else if (ends(file, ".tar.zst"))
			ok |= archive_write_add_filter_zstd(a);
		else if (ends(file, ".tar.xz"))
			ok |= archive_write_add_filter_xz(a);
		else if (!ends(file, ".tar")) {
			archive_write_free(a);
			errno = EINVAL;
			return SEAL_ERR;
		}
	}
	if (ok != ARCHIVE_OK || archive_write_open_filename(a, file) != ARCHIVE_OK) {
		warnx_("%s: %s", file, archive_error_string(a));
		archive_write_free(a);
		return SEAL_ERR;
	}
	char *slash = strrchr(dir, '/');
	int pfd = -1;
	char parent[256];
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - dir), dir);
	pfd = fs_opendir(s->dfd, parent);
	int rc = pfd < 0 ? -1 : pack_tree(s, a, pfd, slash + 1, slash + 1);
	if (pfd >= 0)
		close(pfd);
	if (archive_write_close(a) != ARCHIVE_OK) {
		warnx_("%s: %s", file, archive_error_string(a));
		rc = -1;
	}
	archive_write_free(a);
	if (rc < 0)
		unlink(file);   /* no partial archive left behind */
	return rc < 0 ? SEAL_ERR : SEAL_OK;
}
