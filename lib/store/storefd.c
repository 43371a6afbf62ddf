/* storefd.c — see storefd.h. */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/fsretry.h"
#include "store/storefd.h"

static void
drop(store_t *s, int i)
{
	close(s->jfd[i].fd);
	memmove(&s->jfd[i], &s->jfd[i + 1], (s->njfd - i - 1) * sizeof s->jfd[0]);
	s->njfd--;
}

/* Close every armed descriptor not pinned: their locks are lost with the
 * one that failed, and on GlusterFS their files are unusable to every
 * process of the host while they are open. */
void
jfd_drop_armed(store_t *s)
{
	for (int i = s->njfd - 1; i >= 0; i--)
		if (s->jfd[i].armed && !s->jfd[i].pinned)
			drop(s, i);
}

int
jfd_open(store_t *s, const char *j, int write, int existed, struct stat *st)
{
	struct stat sb;
	if (!st)
		st = &sb;
	for (int i = 0; i < s->njfd; i++) {
		if (strcmp(s->jfd[i].j, j) != 0)
			continue;
		int good = jfd_stat(s, s->jfd[i].fd, st) == 0;
		if ((!write || s->jfd[i].rw) && good && st->st_nlink > 0)
			return s->jfd[i].fd;
		if (!good && s->jfd[i].armed && !s->jfd[i].pinned) {
			/* its lock lost: so are the others' (storefd.h) */
			jfd_drop_armed(s);
			break;
		}
		if (s->jfd[i].pinned)   /* a commit writes it: never closed under it */
			return fstat(s->jfd[i].fd, st) == 0 ? s->jfd[i].fd : -1;
		drop(s, i);   /* replaced, removed, or read-only */
		break;
	}
	int fd = fsr_open(s->dfd, j, write ? O_RDWR | O_APPEND : O_RDONLY, existed, st);
	if (fd < 0 || strlen(j) >= sizeof s->jfd[0].j)
		return fd;   /* a name too long to keep: the caller's own (never) */
	if (s->njfd == JFD_KEEP) {
		int k = 0;
		while (k < s->njfd && s->jfd[k].pinned)
			k++;
		if (k == s->njfd) {   /* all pinned: a commit of many journals */
			close(fd);
			errno = EMFILE;
			return -1;
		}
		drop(s, k);
	}
	snprintf(s->jfd[s->njfd].j, sizeof s->jfd[0].j, "%s", j);
	s->jfd[s->njfd].fd = fd;
	s->jfd[s->njfd].rw = write;
	s->jfd[s->njfd].pinned = 0;
	s->jfd[s->njfd].armed = 0;
	s->jfd[s->njfd].st = *st;
	s->jfd[s->njfd].epoch = s->locked ? s->jepoch : 0;
	s->njfd++;
	return fd;
}

int
jfd_stat(store_t *s, int fd, struct stat *st)
{
	for (int i = 0; i < s->njfd; i++) {
		if (s->jfd[i].fd != fd)
			continue;
		if (s->locked && s->jfd[i].epoch && s->jfd[i].epoch == s->jepoch) {
			*st = s->jfd[i].st;
			return 0;
		}
		if (fstat(fd, st) < 0)
			return -1;
		s->jfd[i].st = *st;
		s->jfd[i].epoch = s->locked ? s->jepoch : 0;
		return 0;
	}
	return fstat(fd, st);
}

void
jfd_changed(store_t *s)
{
	if (++s->jepoch == 0)
		s->jepoch = 1;
}

void
jfd_pin(store_t *s, int fd)
{
	for (int i = 0; i < s->njfd; i++)
		if (s->jfd[i].fd == fd)
			s->jfd[i].pinned = 1;
}

void
jfd_unpin_all(store_t *s)
{
	for (int i = 0; i < s->njfd; i++)
		s->jfd[i].pinned = 0;
}

void
jfd_forget(store_t *s, const char *j)
{
	for (int i = 0; i < s->njfd; i++)
		if (strcmp(s->jfd[i].j, j) == 0) {
			drop(s, i);
			return;
		}
}

void
jfd_close_all(store_t *s)
{
	while (s->njfd > 0)
		drop(s, s->njfd - 1);
	if (s->locksfd > 0)
		close(s->locksfd);
	s->locksfd = -1;
}

int
store_locks_dir(store_t *s, int create)
{
	if (s->locksfd >= 0)
		return s->locksfd;
	int fd = fs_opendir(s->dfd, "locks");
	if (fd < 0 && errno == ENOENT && create && fs_mkdirs(s->dfd, "locks") == 0)
		fd = fs_opendir(s->dfd, "locks");
	if (fd >= 0)
		s->locksfd = fd;
	return fd;
}

int
jfd_armed(store_t *s, const char *j)
{
	struct stat st;
	for (int i = 0; i < s->njfd; i++)
		if (strcmp(s->jfd[i].j, j) == 0)
			return s->jfd[i].armed && s->jfd[i].rw && jfd_stat(s, s->jfd[i].fd, &st) == 0 &&
			    st.st_nlink > 0;
	return 0;
}

void
jfd_arm(store_t *s, const char *j)
{
	for (int i = 0; i < s->njfd; i++)
		if (strcmp(s->jfd[i].j, j) == 0 && s->jfd[i].rw && !s->jfd[i].armed)
			s->jfd[i].armed = flock(s->jfd[i].fd, LOCK_SH | LOCK_NB) == 0;
}

void
store_disarm(store_t *s)
{
	for (int i = 0; i < s->njfd; i++)
		if (s->jfd[i].armed) {
			flock(s->jfd[i].fd, LOCK_UN);
			s->jfd[i].armed = 0;
		}
}
