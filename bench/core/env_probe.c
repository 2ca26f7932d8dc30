/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_probe.c - the environment's probes: what the files under the sysfs and procfs roots
 * say of the CPU, its counter and clock source, the frequency governor and boost, SMT,
 * CPU isolation, the hypervisor, address randomisation, the load and the store-bypass
 * mitigation, each turned into an item's value, verdict and detail (env_int.h). A probe
 * that cannot read its file leaves the item unknown and names the file.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dpk/common.h>

#include "env_int.h"

#define PATH_LEN 1024

static int vjoin(char path[PATH_LEN], const char *root, const char *fmt, va_list ap)
        __attribute__((format(printf, 3, 0)));
static int read_at(const char *root, char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static bool is_dir_at(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
			dpk__env_appendf(buf, len, "%s%u-%u", buf[0] ? "," : "", c, last);
		else if (last == c + 1)
			dpk__env_appendf(buf, len, "%s%u,%u", buf[0] ? "," : "", c, last);
		else
			dpk__env_appendf(buf, len, "%s%u", buf[0] ? "," : "", c);
		c = dpk_cpuset_next(s, last);
	}
	if (buf[0] == '\0')
		dpk__env_appendf(buf, len, "none");
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
static void read_cpuinfo(struct dpk__env_ctx *c)
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

void dpk__env_read_shared(struct dpk__env_ctx *c)
{
	char buf[1024];

	if (c->in->cpus && dpk_cpuset_count(c->in->cpus)) {
		c->used = *c->in->cpus;
		c->used_known = true;
	} else if (read_at(c->sys, buf, sizeof(buf), "devices/system/cpu/online") == 0 &&
	           parse_cpulist(buf, &c->used) == 0 && dpk_cpuset_count(&c->used)) {
		c->used_known = true;
	}
	read_cpuinfo(c);
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

void dpk__env_cpu_model(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	if (c->ci.model[0]) {
		it->verdict = DPK_VERDICT_INFO;
		dpk__env_appendf(it->value, sizeof(it->value), "%s", c->ci.model);
	} else if (c->ci.implementer[0]) {
		const char *vendor = arm_vendor(strtoul(c->ci.implementer, NULL, 0));

		it->verdict = DPK_VERDICT_INFO;
		dpk__env_appendf(it->value, sizeof(it->value), "CPU implementer %s%s%s%s, part %s",
		                 c->ci.implementer, vendor ? " (" : "", vendor ? vendor : "",
		                 vendor ? ")" : "", c->ci.part[0] ? c->ci.part : "unknown");
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "cpuinfo has no model name on this CPU");
	} else {
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 c->ci.readable ? "no model name or CPU implementer in %s/cpuinfo"
		                                : "cannot read %s/cpuinfo",
		                 c->proc);
	}
}

void dpk__env_invariant_tsc(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	char *d = it->detail;
	size_t dl = sizeof(it->detail);

	if (c->ci.have_flags) {
		if (c->ci.constant_tsc && c->ci.nonstop_tsc) {
			it->verdict = DPK_VERDICT_OK;
			dpk__env_appendf(it->value, sizeof(it->value), "yes");
			dpk__env_appendf(d, dl, "constant_tsc and nonstop_tsc flags set");
			return;
		}
		it->verdict = DPK_VERDICT_DEGRADED;
		dpk__env_appendf(it->value, sizeof(it->value), "no");
		if (!c->ci.constant_tsc)
			dpk__env_appendf(
			        d, dl, "no constant_tsc: the counter rate follows the core clock");
		if (!c->ci.nonstop_tsc)
			dpk__env_appendf(
			        d, dl, "%sno nonstop_tsc: the counter may stop in deep idle states",
			        d[0] ? "; " : "");
		return;
	}
	if (c->ci.implementer[0]) {
		/* The Arm generic timer runs at a fixed rate in every power state by definition. */
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(it->value, sizeof(it->value), "yes");
		dpk__env_appendf(d, dl, "Arm generic timer: fixed rate by architecture");
		return;
	}
	dpk__env_appendf(d, dl,
	                 c->ci.readable ? "no flags line in %s/cpuinfo" : "cannot read %s/cpuinfo",
	                 c->proc);
}

void dpk__env_clocksource(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	char buf[64];

	if (read_at(c->sys, buf, sizeof(buf),
	            "devices/system/clocksource/clocksource0/current_clocksource") != 0 ||
	    buf[0] == '\0') {
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "no devices/system/clocksource/clocksource0/current_clocksource");
		return;
	}
	dpk__env_appendf(it->value, sizeof(it->value), "%s", buf);
	if (strcmp(buf, "tsc") == 0 || strcmp(buf, "arch_sys_counter") == 0) {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "the kernel keeps time with the counter the harness reads");
	} else {
		it->verdict = DPK_VERDICT_DEGRADED;
		dpk__env_appendf(
		        it->detail, sizeof(it->detail),
		        "the kernel keeps time with %s, not the TSC: it may not trust the TSC",
		        buf);
	}
}

/* At most this many distinct governors are told apart; more are lumped as "other". */
#define GOV_GROUPS 8

void dpk__env_governor(struct dpk__env_ctx *c, struct dpk_env_item *it)
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
		dpk__env_appendf(d, dl, "CPUs in use not known");
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
		dpk__env_appendf(d, dl, "no cpufreq in sysfs (typical of VMs)");
		return;
	}
	for (k = 0; k < ng; k++) {
		dpk__env_appendf(it->value, sizeof(it->value), "%s%s", k ? ", " : "", g[k].name);
		if (strcmp(g[k].name, "performance") != 0)
			bad = true;
	}
	if (bad) {
		it->verdict = DPK_VERDICT_DEGRADED;
		for (k = 0; k < ng; k++)
			if (strcmp(g[k].name, "performance") != 0)
				dpk__env_appendf(d, dl, "%s%s on CPU %s", d[0] ? "; " : "",
				                 g[k].name,
				                 format_cpus(&g[k].cpus, list, sizeof(list)));
		if (dpk_cpuset_count(&missing))
			dpk__env_appendf(d, dl, "; no governor for CPU %s",
			                 format_cpus(&missing, list, sizeof(list)));
	} else if (dpk_cpuset_count(&missing)) {
		dpk__env_appendf(d, dl, "no scaling_governor for CPU %s",
		                 format_cpus(&missing, list, sizeof(list)));
	} else {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(d, dl, "performance on CPU %s",
		                 format_cpus(&c->used, list, sizeof(list)));
	}
}

/* "0" or "1" in <sys>/<rel>: 0 or 1, -1 when missing or anything else. */
static int read_flag(struct dpk__env_ctx *c, const char *rel)
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

void dpk__env_boost(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	int boost = read_flag(c, "devices/system/cpu/cpufreq/boost");
	int no_turbo = read_flag(c, "devices/system/cpu/intel_pstate/no_turbo");
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	bool on;

	if (boost < 0 && no_turbo < 0) {
		dpk__env_appendf(d, dl, "no cpufreq/boost or intel_pstate/no_turbo in sysfs");
		return;
	}
	on = boost == 1 || no_turbo == 0;
	it->verdict = on ? DPK_VERDICT_DEGRADED : DPK_VERDICT_OK;
	dpk__env_appendf(it->value, sizeof(it->value), on ? "on" : "off");
	if (boost >= 0)
		dpk__env_appendf(d, dl, "cpufreq/boost = %d", boost);
	if (no_turbo >= 0)
		dpk__env_appendf(d, dl, "%sintel_pstate/no_turbo = %d", d[0] ? ", " : "", no_turbo);
	if (on)
		dpk__env_appendf(d, dl, ": the clock rises and falls with load and temperature");
}

void dpk__env_smt(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	int active = read_flag(c, "devices/system/cpu/smt/active");
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	bool named = false;
	unsigned cpu;

	if (active < 0) {
		dpk__env_appendf(d, dl, "no devices/system/cpu/smt/active");
		return;
	}
	if (active == 0) {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(it->value, sizeof(it->value), "off");
		dpk__env_appendf(d, dl, "one thread per core");
		return;
	}
	it->verdict = DPK_VERDICT_DEGRADED;
	dpk__env_appendf(it->value, sizeof(it->value), "on");
	dpk__env_appendf(d, dl, "sibling threads share a core");
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
		dpk__env_appendf(d, dl, "%sCPU %u with %s", named ? ", " : ": ", cpu,
		                 format_cpus(&sib, list, sizeof(list)));
		named = true;
	}
}

/* isolcpus and nohz_full: are all used CPUs in the list in <sys>/devices/system/cpu/<file>? */
void dpk__env_cpu_list(struct dpk__env_ctx *c, struct dpk_env_item *it, const char *file,
                       const char *in_words, const char *missing_hint)
{
	struct dpk_cpuset set, outside;
	char buf[1024], list[128];
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	unsigned cpu;

	if (read_at(c->sys, buf, sizeof(buf), "devices/system/cpu/%s", file) != 0) {
		dpk__env_appendf(d, dl, "no devices/system/cpu/%s%s", file, missing_hint);
		return;
	}
	if (parse_cpulist(buf, &set) != 0) {
		dpk__env_appendf(d, dl, "cannot parse devices/system/cpu/%s: \"%s\"", file, buf);
		return;
	}
	dpk__env_appendf(it->value, sizeof(it->value), "%s", format_cpus(&set, list, sizeof(list)));
	if (!c->used_known) {
		dpk__env_appendf(d, dl, "CPUs in use not known");
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
		dpk__env_appendf(d, dl, "CPU %s not %s", format_cpus(&outside, list, sizeof(list)),
		                 in_words);
	} else {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(d, dl, "CPU %s %s", format_cpus(&c->used, list, sizeof(list)),
		                 in_words);
	}
}

void dpk__env_hypervisor(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	char type[64], vendor[64];
	char *d = it->detail;
	size_t dl = sizeof(it->detail);
	bool have_type = read_at(c->sys, type, sizeof(type), "hypervisor/type") == 0 && type[0];

	if (have_type || c->ci.hypervisor) {
		it->verdict = DPK_VERDICT_DEGRADED;
		/* The flag names no vendor; DMI often does ("QEMU", "Amazon EC2"). */
		if (have_type)
			dpk__env_appendf(it->value, sizeof(it->value), "%s", type);
		else if (read_at(c->sys, vendor, sizeof(vendor), "class/dmi/id/sys_vendor") == 0 &&
		         vendor[0])
			dpk__env_appendf(it->value, sizeof(it->value), "%s", vendor);
		else
			dpk__env_appendf(it->value, sizeof(it->value), "yes");
		dpk__env_appendf(d, dl, "%s: steal time and vCPU preemption add noise",
		                 c->ci.hypervisor ? "hypervisor flag in cpuinfo"
		                                  : "hypervisor/type in sysfs");
		return;
	}
	if (c->ci.have_flags) {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(it->value, sizeof(it->value), "none");
		dpk__env_appendf(d, dl, "no hypervisor flag in cpuinfo");
		return;
	}
	dpk__env_appendf(d, dl, "no flags in %s/cpuinfo and no hypervisor/type in sysfs", c->proc);
}

void dpk__env_aslr(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	static const char *const what[] = {"off", "partial", "full"};
	char buf[16];

	if (read_at(c->proc, buf, sizeof(buf), "sys/kernel/randomize_va_space") != 0 ||
	    buf[0] == '\0') {
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "no %s/sys/kernel/randomize_va_space", c->proc);
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	if (buf[1] == '\0' && buf[0] >= '0' && buf[0] <= '2')
		dpk__env_appendf(it->value, sizeof(it->value), "%s (%s)", buf, what[buf[0] - '0']);
	else
		dpk__env_appendf(it->value, sizeof(it->value), "%s", buf);
	if (strcmp(buf, "0") == 0)
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "addresses repeat from run to run");
	else
		dpk__env_appendf(
		        it->detail, sizeof(it->detail),
		        "case arena and timed stack pinned; other addresses vary run to run");
}

void dpk__env_load(struct dpk__env_ctx *c, struct dpk_env_item *it)
{
	char buf[128], l1[16], l5[16], l15[16], tasks[32];

	if (read_at(c->proc, buf, sizeof(buf), "loadavg") != 0 ||
	    sscanf(buf, "%15s %15s %15s %31s", l1, l5, l15, tasks) != 4) {
		dpk__env_appendf(it->detail, sizeof(it->detail), "cannot read %s/loadavg", c->proc);
		return;
	}
	it->verdict = DPK_VERDICT_INFO;
	dpk__env_appendf(it->value, sizeof(it->value), "%s %s %s", l1, l5, l15);
	dpk__env_appendf(it->detail, sizeof(it->detail),
	                 "1, 5 and 15 minute averages; %s tasks runnable", tasks);
}

/*
 * Speculative store bypass. With its mitigation on for this thread (a prctl, a seccomp
 * filter on kernels whose default ties the two, or spec_store_bypass_disable=on), the core
 * runs no load ahead of an earlier store whose address it does not know yet, and code that
 * stores and loads in quick succession, as a ring does, pays for it (docs/method.md, "Store
 * bypass"). Figures taken so are true of processes run so, not of the usual one.
 */
void dpk__env_ssb(struct dpk__env_ctx *c, struct dpk_env_item *it)
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
		dpk__env_appendf(it->detail, sizeof(it->detail),
		                 "no Speculation_Store_Bypass line in %s/self/status", c->proc);
		return;
	}
	if (strcmp(it->value, "unknown") == 0) { /* the kernel has no control of it */
		it->value[0] = '\0';
		dpk__env_appendf(it->detail, sizeof(it->detail), "the kernel reports unknown");
		return;
	}
	if (strstr(it->value, "mitigated")) {
		it->verdict = DPK_VERDICT_DEGRADED;
		dpk__env_appendf(
		        it->detail, sizeof(it->detail),
		        "no load may pass an earlier store: ring figures up to 3x those without "
		        "it");
	} else {
		it->verdict = DPK_VERDICT_OK;
		dpk__env_appendf(it->detail, sizeof(it->detail), "%s",
		                 strstr(it->value, "not vulnerable")
		                         ? "the CPU needs no mitigation"
		                         : "no mitigation for this process");
	}
	if (read_at(c->sys, sys, sizeof(sys),
	            "devices/system/cpu/vulnerabilities/spec_store_bypass") == 0)
		dpk__env_appendf(it->detail, sizeof(it->detail), "; system: %s", sys);
}
