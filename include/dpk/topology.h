/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/topology.h - the machine's CPUs as sysfs describes them: core, package, NUMA node,
 * L3 domain, SMT siblings and online state, and the CPU pairs that each placement needs.
 *
 * The tree is read under a root directory, "/sys" by default, or the value of the
 * environment variable DPK_SYSFS_ROOT, or any directory passed to dpk_topo_load(), so
 * tests can load fake trees. A file that is missing or unreadable makes that field
 * DPK_UNKNOWN; it never produces a guessed value.
 *
 * Files read, under <root>/devices/system/:
 *   cpu/possible, cpu/present, cpu/online                         CPU lists
 *   cpu/cpuN/topology/{core_id,physical_package_id}                 core and package
 *   cpu/cpuN/topology/thread_siblings_list                          SMT siblings
 *   cpu/cpuN/cache/indexK/{level,type,shared_cpu_list,id}           the L3 (level 3, Unified)
 *   node/nodeM/cpulist                                              NUMA node
 *
 * Concurrency: a loaded struct dpk_topo is immutable; any number of threads may query it.
 * dpk_topo_system() may be called from any thread.
 */
#ifndef DPK_TOPOLOGY_H
#define DPK_TOPOLOGY_H

#include <dpk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What is known about one CPU. Integer fields are DPK_UNKNOWN when sysfs does not say. */
struct dpk_cpu_info {
	unsigned cpu;               /**< the CPU number */
	int online;                 /**< 1 online, 0 offline, DPK_UNKNOWN */
	int core_id;                /**< core number within its package */
	int package;                /**< physical package (socket) */
	int numa_node;              /**< NUMA node */
	int llc;                    /**< L3 domain: lowest CPU sharing this CPU's L3 */
	struct dpk_cpuset siblings; /**< SMT siblings including the CPU itself; empty if unknown */
	struct dpk_cpuset llc_cpus; /**< CPUs sharing the L3; empty if unknown */
};

/** Pair placements, for two-lcore cases and the pair helpers. */
enum dpk_placement {
	DPK_PLACE_SINGLE,  /**< one lcore (no pair) */
	DPK_PLACE_SMT,     /**< two SMT siblings of one core */
	DPK_PLACE_CORE,    /**< two cores that share an L3, not siblings */
	DPK_PLACE_LLC,     /**< two cores in different L3 domains (same NUMA node when known) */
	DPK_PLACE_NUMA,    /**< two cores on different NUMA nodes */
	DPK_PLACE_OVERSUB, /**< two lcores on the same CPU */
	DPK_PLACE_ALL,     /**< every lcore */
	DPK_PLACE_COUNT
};

/** Short name of @p p: "single", "smt", "core", "llc", "numa", "oversub", "all". */
const char *dpk_placement_name(enum dpk_placement p);

/**
 * The placement called @p name.
 * @retval >=0 the placement
 * @retval -EINVAL no placement has that name
 */
int dpk_placement_from_name(const char *name);

struct dpk_topo;

/**
 * Read the topology under @p root (NULL: $DPK_SYSFS_ROOT if set, else "/sys").
 * Returns NULL with errno set when the root has no cpu/possible or cpu/present list
 * (ENOENT) or memory runs out (ENOMEM); dpk_last_error() says which file was missing.
 */
struct dpk_topo *dpk_topo_load(const char *root);

/** Free a topology from dpk_topo_load(); NULL is a no-op. */
void dpk_topo_free(struct dpk_topo *t);

/**
 * The running machine's topology, loaded on first use (honouring DPK_SYSFS_ROOT) and kept
 * for the life of the process. NULL only if loading failed (see dpk_last_error()).
 */
const struct dpk_topo *dpk_topo_system(void);

/** The root directory @p t was read from. */
const char *dpk_topo_root(const struct dpk_topo *t);

/** CPUs present in @p t (listed in cpu/present). */
const struct dpk_cpuset *dpk_topo_present(const struct dpk_topo *t);

/** CPUs online in @p t: cpu/online if readable, else the present set. */
const struct dpk_cpuset *dpk_topo_online(const struct dpk_topo *t);

/**
 * Fill @p out with what is known about @p cpu.
 * @retval 0       success
 * @retval -ENODEV @p cpu is not present
 * @retval -EINVAL @p out is NULL
 */
int dpk_topo_cpu(const struct dpk_topo *t, unsigned cpu, struct dpk_cpu_info *out);

/** Number of distinct known NUMA nodes, packages and L3 domains among online CPUs. */
unsigned dpk_topo_numa_count(const struct dpk_topo *t);
unsigned dpk_topo_package_count(const struct dpk_topo *t);
unsigned dpk_topo_llc_count(const struct dpk_topo *t);

/**
 * Whether the relation between CPUs @p a and @p b is the pair placement @p p
 * (DPK_PLACE_SMT, _CORE, _LLC, _NUMA or _OVERSUB, the last meaning a == b). A relation
 * that needs an unknown field is false.
 */
bool dpk_topo_is_pair(const struct dpk_topo *t, enum dpk_placement p, unsigned a, unsigned b);

/**
 * Pick two online CPUs of @p among (NULL: all online CPUs) in relation @p p, the lowest
 * such pair in (a, b) order.
 * @retval 0       *a and *b are set
 * @retval -ENOENT the machine (or @p among) has no such pair
 * @retval -EINVAL @p p is not a pair placement, or a or b is NULL
 */
int dpk_topo_pair(const struct dpk_topo *t, enum dpk_placement p, const struct dpk_cpuset *among,
                  unsigned *a, unsigned *b);

/**
 * Parse a Linux CPU list ("0-3,8,10-11") into @p out. The list is taken as written: no
 * spaces or newline, and at least one CPU. On error @p out is unchanged.
 * @retval 0       success
 * @retval -EINVAL empty, malformed (a range like "3-1" included), or a number >= DPK_CPU_MAX;
 *                 dpk_last_error() names the bad token
 */
int dpk_cpulist_parse(const char *list, struct dpk_cpuset *out);

/**
 * Format @p s as a CPU list ("0-3,8"; "" for the empty set) into @p buf of @p len bytes;
 * returns @p buf. A list longer than @p len allows is cut after a whole item and ends in
 * "..." so it cannot be read as a smaller set; 5 bytes per CPU plus one always suffice.
 */
char *dpk_cpulist_format(const struct dpk_cpuset *s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DPK_TOPOLOGY_H */
