/*
 * powerfail.c — a power-loss fault model for the abx tests, without FUSE.
 *
 * One source, two builds:
 *
 *   cc -shared -fPIC -O1 -o powerfail.so powerfail.c -ldl      the shim
 *   cc -O1 -DPOWERFAIL_TOOL -o powerfail powerfail.c           the tool
 *
 * THE MODEL.  A power loss drops every byte that was not synced and every
 * directory entry that was not synced.  What survives is exactly:
 *
 *   - the baseline: the tree ROOT as it was when `powerfail snapshot` ran
 *     (taken as wholly durable);
 *   - for a regular file (an inode): its whole content, size included, as
 *     it was at its last fsync(2) or fdatasync(2) (the two are the same
 *     here), or at its last msync(MS_SYNC) through a shared mapping;
 *   - for a directory (an inode): its list of entries (name -> inode,
 *     type, mode; a symlink's target) as it was at its last fsync(2);
 *   - syncfs(2) of a file on ROOT's filesystem, and sync(2), record every
 *     file and directory under ROOT, as a snapshot does (ext4, xfs); with
 *     ABX_POWERFAIL_FUSE=1 in the shim's environment they record nothing,
 *     as on a FUSE filesystem (GlusterFS's client, LazyFS) or a network
 *     one, where the kernel's syncfs does not reach the filesystem's
 *     storage: then only what was fsync'd or fdatasync'd survives.
 *
 * The image after the power loss (`powerfail restore`) is built from the
 * root's last durable listing down: a directory's entries are its last
 * durable listing, or none if it was never synced since it was created; a
 * regular file's content is its inode's last durable content, or EMPTY
 * (0 bytes) if the inode was never synced since it was created, which is
 * what ext4 with delayed allocation and LazyFS give; two names of one
 * inode are restored as hard links; a symlink keeps the target it had when
 * its directory was synced.
 *
 * So a file written and never synced comes back empty (or with its
 * baseline content), a file synced whose new name was never made durable
 * by an fsync of its directory is absent, and a rename is durable only
 * once the directory (both directories) it touched is synced: until then
 * the old name -> inode mapping stands.
 *
 * This is pessimistic: stricter than ext4 in data=ordered mode, where a
 * file's data reaches the disk before the metadata that names it, fsync of
 * a new file also commits its directory entry, and the journal commits
 * renames in order.  It is a legal outcome of POSIX, and of what LazyFS
 * does.  Inodes are told apart by (st_dev, st_ino, birth time), so that an
 * inode number reused after an unlink does not inherit the old file's
 * content; where the filesystem reports no birth time (statx without
 * STATX_BTIME), by (st_dev, st_ino) alone.
 *
 * LIMITS: it does not model
 *   - torn writes: a write(2) is never partly durable, nor is a file made
 *     of a mix of old and new blocks, nor are appends partly durable (the
 *     tail of an unsynced append is all gone or, after a sync, all there);
 *   - writes made durable without a sync (the kernel's writeback would
 *     often have saved more: the model keeps the least);
 *   - O_SYNC / O_DSYNC / O_DIRECT writes: they count as unsynced (abx uses
 *     none of them); sync_file_range(2) is passed through and counts as no
 *     sync at all, since it makes neither the size nor the metadata durable;
 *   - metadata other than names, types, modes and sizes: times, owners,
 *     xattrs, link counts of inodes outside ROOT;
 *   - fsync done without libc: a static binary, or syscall(SYS_fsync, ...),
 *     or io_uring, is not seen (its data is then counted as unsynced, which
 *     is pessimistic again);
 *   - a directory moved from one parent to another: if two durable
 *     listings name the same directory, the second one is restored empty
 *     (and `restore` says so on stderr);
 *   - files other than regular, directories and symlinks are dropped.
 *
 * THE SHIM (LD_PRELOAD=powerfail.so), active when ABX_POWERFAIL_SHADOW
 * names a shadow directory made by `powerfail snapshot` and
 * ABX_POWERFAIL_ROOT the tree watched.  It wraps fsync, fdatasync, syncfs,
 * sync, msync and sync_file_range; each calls the real function (dlsym
 * RTLD_NEXT) first, and on success records what it made durable into the
 * shadow, before it returns: a file descriptor's path comes from
 * /proc/self/fd/N; one outside ROOT is ignored.  It never writes under
 * ROOT.  Every record is written to SHADOW/tmp and renamed into place,
 * under an exclusive flock(2) of the key (SHADOW/k/KEY), so that processes
 * syncing one file at once leave the newest content, never an older one.
 *
 * The power switch.  Every record is made under a shared flock(2) of
 * SHADOW/power.lock and only if SHADOW/off does not exist.  `powerfail run`
 * turns the power off under the exclusive lock: the shadow is then frozen
 * at one instant, and a process that syncs afterwards blocks forever in the
 * shim (it is about to be killed: on real hardware it would be dead).
 * `powerfail ack` writes a line outside ROOT only while the power is on, so
 * that what the workload records as acknowledged was acknowledged before
 * the power loss.
 *
 * THE TOOL:
 *
 *   powerfail snapshot DIR SHADOW
 *       Make SHADOW (which must not exist) and record the whole tree DIR
 *       in it as durable: the baseline.
 *   powerfail restore SHADOW OUT
 *       Build the post-power-loss image of the tree in OUT (which must not
 *       exist), from the shadow's durable state.
 *   powerfail run SHADOW DELAY_MS CMD [ARG...]
 *       Run CMD under this process, made a child subreaper
 *       (PR_SET_CHILD_SUBREAPER), so that every process CMD starts stays a
 *       descendant, even one that leaves its session or is orphaned.
 *       After DELAY_MS milliseconds, or when CMD exits if that is sooner,
 *       turn the power off and kill -9 every descendant until none is left.
 *       With POWERFAIL_KEEP_CACHE=1, then record the whole tree
 *       $ABX_POWERFAIL_ROOT as durable: a crash that keeps the page cache
 *       (kill -9 alone), to check a test's checks.  Prints one line:
 *         off_ms=N cmd=running|exited:STATUS killed=N
 *   powerfail ack SHADOW FILE TAG
 *       Append "TAG<TAB>line" to FILE for each line of standard input (a
 *       line "TAG" alone if there is none) if the power is on; exit 3 and
 *       write nothing if it is off.
 *   powerfail list SHADOW
 *       Print the durable tree, for debugging.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEYLEN 96
/* a path in the shadow: the shadow's own path (at most PATH_MAX) and more */
#define SPATH (PATH_MAX + 2 * KEYLEN)

/* ------------------------------------------------------------ shadow */

static int
xwrite(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The key of an inode: "DEV-INO-BTIME" in hex; type and mode too. */
static int
key_of(int dfd, const char *name, int flags, char *key, mode_t *mode)
{
	struct statx sx;
	if (statx(dfd, name, flags | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
	          STATX_TYPE | STATX_MODE | STATX_INO | STATX_BTIME, &sx) < 0)
		return -1;
	long long bs = 0;
	unsigned bn = 0;
	if (sx.stx_mask & STATX_BTIME) {
		bs = sx.stx_btime.tv_sec;
		bn = sx.stx_btime.tv_nsec;
	}
	snprintf(key, KEYLEN, "%x.%x-%llx-%llx.%x", sx.stx_dev_major, sx.stx_dev_minor,
	         (unsigned long long)sx.stx_ino, (unsigned long long)bs, bn);
	if (mode)
		*mode = sx.stx_mode;
	return 0;
}

static int
shadow_path(char *out, size_t n, const char *shadow, const char *kind, const char *key)
{
	int r = snprintf(out, n, "%s/%s/%s", shadow, kind, key);
	return r < 0 || (size_t)r >= n ? -1 : 0;
}

/* A temporary file in SHADOW/tmp, unique across processes and threads. */
static int
shadow_tmp(const char *shadow, char *tmp, size_t n)
{
	static unsigned long counter;
	unsigned long c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
	snprintf(tmp, n, "%s/tmp/%ld.%ld.%lu", shadow, (long)getpid(), (long)syscall(SYS_gettid), c);
	return open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* Hold the key's lock: records of one key are made one at a time. */
static int
key_lock(const char *shadow, const char *key)
{
	char p[SPATH];
	if (shadow_path(p, sizeof p, shadow, "k", key) < 0)
		return -1;
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

static int
put_bytes(const char *shadow, const char *kind, const char *key, const void *p, size_t n)
{
	char tmp[SPATH], dst[SPATH];
	if (shadow_path(dst, sizeof dst, shadow, kind, key) < 0)
		return -1;
	int fd = shadow_tmp(shadow, tmp, sizeof tmp);
	if (fd < 0)
		return -1;
	if (xwrite(fd, p, n) < 0 || close(fd) < 0 || rename(tmp, dst) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Record a regular file's whole content, read from src (any offset). */
static int
put_file(const char *shadow, const char *key, int src)
{
	char tmp[SPATH], dst[SPATH], buf[65536];
	if (shadow_path(dst, sizeof dst, shadow, "f", key) < 0)
		return -1;
	int lk = key_lock(shadow, key);
	if (lk < 0)
		return -1;
	int rc = -1, fd = shadow_tmp(shadow, tmp, sizeof tmp);
	if (fd < 0)
		goto out;
	off_t off = 0;
	for (;;) {
		ssize_t r = pread(src, buf, sizeof buf, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			unlink(tmp);
			goto out;
		}
		if (r == 0)
			break;
		if (xwrite(fd, buf, (size_t)r) < 0) {
			close(fd);
			unlink(tmp);
			goto out;
		}
		off += r;
	}
	if (close(fd) < 0 || rename(tmp, dst) < 0) {
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	close(lk);
	return rc;
}

/* A growable buffer for listings. */
typedef struct {
	char *p;
	size_t n, cap;
} sbuf;

static int
sb_add(sbuf *b, const void *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 4096;
		while (c < b->n + n + 1)
			c *= 2;
		char *q = realloc(b->p, c);
		if (!q)
			return -1;
		b->p = q;
		b->cap = c;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

/* Record a directory's entries: "T MODE KEY NAME\0" each, T one of d f l;
 * a symlink's target goes to l/KEY.  dfd is not consumed. */
static int
put_dir(const char *shadow, const char *key, int dfd)
{
	int lk = key_lock(shadow, key);
	if (lk < 0)
		return -1;
	int rc = -1, fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	sbuf b = {0};
	if (!d) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char k[KEYLEN], line[PATH_MAX + 2 * KEYLEN];
		mode_t m;
		if (key_of(dirfd(d), e->d_name, 0, k, &m) < 0)
			continue; /* gone meanwhile: not there at this instant */
		char t = S_ISDIR(m) ? 'd' : S_ISREG(m) ? 'f' : S_ISLNK(m) ? 'l' : 0;
		if (!t)
			continue;
		if (t == 'l') {
			char target[PATH_MAX];
			ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target);
			if (n < 0)
				continue;
			put_bytes(shadow, "l", k, target, (size_t)n);
		}
		int n = snprintf(line, sizeof line, "%c %o %s %s", t, (unsigned)(m & 07777), k, e->d_name);
		if (sb_add(&b, line, (size_t)n + 1) < 0)
			goto out;
	}
	rc = put_bytes(shadow, "d", key, b.p ? b.p : "", b.n);
out:
	if (d)
		closedir(d);
	free(b.p);
	close(lk);
	return rc;
}

/* Record the tree under dfd (a directory) as durable. */
static int
put_tree(const char *shadow, int dfd)
{
	char key[KEYLEN];
	if (key_of(dfd, "", AT_EMPTY_PATH, key, NULL) < 0)
		return -1;
	if (put_dir(shadow, key, dfd) < 0)
		return -1;
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		int c = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (c < 0)
			continue; /* gone, a symlink (recorded with its directory), ... */
		struct stat st;
		if (fstat(c, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				put_tree(shadow, c);
			} else if (S_ISREG(st.st_mode)) {
				char k[KEYLEN];
				if (key_of(c, "", AT_EMPTY_PATH, k, NULL) == 0)
					put_file(shadow, k, c);
			}
		}
		close(c);
	}
	closedir(d);
	return 0;
}

/* The power switch: a shared lock while the power is on; -1 if it is off. */
static int
power_on(const char *shadow)
{
	char p[SPATH];
	snprintf(p, sizeof p, "%s/power.lock", shadow);
	int fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -2;
	while (flock(fd, LOCK_SH) < 0)
		if (errno != EINTR) {
			close(fd);
			return -2;
		}
	snprintf(p, sizeof p, "%s/off", shadow);
	if (access(p, F_OK) == 0) {
		close(fd);
		return -1;
	}
	return fd;
}

#ifndef POWERFAIL_TOOL
/* ------------------------------------------------------------ the shim */

static char g_shadow[PATH_MAX], g_root[PATH_MAX];
static size_t g_rootlen;
static dev_t g_rootdev;
static int g_active;
static int g_fuse;   /* ABX_POWERFAIL_FUSE=1: syncfs and sync reach nothing */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_syncfs)(int);
static void (*real_sync)(void);
static int (*real_msync)(void *, size_t, int);
static int (*real_sync_file_range)(int, off64_t, off64_t, unsigned int);

static void
say(const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	if (n > 0)
		xwrite(2, b, (size_t)n < sizeof b ? (size_t)n : sizeof b - 1);
}

static void
init(void)
{
	real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	real_syncfs = (int (*)(int))dlsym(RTLD_NEXT, "syncfs");
	real_sync = (void (*)(void))dlsym(RTLD_NEXT, "sync");
	real_msync = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "msync");
	real_sync_file_range = (int (*)(int, off64_t, off64_t, unsigned int))dlsym(RTLD_NEXT, "sync_file_range");
	const char *sh = getenv("ABX_POWERFAIL_SHADOW"), *root = getenv("ABX_POWERFAIL_ROOT");
	if (!sh || !*sh || !root || !*root)
		return;
	struct stat st;
	if (!realpath(root, g_root) || !realpath(sh, g_shadow) || stat(g_root, &st) < 0) {
		say("powerfail: ABX_POWERFAIL_ROOT or ABX_POWERFAIL_SHADOW missing: not recording\n");
		return;
	}
	g_rootlen = strlen(g_root);
	g_rootdev = st.st_dev;
	if (strncmp(g_shadow, g_root, g_rootlen) == 0 &&
	    (g_shadow[g_rootlen] == '/' || g_shadow[g_rootlen] == 0)) {
		say("powerfail: the shadow %s is under the root %s: not recording\n", g_shadow, g_root);
		return;
	}
	const char *fuse = getenv("ABX_POWERFAIL_FUSE");
	g_fuse = fuse && strcmp(fuse, "1") == 0;
	g_active = 1;
}

static int
under_root(const char *p)
{
	return strncmp(p, g_root, g_rootlen) == 0 && (p[g_rootlen] == '/' || p[g_rootlen] == 0);
}

/* The power is off: this process would be dead.  Wait for the SIGKILL. */
static void
dead(void)
{
	for (;;)
		pause();
}

/* fd was synced: record its file's content or its directory's entries. */
static void
synced(int fd)
{
	if (!g_active || fd < 0)
		return;
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return;
	path[n] = 0;
	char *del = strstr(path, " (deleted)");
	if (del && del[10] == 0)
		*del = 0;
	if (!under_root(path))
		return;
	struct stat st;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return;
	int pw = power_on(g_shadow);
	if (pw == -1)
		dead();
	if (pw < 0)
		return;
	/* reopen: the fd may be write-only, or an O_PATH-less dir fd */
	int r = open(link, (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char key[KEYLEN];
	if (r >= 0 && key_of(fd, "", AT_EMPTY_PATH, key, NULL) == 0) {
		int rc = S_ISDIR(st.st_mode) ? put_dir(g_shadow, key, r) : put_file(g_shadow, key, r);
		if (rc < 0)
			say("powerfail: cannot record %s: %s\n", path, strerror(errno));
	} else {
		say("powerfail: cannot reopen %s: %s\n", path, strerror(errno));
	}
	if (r >= 0)
		close(r);
	close(pw);
}

/* Everything under ROOT is durable (sync, syncfs); nothing is under the
 * FUSE model. */
static void
synced_all(void)
{
	if (!g_active)
		return;
	int pw = power_on(g_shadow);
	if (pw == -1)
		dead();
	if (pw < 0)
		return;
	if (g_fuse) {
		close(pw);
		return;
	}
	int d = open(g_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d >= 0) {
		put_tree(g_shadow, d);
		close(d);
	}
	close(pw);
}

int
fsync(int fd)
{
	pthread_once(&g_once, init);
	int rc = real_fsync(fd);
	if (rc == 0) {
		int e = errno;
		synced(fd);
		errno = e;
	}
	return rc;
}

int
fdatasync(int fd)
{
	pthread_once(&g_once, init);
	int rc = real_fdatasync(fd);
	if (rc == 0) {
		int e = errno;
		synced(fd);
		errno = e;
	}
	return rc;
}

int
syncfs(int fd)
{
	pthread_once(&g_once, init);
	int rc = real_syncfs(fd);
	struct stat st;
	if (rc == 0 && g_active) {
		int e = errno;
		if (fstat(fd, &st) == 0 && st.st_dev == g_rootdev)
			synced_all();
		errno = e;
	}
	return rc;
}

void
sync(void)
{
	pthread_once(&g_once, init);
	real_sync();
	int e = errno;
	synced_all();
	errno = e;
}

/* sync_file_range makes neither the size nor the metadata durable: it
 * counts as no sync at all. */
int
sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
	pthread_once(&g_once, init);
	return real_sync_file_range(fd, off, n, flags);
}

/* msync(MS_SYNC) of a shared file mapping: the file named in
 * /proc/self/maps for that address is synced (as by fdatasync). */
int
msync(void *addr, size_t len, int flags)
{
	pthread_once(&g_once, init);
	int rc = real_msync(addr, len, flags);
	if (rc != 0 || !(flags & MS_SYNC) || !g_active)
		return rc;
	int e = errno;
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 256];
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		int off = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || !off)
			continue;
		if ((unsigned long)addr < lo || (unsigned long)addr >= hi)
			continue;
		char *p = line + off;
		p[strcspn(p, "\n")] = 0;
		if (*p == '/') {
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				synced(fd);
				close(fd);
			}
		}
		break;
	}
	if (f)
		fclose(f);
	errno = e;
	return rc;
}

#else
/* ------------------------------------------------------------ the tool */

static void
die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("powerfail: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void
usage(void)
{
	fputs("usage: powerfail snapshot DIR SHADOW | restore SHADOW OUT |"
	      " run SHADOW DELAY_MS CMD [ARG...] | ack SHADOW FILE TAG | list SHADOW\n",
	      stderr);
	exit(64);
}

static int
snapshot(const char *dir, const char *shadow)
{
	char p[SPATH], key[KEYLEN];
	static const char *sub[] = {"", "/f", "/d", "/l", "/k", "/tmp"};
	for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
		snprintf(p, sizeof p, "%s%s", shadow, sub[i]);
		if (mkdir(p, 0700) < 0)
			die("mkdir %s: %s", p, strerror(errno));
	}
	snprintf(p, sizeof p, "%s/power.lock", shadow);
	int fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		die("%s: %s", p, strerror(errno));
	close(fd);
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0 || key_of(d, "", AT_EMPTY_PATH, key, NULL) < 0)
		die("%s: %s", dir, strerror(errno));
	if (put_tree(shadow, d) < 0)
		die("cannot record %s: %s", dir, strerror(errno));
	close(d);
	if (put_bytes(shadow, ".", "root", key, strlen(key)) < 0)
		die("cannot write %s/root: %s", shadow, strerror(errno));
	return 0;
}

static char *
slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	sbuf b = {0};
	char buf[65536];
	ssize_t r;
	while ((r = read(fd, buf, sizeof buf)) > 0)
		if (sb_add(&b, buf, (size_t)r) < 0)
			die("out of memory");
	close(fd);
	if (r < 0)
		die("read %s: %s", path, strerror(errno));
	if (sb_add(&b, "", 0) < 0)
		die("out of memory");
	b.p[b.n] = 0;
	*n = b.n;
	return b.p;
}

/* Keys restored so far: (key, path) — dirs seen (cycles), files (links). */
static struct seen {
	char key[KEYLEN];
	char *path;
} *seen;
static size_t nseen, capseen;

static const char *
seen_get(const char *key)
{
	for (size_t i = 0; i < nseen; i++)
		if (strcmp(seen[i].key, key) == 0)
			return seen[i].path;
	return NULL;
}

static void
seen_add(const char *key, const char *path)
{
	if (nseen == capseen) {
		capseen = capseen ? capseen * 2 : 256;
		seen = realloc(seen, capseen * sizeof *seen);
		if (!seen)
			die("out of memory");
	}
	snprintf(seen[nseen].key, KEYLEN, "%s", key);
	seen[nseen++].path = strdup(path);
}

static int list_only;
static long n_files, n_empty, n_dirs, n_links;

static void
restore_dir(const char *shadow, const char *key, const char *out, int depth)
{
	char p[SPATH];
	size_t n = 0;
	shadow_path(p, sizeof p, shadow, "d", key);
	char *l = slurp(p, &n);
	if (!l)
		return; /* never synced since it was created: empty */
	for (char *e = l; e < l + n; e += strlen(e) + 1) {
		char t, k[KEYLEN], path[PATH_MAX];
		unsigned mode;
		int off = 0;
		if (sscanf(e, "%c %o %95s %n", &t, &mode, k, &off) < 3 || !off)
			die("bad listing %s", p);
		const char *name = e + off;
		snprintf(path, sizeof path, "%s/%s", out, name);
		const char *prev = seen_get(k);
		if (list_only) {
			size_t sz = 0;
			char fp[SPATH];
			struct stat st;
			shadow_path(fp, sizeof fp, shadow, "f", k);
			if (t == 'f')
				sz = stat(fp, &st) == 0 ? (size_t)st.st_size : 0;
			printf("%*s%c %s%s", depth * 2, "", t, name, t == 'd' ? "/" : "");
			if (t == 'f')
				printf(" %zu%s", sz, stat(fp, &st) == 0 ? "" : " (never synced)");
			printf("\n");
			if (t == 'd' && !prev) {
				seen_add(k, path);
				restore_dir(shadow, k, path, depth + 1);
			}
			continue;
		}
		if (t == 'd') {
			if (mkdir(path, mode | 0700) < 0)
				die("mkdir %s: %s", path, strerror(errno));
			n_dirs++;
			if (prev) {
				fprintf(stderr, "powerfail: restore: directory %s also durable as %s: left empty\n",
				        path, prev);
				continue;
			}
			seen_add(k, path);
			restore_dir(shadow, k, path, depth + 1);
		} else if (t == 'f') {
			if (prev) {
				if (link(prev, path) < 0)
					die("link %s %s: %s", prev, path, strerror(errno));
				n_links++;
				continue;
			}
			char fp[SPATH];
			shadow_path(fp, sizeof fp, shadow, "f", k);
			size_t sz = 0;
			char *c = slurp(fp, &sz);
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode | 0600);
			if (fd < 0 || (c && xwrite(fd, c, sz) < 0) || close(fd) < 0)
				die("write %s: %s", path, strerror(errno));
			chmod(path, mode);
			if (c)
				n_files++;
			else
				n_empty++;
			free(c);
			seen_add(k, path);
		} else if (t == 'l') {
			char lp[SPATH];
			shadow_path(lp, sizeof lp, shadow, "l", k);
			size_t sz = 0;
			char *c = slurp(lp, &sz);
			if (!c || symlink(c, path) < 0)
				die("symlink %s: %s", path, c ? strerror(errno) : "no target");
			free(c);
		}
	}
	free(l);
}

static int
restore(const char *shadow, const char *out)
{
	char p[SPATH];
	size_t n = 0;
	snprintf(p, sizeof p, "%s/root", shadow);
	char *key = slurp(p, &n);
	if (!key)
		die("%s: %s (not a shadow made by powerfail snapshot)", p, strerror(errno));
	if (!list_only && mkdir(out, 0755) < 0)
		die("mkdir %s: %s", out, strerror(errno));
	seen_add(key, out);
	restore_dir(shadow, key, out, 0);
	if (!list_only && getenv("POWERFAIL_VERBOSE"))
		fprintf(stderr, "powerfail: restored %ld files, %ld empty (never synced), %ld dirs, %ld links\n",
		        n_files, n_empty, n_dirs, n_links);
	free(key);
	return 0;
}

static int
ack(const char *shadow, const char *file, const char *tag)
{
	int pw = power_on(shadow);
	if (pw == -2)
		die("%s: no power switch (not a shadow?)", shadow);
	if (pw < 0)
		return 3;
	sbuf b = {0};
	char *line = NULL;
	size_t cap = 0;
	ssize_t r;
	int any = 0;
	while ((r = getline(&line, &cap, stdin)) > 0) {
		if (line[r - 1] == '\n')
			line[--r] = 0;
		if (sb_add(&b, tag, strlen(tag)) < 0 || sb_add(&b, "\t", 1) < 0 ||
		    sb_add(&b, line, (size_t)r) < 0 || sb_add(&b, "\n", 1) < 0)
			die("out of memory");
		any = 1;
	}
	if (!any && (sb_add(&b, tag, strlen(tag)) < 0 || sb_add(&b, "\n", 1) < 0))
		die("out of memory");
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || xwrite(fd, b.p, b.n) < 0 || close(fd) < 0)
		die("%s: %s", file, strerror(errno));
	free(b.p);
	free(line);
	close(pw);
	return 0;
}

static long long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Kill -9 every descendant of this process until none is left; returns
 * how many were killed. */
static int
kill_descendants(void)
{
	int killed = 0;
	pid_t me = getpid();
	for (int round = 0;; round++) {
		/* pid -> ppid of every process */
		size_t n = 0, cap = 1024;
		pid_t *pid = malloc(cap * sizeof *pid), *ppid = malloc(cap * sizeof *ppid);
		if (!pid || !ppid)
			die("out of memory");
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char *end, p[64], buf[512];
			long v = strtol(e->d_name, &end, 10);
			if (*end || v <= 0)
				continue;
			snprintf(p, sizeof p, "/proc/%ld/stat", v);
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			ssize_t r = read(fd, buf, sizeof buf - 1);
			close(fd);
			if (r <= 0)
				continue;
			buf[r] = 0;
			char *rp = strrchr(buf, ')');
			int pp;
			if (!rp || sscanf(rp + 1, " %*c %d", &pp) != 1)
				continue;
			if (n == cap) {
				cap *= 2;
				pid = realloc(pid, cap * sizeof *pid);
				ppid = realloc(ppid, cap * sizeof *ppid);
				if (!pid || !ppid)
					die("out of memory");
			}
			pid[n] = (pid_t)v;
			ppid[n++] = pp;
		}
		if (d)
			closedir(d);
		/* the descendants: a closure over ppid */
		char *mark = calloc(n ? n : 1, 1);
		int grew = 1, found = 0;
		while (grew) {
			grew = 0;
			for (size_t i = 0; i < n; i++) {
				if (mark[i])
					continue;
				int up = ppid[i] == me;
				for (size_t j = 0; !up && j < n; j++)
					up = mark[j] && pid[j] == ppid[i];
				if (up) {
					mark[i] = 1;
					grew = 1;
				}
			}
		}
		for (size_t i = 0; i < n; i++)
			if (mark[i]) {
				/* a zombie child of ours counts until reaped */
				if (kill(pid[i], SIGKILL) == 0)
					killed++;
				found = 1;
			}
		free(mark);
		free(pid);
		free(ppid);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!found)
			return killed;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
		if (round > 10000)
			die("cannot kill the workload");
	}
}

static int
run(const char *shadow, long delay, char **argv)
{
	char p[SPATH];
	snprintf(p, sizeof p, "%s/power.lock", shadow);
	int pw = open(p, O_RDWR | O_CLOEXEC);
	if (pw < 0)
		die("%s: %s", p, strerror(errno));
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		die("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	long long t0 = now_ms();
	pid_t c = fork();
	if (c < 0)
		die("fork: %s", strerror(errno));
	if (c == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "powerfail: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status = 0, exited = 0;
	while (!exited && now_ms() - t0 < delay) {
		pid_t w;
		int st;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == c) {
				status = st;
				exited = 1;
			}
		if (!exited) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
	}
	/* power off: wait for the records in flight, then freeze the shadow */
	while (flock(pw, LOCK_EX) < 0)
		if (errno != EINTR)
			die("flock %s: %s", p, strerror(errno));
	long long off = now_ms() - t0;
	snprintf(p, sizeof p, "%s/off", shadow);
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		die("%s: %s", p, strerror(errno));
	close(fd);
	flock(pw, LOCK_UN);
	close(pw);
	int killed = kill_descendants();
	/* a crash that keeps the page cache (kill -9 alone): everything the
	 * dead processes wrote is durable */
	const char *keep = getenv("POWERFAIL_KEEP_CACHE"), *root = getenv("ABX_POWERFAIL_ROOT");
	if (keep && *keep && strcmp(keep, "0") != 0) {
		int d = root ? open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (d < 0 || put_tree(shadow, d) < 0)
			die("POWERFAIL_KEEP_CACHE: cannot record %s: %s", root ? root : "(no ABX_POWERFAIL_ROOT)",
			    strerror(errno));
		close(d);
	}
	if (!exited) {
		if (waitpid(c, &status, 0) == c)
			exited = -1; /* killed by us */
	}
	if (exited == 1)
		printf("off_ms=%lld cmd=exited:%d killed=%d\n", off,
		       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), killed);
	else
		printf("off_ms=%lld cmd=running killed=%d\n", off, killed);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	if (strcmp(argv[1], "snapshot") == 0 && argc == 4)
		return snapshot(argv[2], argv[3]);
	if (strcmp(argv[1], "restore") == 0 && argc == 4)
		return restore(argv[2], argv[3]);
	if (strcmp(argv[1], "list") == 0 && argc == 3) {
		list_only = 1;
		return restore(argv[2], ".");
	}
	if (strcmp(argv[1], "ack") == 0 && argc == 5)
		return ack(argv[2], argv[3], argv[4]);
	if (strcmp(argv[1], "run") == 0 && argc >= 5) {
		char *end;
		long delay = strtol(argv[3], &end, 10);
		if (*end || delay < 0)
			usage();
		return run(argv[2], delay, argv + 4);
	}
	usage();
	return 64;
}
#endif
