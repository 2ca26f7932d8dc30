/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.c - the environment report: what the run's figures depend on, each with a verdict.
 * This file holds the item table (dpk_env_collect() fills it in order), the facts the
 * harness passes in, and lookup; the probes of sysfs and procfs are in env_probe.c.
 *
 * Everything is read from files under a sysfs and a procfs root so that tests can point the
 * collector at fake trees. A file that cannot be read gives an unknown verdict naming it;
 * nothing missing is ever reported as ok.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <dpk/common.h>
#include <dpk/cycles.h>

#include "env_int.h"

const char *dpk_verdict_name(enum dpk_verdict v)
{
	switch (v) {
	case DPK_VERDICT_OK:
		return "ok";
	case DPK_VERDICT_DEGRADED:
		return "degraded";
	case DPK_VERDICT_UNKNOWN:
		return "unknown";
	case DPK_VERDICT_INFO:
		return "info";
	}
	return "invalid";
}

void dpk__env_appendf(char *dst, size_t len, const char *fmt, ...)
{
	size_t used = strlen(dst);
	va_list ap;
	int r;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	r = vsnprintf(dst + used, len - used, fmt, ap);
	va_end(ap);
	if (r >= 0 && (size_t)r >= len - used && len > 4)
		memcpy(dst + len - 4, "...", 4);
}

/* Items dpk_env_collect() writes; out->count starts at 0, so add_item() cannot overflow. */
#define ITEMS 19
static_assert(ITEMS <= DPK_ENV_ITEMS_MAX, "struct dpk_env holds every item");

static struct dpk_env_item *add_item(struct dpk_env *env, const char *key, const char *label)
{
	struct dpk_env_item *it = &env->item[env->count++];

	memset(it, 0, sizeof(*it));
	snprintf(it->key, sizeof(it->key), "%s", key);
	snprintf(it->label, sizeof(it->label), "%s", label);
	it->verdict = DPK_VERDICT_UNKNOWN;
	return it;
}

/* Where the program's code lies, and why (hugetext.c). */
static void code_pages(struct dpk_env_item *it)
{
	it->verdict = DPK_VERDICT_INFO;
	snprintf(it->value, sizeof(it->value), "%s", dpk_bench_text_state());
	snprintf(it->detail, sizeof(it->detail), "%s", dpk_bench_text_why());
}

/* A fact the harness passed in: info when given, unknown when not. */
static void given(struct dpk_env_item *it, const char *value)
{
	if (!value) {
		it->verdict = DPK_VERDICT_UNKNOWN;
		dpk__env_appendf(it->detail, sizeof(it->detail), "not given by the harness");
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	dpk__env_appendf(it->value, sizeof(it->value), "%s", value[0] ? value : "(none)");
}

static void item_kernel(struct dpk_env_item *it)
{
	struct utsname u;

	if (uname(&u) != 0) {
		dpk__env_appendf(it->detail, sizeof(it->detail), "uname() failed");
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	dpk__env_appendf(it->value, sizeof(it->value), "%s %s %s", u.sysname, u.release, u.machine);
	dpk__env_appendf(it->detail, sizeof(it->detail), "%s", u.version);
}

static void item_build_type(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	const char *b = c->in->build_type;

	given(it, b);
	if (!b)
		return;
	/* Unoptimised and sanitizer builds measure something other than the library. */
	if (strcmp(b, "Release") == 0 || strcmp(b, "RelWithDebInfo") == 0 ||
	    strcmp(b, "MinSizeRel") == 0) {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(it->detail, sizeof(it->detail), "optimised build");
	} else if (strcmp(b, "Debug") == 0 || strcmp(b, "Asan") == 0 || strcmp(b, "Tsan") == 0) {
		it->verdict = DPK_VERDICT_DEGRADED;
		dpk__env_appendf(
		        it->detail, sizeof(it->detail),
		        "unoptimised or instrumented: figures do not represent a release build");
	}
}

static void item_dpkit(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	const char *v = c->in->version ? c->in->version : dpk_version();
	const char *g = c->in->git_rev ? c->in->git_rev : "unknown";

	it->verdict = DPK_VERDICT_INFO;
	dpk__env_appendf(it->value, sizeof(it->value), "%s (git %s)", v, g);
}

static void item_tsc_hz(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	uint64_t hz = c->in->tsc_hz;

	if (hz == 0) {
		dpk__env_appendf(it->detail, sizeof(it->detail), "the harness did not measure it");
		return;
	}
	const char *src = c->in->tsc_source ? c->in->tsc_source : "not given";
	double check = c->in->tsc_hz_check;

	it->verdict = DPK_VERDICT_INFO;
	dpk__env_appendf(it->value, sizeof(it->value), "%.3f MHz", (double)hz / 1e6);
	dpk__env_appendf(it->detail, sizeof(it->detail), "%llu Hz, source: %s",
	                 (unsigned long long)hz, src);
	if (strcmp(src, dpk_tsc_source_name(DPK_TSC_SRC_NANOSECONDS)) == 0) {
		/* No counter of the CPU's: every timing is a vDSO call, dearer and coarser. */
		it->verdict = DPK_VERDICT_DEGRADED;
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "; no CPU counter, timings by clock_gettime");
	} else if (check > 0) {
		double ppm = fabs(check - (double)hz) / (double)hz * 1e6;

		it->verdict = ppm <= DPK_ENV_TSC_HZ_PPM ? DPK_VERDICT_OK : DPK_VERDICT_DEGRADED;
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "; a check measured %.3f MHz, %.0f ppm %s", check / 1e6, ppm,
		                 it->verdict == DPK_VERDICT_OK
		                         ? "apart"
		                         : "apart: ns and Mops/s are off by as much");
	}
}

static void copy_root(char dst[DPK__ENV_ROOT_LEN], const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	/* A longer root fails as missing files, never overflows. */
	if (n >= DPK__ENV_ROOT_LEN)
		n = DPK__ENV_ROOT_LEN - 1;
	memcpy(dst, root, n);
	dst[n] = '\0';
}

void dpk_env_collect(const struct dpk_env_input *in, struct dpk_env *out)
{
	static const struct dpk_env_input none;
	struct dpk__env_ctx ctx, *c = &ctx;
	const char *sys;

	if (!out)
		return;
	out->count = 0;
	memset(c, 0, sizeof(*c));
	c->in = in ? in : &none;
	sys = c->in->sysfs_root;
	if (!sys)
		sys = getenv("DPK_SYSFS_ROOT");
	copy_root(c->sys, sys && sys[0] ? sys : "/sys");
	copy_root(c->proc, c->in->procfs_root ? c->in->procfs_root : "/proc");

	dpk__env_read_shared(c);

	dpk__env_cpu_model(c, add_item(out, "cpu_model", "CPU model"));
	item_kernel(add_item(out, "kernel", "Kernel"));
	given(add_item(out, "compiler", "Compiler"), c->in->compiler);
	given(add_item(out, "cflags", "Compiler flags"), c->in->cflags);
	item_build_type(c, add_item(out, "build_type", "Build type"));
	item_dpkit(c, add_item(out, "dpkit", "dpkit version"));
	if (c->in->libraries && c->in->libraries[0])
		given(add_item(out, "libraries", "Libraries timed"), c->in->libraries);
	dpk__env_invariant_tsc(c, add_item(out, "invariant_tsc", "Invariant TSC"));
	item_tsc_hz(c, add_item(out, "tsc_hz", "TSC frequency"));
	dpk__env_clocksource(c, add_item(out, "clocksource", "Kernel clocksource"));
	dpk__env_governor(c, add_item(out, "governor", "CPU frequency governor"));
	dpk__env_boost(c, add_item(out, "boost", "Frequency boost (turbo)"));
	dpk__env_smt(c, add_item(out, "smt", "SMT (hyper-threading)"));
	dpk__env_cpu_list(c, add_item(out, "isolcpus", "Isolated CPUs (isolcpus)"), "isolated",
	                  "isolated", "");
	dpk__env_cpu_list(c, add_item(out, "nohz_full", "Tickless CPUs (nohz_full)"), "nohz_full",
	                  "tickless", " (kernel without NO_HZ_FULL?)");
	dpk__env_hypervisor(c, add_item(out, "hypervisor", "Hypervisor"));
	dpk__env_aslr(c, add_item(out, "aslr", "Address space randomisation"));
	dpk__env_load(c, add_item(out, "load", "Load average"));
	dpk__env_ssb(c, add_item(out, "ssb", "Speculative store bypass"));
	code_pages(add_item(out, "code_pages", "Code pages"));
}

const struct dpk_env_item *dpk_env_find(const struct dpk_env *env, const char *key)
{
	if (!env || !key)
		return NULL;
	for (unsigned i = 0; i < env->count && i < DPK_ENV_ITEMS_MAX; i++)
		if (strcmp(env->item[i].key, key) == 0)
			return &env->item[i];
	return NULL;
}
