/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring set-up and inspection; the data paths are inline in <dpk/impl/ring.h>. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <dpk/ring.h>

#include "internal.h"
#include "ring_test_hooks.h"

#define RING_KNOWN_FLAGS (DPK_RING_F_SP_ENQ | DPK_RING_F_SC_DEQ | DPK_RING_F_EXACT_SZ)

/* Table slots for @p count with @p flags, or 0 after setting the error message. */
static uint32_t ring_table_size(unsigned esize, unsigned count, unsigned flags)
{
	if (esize == 0 || esize % 4 != 0 || esize > DPK_RING_ESIZE_MAX) {
		dpk__set_error("ring: element size %u is not a multiple of 4 in 4..%u", esize,
		               DPK_RING_ESIZE_MAX);
		return 0;
	}
	if (flags & ~RING_KNOWN_FLAGS) {
		dpk__set_error("ring: unknown flags 0x%x", flags & ~RING_KNOWN_FLAGS);
		return 0;
	}
	if (count == 0) {
		dpk__set_error("ring: count is 0");
		return 0;
	}
	if (flags & DPK_RING_F_EXACT_SZ) {
		/* The table needs one slot more than the capacity. */
		if (count > DPK_RING_SIZE_MAX - 1) {
			dpk__set_error("ring: count %u is above %u", count, DPK_RING_SIZE_MAX - 1);
			return 0;
		}
		uint32_t size = 1;
		while (size < count + 1)
			size <<= 1;
		return size;
	}
	if (count > DPK_RING_SIZE_MAX) {
		dpk__set_error("ring: count %u is above %u", count, DPK_RING_SIZE_MAX);
		return 0;
	}
	if (count & (count - 1)) {
		dpk__set_error("ring: count %u is not a power of two (or use DPK_RING_F_EXACT_SZ)",
		               count);
		return 0;
	}
	/* A table of one slot has a capacity of 0: every enqueue would fail. */
	if (count == 1) {
		dpk__set_error("ring: count 1 leaves no usable slot (use DPK_RING_F_EXACT_SZ)");
		return 0;
	}
	return count;
}

ssize_t dpk_ring_memsize(unsigned esize, unsigned count, unsigned flags)
{
	uint32_t size = ring_table_size(esize, count, flags);
	uint64_t bytes;

	if (size == 0)
		return -EINVAL;
	bytes = sizeof(struct dpk_ring) + (uint64_t)size * esize;
	if (bytes > (uint64_t)(SIZE_MAX / 2)) {
		dpk__set_error("ring: %" PRIu64 " bytes do not fit in this address space", bytes);
		return -EINVAL;
	}
	return (ssize_t)bytes;
}

int dpk_ring_init(struct dpk_ring *r, unsigned esize, unsigned count, unsigned flags)
{
	uint32_t size;

	if (r == NULL) {
		dpk__set_error("ring: NULL memory");
		return -EINVAL;
	}
	if ((uintptr_t)r % DPK_CACHE_LINE != 0) {
		dpk__set_error("ring: memory %p is not aligned to %u bytes", (void *)r,
		               DPK_CACHE_LINE);
		return -EINVAL;
	}
	if (dpk_ring_memsize(esize, count, flags) < 0)
		return -EINVAL;
	size = ring_table_size(esize, count, flags);

	memset(r, 0, sizeof(*r));
	r->size = size;
	r->mask = size - 1;
	r->capacity = (flags & DPK_RING_F_EXACT_SZ) ? count : size - 1;
	r->esize = esize;
	r->flags = flags;
	dpk_ring_reset(r);
	return 0;
}

struct dpk_ring *dpk_ring_create(unsigned esize, unsigned count, unsigned flags)
{
	ssize_t bytes = dpk_ring_memsize(esize, count, flags);
	struct dpk_ring *r;

	if (bytes < 0) {
		errno = EINVAL;
		return NULL;
	}
	/* aligned_alloc wants a multiple of the alignment. */
	r = aligned_alloc(DPK_CACHE_LINE,
	                  ((size_t)bytes + DPK_CACHE_LINE - 1) & ~(size_t)(DPK_CACHE_LINE - 1));
	if (r == NULL) {
		dpk__set_error("ring: cannot allocate %zd bytes", bytes);
		errno = ENOMEM;
		return NULL;
	}
	dpk_ring_init(r, esize, count, flags);
	return r;
}

void dpk_ring_free(struct dpk_ring *r)
{
	free(r);
}

void dpk__ring_set_indices(struct dpk_ring *r, uint32_t idx)
{
	struct dpk__ring_side *sides[2] = {&r->prod, &r->cons};

	for (int i = 0; i < 2; i++) {
		atomic_store_explicit(&sides[i]->head, idx, memory_order_relaxed);
		atomic_store_explicit(&sides[i]->tail, idx, memory_order_relaxed);
		atomic_store_explicit(&sides[i]->cached, idx, memory_order_relaxed);
	}
}

void dpk__ring_set_cached(struct dpk_ring *r, uint32_t prod_cached, uint32_t cons_cached)
{
	atomic_store_explicit(&r->prod.cached, prod_cached, memory_order_relaxed);
	atomic_store_explicit(&r->cons.cached, cons_cached, memory_order_relaxed);
}

void dpk_ring_reset(struct dpk_ring *r)
{
	dpk__ring_set_indices(r, 0);
}

static const char *sync_name(bool single, bool prod)
{
	if (single)
		return prod ? "SP" : "SC";
	return prod ? "MP" : "MC";
}

int dpk_ring_dump(FILE *f, const struct dpk_ring *r)
{
	const struct dpk__ring_side *p, *c;

	if (f == NULL || r == NULL)
		return -EINVAL;
	p = &r->prod;
	c = &r->cons;
	fprintf(f, "ring %p: %s/%s%s, esize %u, size %u, capacity %u\n", (const void *)r,
	        sync_name(dpk_ring_is_sp(r), true), sync_name(dpk_ring_is_sc(r), false),
	        (r->flags & DPK_RING_F_EXACT_SZ) ? ", exact size" : "", r->esize, r->size,
	        r->capacity);
	fprintf(f, "  used %u, free %u\n", dpk_ring_count(r), dpk_ring_free_count(r));
	/* Relaxed loads: a snapshot for people to read, not ordered with the data paths. */
	fprintf(f, "  prod: head %" PRIu32 ", tail %" PRIu32 ", cached cons.tail %" PRIu32 "\n",
	        atomic_load_explicit(&p->head, memory_order_relaxed),
	        atomic_load_explicit(&p->tail, memory_order_relaxed),
	        atomic_load_explicit(&p->cached, memory_order_relaxed));
	fprintf(f, "  cons: head %" PRIu32 ", tail %" PRIu32 ", cached prod.tail %" PRIu32 "\n",
	        atomic_load_explicit(&c->head, memory_order_relaxed),
	        atomic_load_explicit(&c->tail, memory_order_relaxed),
	        atomic_load_explicit(&c->cached, memory_order_relaxed));
	return 0;
}
