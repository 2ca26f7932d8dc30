/* SPDX-License-Identifier: BSD-3-Clause */
/* The suites dpk-bench knows, in the order they run. */
#ifndef DPK_BENCH_SUITES_H
#define DPK_BENCH_SUITES_H

#include <dpk/bench.h>

extern const struct dpk_bench_suite dpk_suite_floor;
extern const struct dpk_bench_suite dpk_suite_ring;
extern const struct dpk_bench_suite dpk_suite_service;
extern const struct dpk_bench_suite dpk_suite_distributor;
extern const struct dpk_bench_suite dpk_suite_pool;
extern const struct dpk_bench_suite dpk_suite_packet;

/** Comparison suites built only when their reference library is installed (DPDK's rte_ring
 *  as dpdk_ring); the build picks suites_ref_dpdk.c or suites_ref_none.c. */
extern const struct dpk_bench_suite dpk_suite_dpdk_ring;
extern const struct dpk_bench_suite *const dpk_bench_ref_suites[]; /* NULL-terminated */

/** Suite @p i in run order (dpkit's own, then the reference ones); NULL past the last. */
const struct dpk_bench_suite *dpk_bench_suite_at(unsigned i);

#endif /* DPK_BENCH_SUITES_H */
