/*
 * mount-confkept.c — conf_load_file's kept copy (base/config.c): a second
 * read of an unchanged abx.conf gives the same settings; a file changed
 * in place (another size), replaced by a rename, removed, or replaced by
 * a symlink is read anew, and a symlink is still refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "tap.h"

static int dfd, err;

static void
put(const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0) {
		perror(name);
		exit(1);
	}
}

/* KEY's value in abx.conf as conf_load_file reads it now ("" if unset,
 * "ERR" if the read failed) */
static const char *
value(const char *key)
{
	static char out[64];
	conf_t c = {0};
	int rc = conf_load_file(&c, dfd, "abx.conf");
	err = errno;
	const char *v = conf_get(&c, key);
	snprintf(out, sizeof out, "%s", rc < 0 ? "ERR" : v ? v : "");
	conf_free(&c);
	return out;
}

int
main(void)
{
	char dir[] = "/tmp/abx-confkept.XXXXXX";
	if (!mkdtemp(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0) {
		perror("mkdtemp");
		return 1;
	}
	plan(8);
	is_str(value("A"), "", "no abx.conf: nothing set, no error");
	put("abx.conf", "A=1\n");
	is_str(value("A"), "1", "read");
	is_str(value("A"), "1", "read again, unchanged");
	put("abx.conf", "A=22\n");
	is_str(value("A"), "22", "rewritten in place to another size: read anew");
	put("new.conf", "A=3\n");
	renameat(dfd, "new.conf", dfd, "abx.conf");
	is_str(value("A"), "3", "replaced by a rename: read anew");
	unlinkat(dfd, "abx.conf", 0);
	is_str(value("A"), "", "removed: nothing set");
	put("other.conf", "A=4\n");
	if (symlinkat("other.conf", dfd, "abx.conf") < 0)
		perror("symlink");
	is_str(value("A"), "ERR", "a symlink is refused, as without the kept copy");
	ok(err == ELOOP || err == EXDEV, "the refusal is the symlink's (errno %d)", err);
	unlinkat(dfd, "abx.conf", 0);
	unlinkat(dfd, "other.conf", 0);
	close(dfd);
	rmdir(dir);
	return done();
}
