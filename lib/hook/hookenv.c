/* hookenv.c — see hookenv.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "hook/hookenv.h"
#include "base/json.h"

int
hook_false(const char *v)
{
	static const char *const no[] = {"false", "False", "FALSE", "0", "no", "No", "NO",
	                                 "off", "Off", "OFF", ""};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (!strcmp(v, no[i]))
			return 1;
	return 0;
}

/* A positive decimal integer of at most 9 digits, else 0. */
static long
positive(const char *v)
{
	size_t n = strlen(v);
	if (n == 0 || n > 9 || strspn(v, "0123456789") != n)
		return 0;
	return atol(v);
}

long
hook_timeout(const char *key)
{
	const char *v = getenv(key);
	if (!v || !*v)
		v = getenv("TIMEOUT");
	long t = v && *v ? positive(v) : 0;
	return t > 0 ? t : 60;
}

const char *
hook_url(int argc, char **argv)
{
	const char *url = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--url=", 6))
			url = argv[i] + 6;
		else if (!strcmp(argv[i], "--url") && i + 1 < argc)
			url = argv[++i];
	}
	return url;
}

void
hook_result_line(buf_t *out, const char *status, const char *output_str, const char *error)
{
	rec_t r = {0}, ctx;
	const char *c = getenv("EXTRA_CONTEXT");
	if (c && *c && rec_parse(&ctx, c, strlen(c)) == 0) {
		for (int i = 0; i < ctx.n; i++)
			if (strcmp(ctx.f[i].key, "type") && strcmp(ctx.f[i].key, "status") &&
			    strcmp(ctx.f[i].key, "output_str") && strcmp(ctx.f[i].key, "error"))
				rec_set_raw(&r, ctx.f[i].key, ctx.f[i].val);
		rec_free(&ctx);
	}
	rec_set_str(&r, "type", "ArchiveResult");
	rec_set_str(&r, "status", status);
	rec_set_str(&r, "output_str", output_str);
	if (error && *error)
		rec_set_str(&r, "error", error);
	rec_line(&r, out);
	buf_addc(out, '\n');
	rec_free(&r);
}

static void
on_alarm(int sig)
{
	(void)sig;   /* only to interrupt flock(2) */
}

int
hook_wait_dir(const char *dir, double *left)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK) {
		close(fd);
		return 0;
	}
	struct sigaction sa = {0}, old;
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);   /* no SA_RESTART: flock returns EINTR */
	sigaction(SIGALRM, &sa, &old);
	struct itimerval tick = {{0, 200 * 1000}, {0, 200 * 1000}}, off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &tick, NULL);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 1;
	double spent = 0;
	while (flock(fd, LOCK_SH) < 0 && errno == EINTR) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (spent > *left) {
			rc = -1;
			break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	spent = now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9;
	*left = *left > spent ? *left - spent : 0;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	close(fd);
	return rc;
}

const char *
hook_start(int argc, char **argv, const char *prefix, int http, hook_verdict_t *v)
{
	const char *url = hook_url(argc, argv);
	char key[64];
	snprintf(key, sizeof key, "%s_ENABLED", prefix);
	const char *enabled = getenv(key);
	v->status = "failed";
	v->out[0] = v->err[0] = 0;
	if (enabled && hook_false(enabled)) {
		v->status = "skipped";
		snprintf(v->out, sizeof v->out, "%s is false", key);
	} else if (!url || !*url) {
		const char *b = strrchr(argv[0], '/');
		snprintf(v->out, sizeof v->out, "no --url given");
		snprintf(v->err, sizeof v->err, "usage: %s --url=URL", b ? b + 1 : argv[0]);
	} else if (url[0] == '-') {
		snprintf(v->out, sizeof v->out, "bad URL: %s", url);
		snprintf(v->err, sizeof v->err, "a URL may not begin with -");
	} else if (http && strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8)) {
		v->status = "skipped";
		snprintf(v->out, sizeof v->out, "not an http(s) URL");
	} else {
		return url;
	}
	return NULL;
}

void
hook_print(const char *status, const char *output_str, const char *error)
{
	buf_t line = {0};
	hook_result_line(&line, status, output_str, error);
	fwrite(line.p, 1, line.len, stdout);
	fflush(stdout);
	buf_free(&line);
}

int
hook_exit_code(const char *status, int sig)
{
	if (sig)
		return 128 + sig;
	if (!strcmp(status, "succeeded") || !strcmp(status, "noresults"))
		return 0;
	return !strcmp(status, "skipped") ? 10 : 1;
}

int
hook_write_file(const char *name, const void *p, size_t n)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, ".%s.%ld", name, (long)getpid()) >= (int)sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	unlink(tmp);   /* a leftover of a dead run with our pid */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	const char *c = p;
	int e = 0;
	while (n > 0 && !e) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w < 0 ? errno : ENOSPC;
		else
			c += w, n -= (size_t)w;
	}
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && rename(tmp, name) < 0)
		e = errno;
	if (e) {
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}
