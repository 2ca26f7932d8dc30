/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet suite: what ODP's odp_bench_packet measures for allocation, freeing and
 * references, on dpkit's packets, with the unit of every figure in the table, and a
 * cross-lcore case it lacks.
 *
 * All cases use one packet pool with the defaults of dpk_packet_pool_params_init() (2 KiB
 * buffers, per-lcore cache of 256) and 64-byte packets, on the main lcore unless stated.
 *
 *   pool_get_put           dpk_pool_get + dpk_pool_put of one object of the packet pool's
 *                          own object pool: the same objects through the same cache, so
 *                          the next row shows what the packet layer adds on top (the
 *                          length check and metadata stores of alloc; the compare of the
 *                          packet's pool word, "this pool and never referenced", in free)
 *                          (per object); run the two with --interleave for their ratio
 *   alloc_free             dpk_packet_alloc + dpk_packet_free of a never-referenced packet
 *                          (per packet)
 *   alloc_free_multi       one dpk_packet_alloc_multi of a burst, then one
 *                          dpk_packet_free_multi of it; per packet ...
 *   alloc_free_multi_call  ... and the same per call pair (one alloc_multi plus one
 *                          free_multi of `burst` packets), the unit of ODP's *_multi lines
 *   alloc_each_free_multi  `burst` dpk_packet_alloc calls, then one dpk_packet_free_multi
 *   alloc_multi_free_each  one dpk_packet_alloc_multi, then `burst` dpk_packet_free calls
 *                          (both per packet), for bursts of 8 and 32
 *   ref_static_free        dpk_packet_ref_static + dpk_packet_free of the new handle, on a
 *                          packet the body holds throughout (per reference made and freed)
 *   ref_offset_free        dpk_packet_ref at offset 32 + dpk_packet_free of the reference,
 *                          on a held packet (per reference made and freed)
 *   ref_free_remote        a pair: one lcore allocates packets, takes a static reference to
 *                          each and hands the references to the other lcore through an SP/SC
 *                          ring in bursts of 32, then frees its own handles; the other lcore
 *                          frees the references. Whichever free comes last returns the
 *                          buffer. Figures are the freeing lcore's, per packet
 *                          (dequeue and waits included): the pipeline's rate.
 *
 * Alloc and free cannot be timed apart here: the harness times whole body calls, and a body
 * that kept what it allocated would empty the pool within a few samples. So the multi
 * cases pair them three ways: alloc_each_free_multi minus alloc_free_multi is
 * what single allocs cost over alloc_multi, and alloc_multi_free_each minus
 * alloc_free_multi what single frees cost over free_multi. In the reference cases the held
 * packet's count stays at 1 after the first reference, so each iteration is a plain store
 * (the reference by its only holder) and one atomic decrement (the free). has_ref and
 * is_referencing are single loads and get no case.
 *
 * Invariants: every allocation and reference succeeds (the pool is far larger than what
 * the cases hold), ref_offset_free's references have the expected length, the pair's
 * receiver sees every packet in order (by flow tag), and at teardown every buffer is back
 * in the pool (dpk_pool_avail_count() equals its count) and dpk_pool_audit() finds no
 * duplicate, foreign or missing object.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/cycles.h>
#include <dpk/lcore.h>
#include <dpk/packet.h>
#include <dpk/ring.h>

#include "suites.h"

/* Data bytes per packet, ODP's smallest packet length. */
#define LEN 64u
/* Offset of the references made by ref_offset_free (as ODP's packet_ref test). */
#define REF_OFFSET 32u
/* Largest burst of the multi cases, and the hand-off burst of the pair. */
#define BURST_MAX  32u
#define XFER_BURST 32u
/* Slots of the pair's hand-off ring. */
#define XFER_SLOTS 256u

enum pkt_op {
	OP_POOL_GET_PUT,
	OP_ALLOC_FREE,
	OP_MULTI_MULTI, /* alloc_multi, free_multi */
	OP_EACH_MULTI,  /* single allocs, free_multi */
	OP_MULTI_EACH,  /* alloc_multi, single frees */
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
	_Alignas(64) struct dpk_packet *pkts[BURST_MAX];
	uint64_t seq; /* pair: packets sent (role 0) or received (role 1), the next flow tag */
};

struct pkt_state {
	struct dpk_packet_pool *pp;
	const struct pkt_arg *a;
	struct dpk_packet *held; /* reference cases: the packet referenced */
	struct dpk_ring *xfer;   /* pair: the hand-off ring */
	struct pkt_role role[];
};

static int pkt_setup(struct dpk_bench_run *run)
{
	const struct pkt_arg *a = run->c->arg;
	size_t size = sizeof(struct pkt_state) + run->nroles * sizeof(struct pkt_role);
	struct dpk_packet_pool_params prm;
	struct pkt_state *st;
	int err;

	/* The per-lcore cache is used only if the caller is an lcore. */
	if (run->c->kind == DPK_BENCH_SINGLE && dpk_lcore_id() == DPK_LCORE_ANY)
		dpk_bench_fail(run, "the main thread is not an lcore: it has no per-lcore cache");
	if (posix_memalign((void **)&st, 64, size) != 0)
		return -ENOMEM;
	memset(st, 0, size);
	st->a = a;
	dpk_packet_pool_params_init(&prm);
	st->pp = dpk_packet_pool_create(&prm);
	if (!st->pp) {
		err = errno ? errno : ENOMEM;
		goto out_free_state;
	}
	if (a->op == OP_REF_STATIC || a->op == OP_REF_OFFSET) {
		st->held = dpk_packet_alloc(st->pp, LEN);
		if (!st->held) {
			err = errno ? errno : ENOMEM;
			goto out_free_pool;
		}
	}
	if (a->op == OP_REMOTE) {
		st->xfer = dpk_ring_create(sizeof(void *), XFER_SLOTS,
		                           DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
		if (!st->xfer) {
			err = errno ? errno : ENOMEM;
			goto out_free_pool;
		}
	}
	run->state = st;
	return 0;

out_free_pool:
	dpk_packet_pool_free(st->pp);
out_free_state:
	free(st);
	return -err;
}

static void pkt_teardown(struct dpk_bench_run *run)
{
	struct pkt_state *st = run->state;
	struct dpk_pool *p = dpk_packet_pool_to_pool(st->pp);
	struct dpk_pool_audit_report rep;
	unsigned avail, count = dpk_pool_count(p);
	int rc;

	dpk_packet_free(st->held);
	if (st->xfer) {
		struct dpk_packet *pkt;
		uint64_t left = 0;

		/* References sent when the stop flag rose and never received. */
		while (dpk_ring_sc_dequeue_bulk(st->xfer, &pkt, 1, NULL) == 1) {
			dpk_packet_free(pkt);
			left++;
		}
		if (st->role[0].seq != st->role[1].seq + left)
			dpk_bench_fail(
			        run, "%llu packets sent, %llu received, %llu left in the ring",
			        (unsigned long long)st->role[0].seq,
			        (unsigned long long)st->role[1].seq, (unsigned long long)left);
		dpk_ring_free(st->xfer);
	}
	avail = dpk_pool_avail_count(p);
	rc = dpk_pool_audit(p, &rep, NULL, NULL);
	if (avail != count)
		dpk_bench_fail(run, "%u of %u packet buffers back in the pool at the end", avail,
		               count);
	else if (rc != 0 || rep.in_use || rep.duplicates || rep.foreign)
		dpk_bench_fail(run, "pool audit: %d, %u held, %u duplicated, %u foreign", rc,
		               rep.in_use, rep.duplicates, rep.foreign);
	dpk_packet_pool_free(st->pp);
	free(st);
}

static uint64_t body_pool_get_put(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct dpk_pool *p = dpk_packet_pool_to_pool(st->pp);
	void *obj;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		if (dpk_pool_get(p, &obj) != 0) {
			dpk_bench_fail(run, "pool get failed");
			return i;
		}
		DPK_BENCH_KEEP(obj);
		dpk_pool_put(p, obj);
	}
	return n;
}

static uint64_t body_alloc_free(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct dpk_packet_pool *pp = st->pp;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		struct dpk_packet *pkt = dpk_packet_alloc(pp, LEN);

		if (!pkt) {
			dpk_bench_fail(run, "alloc failed: %s", strerror(errno));
			return i;
		}
		DPK_BENCH_KEEP(pkt);
		dpk_packet_free(pkt);
	}
	return n;
}

/* Allocate a burst of @p b packets into @p pkts, with one alloc_multi or b single allocs.
 * True when all came; otherwise those that came are freed. */
static bool alloc_burst(struct dpk_bench_run *run, struct dpk_packet_pool *pp,
                        struct dpk_packet **pkts, unsigned b, bool multi)
{
	if (multi) {
		int got = dpk_packet_alloc_multi(pp, LEN, pkts, b);

		if (got == (int)b)
			return true;
		dpk_bench_fail(run, "alloc_multi of %u returned %d", b, got);
		if (got > 0)
			dpk_packet_free_multi(pkts, (unsigned)got);
		return false;
	}
	for (unsigned i = 0; i < b; i++) {
		pkts[i] = dpk_packet_alloc(pp, LEN);
		if (!pkts[i]) {
			dpk_bench_fail(run, "alloc %u of a burst of %u failed", i, b);
			dpk_packet_free_multi(pkts, i);
			return false;
		}
	}
	return true;
}

/* The multi cases: a burst allocated, then freed, each half with one multi call or with
 * single calls. A burst counts as burst_ops operations: its packets, or one call pair. */
static uint64_t body_multi(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct dpk_packet **pkts = st->role[role].pkts;
	const unsigned b = st->a->burst, ops = st->a->burst_ops;
	const bool multi_alloc = st->a->op != OP_EACH_MULTI;
	const bool multi_free = st->a->op != OP_MULTI_EACH;

	for (uint64_t done = 0; done < n; done += ops) {
		if (!alloc_burst(run, st->pp, pkts, b, multi_alloc))
			return done;
		if (multi_free) {
			dpk_packet_free_multi(pkts, b);
		} else {
			for (unsigned i = 0; i < b; i++)
				dpk_packet_free(pkts[i]);
		}
	}
	return n;
}

static uint64_t body_ref_static(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct dpk_packet *held = st->held;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		struct dpk_packet *ref = dpk_packet_ref_static(held);

		if (ref != held) {
			dpk_bench_fail(run, "ref_static returned %p for %p", (void *)ref,
			               (void *)held);
			return i;
		}
		dpk_packet_free(ref);
	}
	return n;
}

static uint64_t body_ref_offset(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct dpk_packet *held = st->held;

	(void)role;
	for (uint64_t i = 0; i < n; i++) {
		struct dpk_packet *ref = dpk_packet_ref(held, REF_OFFSET);

		if (!ref || dpk_packet_len(ref) != LEN - REF_OFFSET) {
			dpk_bench_fail(run, "ref at %u: %s", REF_OFFSET,
			               ref ? "wrong length" : strerror(errno));
			dpk_packet_free(ref);
			return i;
		}
		dpk_packet_free(ref);
	}
	return n;
}

/*
 * The pair. Role 0 allocates a burst, tags each packet with its sequence number, takes a
 * static reference to each, enqueues the references and frees its own handles; role 1
 * dequeues a burst, checks the tags and frees. The ring orders the tag and the reference
 * count before role 1's reads; the packets' counts order the two frees.
 */
static uint64_t body_remote(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	struct pkt_state *st = run->state;
	struct pkt_role *pr = &st->role[role];
	struct dpk_packet **pkts = pr->pkts;
	uint64_t done = 0;

	if (role == 0) {
		while (done < n) {
			if (!alloc_burst(run, st->pp, pkts, XFER_BURST, false))
				return done;
			for (unsigned i = 0; i < XFER_BURST; i++) {
				/* Cannot fail: the packet has no other holder yet. */
				(void)dpk_packet_flow_tag_set(pkts[i], (uint32_t)(pr->seq + i));
				(void)dpk_packet_ref_static(pkts[i]);
			}
			while (dpk_ring_sp_enqueue_bulk(st->xfer, pkts, XFER_BURST, NULL) == 0) {
				if (dpk_bench_stopped(run)) {
					/* Both handles are still here: drop both. */
					dpk_packet_free_multi(pkts, XFER_BURST);
					dpk_packet_free_multi(pkts, XFER_BURST);
					return done;
				}
				dpk_pause();
			}
			for (unsigned i = 0; i < XFER_BURST; i++)
				dpk_packet_free(pkts[i]);
			pr->seq += XFER_BURST;
			done += XFER_BURST;
		}
	} else {
		while (done < n) {
			while (dpk_ring_sc_dequeue_bulk(st->xfer, pkts, XFER_BURST, NULL) == 0) {
				if (dpk_bench_stopped(run))
					return done;
				dpk_pause();
			}
			for (unsigned i = 0; i < XFER_BURST; i++) {
				uint32_t tag = dpk_packet_flow_tag(pkts[i]);

				if (tag != (uint32_t)(pr->seq + i)) {
					dpk_bench_fail(run, "expected packet %u, got %u",
					               (uint32_t)(pr->seq + i), tag);
					dpk_packet_free_multi(pkts + i, XFER_BURST - i);
					return done;
				}
				dpk_packet_free(pkts[i]);
			}
			pr->seq += XFER_BURST;
			done += XFER_BURST;
		}
	}
	return done;
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
		.desc = "one alloc_multi + one free_multi of a burst; per call pair, not per "     \
		        "packet",                                                                  \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_CALL, .params = {{"burst", b}},         \
		.setup = pkt_setup, .body = body_multi, .teardown = pkt_teardown,                  \
		.arg = PKT_ARG(OP_MULTI_MULTI, b, 1)                                               \
	}

#define MULTI_CASES(b)                                                                             \
	MULTI_CASE("alloc_free_multi", "alloc_multi + free_multi of a burst; per packet",          \
	           OP_MULTI_MULTI, b),                                                             \
	        MULTI_CALL_CASE(b),                                                                \
	        MULTI_CASE("alloc_each_free_multi",                                                \
	                   "a burst of single allocs + one free_multi; per packet", OP_EACH_MULTI, \
	                   b),                                                                     \
	        MULTI_CASE("alloc_multi_free_each",                                                \
	                   "one alloc_multi + a burst of single frees; per packet", OP_MULTI_EACH, \
	                   b)

static const struct dpk_bench_case packet_cases[] = {
        {.name = "pool_get_put",
         .group = "pool_vs_packet",
         .desc = "get + put of one object of the packet pool's own pool (same cache)",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_OBJECT,
         .setup = pkt_setup,
         .body = body_pool_get_put,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_POOL_GET_PUT, 1, 1)},
        {.name = "alloc_free",
         .group = "pool_vs_packet",
         .desc = "alloc + free of one never-referenced packet",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_PACKET,
         .setup = pkt_setup,
         .body = body_alloc_free,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_ALLOC_FREE, 1, 1)},
        MULTI_CASES(8),
        MULTI_CASES(32),
        {.name = "ref_static_free",
         .desc = "one handle made by ref_static of a held packet, then freed (one iteration)",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_ITERATION,
         .setup = pkt_setup,
         .body = body_ref_static,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_REF_STATIC, 1, 1)},
        {.name = "ref_offset_free",
         .desc = "one reference made by ref at an offset of a held packet, then freed (one "
                 "iteration)",
         .kind = DPK_BENCH_SINGLE,
         .unit = DPK_UNIT_ITERATION,
         .params = {{"offset", REF_OFFSET}},
         .setup = pkt_setup,
         .body = body_ref_offset,
         .teardown = pkt_teardown,
         .arg = PKT_ARG(OP_REF_OFFSET, 1, 1)},
        {.name = "ref_free_remote",
         .desc = "static reference freed on another lcore than the packet's holder; per packet",
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

const struct dpk_bench_suite dpk_suite_packet = {
        .name = "packet",
        .desc = "dpkit packet alloc/free, multi calls, references, cross-lcore free "
                "(as ODP odp_bench_packet)",
        .cases = packet_cases,
        .ncases = sizeof(packet_cases) / sizeof(packet_cases[0]),
        .default_on = true,
};
