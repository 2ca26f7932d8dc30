/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_eal.c - DPDK's EAL started on demand, dpkit's lcores registered with it, and the
 * checks the DPDK suites share (dpdk_eal.h says what each does).
 *
 * EAL 22.11 refuses --in-memory together with --no-huge (in-memory needs hugepage files
 * it can unlink), so the options are --no-huge --no-shconf --no-telemetry --no-pci: no
 * config file, no IPC socket, no telemetry socket. EAL still makes a runtime directory,
 * <base>/dpdk/<prefix> (base /var/run for root, else XDG_RUNTIME_DIR or /tmp); the prefix
 * is this process's, and the directory is removed as soon as EAL is up, with <base>/dpdk
 * when EAL made that too and nothing else is in it. Another process that finds
 * <base>/dpdk gone in between loses nothing: without shared config, EAL goes on without
 * its runtime directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include <dpk/lcore.h>

#include "dpdk_eal.h"

/* Memory EAL maps without hugepages: room for two pools of 4096 objects of about 2 KiB at
 * once (cases are set up one at a time). */
#define EAL_MEMORY_MB "256"

enum eal_state { EAL_DOWN, EAL_UP, EAL_FAILED };

static enum eal_state eal_state;
static char eal_why[200];  /* why EAL did not start */
static char last_log[160]; /* the last line DPDK logged */
static bool log_echo;      /* DPK_BENCH_DPDK_LOG is set: the log goes to stderr too */
static unsigned name_seq;
unsigned dpk_dpdk_svc_cpu = DPK_CPU_MAX;

/* The log stream DPDK writes to: each message is written at once (rte_vlog() flushes),
 * and its last non-empty line is kept. */
static ssize_t log_write(void *cookie, const char *buf, size_t size)
{
	size_t end = size, start;

	(void)cookie;
	if (log_echo)
		fwrite(buf, 1, size, stderr);
	while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == ' '))
		end--;
	if (end == 0)
		return (ssize_t)size;
	for (start = end; start > 0 && buf[start - 1] != '\n'; start--)
		;
	snprintf(last_log, sizeof(last_log), "%.*s", (int)(end - start), buf + start);
	return (ssize_t)size;
}

const char *dpk_dpdk_last_log(void)
{
	return last_log;
}

static unsigned first_cpu(const cpu_set_t *set)
{
	for (unsigned c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return 0;
}

/* The CPU of the first worker lcore on a single CPU that is none of @p not_a and
 * @p not_b, or DPK_CPU_MAX. */
static unsigned worker_cpu_besides(unsigned not_a, unsigned not_b)
{
	unsigned id;

	DPK_LCORE_FOREACH_WORKER(id)
	{
		unsigned cpu = dpk_lcore_cpu(id);

		if (cpu < DPK_CPU_MAX && cpu != not_a && cpu != not_b)
			return cpu;
	}
	return DPK_CPU_MAX;
}

/*
 * EAL's lcore map: lcore 0 on the main lcore's CPU; lcore 1, the service lcore, on a CPU
 * of neither the main lcore nor the service suite's service lcore (the first worker on
 * another CPU than the main lcore's) where there is one, so that the two lcore_loop cases
 * can run interleaved; else on that same CPU, else on the main lcore's.
 */
static void lcore_map(const cpu_set_t *mine, char *buf, size_t len)
{
	unsigned main_cpu = dpk_lcore_cpu(dpk_lcore_main()), twin_cpu, svc_cpu;

	if (main_cpu >= DPK_CPU_MAX)
		main_cpu = first_cpu(mine);
	twin_cpu = worker_cpu_besides(main_cpu, main_cpu);
	svc_cpu = worker_cpu_besides(main_cpu, twin_cpu);
	if (svc_cpu >= DPK_CPU_MAX)
		svc_cpu = twin_cpu < DPK_CPU_MAX ? twin_cpu : main_cpu;
	dpk_dpdk_svc_cpu = svc_cpu;
	snprintf(buf, len, "0@%u,%u@%u", main_cpu, DPK_DPDK_SERVICE_LCORE, svc_cpu);
}

/* Where EAL 22.11 puts runtime directories (eal_create_runtime_dir()), into @p buf. */
static void runtime_base(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	snprintf(buf, len, "%s/dpdk", getuid() == 0 ? "/var/run" : xdg ? xdg : "/tmp");
}

/* Remove EAL's runtime directory, and its parent @p base if it was not there before
 * (@p had_base) and is empty. */
static void runtime_remove(const char *base, bool had_base)
{
	const char *dir = rte_eal_get_runtime_dir();
	size_t n = strlen(base);

	if (!dir[0])
		return;
	(void)rmdir(dir);
	if (!had_base && strncmp(dir, base, n) == 0 && dir[n] == '/')
		(void)rmdir(base);
}

/* rte_eal_init() with dpk-bench's options; the calling thread keeps its CPUs (EAL pins
 * its main lcore to the map's CPU) and the runtime directory goes. 0 or -1. */
static int eal_init(void)
{
	static cookie_io_functions_t sink = {.write = log_write};
	const char *env = getenv("DPK_BENCH_DPDK_LOG");
	char map[64], prefix[64], level[96], base[256];
	char *argv[16];
	int argc = 0, rc;
	cpu_set_t mine;
	struct stat sb;
	bool had_base;
	FILE *log = fopencookie(NULL, "w", sink);

	log_echo = env != NULL;
	if (log)
		rte_openlog_stream(log);
	CPU_ZERO(&mine);
	(void)pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine);
	lcore_map(&mine, map, sizeof(map));
	snprintf(prefix, sizeof(prefix), "--file-prefix=dpk-bench-%ld", (long)getpid());
	argv[argc++] = "dpk-bench";
	argv[argc++] = "--no-huge";
	argv[argc++] = "--no-pci";
	argv[argc++] = "--no-shconf";
	argv[argc++] = "--no-telemetry";
	argv[argc++] = "-m";
	argv[argc++] = EAL_MEMORY_MB;
	argv[argc++] = "--lcores";
	argv[argc++] = map;
	argv[argc++] = prefix;
	if (env && *env && strcmp(env, "1") != 0) {
		snprintf(level, sizeof(level), "--log-level=%s", env);
		argv[argc++] = level;
	}
	argv[argc] = NULL;
	runtime_base(base, sizeof(base));
	had_base = stat(base, &sb) == 0;
	rc = rte_eal_init(argc, argv);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
	runtime_remove(base, had_base);
	return rc < 0 ? -1 : 0;
}

bool dpk_dpdk_ready(struct dpk_bench_run *run)
{
	if (eal_state == EAL_DOWN) {
		if (eal_init() == 0) {
			eal_state = EAL_UP;
		} else {
			eal_state = EAL_FAILED;
			snprintf(eal_why, sizeof(eal_why), "%s%s%s", rte_strerror(rte_errno),
			         last_log[0] ? "; its log: " : "", last_log);
		}
	}
	if (eal_state == EAL_UP)
		return true;
	dpk_bench_fail(run, "DPDK's EAL did not start: %s (DPK_BENCH_DPDK_LOG=1 shows its log)",
	               eal_why);
	return false;
}

void *dpk_dpdk_state(struct dpk_bench_run *run, size_t size, int *rc)
{
	void *st;

	*rc = 0;
	if (!dpk_dpdk_ready(run)) {
		*rc = -ENODEV;
		return NULL;
	}
	if (run->c->kind == DPK_BENCH_SINGLE && rte_lcore_id() == LCORE_ID_ANY)
		dpk_bench_fail(run, "the main thread is not a DPDK lcore: it has no cache");
	if (posix_memalign(&st, 64, size) != 0) {
		*rc = -ENOMEM;
		return NULL;
	}
	memset(st, 0, size);
	return st;
}

bool dpk_dpdk_register(struct dpk_bench_run *run)
{
	if (rte_thread_register() == 0)
		return true;
	dpk_bench_fail(run, "cannot make this lcore a DPDK lcore: rte_thread_register: %s",
	               rte_strerror(rte_errno));
	return false;
}

void dpk_dpdk_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "dpk-%s%u", what, name_seq++);
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;

	return x < y ? -1 : x > y;
}

/* Fail @p run if @p objs (sorted) holds an object twice or one of another pool. */
static void check_objs(struct dpk_bench_run *run, struct rte_mempool *mp, void **objs,
                       unsigned count)
{
	qsort(objs, count, sizeof(*objs), ptr_cmp);
	for (unsigned i = 0; i < count; i++) {
		if (i > 0 && objs[i] == objs[i - 1]) {
			dpk_bench_fail(run, "pool check: object %p is in the pool twice", objs[i]);
			return;
		}
		if (rte_mempool_from_obj(objs[i]) != mp) {
			dpk_bench_fail(run, "pool check: object %p belongs to another pool",
			               objs[i]);
			return;
		}
	}
}

void dpk_dpdk_pool_check(struct dpk_bench_run *run, struct rte_mempool *mp, unsigned count)
{
	void **objs = malloc((size_t)count * sizeof(*objs));
	unsigned avail;

	for (unsigned lc = 0; lc < RTE_MAX_LCORE; lc++) {
		struct rte_mempool_cache *cache = rte_mempool_default_cache(mp, lc);

		if (cache && cache->len)
			rte_mempool_cache_flush(cache, mp);
	}
	avail = rte_mempool_avail_count(mp);
	if (avail != count) {
		dpk_bench_fail(run, "%u of %u objects back in the pool at the end", avail, count);
	} else if (!objs) {
		dpk_bench_fail(run, "pool check: out of memory");
	} else if (rte_mempool_generic_get(mp, objs, count, NULL) != 0) {
		dpk_bench_fail(run, "pool check: %u objects counted, fewer came out", count);
	} else {
		check_objs(run, mp, objs, count);
		rte_mempool_generic_put(mp, objs, count, NULL);
	}
	free(objs);
}
