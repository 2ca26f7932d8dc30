/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.c - the suite API's calls (<dpk/bench.h>) and the harness's side of a running case
 * (its arena is arena.c's).
 *
 * Memory orders (labels of this file):
 *   M1  release of fail_ready in dpk_bench_fail(), once fail_msg is written; pairs with M2.
 *   M2  acquire of fail_ready in dpk_bench_ctl_fail_message(); pairs with M1.
 *   W1  relaxed store of woken in dpk_bench_fail(); pairs with W2 in multi.c, the futex
 *       wait of the main lcore (the word carries no data; see the comment at W1).
 * The stop flag and failed are relaxed: neither carries data, and the roles are joined
 * before anything they wrote is read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine_int.h"

static const char *const unit_names[DPK_UNIT_COUNT] = {
        [DPK_UNIT_ELEMENT] = "per element",       [DPK_UNIT_CALL] = "per call",
        [DPK_UNIT_PACKET] = "per packet",         [DPK_UNIT_OBJECT] = "per object",
        [DPK_UNIT_ROUND_TRIP] = "per round trip", [DPK_UNIT_ITERATION] = "per iteration",
};

const char *dpk_bench_unit_name(enum dpk_bench_unit u)
{
	return (unsigned)u < DPK_UNIT_COUNT ? unit_names[u] : "per ?";
}

void dpk_bench_fail(struct dpk_bench_run *run, const char *fmt, ...)
{
	struct dpk_bench_ctl *x = dpk_bench_ctl_of(run);
	bool expected = false;

	/* The first failure claims the message; the CAS keeps a second writer out. */
	if (atomic_compare_exchange_strong_explicit(&x->failed, &expected, true,
	                                            memory_order_relaxed, memory_order_relaxed)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->fail_msg, sizeof(x->fail_msg), fmt, ap);
		va_end(ap);
		/* M1: pairs with M2: the text is complete before it is read. */
		atomic_store_explicit(&x->fail_ready, true, memory_order_release);
	}
	dpk_bench_ctl_stop(x);
	/* W1: pairs with W2 in multi.c, where the main lcore of a multi-lcore case sleeps out
	 * the budget on this word. Relaxed: the word carries no data (the message has M1/M2,
	 * and the roles are joined before anything is read), and the kernel compares the word
	 * under its own lock, so a wait that begins after this store sees 1 and returns, and
	 * one that began before it is woken by the call below. */
	atomic_store_explicit(&x->woken, 1, memory_order_relaxed);
	syscall(SYS_futex, &x->woken, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

const char *dpk_bench_ctl_fail_message(struct dpk_bench_ctl *x)
{
	/* M2: pairs with M1 in dpk_bench_fail(). A role still running could be writing it,
	 * which the callers rule out by joining the roles first. */
	if (atomic_load_explicit(&x->fail_ready, memory_order_acquire))
		return x->fail_msg;
	return "an invariant broke (message still being written)";
}

bool dpk_bench_ctl_failed(struct dpk_bench_ctl *x)
{
	return atomic_load_explicit(&x->failed, memory_order_relaxed);
}

void dpk_bench_ctl_stop(struct dpk_bench_ctl *x)
{
	__atomic_store_n(&x->run.stop, 1, __ATOMIC_RELAXED);
}

void dpk_bench_ctl_init(struct dpk_bench_ctl *x, const struct dpk_bench_case *c,
                        enum dpk_placement p, unsigned nroles)
{
	memset(x, 0, sizeof(*x));
	x->run.c = c;
	x->run.placement = p;
	x->run.nroles = nroles;
	atomic_init(&x->failed, false);
	atomic_init(&x->fail_ready, false);
	atomic_init(&x->woken, 0u);
}

long dpk_bench_param(const struct dpk_bench_case *c, const char *name, long dflt)
{
	for (unsigned i = 0; i < DPK_BENCH_PARAMS_MAX && c->params[i].name; i++)
		if (strcmp(c->params[i].name, name) == 0)
			return c->params[i].value;
	return dflt;
}

char *dpk_bench_params_str(const struct dpk_bench_case *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < DPK_BENCH_PARAMS_MAX && c->params[i].name; i++) {
		int w = snprintf(buf + off, len - off, "%s%s=%ld", i ? " " : "", c->params[i].name,
		                 c->params[i].value);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
	return buf;
}

char *dpk_bench_group_key(const struct dpk_bench_case *c, char *buf, size_t len)
{
	char params[96];

	snprintf(buf, len, "%s|%s", c->group ? c->group : c->name,
	         dpk_bench_params_str(c, params, sizeof(params)));
	return buf;
}

void dpk_bench_options_default(struct dpk_bench_options *o)
{
	memset(o, 0, sizeof(*o));
	o->time_s = 0.2;
	o->warmup_s = 0.03;
	o->repeat = 1;
	o->lcores = NULL;
	for (unsigned p = 0; p < DPK_PLACE_COUNT; p++)
		o->placement_on[p] = true;
	o->max_samples = 200000;
	o->rounds = 40;
	o->slow_limit = 0.05;
	o->witness_check_s = DPK_WITNESS_CHECK_S;
}

/* ---- results -------------------------------------------------------------------- */

void dpk_bench_result_init(struct dpk_bench_result *res, const struct dpk_bench_suite *s,
                           const struct dpk_bench_case *c, enum dpk_placement p, unsigned repeat)
{
	memset(res, 0, sizeof(*res));
	res->suite = s;
	res->c = c;
	res->placement = p;
	res->repeat = repeat;
	res->status = DPK_RESULT_OK;
	res->witness_kept_p50 = NAN;
}

void dpk_bench_result_fail(struct dpk_bench_result *res, const char *fmt, ...)
{
	va_list ap;

	res->status = DPK_RESULT_FAILED;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
}

void dpk_bench_result_empty(struct dpk_bench_result *res, double time_s)
{
	res->status = DPK_RESULT_EMPTY;
	snprintf(res->reason, sizeof(res->reason),
	         "no complete sample within %.3f s (a pair sharing one CPU may only move at "
	         "context switches)",
	         time_s);
}

void dpk_bench_result_free(struct dpk_bench_result *res)
{
	free(res->raw);
	res->raw = NULL;
	res->nraw = 0;
	free(res->raw_cycles);
	res->raw_cycles = NULL;
	res->nraw_cycles = 0;
	free(res->rounds);
	res->rounds = NULL;
	res->nrounds = 0;
}

bool dpk_bench_ctl_setup(struct dpk_bench_ctl *x, struct dpk_bench_result *res)
{
	dpk_bench_arena_map(x);
	if (!x->run.c->setup)
		return true;
	int rc = x->run.c->setup(&x->run);
	if (rc == 0 && !dpk_bench_ctl_failed(x))
		return true;
	if (rc == -ENODEV && dpk_bench_ctl_failed(x)) { /* a reason the set-up gave */
		res->status = DPK_RESULT_SKIPPED;
		snprintf(res->reason, sizeof(res->reason), "%s", dpk_bench_ctl_fail_message(x));
	} else if (rc == -ENODEV) { /* these lcores cannot run it: a fact of the placement */
		res->status = DPK_RESULT_SKIPPED;
		snprintf(
		        res->reason, sizeof(res->reason),
		        "cannot run on %u lcore%s: its set-up needs more or other lcores (-ENODEV)",
		        x->run.nroles, x->run.nroles == 1 ? "" : "s");
	} else if (rc)
		dpk_bench_result_fail(res, "setup: %s", strerror(rc < 0 ? -rc : rc));
	else
		dpk_bench_result_fail(res, "setup: %s", dpk_bench_ctl_fail_message(x));
	dpk_bench_arena_unmap(x);
	return false;
}

bool dpk_bench_ctl_teardown(struct dpk_bench_ctl *x, struct dpk_bench_result *res)
{
	bool ok;

	if (x->run.c->teardown)
		x->run.c->teardown(&x->run);
	ok = !dpk_bench_ctl_failed(x);
	if (!ok)
		dpk_bench_result_fail(res, "%s", dpk_bench_ctl_fail_message(x));
	dpk_bench_arena_unmap(x);
	return ok;
}
