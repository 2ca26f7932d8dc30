/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_cases_user.h - ring cases shaped as users' code makes its calls, and pair cases
 * with a defined regime (docs/pairs.md); included by ring_cases.h.
 *
 * RING_IMPLEMENT() (ring_cases.h) expands RING_FNS(prefix, M, ...) for every mode with the
 * mode's bulk and burst operations, then RING_FNS_TABLE(prefix), and
 * RING_USER_BODIES(prefix, M, ...) for spsc and mpmc; an implementation's setup passes
 * prefix_fns to ring_setup_state().
 *
 * Cases (8-byte elements; one operation = one element):
 *   M_call_bulk / M_call_burst  one lcore, n in {1, 8, 32}: every enqueue and dequeue
 *                      through a function pointer to a wrapper that is not inlined, n
 *                      read from the case's state, as a burst loop calls a ring it gets
 *                      passed
 *   M_pair_handoff     producer -> consumer, n in {1, 8, 32}: the producer sends a burst
 *                      only once the consumer has said (on a line of its own) that it took
 *                      the one before, so every burst meets an empty ring and a polling
 *                      consumer; figure = the consumer's time per element, that is one
 *                      burst's hand-off plus the word's way back, over n
 *   M_pair_saturated   producer -> consumer, n in {1, 8, 32}, the ring prefilled full and
 *                      the producer unthrottled: the consumer's rate while elements wait
 *                      for it (the consumer-bound rate)
 */
#ifndef DPK_BENCH_RING_CASES_USER_H
#define DPK_BENCH_RING_CASES_USER_H

/* The out-of-line wrappers of mode M, for 8-byte elements (see struct ring_fns), each on a
 * page of its own like the bodies (DPK_BENCH_CODE_AT()): loose, they moved with any code
 * linked before them, and the cost of a call of one element moved with them (docs/method.md,
 * "Code layout"). */
#define RING_FNS(P, M, ENQB, DEQB, ENQS, DEQS)                                                     \
	DPK_BENCH_CODE_AT(0) static unsigned P##_##M##_enqb(void *r, const void *o, unsigned n)    \
	{                                                                                          \
		const struct ring_use u = {r, 8};                                                  \
		return ENQB(&u, o, n);                                                             \
	}                                                                                          \
	DPK_BENCH_CODE_AT(0) static unsigned P##_##M##_enqs(void *r, const void *o, unsigned n)    \
	{                                                                                          \
		const struct ring_use u = {r, 8};                                                  \
		return ENQS(&u, o, n);                                                             \
	}                                                                                          \
	DPK_BENCH_CODE_AT(0) static unsigned P##_##M##_deqb(void *r, void *o, unsigned n)          \
	{                                                                                          \
		const struct ring_use u = {r, 8};                                                  \
		return DEQB(&u, o, n);                                                             \
	}                                                                                          \
	DPK_BENCH_CODE_AT(0) static unsigned P##_##M##_deqs(void *r, void *o, unsigned n)          \
	{                                                                                          \
		const struct ring_use u = {r, 8};                                                  \
		return DEQS(&u, o, n);                                                             \
	}

#define RING_FNS_OF(P, M)                                                                          \
	{                                                                                          \
		P##_##M##_enqb, P##_##M##_enqs, P##_##M##_deqb, P##_##M##_deqs                     \
	}

/* Every mode's wrappers, indexed by enum ring_mode. */
#define RING_FNS_TABLE(P)                                                                          \
	static const struct ring_fns P##_fns[RING_NMODES] = {                                      \
	        [RING_SPSC] = RING_FNS_OF(P, spsc),                                                \
	        [RING_MPMC] = RING_FNS_OF(P, mpmc),                                                \
	        [RING_RTS] = RING_FNS_OF(P, rts),                                                  \
	        [RING_HTS] = RING_FNS_OF(P, hts),                                                  \
	};

/* Enqueue then dequeue through the state's wrappers ENQ and DEQ (members of struct
 * ring_fns), at code offset L. */
#define RING_CALL_BODY(NAME, L, ENQ, DEQ, WHAT)                                                    \
	DPK_BENCH_CODE_AT(L)                                                                       \
	static uint64_t NAME##_##L(struct dpk_bench_run *run, unsigned role, uint64_t n)           \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		void *const r = st->use.r;                                                         \
		const ring_enq_fn enq = st->fns->ENQ;                                              \
		const ring_deq_fn deq = st->fns->DEQ;                                              \
		const unsigned b = st->a->n, w = st->words;                                        \
		uint64_t seq = rr->seq, i;                                                         \
		for (i = 0; i < n; i += b) {                                                       \
			ring_stamp(rr->in, w, b, seq);                                             \
			if (enq(r, rr->in, b) != b || deq(r, rr->out, b) != b ||                   \
			    !ring_check(rr->out, w, b, seq)) {                                     \
				dpk_bench_fail(run, WHAT " of %u at %llu not moved intact", b,     \
				               (unsigned long long)seq);                           \
				break;                                                             \
			}                                                                          \
			seq += b;                                                                  \
		}                                                                                  \
		rr->seq = seq;                                                                     \
		rr->enq += i;                                                                      \
		rr->deq += i;                                                                      \
		return i;                                                                          \
	}

#define RING_CALL_LAYOUTS(NAME, ENQ, DEQ, WHAT)                                                    \
	RING_CALL_BODY(NAME, 0, ENQ, DEQ, WHAT)                                                    \
	RING_CALL_BODY(NAME, 16, ENQ, DEQ, WHAT)                                                   \
	RING_CALL_BODY(NAME, 32, ENQ, DEQ, WHAT)                                                   \
	RING_CALL_BODY(NAME, 48, ENQ, DEQ, WHAT)

/*
 * Hand-off: role 0 sends a burst of n, then waits until role 1 has taken it. st->taken is
 * read and written relaxed: it carries no data (the ring orders the elements), only
 * permission to send the next burst.
 */
#define RING_HANDOFF_BODY(NAME, ENQB, DEQB)                                                        \
	static uint64_t NAME(struct dpk_bench_run *run, unsigned role, uint64_t n)                 \
	{                                                                                          \
		struct ring_state *st = run->state;                                                \
		struct ring_role *rr = &st->role[role];                                            \
		const struct ring_use u = st->use;                                                 \
		const unsigned b = st->a->n, w = st->words;                                        \
		uint64_t done = 0;                                                                 \
		while (done < n) {                                                                 \
			if (role == 0) {                                                           \
				ring_stamp(rr->in, w, b, rr->seq);                                 \
				RING_WAIT_WHILE(run, ENQB(&u, rr->in, b) == 0, done)               \
				rr->seq += b;                                                      \
				rr->enq += b;                                                      \
				RING_WAIT_WHILE(run,                                               \
				                __atomic_load_n(st->taken, __ATOMIC_RELAXED) !=    \
				                        rr->seq,                                   \
				                done)                                              \
			} else {                                                                   \
				RING_WAIT_WHILE(run, DEQB(&u, rr->out, b) == 0, done)              \
				RING_RECEIVED_OR_FAIL(run, rr, ring_check(rr->out, w, b, rr->seq), \
				                      done)                                        \
				rr->seq += b;                                                      \
				rr->deq += b;                                                      \
				__atomic_store_n(st->taken, rr->seq, __ATOMIC_RELAXED);            \
			}                                                                          \
			done += b;                                                                 \
		}                                                                                  \
		return done;                                                                       \
	}

/* The call-shape bodies and the hand-off of mode M (spsc or mpmc); the saturated pair
 * uses the mode's pair body (ring_cases.h). */
#define RING_USER_BODIES(P, M, ENQB, DEQB)                                                         \
	RING_CALL_LAYOUTS(P##_##M##_callbulk, enq_bulk, deq_bulk, "bulk")                          \
	RING_CALL_LAYOUTS(P##_##M##_callburst, enq_burst, deq_burst, "burst")                      \
	RING_HANDOFF_BODY(P##_##M##_handoff, ENQB, DEQB)

#define RING_CASE_CALL(P, SU, TD, m, M, op, OP, nn)                                                \
	{                                                                                          \
		.name = #m "_call_" #op,                                                           \
		.desc = "enqueue then dequeue of n elements, " #op                                 \
		        " calls through pointers to wrappers not inlined, n known at run time",    \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT,                                \
		.params = {{"esize", 8}, {"n", nn}}, .ops_multiple = nn, .setup = SU,              \
		RING_LAYOUTS(P##_##m##_call##op), .teardown = TD, .arg = RING_ARG(M, OP, 8, nn)    \
	}

#define RING_CASE_HANDOFF(P, SU, TD, m, M, nn)                                                     \
	{                                                                                          \
		.name = #m "_pair_handoff",                                                        \
		.desc = "n elements sent once the last n were taken, so each call meets an empty " \
		        "ring; consumer time per element, one hand-off and the reply over n",      \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT,                                  \
		.params = {{"esize", 8}, {"n", nn}}, .ops_multiple = nn, .counted_roles = 2,       \
		.role_names = {"producer", "consumer"}, .setup = SU, .body = P##_##m##_handoff,    \
		.teardown = TD, .arg = RING_ARG(M, RING_OP_BULK, 8, nn)                            \
	}

#define RING_CASE_SATURATED(P, SU, TD, m, M, nn)                                                   \
	{                                                                                          \
		.name = #m "_pair_saturated",                                                      \
		.desc = "elements handed on through a ring prefilled full, the producer "          \
		        "unthrottled: the consumer-bound rate",                                    \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT,                                  \
		.params = {{"esize", 8}, {"n", nn}}, .ops_multiple = nn, .counted_roles = 2,       \
		.role_names = {"producer", "consumer"}, .setup = SU, .body = P##_##m##_pair,       \
		.teardown = TD, .arg = RING_ARG_FILL(M, RING_OP_BULK, 8, nn, RING_FILL_FULL)       \
	}

#define RING_CASES_USER_MODE(P, SU, TD, m, M)                                                      \
	RING_CASE_CALL(P, SU, TD, m, M, bulk, RING_OP_BULK, 1),                                    \
	        RING_CASE_CALL(P, SU, TD, m, M, bulk, RING_OP_BULK, 8),                            \
	        RING_CASE_CALL(P, SU, TD, m, M, bulk, RING_OP_BULK, 32),                           \
	        RING_CASE_CALL(P, SU, TD, m, M, burst, RING_OP_BURST, 1),                          \
	        RING_CASE_CALL(P, SU, TD, m, M, burst, RING_OP_BURST, 8),                          \
	        RING_CASE_CALL(P, SU, TD, m, M, burst, RING_OP_BURST, 32),                         \
	        RING_CASE_HANDOFF(P, SU, TD, m, M, 1), RING_CASE_HANDOFF(P, SU, TD, m, M, 8),      \
	        RING_CASE_HANDOFF(P, SU, TD, m, M, 32), RING_CASE_SATURATED(P, SU, TD, m, M, 1),   \
	        RING_CASE_SATURATED(P, SU, TD, m, M, 8), RING_CASE_SATURATED(P, SU, TD, m, M, 32)

#define RING_CASES_USER(P, SU, TD)                                                                 \
	RING_CASES_USER_MODE(P, SU, TD, spsc, RING_SPSC),                                          \
	        RING_CASES_USER_MODE(P, SU, TD, mpmc, RING_MPMC)

#endif /* DPK_BENCH_RING_CASES_USER_H */
