/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_test_hooks.h - calls that put a ring into states ordinary traffic reaches only
 * after a long run. Defined in the library, declared here and not in an installed
 * header: only the ring's own tests (which link libdpkit statically and add src/ to
 * their include path) may use them.
 */
#ifndef DPK_RING_TEST_HOOKS_H
#define DPK_RING_TEST_HOOKS_H

#include <stdint.h>

#include <dpk/ring.h>

/*
 * Set every head, tail and cached copy to @p idx, so that traffic crosses the 32-bit wrap
 * of the indices soon. The ring must be empty and quiet.
 */
void dpk__ring_set_indices(struct dpk_ring *r, uint32_t idx);

/*
 * Set the producer's copy of cons.tail and the consumer's copy of prod.tail, e.g. to
 * values far behind, to check that a stale copy only causes a reload. A copy must never be
 * ahead of the tail it copies. The ring must be quiet.
 */
void dpk__ring_set_cached(struct dpk_ring *r, uint32_t prod_cached, uint32_t cons_cached);

#endif /* DPK_RING_TEST_HOOKS_H */
