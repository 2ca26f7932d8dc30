/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_eal.h - DPDK's runtime inside dpk-bench, for the peer suites whose blocks need it
 * (service cores, mempool, mbuf, distributor; DPDK's ring runs on memory of its own and
 * does not).
 *
 * EAL starts the first time such a case is set up, once per process, never at program
 * start: `dpk-bench run ring` does not start it. It runs in memory (no hugepages, no PCI,
 * no shared configuration, no telemetry) on two EAL lcores: lcore 0 is the thread that
 * sets cases up and runs one-lcore cases (dpkit's main lcore), lcore 1 is the service
 * lcore, on another CPU than the main lcore's where there is one. dpkit's worker lcores
 * become DPDK lcores the first time a role runs on them (rte_thread_register()), so that
 * per-lcore mempool caches and app-lcore service calls work there.
 *
 * DPDK's log goes nowhere unless DPK_BENCH_DPDK_LOG is set; then it goes to stderr, at
 * DPDK's default level when the variable is empty or "1", else at the level it names (an
 * EAL --log-level argument: "debug", "lib.eal:debug", "8"). Either way its last line is
 * kept, and a case that cannot run because EAL did not start is skipped with a reason
 * that quotes it.
 *
 * Concurrency: dpk_dpdk_ready() and the helpers below it run in set-up and tear-down
 * (the main lcore, no role running); dpk_dpdk_role() runs in bodies, on any role.
 */
#ifndef DPK_BENCH_DPDK_EAL_H
#define DPK_BENCH_DPDK_EAL_H

#include <stdbool.h>
#include <stddef.h>

#include <rte_lcore.h>

#include <dpk/bench.h>

struct rte_mempool;

/** The EAL lcore dpk-bench maps services to, for the service lcore cases. */
#define DPK_DPDK_SERVICE_LCORE 1u

/** The CPU of EAL's service lcore once EAL is up (DPK_CPU_MAX before). */
extern unsigned dpk_dpdk_svc_cpu;

/**
 * Start DPDK's EAL unless it is running (the first call decides; later calls return its
 * outcome). When EAL cannot start, the case's failure message says "DPDK's EAL did not
 * start: " and the reason; a set-up that gets false returns -ENODEV and does nothing more,
 * so that the case is skipped with that message.
 * @return whether EAL runs
 */
bool dpk_dpdk_ready(struct dpk_bench_run *run);

/**
 * The zeroed, 64-byte aligned state of @p size bytes of a case that needs EAL (free() it),
 * or NULL with *@p rc the set-up's return: -ENODEV when EAL is down (dpk_dpdk_ready() has
 * said why), -ENOMEM when memory is short. A one-lcore case runs on EAL's main lcore; if
 * its thread were none, per-lcore caches would go unused, and the case fails saying so.
 */
void *dpk_dpdk_state(struct dpk_bench_run *run, size_t size, int *rc);

/** Give the calling thread a DPDK lcore id (rte_thread_register()); false, with case
 *  @p run failed, when DPDK has none left. Call it through dpk_dpdk_role(). */
bool dpk_dpdk_register(struct dpk_bench_run *run);

/** Make the calling role's thread a DPDK lcore the first time it runs there: per-lcore
 *  caches and service calls need one. False (and @p run failed) when it cannot be. */
static inline bool dpk_dpdk_role(struct dpk_bench_run *run)
{
	return rte_lcore_id() != LCORE_ID_ANY || dpk_dpdk_register(run);
}

/** A name for a DPDK object that no other object of this process has: @p what and a
 *  counter, into @p buf of @p len bytes (DPDK's names are short: keep @p what so). */
void dpk_dpdk_name(char *buf, size_t len, const char *what);

/** The last line DPDK logged ("" when none), for a failure's reason. */
const char *dpk_dpdk_last_log(void);

/**
 * The end-of-round check of a mempool of @p count objects, no role running: every
 * per-lcore cache is flushed back to the pool, then all @p count objects must come out
 * of it, none twice and each the pool's own (rte_mempool_from_obj()); they go back in.
 * A breach fails case @p run naming it. DPDK's rte_mempool_audit() checks only in debug
 * builds of DPDK and panics instead of reporting, so this stands in for it.
 */
void dpk_dpdk_pool_check(struct dpk_bench_run *run, struct rte_mempool *mp, unsigned count);

#endif /* DPK_BENCH_DPDK_EAL_H */
