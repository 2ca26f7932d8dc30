/* SPDX-License-Identifier: BSD-3-Clause */
/* aarch64: the generic timer states its frequency in cntfrq_el0. */
#include <dpk/cycles.h>

#include "../../internal.h"

bool dpk__tsc_arch_hz(struct dpk__tsc_arch_hz *out)
{
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	if (f == 0)
		return false;
	out->hz = f;
	out->src = DPK_TSC_SRC_CNTFRQ;
	return true;
}
