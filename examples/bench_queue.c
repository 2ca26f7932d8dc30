/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_queue - your own single-producer single-consumer queue against dpkit's ring,
 * through the same bodies, timed by dpk-bench's method.
 *
 * The suite "queue" has each of two questions asked of both queues:
 *   *_one_lcore    one element enqueued and dequeued on one lcore (the call cost);
 *                  group "one_lcore"
 *   *_two_lcores   a producer lcore hands elements to a consumer lcore (figure: the
 *                  consumer's cost per element received), on every placement of two
 *                  lcores the machine offers; group "two_lcores"
 * The bodies check what they get: every element comes out in the order it went in.
 * dpkit's ring is each group's first member, so with --interleave the one-lcore cases run
 * batch by batch in turn and myq is reported as a paired ratio to dpk_ring:
 *
 *     ./bench_queue list
 *     ./bench_queue run --time 0.5s --interleave
 *     ./bench_queue run --placement core --json pair.json
 *
 * myq's memory-order labels:
 *   R1  push: release store of head once the slot is written; pairs with A2.
 *   A2  pop: acquire load of head; pairs with R1: the slot's value is seen.
 *   R2  pop: release store of tail once the slot is read; pairs with A1.
 *   A1  push: acquire load of tail; pairs with R2: the consumer is done with a slot
 *       before it is written again.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dpk/bench.h>
#include <dpk/cycles.h>
#include <dpk/ring.h>

#define SLOTS 1024u /* a power of two */

/* The user's queue: indices that run freely, each side's copy of the other's index on
 * its own line so that a side reads the shared line only when its copy says full or empty. */
struct myq {
	_Alignas(64) _Atomic uint32_t head; /* next slot to write: the producer's */
	uint32_t tail_seen;                 /* the producer's copy of tail */
	_Alignas(64) _Atomic uint32_t tail; /* next slot to read: the consumer's */
	uint32_t head_seen;                 /* the consumer's copy of head */
	_Alignas(64) uint64_t slot[SLOTS];
};

static inline bool myq_push(void *queue, uint64_t v)
{
	struct myq *q = queue;
	uint32_t h = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (h - q->tail_seen == SLOTS) {
		/* A1: pairs with R2 in myq_pop() */
		q->tail_seen = atomic_load_explicit(&q->tail, memory_order_acquire);
		if (h - q->tail_seen == SLOTS)
			return false;
	}
	q->slot[h % SLOTS] = v;
	/* R1: pairs with A2 in myq_pop() */
	atomic_store_explicit(&q->head, h + 1, memory_order_release);
	return true;
}

static inline bool myq_pop(void *queue, uint64_t *v)
{
	struct myq *q = queue;
	uint32_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	if (t == q->head_seen) {
		/* A2: pairs with R1 in myq_push() */
		q->head_seen = atomic_load_explicit(&q->head, memory_order_acquire);
		if (t == q->head_seen)
			return false;
	}
	*v = q->slot[t % SLOTS];
	/* R2: pairs with A1 in myq_push() */
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	return true;
}

/* dpkit's ring, in the same shape. */
static inline bool ring_push(void *queue, uint64_t v)
{
	return dpk_ring_sp_enqueue(queue, &v) == 0;
}

static inline bool ring_pop(void *queue, uint64_t *v)
{
	return dpk_ring_sc_dequeue(queue, v) == 0;
}

/* A case's state: the queue, and each role's sequence number on a line of its own. */
struct qstate {
	void *q;
	_Alignas(64) uint64_t next_in;  /* the producer's next element */
	_Alignas(64) uint64_t next_out; /* the element the consumer expects next */
};

static struct qstate *qstate_alloc(struct dpk_bench_run *run, size_t qsize)
{
	struct qstate *s = dpk_bench_alloc(run, sizeof(*s), 64);

	if (!s || !(s->q = dpk_bench_alloc(run, qsize, 64)))
		return NULL;
	run->state = s;
	return s;
}

static int setup_myq(struct dpk_bench_run *run)
{
	/* dpk_bench_alloc() memory is zeroed: an empty myq */
	return qstate_alloc(run, sizeof(struct myq)) ? 0 : -ENOMEM;
}

static int setup_ring(struct dpk_bench_run *run)
{
	const unsigned flags = DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ;
	ssize_t size = dpk_ring_memsize(sizeof(uint64_t), SLOTS, flags);
	struct qstate *s;

	if (size < 0)
		return (int)size;
	s = qstate_alloc(run, (size_t)size);
	if (!s)
		return -ENOMEM;
	return dpk_ring_init(s->q, sizeof(uint64_t), SLOTS, flags);
}

/* The consumer never gets more than the producer sent. */
static void teardown(struct dpk_bench_run *run)
{
	struct qstate *s = run->state;

	if (s->next_out > s->next_in)
		dpk_bench_fail(run, "received %llu elements of %llu sent",
		               (unsigned long long)s->next_out, (unsigned long long)s->next_in);
}

typedef bool (*push_fn)(void *q, uint64_t v);
typedef bool (*pop_fn)(void *q, uint64_t *v);

/* The bodies, written once: inlined into each queue's own with its push and pop, so each
 * queue's calls are inlined as a program of the user's would have them. */
static inline __attribute__((always_inline)) uint64_t
one_lcore(struct dpk_bench_run *run, uint64_t n, push_fn push, pop_fn pop)
{
	struct qstate *s = run->state;
	uint64_t seq = s->next_in, v = 0;

	for (uint64_t i = 0; i < n; i++, seq++) {
		if (!push(s->q, seq) || !pop(s->q, &v) || v != seq) {
			dpk_bench_fail(run, "sent %llu, received %llu", (unsigned long long)seq,
			               (unsigned long long)v);
			return i;
		}
	}
	s->next_in = s->next_out = seq;
	return n;
}

static inline __attribute__((always_inline)) uint64_t produce(struct dpk_bench_run *run, uint64_t n,
                                                              push_fn push)
{
	struct qstate *s = run->state;

	for (uint64_t i = 0; i < n; i++, s->next_in++) {
		while (!push(s->q, s->next_in)) {
			if (dpk_bench_stopped(run))
				return i;
			dpk_pause();
		}
	}
	return n;
}

static inline __attribute__((always_inline)) uint64_t consume(struct dpk_bench_run *run, uint64_t n,
                                                              pop_fn pop)
{
	struct qstate *s = run->state;
	uint64_t v;

	for (uint64_t i = 0; i < n; i++, s->next_out++) {
		while (!pop(s->q, &v)) {
			if (dpk_bench_stopped(run))
				return i;
			dpk_pause();
		}
		if (v != s->next_out) {
			dpk_bench_fail(run, "expected element %llu, received %llu",
			               (unsigned long long)s->next_out, (unsigned long long)v);
			return i;
		}
	}
	return n;
}

static uint64_t myq_one_lcore(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	return one_lcore(run, n, myq_push, myq_pop);
}

static uint64_t ring_one_lcore(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)role;
	return one_lcore(run, n, ring_push, ring_pop);
}

/* Role 0 produces, role 1 consumes. */
static uint64_t myq_two_lcores(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	return role == 0 ? produce(run, n, myq_push) : consume(run, n, myq_pop);
}

static uint64_t ring_two_lcores(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	return role == 0 ? produce(run, n, ring_push) : consume(run, n, ring_pop);
}

#define ONE_LCORE(nm, setup_fn, body_fn)                                                           \
	{                                                                                          \
		.name = nm, .desc = "one element enqueued and dequeued on one lcore",              \
		.kind = DPK_BENCH_SINGLE, .unit = DPK_UNIT_ELEMENT, .setup = setup_fn,             \
		.body = body_fn, .teardown = teardown, .group = "one_lcore"                        \
	}
#define TWO_LCORES(nm, setup_fn, body_fn)                                                          \
	{                                                                                          \
		.name = nm, .desc = "one element from a producer lcore to a consumer lcore",       \
		.kind = DPK_BENCH_PAIR, .unit = DPK_UNIT_ELEMENT, .counted_roles = 1u << 1,        \
		.role_names = {"producer", "consumer"}, .setup = setup_fn, .body = body_fn,        \
		.teardown = teardown, .group = "two_lcores"                                        \
	}

static const struct dpk_bench_case queue_cases[] = {
        ONE_LCORE("dpk_ring_one_lcore", setup_ring, ring_one_lcore),
        ONE_LCORE("myq_one_lcore", setup_myq, myq_one_lcore),
        TWO_LCORES("dpk_ring_two_lcores", setup_ring, ring_two_lcores),
        TWO_LCORES("myq_two_lcores", setup_myq, myq_two_lcores),
};

static const struct dpk_bench_suite queue = {
        .name = "queue",
        .desc = "a queue of this program's own against dpkit's SP/SC ring",
        .cases = queue_cases,
        .ncases = sizeof(queue_cases) / sizeof(queue_cases[0]),
        .default_on = true,
};

static const struct dpk_bench_suite *const my_suites[] = {&queue, NULL};

int main(int argc, char **argv)
{
	return dpk_bench_main(argc, argv, my_suites, NULL);
}
