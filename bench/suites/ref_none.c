/* SPDX-License-Identifier: BSD-3-Clause */
/* No reference library installed: no reference suites. */
#include <stddef.h>

#include "suites.h"

const struct dpk_bench_suite *const dpk_bench_ref_suites[] = {
        NULL,
};
