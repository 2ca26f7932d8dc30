/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpdk_mbuf suite: DPDK's packet buffers (rte_mbuf.h) through the packet suite's
 * cases, each with its twin's name, group, parameters and unit. One pool from
 * rte_pktmbuf_pool_create() as the twin's (4096 buffers of 2 KiB with 128 bytes of
 * headroom, per-lcore cache of 256) and 64-byte packets: DPDK allocates empty mbufs, so
 * each allocation is followed by rte_pktmbuf_append() of 64 bytes, what dpk_packet_alloc()
 * of 64 bytes does in one call.
 *
 *   pool_get_put           rte_mempool_get + rte_mempool_put of one mbuf of the pool (the
 *                          same cache): what the mbuf layer adds shows in the next row
 *   alloc_free             rte_pktmbuf_alloc + append + rte_pktmbuf_free (per packet)
 *   alloc_free_multi       rte_pktmbuf_alloc_bulk of a burst + an append to each, then
 *                          rte_pktmbuf_free_bulk of it; per packet ...
 *   alloc_free_multi_call  ... and per call pair, the unit of ODP's *_multi lines
 *   alloc_each_free_multi  `burst` single allocs, then one rte_pktmbuf_free_bulk
 *   alloc_multi_free_each  one alloc_bulk, then `burst` rte_pktmbuf_free calls (both per
 *                          packet), for bursts of 8 and 32
 *   ref_static_free        rte_mbuf_refcnt_update(+1) + rte_pktmbuf_free of a held packet:
 *                          a second handle to the same buffer made and dropped
 *   ref_offset_free        rte_pktmbuf_clone of a held packet + rte_pktmbuf_adj(32) +
 *                          rte_pktmbuf_free of the clone: DPDK's reference, an indirect
 *                          mbuf attached to the held one (per reference made and freed)
 *   ref_free_remote        a pair: one lcore allocates packets, tags each (hash.usr), adds
 *                          a reference to each and hands them to the other lcore through
 *                          an SP/SC rte_ring in bursts of 32, then frees its own handles;
 *                          the other frees what it receives, per packet
 *
 * Invariants: every allocation and clone succeeds, clones have the expected length, the
 * pair's receiver sees every packet in order, and at teardown the caches flushed, every
 * buffer is back, none twice, none foreign (dpk_dpdk_pool_check()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <dpk/cycles.h>

#include "dpdk_eal.h"
#include "peers.h"

/* The packet suite's sizes (bench/suites/packet.c). */
#define COUNT      4096u
#define CACHE      256u
#define DATA_ROOM  2048u /* the buffer, headroom included */
#define LEN        64u
#define REF_OFFSET 32u
#define BURST_MAX  32u
#define XFER_BURST 32u
#define XFER_SLOTS 256u

enum pkt_op {
	OP_POOL_GET_PUT,
	OP_ALLOC_FREE,
	OP_MULTI_MULTI, /* alloc_bulk, free_bulk */
	OP_EACH_MULTI,  /* single allocs, free_bulk */
	OP_MULTI_EACH,  /* alloc_bulk, single frees */
	OP_REF_STATIC,
	OP_REF_OFFSET,
	OP_REMOTE,
};

struct pkt_arg {
	enum pkt_op op;
	unsigned burst;     /* packets per multi call (multi cases) */
	unsigned burst_ops; /* counted operations per burst: burst (per packet) or 1 (per call) */
};

/* One role's packets, on lines of their own. */
struct pkt_role {
	_Alignas(64) struct rte_mbuf *pkts[BURST_MAX];
	uint64_t seq; /* pair: packets sent (role 0) or received (role 1), the next tag */
};

struct pkt_state {
	struct rte_mempool *mp;
	const struct pkt_arg *a;
	struct rte_mbuf *held; /* reference cases: the packet referenced */
	struct rte_ring *xfer; /* pair: the hand-off ring, in the case's arena */
	struct pkt_role role[];
};

/* An allocated mbuf made a 64-byte packet; false when it has no room (it cannot). */
static inline bool pkt_fill(struct rte_mbuf *m)
{
	return rte_pktmbuf_append(m, LEN) != NULL;
}

static struct rte_ring *xfer_ring(struct dpk_bench_run *run)
{
	ssize_t size = rte_ring_get_memsize(XFER_SLOTS);
	struct rte_ring *r = size > 0 ? dpk_bench_alloc(run, (size_t)size, 64) : NULL;

	if (r && rte_ring_init(r, "dpk-xfer", XFER_SLOTS, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0)
		return NULL;
	return r;
}

static int pkt_setup(struct dpk_bench_run *run)
{
	const struct pkt_arg *a = run->c->arg;
	size_t size = sizeof(struct pkt_state) + run->nroles * sizeof(struct pkt_role);
	char name[RTE_MEMPOOL_NAMESIZE];
	struct pkt_state *st;
	int err = ENOMEM, rc;

	if (!(st = dpk_dpdk_state(run, size, &rc)))
		return rc;
	st->a = a;
	dpk_dpdk_name(name, sizeof(name), "mb");
	st->mp = rte_pktmbuf_pool_create(name, COUNT, CACHE, 0, DATA_ROOM, SOCKET_ID_ANY);
	if (!st->mp) {
		err = rte_errno ? rte_errno : ENOMEM;
		goto out_free_state;
	}
	if (a->op == OP_REF_STATIC || a->op == OP_REF_OFFSET) {
		st->held = rte_pktmbuf_alloc(st->mp);
		if (!st->held || !pkt_fill(st->held))
			goto out_free_pool;
	}
	if (a->op == OP_REMOTE && !(st->xfer = xfer_ring(run)))
		goto out_free_pool;
	run->state = st;
	return 0;

out_free_pool:
	rte_pktmbuf_free(st->held);
	rte_mempool_free(st->mp);
out_free_state:
	free(st);
	return -err;
}

static void pkt_teardown(struct dpk_bench_run *run)
{
	struct pkt_state *st = run->state;

	rte_pktmbuf_free(st->held);
	if (st->xfer) {
		struct rte_mbuf *m;
		uint64_t left = 0;

		/* References sent when the stop flag rose and never received. */
		while (rte_ring_sc_dequeue(st->xfer, (void **)&m) == 0) {
			rte_pktmbuf_free(m);
			left++;
		}
		if (st->role[0].seq != st->role[1].seq + left)
			dpk_bench_fail(
			        run, "%llu packets sent, %llu received, %llu left in the ring",
			        (unsigned long long)st->role[0].seq,
			        (unsigned long long)st->role[1].seq, (unsigned long long)left);
	}
	dpk_dpdk_pool_check(run, st->mp, COUNT);
	rte_mempool_free(st->mp);
	free(st);
}

static uint64_t body_pool_get_put(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct rte_mempool *mp = st->mp;
	void *obj;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		if (rte_mempool_get(mp, &obj) != 0) {
			dpk_bench_fail(run, "mempool get failed");
			return i;
		}
		DPK_BENCH_KEEP(obj);
		rte_mempool_put(mp, obj);
	}
	return n;
}

static uint64_t body_alloc_free(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct rte_mempool *mp = st->mp;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		if (!m || !pkt_fill(m)) {
			dpk_bench_fail(run, "alloc of a %u-byte packet failed", LEN);
			rte_pktmbuf_free(m);
			return i;
		}
		DPK_BENCH_KEEP(m);
		rte_pktmbuf_free(m);
	}
	return n;
}

/* Allocate a burst of @p b packets into @p pkts, with one alloc_bulk or b single allocs.
 * True when all came; otherwise those that came are freed. */
static bool alloc_burst(struct dpk_bench_run *run, struct rte_mempool *mp, struct rte_mbuf **pkts,
                        unsigned b, bool multi)
{
	if (multi) {
		int rc = rte_pktmbuf_alloc_bulk(mp, pkts, b);

		if (rc != 0) {
			dpk_bench_fail(run, "alloc_bulk of %u returned %d", b, rc);
			return false;
		}
		for (unsigned i = 0; i < b; i++)
			(void)pkt_fill(
			        pkts[i]); /* cannot fail: the buffer has 1920 bytes of room */
		return true;
	}
	for (unsigned i = 0; i < b; i++) {
		pkts[i] = rte_pktmbuf_alloc(mp);
		if (!pkts[i] || !pkt_fill(pkts[i])) {
			dpk_bench_fail(run, "alloc %u of a burst of %u failed", i, b);
			rte_pktmbuf_free_bulk(pkts, pkts[i] ? i + 1 : i);
			return false;
		}
	}
	return true;
}

/* The multi cases: a burst allocated, then freed, each half with one bulk call or with
 * single calls. A burst counts as burst_ops operations: its packets, or one call pair. */
static uint64_t body_multi(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct rte_mbuf **pkts = st->role[role].pkts;
	const unsigned b = st->a->burst, ops = st->a->burst_ops;
	const bool multi_alloc = st->a->op != OP_EACH_MULTI;
	const bool multi_free = st->a->op != OP_MULTI_EACH;

	for (uint64_t done = 0; done < n; done += ops) {
		if (!alloc_burst(run, st->mp, pkts, b, multi_alloc))
			return done;
		if (multi_free) {
			rte_pktmbuf_free_bulk(pkts, b);
		} else {
			for (unsigned i = 0; i < b; i++)
				rte_pktmbuf_free(pkts[i]);
		}
	}
	return n;
}

static uint64_t body_ref_static(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct rte_mbuf *held = st->held;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		rte_mbuf_refcnt_update(held, 1);
		rte_pktmbuf_free(held);
	}
	if (rte_mbuf_refcnt_read(held) != 1)
		dpk_bench_fail(run, "the held packet's count is %u, not 1",
		               (unsigned)rte_mbuf_refcnt_read(held));
	return n;
}

static uint64_t body_ref_offset(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct rte_mbuf *held = st->held;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		struct rte_mbuf *ref = rte_pktmbuf_clone(held, st->mp);

		if (!ref || !rte_pktmbuf_adj(ref, REF_OFFSET) ||
		    rte_pktmbuf_pkt_len(ref) != LEN - REF_OFFSET) {
			dpk_bench_fail(run, "clone at %u: %s", REF_OFFSET,
			               ref ? "wrong length" : "no mbuf");
			rte_pktmbuf_free(ref);
			return i;
		}
		rte_pktmbuf_free(ref);
	}
	return n;
}

/* The pair's sender: a burst allocated, tagged, referenced, handed over, its own handles
 * freed. */
static uint64_t remote_send(struct dpk_bench_run *run, struct pkt_state *st, struct pkt_role *pr,
                            uint64_t n)
{
	struct rte_mbuf **pkts = pr->pkts;
	uint64_t done = 0;

	while (done < n) {
		if (!alloc_burst(run, st->mp, pkts, XFER_BURST, false))
			return done;
		for (unsigned i = 0; i < XFER_BURST; i++) {
			pkts[i]->hash.usr = (uint32_t)(pr->seq + i);
			rte_mbuf_refcnt_update(pkts[i], 1);
		}
		while (rte_ring_sp_enqueue_bulk(st->xfer, (void **)pkts, XFER_BURST, NULL) == 0) {
			if (dpk_bench_stopped(run)) {
				/* Both handles are still here: drop both. */
				rte_pktmbuf_free_bulk(pkts, XFER_BURST);
				rte_pktmbuf_free_bulk(pkts, XFER_BURST);
				return done;
			}
			dpk_pause();
		}
		for (unsigned i = 0; i < XFER_BURST; i++)
			rte_pktmbuf_free(pkts[i]);
		pr->seq += XFER_BURST;
		done += XFER_BURST;
	}
	return done;
}

/* The pair's receiver: a burst taken, its tags checked, each packet freed. */
static uint64_t remote_free(struct dpk_bench_run *run, struct pkt_state *st, struct pkt_role *pr,
                            uint64_t n)
{
	struct rte_mbuf **pkts = pr->pkts;
	uint64_t done = 0;

	while (done < n) {
		while (rte_ring_sc_dequeue_bulk(st->xfer, (void **)pkts, XFER_BURST, NULL) == 0) {
			if (dpk_bench_stopped(run))
				return done;
			dpk_pause();
		}
		for (unsigned i = 0; i < XFER_BURST; i++) {
			uint32_t tag = pkts[i]->hash.usr;

			if (tag != (uint32_t)(pr->seq + i)) {
				dpk_bench_fail(run, "expected packet %u, got %u",
				               (uint32_t)(pr->seq + i), tag);
				rte_pktmbuf_free_bulk(pkts + i, XFER_BURST - i);
				return done;
			}
			rte_pktmbuf_free(pkts[i]);
		}
		pr->seq += XFER_BURST;
		done += XFER_BURST;
	}
	return done;
}

static uint64_t body_remote(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;

	if (!dpk_dpdk_role(run))
		return 0;
	return role == 0 ? remote_send(run, st, &st->role[0], n)
	                 : remote_free(run, st, &st->role[1], n);
}

#define PKT_ARG(o, b, k) (&(const struct pkt_arg){.op = (o), .burst = (b), .burst_ops = (k)})

#define MULTI_CASE(nm, dsc, o, b)                                                                  \
	{                                                                                          \
		.name = nm, .desc = dsc, .kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_PACKET,        \
		.params = {{"burst", b}}, .ops_multiple = b, .setup = pkt_setup,                   \
		.body = body_multi, .teardown = pkt_teardown, .arg = PKT_ARG(o, b, b)              \
	}

#define MULTI_CALL_CASE(b)                                                                         \
	{                                                                                          \
		.name = "alloc_free_multi_call",                                                   \
		.desc = "one alloc_bulk + one free_bulk of a burst; per call pair, not per "       \
		        "packet",                                                                  \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_CALL, .params = {{"burst", b}},         \
		.setup = pkt_setup, .body = body_multi, .teardown = pkt_teardown,                  \
		.arg = PKT_ARG(OP_MULTI_MULTI, b, 1)                                               \
	}

#define MULTI_CASES(b)                                                                             \
	MULTI_CASE("alloc_free_multi",                                                             \
	           "rte_pktmbuf_alloc_bulk + free_bulk of a burst; per packet", OP_MULTI_MULTI,    \
	           b),                                                                             \
	        MULTI_CALL_CASE(b),                                                                \
	        MULTI_CASE("alloc_each_free_multi",                                                \
	                   "a burst of rte_pktmbuf_alloc + one free_bulk; per packet",             \
	                   OP_EACH_MULTI, b),                                                      \
	        MULTI_CASE("alloc_multi_free_each",                                                \
	                   "one alloc_bulk + a burst of rte_pktmbuf_free; per packet",             \
	                   OP_MULTI_EACH, b)

static const struct dpk_bench_case dpdk_mbuf_cases[] = {
        {.name = "pool_get_put",
         .group = "pool_vs_packet",
         .desc = "rte_mempool get + put of one mbuf of the pool (same cache)",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_OBJECT,
         .setup = pkt_setup,
         .body = body_pool_get_put,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_POOL_GET_PUT, 1, 1)},
        {.name = "alloc_free",
         .group = "pool_vs_packet",
         .desc = "rte_pktmbuf_alloc + append of 64 bytes + rte_pktmbuf_free",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_PACKET,
         .setup = pkt_setup,
         .body = body_alloc_free,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_ALLOC_FREE, 1, 1)},
        MULTI_CASES(8),
        MULTI_CASES(32),
        {.name = "ref_static_free",
         .desc = "a second handle to a held mbuf (refcnt_update) dropped by rte_pktmbuf_free",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_ITERATION,
         .setup = pkt_setup,
         .body = body_ref_static,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_REF_STATIC, 1, 1)},
        {.name = "ref_offset_free",
         .desc = "rte_pktmbuf_clone of a held mbuf, adj to an offset, then freed",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_ITERATION,
         .params = {{"offset", REF_OFFSET}},
         .setup = pkt_setup,
         .body = body_ref_offset,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_REF_OFFSET, 1, 1)},
        {.name = "ref_free_remote",
         .desc = "a referenced mbuf freed on another lcore than its holder's; per packet",
         .kind = DPK_BENCH_PAIR,
         .unit = DPK_UNIT_PACKET,
         .params = {{"burst", XFER_BURST}},
         .ops_multiple = XFER_BURST,
         .counted_roles = 2,
         .role_names = {"holder", "freer"},
         .setup = pkt_setup,
         .body = body_remote,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_REMOTE, XFER_BURST, XFER_BURST)},
};

const struct dpk_bench_suite dpk_suite_dpdk_mbuf = {
        .name = "dpdk_mbuf",
        .desc = "DPDK mbuf alloc/free, bulk calls, clones, cross-lcore free through the "
                "packet suite's cases",
        .cases = dpdk_mbuf_cases,
        .ncases = sizeof(dpdk_mbuf_cases) / sizeof(dpdk_mbuf_cases[0]),
        .default_on = false,
};
