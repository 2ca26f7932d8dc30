/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU topology read from sysfs, the pair relations between CPUs, and CPU lists.
 *
 * Every field starts unknown and only a file that reads cleanly fills it in, so a fake or
 * partial tree gives DPK_UNKNOWN where it says nothing rather than a plausible guess.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dpk/topology.h>

#include "internal.h"

struct dpk_topo {
	char *root;                /* the directory the tree was read from */
	struct dpk_cpuset present; /* cpu/present */
	struct dpk_cpuset online;  /* cpu/online, or present when that file is unreadable */
	unsigned ncpus;            /* highest present CPU + 1: the length of cpus[] */
	struct dpk_cpu_info *cpus; /* indexed by CPU number; only present CPUs are filled */
};

/* sysfs attribute files are one short line; the longest, a shared_cpu_list of
 * DPK_CPU_MAX CPUs written one by one, stays under this. */
#define ATTR_MAX 8192

/* ---------------------------------------------------------------------------------------- */
/* CPU lists */

enum list_fault {
	LIST_OK,
	LIST_BAD_NUMBER, /* a token that is not a decimal number */
	LIST_TOO_BIG,    /* a number >= DPK_CPU_MAX */
	LIST_MISSING,    /* a number expected, the list ends or a separator comes */
	LIST_REVERSED,   /* a range whose end is below its start */
	LIST_TRAILING,   /* something other than ',' or the end after an item */
};

/* Length of the token at @p s for error messages: up to the next separator, at least one
 * character so that a stray separator names itself. */
static size_t token_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] != ',' && s[i] != '-')
		i++;
	return i ? i : (n ? 1 : 0);
}

/* Scan a decimal number below DPK_CPU_MAX at s[*i]. */
static enum list_fault scan_cpu(const char *s, size_t n, size_t *i, unsigned *out)
{
	unsigned long v = 0;
	size_t start = *i;

	if (*i >= n || s[*i] == ',' || s[*i] == '-')
		return LIST_MISSING;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (v < DPK_CPU_MAX)
			v = v * 10 + (unsigned long)(s[*i] - '0');
		(*i)++;
	}
	if (*i == start || (*i < n && s[*i] != ',' && s[*i] != '-')) {
		*i = start;
		return LIST_BAD_NUMBER;
	}
	if (v >= DPK_CPU_MAX) {
		*i = start;
		return LIST_TOO_BIG;
	}
	*out = (unsigned)v;
	return LIST_OK;
}

/*
 * Parse the n bytes at s as "a-b,c,..." into *out. On a fault, *where is the offset of the
 * offending token (for a reversed range, of the range's start) and *out is untouched.
 */
static enum list_fault list_scan(const char *s, size_t n, struct dpk_cpuset *out, size_t *where)
{
	struct dpk_cpuset set;
	size_t i = 0;

	dpk_cpuset_zero(&set);
	for (;;) {
		size_t item = i;
		unsigned lo, hi;
		enum list_fault f = scan_cpu(s, n, &i, &lo);

		if (f != LIST_OK) {
			*where = i;
			return f;
		}
		hi = lo;
		if (i < n && s[i] == '-') {
			i++;
			f = scan_cpu(s, n, &i, &hi);
			if (f != LIST_OK) {
				*where = i;
				return f;
			}
			if (hi < lo) {
				*where = item;
				return LIST_REVERSED;
			}
		}
		for (unsigned c = lo; c <= hi; c++)
			dpk_cpuset_set(&set, c);
		if (i == n)
			break;
		if (s[i] != ',') {
			*where = i;
			return LIST_TRAILING;
		}
		i++;
	}
	*out = set;
	return LIST_OK;
}

int dpk_cpulist_parse(const char *list, struct dpk_cpuset *out)
{
	size_t n, at = 0, tok;
	enum list_fault f;

	if (!list || !out) {
		dpk__set_error("CPU list: NULL argument");
		return -EINVAL;
	}
	n = strlen(list);
	if (n == 0) {
		dpk__set_error("CPU list '': empty");
		return -EINVAL;
	}
	f = list_scan(list, n, out, &at);
	if (f == LIST_OK)
		return 0;
	tok = token_len(list + at, n - at);
	switch (f) {
	case LIST_MISSING:
		if (at == n)
			dpk__set_error("CPU list '%s': number missing at the end", list);
		else
			dpk__set_error("CPU list '%s': number missing before '%s'", list,
			               list + at);
		break;
	case LIST_BAD_NUMBER:
		dpk__set_error("CPU list '%s': bad number '%.*s'", list, (int)tok, list + at);
		break;
	case LIST_TOO_BIG:
		dpk__set_error("CPU list '%s': CPU '%.*s' is not below %u", list, (int)tok,
		               list + at, DPK_CPU_MAX);
		break;
	case LIST_REVERSED: {
		size_t end = at + tok + 1;
		end += token_len(list + end, n - end);
		dpk__set_error("CPU list '%s': reversed range '%.*s'", list, (int)(end - at),
		               list + at);
		break;
	}
	case LIST_TRAILING:
	default:
		dpk__set_error("CPU list '%s': unexpected '%s'", list, list + at);
		break;
	}
	return -EINVAL;
}

/* Append "a" or "a-b" (with a leading comma unless first) to buf at *pos; false and nothing
 * written when it does not fit with room to spare for @p reserve more bytes and the NUL. */
static bool put_item(char *buf, size_t len, size_t *pos, unsigned lo, unsigned hi, size_t reserve)
{
	char item[32];
	int k;

	if (lo == hi)
		k = snprintf(item, sizeof(item), "%s%u", *pos ? "," : "", lo);
	else
		k = snprintf(item, sizeof(item), "%s%u-%u", *pos ? "," : "", lo, hi);
	if (k < 0 || *pos + (size_t)k + reserve + 1 > len)
		return false;
	memcpy(buf + *pos, item, (size_t)k + 1);
	*pos += (size_t)k;
	return true;
}

/* Count the bytes the full list needs, without the NUL. */
static size_t list_len(const struct dpk_cpuset *s)
{
	char tmp[32];
	size_t total = 0;
	unsigned c = dpk_cpuset_first(s);

	while (c < DPK_CPU_MAX) {
		unsigned hi = c;
		while (hi + 1 < DPK_CPU_MAX && dpk_cpuset_isset(s, hi + 1))
			hi++;
		total += (size_t)(c == hi ? snprintf(tmp, sizeof(tmp), ",%u", c)
		                          : snprintf(tmp, sizeof(tmp), ",%u-%u", c, hi));
		c = dpk_cpuset_next(s, hi);
	}
	return total ? total - 1 : 0;
}

char *dpk_cpulist_format(const struct dpk_cpuset *s, char *buf, size_t len)
{
	size_t pos = 0, reserve;
	unsigned c;

	if (!buf || len == 0)
		return buf;
	buf[0] = '\0';
	if (!s)
		return buf;
	/* A list that does not fit is cut after a whole item and marked with "...", which no
	 * parser accepts, so a cut list cannot be mistaken for a smaller set. */
	reserve = list_len(s) + 1 > len ? 3 : 0;
	c = dpk_cpuset_first(s);
	while (c < DPK_CPU_MAX) {
		unsigned hi = c;
		while (hi + 1 < DPK_CPU_MAX && dpk_cpuset_isset(s, hi + 1))
			hi++;
		if (!put_item(buf, len, &pos, c, hi, reserve))
			break;
		c = dpk_cpuset_next(s, hi);
	}
	if (reserve && pos + 4 <= len)
		memcpy(buf + pos, "...", 4);
	return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Placements */

static const char *const place_names[DPK_PLACE_COUNT] = {
        [DPK_PLACE_SINGLE] = "single", [DPK_PLACE_SMT] = "smt",   [DPK_PLACE_CORE] = "core",
        [DPK_PLACE_LLC] = "llc",       [DPK_PLACE_NUMA] = "numa", [DPK_PLACE_OVERSUB] = "oversub",
        [DPK_PLACE_ALL] = "all",
};

const char *dpk_placement_name(enum dpk_placement p)
{
	if ((unsigned)p >= DPK_PLACE_COUNT)
		return "unknown";
	return place_names[p];
}

int dpk_placement_from_name(const char *name)
{
	if (!name) {
		dpk__set_error("placement: NULL name");
		return -EINVAL;
	}
	for (int p = 0; p < DPK_PLACE_COUNT; p++)
		if (strcmp(name, place_names[p]) == 0)
			return p;
	dpk__set_error("placement '%s': not one of single, smt, core, llc, numa, oversub, all",
	               name);
	return -EINVAL;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading the tree */

/* Read <root>/devices/system/<rel> into buf (NUL-terminated, trailing whitespace cut).
 * Returns false when the file is missing, unreadable, or too long to be an attribute. */
static bool read_attr(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	size_t got = 0;
	int fd, k;

	k = snprintf(path, sizeof(path), "%s/devices/system/%s", root, rel);
	if (k < 0 || (size_t)k >= sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (;;) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return false;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got == len - 1) {
			close(fd);
			return false;
		}
	}
	close(fd);
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' ' || buf[got - 1] == '\t'))
		got--;
	buf[got] = '\0';
	return true;
}

/* A CPU list file; an empty file is the empty set (sysfs writes cpu/offline that way). */
static bool read_list(const char *root, const char *rel, struct dpk_cpuset *out)
{
	char buf[ATTR_MAX];
	size_t at;

	if (!read_attr(root, rel, buf, sizeof(buf)))
		return false;
	if (buf[0] == '\0') {
		dpk_cpuset_zero(out);
		return true;
	}
	return list_scan(buf, strlen(buf), out, &at) == LIST_OK;
}

/* A non-negative decimal integer file; DPK_UNKNOWN when missing, malformed or negative
 * (some platforms write -1 for a package they cannot name). */
static int read_int(const char *root, const char *rel)
{
	char buf[64], *end;
	long v;

	if (!read_attr(root, rel, buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9')
		return DPK_UNKNOWN;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end != '\0' || v < 0 || v > INT_MAX)
		return DPK_UNKNOWN;
	return (int)v;
}

/* The CPUs sharing @p cpu's L3: the cache/indexK whose level is 3 and whose type is Unified
 * or Data. Returns false when there is none or its list is unreadable or leaves @p cpu out. */
static bool read_l3(const char *root, unsigned cpu, struct dpk_cpuset *out)
{
	char rel[128], buf[64], dirpath[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;
	int k;

	k = snprintf(dirpath, sizeof(dirpath), "%s/devices/system/cpu/cpu%u/cache", root, cpu);
	if (k < 0 || (size_t)k >= sizeof(dirpath))
		return false;
	d = opendir(dirpath);
	if (!d)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		unsigned idx;
		char tail;

		if (sscanf(de->d_name, "index%u%c", &idx, &tail) != 1)
			continue;
		snprintf(rel, sizeof(rel), "cpu/cpu%u/cache/index%u/level", cpu, idx);
		if (read_int(root, rel) != 3)
			continue;
		snprintf(rel, sizeof(rel), "cpu/cpu%u/cache/index%u/type", cpu, idx);
		if (!read_attr(root, rel, buf, sizeof(buf)) ||
		    (strcmp(buf, "Unified") != 0 && strcmp(buf, "Data") != 0))
			continue;
		snprintf(rel, sizeof(rel), "cpu/cpu%u/cache/index%u/shared_cpu_list", cpu, idx);
		found = read_list(root, rel, out) && dpk_cpuset_isset(out, cpu);
		if (!found)
			break;
	}
	closedir(d);
	if (!found)
		dpk_cpuset_zero(out);
	return found;
}

/* Give each present CPU listed in node/nodeM/cpulist the node M. A CPU that two nodes
 * claim is left unknown rather than given either. */
static void read_numa(struct dpk_topo *t)
{
	char dirpath[PATH_MAX], rel[128];
	struct dpk_cpuset seen, twice;
	struct dirent *de;
	DIR *d;
	int k;

	k = snprintf(dirpath, sizeof(dirpath), "%s/devices/system/node", t->root);
	if (k < 0 || (size_t)k >= sizeof(dirpath))
		return;
	d = opendir(dirpath);
	if (!d)
		return;
	dpk_cpuset_zero(&seen);
	dpk_cpuset_zero(&twice);
	while ((de = readdir(d)) != NULL) {
		struct dpk_cpuset cpus;
		unsigned node, c;
		char tail;

		if (sscanf(de->d_name, "node%u%c", &node, &tail) != 1 || node > INT_MAX)
			continue;
		snprintf(rel, sizeof(rel), "node/node%u/cpulist", node);
		if (!read_list(t->root, rel, &cpus))
			continue;
		DPK_CPUSET_FOREACH(c, &cpus)
		{
			if (c >= t->ncpus || !dpk_cpuset_isset(&t->present, c))
				continue;
			if (dpk_cpuset_isset(&seen, c))
				dpk_cpuset_set(&twice, c);
			dpk_cpuset_set(&seen, c);
			t->cpus[c].numa_node = (int)node;
		}
	}
	closedir(d);
	for (unsigned c = dpk_cpuset_first(&twice); c < DPK_CPU_MAX; c = dpk_cpuset_next(&twice, c))
		t->cpus[c].numa_node = DPK_UNKNOWN;
}

static void read_cpu(struct dpk_topo *t, unsigned cpu)
{
	struct dpk_cpu_info *ci = &t->cpus[cpu];
	char rel[128];

	snprintf(rel, sizeof(rel), "cpu/cpu%u/topology/core_id", cpu);
	ci->core_id = read_int(t->root, rel);
	snprintf(rel, sizeof(rel), "cpu/cpu%u/topology/physical_package_id", cpu);
	ci->package = read_int(t->root, rel);
	snprintf(rel, sizeof(rel), "cpu/cpu%u/topology/thread_siblings_list", cpu);
	/* A sibling list that leaves out the CPU itself is inconsistent: unknown. */
	if (!read_list(t->root, rel, &ci->siblings) || !dpk_cpuset_isset(&ci->siblings, cpu))
		dpk_cpuset_zero(&ci->siblings);
	if (read_l3(t->root, cpu, &ci->llc_cpus))
		ci->llc = (int)dpk_cpuset_first(&ci->llc_cpus);
}

struct dpk_topo *dpk_topo_load(const char *root)
{
	struct dpk_cpuset possible, online;
	bool online_known;
	struct dpk_topo *t;
	unsigned c;

	if (!root) {
		root = getenv("DPK_SYSFS_ROOT");
		if (!root || !*root)
			root = "/sys";
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out_free_enomem;
	t->root = strdup(root);
	if (!t->root)
		goto out_free_enomem;
	if (!read_list(root, "cpu/possible", &possible)) {
		dpk__set_error("topology: missing or malformed %s/devices/system/cpu/possible",
		               root);
		goto out_free_enoent;
	}
	if (!read_list(root, "cpu/present", &t->present) || dpk_cpuset_count(&t->present) == 0) {
		dpk__set_error(
		        "topology: missing, malformed or empty %s/devices/system/cpu/present",
		        root);
		goto out_free_enoent;
	}
	t->ncpus = 0;
	DPK_CPUSET_FOREACH(c, &t->present)
	t->ncpus = c + 1;
	t->cpus = calloc(t->ncpus, sizeof(*t->cpus));
	if (!t->cpus)
		goto out_free_enomem;

	/* Without cpu/online every present CPU is taken as online for dpk_topo_online(), but
	 * each CPU's own online field stays unknown. */
	online_known = read_list(root, "cpu/online", &online);
	for (unsigned i = 0; i < DPK_CPU_MAX / 64; i++)
		t->online.bits[i] =
		        online_known ? online.bits[i] & t->present.bits[i] : t->present.bits[i];
	for (c = 0; c < t->ncpus; c++) {
		struct dpk_cpu_info *ci = &t->cpus[c];

		ci->cpu = c;
		ci->online = DPK_UNKNOWN;
		ci->core_id = ci->package = ci->numa_node = ci->llc = DPK_UNKNOWN;
		dpk_cpuset_zero(&ci->siblings);
		dpk_cpuset_zero(&ci->llc_cpus);
		if (!dpk_cpuset_isset(&t->present, c))
			continue;
		if (online_known)
			ci->online = dpk_cpuset_isset(&online, c) ? 1 : 0;
		read_cpu(t, c);
	}
	read_numa(t);
	return t;

out_free_enoent:
	dpk_topo_free(t);
	errno = ENOENT;
	return NULL;
out_free_enomem:
	dpk__set_error("topology: out of memory loading %s", root);
	dpk_topo_free(t);
	errno = ENOMEM;
	return NULL;
}

void dpk_topo_free(struct dpk_topo *t)
{
	if (!t)
		return;
	free(t->cpus);
	free(t->root);
	free(t);
}

static pthread_once_t system_once = PTHREAD_ONCE_INIT;
static struct dpk_topo *system_topo;
static char system_error[256];

static void system_load(void)
{
	system_topo = dpk_topo_load(NULL);
	if (!system_topo)
		snprintf(system_error, sizeof(system_error), "%s", dpk_last_error());
}

const struct dpk_topo *dpk_topo_system(void)
{
	/* pthread_once orders system_load()'s writes before every caller's reads. */
	pthread_once(&system_once, system_load);
	if (!system_topo) {
		dpk__set_error("%s", system_error);
		errno = ENOENT;
	}
	return system_topo;
}

/* ---------------------------------------------------------------------------------------- */
/* Queries */

const char *dpk_topo_root(const struct dpk_topo *t)
{
	return t ? t->root : NULL;
}

const struct dpk_cpuset *dpk_topo_present(const struct dpk_topo *t)
{
	return t ? &t->present : NULL;
}

const struct dpk_cpuset *dpk_topo_online(const struct dpk_topo *t)
{
	return t ? &t->online : NULL;
}

static const struct dpk_cpu_info *cpu_info(const struct dpk_topo *t, unsigned cpu)
{
	if (!t || cpu >= t->ncpus || !dpk_cpuset_isset(&t->present, cpu))
		return NULL;
	return &t->cpus[cpu];
}

int dpk_topo_cpu(const struct dpk_topo *t, unsigned cpu, struct dpk_cpu_info *out)
{
	const struct dpk_cpu_info *ci;

	if (!t || !out) {
		dpk__set_error("topology: NULL argument");
		return -EINVAL;
	}
	ci = cpu_info(t, cpu);
	if (!ci) {
		dpk__set_error("topology %s: CPU %u is not present", t->root, cpu);
		return -ENODEV;
	}
	*out = *ci;
	return 0;
}

enum topo_field { FIELD_NUMA, FIELD_PACKAGE, FIELD_LLC };

static int field_of(const struct dpk_cpu_info *ci, enum topo_field f)
{
	switch (f) {
	case FIELD_NUMA:
		return ci->numa_node;
	case FIELD_PACKAGE:
		return ci->package;
	case FIELD_LLC:
	default:
		return ci->llc;
	}
}

/* Number of distinct known values of one field among online CPUs. */
static unsigned count_distinct(const struct dpk_topo *t, enum topo_field f)
{
	struct dpk_cpuset done;
	unsigned n = 0, c;

	if (!t)
		return 0;
	dpk_cpuset_zero(&done);
	DPK_CPUSET_FOREACH(c, &t->online)
	{
		int v = field_of(&t->cpus[c], f);
		unsigned d;

		if (v == DPK_UNKNOWN || dpk_cpuset_isset(&done, c))
			continue;
		/* A new value: mark every online CPU that has it as counted. */
		n++;
		for (d = c; d < DPK_CPU_MAX; d = dpk_cpuset_next(&t->online, d))
			if (field_of(&t->cpus[d], f) == v)
				dpk_cpuset_set(&done, d);
	}
	return n;
}

unsigned dpk_topo_numa_count(const struct dpk_topo *t)
{
	return count_distinct(t, FIELD_NUMA);
}

unsigned dpk_topo_package_count(const struct dpk_topo *t)
{
	return count_distinct(t, FIELD_PACKAGE);
}

unsigned dpk_topo_llc_count(const struct dpk_topo *t)
{
	return count_distinct(t, FIELD_LLC);
}

/* Both sibling lists are known and neither holds the other CPU. */
static bool known_not_siblings(const struct dpk_cpu_info *a, const struct dpk_cpu_info *b)
{
	return dpk_cpuset_count(&a->siblings) && dpk_cpuset_count(&b->siblings) &&
	       !dpk_cpuset_isset(&a->siblings, b->cpu) && !dpk_cpuset_isset(&b->siblings, a->cpu);
}

static bool is_pair_place(enum dpk_placement p)
{
	return p == DPK_PLACE_SMT || p == DPK_PLACE_CORE || p == DPK_PLACE_LLC ||
	       p == DPK_PLACE_NUMA || p == DPK_PLACE_OVERSUB;
}

bool dpk_topo_is_pair(const struct dpk_topo *t, enum dpk_placement p, unsigned a, unsigned b)
{
	const struct dpk_cpu_info *x = cpu_info(t, a), *y = cpu_info(t, b);

	if (!x || !y)
		return false;
	if (p == DPK_PLACE_OVERSUB)
		return a == b;
	if (a == b)
		return false;
	switch (p) {
	case DPK_PLACE_SMT:
		return dpk_cpuset_isset(&x->siblings, b) && dpk_cpuset_isset(&y->siblings, a);
	case DPK_PLACE_CORE:
		return known_not_siblings(x, y) && x->llc != DPK_UNKNOWN && x->llc == y->llc &&
		       (x->package == DPK_UNKNOWN || y->package == DPK_UNKNOWN ||
		        x->package == y->package);
	case DPK_PLACE_LLC:
		return known_not_siblings(x, y) && x->llc != DPK_UNKNOWN && y->llc != DPK_UNKNOWN &&
		       x->llc != y->llc &&
		       (x->numa_node == DPK_UNKNOWN || y->numa_node == DPK_UNKNOWN ||
		        x->numa_node == y->numa_node);
	case DPK_PLACE_NUMA:
		return x->numa_node != DPK_UNKNOWN && y->numa_node != DPK_UNKNOWN &&
		       x->numa_node != y->numa_node;
	default:
		return false;
	}
}

int dpk_topo_pair(const struct dpk_topo *t, enum dpk_placement p, const struct dpk_cpuset *among,
                  unsigned *a, unsigned *b)
{
	struct dpk_cpuset cand;
	unsigned x, y;

	if (!t || !a || !b || !is_pair_place(p)) {
		dpk__set_error("topology pair: bad argument (placement %s)", dpk_placement_name(p));
		return -EINVAL;
	}
	cand = t->online;
	if (among)
		for (unsigned i = 0; i < DPK_CPU_MAX / 64; i++)
			cand.bits[i] &= among->bits[i];
	DPK_CPUSET_FOREACH(x, &cand)
	{
		if (p == DPK_PLACE_OVERSUB) {
			*a = *b = x;
			return 0;
		}
		for (y = dpk_cpuset_next(&cand, x); y < DPK_CPU_MAX; y = dpk_cpuset_next(&cand, y))
			if (dpk_topo_is_pair(t, p, x, y)) {
				*a = x;
				*b = y;
				return 0;
			}
	}
	dpk__set_error("topology %s: no online CPU pair for placement %s", t->root,
	               dpk_placement_name(p));
	return -ENOENT;
}
