/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_cases_zc.h - zero copy against copying, by element size; included by ring_cases.h.
 *
 * An implementation gives four zero-copy operations on its SP/SC ring, taking a struct
 * ring_use pointer: ZPS(u, n, z) reserves n slots (bulk) and describes them in struct
 * ring_zc *z, returning n or 0; ZPF(u, n) publishes them; ZCS(u, n, z) and ZCF(u, n) do
 * the same on the consumer side. RING_IMPLEMENT() (ring_cases.h) expands
 * RING_ZC_BODIES(prefix, ...) with those and the SP/SC bulk calls.
 *
 * Every case builds each element in full (every 8-byte word written) and uses it in full
 * (every word read, the first checked against its sequence number): with zero copy the
 * producer builds in the ring's slots and the consumer reads them there; copying, the
 * producer builds in its array, the enqueue copies it in and the dequeue copies it out to
 * the consumer's array, where it is read. So the two differ by the two copies and by the
 * calls that replace them, and their ratio at each size shows where zero copy starts to
 * pay. Cases (SP/SC ring, n = 8 a call, esize in {16, 32, 64, 128}; one operation = one
 * element built, handed on and used):
 *   spsc_zc_bulk / spsc_copy_bulk      one lcore
 *   spsc_pair_zc / spsc_pair_copy      producer lcore -> consumer lcore; figure = the
 *                                      consumer's cost per element
 */
#ifndef DPK_BENCH_RING_CASES_ZC_H
#define DPK_BENCH_RING_CASES_ZC_H

#include <stdbool.h>

/* The slots of a zero-copy start: n1 from p1 on, the rest from p2 on. */
struct ring_zc {
	void *p1, *p2;
	unsigned n1;
};

/* Build @p k elements of @p w words at @p e, numbered from @p seq. */
static inline void ring_build(uint64_t *e, unsigned k, unsigned w, uint64_t seq)
{
	for (unsigned i = 0; i < k; i++, e += w) {
		e[0] = seq + i;
		for (unsigned j = 1; j < w; j++)
			e[j] = seq + j;
	}
}

/* Read @p k elements of @p w words at @p e: *bad set when one is out of sequence from
 * @p seq; returns the other words folded together. */
static inline uint64_t ring_use(const uint64_t *e, unsigned k, unsigned w, uint64_t seq, bool *bad)
{
	uint64_t acc = 0;

	for (unsigned i = 0; i < k; i++, e += w) {
		*bad |= e[0] != seq + i;
		for (unsigned j = 1; j < w; j++)
			acc ^= e[j];
	}
	return acc;
}

static inline void ring_zc_build(const struct ring_zc *z, unsigned k, unsigned w, uint64_t seq)
{
	const unsigned k1 = k < z->n1 ? k : z->n1;

	ring_build(z->p1, k1, w, seq);
	if (k > k1)
		ring_build(z->p2, k - k1, w, seq + k1);
}

static inline uint64_t ring_zc_use(const struct ring_zc *z, unsigned k, unsigned w, uint64_t seq,
                                   bool *bad)
{
	const unsigned k1 = k < z->n1 ? k : z->n1;
	uint64_t acc = ring_use(z->p1, k1, w, seq, bad);

	if (k > k1)
		acc ^= ring_use(z->p2, k - k1, w, seq + k1, bad);
	return acc;
}

/* The state of a one-lcore zero-copy or copy body, and its end. */
#define RING_ZC_LOCALS                                                                             \
	struct ring_state *st = run->state;                                                        \
	struct ring_role *rr = &st->role[role];                                                    \
	const struct ring_use u = st->use;                                                         \
	const unsigned b = st->a->n, w = st->words;                                                \
	uint64_t seq = rr->seq, acc = 0, i;                                                        \
	bool bad = false

#define RING_ZC_END(WHAT)                                                                          \
	if (bad)                                                                                   \
		dpk_bench_fail(run, WHAT " of %u at %llu not moved intact", b,                     \
		               (unsigned long long)seq);                                           \
	DPK_BENCH_KEEP(acc);                                                                       \
	rr->seq = seq;                                                                             \
	rr->enq += i;                                                                              \
	rr->deq += i;                                                                              \
	return i

/* One lcore, zero copy, at code offset L. */
#define RING_ZC_BODY(NAME, L, ZPS, ZPF, ZCS, ZCF)                                                  \
	DPK_BENCH_CODE_AT(L)                                                                       \
	static uint64_t NAME##_##L(struct dpk_bench_run *run, unsigned role, uint64_t n)           \
	{                                                                                          \
		RING_ZC_LOCALS;                                                                    \
		struct ring_zc z;                                                                  \
		for (i = 0; i < n && !bad; i += b) {                                               \
			bad = ZPS(&u, b, &z) != b;                                                 \
			if (bad)                                                                   \
				break;                                                             \
			ring_zc_build(&z, b, w, seq);                                              \
			ZPF(&u, b);                                                                \
			bad = ZCS(&u, b, &z) != b;                                                 \
			if (bad)                                                                   \
				break;                                                             \
			acc ^= ring_zc_use(&z, b, w, seq, &bad);                                   \
			ZCF(&u, b);                                                                \
			seq += b;                                                                  \
		}                                                                                  \
		RING_ZC_END("zero-copy bulk");                                                     \
	}

/* One lcore, copying, at code offset L. */
#define RING_COPY_BODY(NAME, L, ENQB, DEQB)                                                        \
	DPK_BENCH_CODE_AT(L)                                                                       \
	static uint64_t NAME##_##L(struct dpk_bench_run *run, unsigned role, uint64_t n)           \
	{                                                                                          \
		RING_ZC_LOCALS;                                                                    \
		for (i = 0; i < n && !bad; i += b) {                                               \
			ring_build(rr->in, b, w, seq);                                             \
			bad = ENQB(&u, rr->in, b) != b || DEQB(&u, rr->out, b) != b;               \
			if (bad)                                                                   \
				break;                                                             \
			acc ^= ring_use(rr->out, b, w, seq, &bad);                                 \
			seq += b;                                                                  \
		}                                                                                  \
		RING_ZC_END("bulk");                                                               \
	}

/* A pair, zero copy (ZC true) or copying: role 0 builds and sends, role 1 takes and uses. */
#define RING_ZC_PAIR_BODY(NAME, ZC, ZPS, ZPF, ZCS, ZCF, ENQB, DEQB)                                \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)                 \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n, w = st->words;                                        \
		uint64_t done = 0, acc = 0;                                                        \
		struct ring_zc z;                                                                  \
		bool bad = false;                                                                  \
		while (done < n) {                                                                 \
			if (role == 0 && ZC) {                                                     \
				RING_WAIT_WHILE(run, ZPS(&u, b, &z) == 0, done)                    \
				ring_zc_build(&z, b, w, rr->seq);                                  \
				ZPF(&u, b);                                                        \
			} else if (role == 0) {                                                    \
				ring_build(rr->in, b, w, rr->seq);                                 \
				RING_WAIT_WHILE(run, ENQB(&u, rr->in, b) == 0, done)               \
			} else if (ZC) {                                                           \
				RING_WAIT_WHILE(run, ZCS(&u, b, &z) == 0, done)                    \
				acc ^= ring_zc_use(&z, b, w, rr->seq, &bad);                       \
				ZCF(&u, b);                                                        \
			} else {                                                                   \
				RING_WAIT_WHILE(run, DEQB(&u, rr->out, b) == 0, done)              \
				acc ^= ring_use(rr->out, b, w, rr->seq, &bad);                     \
			}                                                                          \
			if (bad) {                                                                 \
				dpk_bench_fail(run, "consumer got %u at %llu out of sequence", b,  \
				               (unsigned long long)rr->seq);                       \
				return done;                                                       \
			}                                                                          \
			*(role == 0 ? &rr->enq : &rr->deq) += b;                                   \
			rr->seq += b;                                                              \
			done += b;                                                                 \
		}                                                                                  \
		DPK_BENCH_KEEP(acc);                                                               \
		return done;                                                                       \
	}

#define RING_ZC_BODIES(P, ZPS, ZPF, ZCS, ZCF, ENQB, DEQB)                                          \
	RING_ZC_BODY(P##_spsc_zc, 0, ZPS, ZPF, ZCS, ZCF)                                           \
	RING_ZC_BODY(P##_spsc_zc, 16, ZPS, ZPF, ZCS, ZCF)                                          \
	RING_ZC_BODY(P##_spsc_zc, 32, ZPS, ZPF, ZCS, ZCF)                                          \
	RING_ZC_BODY(P##_spsc_zc, 48, ZPS, ZPF, ZCS, ZCF)                                          \
	RING_COPY_BODY(P##_spsc_copy, 0, ENQB, DEQB)                                               \
	RING_COPY_BODY(P##_spsc_copy, 16, ENQB, DEQB)                                              \
	RING_COPY_BODY(P##_spsc_copy, 32, ENQB, DEQB)                                              \
	RING_COPY_BODY(P##_spsc_copy, 48, ENQB, DEQB)                                              \
	RING_ZC_PAIR_BODY(P##_spsc_zcpair, true, ZPS, ZPF, ZCS, ZCF, ENQB, DEQB)                   \
	RING_ZC_PAIR_BODY(P##_spsc_copypair, false, ZPS, ZPF, ZCS, ZCF, ENQB, DEQB)

#define RING_CASE_ZC_ONE(P, SU, TD, NM, BD, what, e)                                               \
	{                                                                                          \
		.name = NM, .desc = "n elements built, enqueued, dequeued and read, " what,        \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT,                                \
		.params = {{"esize", e}, {"n", 8}}, .ops_multiple = 8, .setup = SU,                \
		RING_LAYOUTS(P##_##BD), .teardown = TD,                                            \
		.arg = RING_ARG(RING_SPSC, RING_OP_BULK, e, 8)                                     \
	}

#define RING_CASE_ZC_PAIR(P, SU, TD, NM, BD, what, e)                                              \
	{                                                                                          \
		.name = NM,                                                                        \
		.desc = "elements built by a producer lcore, read by a consumer, " what,           \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT,                                  \
		.params = {{"esize", e}, {"n", 8}}, .ops_multiple = 8, .counted_roles = 2,         \
		.role_names = {"producer", "consumer"}, .setup = SU, .body = P##_##BD,             \
		.teardown = TD, .arg = RING_ARG(RING_SPSC, RING_OP_BULK, e, 8)                     \
	}

#define RING_CASES_ZC_SIZE(P, SU, TD, e)                                                           \
	RING_CASE_ZC_ONE(P, SU, TD, "spsc_zc_bulk", spsc_zc, "in the ring's slots", e),            \
	        RING_CASE_ZC_ONE(P, SU, TD, "spsc_copy_bulk", spsc_copy, "in arrays", e),          \
	        RING_CASE_ZC_PAIR(P, SU, TD, "spsc_pair_zc", spsc_zcpair, "in the ring's slots",   \
	                          e),                                                              \
	        RING_CASE_ZC_PAIR(P, SU, TD, "spsc_pair_copy", spsc_copypair, "in arrays", e)

#define RING_CASES_ZC(P, SU, TD)                                                                   \
	RING_CASES_ZC_SIZE(P, SU, TD, 16), RING_CASES_ZC_SIZE(P, SU, TD, 32),                      \
	        RING_CASES_ZC_SIZE(P, SU, TD, 64), RING_CASES_ZC_SIZE(P, SU, TD, 128)

#endif /* DPK_BENCH_RING_CASES_ZC_H */
