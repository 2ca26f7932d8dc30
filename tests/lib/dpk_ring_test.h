/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk_ring_test.h - what the ring's test programs share: elements that show a dropped,
 * shifted or mixed byte, and cache-line-aligned memory.
 */
#ifndef DPK_RING_TEST_H
#define DPK_RING_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/ring.h>

/*
 * Element contents: the first 4 bytes hold the sequence number, every other byte a value
 * derived from the sequence and its position.
 */
static inline void dpk_ring_test_fill_elem(unsigned char *e, unsigned esize, uint32_t seq)
{
	memcpy(e, &seq, 4);
	for (unsigned j = 4; j < esize; j++)
		e[j] = (unsigned char)((seq * 31u) ^ (j * 17u) ^ (seq >> 8));
}

/* Fill @p n elements with sequences first .. first + n - 1. */
static inline void dpk_ring_test_fill(unsigned char *buf, unsigned esize, uint32_t first,
                                      unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dpk_ring_test_fill_elem(buf + (size_t)i * esize, esize, first + i);
}

/* True when the element at @p e is sequence @p seq. */
static inline bool dpk_ring_test_is(const unsigned char *e, unsigned esize, uint32_t seq)
{
	unsigned char want[DPK_RING_ESIZE_MAX];

	dpk_ring_test_fill_elem(want, esize, seq);
	return memcmp(e, want, esize) == 0;
}

/* True when buf holds elements first .. first + n - 1. */
static inline bool dpk_ring_test_holds(const unsigned char *buf, unsigned esize, uint32_t first,
                                       unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!dpk_ring_test_is(buf + (size_t)i * esize, esize, first + i))
			return false;
	return true;
}

/* Cache-line-aligned memory; aligned_alloc wants a multiple of the alignment. */
static inline void *dpk_ring_test_alloc_lines(size_t bytes)
{
	return aligned_alloc(DPK_CACHE_LINE,
	                     (bytes + DPK_CACHE_LINE - 1) & ~(size_t)(DPK_CACHE_LINE - 1));
}

#endif /* DPK_RING_TEST_H */
