/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers.h - the peers' suites: DPDK's blocks (dpdk_*) and Concurrency Kit's ring (ck_ring)
 * through the cases of dpkit's suites, each case in the group and with the parameters of
 * its dpkit twin so that an interleaved run pairs them. A suite whose library the build
 * did not find is a stub (ref_none.c) whose one case, not_built, fails saying why.
 */
#ifndef DPK_BENCH_PEERS_H
#define DPK_BENCH_PEERS_H

#include "suites.h"

extern const struct dpk_bench_suite dpk_suite_dpdk_ring;
extern const struct dpk_bench_suite dpk_suite_dpdk_service;
extern const struct dpk_bench_suite dpk_suite_dpdk_mempool;
extern const struct dpk_bench_suite dpk_suite_dpdk_mbuf;
extern const struct dpk_bench_suite dpk_suite_dpdk_distributor;
extern const struct dpk_bench_suite dpk_suite_ck_ring;

/** The name of a stub suite's one case. */
#define DPK_PEER_NOT_BUILT "not_built"

/**
 * The peer libraries of this build and their versions as pkg-config gave them, for the
 * environment block and the results: "DPDK 22.11.11, ck 0.7.1", with "not built (why)"
 * in place of a version for a library whose suites are stubs.
 */
extern const char dpk_bench_peer_versions[];

/** DPDK's and ck's parts of it, without the name: "22.11.11", "not built (why)". */
extern const char dpk_bench_peer_dpdk[];
extern const char dpk_bench_peer_ck[];

#endif /* DPK_BENCH_PEERS_H */
