/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_int.h - what env.c and env_probe.c share and nothing outside them sees: the state
 * of one collection, the string appender, and the probes that fill an item each.
 */
#ifndef DPK_BENCH_ENV_INT_H
#define DPK_BENCH_ENV_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <dpk/common.h>

#include "env.h"

#define DPK__ENV_ROOT_LEN 512

/* What the first processor block of cpuinfo says. */
struct dpk__env_cpuinfo {
	bool readable;
	bool have_flags; /* an x86 "flags" line was present */
	bool constant_tsc, nonstop_tsc, hypervisor;
	char model[128];      /* "model name" */
	char implementer[16]; /* aarch64 "CPU implementer" */
	char part[16];        /* aarch64 "CPU part" */
};

struct dpk__env_ctx {
	const struct dpk_env_input *in;
	char sys[DPK__ENV_ROOT_LEN];
	char proc[DPK__ENV_ROOT_LEN];
	struct dpk_cpuset used; /* the CPUs the run uses */
	bool used_known;
	struct dpk__env_cpuinfo ci;
};

/* Append to the string in @p dst (of @p len bytes); a result that does not fit ends in
 * "..." so that a cut list is never mistaken for a whole one. */
void dpk__env_appendf(char *dst, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* What several probes read first: the CPUs the run uses (the harness's set, else the online
 * CPUs) and the first processor block of <proc>/cpuinfo. */
void dpk__env_read_shared(struct dpk__env_ctx *c);

/* The probes (env_probe.c): each fills in the value, verdict and detail of its item. */
void dpk__env_cpu_model(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_invariant_tsc(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_clocksource(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_governor(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_boost(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_smt(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_cpu_list(struct dpk__env_ctx *c, struct dpk_env_item *it, const char *file,
                       const char *in_words, const char *missing_hint);
void dpk__env_hypervisor(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_aslr(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_load(struct dpk__env_ctx *c, struct dpk_env_item *it);
void dpk__env_ssb(struct dpk__env_ctx *c, struct dpk_env_item *it);

#endif
