/* lease_held (lease.h): a holder learns that its lease is lost. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>
#include "base/fs.h"
#include "store/lease.h"
#include "store/store.h"
#include "tap.h"

int
main(void)
{
	char dir[] = "/tmp/abx-lease-test.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	setenv("ABX_SYNC", "0", 1);
	plan(7);
	store_t s;
	ok(store_open(&s, dir, 1) == 0, "a data directory");
	char id[ID_LEN + 1], path[64];
	id_new(id);
	snprintf(path, sizeof path, "locks/%s", id);
	int fd = -1;
	ok(lease_take(&s, id, &fd) == LEASE_TAKEN && fd >= 0, "the lease is taken");
	ok(lease_held(&s, id, fd) == 1, "held while nothing happened");

	/* the lock lost (as a server forgets it) and taken by another holder */
	flock(fd, LOCK_UN);
	int other = fs_open(s.dfd, path, O_RDWR, 0);
	ok(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == 0, "another holder takes the lock");
	ok(lease_held(&s, id, fd) == 0, "lost: someone else holds it (EWOULDBLOCK)");
	close(other);

	/* the lock file replaced under the holder */
	unlinkat(s.dfd, path, 0);
	close(fs_open(s.dfd, path, O_RDWR | O_CREAT, 0644));
	ok(lease_held(&s, id, fd) == 0, "lost: locks/<id> is another file now");
	close(fd);
	ok(lease_held(&s, id, fd) == 0, "lost: the descriptor is bad (EBADF)");
	store_close(&s);
	int dfd = open("/tmp", O_RDONLY | O_DIRECTORY);
	fs_rmtree(dfd, dir + 5);
	close(dfd);
	return done();
}
