/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peers' suites this build lacks, as stubs: each has one case, not_built, whose
 * set-up is skipped saying why, so that `dpk-bench list` names the suite and a run of it ends
 * with the reason instead of "no such suite". The build says which library is missing
 * and why (DPK_PEER_DPDK_ABSENT, DPK_PEER_CK_ABSENT).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "peers.h"

static int absent_setup(struct dpk_bench_run *run)
{
	dpk_bench_fail(run, "%s", (const char *)run->c->arg);
	return -ENODEV;
}

static uint64_t absent_body(struct dpk_bench_run *run, unsigned role, uint64_t n)
{
	(void)run;
	(void)role;
	return n;
}

#define ABSENT(var, nm, lib, why)                                                                  \
	static const struct dpk_bench_case var##_cases[] = {                                       \
	        {.name = DPK_PEER_NOT_BUILT,                                                       \
	         .desc = lib " is not built into this dpk-bench",                                  \
	         .kind = DPK_BENCH_SINGLE,                                                         \
	         .unit = DPK_UNIT_CALL,                                                            \
	         .setup = absent_setup,                                                            \
	         .body = absent_body,                                                              \
	         .arg = why},                                                                      \
	};                                                                                         \
	const struct dpk_bench_suite var = {.name = nm,                                            \
	                                    .desc = "not available: " why,                         \
	                                    .cases = var##_cases,                                  \
	                                    .ncases = 1,                                           \
	                                    .default_on = false}

#ifdef DPK_PEER_DPDK_ABSENT
ABSENT(dpk_suite_dpdk_ring, "dpdk_ring", "DPDK", DPK_PEER_DPDK_ABSENT);
ABSENT(dpk_suite_dpdk_service, "dpdk_service", "DPDK", DPK_PEER_DPDK_ABSENT);
ABSENT(dpk_suite_dpdk_mempool, "dpdk_mempool", "DPDK", DPK_PEER_DPDK_ABSENT);
ABSENT(dpk_suite_dpdk_mbuf, "dpdk_mbuf", "DPDK", DPK_PEER_DPDK_ABSENT);
ABSENT(dpk_suite_dpdk_distributor, "dpdk_distributor", "DPDK", DPK_PEER_DPDK_ABSENT);
#endif
#ifdef DPK_PEER_CK_ABSENT
ABSENT(dpk_suite_ck_ring, "ck_ring", "Concurrency Kit", DPK_PEER_CK_ABSENT);
#endif
