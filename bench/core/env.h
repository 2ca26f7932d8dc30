/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.h - the environment a run happens in, each item with a verdict: ok (helps
 * trustworthy figures), degraded (known to add noise or bias), unknown (could not be
 * read; never reported as ok).
 */
#ifndef DPK_BENCH_ENV_H
#define DPK_BENCH_ENV_H

#include <dpk/common.h>

enum dpk_verdict { DPK_VERDICT_OK, DPK_VERDICT_DEGRADED, DPK_VERDICT_UNKNOWN, DPK_VERDICT_INFO };

/** "ok", "degraded", "unknown", "info" (info: a fact with nothing to judge, e.g. kernel). */
const char *dpk_verdict_name(enum dpk_verdict v);

struct dpk_env_item {
	char key[32];     /**< stable machine name: "cpu_model", "governor", ... */
	char label[48];   /**< for people: "CPU model", "CPU frequency governor", ... */
	char value[160];  /**< what was found, "" when unknown */
	char detail[160]; /**< why this verdict, e.g. "cpu0: powersave" or "no cpufreq in sysfs" */
	enum dpk_verdict verdict;
};

#define DPK_ENV_ITEMS_MAX 32

struct dpk_env {
	unsigned count;
	struct dpk_env_item item[DPK_ENV_ITEMS_MAX];
};

/** Facts the harness measured or was built with, passed in rather than re-derived. */
struct dpk_env_input {
	const char *sysfs_root;        /**< NULL: $DPK_SYSFS_ROOT or /sys */
	const char *procfs_root;       /**< NULL: /proc (tests point this at a fake tree) */
	const struct dpk_cpuset *cpus; /**< CPUs the run uses (isolcpus/nohz/governor checks);
	                                    NULL or empty: the online CPUs */
	const char *compiler;          /**< e.g. "gcc 12.2.0" */
	const char *cflags;            /**< flags the library and harness were built with */
	const char *build_type;        /**< "Release", ... */
	const char *version;           /**< dpkit version */
	const char *git_rev;           /**< git revision or "unknown" */
	const char *libraries;         /**< what the cases time besides dpkit ("DPDK 22.11.11,
	                                    ck 0.7.1"); NULL or "": no item */
	uint64_t tsc_hz;               /**< counter frequency */
	const char *tsc_source;        /**< "cpuid", "calibrated", ... */
	double tsc_hz_check;           /**< the rate a separate measurement found; 0: none */
};

/** How far apart, in parts per million, the counter's stated rate and a check of it may be:
 * the check is a 20 ms calibration, which agrees with a sound rate to a few ppm, and a
 * CPUID crystal figure that is wrong is wrong by percents (25 MHz for 24). */
#define DPK_ENV_TSC_HZ_PPM 1000.0

/**
 * Collect the environment report. Items, in order: cpu_model, kernel, compiler, cflags,
 * build_type, dpkit (version + git revision), invariant_tsc (constant_tsc and
 * nonstop_tsc flags), tsc_hz (Hz and source: ok when tsc_hz_check agrees within
 * DPK_ENV_TSC_HZ_PPM, degraded when it does not or when the counter is clock_gettime
 * itself, info with no check), clocksource (current one: tsc is ok),
 * governor (every used CPU "performance": ok; any other: degraded; no cpufreq: unknown),
 * boost (cpufreq/boost or intel_pstate/no_turbo: on is degraded), smt (smt/active: 1 is
 * degraded because siblings share a core, 0 ok), isolcpus (used CPUs all in
 * devices/system/cpu/isolated: ok, else degraded), nohz_full (same with nohz_full),
 * hypervisor ("hypervisor" cpuinfo flag or /sys/hypervisor/type: degraded, with the
 * vendor if known), aslr (/proc/sys/kernel/randomize_va_space: info), load (loadavg: info),
 * ssb (Speculation_Store_Bypass in /proc/self/status: "mitigated" in any form is degraded,
 * vulnerable or not vulnerable ok; with the system-wide mode from
 * devices/system/cpu/vulnerabilities/spec_store_bypass in the detail), code_pages (where
 * the program's code lies and why, dpk_bench_text_state() and _why(): info).
 * Anything unreadable is unknown with a detail saying what was missing.
 *
 * Beyond that: build_type Release, RelWithDebInfo or MinSizeRel is ok and Debug, Asan or
 * Tsan degraded (other names are info); a fact the harness did not pass in (NULL, or
 * tsc_hz 0) is unknown, except the version, which defaults to dpk_version(). On aarch64,
 * where cpuinfo has no model name and no flags, cpu_model is "CPU implementer ..., part ..."
 * and invariant_tsc is ok (the generic timer has a fixed rate); clocksource
 * arch_sys_counter is ok like tsc. The hypervisor vendor comes from hypervisor/type, else
 * class/dmi/id/sys_vendor. A governor of some used CPUs with others missing is unknown.
 * An empty isolated or nohz_full list (or the "(null)" old kernels print) means none.
 * @p in may be NULL (all defaults); nothing is done when @p out is NULL.
 */
void dpk_env_collect(const struct dpk_env_input *in, struct dpk_env *out);

/** The item with @p key, or NULL. */
const struct dpk_env_item *dpk_env_find(const struct dpk_env *env, const char *key);

/**
 * Move the program's code onto 2 MB pages (bench/core/hugetext.c), so that where a loop
 * lies in physical memory no longer depends on the file it came from. True when moved;
 * either way dpk_bench_text_state() says how the code lies and dpk_bench_text_why() why.
 */
bool dpk_bench_text_huge(void);
const char *dpk_bench_text_state(void);
const char *dpk_bench_text_why(void);
/** Once moved, move the code again onto fresh pages: each round then draws its own
 *  physical placement, which the rounds' spread carries instead of one draw per process. */
void dpk_bench_text_rehome(void);

#endif /* DPK_BENCH_ENV_H */
