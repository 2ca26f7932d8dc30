/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_modes.h - what the ring's one-thread tests share (test_ring.c, test_ring_api.c):
 * every call behind one signature, the modes of each sync mode, and random traffic checked
 * against a model of the ring's contents. Defined in ring_modes.c.
 */
#ifndef DPK_TEST_RING_MODES_H
#define DPK_TEST_RING_MODES_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/ring.h>

#include "dpk_ring_test.h"
#include "dpk_test.h"
#include "ring_test_hooks.h"

/* Table sizes used below: 64 slots, 63 usable. */
#define SLOTS 64u
#define MAX_N 24u

#define fill        dpk_ring_test_fill
#define holds       dpk_ring_test_holds
#define alloc_lines dpk_ring_test_alloc_lines

/* The calls under test, with one signature. Single calls are driven one element at a time
 * until one fails, which must be with the right error code. */
typedef unsigned (*enq_fn)(struct dpk_ring *, const void *, unsigned, unsigned *);
typedef unsigned (*deq_fn)(struct dpk_ring *, void *, unsigned, unsigned *);

enum kind { BULK, BURST, SINGLE };

struct mode {
	enq_fn enq;
	deq_fn deq;
	enum kind kind;
};

/* The calls of each mode: bulk, burst and single, SP/SC, MP/MC, the defaults, RTS and HTS. */
extern const struct mode sp_bulk, mp_bulk, df_bulk, sp_burst, mp_burst, df_burst, sp_one, mp_one,
        df_one, rts_bulk, rts_burst, rts_one, hts_bulk, hts_burst, hts_one;

#define RTS (DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MC_RTS_DEQ)
#define HTS (DPK_RING_F_MP_HTS_ENQ | DPK_RING_F_MC_HTS_DEQ)

/* Random traffic through @p r in mode @p m for @p rounds calls, seeded by @p seed, checked
 * against a model of the ring's contents (ring_modes.c says how). */
void run_traffic(struct dpk_ring *r, const struct mode *m, unsigned rounds, uint64_t seed);
/* run_traffic() on rings of every element size the tests use, made with @p flags. */
void traffic_all_sizes(const struct mode *m, unsigned flags);
/* traffic_all_sizes() on rings of each default sync mode and some mixtures. */
void traffic_default_modes(const struct mode *m);

#endif /* DPK_TEST_RING_MODES_H */
