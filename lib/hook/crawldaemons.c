/* crawldaemons.c — see crawldaemons.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook/crawldaemons.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/ids.h"

#define SUFFIX ".daemon.json"

int
crawl_daemon_record(store_t *s, const char *rel, const char *hook_name, const proc_t *p,
    const char *process_id, const char *run)
{
	buf_t b = {0};
	buf_addf(&b, "{\"pid\":%ld,\"pgid\":%ld,\"starttime\":%lld,\"boot_id\":", (long)p->pid,
	    (long)p->pid, proc_starttime(p->pid));
	buf_json_strz(&b, s->boot_id);
	buf_adds(&b, ",\"host\":");
	buf_json_strz(&b, s->host);
	buf_adds(&b, ",\"process_id\":");
	buf_json_strz(&b, process_id);
	buf_adds(&b, ",\"hook_name\":");
	buf_json_strz(&b, hook_name);
	buf_adds(&b, ",\"run\":");
	buf_json_strz(&b, run);
	buf_addf(&b, ",\"timeout\":%ld}\n", p->timeout);
	char *path = xasprintf("%s/%s" SUFFIX, rel, hook_name);
	int rc = fs_replace(s->dfd, path, b.p, b.len, s->durable);
	if (rc < 0)
		warnsys("unable to record daemon %s/%s", s->dir, path);
	free(path);
	buf_free(&b);
	return rc;
}

/* Stop the daemon of one state file; 1 stopped (or gone), 0 kept. */
static int
stop_one(store_t *s, const char *path, rec_t *d)
{
	char *host = rec_str(d, "host"), *boot = rec_str(d, "boot_id");
	long pid = rec_int(d, "pid", 0), pgid = rec_int(d, "pgid", 0);
	long long start = rec_int(d, "starttime", -1);
	long timeout = rec_int(d, "timeout", 10);
	int rc = 1;
	if (!host || strcmp(host, s->host) != 0) {
		warnx_("%s/%s: daemon runs on host %s; stop it there (abx-hook --family "
		    "CrawlCleanup on that host)", s->dir, path, host ? host : "?");
		rc = 0;
	} else if (boot && strcmp(boot, s->boot_id) == 0 && pid > 1 && pgid > 1) {
		long long now = proc_starttime(pid);
		if (now < 0 || now == start) {
			long grace = timeout > 0 && timeout < 10 ? timeout : 10;
			proc_group_stop(pgid, 1, grace * 1000);
		}
	}
	free(host), free(boot);
	return rc;
}

static void
mark_exited(store_t *s, const char *crawl_id, const char *process_id, FILE *out)
{
	char j[128];
	rec_t r;
	store_crawl_journal(crawl_id, j, sizeof j);
	if (!id_valid(process_id) || store_get_in(s, process_id, j, &r) < 0)
		return;
	rec_set_time(&r, "ended_at", clock_now());
	rec_set_null(&r, "exit_code");
	rec_set_str(&r, "status", "exited");
	rec_set_str(&r, "notes", "daemon stopped at the end of the crawl");
	store_put(s, &r);
	if (out) {
		buf_t b = {0};
		rec_line(&r, &b);
		buf_addc(&b, '\n');
		fwrite(b.p, 1, b.len, out);
		buf_free(&b);
	}
	rec_free(&r);
}

/* Call fn for each daemon state file of the crawl (parsed into *d); a
 * file that is no state file is reported.  fn returns 1 to remove it. */
typedef int daemon_fn(store_t *s, const char *crawl_id, const char *path, rec_t *d, void *arg);

static int
each_daemon(store_t *s, const char *crawl_id, daemon_fn *fn, void *arg)
{
	if (!id_valid(crawl_id))
		return 0;
	char *crel = xasprintf("crawls/%s", crawl_id);
	int cfd = fs_opendir(s->dfd, crel);
	DIR *cd = cfd >= 0 ? fdopendir(cfd) : NULL;
	int n = 0;
	if (!cd) {
		if (cfd >= 0)
			close(cfd);
		free(crel);
		return 0;
	}
	for (struct dirent *pe; (pe = readdir(cd));) {
		const char *plugin = pe->d_name;
		if (!name_valid(plugin) || id_valid(plugin))
			continue;
		int pfd = openat(dirfd(cd), plugin, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *pd = pfd >= 0 ? fdopendir(pfd) : NULL;
		if (!pd) {
			if (pfd >= 0)
				close(pfd);
			continue;
		}
		for (struct dirent *fe; (fe = readdir(pd));) {
			size_t l = strlen(fe->d_name), sl = strlen(SUFFIX);
			if (strncmp(fe->d_name, "on_", 3) != 0 || l <= sl ||
			    strcmp(fe->d_name + l - sl, SUFFIX) != 0)
				continue;
			char *path = xasprintf("%s/%s/%s", crel, plugin, fe->d_name);
			buf_t b = {0};
			rec_t d;
			if (fs_read(s->dfd, path, &b) == 0 && rec_parse(&d, b.p, b.len) == 0) {
				if (fn(s, crawl_id, path, &d, arg)) {
					/* its pid file, kept while it ran (abx-dl's) */
					char *pidf = xasprintf("%.*s.pid", (int)(l - sl), fe->d_name);
					unlinkat(dirfd(pd), pidf, 0);
					free(pidf);
					if (unlinkat(dirfd(pd), fe->d_name, 0) < 0 && errno != ENOENT)
						warnsys("unable to remove %s/%s", s->dir, path);
					n++;
				}
				rec_free(&d);
			} else {
				warnx_("%s/%s: not a daemon record; remove it by hand", s->dir, path);
			}
			buf_free(&b);
			free(path);
		}
		closedir(pd);
	}
	closedir(cd);
	free(crel);
	return n;
}

static int
stop_daemon(store_t *s, const char *crawl_id, const char *path, rec_t *d, void *arg)
{
	FILE *out = arg;
	if (!stop_one(s, path, d))
		return 0;
	char *pid = rec_str(d, "process_id");
	store_lock(s);
	mark_exited(s, crawl_id, pid, out);
	store_unlock(s);
	free(pid);
	return 1;
}

int
hook_stop_daemons(store_t *s, const char *crawl_id, FILE *out)
{
	int n = each_daemon(s, crawl_id, stop_daemon, out);
	if (out)
		fflush(out);
	return n;
}

typedef struct {
	char **v;
	size_t n;
} runs_t;

static int
add_run(store_t *s, const char *crawl_id, const char *path, rec_t *d, void *arg)
{
	runs_t *r = arg;
	char *run = rec_str(d, "run");
	if (run) {
		r->v = xrealloc(r->v, (r->n + 2) * sizeof *r->v);
		r->v[r->n++] = run;
		r->v[r->n] = NULL;
	}
	return 0;
}

char **
crawl_daemon_runs(store_t *s, const char *crawl_id)
{
	runs_t r = {0};
	each_daemon(s, crawl_id, add_run, &r);
	return r.v;
}
