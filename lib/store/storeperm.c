/* storeperm.c — see storeperm.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/fs.h"
#include "store/storeperm.h"

int
store_perm(store_t *s)
{
	int group = conf_bool(getenv("GROUP_READABLE"), -1);
	if (group < 0 && s->dfd >= 0) {
		conf_t c = {0};
		conf_load_file(&c, s->dfd, "abx.conf");
		const conf_ent_t *e = conf_find(&c, "GROUP_READABLE");
		group = e ? conf_bool(e->val, 0) : 0;
		conf_free(&c);
	}
	group = group > 0;
	umask(group ? 027 : 077);
	struct stat st;
	if (group && s->dfd >= 0 && fstat(s->dfd, &st) == 0 && st.st_uid == geteuid() &&
	    !(st.st_mode & S_ISGID))
		fchmod(s->dfd, (st.st_mode & 07777) | S_ISGID);   /* a hint: a failure costs nothing */
	return group;
}

int
store_lock_open(store_t *s)
{
	int fd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT) {
		int made = fs_mkdirs(s->dfd, "locks") == 0;
		if (made && s->durable)
			fs_fsync_dir(s->dfd, "");
		fd = fs_open(s->dfd, "locks/store.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstatat(s->dfd, "locks", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 077))
		fchmodat(s->dfd, "locks", 0700, 0);   /* an older abx's 0755 */
	s->lockfd = fd;
	return 0;
}
