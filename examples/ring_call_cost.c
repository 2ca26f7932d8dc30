/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_call_cost - what a bulk enqueue+dequeue pair costs per element, for dpkit's
 * ring and DPDK's rte_ring side by side in one process, timed batch by batch in turns.
 *
 * Two shapes of call:
 *   call    as a user's burst loop makes it: every call through a function pointer to a
 *           noinline wrapper, n read at run time;
 *   inline  n a constant and the calls inlined into the timing loop.
 * Each batch times ITERS enqueue+dequeue pairs of n elements; the two rings take turns,
 * the first of each pair of batches alternating. Prints, per shape and n, the median of the
 * batches' ticks per element for each ring, their 10th and 90th percentiles, and the ratio
 * of medians. It asserts no timing: it prints them.
 *
 * usage: ring_call_cost [batches] [cpu] [spsc|mpmc]
 *
 * Build (x86-64, with DPDK's development files; DPDK's -march=corei7 dropped so both rings
 * are compiled alike), from the top of the source tree:
 *   cc -std=gnu11 -O3 -DNDEBUG -Iinclude -Isrc \
 *      $(pkg-config --cflags libdpdk | sed 's/-march=corei7//') \
 *      examples/ring_call_cost.c src/ring.c src/common.c -o ring_call_cost \
 *      $(pkg-config --libs libdpdk)
 * The method and figures measured with it: docs/ring.md.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <dpk/ring.h>
#include <rte_ring.h>

#define SLOTS 1024u
#define ITERS 2000u

static inline uint64_t t_begin(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

static inline uint64_t t_end(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);
	_mm_lfence();
	return t;
}

typedef unsigned (*enq_fn)(void *r, const void *objs, unsigned n);
typedef unsigned (*deq_fn)(void *r, void *objs, unsigned n);

__attribute__((noinline)) static unsigned dpk_enq(void *r, const void *objs, unsigned n)
{
	return dpk_ring_sp_enqueue_bulk(r, objs, n, NULL);
}
__attribute__((noinline)) static unsigned dpk_deq(void *r, void *objs, unsigned n)
{
	return dpk_ring_sc_dequeue_bulk(r, objs, n, NULL);
}
__attribute__((noinline)) static unsigned rte_enq(void *r, const void *objs, unsigned n)
{
	return rte_ring_sp_enqueue_bulk(r, (void *const *)objs, n, NULL);
}
__attribute__((noinline)) static unsigned rte_deq(void *r, void *objs, unsigned n)
{
	return rte_ring_sc_dequeue_bulk(r, (void **)objs, n, NULL);
}

__attribute__((noinline)) static unsigned dpk_mp_enq(void *r, const void *objs, unsigned n)
{
	return dpk_ring_mp_enqueue_bulk(r, objs, n, NULL);
}
__attribute__((noinline)) static unsigned dpk_mc_deq(void *r, void *objs, unsigned n)
{
	return dpk_ring_mc_dequeue_bulk(r, objs, n, NULL);
}
__attribute__((noinline)) static unsigned rte_mp_enq(void *r, const void *objs, unsigned n)
{
	return rte_ring_mp_enqueue_bulk(r, (void *const *)objs, n, NULL);
}
__attribute__((noinline)) static unsigned rte_mc_deq(void *r, void *objs, unsigned n)
{
	return rte_ring_mc_dequeue_bulk(r, (void **)objs, n, NULL);
}

static int mpmc;

/* The function pointers are read through volatile so the compiler cannot see through them. */
static enq_fn volatile enq_ptr[2] = {dpk_enq, rte_enq};
static deq_fn volatile deq_ptr[2] = {dpk_deq, rte_deq};
static volatile unsigned n_runtime;

__attribute__((noinline)) static uint64_t batch_call(int which, void *r, void *buf)
{
	const enq_fn enq = enq_ptr[which];
	const deq_fn deq = deq_ptr[which];
	const unsigned n = n_runtime;
	unsigned moved = 0;
	uint64_t t0 = t_begin();

	for (unsigned i = 0; i < ITERS; i++) {
		moved += enq(r, buf, n);
		moved += deq(r, buf, n);
	}
	uint64_t t1 = t_end();
	if (moved != 2 * ITERS * n)
		abort();
	return t1 - t0;
}

#define BATCH_INLINE(N)                                                                            \
	__attribute__((noinline)) static uint64_t batch_inline_##N(int which, void *r, void *buf)  \
	{                                                                                          \
		unsigned moved = 0;                                                                \
		uint64_t t0 = t_begin();                                                           \
		if (which == 0 && mpmc)                                                            \
			for (unsigned i = 0; i < ITERS; i++) {                                     \
				moved += dpk_ring_mp_enqueue_bulk(r, buf, N, NULL);                \
				moved += dpk_ring_mc_dequeue_bulk(r, buf, N, NULL);                \
			}                                                                          \
		else if (which == 0)                                                               \
			for (unsigned i = 0; i < ITERS; i++) {                                     \
				moved += dpk_ring_sp_enqueue_bulk(r, buf, N, NULL);                \
				moved += dpk_ring_sc_dequeue_bulk(r, buf, N, NULL);                \
			}                                                                          \
		else if (mpmc)                                                                     \
			for (unsigned i = 0; i < ITERS; i++) {                                     \
				moved += rte_ring_mp_enqueue_bulk(r, buf, N, NULL);                \
				moved += rte_ring_mc_dequeue_bulk(r, buf, N, NULL);                \
			}                                                                          \
		else                                                                               \
			for (unsigned i = 0; i < ITERS; i++) {                                     \
				moved += rte_ring_sp_enqueue_bulk(r, buf, N, NULL);                \
				moved += rte_ring_sc_dequeue_bulk(r, buf, N, NULL);                \
			}                                                                          \
		uint64_t t1 = t_end();                                                             \
		if (moved != 2 * ITERS * N)                                                        \
			abort();                                                                   \
		return t1 - t0;                                                                    \
	}
BATCH_INLINE(1)
BATCH_INLINE(8)
BATCH_INLINE(32)
BATCH_INLINE(128)

static uint64_t batch_inline(unsigned n, int which, void *r, void *buf)
{
	switch (n) {
	case 1:
		return batch_inline_1(which, r, buf);
	case 8:
		return batch_inline_8(which, r, buf);
	case 32:
		return batch_inline_32(which, r, buf);
	default:
		return batch_inline_128(which, r, buf);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double pct(double *v, unsigned n, double p)
{
	return v[(unsigned)(p * (n - 1) + 0.5)];
}

int main(int argc, char **argv)
{
	static const unsigned ns[] = {1, 8, 32, 128};
	const unsigned batches = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
	const int cpu = argc > 2 ? atoi(argv[2]) : 1;
	void *rings[2];
	double *t[2];
	cpu_set_t set;
	uint64_t buf[128];

	mpmc = argc > 3 && strcmp(argv[3], "mpmc") == 0;
	if (mpmc) {
		enq_ptr[0] = dpk_mp_enq;
		enq_ptr[1] = rte_mp_enq;
		deq_ptr[0] = dpk_mc_deq;
		deq_ptr[1] = rte_mc_deq;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
	rings[0] = dpk_ring_create(8, SLOTS, mpmc ? 0 : DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ);
	rings[1] = aligned_alloc(64, (size_t)rte_ring_get_memsize(SLOTS));
	if (!rings[0] || !rings[1] ||
	    rte_ring_init(rings[1], "cost", SLOTS, mpmc ? 0 : RING_F_SP_ENQ | RING_F_SC_DEQ) != 0)
		return 1;
	t[0] = malloc(batches * sizeof(double));
	t[1] = malloc(batches * sizeof(double));
	for (unsigned i = 0; i < 128; i++)
		buf[i] = i;
	printf("%s\n", mpmc ? "MP/MC" : "SP/SC");
	printf("%-6s %4s  %-22s  %-22s  %s\n", "shape", "n", "dpkit p50 [p10 p90]",
	       "dpdk p50 [p10 p90]", "dpkit/dpdk");
	for (int shape = 0; shape < 2; shape++)
		for (unsigned k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
			const unsigned n = ns[k];

			n_runtime = n;
			/* Warm-up: both rings, both code paths. */
			for (unsigned b = 0; b < 50; b++)
				for (int w = 0; w < 2; w++)
					shape ? batch_inline(n, w, rings[w], buf)
					      : batch_call(w, rings[w], buf);
			for (unsigned b = 0; b < batches; b++)
				for (int j = 0; j < 2; j++) {
					const int w = (int)((b + j) % 2);
					uint64_t ticks = shape ? batch_inline(n, w, rings[w], buf)
					                       : batch_call(w, rings[w], buf);
					t[w][b] = (double)ticks / ((double)ITERS * n);
				}
			qsort(t[0], batches, sizeof(double), cmp_double);
			qsort(t[1], batches, sizeof(double), cmp_double);
			printf("%-6s %4u  %6.2f [%6.2f %6.2f]  %6.2f [%6.2f %6.2f]  %.3f\n",
			       shape ? "inline" : "call", n, pct(t[0], batches, 0.5),
			       pct(t[0], batches, 0.1), pct(t[0], batches, 0.9),
			       pct(t[1], batches, 0.5), pct(t[1], batches, 0.1),
			       pct(t[1], batches, 0.9),
			       pct(t[0], batches, 0.5) / pct(t[1], batches, 0.5));
		}
	return 0;
}
