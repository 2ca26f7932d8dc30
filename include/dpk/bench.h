/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h - what a perf suite sees of the harness.
 *
 * A case is a body the harness times: body(run, role, n) performs n operations of the
 * case's unit and returns how many it completed. The harness owns the method: it sizes
 * batches from the clock self-check, warms up, times batches with fenced counter reads,
 * rejects spoiled samples, stops multi-lcore cases on a flag when the time budget is
 * spent, and reports statistics. A suite is a static table of cases.
 *
 * Kinds:
 *   DPK_BENCH_SINGLE  body(run, 0, n) on the main lcore.
 *   DPK_BENCH_PAIR    two roles (0 and 1) on two worker lcores, once per pair placement
 *                     (smt, core, llc, numa, oversub) the lcores offer.
 *   DPK_BENCH_ALL     one role per worker lcore (role = index 0..nroles-1).
 * In multi-lcore cases every role runs its body in batches, concurrently, from a common
 * start until the main lcore raises the stop flag. A body that waits for another role
 * must poll dpk_bench_stopped() in its wait loop and return early (with the operations it
 * completed) once it is true; the harness discards that partial batch.
 *
 * A body checks the case's invariants as it goes (what was enqueued came back, counts
 * match) and calls dpk_bench_fail() when one breaks; the case is then reported failed
 * and the run exits non-zero.
 */
#ifndef DPK_BENCH_H
#define DPK_BENCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dpk/topology.h>

/** What one operation is. Every figure is reported per one of these. */
enum dpk_bench_unit {
	DPK_UNIT_ELEMENT,    /**< one element moved (e.g. enqueued and dequeued) */
	DPK_UNIT_CALL,       /**< one API call */
	DPK_UNIT_PACKET,     /**< one packet */
	DPK_UNIT_OBJECT,     /**< one object (got and put back) */
	DPK_UNIT_ROUND_TRIP, /**< one round trip between two lcores */
	DPK_UNIT_ITERATION,  /**< one loop iteration */
	DPK_UNIT_COUNT
};

/** "per element", "per call", ... */
const char *dpk_bench_unit_name(enum dpk_bench_unit u);

enum dpk_bench_kind { DPK_BENCH_SINGLE, DPK_BENCH_PAIR, DPK_BENCH_ALL };

#define DPK_BENCH_PARAMS_MAX 4
#define DPK_BENCH_ROLES_MAX  64

struct dpk_bench_run;

/** What a case's body is: perform @p n operations as role @p role; return the number
 *  completed. */
typedef uint64_t (*dpk_bench_body_fn)(struct dpk_bench_run *run, unsigned role, uint64_t n);

/*
 * Code layouts. Where a loop's instructions fall against the 64-byte lines the front end
 * fetches and caches decides how fast a loop of a few instructions runs, and that place
 * moves whenever code anywhere before it in the binary grows or shrinks: builds that
 * differed only in harness code no case runs moved ring figures by tens of percent (the
 * README's "Code layout" has the figures). A suite can give a case its body compiled
 * DPK_BENCH_LAYOUTS times, each copy at its own offset from a 64-byte boundary
 * (DPK_BENCH_CODE_AT(), offsets DPK_BENCH_LAYOUT_STEP apart); one-lcore batches then run
 * an equal share of their operations in each copy, so every sample, and so the figure, is
 * the body's cost over those offsets, the same set in every build, instead of the luck of
 * one of them.
 */
#define DPK_BENCH_LAYOUTS     4
#define DPK_BENCH_LAYOUT_STEP 16

/*
 * Place a function at @p off bytes (a literal: 0, 16, 32 or 48) past a 64-byte boundary:
 * @p off bytes of padding start on the boundary and the entry follows them, so the padding
 * never runs (GCC's and Clang's patchable_function_entry with all its NOPs before the
 * entry, and the function aligned to 64). The copies are the same instructions, moved as a
 * whole: GCC's x86-64 tunings align loops and jump targets to 16 bytes at most, and
 * whether a label is padded depends on its address modulo 16, which a move by a multiple
 * of 16 keeps. Options that align to 32 bytes (-falign-loops=32,
 * -Wa,-mbranches-within-32B-boundaries) would pad the copies differently. A suite that
 * uses it is compiled with -ffunction-sections (bench/CMakeLists.txt): in one shared
 * section the assembler's branch relaxation can encode a branch of one copy longer than
 * the same branch of another, and tests/bench/test_code_copies.py checks the built copies
 * against each other. Without the attribute every copy sits at offset 0, and
 * dpk_bench_code_layouts() reports one layout.
 */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define DPK_BENCH_CODE_AT(off)                                                                     \
	__attribute__((noinline, aligned(64), patchable_function_entry(off, off)))
#endif
#endif
#ifndef DPK_BENCH_CODE_AT
#define DPK_BENCH_CODE_AT(off) __attribute__((noinline, aligned(64)))
#endif

/** Where @p body begins past a 64-byte boundary (0..63). */
static inline unsigned dpk_bench_code_offset(dpk_bench_body_fn body)
{
	return (unsigned)((uintptr_t)body % 64);
}

/** A named integer parameter of a case ("n", "esize", ...). */
struct dpk_bench_param {
	const char *name;
	long value;
};

/** A case, as suites declare it in their static tables. */
struct dpk_bench_case {
	const char *name; /**< short, unique in the suite with the same params: "sp_sc_bulk" */
	const char *desc; /**< one line: what one operation is */
	enum dpk_bench_kind kind;
	enum dpk_bench_unit unit;
	struct dpk_bench_param params[DPK_BENCH_PARAMS_MAX]; /**< unused entries have name NULL */
	/** Operations per body call come in multiples of this (e.g. the burst size); 0 = 1. */
	unsigned ops_multiple;
	/** Roles whose operations and samples make the case's figures (bit r = role r);
	 *  0 means every role. E.g. only the consumer of a producer/consumer pair. */
	uint64_t counted_roles;
	/** Names of the roles for reports ("producer", "consumer"); NULL: "role N". */
	const char *role_names[2];
	/** Allocate and initialise run->state for @p nroles roles; 0 or -errno. */
	int (*setup)(struct dpk_bench_run *run);
	/** Perform @p n operations as role @p role; return the number completed. */
	dpk_bench_body_fn body;
	/** Optional: the body at DPK_BENCH_LAYOUTS code offsets (see DPK_BENCH_CODE_AT()),
	 *  used by one-lcore batches in place of body; all or none. */
	dpk_bench_body_fn layouts[DPK_BENCH_LAYOUTS];
	/** Check end-of-run invariants (dpk_bench_fail on breakage) and free the state. */
	void (*teardown)(struct dpk_bench_run *run);
	/** Case-specific constant data. */
	const void *arg;
	/** Variants that answer one question share a group (with equal params): with
	 *  --interleave, single-lcore members of a group run batch by batch in turn, so
	 *  drift hits all alike, and each is reported as a paired ratio to the first. NULL:
	 *  the case name is the group, which pairs the same case across suites (dpkit's ring
	 *  and DPDK's). */
	const char *group;
};

/** A running case, as its body sees it. */
struct dpk_bench_run {
	const struct dpk_bench_case *c;
	void *state;     /**< the case's own state from setup */
	unsigned nroles; /**< roles running (1 for single-lcore cases) */
	enum dpk_placement placement;
	atomic_bool stop;       /**< raised by the main lcore when the budget is spent */
	atomic_bool failed;     /**< an invariant broke */
	atomic_bool fail_ready; /**< fail_msg is complete */
	atomic_uint woken;      /**< futex word: 1 once a failure has woken the main lcore */
	char fail_msg[256];     /**< the first failure's message */
	unsigned char *arena;   /**< see dpk_bench_alloc() */
	size_t arena_size, arena_used;
	bool arena_pinned;    /**< the arena sits at its fixed address */
	unsigned stack_shift; /**< moves the next timed batch's stack within its page (runner.c) */
};

/** A suite: a name and its cases. */
struct dpk_bench_suite {
	const char *name;
	const char *desc;
	const struct dpk_bench_case *cases;
	unsigned ncases;
	bool default_on; /**< run by `dpk-bench` with no patterns */
};

/** True once the case must stop; poll it in every wait loop of a multi-lcore body. */
static inline bool dpk_bench_stopped(struct dpk_bench_run *run)
{
	/* Relaxed: the flag carries no data; the harness joins the lcores afterwards. */
	return atomic_load_explicit(&run->stop, memory_order_relaxed);
}

/** Record that an invariant broke (first message kept) and stop the case. Thread-safe. */
void dpk_bench_fail(struct dpk_bench_run *run, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/** Value of parameter @p name of the case, or @p dflt when it has none. */
long dpk_bench_param(const struct dpk_bench_case *c, const char *name, long dflt);

/**
 * Memory for a case's state, from an arena the harness maps for the run at a fixed
 * virtual address (the same for every run of the same case and slot) and unmaps after
 * teardown; never free it. Addresses decide which cache sets and way-predictor tags
 * lines share, and a heap that lands differently in each run (ASLR, earlier cases) can
 * move a figure by 2x between otherwise identical runs; a fixed layout makes runs
 * repeatable. Allocations are @p align-aligned (a power of two, at least 64) and zeroed.
 * NULL when the arena is full.
 */
void *dpk_bench_alloc(struct dpk_bench_run *run, size_t size, size_t align);

/** Keep the compiler from optimising a value away. */
#define DPK_BENCH_KEEP(x) __asm__ volatile("" : "+r"(x)::"memory")

#endif /* DPK_BENCH_H */
