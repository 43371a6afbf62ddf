/* hostslots.c — a runner's host directories and pacing slot files kept
 * open (hostpace.h: hostslots_take, hostslots_give, hostslots_drop):
 *   - two takes of a host with HOST_MAX_CONCURRENT=2 get its two slots, a
 *     third waits (EAGAIN): a slot it holds is never granted again;
 *   - the lock is the file's: another open of slot-0 (another process, or
 *     another runner's hostslots) cannot take it while held, and can once
 *     given;
 *   - given back, a slot waits HOST_DELAY (the until of the EAGAIN is its
 *     not_before); dropped, it is free at once;
 *   - a pause file in force: EAGAIN with its until;
 *   - a slot taken elsewhere is passed over for the next;
 *   - each slot file is opened once over all these takes (the fds it
 *     returns are the same), the host's directory once;
 *   - an fd that is not one of its slots is closed by hostslots_give;
 *   - a slot given or dropped twice stays open (one of hs's is never
 *     closed but by hostslots_free);
 *   - hostslots_free closes them: the slots are free to anyone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fs.h"
#include "net/hostpace.h"
#include "tap.h"

/* Can another open file description of DIR/hosts/KEY/slot-K be locked now?
 * (left unlocked) */
static int
free_elsewhere(const char *dir, const char *key, int k)
{
	char p[600];
	snprintf(p, sizeof p, "%s/hosts/%s/slot-%d", dir, key, k);
	int fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return r;
}

/* The descriptors this process has open. */
static int
nfds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

int
main(void)
{
	plan(22);
	char tmp[] = "/tmp/abx-hostslots.XXXXXX";
	ok(mkdtemp(tmp) != NULL, "a data directory");
	int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	hostpace_t hp = {2, 0, 0, 300 * 1000000LL, 5};
	hostslots_t hs = {0};
	const char *key = "127.0.0.1%3A8080";
	int64_t now = clock_now(), until;

	int base = nfds();
	int a = hostslots_take(&hs, dfd, key, &hp, "s1", now, &until);
	int b = hostslots_take(&hs, dfd, key, &hp, "s2", now, &until);
	ok(a >= 0 && b >= 0 && a != b, "two takes get the host's two slots (fds %d, %d)", a, b);
	errno = 0;
	int c = hostslots_take(&hs, dfd, key, &hp, "s3", now, &until);
	ok(c < 0 && errno == EAGAIN && until == 0, "a third waits (EAGAIN, until unknown: both held)");
	ok(free_elsewhere(tmp, key, 0) == 0, "slot-0 cannot be locked through another open of it");
	int64_t u2;
	hostslots_t other_run = {0};
	errno = 0;
	ok(hostslots_take(&other_run, dfd, key, &hp, "other", now, &u2) < 0 && errno == EAGAIN,
	    "nor by another runner's hostslots");
	hostslots_free(&other_run);
	ok(nfds() - base == 3, "the host's directory and two slot files are open");

	/* given back: HOST_DELAY before the next */
	hp.delay_us = 10 * 1000000LL;
	hostslots_give(&hs, a, &hp, now, now);
	ok(free_elsewhere(tmp, key, 0) == 1, "given back, slot-0 is unlocked");
	errno = 0;
	c = hostslots_take(&hs, dfd, key, &hp, "s3", now, &until);
	ok(c < 0 && errno == EAGAIN && until == now + hp.delay_us,
	    "and waits HOST_DELAY: EAGAIN until its not_before (%+lld us)", (long long)(until - now));
	c = hostslots_take(&hs, dfd, key, &hp, "s3", now + hp.delay_us, &until);
	ok(c == a, "then it is taken again, through the same descriptor");
	hostslots_drop(&hs, c);
	hostslots_drop(&hs, c);
	hostslots_give(&hs, c, &hp, now, now);
	ok(fcntl(c, F_GETFD) >= 0 && free_elsewhere(tmp, key, 0) == 1,
	    "given or dropped again, it stays open and unlocked (no double close)");
	c = hostslots_take(&hs, dfd, key, &hp, "s4", now, &until);
	ok(c == a, "dropped (nothing ran), it is free at once");
	hostslots_drop(&hs, c);

	/* a slot held elsewhere is passed over */
	char p[600];
	snprintf(p, sizeof p, "%s/hosts/%s/slot-0", tmp, key);
	int other = open(p, O_RDWR | O_CLOEXEC);
	ok(other >= 0 && flock(other, LOCK_EX | LOCK_NB) == 0, "another holder takes slot-0");
	hostslots_give(&hs, b, &hp, now - hp.delay_us, now - hp.delay_us);
	c = hostslots_take(&hs, dfd, key, &hp, "s5", now, &until);
	ok(c == b, "a take passes over it for slot-1");
	errno = 0;
	ok(hostslots_take(&hs, dfd, key, &hp, "s6", now, &until) < 0 && errno == EAGAIN, "and then waits");
	close(other);
	hostslots_drop(&hs, c);

	/* a pause in force */
	snprintf(p, sizeof p, "%s/hosts/%s/pause", tmp, key);
	char line[200];
	int n = snprintf(line, sizeof line, "{\"until_us\":%lld,\"backoffs\":1}\n", (long long)(now + 5000000));
	int pf = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ok(pf >= 0 && write(pf, line, n) == n, "a pause file until 5 s from now");
	close(pf);
	errno = 0;
	c = hostslots_take(&hs, dfd, key, &hp, "s7", now, &until);
	ok(c < 0 && errno == EAGAIN && until == now + 5000000, "a take waits for it (until its until)");
	unlink(p);
	c = hostslots_take(&hs, dfd, key, &hp, "s7", now, &until);
	ok(c >= 0, "the pause removed, a slot again");

	/* the slot files were opened once each */
	ok(nfds() - base == 3, "still the host's directory and two slot files open, no more");
	buf_t txt = {0};
	snprintf(p, sizeof p, "hosts/%s/slot-%d", key, c == a ? 0 : 1);
	ok(fs_read(dfd, p, &txt) == 0 && strstr(buf_cstr(&txt), "\"state\":\"running\"") &&
	       strstr(buf_cstr(&txt), "\"snapshot\":\"s7\""),
	    "the slot says who runs: %.60s", buf_cstr(&txt));
	buf_free(&txt);

	/* an fd that is not one of hs's is closed */
	int d = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	hostslots_give(&hs, d, &hp, now, now);
	ok(d >= 0 && fcntl(d, F_GETFD) < 0, "an fd that is not one of its slots is closed by hostslots_give");

	hostslots_free(&hs);
	ok(nfds() == base, "hostslots_free closes them all");
	ok(free_elsewhere(tmp, key, c == a ? 0 : 1) == 1, "and the slot it held is free");
	fs_rmtree(dfd, "hosts");
	close(dfd);
	rmdir(tmp);
	return done();
}
