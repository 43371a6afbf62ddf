/*
 * JSONTestSuite (tests/data/JSONTestSuite) against lib/base/json: json_valid()
 * must accept every y_ file and reject every n_ file; an i_ file may go
 * either way but must not crash, and what we do is printed.  rec_parse()
 * must agree with json_valid() on every file: it takes exactly the valid
 * texts that are objects.  Each file is read into a buffer of its exact
 * size (no NUL after it), so that the sanitizers see any read past the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "tap.h"

#define SUITE "tests/data/JSONTestSuite"

/* The suite from the repository top (prove's cwd), else beside the test. */
static int
open_suite(const char *argv0)
{
	int fd = open(SUITE, O_RDONLY | O_DIRECTORY);
	if (fd >= 0)
		return fd;
	char *copy = strdup(argv0), path[4096];
	snprintf(path, sizeof path, "%s/../data/JSONTestSuite", dirname(copy));
	free(copy);
	return open(path, O_RDONLY | O_DIRECTORY);
}

static char *
slurp(int dfd, const char *name, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char *p = malloc(st.st_size ? st.st_size : 1);
	size_t got = 0;
	while (p && got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(p);
			p = NULL;
			break;
		}
		got += n;
	}
	close(fd);
	*len = got;
	return p;
}

static int
is_case(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return strchr("yni", d->d_name[0]) && d->d_name[1] == '_' && n > 5 &&
	       strcmp(d->d_name + n - 5, ".json") == 0;
}

int
main(int argc, char **argv)
{
	int dfd = open_suite(argv[0]);
	struct dirent **names;
	int n = dfd < 0 ? -1 : scandirat(dfd, ".", &names, is_case, alphasort);
	if (n <= 0) {
		printf("1..0 # SKIP no " SUITE "\n");
		return 0;
	}
	int counts[3][2] = {{0}};   /* y, n, i by rejected, accepted */
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len;
		char *text = slurp(dfd, name, &len);
		if (!text) {
			ok(0, "%s: unable to read", name);
			free(names[i]);
			continue;
		}
		int valid = json_valid(text, len);
		size_t sp = 0;
		while (sp < len && strchr(" \t\r\n", text[sp]) && text[sp])
			sp++;
		rec_t r;
		int rec = rec_parse(&r, text, len) == 0;
		if (rec)
			rec_free(&r);
		int agree = rec == (valid && sp < len && text[sp] == '{');
		int kind = name[0] == 'y' ? 0 : name[0] == 'n' ? 1 : 2;
		counts[kind][valid]++;
		if (kind == 0)
			ok(valid && agree, "%s accepted", name);
		else if (kind == 1)
			ok(!valid && agree, "%s rejected", name);
		else
			ok(agree, "%s %s", name, valid ? "accepted" : "rejected");
		free(text);
		free(names[i]);
	}
	free(names);
	close(dfd);
	printf("# y_: %d accepted, %d rejected; n_: %d accepted, %d rejected; "
	       "i_: %d accepted, %d rejected\n", counts[0][1], counts[0][0], counts[1][1],
	    counts[1][0], counts[2][1], counts[2][0]);
	plan(tap_n);
	return done();
}
