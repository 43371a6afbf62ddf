/* fscheck.c — see fscheck.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/config.h"
#include "base/err.h"
#include "base/fs.h"
#include "store/fscheck.h"

#define FUSE_MAGIC 0x65735546
#define NFS_MAGIC  0x6969

typedef struct {
	char point[PATH_MAX];   /* mount point */
	char type[64];          /* fstype, e.g. fuse.glusterfs, nfs4 */
	char source[PATH_MAX];  /* e.g. host:volume */
	char opts[2048];        /* the filesystem's (super) options */
	int root;               /* the filesystem's root is mounted there */
	int several;            /* more mounts of the device (bind mounts) */
} mnt_t;

static const struct {
	const char *xlator, *option;
} caches[] = {
	{"performance/write-behind", "performance.write-behind"},
	{"performance/quick-read", "performance.quick-read"},
	{"performance/open-behind", "performance.open-behind"},
	{"performance/md-cache", "performance.stat-prefetch"},
	{"performance/io-cache", "performance.io-cache"},
	{"performance/read-ahead", "performance.read-ahead"},
	{"performance/readdir-ahead", "performance.readdir-ahead"},
	{"performance/nl-cache", "performance.nl-cache"},
};

static void
sep(buf_t *why)
{
	if (why->len)
		buf_adds(why, "; ");
}

/* The value of --name= in a glusterfs command line, or NULL. */
static const char *
arg_value(const char *cmdline, const char *name, char *out, size_t n)
{
	const char *p = strstr(cmdline, name);
	if (!p)
		return NULL;
	p += strlen(name);
	size_t i = 0;
	while (p[i] && p[i] != ' ' && p[i] != '"' && i + 1 < n) {
		out[i] = p[i];
		i++;
	}
	out[i] = 0;
	return out;
}

int
fscheck_gluster(const char *volfile, const char *cmdline, const char *vol, buf_t *why)
{
	size_t w0 = why->len;
	int nopt = 0;
	for (size_t i = 0; i < sizeof caches / sizeof caches[0]; i++) {
		char line[128];
		snprintf(line, sizeof line, "type %s\n", caches[i].xlator);
		if (!strstr(volfile, line))
			continue;
		if (nopt++ == 0) {
			sep(why);
			buf_addf(why, "client caches on: gluster volume set %s %s off", vol,
			    caches[i].option);
		} else {   /* "performance." said once */
			buf_addf(why, "%s%s", nopt == 2 ? " (and " : ", ", caches[i].option + 12);
		}
	}
	if (nopt > 1)
		buf_adds(why, ")");
	/* without it a client that reconnects to a restarted brick goes on
	 * believing in locks the brick forgot, and another host takes them */
	if (strstr(volfile, "type protocol/client\n") && !strstr(volfile, "option strict-locks on\n")) {
		sep(why);
		buf_addf(why, "gluster volume set %s client.strict-locks on, then mount again", vol);
	}
	char v[64];
	const char *dio = arg_value(cmdline, "--direct-io-mode=", v, sizeof v);
	int bad = !dio || (strcmp(dio, "enable") && strcmp(dio, "on") && strcmp(dio, "yes") &&
	    strcmp(dio, "true"));
	const char *at = arg_value(cmdline, "--attribute-timeout=", v, sizeof v);
	bad |= !at || strtod(at, NULL) != 0;
	const char *et = arg_value(cmdline, "--entry-timeout=", v, sizeof v);
	bad |= !et || strtod(et, NULL) != 0;
	const char *nt = arg_value(cmdline, "--negative-timeout=", v, sizeof v);
	bad |= nt && strtod(nt, NULL) != 0;
	if (bad) {
		sep(why);
		buf_adds(why, "mount with -o direct-io-mode=enable,attribute-timeout=0,entry-timeout=0");
	}
	return why->len > w0;
}

/* 1 if opts (comma separated) holds word, or word=... when word ends in '=' */
static const char *
opt(const char *opts, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (word[n - 1] == '=' || p[n] == ',' || !p[n]))
			return p + n;
	return NULL;
}

int
fscheck_nfs(const char *opts, buf_t *why)
{
	size_t w0 = why->len;
	const char *ll = opt(opts, "local_lock=");
	if (opt(opts, "nolock") || (ll && (!strncmp(ll, "flock", 5) || !strncmp(ll, "all", 3)))) {
		sep(why);
		buf_adds(why, "flock is local to each client: mount without nolock and with local_lock=none");
	}
	if (opt(opts, "nocto")) {
		sep(why);
		buf_adds(why, "close-to-open consistency is off: mount without nocto");
	}
	static const char *ac[] = {"acregmin=", "acregmax=", "acdirmin=", "acdirmax="};
	int cached = !opt(opts, "noac");
	for (size_t i = 0; cached == 1 && i < 4; i++) {
		const char *v = opt(opts, ac[i]);
		if (!v || atoi(v) != 0)
			cached = 2;
	}
	if (cached == 2) {
		sep(why);
		buf_adds(why, "attributes are cached: mount with -o noac (or actimeo=0)");
	}
	return why->len > w0;
}

/* mountinfo escapes blanks and backslashes as \ooo */
static void
unescape(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
}

/* The mount of device dev whose mount point is the longest prefix of path
 * (path NULL: the first, and m->several says if there are others). */
static int
find_mount(dev_t dev, const char *path, mnt_t *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0, best = 0;
	int found = 0;
	char want[32];
	snprintf(want, sizeof want, "%u:%u", major(dev), minor(dev));
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *fld[6] = {0};
		int nf = 0;
		char *t = strtok_r(line, " \n", &save);
		while (t && nf < 6) {
			fld[nf++] = t;
			t = nf < 6 ? strtok_r(NULL, " \n", &save) : NULL;
		}
		if (nf < 6 || strcmp(fld[2], want) != 0)
			continue;
		/* then optional fields, "-", type, source, options */
		char *rest = strtok_r(NULL, "\n", &save), *d = NULL;
		if (rest && strncmp(rest, "- ", 2) == 0)
			d = rest;
		else if (rest && (d = strstr(rest, " - ")) != NULL)
			d++;
		char type[64] = "", source[PATH_MAX] = "", opts[2048] = "";
		if (!d || sscanf(d + 2, "%63s %4095s %2047s", type, source, opts) < 2)
			continue;
		unescape(fld[4]);
		size_t n = strlen(fld[4]);
		int prefix = path && strncmp(path, fld[4], n) == 0 &&
		    (path[n] == '/' || !path[n] || n == 1);
		m->several = found;
		if (found && (!prefix || n <= best))
			continue;
		found = 1;
		best = prefix ? n : 0;
		snprintf(m->point, sizeof m->point, "%s", fld[4]);
		snprintf(m->type, sizeof m->type, "%s", type);
		snprintf(m->source, sizeof m->source, "%s", source);
		snprintf(m->opts, sizeof m->opts, "%s", opts);
		m->root = strcmp(fld[3], "/") == 0;
	}
	free(line);
	fclose(f);
	return found ? 0 : -1;
}

static int
read_file(const char *dir, const char *rel, buf_t *out)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fs_read_fd(fd, out);
	close(fd);
	return rc;
}

/* 1 unsafe (why says so), 0 safe or not a kind abx checks */
static int
judge(int dfd, const char *dir, long ftype, buf_t *why, char *what, size_t wn)
{
	struct stat st;
	char real[PATH_MAX];
	mnt_t m;
	if (fstat(dfd, &st) < 0 || find_mount(st.st_dev, NULL, &m) < 0 ||
	    (m.several && (!realpath(dir, real) || find_mount(st.st_dev, real, &m) < 0))) {
		if (ftype != FUSE_MAGIC) {
			snprintf(what, wn, "NFS");
			buf_adds(why, "its mount was not found in /proc/self/mountinfo, so its options are unknown");
			return 1;
		}
		return 0;   /* a FUSE filesystem we cannot name: not one we know */
	}
	if (ftype == NFS_MAGIC || strncmp(m.type, "nfs", 3) == 0) {
		snprintf(what, wn, "NFS (%.200s on %.400s)", m.source, m.point);
		return fscheck_nfs(m.opts, why);
	}
	if (strcmp(m.type, "fuse.glusterfs") != 0)
		return 0;
	const char *colon = strrchr(m.source, ':');
	const char *vol = colon ? colon + 1 : m.source;
	snprintf(what, wn, "GlusterFS volume %.200s", vol);
	buf_t vf = {0}, cl = {0};
	int unsafe;
	if (!m.root || read_file(m.point, ".meta/graphs/active/volfile", &vf) < 0 ||
	    read_file(m.point, ".meta/cmdline", &cl) < 0) {
		buf_addf(why, "its client options cannot be read from %s/.meta, so they are unknown; "
		    "gluster volume set %s performance.write-behind off (and quick-read, open-behind, "
		    "stat-prefetch) and mount with -o direct-io-mode=enable,attribute-timeout=0,"
		    "entry-timeout=0", m.point, vol);
		unsafe = 1;
	} else {
		unsafe = fscheck_gluster(buf_cstr(&vf), buf_cstr(&cl), vol, why);
	}
	buf_free(&vf);
	buf_free(&cl);
	return unsafe;
}

int
fscheck(int dfd, const char *dir, buf_t *refusal)
{
	struct statfs sf;
	if (fstatfs(dfd, &sf) < 0 || (sf.f_type != FUSE_MAGIC && sf.f_type != NFS_MAGIC))
		return 0;
	buf_t why = {0};
	char what[800] = "";
	if (!judge(dfd, dir, (long)sf.f_type, &why, what, sizeof what)) {
		buf_free(&why);
		return 0;
	}
	conf_t c = {0};
	conf_load_file(&c, dfd, "abx.conf");
	conf_load_environ(&c, environ);
	int ok = conf_bool(conf_get(&c, "FS_UNSAFE_OK"), 0);
	conf_free(&c);
	if (!ok)
		buf_addf(refusal, "%s is on %s, unsafe for several hosts (abx(7) "
		    "ASSUMPTIONS; if one host only uses it, set FS_UNSAFE_OK=true in abx.conf): %s",
		    dir, what, buf_cstr(&why));
	buf_free(&why);
	return !ok;
}
