/* itemlease.c — a tool's hold on an item's lease: see itemlease.h. */
#include <fcntl.h>

#include "base/clock.h"
#include "ctl/itemlease.h"
#include "store/lease.h"

int
item_lease(store_t *s, const char *id, int flags, int *fd, int *own)
{
	*own = 0;
	*fd = lease_inherited(s, id);
	if (*fd < 0) {
		int r = lease_take(s, id, fd);
		if (r != LEASE_TAKEN) {
			*fd = -1;
			return r;
		}
		*own = 1;
		if (flags & ITEMLEASE_NOTE) {
			buf_t b = {0};
			int64_t now = clock_now();
			lease_object(s, &b, now, now + 3600 * 1000000LL, 1);
			lease_note(*fd, buf_cstr(&b));
			buf_free(&b);
		}
	}
	if (flags & ITEMLEASE_CLOEXEC)
		fcntl(*fd, F_SETFD, FD_CLOEXEC);
	return LEASE_TAKEN;
}
