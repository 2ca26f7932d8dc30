/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/bench.h - the harness dpk-bench is made of, for timing your own code.
 *
 * Overview. A case is a body the harness times: body(run, role, n) performs n operations
 * of the case's unit and returns how many it completed. A suite is a static table of
 * cases. The harness owns the method: it checks the clock, sizes batches from it, warms
 * up, times batches with fenced counter reads, runs each case in rounds spread over the
 * suite's run, rejects spoiled samples and counts them, stops multi-lcore cases on a flag
 * when the time budget is spent, and reports statistics per stated unit (table, JSON,
 * CSV), with compare, spread, report and ab on the results. dpk_bench_main() gives a
 * program the whole dpk-bench command line over the suites it is given; dpkit's own
 * suites use nothing but this header.
 *
 * Kinds:
 *   DPK_BENCH_SINGLE  body(run, 0, n) on the main lcore.
 *   DPK_BENCH_PAIR    two roles (0 and 1) on two worker lcores, once per pair placement
 *                     (smt, core, llc, numa) the lcores offer, and on oversub where the
 *                     case asks for it (DPK_BENCH_ON_OVERSUB) or the run names oversub.
 *   DPK_BENCH_ALL     one role per worker lcore (role = index 0..nroles-1).
 * In multi-lcore cases every role runs its body in batches, concurrently, from a common
 * start until the harness raises the stop flag. A body that waits for another role must
 * poll dpk_bench_stopped() in its wait loop and return early (with the operations it
 * completed) once it is true; the harness discards that partial batch. So must one whose
 * calls may wait inside for another role (a lock, a ring's tail), between its calls: two
 * roles on one CPU then move at context switches, and a batch sized while they ran freely
 * would outlast its slice many times over.
 *
 * A body checks the case's invariants as it goes (what was enqueued came back, counts
 * match) and calls dpk_bench_fail() when one breaks; the case is then reported failed
 * and the run exits 1. A body that returns more than it was asked, or a set-up that
 * fails, fails the case the same way, with the reason.
 *
 * Concurrency: setup and teardown run on the main lcore with no role running; the bodies
 * of a multi-lcore case run at the same time on their lcores; dpk_bench_fail() and
 * dpk_bench_stopped() may be called from any role.
 *
 * Build bodies with optimisation (-O2 or -O3): an unoptimised inline fast path measures
 * the compiler, not the code.
 */
#ifndef DPK_BENCH_H
#define DPK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dpk/topology.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** "per element", "per call", ...; "per ?" for a value out of range. */
const char *dpk_bench_unit_name(enum dpk_bench_unit u);

/** Where a case runs: see the overview. */
enum dpk_bench_kind { DPK_BENCH_SINGLE, DPK_BENCH_PAIR, DPK_BENCH_ALL };

#define DPK_BENCH_PARAMS_MAX 4
#define DPK_BENCH_ROLES_MAX  64

struct dpk_bench_run;

/** What a case's body is: perform @p n operations as role @p role; return the number
 *  completed (at most @p n). */
typedef uint64_t (*dpk_bench_body_fn)(struct dpk_bench_run *run, unsigned role, uint64_t n);

/*
 * Code layouts. Where a loop's instructions fall against the 64-byte lines the front end
 * fetches and caches decides how fast a loop of a few instructions runs, and that place
 * moves whenever code anywhere before it in the binary grows or shrinks (docs/method.md,
 * "Code layout"). A suite can give a case its body compiled DPK_BENCH_LAYOUTS times, each
 * copy at its own offset from a page boundary (DPK_BENCH_CODE_AT(), offsets
 * DPK_BENCH_LAYOUT_STEP apart); one-lcore batches then run an equal share of their
 * operations in each copy, so every sample, and so the figure, is the body's cost over
 * those offsets, the same set in every build, instead of the luck of one of them.
 */
#define DPK_BENCH_LAYOUTS     4
#define DPK_BENCH_LAYOUT_STEP 16

/** The boundary DPK_BENCH_CODE_AT() counts its offset from: a page. */
#define DPK_BENCH_CODE_ALIGN 4096

/*
 * Place a function at @p off bytes (a literal: 0, 16, 32 or 48) past a page boundary:
 * @p off bytes of padding start on the boundary and the entry follows them, so the padding
 * never runs (GCC's and Clang's patchable_function_entry with all its NOPs before the
 * entry, and the function aligned to DPK_BENCH_CODE_ALIGN). On a page of its own, a copy
 * keeps the low 12 address bits, by which the front end's caches and predictors index it,
 * whatever other code a patch grows or shrinks (docs/method.md, "Code layout"). The copies
 * are the same instructions, moved as a whole: GCC's x86-64 tunings align loops and jump
 * targets to 16 bytes at most, and whether a label is padded depends on its address modulo
 * 16, which a move by a multiple of 16 keeps. Options that align to 32 bytes
 * (-falign-loops=32, -Wa,-mbranches-within-32B-boundaries) would pad the copies
 * differently. Compile a file that uses it with -ffunction-sections: in one shared section
 * the assembler's branch relaxation can encode a branch of one copy longer than the same
 * branch of another. Without the attribute every copy sits at offset 0, and the report says
 * one layout.
 */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define DPK_BENCH_CODE_AT(off)                                                                     \
	__attribute__((noinline, aligned(DPK_BENCH_CODE_ALIGN), patchable_function_entry(off, off)))
#endif
#endif
#ifndef DPK_BENCH_CODE_AT
#define DPK_BENCH_CODE_AT(off) __attribute__((noinline, aligned(DPK_BENCH_CODE_ALIGN)))
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

/**
 * A pair case whose figure on the oversub placement (both roles on one CPU, so each runs
 * only while the other is descheduled) answers a question of its own: that a call
 * completes in bounded time while its peer is preempted, or that an MT-unsafe call keeps
 * its peer out (and how fast the peer hears so) while its holder is preempted. Every other pair case runs on oversub only when --placement names it, as its
 * figure there times the scheduler's slices, not the case.
 */
#define DPK_BENCH_ON_OVERSUB (1u << 0)

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
	/** Optional: allocate and initialise run->state for run->nroles roles; 0 or -errno.
	 *  Runs before every round of the case: each round starts from a fresh set-up.
	 *  -ENODEV says the case cannot run here (too few roles, a library that cannot
	 *  start): the result is skipped instead of failed, with the reason given to
	 *  dpk_bench_fail() before returning, if any. */
	int (*setup)(struct dpk_bench_run *run);
	/** Perform @p n operations as role @p role; return the number completed. */
	dpk_bench_body_fn body;
	/** Optional: the body at DPK_BENCH_LAYOUTS code offsets (see DPK_BENCH_CODE_AT()),
	 *  used by one-lcore batches in place of body; all or none. */
	dpk_bench_body_fn layouts[DPK_BENCH_LAYOUTS];
	/** Optional: check end-of-round invariants (dpk_bench_fail on breakage) and free what
	 *  setup allocated outside dpk_bench_alloc(). */
	void (*teardown)(struct dpk_bench_run *run);
	/** Case-specific constant data. */
	const void *arg;
	/** Variants that answer one question share a group (with equal params): with
	 *  --interleave they run in the same rounds (one kind and placement at a time) and
	 *  each is reported as a paired ratio to the first of the group. NULL: the case name is the group, which pairs the same case across
	 *  suites (dpkit's ring and DPDK's). */
	const char *group;
	/** DPK_BENCH_ON_OVERSUB, or 0. */
	unsigned flags;
};

/**
 * A running case, as its set-up, body and tear-down see it. The harness allocates it
 * (larger than this, with state of its own after these fields); the fields below keep
 * their meaning and place in every release.
 */
struct dpk_bench_run {
	const struct dpk_bench_case *c; /**< the case */
	void *state;                    /**< the case's own state, set by its setup */
	unsigned nroles;                /**< roles running (1 for single-lcore cases) */
	enum dpk_placement placement;   /**< where it runs */
	unsigned char stop;             /**< read it with dpk_bench_stopped() only */
};

/** A suite: a name and its cases. */
struct dpk_bench_suite {
	const char *name; /**< unique among the suites of a program: letters, digits, '_' */
	const char *desc; /**< one line, printed above its table */
	const struct dpk_bench_case *cases;
	unsigned ncases;
	bool default_on; /**< run when no pattern is given */
};

/** True once the case must stop; poll it in every wait loop of a multi-lcore body. */
static inline bool dpk_bench_stopped(const struct dpk_bench_run *run)
{
	/* Relaxed: the flag carries no data; the harness joins the lcores afterwards. */
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED) != 0;
}

/** Record that an invariant broke (the first message is kept) and stop the case.
 *  Thread-safe; callable from any role. */
void dpk_bench_fail(struct dpk_bench_run *run, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/** Value of parameter @p name of case @p c, or @p dflt when it has none. */
long dpk_bench_param(const struct dpk_bench_case *c, const char *name, long dflt);

/**
 * Memory for a case's state, from an arena the harness maps for each round at a fixed
 * virtual address (the same in every run of the same case) and unmaps after teardown;
 * never free it. Addresses decide which cache sets and way-predictor tags lines share,
 * and a heap that lands differently in each run can move a figure far beyond the noise
 * between otherwise identical runs (docs/method.md, "Memory layout"). Allocations are
 * @p align-aligned (a power of two, at least 64) and zeroed. NULL when the arena is full or
 * @p align is not a power of two.
 */
void *dpk_bench_alloc(struct dpk_bench_run *run, size_t size, size_t align);

/** Keep the compiler from optimising a value away. */
#define DPK_BENCH_KEEP(x) __asm__ volatile("" : "+r"(x)::"memory")

/** Most libraries dpk_bench_library() takes. */
#define DPK_BENCH_LIBRARIES_MAX 8

/**
 * Name a library the program's cases time and its version, for the environment block and
 * the results (the "libraries" item: "DPDK 22.11.11, ck 0.7.1"), where compare warns when
 * two files differ in it. Call it before dpk_bench_main(), from one thread.
 * @retval 0 noted
 * @retval -EINVAL @p name or @p version NULL or empty, or either past 63 characters
 * @retval -ENOSPC DPK_BENCH_LIBRARIES_MAX already noted
 */
int dpk_bench_library(const char *name, const char *version);

/**
 * The dpk-bench command line over the suites given: run, list, env, compare, spread,
 * report, ab, convert, with their options (`--help`). Each argument after @p argv is a
 * NULL-terminated array of suites; the list of arrays ends with NULL. dpkit's own suites
 * are dpk_bench_dpkit_suites, so a program times its own code beside dpkit's with
 *
 *     return dpk_bench_main(argc, argv, my_suites, dpk_bench_dpkit_suites, NULL);
 *
 * and instead of them by leaving dpk_bench_dpkit_suites out. Suites are checked first: a
 * duplicate suite name, a case without a name or body, an unknown kind or unit, or two
 * cases of one suite with the same name, kind and parameters end the program with a message
 * naming it and exit status 2.
 * @return the exit status: 0 fine, 1 a case failed (or a compare/ab gate), 2 bad input
 */
int dpk_bench_main(int argc, char **argv, ...);

/** dpkit's own suites (floor, ring, service, pool, packet, distributor), NULL-terminated. */
extern const struct dpk_bench_suite *const dpk_bench_dpkit_suites[];

#ifdef __cplusplus
}
#endif

#endif /* DPK_BENCH_H */
