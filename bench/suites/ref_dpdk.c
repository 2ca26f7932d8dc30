/* SPDX-License-Identifier: BSD-3-Clause */
/* The peers' suites when DPDK's development files are installed. */
#include <stddef.h>

#include "suites.h"

extern const struct dpk_bench_suite dpk_suite_dpdk_ring;

const struct dpk_bench_suite *const dpk_bench_peer_suites[] = {
        &dpk_suite_dpdk_ring,
        NULL,
};
