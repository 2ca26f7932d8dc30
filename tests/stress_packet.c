/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet references across lcores. Each lcore allocates packets, stamps every data byte
 * with a function of a per-packet stamp, makes static references, references at offsets
 * (with a private header) and references of those, and sends the handles through dpkit
 * rings to random lcores, which check the bytes, sometimes forward, and free. A buffer
 * recycled while a holder still reads it shows as wrong bytes (and as a race under
 * ThreadSanitizer); a buffer freed twice is refused and counted by the debug pool; one
 * never freed shows in the counts at the end.
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

#define COUNT     1024u
#define BUF       512u
#define HEAD      64u
#define RING_SIZE 256u
#define BURST     16u

/* What a holder needs to check a handle; in the user area of each packet. */
struct meta {
	uint32_t stamp;  /* also the flow tag */
	uint32_t offset; /* where the shared part starts in the stamped packet */
	uint32_t head;   /* private header bytes in front of it */
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
	_Atomic uint64_t made, refs, static_refs, checked, forwarded, dropped;
};

static unsigned char data_byte(uint32_t stamp, uint32_t i)
{
	return (unsigned char)(stamp * 7u + i * 13u + (i >> 8));
}

static unsigned char head_byte(uint32_t stamp, uint32_t i)
{
	return (unsigned char)~(stamp + i);
}

/* Check every byte of a handle against its stamp. */
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
		unsigned char want = i < m->head ? head_byte(m->stamp, i)
		                                 : data_byte(m->stamp, m->offset + i - m->head);
		if (buf[i] != want) {
			dpk_test_fail(
			        __FILE__, __LINE__,
			        "stamp %u byte %u of %u: %#x, want %#x (buffer reused early?)",
			        m->stamp, i, len, buf[i], want);
			return;
		}
	}
	atomic_fetch_add_explicit(&r->checked, 1, memory_order_relaxed);
}

/* Hand @p pkt to a random lcore, or free it when that inbox is full. */
static void send(struct run *r, uint64_t *rng, struct dpk_packet *pkt)
{
	unsigned to = r->ids[dpk_test_rand(rng) % r->n];

	if (dpk_ring_mp_enqueue(r->inbox[to], &pkt) != 0) {
		check(r, pkt);
		dpk_packet_free(pkt);
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
	}
}

/* A reference at a random offset of @p pkt, with a private header and its own meta. */
static struct dpk_packet *make_ref(struct run *r, uint64_t *rng, struct dpk_packet *pkt)
{
	const struct meta *m = dpk_packet_uarea(pkt);
	uint32_t len = dpk_packet_len(pkt), off, head;
	struct dpk_packet *ref;
	struct meta *rm;
	unsigned char *h;

	if (len <= m->head)
		return NULL;
	/* In the shared part: a reference inside a private head is not supported. */
	off = m->head + (uint32_t)(dpk_test_rand(rng) % (len - m->head));
	ref = dpk_packet_ref(pkt, off);
	if (ref == NULL) {
		EXPECT_EQ(ENOENT, errno);
		return NULL;
	}
	head = (uint32_t)(dpk_test_rand(rng) % 24);
	EXPECT_EQ(0, dpk_packet_push_head(ref, head));
	h = dpk_packet_data(ref);
	rm = dpk_packet_uarea(ref);
	rm->stamp = m->stamp;
	rm->offset = m->offset + off - m->head;
	rm->head = head;
	for (uint32_t i = 0; i < head; i++)
		h[i] = head_byte(m->stamp, i);
	atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
	return ref;
}

static void produce(struct run *r, uint64_t *rng)
{
	uint32_t len = 1 + (uint32_t)(dpk_test_rand(rng) % (BUF - HEAD));
	uint32_t stamp = atomic_fetch_add_explicit(&r->next_stamp, 1, memory_order_relaxed);
	struct dpk_packet *pkt = dpk_packet_alloc(r->pp, len), *ref;
	uint64_t x = dpk_test_rand(rng);
	unsigned char *d;
	struct meta *m;

	if (pkt == NULL) {
		EXPECT_EQ(ENOENT, errno);
		return;
	}
	d = dpk_packet_data(pkt);
	for (uint32_t i = 0; i < len; i++)
		d[i] = data_byte(stamp, i);
	m = dpk_packet_uarea(pkt);
	*m = (struct meta){stamp, 0, 0};
	EXPECT_EQ(0, dpk_packet_flow_tag_set(pkt, stamp));
	atomic_fetch_add_explicit(&r->made, 1, memory_order_relaxed);

	/* References at offsets, some of them of a reference. */
	for (unsigned k = (unsigned)(x & 3); k > 0; k--) {
		ref = make_ref(r, rng, pkt);
		if (ref == NULL)
			break;
		if (x & 4) {
			struct dpk_packet *ref2 = make_ref(r, rng, ref);

			if (ref2)
				send(r, rng, ref2);
		}
		send(r, rng, ref);
	}
	/* Static references: the packet is read-only from here on. */
	for (unsigned k = (unsigned)(x >> 3 & 3); k > 0; k--) {
		send(r, rng, dpk_packet_ref_static(pkt));
		atomic_fetch_add_explicit(&r->static_refs, 1, memory_order_relaxed);
	}
	if (x & 32) {
		check(r, pkt);
		dpk_packet_free(pkt);
	} else {
		send(r, rng, pkt);
	}
}

/* Check, then forward (sometimes with a new reference) or free what arrived. */
static unsigned consume(struct run *r, uint64_t *rng, struct dpk_ring *in, bool forward)
{
	struct dpk_packet *pkts[BURST];
	unsigned n = dpk_ring_sc_dequeue_burst(in, pkts, BURST, NULL);
	unsigned nfree = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t x = dpk_test_rand(rng);

		check(r, pkts[i]);
		if (forward && (x & 3) == 0) {
			if ((x & 4) && !dpk_packet_has_ref(pkts[i])) {
				struct dpk_packet *ref = make_ref(r, rng, pkts[i]);

				if (ref)
					send(r, rng, ref);
			}
			send(r, rng, pkts[i]);
			atomic_fetch_add_explicit(&r->forwarded, 1, memory_order_relaxed);
		} else if (x & 8) {
			dpk_packet_free(pkts[i]);
		} else {
			pkts[nfree++] = pkts[i];
		}
	}
	dpk_packet_free_multi(pkts, nfree);
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
		consume(r, &rng, in, true);
	}
	/* Stop sending; drain until every lcore has stopped, then once more. */
	atomic_fetch_add_explicit(&r->stopped, 1, memory_order_acq_rel);
	while (atomic_load_explicit(&r->stopped, memory_order_acquire) < r->n)
		consume(r, &rng, in, false);
	while (consume(r, &rng, in, false) > 0)
		;
	return 0;
}

static void run(unsigned cache_size)
{
	struct dpk_packet_pool_params prm;
	struct dpk_pool_audit_report rep;
	struct run *r = calloc(1, sizeof(*r));
	unsigned id;

	ASSERT_NOT_NULL(r);
	dpk_packet_pool_params_init(&prm);
	prm.count = COUNT;
	prm.buf_size = BUF;
	prm.headroom = HEAD;
	prm.uarea_size = sizeof(struct meta);
	prm.cache_size = cache_size;
	prm.flags = DPK_POOL_F_DEBUG;
	r->pp = dpk_packet_pool_create(&prm);
	ASSERT_NOT_NULL(r->pp);
	r->seed = dpk_test_seed();
	dpk_test_start_lcores("(0-3)@0,(4-7)@1", "(0-7)@0"); /* 8 lcores on 2 CPUs, or on 1 */
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
	dpk_test_note("made %llu refs %llu static %llu checked %llu forwarded %llu dropped %llu",
	              (unsigned long long)atomic_load(&r->made),
	              (unsigned long long)atomic_load(&r->refs),
	              (unsigned long long)atomic_load(&r->static_refs),
	              (unsigned long long)atomic_load(&r->checked),
	              (unsigned long long)atomic_load(&r->forwarded),
	              (unsigned long long)atomic_load(&r->dropped));
	EXPECT_GT(atomic_load(&r->made), 0);
	/* Every buffer back exactly once: none held, none refused as a double free. */
	EXPECT_EQ(COUNT, dpk_pool_avail_count(dpk_packet_pool_to_pool(r->pp)));
	EXPECT_EQ(0, dpk_pool_audit(dpk_packet_pool_to_pool(r->pp), &rep, NULL, NULL));
	EXPECT_EQ(0, rep.in_use);
	EXPECT_EQ(0, rep.refused_puts);
	EXPECT_EQ(0, rep.corrupt_gets);
	EXPECT_EQ(0, dpk_lcore_fini());
	dpk_packet_pool_free(r->pp);
	free(r);
}

static void references_across_lcores(void)
{
	run(32);
}

static void references_across_lcores_no_cache(void)
{
	run(0);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(references_across_lcores),
        DPK_TEST(references_across_lcores_no_cache),
};

DPK_TEST_MAIN(cases)
