/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lcores: the spec parser, one pinned thread per worker lcore, and launch/wait.
 *
 * A worker sleeps on a condition variable until it is launched or told to quit. Its state
 * word carries the hand-offs: the main lcore publishes fn and arg by storing RUNNING with
 * release (L1), the worker acquires it (W1); the worker publishes the return value and
 * everything the function wrote by storing FINISHED with release (F1), and wait and state
 * acquire it (C1). The mutex only guards the sleeping, so a wakeup is never lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/lcore.h>

#include "internal.h"

_Static_assert(DPK_CPU_MAX <= CPU_SETSIZE, "a dpk_cpuset must fit in a cpu_set_t");
_Static_assert(DPK_LCORE_MAX <= DPK_CPU_MAX, "an lcore id must be usable as a CPU number");

/* ---------------------------------------------------------------------------------------- */
/* Spec parsing */

struct spec_parser {
	const char *text; /* the whole spec, for messages */
	const char *p;    /* the next character to read */
};

/* Length of the token at @p s for messages: up to the next delimiter, and at least the
 * delimiter itself so that a stray one names itself. */
static int token_len(const char *s)
{
	size_t n = strcspn(s, ",()@-");

	return (int)(n ? n : (*s ? 1 : 0));
}

static int spec_error_missing(const struct spec_parser *ps)
{
	if (*ps->p == '\0')
		dpk__set_error("lcore spec '%s': number missing at the end", ps->text);
	else
		dpk__set_error("lcore spec '%s': number missing before '%s'", ps->text, ps->p);
	return -EINVAL;
}

/* A decimal number below @p max; @p what names it in messages ("lcore id", "CPU"). */
static int spec_number(struct spec_parser *ps, unsigned max, const char *what, unsigned *out)
{
	const char *start = ps->p;
	unsigned long v = 0;

	if (*ps->p == '\0' || strchr(",()@-", *ps->p))
		return spec_error_missing(ps);
	while (*ps->p >= '0' && *ps->p <= '9') {
		if (v < DPK_CPU_MAX)
			v = v * 10 + (unsigned long)(*ps->p - '0');
		ps->p++;
	}
	if (ps->p == start || (*ps->p != '\0' && !strchr(",()@-", *ps->p))) {
		dpk__set_error("lcore spec '%s': bad number '%.*s'", ps->text, token_len(start),
		               start);
		return -EINVAL;
	}
	if (v >= max) {
		dpk__set_error("lcore spec '%s': %s '%.*s' is not below %u", ps->text, what,
		               (int)(ps->p - start), start, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/* "n" or "n-m" into @p set; with @p unique, a number already in the set is an error. */
static int spec_range(struct spec_parser *ps, unsigned max, const char *what, bool unique,
                      struct dpk_cpuset *set)
{
	const char *start = ps->p;
	unsigned lo, hi;
	int rc;

	rc = spec_number(ps, max, what, &lo);
	if (rc)
		return rc;
	hi = lo;
	if (*ps->p == '-') {
		ps->p++;
		rc = spec_number(ps, max, what, &hi);
		if (rc)
			return rc;
		if (hi < lo) {
			dpk__set_error("lcore spec '%s': reversed range '%.*s'", ps->text,
			               (int)(ps->p - start), start);
			return -EINVAL;
		}
	}
	for (unsigned v = lo; v <= hi; v++) {
		if (unique && dpk_cpuset_isset(set, v)) {
			dpk__set_error("lcore spec '%s': lcore %u given twice", ps->text, v);
			return -EINVAL;
		}
		dpk_cpuset_set(set, v);
	}
	return 0;
}

/* A range, or a parenthesised list of ranges; *paren (when not NULL) says which. */
static int spec_set(struct spec_parser *ps, unsigned max, const char *what, bool unique,
                    struct dpk_cpuset *set, bool *paren)
{
	const char *open = ps->p;
	int rc;

	dpk_cpuset_zero(set);
	if (paren)
		*paren = *ps->p == '(';
	if (*ps->p != '(')
		return spec_range(ps, max, what, unique, set);
	ps->p++;
	for (;;) {
		rc = spec_range(ps, max, what, unique, set);
		if (rc)
			return rc;
		if (*ps->p == ')') {
			ps->p++;
			return 0;
		}
		if (*ps->p == '\0') {
			dpk__set_error("lcore spec '%s': missing ')' after '%s'", ps->text, open);
			return -EINVAL;
		}
		if (*ps->p != ',') {
			dpk__set_error("lcore spec '%s': unexpected '%s'", ps->text, ps->p);
			return -EINVAL;
		}
		ps->p++;
	}
}

int dpk_lcore_spec_parse(const char *text, struct dpk_lcore_spec *out)
{
	struct spec_parser ps = {text, text};
	struct dpk_cpuset have, cpus_of[DPK_LCORE_MAX];
	unsigned n = 0, id;
	int rc;

	if (!text || !out) {
		dpk__set_error("lcore spec: NULL argument");
		return -EINVAL;
	}
	if (*text == '\0') {
		dpk__set_error("lcore spec '': empty");
		return -EINVAL;
	}
	dpk_cpuset_zero(&have);
	for (;;) {
		struct dpk_cpuset lcores, cpus;
		bool lparen, at;

		rc = spec_set(&ps, DPK_LCORE_MAX, "lcore id", true, &lcores, &lparen);
		if (rc)
			return rc;
		at = *ps.p == '@';
		if (at) {
			ps.p++;
			rc = spec_set(&ps, DPK_CPU_MAX, "CPU", false, &cpus, NULL);
			if (rc)
				return rc;
		} else if (lparen) {
			/* As DPDK: "(0-3)" without '@' lets each lcore run on all of 0-3. */
			cpus = lcores;
		}
		if (*ps.p != '\0' && *ps.p != ',') {
			dpk__set_error("lcore spec '%s': unexpected '%s'", text, ps.p);
			return -EINVAL;
		}
		DPK_CPUSET_FOREACH(id, &lcores)
		{
			if (dpk_cpuset_isset(&have, id)) {
				dpk__set_error("lcore spec '%s': lcore %u given twice", text, id);
				return -EINVAL;
			}
			dpk_cpuset_set(&have, id);
			if (at || lparen) {
				cpus_of[id] = cpus;
			} else {
				/* "0-3" puts each lcore on the CPU of the same number. */
				dpk_cpuset_zero(&cpus_of[id]);
				dpk_cpuset_set(&cpus_of[id], id);
			}
		}
		if (*ps.p == '\0')
			break;
		ps.p++;
	}
	DPK_CPUSET_FOREACH(id, &have)
	{
		out->ids[n] = id;
		out->cpus[n] = cpus_of[id];
		n++;
	}
	out->count = n;
	return 0;
}

/* A spec as the parser makes it: 1..DPK_LCORE_MAX lcores, ids ascending and in range,
 * each with at least one CPU. */
static bool spec_valid(const struct dpk_lcore_spec *spec)
{
	if (!spec || spec->count == 0 || spec->count > DPK_LCORE_MAX) {
		dpk__set_error("lcore spec: %s", spec ? "bad lcore count" : "NULL argument");
		return false;
	}
	for (unsigned i = 0; i < spec->count; i++) {
		if (spec->ids[i] >= DPK_LCORE_MAX || (i > 0 && spec->ids[i] <= spec->ids[i - 1]) ||
		    dpk_cpuset_count(&spec->cpus[i]) == 0) {
			dpk__set_error("lcore spec: entry %u (lcore %u) is out of order, out of "
			               "range or has no CPU",
			               i, spec->ids[i]);
			return false;
		}
	}
	return true;
}

int dpk_lcore_spec_check(const struct dpk_lcore_spec *spec, const struct dpk_topo *topo)
{
	if (!spec_valid(spec))
		return -EINVAL;
	if (!topo) {
		topo = dpk_topo_system();
		if (!topo) {
			/* dpk_topo_system() has said which file is missing. */
			return -ENODEV;
		}
	}
	for (unsigned i = 0; i < spec->count; i++) {
		unsigned c;

		DPK_CPUSET_FOREACH(c, &spec->cpus[i])
		{
			if (!dpk_cpuset_isset(dpk_topo_present(topo), c)) {
				dpk__set_error("lcore %u: CPU %u does not exist under %s",
				               spec->ids[i], c, dpk_topo_root(topo));
				return -ENODEV;
			}
			if (!dpk_cpuset_isset(dpk_topo_online(topo), c)) {
				dpk__set_error("lcore %u: CPU %u is offline", spec->ids[i], c);
				return -ENODEV;
			}
		}
	}
	return 0;
}

int dpk_lcore_spec_pair(const struct dpk_lcore_spec *spec, const struct dpk_topo *topo,
                        enum dpk_placement p, unsigned *a, unsigned *b)
{
	if (!spec || !a || !b || spec->count > DPK_LCORE_MAX ||
	    (p != DPK_PLACE_SMT && p != DPK_PLACE_CORE && p != DPK_PLACE_LLC &&
	     p != DPK_PLACE_NUMA && p != DPK_PLACE_OVERSUB)) {
		dpk__set_error("lcore pair: bad argument (placement %s)", dpk_placement_name(p));
		return -EINVAL;
	}
	if (!topo)
		topo = dpk_topo_system();
	if (!topo)
		return -ENOENT;
	for (unsigned i = 0; i < spec->count; i++) {
		if (dpk_cpuset_count(&spec->cpus[i]) != 1)
			continue;
		for (unsigned j = i + 1; j < spec->count; j++) {
			if (dpk_cpuset_count(&spec->cpus[j]) != 1)
				continue;
			if (dpk_topo_is_pair(topo, p, dpk_cpuset_first(&spec->cpus[i]),
			                     dpk_cpuset_first(&spec->cpus[j]))) {
				*a = spec->ids[i];
				*b = spec->ids[j];
				return 0;
			}
		}
	}
	dpk__set_error("lcore pair: no two single-CPU lcores in placement %s",
	               dpk_placement_name(p));
	return -ENOENT;
}
