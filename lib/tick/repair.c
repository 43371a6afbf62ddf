/* repair.c — see repair.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/fs.h"
#include "store/expire.h"
#include "store/lease.h"
#include "tick/repair.h"

static const char *tops[] = {"crawls.jsonl", "schedules.jsonl", "binaries.jsonl", NULL};

/* ".NAME.tmp.PID": is PID gone? (another host's temp files look alive) */
static int
stale_tmp(const char *name, time_t mtime, time_t now, int age)
{
	const char *t = strstr(name, ".tmp.");
	if (name[0] != '.' || !t)
		return 0;
	long pid = strtol(t + 5, NULL, 10);
	if (pid > 0 && kill(pid, 0) == 0)
		return now - mtime > 24 * 3600;
	return now - mtime > 60 || age == 0;
}

static int
sweep_dir(int dfd, const char *rel, int all, int age)
{
	int fd = rel ? fs_opendir(dfd, rel) : dup(dfd);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	time_t now = time(NULL);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		int old = all ? now - st.st_mtime >= age : stale_tmp(e->d_name, st.st_mtime, now, age);
		if (!old)
			continue;
		int rc = S_ISDIR(st.st_mode) ? (all ? fs_rmtree(dirfd(d), e->d_name) : -1)
		                             : unlinkat(dirfd(d), e->d_name, 0);
		if (rc == 0)
			n++;
	}
	closedir(d);
	return n;
}

static int
remove_stale_locks(store_t *s)
{
	int fd = fs_opendir(s->dfd, "locks");
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!id_valid(e->d_name))
			continue;
		rec_t r;
		if (store_get_in(s, e->d_name, NULL, &r) == 0) {
			int act = record_is_active(&r);
			rec_free(&r);
			if (act)
				continue;
		}
		int lfd;
		if (lease_take(s, e->d_name, &lfd) != LEASE_TAKEN)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			n++;
		close(lfd);
	}
	closedir(d);
	return n;
}

void
repair_run(store_t *s, repair_stats_t *st)
{
	repair_pass(s, st, 1);
}

int
repair_pass(store_t *s, repair_stats_t *st, int full)
{
	memset(st, 0, sizeof *st);
	const char *a = getenv("ABX_TMP_AGE");
	int age = a ? atoi(a) : 3600;
	if (store_lock(s) < 0)
		return -1;
	for (int i = 0; tops[i]; i++)
		st->torn += store_check_journal(s, tops[i]) > 0;
	if (full)
		store_rebuild_index(s);
	ient_t *v;
	size_t n = store_active(s, NULL, &v);
	int64_t now = clock_now();
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].type, "Crawl") == 0) {
			char j[128];
			store_crawl_journal(v[i].id, j, sizeof j);
			st->torn += store_check_journal(s, j) > 0;
		}
	}
	if (st->torn && full)
		store_rebuild_index(s);
	free(v);
	n = store_active(s, NULL, &v);
	st->active = n;
	for (size_t i = 0; i < n; i++) {
		rec_t r;
		if (store_get(s, v[i].id, &r) < 0)
			continue;
		const char *l = rec_raw(&r, "lease");
		int changed = 0;
		if (l && l[0] == '{') {
			int flk = strstr(l, "\"flock\":true") != NULL;
			rec_t lr;
			int64_t exp = -1;
			if (rec_parse(&lr, l, strlen(l)) == 0) {
				exp = rec_time(&lr, "expires_at");
				rec_free(&lr);
			}
			if (flk ? !lease_busy(s, v[i].id) : exp <= now) {
				rec_set_null(&r, "lease");
				if (flk && !rec_streq(&r, "status", "paused") && !rec_isnull(&r, "retry_at")) {
					rec_set_time(&r, "retry_at", now);
					st->requeued++;
				} else {
					st->leases_dropped++;
				}
				changed = 1;
			}
		}
		if (rec_streq(&r, "status", "queued") && rec_isnull(&r, "retry_at")) {
			rec_set_time(&r, "retry_at", now);
			st->requeued++;
			changed = 1;
		}
		if (changed)
			store_put(s, &r);
		rec_free(&r);
	}
	store_commit(s);
	if (!full) {
		/* the light pass (each tick): leases and torn tails only; the
		 * rest costs in proportion to the archive */
		free(v);
		return store_unlock(s) < 0 || store_failed(s) ? -1 : 0;
	}
	for (int i = 0; tops[i]; i++)
		st->compacted += store_compact(s, tops[i], 0);
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].type, "Crawl") == 0) {
			char j[128];
			store_crawl_journal(v[i].id, j, sizeof j);
			st->compacted += store_compact(s, j, 0) > 0;
			snprintf(j, sizeof j, "crawls/%s", v[i].id);
			st->tmp_swept += sweep_dir(s->dfd, j, 0, age);
		}
	free(v);
	st->tmp_swept += sweep_dir(s->dfd, "tmp", 1, age);
	st->tmp_swept += sweep_dir(s->dfd, NULL, 0, age);
	st->tmp_swept += sweep_dir(s->dfd, "index", 0, age);
	st->tmp_swept += sweep_dir(s->dfd, "crawls", 0, age);
	st->locks_removed = remove_stale_locks(s);
	expire_rebuild(s);
	return store_unlock(s) < 0 || store_failed(s) ? -1 : 0;
}
