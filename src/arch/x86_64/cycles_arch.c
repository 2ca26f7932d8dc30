/* SPDX-License-Identifier: BSD-3-Clause */
/* x86-64: the TSC frequency from CPUID leaf 0x15 where the CPU states it. */
#include <cpuid.h>

#include <dpk/cycles.h>

#include "../../internal.h"

bool dpk__tsc_arch_hz(struct dpk__tsc_arch_hz *out)
{
	unsigned eax, ebx, ecx, edx;

	if (__get_cpuid_max(0, NULL) < 0x15)
		return false;
	__cpuid(0x15, eax, ebx, ecx, edx);
	/* EAX: denominator, EBX: numerator of TSC/crystal; ECX: crystal Hz (0: not stated).
	 * AMD and many client parts leave these zero, and then we calibrate. */
	if (eax == 0 || ebx == 0 || ecx == 0)
		return false;
	out->hz = (uint64_t)ecx * ebx / eax;
	out->src = DPK_TSC_SRC_CPUID;
	return true;
}
