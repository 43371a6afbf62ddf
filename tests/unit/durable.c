/* durable.h: which filesystems' syncfs is trusted, $ABX_DURABILITY, and
 * durable_tree over a tree with a subdirectory, a symlink and a fifo. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "store/durable.h"
#include "tap.h"

static void
touch(int dfd, const char *rel)
{
	int fd = openat(dfd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

int
main(void)
{
	plan(14);
	ok(durable_syncfs_reaches(0xEF53), "ext4: syncfs");
	ok(durable_syncfs_reaches(0x58465342), "xfs: syncfs");
	ok(durable_syncfs_reaches(0x01021994), "tmpfs: syncfs (nothing to reach)");
	ok(!durable_syncfs_reaches(0x65735546), "FUSE: per-file");
	ok(!durable_syncfs_reaches(0x6969), "NFS: per-file");
	ok(!durable_syncfs_reaches((long)0xFF534D42), "CIFS: per-file");
	ok(!durable_syncfs_reaches(0x12345678), "an unknown type: per-file");

	char dir[] = "/tmp/abx-durable.XXXXXX";
	ok(mkdtemp(dir) != NULL, "a temporary directory");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	setenv("ABX_DURABILITY", "perfile", 1);
	ok(durable_mode(dfd) == DURABLE_PERFILE, "ABX_DURABILITY=perfile");
	setenv("ABX_DURABILITY", "syncfs", 1);
	ok(durable_mode(dfd) == DURABLE_SYNCFS, "ABX_DURABILITY=syncfs");
	setenv("ABX_DURABILITY", "fast", 1);
	ok(durable_mode(dfd) == -1 && errno == EINVAL, "ABX_DURABILITY=fast is refused");
	unsetenv("ABX_DURABILITY");

	mkdirat(dfd, "s", 0755);
	mkdirat(dfd, "s/p", 0755);
	touch(dfd, "s/p/f");
	touch(dfd, "s/g");
	if (symlinkat("/etc/passwd", dfd, "s/p/l") < 0 || mkfifoat(dfd, "s/p/fifo", 0644) < 0)
		perror("symlink or fifo");
	ok(durable_tree(dfd, "s") == 0, "durable_tree syncs a tree, passing a symlink and a fifo by");
	ok(durable_tree(dfd, "s/g") == 0, "durable_tree of a file");
	ok(durable_tree(dfd, "absent") == 0, "durable_tree of an absent path: nothing to do");
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	close(dfd);
	if (system(cmd) != 0)
		perror("rm");
	return done();
}
