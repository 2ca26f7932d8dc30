/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The environment report: every item's verdict on fake /proc and /sys trees
 * (tests/fixtures/env), unknown when files are missing, and a sanity pass on the real
 * machine.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dpk/common.h>

#include "dpk_test.h"
#include "env.h"

#define FIXTURES     DPK_SOURCE_DIR "/tests/fixtures/env/"
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum {
	OK = DPK_VERDICT_OK,
	DEG = DPK_VERDICT_DEGRADED,
	UNK = DPK_VERDICT_UNKNOWN,
	INF = DPK_VERDICT_INFO
};

/* The items in the order env.h promises. */
static const char *const keys[] = {
        "cpu_model", "kernel",        "compiler", "cflags",      "build_type",
        "dpkit",     "invariant_tsc", "tsc_hz",   "clocksource", "governor",
        "boost",     "smt",           "isolcpus", "nohz_full",   "hypervisor",
        "aslr",      "load",          "ssb",      "code_pages",
};
#define NKEYS ARRAY_LEN(keys)

/* A substring that an item's value or detail must hold. */
struct want_text {
	const char *key;
	bool in_detail;
	const char *text;
};

struct fixture_case {
	const char *name;
	const char *tree; /* directory under tests/fixtures/env */
	unsigned cpus[4]; /* used CPUs */
	unsigned ncpus;   /* 0: let the collector take the online CPUs */
	const char *build_type;
	int verdict[NKEYS]; /* in the order of keys[] */
	struct want_text text[10];
};

static const struct fixture_case fixture_cases[] = {
        {"tuned machine on its isolated CPUs",
         "bare-metal-tuned",
         {2, 3},
         2,
         "Release",
         /* model kern comp cflg build dpkit inv hz clk gov boost smt iso nohz hyp aslr load ssb
            code */
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, OK, OK, OK, OK, OK, OK, INF, INF, OK, INF},
         {{"cpu_model", false, "Xeon(R) Gold 6338"},
          {"governor", true, "performance on CPU 2,3"},
          {"boost", true, "cpufreq/boost = 0"},
          {"isolcpus", false, "2,3"},
          {"isolcpus", true, "CPU 2,3 isolated"},
          {"nohz_full", true, "CPU 2,3 tickless"},
          {"aslr", false, "0 (off)"},
          {"aslr", true, "addresses repeat from run to run"},
          {"load", false, "0.00 0.01 0.05"},
          {"ssb", true, "system: Mitigation: Speculative Store Bypass disabled via prctl"}}},
        {"tuned machine on housekeeping CPUs",
         "bare-metal-tuned",
         {0, 1},
         2,
         "RelWithDebInfo",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, OK, OK, OK, DEG, DEG, OK, INF, INF, OK, INF},
         {{"isolcpus", true, "CPU 0,1 not isolated"},
          {"nohz_full", true, "CPU 0,1 not tickless"},
          {"hypervisor", false, "none"}}},
        {"tuned machine, one CPU of two isolated",
         "bare-metal-tuned",
         {1, 2},
         2,
         "Release",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, OK, OK, OK, DEG, DEG, OK, INF, INF, OK, INF},
         {{"isolcpus", true, "CPU 1 not isolated"}}},
        {"untuned VM",
         "vm-untuned",
         {0, 1},
         2,
         "Debug",
         {INF, INF, INF, INF, DEG, INF, DEG, INF, DEG, UNK, UNK, UNK, DEG, DEG, DEG, INF, INF, DEG,
          INF},
         {{"invariant_tsc", true, "no nonstop_tsc"},
          {"clocksource", false, "kvm-clock"},
          {"governor", true, "no cpufreq in sysfs (typical of VMs)"},
          {"smt", true, "smt/active"},
          {"isolcpus", true, "CPU 0,1 not isolated"},
          {"nohz_full", false, "none"},
          {"hypervisor", false, "QEMU"},
          {"hypervisor", true, "steal time and vCPU preemption add noise"},
          {"ssb", false, "thread force mitigated"}}},
        {"laptop on the powersave CPU",
         "laptop",
         {0, 3},
         2,
         "Release",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, DEG, DEG, DEG, DEG, DEG, OK, INF, INF, OK, INF},
         {{"governor", false, "performance, powersave"},
          {"governor", true, "powersave on CPU 3"},
          {"boost", false, "on"},
          {"boost", true, "intel_pstate/no_turbo = 0"},
          {"smt", true, "CPU 0 with 2, CPU 3 with 1"},
          {"isolcpus", true, "CPU 0,3 not isolated"},
          {"ssb", true, "the CPU needs no mitigation; system: Not affected"}}},
        {"laptop on performance CPUs",
         "laptop",
         {0, 1},
         2,
         "Release",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, OK, DEG, DEG, DEG, DEG, OK, INF, INF, OK, INF},
         {{"governor", true, "performance on CPU 0,1"},
          {"aslr", true, "other addresses vary run to run"}}},
        {"laptop, all online CPUs",
         "laptop",
         {0},
         0,
         "Release",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, DEG, DEG, DEG, DEG, DEG, OK, INF, INF, OK, INF},
         {{"governor", true, "powersave on CPU 3"}, {"isolcpus", true, "CPU 0-3 not isolated"}}},
        {"arm board",
         "arm-board",
         {0, 1},
         2,
         "MinSizeRel",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, UNK, UNK, UNK, DEG, UNK, DEG, UNK, UNK, UNK,
          INF},
         {{"cpu_model", false, "CPU implementer 0x41 (Arm), part 0xd0c"},
          {"invariant_tsc", true, "Arm generic timer"},
          {"clocksource", false, "arch_sys_counter"},
          {"governor", true, "no scaling_governor for CPU 1"},
          {"isolcpus", true, "CPU 0 not isolated"},
          {"nohz_full", true, "nohz_full"},
          {"hypervisor", false, "xen"},
          {"ssb", true, "no Speculation_Store_Bypass line in"}}},
        {"arm board on isolated CPUs",
         "arm-board",
         {1, 2, 3},
         3,
         "Release",
         {INF, INF, INF, INF, OK, INF, OK, INF, OK, UNK, UNK, UNK, OK, UNK, DEG, UNK, UNK, UNK,
          INF},
         {{"isolcpus", true, "CPU 1-3 isolated"},
          {"governor", true, "no scaling_governor for CPU 1-3"}}},
};

static bool has_text(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

static void print_env(const struct dpk_env *env)
{
	for (unsigned i = 0; i < env->count; i++)
		dpk_test_note("  %-14s %-8s %-40s %s", env->item[i].key,
		              dpk_verdict_name(env->item[i].verdict), env->item[i].value,
		              env->item[i].detail);
}

/* Structure every report must have: the items in order, labels, a detail for unknowns. */
static void check_shape(const struct dpk_env *env)
{
	ASSERT_EQ_U(NKEYS, env->count);
	for (unsigned i = 0; i < NKEYS; i++) {
		const struct dpk_env_item *it = &env->item[i];

		ASSERT_STREQ(keys[i], it->key);
		ASSERT_TRUE(it->label[0] != '\0');
		ASSERT_TRUE(it->verdict == DPK_VERDICT_OK || it->verdict == DPK_VERDICT_DEGRADED ||
		            it->verdict == DPK_VERDICT_UNKNOWN || it->verdict == DPK_VERDICT_INFO);
		if (it->verdict == DPK_VERDICT_UNKNOWN)
			ASSERT_TRUE(it->detail[0] != '\0');
		else
			ASSERT_TRUE(it->value[0] != '\0');
		if (it->verdict == DPK_VERDICT_DEGRADED)
			ASSERT_TRUE(it->detail[0] != '\0');
	}
}

static void input_for(struct dpk_env_input *in, const char *tree, char *sys, char *proc, size_t len)
{
	snprintf(sys, len, FIXTURES "%s/sys", tree);
	snprintf(proc, len, FIXTURES "%s/proc", tree);
	memset(in, 0, sizeof(*in));
	in->sysfs_root = sys;
	in->procfs_root = proc;
	in->compiler = "gcc 12.2.0";
	in->cflags = "-O2 -march=native";
	in->version = "0.1.0";
	in->git_rev = "0123456789ab";
	in->tsc_hz = 2000000000;
	in->tsc_source = "cpuid";
}

static void fixture_verdicts(void)
{
	for (size_t c = 0; c < ARRAY_LEN(fixture_cases); c++) {
		const struct fixture_case *fc = &fixture_cases[c];
		char sys[512], proc[512];
		struct dpk_env_input in;
		struct dpk_cpuset cpus;
		struct dpk_env env;

		dpk_test_note("%s (%s)", fc->name, fc->tree);
		input_for(&in, fc->tree, sys, proc, sizeof(sys));
		in.build_type = fc->build_type;
		dpk_cpuset_zero(&cpus);
		for (unsigned i = 0; i < fc->ncpus; i++)
			dpk_cpuset_set(&cpus, fc->cpus[i]);
		in.cpus = fc->ncpus ? &cpus : NULL;
		dpk_env_collect(&in, &env);
		print_env(&env);
		check_shape(&env);
		for (unsigned i = 0; i < NKEYS; i++) {
			if ((int)env.item[i].verdict != fc->verdict[i])
				dpk_test_note("item %s", keys[i]);
			ASSERT_STREQ(dpk_verdict_name(fc->verdict[i]),
			             dpk_verdict_name(env.item[i].verdict));
		}
		for (size_t t = 0; t < ARRAY_LEN(fc->text) && fc->text[t].key; t++) {
			const struct want_text *w = &fc->text[t];
			const struct dpk_env_item *it = dpk_env_find(&env, w->key);

			ASSERT_NOT_NULL(it);
			if (!has_text(w->in_detail ? it->detail : it->value, w->text))
				dpk_test_note("%s %s lacks \"%s\"", w->key,
				              w->in_detail ? "detail" : "value", w->text);
			ASSERT_TRUE(has_text(w->in_detail ? it->detail : it->value, w->text));
		}
	}
}

static void given_facts_are_reported(void)
{
	char sys[512], proc[512];
	struct dpk_env_input in;
	struct dpk_env env;

	input_for(&in, "bare-metal-tuned", sys, proc, sizeof(sys));
	in.build_type = "Release";
	dpk_env_collect(&in, &env);
	ASSERT_STREQ("gcc 12.2.0", dpk_env_find(&env, "compiler")->value);
	ASSERT_STREQ("-O2 -march=native", dpk_env_find(&env, "cflags")->value);
	ASSERT_STREQ("Release", dpk_env_find(&env, "build_type")->value);
	ASSERT_STREQ("0.1.0 (git 0123456789ab)", dpk_env_find(&env, "dpkit")->value);
	ASSERT_STREQ("2000.000 MHz", dpk_env_find(&env, "tsc_hz")->value);
	ASSERT_TRUE(has_text(dpk_env_find(&env, "tsc_hz")->detail, "2000000000 Hz, source: cpuid"));
	ASSERT_EQ(INF, dpk_env_find(&env, "tsc_hz")->verdict); /* no check to judge it by */

	/* A check of the rate judges it: within 1000 ppm ok, beyond degraded. */
	in.tsc_hz_check = 2000000000.0 * (1 + 999e-6);
	dpk_env_collect(&in, &env);
	ASSERT_EQ(OK, dpk_env_find(&env, "tsc_hz")->verdict);
	ASSERT_TRUE(has_text(dpk_env_find(&env, "tsc_hz")->detail, "2001.998 MHz, 999 ppm apart"));
	in.tsc_hz_check = 2000000000.0 * (1 - 1001e-6);
	dpk_env_collect(&in, &env);
	ASSERT_EQ(DEG, dpk_env_find(&env, "tsc_hz")->verdict);
	ASSERT_TRUE(has_text(dpk_env_find(&env, "tsc_hz")->detail,
	                     "1997.998 MHz, 1001 ppm apart: ns and Mops/s are off"));
	in.tsc_hz_check = 1920000000.0; /* a 24 MHz crystal taken for 25 */
	dpk_env_collect(&in, &env);
	ASSERT_EQ(DEG, dpk_env_find(&env, "tsc_hz")->verdict);
	/* A counter that is clock_gettime itself is degraded whatever the check says. */
	in.tsc_hz = 1000000000;
	in.tsc_hz_check = 1000000000.0;
	in.tsc_source = "clock_gettime";
	dpk_env_collect(&in, &env);
	ASSERT_EQ(DEG, dpk_env_find(&env, "tsc_hz")->verdict);
	ASSERT_TRUE(has_text(dpk_env_find(&env, "tsc_hz")->detail, "timings by clock_gettime"));

	/* Nothing given: unknown, except the version, which the library knows. */
	memset(&in, 0, sizeof(in));
	in.sysfs_root = sys;
	in.procfs_root = proc;
	dpk_env_collect(&in, &env);
	check_shape(&env);
	ASSERT_EQ(UNK, dpk_env_find(&env, "compiler")->verdict);
	ASSERT_EQ(UNK, dpk_env_find(&env, "cflags")->verdict);
	ASSERT_EQ(UNK, dpk_env_find(&env, "build_type")->verdict);
	ASSERT_EQ(UNK, dpk_env_find(&env, "tsc_hz")->verdict);
	ASSERT_EQ(INF, dpk_env_find(&env, "dpkit")->verdict);
	ASSERT_STREQ(DPK_VERSION_STRING " (git unknown)", dpk_env_find(&env, "dpkit")->value);

	/* A build type the collector does not judge is a plain fact. */
	in.build_type = "Profile";
	dpk_env_collect(&in, &env);
	ASSERT_EQ(INF, dpk_env_find(&env, "build_type")->verdict);
}

static void missing_trees_are_unknown_never_ok(void)
{
	struct dpk_env_input in = {
	        .sysfs_root = FIXTURES "no-such-tree/sys",
	        .procfs_root = FIXTURES "no-such-tree/proc",
	};
	struct dpk_cpuset cpus;
	struct dpk_env env;

	for (int given = 0; given <= 1; given++) {
		dpk_cpuset_zero(&cpus);
		dpk_cpuset_set(&cpus, 0);
		in.cpus = given ? &cpus : NULL;
		dpk_env_collect(&in, &env);
		print_env(&env);
		check_shape(&env);
		for (unsigned i = 0; i < NKEYS; i++) {
			/* kernel comes from uname(), dpkit from the library itself and
			 * code_pages from the program's own mappings */
			if (strcmp(keys[i], "kernel") == 0 || strcmp(keys[i], "dpkit") == 0 ||
			    strcmp(keys[i], "code_pages") == 0)
				continue;
			ASSERT_STREQ("unknown", dpk_verdict_name(env.item[i].verdict));
		}
	}
	ASSERT_STREQ("no cpufreq in sysfs (typical of VMs)",
	             dpk_env_find(&env, "governor")->detail);
}

static void sysfs_root_from_environment(void)
{
	struct dpk_env_input in = {.procfs_root = FIXTURES "laptop/proc"};
	struct dpk_env env;
	int rc;

	rc = setenv("DPK_SYSFS_ROOT", FIXTURES "laptop/sys", 1);
	ASSERT_EQ(0, rc);
	dpk_env_collect(&in, &env);
	unsetenv("DPK_SYSFS_ROOT");
	ASSERT_EQ(DEG, dpk_env_find(&env, "governor")->verdict);
	ASSERT_TRUE(has_text(dpk_env_find(&env, "governor")->detail, "powersave on CPU 3"));

	/* An explicit root wins over the variable. */
	rc = setenv("DPK_SYSFS_ROOT", FIXTURES "laptop/sys", 1);
	ASSERT_EQ(0, rc);
	in.sysfs_root = FIXTURES "bare-metal-tuned/sys";
	dpk_env_collect(&in, &env);
	unsetenv("DPK_SYSFS_ROOT");
	ASSERT_EQ(OK, dpk_env_find(&env, "governor")->verdict);
}

static void long_cpu_lists_are_cut_visibly(void)
{
	struct dpk_env_input in = {
	        .sysfs_root = FIXTURES "laptop/sys",
	        .procfs_root = FIXTURES "laptop/proc",
	};
	const struct dpk_env_item *it;
	struct dpk_cpuset cpus;
	struct dpk_env env;
	size_t len;

	/* 512 scattered CPUs cannot be listed in a detail: the list is cut where it shows, and
	 * what is said about them stays. */
	dpk_cpuset_zero(&cpus);
	for (unsigned c = 0; c < DPK_CPU_MAX; c += 2)
		dpk_cpuset_set(&cpus, c);
	in.cpus = &cpus;
	dpk_env_collect(&in, &env);
	check_shape(&env);
	it = dpk_env_find(&env, "isolcpus");
	ASSERT_EQ(DEG, it->verdict);
	len = strlen(it->detail);
	dpk_test_note("%s", it->detail);
	ASSERT_LT(len, sizeof(it->detail));
	ASSERT_TRUE(has_text(it->detail, "CPU 0,2,4,6,"));
	ASSERT_TRUE(has_text(it->detail, ",... not isolated"));
	ASSERT_STREQ(" not isolated", it->detail + len - strlen(" not isolated"));
}

static void real_machine_has_a_verdict_for_everything(void)
{
	struct dpk_env env;

	dpk_env_collect(NULL, &env);
	print_env(&env);
	check_shape(&env);
}

static void find_and_names(void)
{
	struct dpk_env env;

	dpk_env_collect(NULL, &env);
	ASSERT_NOT_NULL(dpk_env_find(&env, "governor"));
	ASSERT_STREQ("governor", dpk_env_find(&env, "governor")->key);
	ASSERT_NULL(dpk_env_find(&env, "no_such_item"));
	ASSERT_NULL(dpk_env_find(NULL, "governor"));
	ASSERT_NULL(dpk_env_find(&env, NULL));
	ASSERT_STREQ("ok", dpk_verdict_name(DPK_VERDICT_OK));
	ASSERT_STREQ("degraded", dpk_verdict_name(DPK_VERDICT_DEGRADED));
	ASSERT_STREQ("unknown", dpk_verdict_name(DPK_VERDICT_UNKNOWN));
	ASSERT_STREQ("info", dpk_verdict_name(DPK_VERDICT_INFO));
	dpk_env_collect(NULL, NULL); /* no report to fill: a no-op */
}

/* The store-bypass item on a status line the fixtures do not have: "unknown" (a kernel with
 * no control of it) is unknown, and each mitigated form is degraded. */
static void store_bypass_states(void)
{
	static const struct {
		const char *line;
		int verdict;
		const char *detail;
	} t[] = {
	        {"Speculation_Store_Bypass:\tunknown\n", UNK, "the kernel reports unknown"},
	        {"Speculation_Store_Bypass:\tthread mitigated\n", DEG, "no load may pass"},
	        {"Speculation_Store_Bypass:\tglobally mitigated\n", DEG, "no load may pass"},
	        {"Speculation_Store_Bypass:\tvulnerable\n", OK, "no mitigation for this process"},
	        {"Name:\tx\n", UNK, "no Speculation_Store_Bypass line in"},
	};
	char dir[] = "/tmp/dpk_env_ssb_XXXXXX", path[128];

	ASSERT_NOT_NULL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/self", dir);
	ASSERT_EQ(0, mkdir(path, 0700));
	for (size_t i = 0; i < ARRAY_LEN(t); i++) {
		struct dpk_env_input in = {.procfs_root = dir, .sysfs_root = dir};
		struct dpk_env env;
		const struct dpk_env_item *it;
		FILE *f;

		snprintf(path, sizeof(path), "%s/self/status", dir);
		f = fopen(path, "w");
		ASSERT_NOT_NULL(f);
		fputs(t[i].line, f);
		fclose(f);
		dpk_env_collect(&in, &env);
		it = dpk_env_find(&env, "ssb");
		ASSERT_NOT_NULL(it);
		dpk_test_note("%s -> %s (%s)", t[i].line, dpk_verdict_name(it->verdict),
		              it->detail);
		EXPECT_STREQ(dpk_verdict_name(t[i].verdict), dpk_verdict_name(it->verdict));
		EXPECT_TRUE(has_text(it->detail, t[i].detail));
	}
	snprintf(path, sizeof(path), "%s/self/status", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/self", dir);
	rmdir(path);
	rmdir(dir);
}

/* This test program is not linked for 2 MB code pages: its code stays, and says why. */
static void code_pages_say_why_not(void)
{
	struct dpk_env env;
	const struct dpk_env_item *it;

	ASSERT_FALSE(dpk_bench_text_huge());
	dpk_test_note("%s", dpk_bench_text_why());
	ASSERT_TRUE(strstr(dpk_bench_text_why(), "max-page-size") != NULL ||
	            strstr(dpk_bench_text_why(), "sanitizer") != NULL);
	dpk_env_collect(NULL, &env);
	it = dpk_env_find(&env, "code_pages");
	ASSERT_NOT_NULL(it);
	ASSERT_EQ(INF, it->verdict);
	ASSERT_STREQ("4 KiB pages of the file", it->value);
	ASSERT_STREQ(dpk_bench_text_why(), it->detail);
}

static const struct dpk_test_case cases[] = {
        DPK_TEST(fixture_verdicts),
        DPK_TEST(given_facts_are_reported),
        DPK_TEST(missing_trees_are_unknown_never_ok),
        DPK_TEST(sysfs_root_from_environment),
        DPK_TEST(long_cpu_lists_are_cut_visibly),
        DPK_TEST(real_machine_has_a_verdict_for_everything),
        DPK_TEST(find_and_names),
        DPK_TEST(store_bypass_states),
        DPK_TEST(code_pages_say_why_not),
};

DPK_TEST_MAIN(cases)
