/* SPDX-License-Identifier: BSD-3-Clause */
/* Elsewhere the counter is CLOCK_MONOTONIC_RAW in nanoseconds. */
#include <dpk/cycles.h>

#include "../../internal.h"

bool dpk__tsc_arch_hz(struct dpk__tsc_arch_hz *out)
{
	out->hz = 1000000000u;
	out->src = DPK_TSC_SRC_NANOSECONDS;
	return true;
}
