/*
 * topk.c — see topk.h.  A max-heap of the k best seen so far at the front
 * of the array: an element better than the heap's worst replaces it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/topk.h"

enum { MAX_SIZE = 256 };

static void
swap(char *a, char *b, size_t size)
{
	char t[MAX_SIZE];
	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

/* Restore the max-heap below node i of the k-element heap at base. */
static void
sift_down(char *base, size_t i, size_t k, size_t size, int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < k && cmp(base + l * size, base + m * size) > 0)
			m = l;
		if (r < k && cmp(base + r * size, base + m * size) > 0)
			m = r;
		if (m == i)
			return;
		swap(base + i * size, base + m * size, size);
		i = m;
	}
}

size_t
topk_sort(void *base, size_t n, size_t k, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base;
	if (n < 2)
		return k < n ? k : n;   /* sorted already (and base may be NULL) */
	if (k >= n || size > MAX_SIZE) {
		qsort(base, n, size, cmp);
		return n;
	}
	if (k == 0)
		return 0;
	for (size_t i = k / 2; i-- > 0;)
		sift_down(b, i, k, size, cmp);
	for (size_t i = k; i < n; i++)
		if (cmp(b + i * size, b) < 0) {
			swap(b + i * size, b, size);
			sift_down(b, 0, k, size, cmp);
		}
	qsort(base, k, size, cmp);
	return k;
}
