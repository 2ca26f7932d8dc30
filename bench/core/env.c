/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.c - the environment report: what the run's figures depend on, each with a verdict.
 *
 * Everything is read from files under a sysfs and a procfs root so that tests can point the
 * collector at fake trees. A file that cannot be read gives an unknown verdict naming it;
 * nothing missing is ever reported as ok.
 */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <dpk/common.h>
#include <dpk/cycles.h>

#include "env.h"

#define ROOT_LEN 512
#define PATH_LEN 1024

/* What the first processor block of cpuinfo says. */
struct cpuinfo {
	bool readable;
	bool have_flags; /* an x86 "flags" line was present */
	bool constant_tsc, nonstop_tsc, hypervisor;
	char model[128];      /* "model name" */
	char implementer[16]; /* aarch64 "CPU implementer" */
	char part[16];        /* aarch64 "CPU part" */
};

struct ctx {
	const struct dpk_env_input *in;
	char sys[ROOT_LEN];
	char proc[ROOT_LEN];
	struct dpk_cpuset used; /* the CPUs the run uses */
	bool used_known;
	struct cpuinfo ci;
};

static void appendf(char *dst, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int vjoin(char path[PATH_LEN], const char *root, const char *fmt, va_list ap)
        __attribute__((format(printf, 3, 0)));
static int read_at(const char *root, char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static bool is_dir_at(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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

/* Append to the string in @p dst (of @p len bytes); a result that does not fit ends in
 * "..." so that a cut list is never mistaken for a whole one. */
static void appendf(char *dst, size_t len, const char *fmt, ...)
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

/* Read a small text file into @p buf without trailing whitespace: 0 or -errno. */
static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t' ||
	                 buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return 0;
}

/* <root>/<formatted relative path> into @p path: 0 or -ENAMETOOLONG. */
static int vjoin(char path[PATH_LEN], const char *root, const char *fmt, va_list ap)
{
	int a = snprintf(path, PATH_LEN, "%s/", root), b;

	if (a < 0 || a >= PATH_LEN)
		return -ENAMETOOLONG;
	b = vsnprintf(path + a, PATH_LEN - (size_t)a, fmt, ap);
	if (b < 0 || b >= PATH_LEN - a)
		return -ENAMETOOLONG;
	return 0;
}

/* Read <root>/<fmt ...> into @p buf: 0 or -errno. */
static int read_at(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_LEN];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vjoin(path, root, fmt, ap);
	va_end(ap);
	if (rc) {
		buf[0] = '\0';
		return rc;
	}
	return read_text(path, buf, len);
}

/* True when <root>/<fmt ...> is a directory (following symbolic links). */
static bool is_dir_at(const char *root, const char *fmt, ...)
{
	char path[PATH_LEN];
	struct stat st;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vjoin(path, root, fmt, ap);
	va_end(ap);
	return rc == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool parse_uint(const char **p, unsigned *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= DPK_CPU_MAX)
			return false;
		s++;
	}
	*p = s;
	*out = (unsigned)v;
	return true;
}

/*
 * A sysfs CPU list ("0-3,8"). An empty file and the "(null)" some kernels print for an
 * unallocated nohz_full mask both mean no CPU. 0 or -EINVAL.
 */
static int parse_cpulist(const char *s, struct dpk_cpuset *out)
{
	dpk_cpuset_zero(out);
	while (*s == ' ')
		s++;
	if (*s == '\0' || strcmp(s, "(null)") == 0)
		return 0;
	for (;;) {
		unsigned a, b;

		if (!parse_uint(&s, &a))
			return -EINVAL;
		b = a;
		if (*s == '-') {
			s++;
			if (!parse_uint(&s, &b) || b < a)
				return -EINVAL;
		}
		for (unsigned c = a; c <= b; c++)
			dpk_cpuset_set(out, c);
		if (*s == '\0')
			return 0;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
}

/* Format a CPU set for people: runs of three or more as "a-b", others listed ("0,1"). */
static const char *format_cpus(const struct dpk_cpuset *s, char *buf, size_t len)
{
	unsigned c;

	buf[0] = '\0';
	c = dpk_cpuset_first(s);
	while (c < DPK_CPU_MAX) {
		unsigned last = c;

		while (last + 1 < DPK_CPU_MAX && dpk_cpuset_isset(s, last + 1))
			last++;
		if (last >= c + 2)
			appendf(buf, len, "%s%u-%u", buf[0] ? "," : "", c, last);
		else if (last == c + 1)
			appendf(buf, len, "%s%u,%u", buf[0] ? "," : "", c, last);
		else
			appendf(buf, len, "%s%u", buf[0] ? "," : "", c);
		c = dpk_cpuset_next(s, last);
	}
	if (buf[0] == '\0')
		appendf(buf, len, "none");
	return buf;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\t';
		bool stop = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';

		if (start && stop)
			return true;
	}
	return false;
}

static void copy_field(char *dst, size_t len, const char *value)
{
	size_t n = strlen(value);

	while (n > 0 && (value[n - 1] == '\n' || value[n - 1] == ' '))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(dst, value, n);
	dst[n] = '\0';
}

/* The first processor block of <proc>/cpuinfo: every CPU of a machine shares these. */
static void read_cpuinfo(struct ctx *c)
{
	char path[PATH_LEN];
	char *line = NULL;
	size_t cap = 0;
	bool seen = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/cpuinfo", c->proc) >= (int)sizeof(path))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	c->ci.readable = true;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		size_t klen;

		if (line[0] == '\n') {
			if (seen)
				break;
			continue;
		}
		if (!colon)
			continue;
		seen = true;
		klen = (size_t)(colon - line);
		while (klen > 0 && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
#define KEY_IS(k) (klen == strlen(k) && strncmp(line, k, klen) == 0)
		if (KEY_IS("model name")) {
			copy_field(c->ci.model, sizeof(c->ci.model), colon);
		} else if (KEY_IS("flags")) {
			c->ci.have_flags = true;
			c->ci.constant_tsc = has_word(colon, "constant_tsc");
			c->ci.nonstop_tsc = has_word(colon, "nonstop_tsc");
			c->ci.hypervisor = has_word(colon, "hypervisor");
		} else if (KEY_IS("CPU implementer")) {
			copy_field(c->ci.implementer, sizeof(c->ci.implementer), colon);
		} else if (KEY_IS("CPU part")) {
			copy_field(c->ci.part, sizeof(c->ci.part), colon);
		}
#undef KEY_IS
	}
	free(line);
	fclose(f);
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

/* A fact the harness passed in: info when given, unknown when not. */
static void given(struct dpk_env_item *it, const char *value)
{
	if (!value) {
		it->verdict = DPK_VERDICT_UNKNOWN;
		appendf(it->detail, sizeof(it->detail), "not given by the harness");
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	appendf(it->value, sizeof(it->value), "%s", value[0] ? value : "(none)");
}

static const char *arm_vendor(unsigned long id)
{
	switch (id) {
	case 0x41:
		return "Arm";
	case 0x42:
		return "Broadcom";
	case 0x46:
		return "Fujitsu";
	case 0x48:
		return "HiSilicon";
	case 0x4e:
		return "NVIDIA";
	case 0x51:
		return "Qualcomm";
	case 0x61:
		return "Apple";
	case 0xc0:
		return "Ampere";
	default:
		return NULL;
	}
}

static void item_cpu_model(struct ctx *c, struct dpk_env_item *it)
{
	if (c->ci.model[0]) {
		it->verdict = DPK_VERDICT_INFO;
		appendf(it->value, sizeof(it->value), "%s", c->ci.model);
	} else if (c->ci.implementer[0]) {
		const char *vendor = arm_vendor(strtoul(c->ci.implementer, NULL, 0));

		it->verdict = DPK_VERDICT_INFO;
		appendf(it->value, sizeof(it->value), "CPU implementer %s%s%s%s, part %s",
		        c->ci.implementer, vendor ? " (" : "", vendor ? vendor : "",
		        vendor ? ")" : "", c->ci.part[0] ? c->ci.part : "unknown");
		appendf(it->detail, sizeof(it->detail), "cpuinfo has no model name on this CPU");
	} else {
		appendf(it->detail, sizeof(it->detail),
		        c->ci.readable ? "no model name or CPU implementer in %s/cpuinfo"
		                       : "cannot read %s/cpuinfo",
		        c->proc);
	}
}

static void item_kernel(struct dpk_env_item *it)
{
	struct utsname u;

	if (uname(&u) != 0) {
		appendf(it->detail, sizeof(it->detail), "uname() failed");
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	appendf(it->value, sizeof(it->value), "%s %s %s", u.sysname, u.release, u.machine);
	appendf(it->detail, sizeof(it->detail), "%s", u.version);
}

static void item_build_type(struct ctx *c, struct dpk_env_item *it)
{
	const char *b = c->in->build_type;

	given(it, b);
	if (!b)
		return;
	/* Unoptimised and sanitizer builds measure something other than the library. */
	if (strcmp(b, "Release") == 0 || strcmp(b, "RelWithDebInfo") == 0 ||
	    strcmp(b, "MinSizeRel") == 0) {
		it->verdict = DPK_VERDICT_OK;
		appendf(it->detail, sizeof(it->detail), "optimised build");
	} else if (strcmp(b, "Debug") == 0 || strcmp(b, "Asan") == 0 || strcmp(b, "Tsan") == 0) {
		it->verdict = DPK_VERDICT_DEGRADED;
		appendf(it->detail, sizeof(it->detail),
		        "unoptimised or instrumented: figures do not represent a release build");
	}
}

static void item_dpkit(struct ctx *c, struct dpk_env_item *it)
{
	const char *v = c->in->version ? c->in->version : dpk_version();
	const char *g = c->in->git_rev ? c->in->git_rev : "unknown";

	it->verdict = DPK_VERDICT_INFO;
	appendf(it->value, sizeof(it->value), "%s (git %s)", v, g);
}

static void item_invariant_tsc(struct ctx *c, struct dpk_env_item *it)
{
	char *d = it->detail;
	size_t dl = sizeof(it->detail);

	if (c->ci.have_flags) {
		if (c->ci.constant_tsc && c->ci.nonstop_tsc) {
			it->verdict = DPK_VERDICT_OK;
			appendf(it->value, sizeof(it->value), "yes");
			appendf(d, dl, "constant_tsc and nonstop_tsc flags set");
			return;
		}
		it->verdict = DPK_VERDICT_DEGRADED;
		appendf(it->value, sizeof(it->value), "no");
		if (!c->ci.constant_tsc)
			appendf(d, dl, "no constant_tsc: the counter rate follows the core clock");
		if (!c->ci.nonstop_tsc)
			appendf(d, dl, "%sno nonstop_tsc: the counter may stop in deep idle states",
			        d[0] ? "; " : "");
		return;
	}
	if (c->ci.implementer[0]) {
		/* The Arm generic timer runs at a fixed rate in every power state by definition. */
		it->verdict = DPK_VERDICT_OK;
		appendf(it->value, sizeof(it->value), "yes");
		appendf(d, dl, "Arm generic timer: fixed rate by architecture");
		return;
	}
	appendf(d, dl, c->ci.readable ? "no flags line in %s/cpuinfo" : "cannot read %s/cpuinfo",
	        c->proc);
}

static void item_tsc_hz(struct ctx *c, struct dpk_env_item *it)
{
	uint64_t hz = c->in->tsc_hz;

	if (hz == 0) {
		appendf(it->detail, sizeof(it->detail), "the harness did not measure it");
		return;
	}
	const char *src = c->in->tsc_source ? c->in->tsc_source : "not given";
	double check = c->in->tsc_hz_check;

	it->verdict = DPK_VERDICT_INFO;
	appendf(it->value, sizeof(it->value), "%.3f MHz", (double)hz / 1e6);
	appendf(it->detail, sizeof(it->detail), "%llu Hz, source: %s", (unsigned long long)hz, src);
	if (strcmp(src, dpk_tsc_source_name(DPK_TSC_SRC_NANOSECONDS)) == 0) {
		/* No counter of the CPU's: every timing is a vDSO call, dearer and coarser. */
		it->verdict = DPK_VERDICT_DEGRADED;
		appendf(it->detail, sizeof(it->detail),
		        "; no CPU counter, timings by clock_gettime");
	} else if (check > 0) {
		double ppm = fabs(check - (double)hz) / (double)hz * 1e6;

		it->verdict = ppm <= DPK_ENV_TSC_HZ_PPM ? DPK_VERDICT_OK : DPK_VERDICT_DEGRADED;
		appendf(it->detail, sizeof(it->detail), "; a check measured %.3f MHz, %.0f ppm %s",
		        check / 1e6, ppm,
		        it->verdict == DPK_VERDICT_OK ? "apart"
		                                      : "apart: ns and Mops/s are off by as much");
	}
}

static void item_clocksource(struct ctx *c, struct dpk_env_item *it)
{
	char buf[64];

	if (read_at(c->sys, buf, sizeof(buf),
	            "devices/system/clocksource/clocksource0/current_clocksource") != 0 ||
	    buf[0] == '\0') {
		appendf(it->detail, sizeof(it->detail),
		        "no devices/system/clocksource/clocksource0/current_clocksource");
		return;
	}
	appendf(it->value, sizeof(it->value), "%s", buf);
	if (strcmp(buf, "tsc") == 0 || strcmp(buf, "arch_sys_counter") == 0) {
		it->verdict = DPK_VERDICT_OK;
		appendf(it->detail, sizeof(it->detail),
		        "the kernel keeps time with the counter the harness reads");
	} else {
		it->verdict = DPK_VERDICT_DEGRADED;
		appendf(it->detail, sizeof(it->detail),
		        "the kernel keeps time with %s, not the TSC: it may not trust the TSC",
		        buf);
	}
}

/* At most this many distinct governors are told apart; more are lumped as "other". */
#define GOV_GROUPS 8

static void item_governor(struct ctx *c, struct dpk_env_item *it)
{
	struct {
		char name[32];
		struct dpk_cpuset cpus;
	} g[GOV_GROUPS];
	struct dpk_cpuset missing;
	unsigned ng = 0, cpu, k;
	bool any_dir = false, bad = false;
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	char list[128];

	if (!c->used_known) {
		appendf(d, dl, "CPUs in use not known");
		return;
	}
	memset(g, 0, sizeof(g));
	dpk_cpuset_zero(&missing);
	DPK_CPUSET_FOREACH(cpu, &c->used)
	{
		char gov[32];

		if (is_dir_at(c->sys, "devices/system/cpu/cpu%u/cpufreq", cpu))
			any_dir = true;
		if (read_at(c->sys, gov, sizeof(gov),
		            "devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu) != 0 ||
		    gov[0] == '\0') {
			dpk_cpuset_set(&missing, cpu);
			continue;
		}
		for (k = 0; k < ng && strcmp(g[k].name, gov) != 0; k++)
			;
		if (k == ng) {
			if (ng < GOV_GROUPS) {
				ng++;
				snprintf(g[k].name, sizeof(g[k].name), "%s", gov);
			} else {
				k = GOV_GROUPS - 1;
				snprintf(g[k].name, sizeof(g[k].name), "other");
			}
		}
		dpk_cpuset_set(&g[k].cpus, cpu);
	}

	if (!any_dir && ng == 0) {
		appendf(d, dl, "no cpufreq in sysfs (typical of VMs)");
		return;
	}
	for (k = 0; k < ng; k++) {
		appendf(it->value, sizeof(it->value), "%s%s", k ? ", " : "", g[k].name);
		if (strcmp(g[k].name, "performance") != 0)
			bad = true;
	}
	if (bad) {
		it->verdict = DPK_VERDICT_DEGRADED;
		for (k = 0; k < ng; k++)
			if (strcmp(g[k].name, "performance") != 0)
				appendf(d, dl, "%s%s on CPU %s", d[0] ? "; " : "", g[k].name,
				        format_cpus(&g[k].cpus, list, sizeof(list)));
		if (dpk_cpuset_count(&missing))
			appendf(d, dl, "; no governor for CPU %s",
			        format_cpus(&missing, list, sizeof(list)));
	} else if (dpk_cpuset_count(&missing)) {
		appendf(d, dl, "no scaling_governor for CPU %s",
		        format_cpus(&missing, list, sizeof(list)));
	} else {
		it->verdict = DPK_VERDICT_OK;
		appendf(d, dl, "performance on CPU %s", format_cpus(&c->used, list, sizeof(list)));
	}
}

/* "0" or "1" in <sys>/<rel>: 0 or 1, -1 when missing or anything else. */
static int read_flag(struct ctx *c, const char *rel)
{
	char buf[16];

	if (read_at(c->sys, buf, sizeof(buf), "%s", rel) != 0)
		return -1;
	if (strcmp(buf, "0") == 0)
		return 0;
	if (strcmp(buf, "1") == 0)
		return 1;
	return -1;
}

static void item_boost(struct ctx *c, struct dpk_env_item *it)
{
	int boost = read_flag(c, "devices/system/cpu/cpufreq/boost");
	int no_turbo = read_flag(c, "devices/system/cpu/intel_pstate/no_turbo");
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	bool on;

	if (boost < 0 && no_turbo < 0) {
		appendf(d, dl, "no cpufreq/boost or intel_pstate/no_turbo in sysfs");
		return;
	}
	on = boost == 1 || no_turbo == 0;
	it->verdict = on ? DPK_VERDICT_DEGRADED : DPK_VERDICT_OK;
	appendf(it->value, sizeof(it->value), on ? "on" : "off");
	if (boost >= 0)
		appendf(d, dl, "cpufreq/boost = %d", boost);
	if (no_turbo >= 0)
		appendf(d, dl, "%sintel_pstate/no_turbo = %d", d[0] ? ", " : "", no_turbo);
	if (on)
		appendf(d, dl, ": the clock rises and falls with load and temperature");
}

static void item_smt(struct ctx *c, struct dpk_env_item *it)
{
	int active = read_flag(c, "devices/system/cpu/smt/active");
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	bool named = false;
	unsigned cpu;

	if (active < 0) {
		appendf(d, dl, "no devices/system/cpu/smt/active");
		return;
	}
	if (active == 0) {
		it->verdict = DPK_VERDICT_OK;
		appendf(it->value, sizeof(it->value), "off");
		appendf(d, dl, "one thread per core");
		return;
	}
	it->verdict = DPK_VERDICT_DEGRADED;
	appendf(it->value, sizeof(it->value), "on");
	appendf(d, dl, "sibling threads share a core");
	if (!c->used_known)
		return;
	/* Name the used CPUs that have an online sibling, and the sibling. */
	DPK_CPUSET_FOREACH(cpu, &c->used)
	{
		struct dpk_cpuset sib;
		char buf[128], list[64];

		if (read_at(c->sys, buf, sizeof(buf),
		            "devices/system/cpu/cpu%u/topology/thread_siblings_list", cpu) != 0 ||
		    parse_cpulist(buf, &sib) != 0)
			continue;
		dpk_cpuset_clear(&sib, cpu);
		if (dpk_cpuset_count(&sib) == 0)
			continue;
		appendf(d, dl, "%sCPU %u with %s", named ? ", " : ": ", cpu,
		        format_cpus(&sib, list, sizeof(list)));
		named = true;
	}
}

/* isolcpus and nohz_full: are all used CPUs in the list in <sys>/devices/system/cpu/<file>? */
static void item_cpu_list(struct ctx *c, struct dpk_env_item *it, const char *file,
                          const char *in_words, const char *missing_hint)
{
	struct dpk_cpuset set, outside;
	char buf[1024], list[128];
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	unsigned cpu;

	if (read_at(c->sys, buf, sizeof(buf), "devices/system/cpu/%s", file) != 0) {
		appendf(d, dl, "no devices/system/cpu/%s%s", file, missing_hint);
		return;
	}
	if (parse_cpulist(buf, &set) != 0) {
		appendf(d, dl, "cannot parse devices/system/cpu/%s: \"%s\"", file, buf);
		return;
	}
	appendf(it->value, sizeof(it->value), "%s", format_cpus(&set, list, sizeof(list)));
	if (!c->used_known) {
		appendf(d, dl, "CPUs in use not known");
		return;
	}
	dpk_cpuset_zero(&outside);
	DPK_CPUSET_FOREACH(cpu, &c->used)
	{
		if (!dpk_cpuset_isset(&set, cpu))
			dpk_cpuset_set(&outside, cpu);
	}
	if (dpk_cpuset_count(&outside)) {
		it->verdict = DPK_VERDICT_DEGRADED;
		appendf(d, dl, "CPU %s not %s", format_cpus(&outside, list, sizeof(list)),
		        in_words);
	} else {
		it->verdict = DPK_VERDICT_OK;
		appendf(d, dl, "CPU %s %s", format_cpus(&c->used, list, sizeof(list)), in_words);
	}
}

static void item_hypervisor(struct ctx *c, struct dpk_env_item *it)
{
	char type[64], vendor[64];
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	bool have_type = read_at(c->sys, type, sizeof(type), "hypervisor/type") == 0 && type[0];

	if (have_type || c->ci.hypervisor) {
		it->verdict = DPK_VERDICT_DEGRADED;
		/* The flag names no vendor; DMI often does ("QEMU", "Amazon EC2"). */
		if (have_type)
			appendf(it->value, sizeof(it->value), "%s", type);
		else if (read_at(c->sys, vendor, sizeof(vendor), "class/dmi/id/sys_vendor") == 0 &&
		         vendor[0])
			appendf(it->value, sizeof(it->value), "%s", vendor);
		else
			appendf(it->value, sizeof(it->value), "yes");
		appendf(d, dl, "%s: steal time and vCPU preemption add noise",
		        c->ci.hypervisor ? "hypervisor flag in cpuinfo"
		                         : "hypervisor/type in sysfs");
		return;
	}
	if (c->ci.have_flags) {
		it->verdict = DPK_VERDICT_OK;
		appendf(it->value, sizeof(it->value), "none");
		appendf(d, dl, "no hypervisor flag in cpuinfo");
		return;
	}
	appendf(d, dl, "no flags in %s/cpuinfo and no hypervisor/type in sysfs", c->proc);
}

static void item_aslr(struct ctx *c, struct dpk_env_item *it)
{
	static const char *const what[] = {"off", "partial", "full"};
	char buf[16];

	if (read_at(c->proc, buf, sizeof(buf), "sys/kernel/randomize_va_space") != 0 ||
	    buf[0] == '\0') {
		appendf(it->detail, sizeof(it->detail), "no %s/sys/kernel/randomize_va_space",
		        c->proc);
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	if (buf[1] == '\0' && buf[0] >= '0' && buf[0] <= '2')
		appendf(it->value, sizeof(it->value), "%s (%s)", buf, what[buf[0] - '0']);
	else
		appendf(it->value, sizeof(it->value), "%s", buf);
	if (strcmp(buf, "0") == 0)
		appendf(it->detail, sizeof(it->detail), "addresses repeat from run to run");
	else
		appendf(it->detail, sizeof(it->detail),
		        "case arena and timed stack pinned; other addresses vary run to run");
}

static void item_load(struct ctx *c, struct dpk_env_item *it)
{
	char buf[128], l1[16], l5[16], l15[16], tasks[32];

	if (read_at(c->proc, buf, sizeof(buf), "loadavg") != 0 ||
	    sscanf(buf, "%15s %15s %15s %31s", l1, l5, l15, tasks) != 4) {
		appendf(it->detail, sizeof(it->detail), "cannot read %s/loadavg", c->proc);
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	appendf(it->value, sizeof(it->value), "%s %s %s", l1, l5, l15);
	appendf(it->detail, sizeof(it->detail), "1, 5 and 15 minute averages; %s tasks runnable",
	        tasks);
}

/*
 * Speculative store bypass. With its mitigation on for this thread (a prctl, a seccomp
 * filter on kernels whose default ties the two, or spec_store_bypass_disable=on), the core
 * runs no load ahead of an earlier store whose address it does not know yet, and code that
 * stores and loads in quick succession, as a ring does, pays for it (docs/method.md, "Store
 * bypass"). Figures taken so are true of processes run so, not of the usual one.
 */
static void item_ssb(struct ctx *c, struct dpk_env_item *it)
{
	static const char key[] = "Speculation_Store_Bypass:";
	char path[PATH_LEN], *line = NULL, sys[96];
	size_t cap = 0;
	const char *v = NULL;
	FILE *f = NULL;
	int len = snprintf(path, sizeof(path), "%s/self/status", c->proc);

	if (len >= 0 && len < (int)sizeof(path))
		f = fopen(path, "r");
	while (f && getline(&line, &cap, f) > 0)
		if (strncmp(line, key, sizeof(key) - 1) == 0) {
			v = line + sizeof(key) - 1;
			while (*v == ' ' || *v == '\t')
				v++;
			copy_field(it->value, sizeof(it->value), v);
			break;
		}
	free(line);
	if (f)
		fclose(f);
	if (!v || !it->value[0]) {
		it->value[0] = '\0';
		appendf(it->detail, sizeof(it->detail),
		        "no Speculation_Store_Bypass line in %s/self/status", c->proc);
		return;
	}
	if (strcmp(it->value, "unknown") == 0) { /* the kernel has no control of it */
		it->value[0] = '\0';
		appendf(it->detail, sizeof(it->detail), "the kernel reports unknown");
		return;
	}
	if (strstr(it->value, "mitigated")) {
		it->verdict = DPK_VERDICT_DEGRADED;
		appendf(it->detail, sizeof(it->detail),
		        "no load may pass an earlier store: ring figures up to 3x those without "
		        "it");
	} else {
		it->verdict = DPK_VERDICT_OK;
		appendf(it->detail, sizeof(it->detail), "%s",
		        strstr(it->value, "not vulnerable") ? "the CPU needs no mitigation"
		                                            : "no mitigation for this process");
	}
	if (read_at(c->sys, sys, sizeof(sys),
	            "devices/system/cpu/vulnerabilities/spec_store_bypass") == 0)
		appendf(it->detail, sizeof(it->detail), "; system: %s", sys);
}

static void copy_root(char dst[ROOT_LEN], const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n >= ROOT_LEN)
		n = ROOT_LEN - 1; /* a longer root fails as missing files, never overflows */
	memcpy(dst, root, n);
	dst[n] = '\0';
}

void dpk_env_collect(const struct dpk_env_input *in, struct dpk_env *out)
{
	static const struct dpk_env_input none;
	struct ctx ctx, *c = &ctx;
	const char *sys;
	char buf[1024];

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

	if (c->in->cpus && dpk_cpuset_count(c->in->cpus)) {
		c->used = *c->in->cpus;
		c->used_known = true;
	} else if (read_at(c->sys, buf, sizeof(buf), "devices/system/cpu/online") == 0 &&
	           parse_cpulist(buf, &c->used) == 0 && dpk_cpuset_count(&c->used)) {
		c->used_known = true;
	}
	read_cpuinfo(c);

	item_cpu_model(c, add_item(out, "cpu_model", "CPU model"));
	item_kernel(add_item(out, "kernel", "Kernel"));
	given(add_item(out, "compiler", "Compiler"), c->in->compiler);
	given(add_item(out, "cflags", "Compiler flags"), c->in->cflags);
	item_build_type(c, add_item(out, "build_type", "Build type"));
	item_dpkit(c, add_item(out, "dpkit", "dpkit version"));
	if (c->in->libraries && c->in->libraries[0])
		given(add_item(out, "libraries", "Libraries timed"), c->in->libraries);
	item_invariant_tsc(c, add_item(out, "invariant_tsc", "Invariant TSC"));
	item_tsc_hz(c, add_item(out, "tsc_hz", "TSC frequency"));
	item_clocksource(c, add_item(out, "clocksource", "Kernel clocksource"));
	item_governor(c, add_item(out, "governor", "CPU frequency governor"));
	item_boost(c, add_item(out, "boost", "Frequency boost (turbo)"));
	item_smt(c, add_item(out, "smt", "SMT (hyper-threading)"));
	item_cpu_list(c, add_item(out, "isolcpus", "Isolated CPUs (isolcpus)"), "isolated",
	              "isolated", "");
	item_cpu_list(c, add_item(out, "nohz_full", "Tickless CPUs (nohz_full)"), "nohz_full",
	              "tickless", " (kernel without NO_HZ_FULL?)");
	item_hypervisor(c, add_item(out, "hypervisor", "Hypervisor"));
	item_aslr(c, add_item(out, "aslr", "Address space randomisation"));
	item_load(c, add_item(out, "load", "Load average"));
	item_ssb(c, add_item(out, "ssb", "Speculative store bypass"));
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
