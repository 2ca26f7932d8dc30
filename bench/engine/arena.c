/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arena.c - the case arena: the memory dpk_bench_alloc() hands a case's set-up, mapped for
 * each round and unmapped after its tear-down, and the page the harness keeps at its top.
 *
 * Where a case's lines sit decides what they cost, at three levels, and each is moved from
 * round to round so that a figure is the cost over them and not the luck of one:
 *  - The virtual address is pinned (the same in every run of a case): it decides which
 *    cache sets and way-predictor tags lines share (docs/method.md, "Memory layout").
 *  - The offset within the page moves by a line a round (dpk_bench_arena_shift_of()), as
 *    the stack's does from batch to batch (batch.c): loads and stores whose addresses agree
 *    in their low 12 bits stall each other (4K aliasing), and the binary's own data sits at
 *    offsets that move from build to build as the data before them grows or shrinks.
 *  - The physical frames move too (dpk_bench_arena_page_of()). A line's cost, most of all
 *    between two cores, depends on where its physical address is homed (which slice of the
 *    last-level cache, how far across the die), and the kernel hands a process back the
 *    frames it just freed: an arena mapped afresh each round kept the same frames for a
 *    whole run, and two runs of one build then differed in a cache-line round trip far
 *    more than its rounds did (docs/method.md, "Memory layout"). So the arena is a window
 *    onto a pool of frames the process holds, moved by some pages each round. Pool pages
 *    carry what the rounds before left in them: dpk_bench_alloc() zeroes what it hands out.
 * The arena is kept off transparent huge pages, which would give a round one 2 MB frame.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_int.h"

#define ARENA_BASE ((uintptr_t)0x5d0000000000ull)
#define ARENA_SIZE ((size_t)64 << 20)
#define PAGE       ((size_t)4096)

/* The pages a round's window may start at: a megabyte of frames to move over. */
#define POOL_PAGES 256u

/* Sanitizer builds keep their own memory layout rules: no fixed address there (the build
 * sets DPK_BENCH_ARENA_FIXED to 0). */
#ifndef DPK_BENCH_ARENA_FIXED
#define DPK_BENCH_ARENA_FIXED 1
#endif

size_t dpk_bench_arena_shift_of(unsigned q)
{
	return (size_t)((q * 23u) % 64u) * 64u;
}

unsigned dpk_bench_arena_page_of(unsigned q)
{
	return (q * 37u) % POOL_PAGES;
}

/* The pool's file, made and sized on first use; -1 when the kernel gives none, and the
 * arena is then plain anonymous memory. The main lcore alone maps arenas, and one at a
 * time, so the pool needs no lock. */
static int pool_fd(void)
{
	static int fd = -2;

	if (fd == -2) {
		fd = memfd_create("dpk-bench-arena", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, (off_t)(ARENA_SIZE + POOL_PAGES * PAGE)) != 0) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

void dpk_bench_arena_map(struct dpk_bench_ctl *x)
{
	void *want = DPK_BENCH_ARENA_FIXED ? (void *)ARENA_BASE : NULL;
	const int fd = pool_fd();
	const off_t off = (off_t)dpk_bench_arena_page_of(x->arena_round) * (off_t)PAGE;
	void *p = MAP_FAILED;

	if (fd >= 0)
		p = mmap(want, ARENA_SIZE, PROT_READ | PROT_WRITE,
		         MAP_SHARED | (want ? MAP_FIXED_NOREPLACE : 0), fd, off);
	x->arena_pooled = p != MAP_FAILED;
	if (p == MAP_FAILED)
		p = mmap(want, ARENA_SIZE, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (p == MAP_FAILED)
		p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0);
	if (p != MAP_FAILED)
		(void)madvise(p, ARENA_SIZE, MADV_NOHUGEPAGE);
	x->arena = p == MAP_FAILED ? NULL : p;
	/* The top page is the harness's (dpk_bench_arena_harness_page()). */
	x->arena_size = x->arena ? ARENA_SIZE - PAGE : 0;
	x->arena_used = x->arena ? dpk_bench_arena_shift_of(x->arena_round) : 0;
	x->arena_pinned = want && p == want;
}

void dpk_bench_arena_unmap(struct dpk_bench_ctl *x)
{
	if (x->arena)
		munmap(x->arena, ARENA_SIZE);
	x->arena = NULL;
}

void *dpk_bench_arena_harness_page(struct dpk_bench_ctl *x)
{
	if (!x->arena)
		return NULL;
	memset(x->arena + x->arena_size, 0, PAGE);
	return x->arena + x->arena_size;
}

void *dpk_bench_alloc(struct dpk_bench_run *run, size_t size, size_t align)
{
	struct dpk_bench_ctl *x = dpk_bench_ctl_of(run);
	size_t off;

	if (align < 64)
		align = 64;
	if (!x->arena || (align & (align - 1)))
		return NULL;
	off = (x->arena_used + align - 1) & ~(align - 1);
	if (off > x->arena_size || size > x->arena_size - off)
		return NULL;
	x->arena_used = off + size;
	/* Fresh anonymous pages are zero; pool pages carry the rounds before. */
	if (x->arena_pooled)
		memset(x->arena + off, 0, size);
	return x->arena + off;
}
