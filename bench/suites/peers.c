/* SPDX-License-Identifier: BSD-3-Clause */
/* The peers' suites, in run order, and the versions of their libraries (peers.h). */
#include <stddef.h>

#include "peers.h"

#ifdef DPK_DPDK_VERSION
#define DPDK_V DPK_DPDK_VERSION
#else
#define DPDK_V "not built (" DPK_PEER_DPDK_ABSENT ")"
#endif
#ifdef DPK_CK_VERSION
#define CK_V DPK_CK_VERSION
#else
#define CK_V "not built (" DPK_PEER_CK_ABSENT ")"
#endif

const char dpk_bench_peer_versions[] = "DPDK " DPDK_V ", ck " CK_V;
const char dpk_bench_peer_dpdk[] = DPDK_V;
const char dpk_bench_peer_ck[] = CK_V;

const struct dpk_bench_suite *const dpk_bench_peer_suites[] = {
        &dpk_suite_dpdk_ring,
        &dpk_suite_dpdk_service,
        &dpk_suite_dpdk_mempool,
        &dpk_suite_dpdk_mbuf,
        &dpk_suite_dpdk_distributor,
        &dpk_suite_ck_ring,
        NULL,
};
