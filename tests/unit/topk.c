/*
 * topk_sort (topk.h): over random arrays of every length up to 70 and
 * every k up to past the length, with many equal keys, the first min(k, n)
 * are the smallest in order, every later element is at least the k-th,
 * the array is a permutation of what it was, and sorting the rest gives
 * what one qsort(3) gives.  Elements of more than 256 bytes are sorted
 * whole.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "base/topk.h"

typedef struct {
	int key;
	int tag;     /* keeps equal keys apart for the permutation check */
} el_t;

static int
by_key(const void *a, const void *b)
{
	const el_t *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

static int
by_both(const void *a, const void *b)
{
	const el_t *x = a, *y = b;
	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->tag > y->tag) - (x->tag < y->tag);
}

typedef struct {
	int key;
	char pad[300];
} big_t;

static int
big_cmp(const void *a, const void *b)
{
	const big_t *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

int
main(void)
{
	plan(6);
	srand(7);
	int front_ok = 1, rest_ok = 1, perm_ok = 1, whole_ok = 1, ret_ok = 1;
	for (size_t n = 0; n <= 70; n++)
		for (size_t k = 0; k <= n + 3; k++) {
			el_t a[80], orig[80], want[80];
			for (size_t i = 0; i < n; i++) {
				a[i].key = rand() % 12;   /* many equal keys */
				a[i].tag = (int)i;
			}
			memcpy(orig, a, n * sizeof *a);
			memcpy(want, a, n * sizeof *a);
			qsort(want, n, sizeof *want, by_key);
			size_t got = topk_sort(a, n, k, sizeof *a, by_key);
			size_t m = k < n ? k : n;
			ret_ok &= got == m;
			for (size_t i = 0; i < m; i++)
				front_ok &= a[i].key == want[i].key;
			for (size_t i = m; i < n && m > 0; i++)
				rest_ok &= a[i].key >= a[m - 1].key;
			el_t x[80], y[80];
			memcpy(x, a, n * sizeof *a);
			memcpy(y, orig, n * sizeof *a);
			qsort(x, n, sizeof *x, by_both);
			qsort(y, n, sizeof *y, by_both);
			perm_ok &= memcmp(x, y, n * sizeof *x) == 0;
			qsort(a + m, n - m, sizeof *a, by_key);
			for (size_t i = 0; i < n; i++)
				whole_ok &= a[i].key == want[i].key;
		}
	ok(ret_ok, "it returns how many it sorted: min(k, n)");
	ok(front_ok, "the first min(k, n) are the smallest, in order");
	ok(rest_ok, "every element after them is at least the k-th");
	ok(perm_ok, "the array keeps its elements");
	ok(whole_ok, "sorting the rest afterwards gives one qsort's order");
	big_t b[20];
	for (int i = 0; i < 20; i++)
		b[i].key = 20 - i;
	size_t got = topk_sort(b, 20, 3, sizeof *b, big_cmp);
	int sorted = 1;
	for (int i = 1; i < 20; i++)
		sorted &= b[i - 1].key <= b[i].key;
	ok(got == 20 && sorted, "elements of more than 256 bytes are sorted whole");
	return done();
}
