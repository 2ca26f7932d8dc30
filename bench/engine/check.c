/* SPDX-License-Identifier: BSD-3-Clause */
/* check.c - the suites a program gives the harness, checked before anything runs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

/* Whether @p name is a usable suite or case name: letters, digits and '_' (a case may
 * also have '-' and '.'), not empty. */
static bool good_name(const char *name, const char *extra)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || strchr(extra, *p)))
			return false;
	return true;
}

/* Whether the parameters of @p a and @p b are the same names and values in order. */
static bool same_params(const struct dpk_bench_case *a, const struct dpk_bench_case *b)
{
	for (unsigned i = 0; i < DPK_BENCH_PARAMS_MAX; i++) {
		const char *na = a->params[i].name, *nb = b->params[i].name;

		if (!na || !nb)
			return !na && !nb;
		if (strcmp(na, nb) != 0 || a->params[i].value != b->params[i].value)
			return false;
	}
	return true;
}

/* The first fault of case @p c, or NULL. */
static const char *case_fault(const struct dpk_bench_case *c)
{
	unsigned nlayouts = 0;

	if (!good_name(c->name, "-."))
		return "has no name, or one with characters other than letters, digits, '_', '-', "
		       "'.'";
	if (!c->body)
		return "has no body";
	if ((unsigned)c->kind > DPK_BENCH_ALL)
		return "has an unknown kind";
	if ((unsigned)c->unit >= DPK_UNIT_COUNT)
		return "has an unknown unit";
	for (unsigned i = 0; i < DPK_BENCH_LAYOUTS; i++)
		nlayouts += c->layouts[i] != NULL;
	if (nlayouts != 0 && nlayouts != DPK_BENCH_LAYOUTS)
		return "gives some code layouts but not all";
	for (unsigned i = 0; i < DPK_BENCH_PARAMS_MAX && c->params[i].name; i++)
		if (!good_name(c->params[i].name, ""))
			return "has a parameter whose name is not letters, digits and '_'";
	if (c->kind == DPK_BENCH_PAIR && c->counted_roles > 3)
		return "counts roles a pair does not have (counted_roles above 3)";
	return NULL;
}

/* Check the cases of suite @p s; a fault goes to @p err. */
static int check_cases(const struct dpk_bench_suite *s, char *err, size_t errlen)
{
	if (s->ncases && !s->cases) {
		snprintf(err, errlen, "suite '%s' has %u cases but no table", s->name, s->ncases);
		return -EINVAL;
	}
	for (unsigned j = 0; j < s->ncases; j++) {
		const struct dpk_bench_case *c = &s->cases[j];
		const char *why = case_fault(c);

		if (why) {
			snprintf(err, errlen, "suite '%s', case %u ('%s') %s", s->name, j,
			         c->name ? c->name : "", why);
			return -EINVAL;
		}
		for (unsigned k = 0; k < j; k++)
			if (strcmp(s->cases[k].name, c->name) == 0 && s->cases[k].kind == c->kind &&
			    same_params(&s->cases[k], c)) {
				snprintf(err, errlen,
				         "suite '%s' has two cases '%s' of one kind with the same "
				         "parameters",
				         s->name, c->name);
				return -EINVAL;
			}
	}
	return 0;
}

int dpk_bench_suites_check(const struct dpk_bench_suite *const *suites, char *err, size_t errlen)
{
	for (unsigned i = 0; suites[i]; i++) {
		const struct dpk_bench_suite *s = suites[i];

		if (!good_name(s->name, "")) {
			snprintf(err, errlen,
			         "suite %u has no name, or one with characters other than letters, "
			         "digits and '_'",
			         i);
			return -EINVAL;
		}
		for (unsigned k = 0; k < i; k++)
			if (strcmp(suites[k]->name, s->name) == 0) {
				snprintf(err, errlen, "two suites are named '%s'", s->name);
				return -EINVAL;
			}
		int rc = check_cases(s, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}
