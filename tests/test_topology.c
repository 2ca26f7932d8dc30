/* SPDX-License-Identifier: BSD-3-Clause */
/* Topology from fake sysfs trees and from this machine, CPU lists and placements. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dpk/topology.h>

#include "dpk_test.h"

#define FIXTURES DPK_SOURCE_DIR "/tests/fixtures/sysfs"

static struct dpk_topo *load_fixture(const char *name)
{
	char root[512];
	struct dpk_topo *t;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES, name);
	t = dpk_topo_load(root);
	if (!t)
		dpk_test_note("loading %s: %s", root, dpk_last_error());
	return t;
}

static struct dpk_cpuset list(const char *text)
{
	struct dpk_cpuset s;

	dpk_cpuset_zero(&s);
	if (dpk_cpulist_parse(text, &s) != 0)
		dpk_test_fail(__FILE__, __LINE__, "fixture list '%s' does not parse", text);
	return s;
}

static bool error_mentions(const char *word)
{
	return strstr(dpk_last_error(), word) != NULL;
}

/* ---------------------------------------------------------------------------------------- */

static void placement_names_round_trip(void)
{
	static const char *const names[DPK_PLACE_COUNT] = {"single", "smt",     "core", "llc",
	                                                   "numa",   "oversub", "all"};

	for (int p = 0; p < DPK_PLACE_COUNT; p++) {
		ASSERT_STREQ(names[p], dpk_placement_name((enum dpk_placement)p));
		ASSERT_EQ(p, dpk_placement_from_name(names[p]));
	}
	ASSERT_STREQ("unknown", dpk_placement_name(DPK_PLACE_COUNT));
}

static void placement_from_name_rejects(void)
{
	static const char *const bad[] = {"", "SMT", "smt ", "numa2", "pair"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(-EINVAL, dpk_placement_from_name(bad[i]));
		ASSERT_TRUE(error_mentions(bad[i]));
	}
	ASSERT_EQ(-EINVAL, dpk_placement_from_name(NULL));
}

static void cpulist_parse_good(void)
{
	static const struct {
		const char *text;
		unsigned count, first, last;
	} cases[] = {
	        {"0", 1, 0, 0},     {"0-3,8,10-11", 7, 0, 11}, {"5-5", 1, 5, 5},
	        {"007", 1, 7, 7},   {"1023", 1, 1023, 1023},   {"0-1023", DPK_CPU_MAX, 0, 1023},
	        {"3,1,2", 3, 1, 3}, {"0-3,2-5", 6, 0, 5},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dpk_cpuset s;
		unsigned c, last = 0;

		ASSERT_EQ(0, dpk_cpulist_parse(cases[i].text, &s));
		ASSERT_EQ(cases[i].count, dpk_cpuset_count(&s));
		ASSERT_EQ(cases[i].first, dpk_cpuset_first(&s));
		DPK_CPUSET_FOREACH(c, &s)
		last = c;
		ASSERT_EQ(cases[i].last, last);
	}
	{
		struct dpk_cpuset s = list("0-3,8,10-11");
		ASSERT_TRUE(dpk_cpuset_isset(&s, 8));
		ASSERT_FALSE(dpk_cpuset_isset(&s, 9));
		ASSERT_TRUE(dpk_cpuset_isset(&s, 10));
	}
}

static void cpulist_parse_bad(void)
{
	/* Each bad list and the token its error message must name. */
	static const struct {
		const char *text, *token;
	} cases[] = {
	        {"1-", "at the end"},
	        {"3-1", "'3-1'"},
	        {"a", "'a'"},
	        {"", "empty"},
	        {"1,,2", "',2'"},
	        {",1", "',1'"},
	        {"1,", "at the end"},
	        {"-1", "'-1'"},
	        {"1024", "'1024'"},
	        {"0-1024", "'1024'"},
	        {"99999999999999999999", "'99999999999999999999'"},
	        {"1 2", "'1 2'"},
	        {"1\n", "bad number"},
	        {"1-2-3", "'-3'"},
	        {"0x1", "'0x1'"},
	        {"2-a", "'a'"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dpk_cpuset s, before;

		dpk_cpuset_zero(&s);
		dpk_cpuset_set(&s, 77);
		before = s;
		ASSERT_EQ(-EINVAL, dpk_cpulist_parse(cases[i].text, &s));
		if (!error_mentions(cases[i].token))
			dpk_test_note("list '%s': message \"%s\"", cases[i].text, dpk_last_error());
		ASSERT_TRUE(error_mentions(cases[i].token));
		ASSERT_TRUE(dpk_cpuset_equal(&before, &s));
	}
	ASSERT_EQ(-EINVAL, dpk_cpulist_parse(NULL, &(struct dpk_cpuset){{0}}));
	ASSERT_EQ(-EINVAL, dpk_cpulist_parse("1", NULL));
}

static void cpulist_format_cases(void)
{
	static const char *const lists[] = {"0",         "0-3,8,10-11", "1023",           "0-1023",
	                                    "0-1,3,5-6", "63-64",       "0,2,4,1000-1001"};
	struct dpk_cpuset s;
	char buf[64];

	dpk_cpuset_zero(&s);
	ASSERT_STREQ("", dpk_cpulist_format(&s, buf, sizeof(buf)));
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		s = list(lists[i]);
		ASSERT_TRUE(dpk_cpulist_format(&s, buf, sizeof(buf)) == buf);
		ASSERT_STREQ(lists[i], buf);
	}
	ASSERT_TRUE(dpk_cpulist_format(&s, NULL, 10) == NULL);
}

static void cpulist_format_cuts_whole_items(void)
{
	struct dpk_cpuset s = list("0-3,8,10-11,100");
	char buf[32];

	/* "0-3,8,10-11,100" needs 16 bytes. */
	ASSERT_STREQ("0-3,8,10-11,100", dpk_cpulist_format(&s, buf, 16));
	ASSERT_STREQ("0-3,8,10-11...", dpk_cpulist_format(&s, buf, 15));
	ASSERT_STREQ("0-3,8...", dpk_cpulist_format(&s, buf, 11));
	ASSERT_STREQ("...", dpk_cpulist_format(&s, buf, 4));
	ASSERT_STREQ("", dpk_cpulist_format(&s, buf, 3));
	memset(buf, 'x', sizeof(buf));
	dpk_cpulist_format(&s, buf, 1);
	ASSERT_EQ('\0', buf[0]);
	ASSERT_EQ('x', buf[1]);
}

static void cpulist_format_parse_round_trip(void)
{
	uint64_t rng = dpk_test_seed();
	static char buf[5 * DPK_CPU_MAX + 1];

	for (int round = 0; round < 200; round++) {
		struct dpk_cpuset s, back;
		unsigned density = 1 + (unsigned)(dpk_test_rand(&rng) % 64);

		dpk_cpuset_zero(&s);
		for (unsigned c = 0; c < DPK_CPU_MAX; c++)
			if (dpk_test_rand(&rng) % 64 < density)
				dpk_cpuset_set(&s, c);
		if (dpk_cpuset_count(&s) == 0)
			dpk_cpuset_set(&s, 5);
		dpk_cpulist_format(&s, buf, sizeof(buf));
		ASSERT_EQ(0, dpk_cpulist_parse(buf, &back));
		ASSERT_TRUE(dpk_cpuset_equal(&s, &back));
	}
	/* The worst case for length: every other CPU. */
	{
		struct dpk_cpuset s, back;
		dpk_cpuset_zero(&s);
		for (unsigned c = 0; c < DPK_CPU_MAX; c += 2)
			dpk_cpuset_set(&s, c);
		dpk_cpulist_format(&s, buf, sizeof(buf));
		ASSERT_EQ(0, dpk_cpulist_parse(buf, &back));
		ASSERT_TRUE(dpk_cpuset_equal(&s, &back));
	}
}

static void load_missing_root_fails(void)
{
	struct dpk_topo *t;

	errno = 0;
	t = dpk_topo_load(FIXTURES "/no-such-machine");
	ASSERT_NULL(t);
	ASSERT_EQ(ENOENT, errno);
	ASSERT_TRUE(error_mentions("no-such-machine/devices/system/cpu/"));
	/* A directory that exists but is no sysfs tree. */
	errno = 0;
	t = dpk_topo_load(FIXTURES);
	ASSERT_NULL(t);
	ASSERT_EQ(ENOENT, errno);
}

/* ---------------------------------------------------------------------------------------- */
/* Per-CPU expectations, one row per CPU checked. */

struct cpu_want {
	unsigned cpu;
	int online, core_id, package, numa_node, llc;
	const char *siblings, *llc_cpus; /* NULL: empty (unknown) */
};

static void check_cpus(const struct dpk_topo *t, const struct cpu_want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct dpk_cpu_info ci;
		struct dpk_cpuset want;

		ASSERT_EQ(0, dpk_topo_cpu(t, w[i].cpu, &ci));
		ASSERT_EQ(w[i].cpu, ci.cpu);
		ASSERT_EQ(w[i].online, ci.online);
		ASSERT_EQ(w[i].core_id, ci.core_id);
		ASSERT_EQ(w[i].package, ci.package);
		ASSERT_EQ(w[i].numa_node, ci.numa_node);
		ASSERT_EQ(w[i].llc, ci.llc);
		if (w[i].siblings)
			want = list(w[i].siblings);
		else
			dpk_cpuset_zero(&want);
		ASSERT_TRUE(dpk_cpuset_equal(&want, &ci.siblings));
		if (w[i].llc_cpus)
			want = list(w[i].llc_cpus);
		else
			dpk_cpuset_zero(&want);
		ASSERT_TRUE(dpk_cpuset_equal(&want, &ci.llc_cpus));
	}
}

struct pair_want {
	enum dpk_placement p;
	const char *among; /* NULL: every online CPU */
	int rc;
	unsigned a, b;
};

static void check_pairs(const struct dpk_topo *t, const struct pair_want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct dpk_cpuset among;
		unsigned a = 9999, b = 9999;
		int rc;

		if (w[i].among)
			among = list(w[i].among);
		rc = dpk_topo_pair(t, w[i].p, w[i].among ? &among : NULL, &a, &b);
		if (rc != w[i].rc)
			dpk_test_note("pair %s among %s", dpk_placement_name(w[i].p),
			              w[i].among ? w[i].among : "(online)");
		ASSERT_EQ(w[i].rc, rc);
		if (rc == 0) {
			ASSERT_EQ(w[i].a, a);
			ASSERT_EQ(w[i].b, b);
			ASSERT_TRUE(dpk_topo_is_pair(t, w[i].p, a, b));
			ASSERT_TRUE(dpk_topo_is_pair(t, w[i].p, b, a));
		} else {
			ASSERT_EQ(9999, a);
			ASSERT_EQ(9999, b);
		}
	}
}

/* Every two present CPUs stand in at most one of the relations smt, core, llc and numa;
 * each relation is symmetric; oversub holds exactly on the diagonal. */
static void check_relations_exclusive(const struct dpk_topo *t)
{
	static const enum dpk_placement rel[] = {DPK_PLACE_SMT, DPK_PLACE_CORE, DPK_PLACE_LLC,
	                                         DPK_PLACE_NUMA};
	const struct dpk_cpuset *present = dpk_topo_present(t);
	unsigned a, b;

	DPK_CPUSET_FOREACH(a, present)
	DPK_CPUSET_FOREACH(b, present)
	{
		unsigned n = 0;

		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			bool ab = dpk_topo_is_pair(t, rel[i], a, b);
			ASSERT_EQ(ab, dpk_topo_is_pair(t, rel[i], b, a));
			n += ab;
		}
		ASSERT_LE(n, 1);
		if (a == b)
			ASSERT_EQ(0, n);
		ASSERT_EQ(a == b, dpk_topo_is_pair(t, DPK_PLACE_OVERSUB, a, b));
	}
	/* Relations never hold with a CPU that is not present, nor for non-pair placements. */
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_OVERSUB, DPK_CPU_MAX, DPK_CPU_MAX));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_SMT, 0, DPK_CPU_MAX + 5));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_ALL, 0, 1));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_SINGLE, 0, 0));
}

/* ---------------------------------------------------------------------------------------- */

static void xeon_cpu_lists(void)
{
	struct dpk_topo *t = load_fixture("xeon-2s-smt");
	struct dpk_cpuset want;

	ASSERT_NOT_NULL(t);
	ASSERT_TRUE(strstr(dpk_topo_root(t), "/xeon-2s-smt") != NULL);
	want = list("0-15");
	ASSERT_TRUE(dpk_cpuset_equal(&want, dpk_topo_present(t)));
	want = list("0-14");
	ASSERT_TRUE(dpk_cpuset_equal(&want, dpk_topo_online(t)));
	dpk_topo_free(t);
}

static void xeon_cpus(void)
{
	static const struct cpu_want w[] = {
	        {0, 1, 0, 0, 0, 0, "0,8", "0-3,8-11"},
	        {3, 1, 3, 0, 0, 0, "3,11", "0-3,8-11"},
	        {4, 1, 0, 1, 1, 4, "4,12", "4-7,12-14"},
	        {7, 1, 3, 1, 1, 4, "7", "4-7,12-14"},
	        {9, 1, 1, 0, 0, 0, "1,9", "0-3,8-11"},
	        {12, 1, 0, 1, 1, 4, "4,12", "4-7,12-14"},
	        {14, 1, 2, 1, 1, 4, "6,14", "4-7,12-14"},
	        /* Offline: Linux removes its topology and cache directories. */
	        {15, 0, DPK_UNKNOWN, DPK_UNKNOWN, DPK_UNKNOWN, DPK_UNKNOWN, NULL, NULL},
	};
	struct dpk_topo *t = load_fixture("xeon-2s-smt");

	ASSERT_NOT_NULL(t);
	check_cpus(t, w, sizeof(w) / sizeof(w[0]));
	dpk_topo_free(t);
}

static void xeon_counts(void)
{
	struct dpk_topo *t = load_fixture("xeon-2s-smt");

	ASSERT_NOT_NULL(t);
	ASSERT_EQ(2, dpk_topo_numa_count(t));
	ASSERT_EQ(2, dpk_topo_package_count(t));
	ASSERT_EQ(2, dpk_topo_llc_count(t));
	dpk_topo_free(t);
}

static void xeon_pairs(void)
{
	static const struct pair_want w[] = {
	        {DPK_PLACE_SMT, NULL, 0, 0, 8},
	        {DPK_PLACE_CORE, NULL, 0, 0, 1},
	        /* One L3 per NUMA node: no two L3 domains share a node. */
	        {DPK_PLACE_LLC, NULL, -ENOENT, 0, 0},
	        {DPK_PLACE_NUMA, NULL, 0, 0, 4},
	        {DPK_PLACE_OVERSUB, NULL, 0, 0, 0},
	        /* Restricted to a subset. */
	        {DPK_PLACE_SMT, "5-7,13", 0, 5, 13},
	        {DPK_PLACE_CORE, "0,4,9", 0, 0, 9},
	        {DPK_PLACE_NUMA, "8,12", 0, 8, 12},
	        {DPK_PLACE_OVERSUB, "6-7", 0, 6, 6},
	        /* cpu15 is offline, so its sibling cpu7 has no partner. */
	        {DPK_PLACE_SMT, "7,15", -ENOENT, 0, 0},
	        {DPK_PLACE_OVERSUB, "15", -ENOENT, 0, 0},
	        {DPK_PLACE_NUMA, "0-3,8-11", -ENOENT, 0, 0},
	        {DPK_PLACE_CORE, "0,8", -ENOENT, 0, 0},
	        {DPK_PLACE_SMT, "100-200", -ENOENT, 0, 0},
	};
	struct dpk_topo *t = load_fixture("xeon-2s-smt");

	ASSERT_NOT_NULL(t);
	check_pairs(t, w, sizeof(w) / sizeof(w[0]));
	ASSERT_TRUE(dpk_topo_is_pair(t, DPK_PLACE_SMT, 2, 10));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_SMT, 2, 2));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_CORE, 2, 10));
	ASSERT_TRUE(dpk_topo_is_pair(t, DPK_PLACE_CORE, 2, 11));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_CORE, 2, 4));
	ASSERT_TRUE(dpk_topo_is_pair(t, DPK_PLACE_NUMA, 2, 14));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_NUMA, 2, 15));
	ASSERT_FALSE(dpk_topo_is_pair(t, DPK_PLACE_SMT, 7, 15));
	check_relations_exclusive(t);
	dpk_topo_free(t);
}

static void epyc_cpus(void)
{
	static const struct cpu_want w[] = {
	        {0, 1, 0, 0, 0, 0, "0,16", "0-3,16-19"},
	        {5, 1, 5, 0, 0, 4, "5,21", "4-7,20-23"},
	        {15, 1, 15, 0, 0, 12, "15,31", "12-15,28-31"},
	        {16, 1, 0, 0, 0, 0, "0,16", "0-3,16-19"},
	        {27, 1, 11, 0, 0, 8, "11,27", "8-11,24-27"},
	};
	struct dpk_topo *t = load_fixture("epyc-ccx");
	struct dpk_cpuset want = list("0-31");

	ASSERT_NOT_NULL(t);
	ASSERT_TRUE(dpk_cpuset_equal(&want, dpk_topo_present(t)));
	ASSERT_TRUE(dpk_cpuset_equal(&want, dpk_topo_online(t)));
	check_cpus(t, w, sizeof(w) / sizeof(w[0]));
	ASSERT_EQ(1, dpk_topo_numa_count(t));
	ASSERT_EQ(1, dpk_topo_package_count(t));
	ASSERT_EQ(4, dpk_topo_llc_count(t));
	dpk_topo_free(t);
}

static void epyc_pairs(void)
{
	static const struct pair_want w[] = {
	        {DPK_PLACE_SMT, NULL, 0, 0, 16},
	        {DPK_PLACE_CORE, NULL, 0, 0, 1},
	        {DPK_PLACE_LLC, NULL, 0, 0, 4},
	        {DPK_PLACE_NUMA, NULL, -ENOENT, 0, 0},
	        {DPK_PLACE_OVERSUB, NULL, 0, 0, 0},
	        {DPK_PLACE_SMT, "1-2,5,17", 0, 1, 17},
	        {DPK_PLACE_CORE, "1-2,5,17", 0, 1, 2},
	        {DPK_PLACE_LLC, "1-2,5,17", 0, 1, 5},
	        {DPK_PLACE_CORE, "3,7,11,15", -ENOENT, 0, 0},
	        {DPK_PLACE_LLC, "12-15,28-31", -ENOENT, 0, 0},
	        {DPK_PLACE_LLC, "20,31", 0, 20, 31},
	        {DPK_PLACE_SMT, "3", -ENOENT, 0, 0},
	        {DPK_PLACE_OVERSUB, "3", 0, 3, 3},
	};
	struct dpk_topo *t = load_fixture("epyc-ccx");

	ASSERT_NOT_NULL(t);
	check_pairs(t, w, sizeof(w) / sizeof(w[0]));
	check_relations_exclusive(t);
	dpk_topo_free(t);
}

static void sparse_unknowns_stay_unknown(void)
{
	static const struct cpu_want w[] = {
	        {0, DPK_UNKNOWN, 0, 0, DPK_UNKNOWN, DPK_UNKNOWN, "0-1", NULL},
	        {1, DPK_UNKNOWN, 0, 0, DPK_UNKNOWN, DPK_UNKNOWN, "0-1", NULL},
	        {2, DPK_UNKNOWN, DPK_UNKNOWN, 0, DPK_UNKNOWN, DPK_UNKNOWN, "2", NULL},
	        {3, DPK_UNKNOWN, DPK_UNKNOWN, DPK_UNKNOWN, DPK_UNKNOWN, DPK_UNKNOWN, NULL, NULL},
	};
	struct dpk_topo *t = load_fixture("sparse");
	struct dpk_cpuset want = list("0-3");

	ASSERT_NOT_NULL(t);
	ASSERT_TRUE(dpk_cpuset_equal(&want, dpk_topo_present(t)));
	/* No cpu/online: the present set stands in. */
	ASSERT_TRUE(dpk_cpuset_equal(&want, dpk_topo_online(t)));
	check_cpus(t, w, sizeof(w) / sizeof(w[0]));
	ASSERT_EQ(0, dpk_topo_numa_count(t));
	ASSERT_EQ(1, dpk_topo_package_count(t));
	ASSERT_EQ(0, dpk_topo_llc_count(t));
	dpk_topo_free(t);
}

static void sparse_pairs(void)
{
	static const struct pair_want w[] = {
	        /* The sibling lists are there, so SMT is known. */
	        {DPK_PLACE_SMT, NULL, 0, 0, 1},
	        /* CORE and LLC need the L3, NUMA needs nodes: none is known. */
	        {DPK_PLACE_CORE, NULL, -ENOENT, 0, 0},
	        {DPK_PLACE_LLC, NULL, -ENOENT, 0, 0},
	        {DPK_PLACE_NUMA, NULL, -ENOENT, 0, 0},
	        {DPK_PLACE_OVERSUB, NULL, 0, 0, 0},
	        /* cpu3 has no sibling list: nothing pairs with it. */
	        {DPK_PLACE_SMT, "2-3", -ENOENT, 0, 0},
	        {DPK_PLACE_OVERSUB, "3", 0, 3, 3},
	};
	struct dpk_topo *t = load_fixture("sparse");

	ASSERT_NOT_NULL(t);
	check_pairs(t, w, sizeof(w) / sizeof(w[0]));
	check_relations_exclusive(t);
	dpk_topo_free(t);
}

static void cpu_query_errors(void)
{
	struct dpk_topo *t = load_fixture("xeon-2s-smt");
	struct dpk_cpu_info ci;

	ASSERT_NOT_NULL(t);
	ASSERT_EQ(-ENODEV, dpk_topo_cpu(t, 16, &ci));
	ASSERT_TRUE(error_mentions("CPU 16"));
	ASSERT_EQ(-ENODEV, dpk_topo_cpu(t, DPK_CPU_MAX, &ci));
	ASSERT_EQ(-ENODEV, dpk_topo_cpu(t, UINT32_MAX, &ci));
	ASSERT_EQ(-EINVAL, dpk_topo_cpu(t, 0, NULL));
	/* Offline but present: described. */
	ASSERT_EQ(0, dpk_topo_cpu(t, 15, &ci));
	dpk_topo_free(t);
	dpk_topo_free(NULL);
}

static void pair_bad_arguments(void)
{
	static const enum dpk_placement not_pairs[] = {DPK_PLACE_SINGLE, DPK_PLACE_ALL,
	                                               DPK_PLACE_COUNT};
	struct dpk_topo *t = load_fixture("epyc-ccx");
	unsigned a = 7, b = 7;

	ASSERT_NOT_NULL(t);
	for (size_t i = 0; i < sizeof(not_pairs) / sizeof(not_pairs[0]); i++)
		ASSERT_EQ(-EINVAL, dpk_topo_pair(t, not_pairs[i], NULL, &a, &b));
	ASSERT_EQ(-EINVAL, dpk_topo_pair(t, DPK_PLACE_SMT, NULL, NULL, &b));
	ASSERT_EQ(-EINVAL, dpk_topo_pair(t, DPK_PLACE_SMT, NULL, &a, NULL));
	ASSERT_EQ(7, a);
	ASSERT_EQ(7, b);
	dpk_topo_free(t);
}

/* The only case that calls dpk_topo_system(): it is loaded once per process. */
static void system_honours_env(void)
{
	const struct dpk_topo *t;

	ASSERT_EQ(0, setenv("DPK_SYSFS_ROOT", FIXTURES "/epyc-ccx", 1));
	t = dpk_topo_system();
	unsetenv("DPK_SYSFS_ROOT");
	ASSERT_NOT_NULL(t);
	ASSERT_STREQ(FIXTURES "/epyc-ccx", dpk_topo_root(t));
	ASSERT_EQ(32, dpk_cpuset_count(dpk_topo_online(t)));
	ASSERT_TRUE(dpk_topo_system() == t);
}

static void load_env_root(void)
{
	struct dpk_topo *t;

	ASSERT_EQ(0, setenv("DPK_SYSFS_ROOT", FIXTURES "/sparse", 1));
	t = dpk_topo_load(NULL);
	unsetenv("DPK_SYSFS_ROOT");
	ASSERT_NOT_NULL(t);
	ASSERT_STREQ(FIXTURES "/sparse", dpk_topo_root(t));
	ASSERT_EQ(4, dpk_cpuset_count(dpk_topo_present(t)));
	dpk_topo_free(t);
}

/* This machine: only what holds on any Linux system. */
static void real_sysfs_sanity(void)
{
	struct dpk_topo *t = dpk_topo_load("/sys");
	const struct dpk_cpuset *present, *online;
	struct dpk_cpu_info ci;
	unsigned a, b, c;
	char buf[5 * DPK_CPU_MAX + 1];

	if (!t)
		DPK_SKIP("no /sys/devices/system/cpu here");
	ASSERT_STREQ("/sys", dpk_topo_root(t));
	present = dpk_topo_present(t);
	online = dpk_topo_online(t);
	ASSERT_TRUE(dpk_cpuset_isset(present, 0));
	ASSERT_GE(dpk_cpuset_count(online), 1);
	DPK_CPUSET_FOREACH(c, online)
	{
		ASSERT_TRUE(dpk_cpuset_isset(present, c));
		ASSERT_EQ(0, dpk_topo_cpu(t, c, &ci));
		ASSERT_TRUE(ci.online == 1 || ci.online == DPK_UNKNOWN);
		if (dpk_cpuset_count(&ci.siblings))
			ASSERT_TRUE(dpk_cpuset_isset(&ci.siblings, c));
		if (ci.llc != DPK_UNKNOWN)
			ASSERT_EQ(dpk_cpuset_first(&ci.llc_cpus), ci.llc);
	}
	ASSERT_EQ(0, dpk_topo_pair(t, DPK_PLACE_OVERSUB, NULL, &a, &b));
	ASSERT_EQ(a, b);
	ASSERT_LE(dpk_topo_numa_count(t), dpk_cpuset_count(online));
	ASSERT_LE(dpk_topo_llc_count(t), dpk_cpuset_count(online));
	check_relations_exclusive(t);
	dpk_test_note("this machine: online %s, NUMA nodes %u, packages %u, L3 domains %u",
	              dpk_cpulist_format(online, buf, sizeof(buf)), dpk_topo_numa_count(t),
	              dpk_topo_package_count(t), dpk_topo_llc_count(t));
	dpk_topo_free(t);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(placement_names_round_trip),
        DPK_TEST(placement_from_name_rejects),
        DPK_TEST(cpulist_parse_good),
        DPK_TEST(cpulist_parse_bad),
        DPK_TEST(cpulist_format_cases),
        DPK_TEST(cpulist_format_cuts_whole_items),
        DPK_TEST(cpulist_format_parse_round_trip),
        DPK_TEST(load_missing_root_fails),
        DPK_TEST(xeon_cpu_lists),
        DPK_TEST(xeon_cpus),
        DPK_TEST(xeon_counts),
        DPK_TEST(xeon_pairs),
        DPK_TEST(epyc_cpus),
        DPK_TEST(epyc_pairs),
        DPK_TEST(sparse_unknowns_stay_unknown),
        DPK_TEST(sparse_pairs),
        DPK_TEST(cpu_query_errors),
        DPK_TEST(pair_bad_arguments),
        DPK_TEST(system_honours_env),
        DPK_TEST(load_env_root),
        DPK_TEST(real_sysfs_sanity),
};

DPK_TEST_MAIN(cases)
