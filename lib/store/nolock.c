/* nolock.c — see nolock.h.  Part of the store (store_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "store/nolock.h"
#include "store/store_int.h"

/* The entry whose bit may be used or set: under the lock, out of lean
 * mode, only this boot's lines in the table. */
static ient_t *
entry(store_t *s, const char *id)
{
	if (!s->locked || s->lean || s->nolock_off || !s->tab || !id_valid(id))
		return NULL;
	return index_slot(s, id, 0);
}

int
nolock_known(store_t *s, const char *id)
{
	const ient_t *e = entry(s, id);
	return e && e->nolock;
}

void
nolock_seen(store_t *s, const char *id)
{
	ient_t *e = entry(s, id);
	if (e)
		e->nolock = 1;
}

int
nolock_made(store_t *s, const char *id)
{
	if (!id_valid(id))
		return -1;
	buf_t b = {0};
	buf_addf(&b, "{\"lock\":\"%s\"}\n", id);
	int rc = s->lean ? lean_index_append(s, &b) : index_note(s, &b, "index-note-half-line");
	buf_free(&b);
	if (rc < 0)
		return -1;
	ient_t *e = s->tab ? index_slot(s, id, 0) : NULL;
	if (e)
		e->nolock = 0;
	if (!e || !e->live) {
		/* an id whose first commit may be still to come */
		s->leasednew = xrealloc(s->leasednew, (s->nleasednew + 1) * sizeof *s->leasednew);
		memcpy(s->leasednew[s->nleasednew++], id, ID_LEN + 1);
	}
	return 0;
}

int
nolock_fresh_ok(const store_t *s, const char *id)
{
	for (size_t i = 0; i < s->nleasednew; i++)
		if (strcmp(s->leasednew[i], id) == 0)
			return 0;
	return 1;
}

int
nolock_apply(store_t *s, const char *line, size_t len)
{
	static const char key[] = "{\"lock\":\"";
	const size_t kl = sizeof key - 1;
	if (len != kl + ID_LEN + 2 || memcmp(line, key, kl) != 0 || memcmp(line + kl + ID_LEN, "\"}", 2) != 0)
		return -1;
	char id[ID_LEN + 1];
	memcpy(id, line + kl, ID_LEN);
	id[ID_LEN] = 0;
	if (!id_valid(id))
		return -1;
	ient_t *e = index_slot(s, id, 0);
	if (e)
		e->nolock = 0;
	return 0;
}
