/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline alloc and free paths under load, across lcores, on a pool with per-lcore
 * caches that is not a debug pool (every call of which would go out of line). Each lcore
 * allocates packets, checks that they come out as never-referenced ones, stamps their
 * bytes, and then frees them at once, hands them to a random lcore as they are (the
 * receiver's free is the inline one, into its own cache), or shares them there through
 * a static reference or a reference at an offset, so that buffers keep going from
 * referenced back to never referenced. Receivers check every byte and free, one by one
 * or in a free_multi. A buffer recycled while a holder still reads it shows as wrong
 * bytes (and as a race under ThreadSanitizer); one handed back twice shows as a
 * duplicate in the audit, or as a packet that does not come out fresh; one never handed
 * back shows in the counts at the end.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>
#include <dpk/packet.h>
#include <dpk/ring.h>

#include "dpk_test.h"
#include "dpk_test_lcore.h"

#define COUNT     2048u
#define BUF       256u
#define HEAD      32u
#define CACHE     32u
#define RING_SIZE 256u
#define BURST     16u

/* In the user area of each packet: what a holder checks its handle against. */
struct meta {
	uint32_t stamp;  /* also the flow tag */
	uint32_t offset; /* where the handle's data starts in the stamped packet */
};

struct run {
	struct dpk_packet_pool *pp;
	struct dpk_ring *inbox[DPK_LCORE_MAX];
	unsigned ids[DPK_LCORE_MAX];
	unsigned n;
	uint64_t seed;
	uint64_t deadline_ms;
	_Atomic unsigned stopped;
	_Atomic uint32_t next_stamp;
	_Atomic uint64_t made, freed_at_once, sent, static_refs, refs, checked;
};

static unsigned char data_byte(uint32_t stamp, uint32_t i)
{
	return (unsigned char)(stamp * 11u + i * 7u + (i >> 8));
}

static void check(struct run *r, struct dpk_packet *pkt)
{
	const struct meta *m = dpk_packet_uarea(pkt);
	unsigned char buf[BUF];
	uint32_t len = dpk_packet_len(pkt);

	if (dpk_packet_flow_tag(pkt) != m->stamp) {
		dpk_test_fail(__FILE__, __LINE__, "flow tag %u, stamp %u", dpk_packet_flow_tag(pkt),
		              m->stamp);
		return;
	}
	if (len > BUF || dpk_packet_read(pkt, 0, len, buf) != 0) {
		dpk_test_fail(__FILE__, __LINE__, "bad length %u", len);
		return;
	}
	for (uint32_t i = 0; i < len; i++) {
		if (buf[i] != data_byte(m->stamp, m->offset + i)) {
			dpk_test_fail(
			        __FILE__, __LINE__,
			        "stamp %u byte %u of %u: %#x, want %#x (buffer reused early?)",
			        m->stamp, i, len, buf[i], data_byte(m->stamp, m->offset + i));
			return;
		}
	}
	atomic_fetch_add_explicit(&r->checked, 1, memory_order_relaxed);
}

/* Hand @p pkt to a random lcore; when that inbox is full, check and free it here. */
static void send(struct run *r, uint64_t *rng, struct dpk_packet *pkt)
{
	unsigned to = r->ids[dpk_test_rand(rng) % r->n];

	if (dpk_ring_mp_enqueue(r->inbox[to], &pkt) != 0) {
		check(r, pkt);
		dpk_packet_free(pkt);
		return;
	}
	atomic_fetch_add_explicit(&r->sent, 1, memory_order_relaxed);
}

static void produce(struct run *r, uint64_t *rng)
{
	uint32_t len = 1 + (uint32_t)(dpk_test_rand(rng) % (BUF - HEAD));
	uint32_t stamp = atomic_fetch_add_explicit(&r->next_stamp, 1, memory_order_relaxed);
	struct dpk_packet *pkt = dpk_packet_alloc(r->pp, len), *ref;
	uint64_t x = dpk_test_rand(rng);
	unsigned char *d;
	struct meta *m;
	uint32_t off;

	if (pkt == NULL) {
		EXPECT_EQ(ENOENT, errno);
		return;
	}
	/* Fresh, whatever the buffer went through before. */
	EXPECT_FALSE(dpk_packet_has_ref(pkt));
	EXPECT_FALSE(dpk_packet_is_referencing(pkt));
	EXPECT_EQ(HEAD, dpk_packet_headroom(pkt));
	EXPECT_EQ(BUF - HEAD - len, dpk_packet_tailroom(pkt));
	EXPECT_EQ(0, dpk_packet_flow_tag(pkt));
	EXPECT_TRUE(dpk_packet_pool(pkt) == r->pp);
	d = dpk_packet_data(pkt);
	for (uint32_t i = 0; i < len; i++)
		d[i] = data_byte(stamp, i);
	m = dpk_packet_uarea(pkt);
	*m = (struct meta){stamp, 0};
	EXPECT_EQ(0, dpk_packet_flow_tag_set(pkt, stamp));
	atomic_fetch_add_explicit(&r->made, 1, memory_order_relaxed);

	switch (x & 3) {
	case 0:
		check(r, pkt);
		dpk_packet_free(pkt);
		atomic_fetch_add_explicit(&r->freed_at_once, 1, memory_order_relaxed);
		return;
	case 1:
		send(r, rng, pkt);
		return;
	case 2:
		send(r, rng, dpk_packet_ref_static(pkt));
		atomic_fetch_add_explicit(&r->static_refs, 1, memory_order_relaxed);
		break;
	default:
		off = (uint32_t)(dpk_test_rand(rng) % len);
		ref = dpk_packet_ref(pkt, off);
		if (ref == NULL) {
			EXPECT_EQ(ENOENT, errno);
			break;
		}
		m = dpk_packet_uarea(ref);
		*m = (struct meta){stamp, off};
		send(r, rng, ref);
		atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
		break;
	}
	/* The packet itself: kept and freed here, or sent too. */
	if (x & 4) {
		send(r, rng, pkt);
	} else {
		check(r, pkt);
		dpk_packet_free(pkt);
	}
}

/* Check and free what arrived, one by one or in one free_multi. */
static unsigned consume(struct run *r, uint64_t *rng, struct dpk_ring *in)
{
	struct dpk_packet *pkts[BURST];
	unsigned n = dpk_ring_sc_dequeue_burst(in, pkts, BURST, NULL);

	for (unsigned i = 0; i < n; i++)
		check(r, pkts[i]);
	if (dpk_test_rand(rng) & 1) {
		dpk_packet_free_multi(pkts, n);
	} else {
		for (unsigned i = 0; i < n; i++)
			dpk_packet_free(pkts[i]);
	}
	return n;
}

static int lcore_main(void *arg)
{
	struct run *r = arg;
	unsigned id = dpk_lcore_id();
	uint64_t rng = r->seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (id + 1));
	struct dpk_ring *in = r->inbox[id];

	while (dpk_test_now_ms() < r->deadline_ms) {
		produce(r, &rng);
		consume(r, &rng, in);
	}
	/* Stop sending; drain until every lcore has stopped, then once more. */
	atomic_fetch_add_explicit(&r->stopped, 1, memory_order_acq_rel);
	while (atomic_load_explicit(&r->stopped, memory_order_acquire) < r->n)
		consume(r, &rng, in);
	while (consume(r, &rng, in) > 0)
		;
	return 0;
}

static void inline_paths_across_lcores(void)
{
	struct dpk_packet_pool_params prm;
	struct dpk_pool_audit_report rep;
	struct run *r;
	unsigned id;

	dpk_test_start_lcores("(0-3)@0,(4-7)@1", "(0-7)@0"); /* 8 lcores on 2 CPUs, or on 1 */
	r = calloc(1, sizeof(*r));
	ASSERT_NOT_NULL(r);
	dpk_packet_pool_params_init(&prm);
	prm.count = COUNT;
	prm.buf_size = BUF;
	prm.headroom = HEAD;
	prm.uarea_size = sizeof(struct meta);
	prm.cache_size = CACHE;
	r->pp = dpk_packet_pool_create(&prm);
	ASSERT_NOT_NULL(r->pp);
	r->seed = dpk_test_seed();
	DPK_LCORE_FOREACH(id)
	{
		r->ids[r->n++] = id;
		r->inbox[id] = dpk_ring_create(sizeof(void *), RING_SIZE, DPK_RING_F_SC_DEQ);
		ASSERT_NOT_NULL(r->inbox[id]);
	}
	r->deadline_ms = dpk_test_now_ms() + dpk_test_stress_ms(700);
	ASSERT_EQ(0, dpk_lcore_launch_all(lcore_main, r, true));
	EXPECT_EQ(0, dpk_lcore_wait_all());

	for (unsigned i = 0; i < r->n; i++) {
		EXPECT_EQ(0, dpk_ring_count(r->inbox[r->ids[i]]));
		dpk_ring_free(r->inbox[r->ids[i]]);
	}
	dpk_test_note("made %llu freed at once %llu sent %llu static refs %llu refs %llu "
	              "checked %llu",
	              (unsigned long long)atomic_load(&r->made),
	              (unsigned long long)atomic_load(&r->freed_at_once),
	              (unsigned long long)atomic_load(&r->sent),
	              (unsigned long long)atomic_load(&r->static_refs),
	              (unsigned long long)atomic_load(&r->refs),
	              (unsigned long long)atomic_load(&r->checked));
	EXPECT_GT(atomic_load(&r->made), 0);
	EXPECT_GT(atomic_load(&r->sent), 0);
	/* Every buffer back exactly once, in the ring or one of the lcores' caches. */
	EXPECT_EQ(COUNT, dpk_pool_avail_count(dpk_packet_pool_to_pool(r->pp)));
	EXPECT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(r->pp), &rep, NULL, NULL));
	EXPECT_EQ(0, rep.in_use);
	EXPECT_EQ(0, rep.duplicates);
	EXPECT_EQ(0, rep.foreign);
	EXPECT_EQ(0, dpk_lcore_fini());
	dpk_packet_pool_free(r->pp);
	free(r);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(inline_paths_across_lcores),
};

DPK_TEST_MAIN(cases)
