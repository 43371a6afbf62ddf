/*
 * queue.c — see queue.h: the due predicate and the next due items, over
 * the active index the store keeps (store.h).  The store knows records,
 * journals and the index; what "due" means is here.
 */
#include <stdint.h>
#include <string.h>

#include "store/queue.h"
#include "store/store_int.h"

int
queue_entry_due(const ient_t *e, const char *type, const char *crawl_id, int64_t now)
{
	if (!e->used || !e->live || (type && strcmp(e->type, type) != 0))
		return 0;
	if (crawl_id && strcmp(e->crawl_id, crawl_id) != 0 && strcmp(e->id, crawl_id) != 0)
		return 0;
	if (e->retry_at == INT64_MAX || e->retry_at < 0 || strcmp(e->status, "paused") == 0)
		return 0;
	/* in the future only as a flock lease whose holder may have died */
	return e->retry_at <= now || e->lease;
}

size_t
queue_first_due(store_t *s, const char *type, const char *crawl_id, int64_t now, const ient_t **best,
    size_t k)
{
	if (!s->tab && !s->locked)
		index_refresh(s);
	size_t n = 0;
	for (size_t i = 0; i < s->tabcap && k; i++) {
		const ient_t *e = &s->tab[i];
		if (!queue_entry_due(e, type, crawl_id, now))
			continue;
		if (n == k && ient_cmp(e, best[k - 1]) >= 0)
			continue;
		/* insertion into the k best, kept sorted */
		size_t j = n < k ? n++ : k - 1;
		while (j > 0 && ient_cmp(e, best[j - 1]) < 0) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = e;
	}
	return n;
}

const ient_t *
queue_next_due(store_t *s, const char *type, const char *crawl_id, int64_t now,
    char (*skip)[ID_LEN + 1], size_t nskip)
{
	if (!s->tab && !s->locked)
		index_refresh(s);
	const ient_t *best = NULL;
	for (size_t i = 0; i < s->tabcap; i++) {
		const ient_t *e = &s->tab[i];
		if (!queue_entry_due(e, type, crawl_id, now))
			continue;
		if (best && ient_cmp(e, best) >= 0)
			continue;
		size_t k = 0;
		while (k < nskip && strcmp(skip[k], e->id) != 0)
			k++;
		if (k == nskip)
			best = e;
	}
	return best;
}
