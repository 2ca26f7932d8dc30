/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/lcore.h - logical cores: one pinned thread per lcore, ids chosen by a DPDK-style
 * spec, and launch/wait of a function on each.
 *
 * Spec syntax (as DPDK's --lcores), a comma-separated list of groups:
 *   3          lcore 3 on CPU 3
 *   0-3        lcores 0..3, each on the CPU of the same number
 *   (0-1)@0    lcores 0 and 1, both on CPU 0 (oversubscribed)
 *   2@(4-5)    lcore 2, free to run on CPUs 4 and 5
 *   (0,2)@(4-5) lcores 0 and 2, each free to run on CPUs 4 and 5
 *   1@3        lcore 1 on CPU 3
 *   (0-3)      lcores 0..3, each free to run on CPUs 0..3 (as DPDK: no '@', same set)
 * A plain range may stand for a parenthesised set on either side ("1-2@3", "2@4-5"). An
 * lcore id may appear only once; a CPU may be named by several lcores. Spaces are not
 * allowed anywhere.
 * Lcore ids are 0 .. DPK_LCORE_MAX-1 and may be sparse. The lowest id is the main lcore:
 * the thread that calls dpk_lcore_init() becomes it and is pinned to its CPUs until
 * dpk_lcore_fini(), which restores its old affinity. Every other lcore gets its own
 * thread, named "dpk-lcore-<id>", pinned to its CPUs and asleep (not spinning) until it
 * is launched.
 *
 * Memory: what the main lcore wrote before dpk_lcore_launch() is visible to the launched
 * function, and what the function wrote is visible to the main lcore once
 * dpk_lcore_wait() returns, or once dpk_lcore_state() says DPK_LCORE_FINISHED.
 *
 * Concurrency:
 *   dpk_lcore_init / dpk_lcore_fini   main thread only, with no lcore running
 *   dpk_lcore_launch / _wait / _all   main lcore only
 *   dpk_lcore_id                      any thread
 *   count, iteration, queries, pairs  any thread between init and fini
 */
#ifndef DPK_LCORE_H
#define DPK_LCORE_H

#include <dpk/common.h>
#include <dpk/impl/compat.h>
#include <dpk/topology.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Number of lcore ids. */
#define DPK_LCORE_MAX 128

/** dpk_lcore_id() of a thread that is not an lcore; also "no lcore" in iteration. */
#define DPK_LCORE_ANY UINT32_MAX

/** A parsed spec: which lcore ids exist and the CPUs each may run on. */
struct dpk_lcore_spec {
	unsigned count;                        /**< number of lcores in the spec */
	unsigned ids[DPK_LCORE_MAX];           /**< their ids, ascending */
	struct dpk_cpuset cpus[DPK_LCORE_MAX]; /**< cpus[i]: CPUs of lcore ids[i] */
};

/**
 * Parse @p text into @p out. Purely syntactic: CPUs are not checked against the machine.
 * @retval 0       success
 * @retval -EINVAL empty or malformed, an lcore id >= DPK_LCORE_MAX, a CPU >= DPK_CPU_MAX,
 *                 or an lcore id given twice; dpk_last_error() names the bad token
 */
int dpk_lcore_spec_parse(const char *text, struct dpk_lcore_spec *out);

/**
 * Check that every CPU of @p spec is present and online in @p topo (NULL: the system).
 * @retval 0       every CPU exists and is online
 * @retval -EINVAL @p spec is NULL or not as dpk_lcore_spec_parse() makes one (no lcores,
 *                 ids not ascending or out of range, an lcore without CPUs)
 * @retval -ENODEV a CPU does not exist or is offline, or @p topo is NULL and the system's
 *                 topology cannot be read; dpk_last_error() names the CPU or the file
 */
int dpk_lcore_spec_check(const struct dpk_lcore_spec *spec, const struct dpk_topo *topo);

/**
 * Pick two lcores of @p spec whose single CPUs are in relation @p p on @p topo (NULL: the
 * system). Lcores free to run on several CPUs are never picked. The first lcore returned
 * has the lower id; among several pairs the one with the lowest (a, b) is returned.
 * @retval 0       *a and *b are set
 * @retval -ENOENT no such pair (or @p topo is NULL and the system's cannot be read)
 * @retval -EINVAL @p p is not a pair placement, or an argument is NULL
 */
int dpk_lcore_spec_pair(const struct dpk_lcore_spec *spec, const struct dpk_topo *topo,
                        enum dpk_placement p, unsigned *a, unsigned *b);

/**
 * Parse @p spec, check it against the system, start one pinned thread per lcore but the
 * lowest, and make the caller that lowest (main) lcore.
 * @retval 0       success
 * @retval -EINVAL bad spec (see dpk_lcore_spec_parse)
 * @retval -ENODEV a CPU does not exist or is offline
 * @retval -EALREADY lcores are already initialised
 * @retval -errno  a thread could not be created or pinned; nothing is left running
 */
int dpk_lcore_init(const char *spec);

/** As dpk_lcore_init() from an already parsed spec. */
int dpk_lcore_init_spec(const struct dpk_lcore_spec *spec);

/**
 * Join every lcore thread and restore the main thread's affinity.
 * @retval 0      success (also when not initialised)
 * @retval -EBUSY an lcore is still running a launched function
 * @retval -EPERM the caller is not the thread that called dpk_lcore_init(); nothing changed
 */
int dpk_lcore_fini(void);

/* The calling thread's lcore id; private to dpkit, read through dpk_lcore_id(). The
 * initial-exec model makes the read one load from the thread pointer, also when dpkit is a
 * shared library (it must then be loaded at start-up or have static TLS room to spare,
 * as any library with initial-exec TLS). */
extern DPK__THREAD_LOCAL unsigned dpk__lcore_id __attribute__((tls_model("initial-exec")));

/** The calling thread's lcore id, or DPK_LCORE_ANY if it is not an lcore. Inline: the
 *  pool and packet fast paths call it on every operation. */
static inline unsigned dpk_lcore_id(void)
{
	return dpk__lcore_id;
}

/** The main lcore's id, or DPK_LCORE_ANY when not initialised. */
unsigned dpk_lcore_main(void);

/** Number of lcores, main included; 0 when not initialised. */
unsigned dpk_lcore_count(void);

/** True when @p id is an lcore. */
bool dpk_lcore_is_enabled(unsigned id);

/** Dense index 0..count-1 of lcore @p id, or -EINVAL if it is not an lcore. */
int dpk_lcore_index(unsigned id);

/**
 * The next lcore id after @p id (start with DPK_LCORE_ANY to get the first), skipping the
 * main lcore when @p skip_main; DPK_LCORE_ANY when there is none.
 */
unsigned dpk_lcore_next(unsigned id, bool skip_main);

/** Iterate @p id over every lcore, main included. */
#define DPK_LCORE_FOREACH(id)                                                                      \
	for ((id) = dpk_lcore_next(DPK_LCORE_ANY, false); (id) != DPK_LCORE_ANY;                   \
	     (id) = dpk_lcore_next((id), false))

/** Iterate @p id over every lcore but the main one. */
#define DPK_LCORE_FOREACH_WORKER(id)                                                               \
	for ((id) = dpk_lcore_next(DPK_LCORE_ANY, true); (id) != DPK_LCORE_ANY;                    \
	     (id) = dpk_lcore_next((id), true))

/**
 * The CPUs lcore @p id runs on.
 * @retval 0       *out is set
 * @retval -EINVAL @p id is not an lcore or @p out is NULL
 */
int dpk_lcore_cpus(unsigned id, struct dpk_cpuset *out);

/** The lowest CPU of lcore @p id, or DPK_CPU_MAX if it is not an lcore. */
unsigned dpk_lcore_cpu(unsigned id);

/** As dpk_lcore_spec_pair() on the running lcores and the system topology; -ENOENT when
 * lcores are not initialised. */
int dpk_lcore_pair(enum dpk_placement p, unsigned *a, unsigned *b);

/** A function run on an lcore; its return value is what dpk_lcore_wait() gives back. */
typedef int (*dpk_lcore_fn)(void *arg);

/** State of a worker lcore. */
enum dpk_lcore_state {
	DPK_LCORE_WAIT,     /**< idle, ready to be launched */
	DPK_LCORE_RUNNING,  /**< running a launched function */
	DPK_LCORE_FINISHED, /**< the function returned; dpk_lcore_wait() collects it */
};

/**
 * Run @p fn(@p arg) on worker lcore @p id.
 * @retval 0       launched
 * @retval -EINVAL @p id is not a worker lcore (the main lcore included) or @p fn is NULL
 * @retval -EBUSY  lcore @p id has not been waited for since its last launch
 * @retval -EPERM  the caller is not the main lcore
 */
int dpk_lcore_launch(unsigned id, dpk_lcore_fn fn, void *arg);

/**
 * Wait for lcore @p id to finish and return what its function returned; returns 0 at once
 * if nothing was launched.
 * @retval -EINVAL @p id is not a worker lcore
 * @retval -EPERM  the caller is not the main lcore
 */
int dpk_lcore_wait(unsigned id);

/** State of worker lcore @p id (DPK_LCORE_WAIT for ids that are not workers). */
enum dpk_lcore_state dpk_lcore_state(unsigned id);

/**
 * Launch @p fn(@p arg) on every worker lcore, and, when @p call_main, run it on the
 * calling main lcore too before returning.
 * @retval 0      all launched (and the main call returned 0)
 * @retval -EINVAL @p fn is NULL or lcores are not initialised
 * @retval -EPERM  the caller is not the main lcore; none was launched
 * @retval -EBUSY a worker was busy; none was launched
 * @retval other  the main lcore's own return value when it was not 0
 */
int dpk_lcore_launch_all(dpk_lcore_fn fn, void *arg, bool call_main);

/** Wait for every worker; returns the first non-zero result in id order, else 0 (-EPERM
 *  when the caller is not the main lcore, as dpk_lcore_wait()). */
int dpk_lcore_wait_all(void);

#ifdef __cplusplus
}
#endif

#endif /* DPK_LCORE_H */
