/* SPDX-License-Identifier: BSD-3-Clause */
/* Ring set-up and inspection; the data paths are inline in <dpk/impl/ring.h>. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <dpk/ring.h>

#include "internal.h"
#include "ring_test_hooks.h"

#define RING_PROD_MODES  (DPK_RING_F_SP_ENQ | DPK_RING_F_MP_RTS_ENQ | DPK_RING_F_MP_HTS_ENQ)
#define RING_CONS_MODES  (DPK_RING_F_SC_DEQ | DPK_RING_F_MC_RTS_DEQ | DPK_RING_F_MC_HTS_DEQ)
#define RING_KNOWN_FLAGS (RING_PROD_MODES | RING_CONS_MODES | DPK_RING_F_EXACT_SZ)
/* Kept in a ring's flags, above every DPK_RING_F_* flag: dpk_ring_create() allocated it,
 * so dpk_ring_free() may free it. */
#define RING_OWNED 0x80000000u

/* More than one bit of @p mask set in @p flags. */
static bool two_modes(unsigned flags, unsigned mask)
{
	unsigned m = flags & mask;

	return (m & (m - 1)) != 0;
}

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
	if (two_modes(flags, RING_PROD_MODES) || two_modes(flags, RING_CONS_MODES)) {
		dpk__set_error("ring: flags 0x%x give one side two sync modes", flags);
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
	/* As DPDK: an eighth of the capacity. */
	if (flags & DPK_RING_F_MP_RTS_ENQ)
		atomic_init(&r->prod.htd_max, r->capacity / 8);
	if (flags & DPK_RING_F_MC_RTS_DEQ)
		atomic_init(&r->cons.htd_max, r->capacity / 8);
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
	r->flags |= RING_OWNED;
	return r;
}

void dpk_ring_free(struct dpk_ring *r)
{
	if (r && !(r->flags & RING_OWNED)) {
		dpk__set_error("ring free: %p is in the caller's memory (dpk_ring_init()); left "
		               "alone",
		               (void *)r);
		return;
	}
	free(r);
}

/* Put one side, idle, at index @p idx in the words its mode @p sync uses. */
static void side_set(struct dpk__ring_side *side, enum dpk_ring_sync sync, uint32_t idx)
{
	/* HTS keeps the head in the tail word's high half; the other modes keep 0 there (RTS:
	 * no reservation begun or finished yet). */
	uint64_t tail = DPK__RING_WORD(idx, sync == DPK_RING_SYNC_MT_HTS ? idx : 0);

	atomic_store_explicit(&side->head, idx, memory_order_relaxed);
	atomic_store_explicit(&side->cached, idx, memory_order_relaxed);
	atomic_store_explicit(&side->tail, tail, memory_order_relaxed);
	atomic_store_explicit(&side->rts_head, DPK__RING_WORD(idx, 0), memory_order_relaxed);
}

void dpk__ring_set_indices(struct dpk_ring *r, uint32_t idx)
{
	side_set(&r->prod, dpk_ring_prod_sync(r), idx);
	side_set(&r->cons, dpk_ring_cons_sync(r), idx);
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

static const char *const sync_names[2][4] = {
        {"SC", "MC", "MC_RTS", "MC_HTS"},
        {"SP", "MP", "MP_RTS", "MP_HTS"},
};

/* One side's line of dump: its mode, its indices as that mode keeps them. */
static void dump_side(FILE *f, const struct dpk__ring_side *s, enum dpk_ring_sync sync, bool prod)
{
	/* Relaxed loads: a snapshot for people to read, not ordered with the data paths. */
	uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
	uint64_t rh = atomic_load_explicit(&s->rts_head, memory_order_relaxed);
	const char *name = prod ? "prod" : "cons", *mode = sync_names[prod][sync];

	switch (sync) {
	case DPK_RING_SYNC_MT_RTS:
		fprintf(f,
		        "  %s: %s, head %" PRIu32 " (%" PRIu32 " begun), tail %" PRIu32 " (%" PRIu32
		        " finished), htd_max %u\n",
		        name, mode, DPK__RING_LO(rh), DPK__RING_HI(rh), DPK__RING_LO(tail),
		        DPK__RING_HI(tail),
		        atomic_load_explicit(&s->htd_max, memory_order_relaxed));
		break;
	case DPK_RING_SYNC_MT_HTS:
		fprintf(f, "  %s: %s, head %" PRIu32 ", tail %" PRIu32 "\n", name, mode,
		        DPK__RING_HI(tail), DPK__RING_LO(tail));
		break;
	default:
		fprintf(f,
		        "  %s: %s, head %" PRIu32 ", tail %" PRIu32 ", cached %s.tail %" PRIu32
		        "\n",
		        name, mode, atomic_load_explicit(&s->head, memory_order_relaxed),
		        DPK__RING_LO(tail), prod ? "cons" : "prod",
		        atomic_load_explicit(&s->cached, memory_order_relaxed));
		break;
	}
}

int dpk_ring_dump(FILE *f, const struct dpk_ring *r)
{
	if (f == NULL || r == NULL)
		return -EINVAL;
	fprintf(f, "ring %p: %s/%s%s, esize %u, size %u, capacity %u\n", (const void *)r,
	        sync_names[1][dpk_ring_prod_sync(r)], sync_names[0][dpk_ring_cons_sync(r)],
	        (r->flags & DPK_RING_F_EXACT_SZ) ? ", exact size" : "", r->esize, r->size,
	        r->capacity);
	fprintf(f, "  used %u, free %u\n", dpk_ring_count(r), dpk_ring_free_count(r));
	dump_side(f, &r->prod, dpk_ring_prod_sync(r), true);
	dump_side(f, &r->cons, dpk_ring_cons_sync(r), false);
	return 0;
}

static int set_htd_max(struct dpk_ring *r, bool prod, unsigned max)
{
	if (r == NULL)
		return -EINVAL;
	if ((prod ? dpk_ring_prod_sync(r) : dpk_ring_cons_sync(r)) != DPK_RING_SYNC_MT_RTS) {
		dpk__set_error("ring: the %s side is not MT_RTS", prod ? "producer" : "consumer");
		return -EINVAL;
	}
	if (max > r->capacity) {
		dpk__set_error("ring: htd_max %u is above the capacity %u", max, r->capacity);
		return -EINVAL;
	}
	/* Relaxed: reservers read it relaxed, and any value is safe for them. */
	atomic_store_explicit(prod ? &r->prod.htd_max : &r->cons.htd_max, max,
	                      memory_order_relaxed);
	return 0;
}

int dpk_ring_set_prod_htd_max(struct dpk_ring *r, unsigned max)
{
	return set_htd_max(r, true, max);
}

int dpk_ring_set_cons_htd_max(struct dpk_ring *r, unsigned max)
{
	return set_htd_max(r, false, max);
}

unsigned dpk__ring_enqueue_sync(struct dpk_ring *r, const void *objs, unsigned n,
                                unsigned *free_space, bool bulk)
{
	if (r->flags & DPK_RING_F_MP_RTS_ENQ)
		return dpk__ring_rts_enqueue(r, objs, n, free_space, bulk);
	return dpk__ring_hts_enqueue(r, objs, n, free_space, bulk);
}

unsigned dpk__ring_dequeue_sync(struct dpk_ring *r, void *objs, unsigned n, unsigned *available,
                                bool bulk)
{
	if (r->flags & DPK_RING_F_MC_RTS_DEQ)
		return dpk__ring_rts_dequeue(r, objs, n, available, bulk);
	return dpk__ring_hts_dequeue(r, objs, n, available, bulk);
}
