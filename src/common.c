/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-thread error message and the version string. */
#include <stdarg.h>
#include <stdio.h>

#include <dpk/common.h>

#include "internal.h"

static _Thread_local char last_error[256];

void dpk__set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *dpk_last_error(void)
{
	return last_error;
}

const char *dpk_version(void)
{
	return DPK_VERSION_STRING;
}
