/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_cases_sync.h - the ring cases of the RTS and HTS sync modes, and the pair cases in
 * which both lcores are producers and consumers of one ring (included by ring_cases.h).
 *
 * An implementation gives, for M = rts and hts, bulk and burst operations as for the other
 * modes; RING_IMPLEMENT() (ring_cases.h) expands RING_SYNC_BODIES(prefix, M, ...) for each
 * and RING_SHARED_BODY(prefix_mpmc_shared, ...) with the MP/MC bulk calls.
 *
 * Cases (8-byte elements; one operation = one element enqueued and dequeued):
 *   M_bulk / M_burst     n in {1, 8, 32}, one lcore, as spsc_bulk and the rest
 *   M_pair_bulk          producer lcore -> consumer lcore, n in {1, 8, 32}; figure = the
 *                        consumer's cost per element received
 *   M_pair_burst         the same with burst calls, which may move fewer than n
 *   M_pair_shared        mpmc, rts and hts: both lcores enqueue a bulk of n then dequeue
 *                        one, on a ring prefilled to half; figure = per element of either
 * The shared cases carry DPK_BENCH_ON_OVERSUB, so a default run also puts them on oversub:
 * there the two lcores share one CPU, and a thread preempted between its reservation and
 * its publication holds up the other's calls on an MP/MC or HTS side until it runs again
 * (an RTS side lets the other go on until the head is htd_max past the tail). The
 * producer/consumer pairs, with one thread per side, do not meet that cost, and run on
 * oversub only when --placement names it.
 */
#ifndef DPK_BENCH_RING_CASES_SYNC_H
#define DPK_BENCH_RING_CASES_SYNC_H

/* Number the next @p k elements of @p buf (of @p words words each) from @p seq, so that a
 * burst that moves only some of them still hands on a numbered run. */
static inline void ring_number(uint64_t *buf, unsigned words, unsigned k, uint64_t seq)
{
	for (unsigned i = 0; i < k; i++)
		buf[(size_t)i * words] = seq + i;
}

/* Pair with burst calls: role 0 produces, role 1 consumes; a call moves 1..n. */
#define RING_PAIR_BURST_BODY(NAME, ENQS, DEQS)                                                     \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)                 \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n, w = st->words;                                        \
		uint64_t done = 0;                                                                 \
		unsigned k;                                                                        \
		while (done < n) {                                                                 \
			const unsigned want = n - done < b ? (unsigned)(n - done) : b;             \
			if (role == 0) {                                                           \
				ring_number(rr->in, w, want, rr->seq);                             \
				RING_WAIT_WHILE(run, (k = ENQS(&u, rr->in, want)) == 0, done)      \
				rr->enq += k;                                                      \
			} else {                                                                   \
				RING_WAIT_WHILE(run, (k = DEQS(&u, rr->out, want)) == 0, done)     \
				RING_RECEIVED_OR_FAIL(                                             \
				        run, rr, k <= want && ring_check(rr->out, w, k, rr->seq),  \
				        done)                                                      \
				rr->deq += k;                                                      \
			}                                                                          \
			rr->seq += k;                                                              \
			done += k;                                                                 \
		}                                                                                  \
		return done;                                                                       \
	}

/* The bodies of sync mode M (rts or hts): one-lcore bulk and burst at every code offset,
 * the pairs of bulk and of burst calls, and the shared pair. */
#define RING_SYNC_BODIES(P, M, ENQB, DEQB, ENQS, DEQS)                                             \
	RING_CALLS_LAYOUTS(P##_##M##_bulk, ENQB, DEQB, "bulk")                                     \
	RING_CALLS_LAYOUTS(P##_##M##_burst, ENQS, DEQS, "burst")                                   \
	RING_PAIR_BODY(P##_##M##_pair, ENQB, DEQB)                                                 \
	RING_PAIR_BURST_BODY(P##_##M##_pairburst, ENQS, DEQS)                                      \
	RING_SHARED_BODY(P##_##M##_shared, ENQB, DEQB)

#define RING_CASE_PAIR_BURST(P, SU, TD, m, M, nn)                                                  \
	{                                                                                          \
		.name = #m "_pair_burst",                                                          \
		.desc = "elements handed from a producer to a consumer lcore, burst calls",        \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT,                                  \
		.params = {{"esize", 8}, {"n", nn}}, .ops_multiple = nn, .counted_roles = 2,       \
		.role_names = {"producer", "consumer"}, .setup = SU, .body = P##_##m##_pairburst,  \
		.teardown = TD, .arg = RING_ARG(M, RING_OP_BURST, 8, nn)                           \
	}

#define RING_CASE_SHARED(P, SU, TD, m, M, nn)                                                      \
	{                                                                                          \
		.name = #m "_pair_shared",                                                         \
		.desc = "both lcores bulk-enqueue then bulk-dequeue one ring, prefilled to half",  \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT,                                  \
		.params = {{"esize", 8}, {"n", nn}}, .ops_multiple = nn, .setup = SU,              \
		.body = P##_##m##_shared, .teardown = TD,                                          \
		.arg = RING_ARG_FILL(M, RING_OP_BULK, 8, nn, RING_FILL_HALF),                      \
		.flags = DPK_BENCH_ON_OVERSUB                                                      \
	}

/* One sync mode's cases. */
#define RING_CASES_SYNC_MODE(P, SU, TD, m, M)                                                      \
	RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, 8, 1),                                \
	        RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, 8, 8),                        \
	        RING_CASE_CALLS(P, SU, TD, m, M, bulk, RING_OP_BULK, 8, 32),                       \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, 8, 1),                      \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, 8, 8),                      \
	        RING_CASE_CALLS(P, SU, TD, m, M, burst, RING_OP_BURST, 8, 32),                     \
	        RING_CASE_PAIR(P, SU, TD, m, M, 8, 1), RING_CASE_PAIR(P, SU, TD, m, M, 8, 8),      \
	        RING_CASE_PAIR(P, SU, TD, m, M, 8, 32), RING_CASE_PAIR_BURST(P, SU, TD, m, M, 1),  \
	        RING_CASE_PAIR_BURST(P, SU, TD, m, M, 8),                                          \
	        RING_CASE_PAIR_BURST(P, SU, TD, m, M, 32), RING_CASE_SHARED(P, SU, TD, m, M, 8),   \
	        RING_CASE_SHARED(P, SU, TD, m, M, 32)

/* The RTS and HTS cases, and MP/MC's shared pair. */
#define RING_CASES_SYNC(P, SU, TD)                                                                 \
	RING_CASES_SYNC_MODE(P, SU, TD, rts, RING_RTS),                                            \
	        RING_CASES_SYNC_MODE(P, SU, TD, hts, RING_HTS),                                    \
	        RING_CASE_SHARED(P, SU, TD, mpmc, RING_MPMC, 8),                                   \
	        RING_CASE_SHARED(P, SU, TD, mpmc, RING_MPMC, 32)

#endif /* DPK_BENCH_RING_CASES_SYNC_H */
