/* SPDX-License-Identifier: BSD-3-Clause */
/* Lcore specs: parsing good and bad text, checking against a machine, picking pairs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dpk/lcore.h>

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

static bool error_mentions(const char *word)
{
	return strstr(dpk_last_error(), word) != NULL;
}

/* ---------------------------------------------------------------------------------------- */

struct lcore_want {
	unsigned id;
	const char *cpus;
};

static void spec_parse_good(void)
{
	static const struct {
		const char *text;
		unsigned count;
		struct lcore_want lcores[4]; /* the first four */
	} cases[] = {
	        {"0-3", 4, {{0, "0"}, {1, "1"}, {2, "2"}, {3, "3"}}},
	        {"0,2,4", 3, {{0, "0"}, {2, "2"}, {4, "4"}}},
	        {"(0-1)@0", 2, {{0, "0"}, {1, "0"}}},
	        {"2@(4-5)", 1, {{2, "4-5"}}},
	        {"(0,2)@(4-5)", 2, {{0, "4-5"}, {2, "4-5"}}},
	        {"1@3", 1, {{1, "3"}}},
	        {"3", 1, {{3, "3"}}},
	        {"(0-3)", 4, {{0, "0-3"}, {1, "0-3"}, {2, "0-3"}, {3, "0-3"}}},
	        {"(1,3)", 2, {{1, "1,3"}, {3, "1,3"}}},
	        {"1-2@3", 2, {{1, "3"}, {2, "3"}}},
	        {"2@4-5", 1, {{2, "4-5"}}},
	        {"5,0@7,(1,3)@(1000-1023)",
	         4,
	         {{0, "7"}, {1, "1000-1023"}, {3, "1000-1023"}, {5, "5"}}},
	        {"127@1023", 1, {{127, "1023"}}},
	        {"0@(1,1)", 1, {{0, "1"}}},
	        {"(0)@(0)", 1, {{0, "0"}}},
	        {"00,01", 2, {{0, "0"}, {1, "1"}}},
	        {"(0-1,3)@(2-3,7)", 3, {{0, "2-3,7"}, {1, "2-3,7"}, {3, "2-3,7"}}},
	        {"0-127", 128, {{0, "0"}, {1, "1"}, {2, "2"}, {3, "3"}}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dpk_lcore_spec spec;
		unsigned n = cases[i].count < 4 ? cases[i].count : 4;

		if (dpk_lcore_spec_parse(cases[i].text, &spec) != 0)
			dpk_test_note("spec '%s': %s", cases[i].text, dpk_last_error());
		ASSERT_EQ(0, dpk_lcore_spec_parse(cases[i].text, &spec));
		ASSERT_EQ(cases[i].count, spec.count);
		for (unsigned k = 0; k < n; k++) {
			struct dpk_cpuset want;

			ASSERT_EQ(0, dpk_cpulist_parse(cases[i].lcores[k].cpus, &want));
			ASSERT_EQ(cases[i].lcores[k].id, spec.ids[k]);
			ASSERT_TRUE(dpk_cpuset_equal(&want, &spec.cpus[k]));
		}
		for (unsigned k = 1; k < spec.count; k++)
			ASSERT_LT(spec.ids[k - 1], spec.ids[k]);
	}
}

static void spec_parse_bad(void)
{
	/* Each bad spec and what its message must say besides quoting the whole spec. */
	static const struct {
		const char *text, *says;
	} cases[] = {
	        {"", "empty"},
	        {"0-x", "bad number 'x'"},
	        {"x", "bad number 'x'"},
	        {"0x1", "bad number '0x1'"},
	        {"3-1", "reversed range '3-1'"},
	        {"0@(3-1)", "reversed range '3-1'"},
	        {"0,0", "lcore 0 given twice"},
	        {"0-2,1@5", "lcore 1 given twice"},
	        {"(0,0)@1", "lcore 0 given twice"},
	        {"(0-2,1)", "lcore 1 given twice"},
	        {"128", "lcore id '128'"},
	        {"0-200", "lcore id '200'"},
	        {"0@1024", "CPU '1024'"},
	        {"0@99999999999999999", "CPU '99999999999999999'"},
	        {"1,", "missing at the end"},
	        {",1", "before ',1'"},
	        {"1,,2", "before ',2'"},
	        {"(0-1", "missing ')'"},
	        {"()", "before ')'"},
	        {"0@", "missing at the end"},
	        {"@1", "before '@1'"},
	        {"0@1@2", "unexpected '@2'"},
	        {"(0)1", "unexpected '1'"},
	        {"0-", "missing at the end"},
	        {"-1", "before '-1'"},
	        {"1-2-3", "unexpected '-3'"},
	        {"(0-1)@(2,x)", "bad number 'x'"},
	        {"(0;1)", "bad number '0;1'"},
	        {"0 ,1", "bad number '0 '"},
	        {" 0", "bad number ' 0'"},
	        {"0, 1", "bad number ' 1'"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct dpk_lcore_spec spec;
		char whole[64];

		memset(&spec, 0x5a, sizeof(spec));
		snprintf(whole, sizeof(whole), "lcore spec '%s'", cases[i].text);
		ASSERT_EQ(-EINVAL, dpk_lcore_spec_parse(cases[i].text, &spec));
		if (!error_mentions(cases[i].says) || !error_mentions(whole))
			dpk_test_note("spec '%s': message \"%s\"", cases[i].text, dpk_last_error());
		ASSERT_TRUE(error_mentions(whole));
		ASSERT_TRUE(error_mentions(cases[i].says));
		/* Nothing written on failure. */
		ASSERT_EQ(0x5a5a5a5a, spec.count);
	}
	{
		struct dpk_lcore_spec spec;
		ASSERT_EQ(-EINVAL, dpk_lcore_spec_parse(NULL, &spec));
		ASSERT_EQ(-EINVAL, dpk_lcore_spec_parse("0", NULL));
	}
}

/* ---------------------------------------------------------------------------------------- */

static void spec_check_xeon(void)
{
	static const struct {
		const char *text;
		int rc;
		const char *says; /* for -ENODEV */
	} cases[] = {
	        {"0-14", 0, NULL},
	        {"(0-3)@(0-14)", 0, NULL},
	        {"0-15", -ENODEV, "CPU 15 is offline"},
	        {"0,1@15", -ENODEV, "lcore 1: CPU 15 is offline"},
	        {"0@16", -ENODEV, "lcore 0: CPU 16 does not exist"},
	        {"(0-1)@(3,16)", -ENODEV, "CPU 16 does not exist"},
	        {"0@1000", -ENODEV, "CPU 1000 does not exist"},
	};
	struct dpk_topo *t = load_fixture("xeon-2s-smt");

	ASSERT_NOT_NULL(t);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dpk_lcore_spec spec;

		ASSERT_EQ(0, dpk_lcore_spec_parse(cases[i].text, &spec));
		ASSERT_EQ(cases[i].rc, dpk_lcore_spec_check(&spec, t));
		if (cases[i].says) {
			if (!error_mentions(cases[i].says))
				dpk_test_note("'%s': \"%s\"", cases[i].text, dpk_last_error());
			ASSERT_TRUE(error_mentions(cases[i].says));
		}
	}
	dpk_topo_free(t);
}

static void spec_check_sparse_and_epyc(void)
{
	struct dpk_topo *sparse = load_fixture("sparse"), *epyc = load_fixture("epyc-ccx");
	struct dpk_lcore_spec spec;

	ASSERT_NOT_NULL(sparse);
	ASSERT_NOT_NULL(epyc);
	/* No cpu/online: every present CPU counts as online. */
	ASSERT_EQ(0, dpk_lcore_spec_parse("0-3", &spec));
	ASSERT_EQ(0, dpk_lcore_spec_check(&spec, sparse));
	ASSERT_EQ(0, dpk_lcore_spec_check(&spec, epyc));
	ASSERT_EQ(0, dpk_lcore_spec_parse("0-4", &spec));
	ASSERT_EQ(-ENODEV, dpk_lcore_spec_check(&spec, sparse));
	ASSERT_TRUE(error_mentions("CPU 4"));
	ASSERT_EQ(0, dpk_lcore_spec_parse("(0-127)@31", &spec));
	ASSERT_EQ(0, dpk_lcore_spec_check(&spec, epyc));
	ASSERT_EQ(0, dpk_lcore_spec_parse("(0-127)@32", &spec));
	ASSERT_EQ(-ENODEV, dpk_lcore_spec_check(&spec, epyc));
	dpk_topo_free(sparse);
	dpk_topo_free(epyc);
}

static void spec_check_rejects_bad_structs(void)
{
	struct dpk_topo *t = load_fixture("epyc-ccx");
	struct dpk_lcore_spec spec;

	ASSERT_NOT_NULL(t);
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_check(NULL, t));
	ASSERT_EQ(0, dpk_lcore_spec_parse("0-3", &spec));
	spec.count = 0;
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_check(&spec, t));
	spec.count = DPK_LCORE_MAX + 1;
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_check(&spec, t));
	spec.count = 4;
	spec.ids[2] = 0; /* not ascending */
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_check(&spec, t));
	spec.ids[2] = 2;
	dpk_cpuset_zero(&spec.cpus[3]); /* an lcore with no CPU */
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_check(&spec, t));
	dpk_cpuset_set(&spec.cpus[3], 3);
	spec.ids[3] = DPK_LCORE_MAX;
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_check(&spec, t));
	spec.ids[3] = 3;
	ASSERT_EQ(0, dpk_lcore_spec_check(&spec, t));
	dpk_topo_free(t);
}

/* ---------------------------------------------------------------------------------------- */

struct pair_want {
	const char *spec;
	enum dpk_placement p;
	int rc;
	unsigned a, b;
};

static void check_spec_pairs(const char *fixture, const struct pair_want *w, size_t n)
{
	struct dpk_topo *t = load_fixture(fixture);

	ASSERT_NOT_NULL(t);
	for (size_t i = 0; i < n; i++) {
		struct dpk_lcore_spec spec;
		unsigned a = 999, b = 999;
		int rc;

		ASSERT_EQ(0, dpk_lcore_spec_parse(w[i].spec, &spec));
		rc = dpk_lcore_spec_pair(&spec, t, w[i].p, &a, &b);
		if (rc != w[i].rc || (rc == 0 && (a != w[i].a || b != w[i].b)))
			dpk_test_note("%s: spec '%s' placement %s: rc %d, pair (%u, %u)", fixture,
			              w[i].spec, dpk_placement_name(w[i].p), rc, a, b);
		ASSERT_EQ(w[i].rc, rc);
		if (rc == 0) {
			ASSERT_EQ(w[i].a, a);
			ASSERT_EQ(w[i].b, b);
			ASSERT_LT(a, b);
		} else {
			ASSERT_EQ(999, a);
			ASSERT_EQ(999, b);
		}
	}
	dpk_topo_free(t);
}

static void spec_pair_xeon(void)
{
	static const struct pair_want w[] = {
	        {"0-15", DPK_PLACE_SMT, 0, 0, 8},
	        {"0-15", DPK_PLACE_CORE, 0, 0, 1},
	        {"0-15", DPK_PLACE_LLC, -ENOENT, 0, 0},
	        {"0-15", DPK_PLACE_NUMA, 0, 0, 4},
	        {"0-15", DPK_PLACE_OVERSUB, -ENOENT, 0, 0},
	        {"(0-1)@0,2@8,3@4", DPK_PLACE_OVERSUB, 0, 0, 1},
	        {"(0-1)@0,2@8,3@4", DPK_PLACE_SMT, 0, 0, 2},
	        {"(0-1)@0,2@8,3@4", DPK_PLACE_NUMA, 0, 0, 3},
	        {"(0-1)@0,2@8,3@4", DPK_PLACE_CORE, -ENOENT, 0, 0},
	        /* Lcores free on several CPUs are never picked. */
	        {"0@(0-1),1@1,2@2", DPK_PLACE_CORE, 0, 1, 2},
	        {"0@(0-1),1@(0-1)", DPK_PLACE_OVERSUB, -ENOENT, 0, 0},
	        /* Lcore numbers differ from CPU numbers. */
	        {"7@12,9@4", DPK_PLACE_SMT, 0, 7, 9},
	        /* cpu15 is offline and undescribed. */
	        {"0@7,1@15", DPK_PLACE_SMT, -ENOENT, 0, 0},
	};

	check_spec_pairs("xeon-2s-smt", w, sizeof(w) / sizeof(w[0]));
}

static void spec_pair_epyc(void)
{
	static const struct pair_want w[] = {
	        {"0-31", DPK_PLACE_SMT, 0, 0, 16},       {"0-31", DPK_PLACE_CORE, 0, 0, 1},
	        {"0-31", DPK_PLACE_LLC, 0, 0, 4},        {"0-31", DPK_PLACE_NUMA, -ENOENT, 0, 0},
	        {"4,0@16", DPK_PLACE_LLC, 0, 0, 4},      {"4,0@16", DPK_PLACE_SMT, -ENOENT, 0, 0},
	        {"(0-2)@5", DPK_PLACE_OVERSUB, 0, 0, 1},
	};

	check_spec_pairs("epyc-ccx", w, sizeof(w) / sizeof(w[0]));
}

static void spec_pair_sparse(void)
{
	static const struct pair_want w[] = {
	        {"0-3", DPK_PLACE_SMT, 0, 0, 1},           {"0-3", DPK_PLACE_CORE, -ENOENT, 0, 0},
	        {"0-3", DPK_PLACE_LLC, -ENOENT, 0, 0},     {"0-3", DPK_PLACE_NUMA, -ENOENT, 0, 0},
	        {"0-3", DPK_PLACE_OVERSUB, -ENOENT, 0, 0}, {"(0-1)@3", DPK_PLACE_OVERSUB, 0, 0, 1},
	        {"0@2,1@3", DPK_PLACE_SMT, -ENOENT, 0, 0},
	};

	check_spec_pairs("sparse", w, sizeof(w) / sizeof(w[0]));
}

static void spec_pair_bad_arguments(void)
{
	static const enum dpk_placement not_pairs[] = {DPK_PLACE_SINGLE, DPK_PLACE_ALL,
	                                               DPK_PLACE_COUNT};
	struct dpk_topo *t = load_fixture("epyc-ccx");
	struct dpk_lcore_spec spec;
	unsigned a, b;

	ASSERT_NOT_NULL(t);
	ASSERT_EQ(0, dpk_lcore_spec_parse("0-3", &spec));
	for (size_t i = 0; i < sizeof(not_pairs) / sizeof(not_pairs[0]); i++)
		ASSERT_EQ(-EINVAL, dpk_lcore_spec_pair(&spec, t, not_pairs[i], &a, &b));
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_pair(NULL, t, DPK_PLACE_SMT, &a, &b));
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_pair(&spec, t, DPK_PLACE_SMT, NULL, &b));
	ASSERT_EQ(-EINVAL, dpk_lcore_spec_pair(&spec, t, DPK_PLACE_SMT, &a, NULL));
	dpk_topo_free(t);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(spec_parse_good),
        DPK_TEST(spec_parse_bad),
        DPK_TEST(spec_check_xeon),
        DPK_TEST(spec_check_sparse_and_epyc),
        DPK_TEST(spec_check_rejects_bad_structs),
        DPK_TEST(spec_pair_xeon),
        DPK_TEST(spec_pair_epyc),
        DPK_TEST(spec_pair_sparse),
        DPK_TEST(spec_pair_bad_arguments),
};

DPK_TEST_MAIN(cases)
