/* SPDX-License-Identifier: BSD-3-Clause */
/* suites.h - dpkit's own suites, and the peers' (DPDK, Concurrency Kit) where built. */
#ifndef DPK_BENCH_SUITES_H
#define DPK_BENCH_SUITES_H

#include <dpk/bench.h>

extern const struct dpk_bench_suite dpk_suite_floor;
extern const struct dpk_bench_suite dpk_suite_ring;
extern const struct dpk_bench_suite dpk_suite_service;
extern const struct dpk_bench_suite dpk_suite_distributor;
extern const struct dpk_bench_suite dpk_suite_pool;
extern const struct dpk_bench_suite dpk_suite_packet;

/** The peers' suites (peers.h: DPDK's rte_ring as dpdk_ring, ...), in run order,
 *  NULL-terminated; those of a library the build did not find are stubs saying so. */
extern const struct dpk_bench_suite *const dpk_bench_peer_suites[];

#endif /* DPK_BENCH_SUITES_H */
