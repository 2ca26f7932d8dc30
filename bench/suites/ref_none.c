/* SPDX-License-Identifier: BSD-3-Clause */
/* No peer library installed: no peer suites. */
#include <stddef.h>

#include "suites.h"

const struct dpk_bench_suite *const dpk_bench_peer_suites[] = {
        NULL,
};
