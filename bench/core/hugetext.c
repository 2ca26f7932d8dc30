/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hugetext.c - the program's code moved onto fresh anonymous pages, at start and before
 * every one-lcore round.
 *
 * A short loop's cost can follow where its code lies in physical memory (docs/method.md,
 * "Why a page", "Code pages"): two files of the same bytes, read into different page-cache
 * pages, can time apart, once per file, which paired rounds cannot tell from the build.
 * Moved onto fresh pages before each round, every round draws its own placement.
 * The program's executable segment must start on a 2 MB boundary, with nothing mapped in
 * the rest of its last 2 MB (dpk-bench is linked with -z max-page-size=0x200000 for that);
 * the copy is anonymous memory with MADV_HUGEPAGE (2 MB pages where the kernel gives them,
 * so the move costs no TLB reach), made read-only and executable, and mremap() puts it in
 * place of the old pages at the same addresses, so nothing that points into the code
 * changes. Where anything is missing, the code stays where it is and the reason is kept;
 * DPK_BENCH_KEEP_CODE in the environment keeps it there too, for perf and gdb, which name
 * functions from the file's mapping.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <stdbool.h>

#include "env.h"

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* The main program's executable segment and whether any other segment of it lies in
 * [end, end rounded up to 2 MB). */
struct text_seg {
	uintptr_t start, end;
	bool crowded;
	bool found;
};

/* How the code lies, and why: the environment block's value and detail. */
static char text_state[160] = "4 KiB pages of the file";
static char text_why[160] = "not tried";
static struct text_seg moved; /* the segment, once moved */

static bool why_not(const char *reason)
{
	snprintf(text_why, sizeof(text_why), "%s", reason);
	return false;
}

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text_seg *t = arg;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->start = info->dlpi_addr + ph->p_vaddr;
			t->end = t->start + ph->p_memsz;
			t->found = true;
		}
	}
	for (unsigned i = 0; t->found && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		uintptr_t lim = (t->end + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);

		if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_X) && a < lim && b > t->end)
			t->crowded = true;
	}
	return 1; /* the first object is the main program */
}

/* Whether nothing else is mapped between the segment's last page and its 2 MB end. */
static bool gap_free(const struct text_seg *t)
{
	const uintptr_t from = (t->end + 4095) & ~(uintptr_t)4095;
	const uintptr_t lim = (t->end + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	void *p;

	if (from >= lim)
		return true;
	p = mmap((void *)from, lim - from, PROT_NONE,
	         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	munmap(p, lim - from);
	return p == (void *)from; /* a kernel without NOREPLACE may place it elsewhere */
}

/* Copy [t->start, t->end) onto fresh huge-page memory and move that in place. NULL when
 * moved, else why not; the code then stays where it was. */
static const char *move_text(const struct text_seg *t)
{
	const size_t len = (t->end - t->start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	unsigned char *raw, *dst;

	raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	           0);
	if (raw == MAP_FAILED)
		return "no memory for the copy";
	dst = (unsigned char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	if (dst > raw)
		munmap(raw, (size_t)(dst - raw));
	munmap(dst + len, (size_t)(raw + HUGE_PAGE - dst));
	if (madvise(dst, len, MADV_HUGEPAGE) != 0) {
		munmap(dst, len);
		return "no transparent huge pages";
	}
	memcpy(dst, (const void *)t->start, t->end - t->start);
	if (mprotect(dst, len, PROT_READ | PROT_EXEC) != 0 ||
	    mremap(dst, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)t->start) == MAP_FAILED) {
		munmap(dst, len);
		return "the move was refused";
	}
	return NULL;
}

/* How many kB of the mapping that starts at @p start are on huge pages (/proc/self/smaps). */
static unsigned long huge_kb(uintptr_t start)
{
	char line[256];
	unsigned long kb = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2)
			in = a == start;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb;
}

bool dpk_bench_text_huge(void)
{
	struct text_seg t = {0};
	const char *why;

	if (getenv("DPK_BENCH_KEEP_CODE"))
		return why_not("DPK_BENCH_KEEP_CODE is set: code left to profilers");
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return why_not("a sanitizer build");
#endif
	dl_iterate_phdr(find_text, &t);
	if (!t.found)
		return why_not("no executable segment found");
	if (t.start % HUGE_PAGE || t.crowded || !gap_free(&t))
		return why_not("code not alone on a 2 MB boundary: link with -z "
		               "max-page-size=0x200000");
	if ((why = move_text(&t)) != NULL)
		return why_not(why);
	moved = t;
	const unsigned long huge = huge_kb(t.start), kb = (unsigned long)((t.end - t.start) >> 10);
	if (huge)
		snprintf(text_state, sizeof(text_state),
		         "%lu kB of code on 2 MB pages (%lu kB huge), moved each round", kb, huge);
	else
		snprintf(text_state, sizeof(text_state),
		         "%lu kB of code on 4 KiB anonymous pages (no huge page given), moved "
		         "each round",
		         kb);
	snprintf(text_why, sizeof(text_why),
	         "a short loop's cost follows its physical address; each round draws anew");
	return true;
}

/* A move refused later leaves the code on the pages of the one before, and stops the
 * moves; the state then says so. */
void dpk_bench_text_rehome(void)
{
	const char *why;

	if (moved.found && (why = move_text(&moved)) != NULL) {
		moved.found = false;
		snprintf(text_state, sizeof(text_state),
		         "anonymous pages, no longer moved each round");
		why_not(why);
	}
}

const char *dpk_bench_text_state(void)
{
	return text_state;
}

const char *dpk_bench_text_why(void)
{
	return text_why;
}
