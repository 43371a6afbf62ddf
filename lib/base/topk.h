/*
 * topk.h — the first K elements of an array in order, without sorting the
 * rest.
 *
 * topk_sort(base, n, k, size, cmp) reorders the n elements of base (each
 * size bytes) so that the k that come first in cmp's order (all n if
 * k >= n) are at its front, sorted; every element after them compares
 * greater than or equal to the k-th.  It returns how many are sorted:
 * min(k, n).  Sorting the rest afterwards (qsort(3) of base + k) gives
 * the whole array in cmp's order, as one qsort(3) would up to the order
 * of elements cmp finds equal.  O(n log k) comparisons and no
 * allocation; elements of more than 256 bytes are sorted whole.
 *
 * abx-tick's refill wants the first few due snapshots of a queue that can
 * hold tens of thousands, at every snapshot's end (tick/pool.c).
 */
#ifndef ABX_TOPK_H
#define ABX_TOPK_H

#include <stddef.h>

size_t topk_sort(void *base, size_t n, size_t k, size_t size, int (*cmp)(const void *, const void *));

#endif
