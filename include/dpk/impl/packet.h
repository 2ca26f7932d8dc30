/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/packet.h - packet layout and the inline paths. The fields below are private:
 * use the functions of <dpk/packet.h>.
 *
 * A packet's data is its own part, [buf + data_off, + data_len), followed by its shared
 * part, [shr, + shr_len). A packet that is not referencing has no shared part. A packet
 * made by dpk_packet_ref() starts with an empty own part at the end of its own buffer
 * (data_off == buf_len), so that all of its buffer is headroom for private headers.
 *
 * Reference count (refs), after ODP linux-generic's:
 *   0   never referenced since alloc: the holder is the only one, and free needs no
 *       atomic read-modify-write. A packet goes back to its pool with refs 0, so alloc
 *       does not have to write it.
 *   n>0 n holds: handles from dpk_packet_ref_static() plus packets referencing this one.
 *       The first reference stores 2 (the holder's own hold plus the new one).
 *   1   the caller's hold is the only one, and none can appear meanwhile, since making
 *       one takes a hold: as DPDK's mbuf does at a count of 1, a reference then stores 2
 *       and a free stores 0, with no read-modify-write. Not so for a hold taken through
 *       a referencing packet (dpk_packet_ref() of one), whose other holders may take
 *       holds on the same owner at the same time: that one is always an increment.
 *
 * Pool word (pool_tag): the address of the packet's pool, with DPK__PACKET_SHARED (bit 0;
 * a pool is aligned to a line pair) set exactly while refs is not 0 or the packet holds
 * another one (referenced, a packet made by dpk_packet_ref()). The free fast path
 * compares this one word with the thread's last pool (below): equal means both "this
 * pool" and "never referenced", and the packet goes straight back to the cache with plain
 * loads and stores. The flag is a plain store, never a concurrent one: it is set by the
 * packet's only holder when refs leaves 0 (the first reference) or by dpk_packet_ref()
 * making the packet, before any other holder exists, and cleared by the last holder, after
 * A1, before the buffer goes back to its pool. Every holder's read of it happens between
 * the two: after the handle reached it through something that orders memory, and before
 * its own release (R1).
 *
 * The last packet pool a thread freed to (dpk__packet_last_pool). The free fast path
 * compares the packet's pool word with it and, when they match, pushes the packet on
 * that pool's entry in its caches table for the calling thread's lcore id. The put's
 * stores then have their addresses after two loads that do not depend on the packet:
 * through the packet they would wait for its pool pointer and then the pool's cache
 * fields (a free then cost up to three times a put), and a cache address computed from
 * the pool's base and stride adds a multiply to the chain (a tenth more). The
 * comparison is a predicted branch and settles later. When it fails, the free goes out
 * of line, which makes the packet's pool the last one. A pool freed and another created
 * at the same address is harmless: only the address is kept, the packet being freed
 * proves that a pool lives there, and its table is read as it is now, for the calling
 * thread's lcore id as it is now.
 *
 * A pool whose packets must not take the inline paths (without per-lcore caches, or a
 * debug pool, whose every get and put is checked) fills its caches table with a cache
 * that is always empty and always full (dpk__packet_no_cache): the inline paths fail
 * on it and go out of line, with no test of their own.
 *
 * Memory orders, paired:
 *   R1 (release decrement in packet_release(), src/packet.c, and in dpk_packet_free())
 *      pairs with A1 (acquire fence after the last decrement, in the same two places):
 *      every holder's accesses to the packet happen before the buffer is recycled by the
 *      last one.
 *   R1 also pairs with A2 (acquire in dpk__packet_exclusive() and dpk_packet_has_ref()):
 *      a holder that sees the count fall to 1 may change the packet after the others'
 *      reads of it.
 *   R1 also pairs with A3 (acquire after the load that finds 1 in packet_release()): the
 *      last holder, freeing with a plain store, recycles the buffer after the departed
 *      holders' accesses, as with A1.
 *   R1 also pairs with A4 (acquire after the load that finds 1 in dpk__packet_hold()): the
 *      plain store of 2 ends the release sequence of the departed holders' R1, so a later
 *      last holder's A1 or A3 no longer synchronizes with them through the count; A4
 *      orders their accesses before this holder's, and this holder's own R1 (or its own
 *      last free) carries them on.
 *   The first reference (0 -> 2, a relaxed store) and further ones (a relaxed increment)
 *   need no ordering: the caller holds the packet, so the count cannot reach 0 meanwhile,
 *   and the new handle reaches another thread only through something that orders memory
 *   (a ring), which also carries the count.
 */
#ifndef DPK_PACKET_H
#error "include <dpk/packet.h>, not <dpk/impl/packet.h>"
#endif

#include <errno.h>

/* ThreadSanitizer does not model fences, and GCC refuses them under -fsanitize=thread. */
#if defined(__SANITIZE_THREAD__)
#define DPK__PACKET_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DPK__PACKET_TSAN 1
#endif
#endif
#ifndef DPK__PACKET_TSAN
#define DPK__PACKET_TSAN 0
#endif

struct dpk_packet {
	unsigned char *buf;            /* own buffer, buf_len bytes */
	uintptr_t pool_tag;            /* pool of the own buffer | DPK__PACKET_SHARED */
	unsigned char *shr;            /* first byte of the shared part */
	struct dpk_packet *referenced; /* packet holding the shared part, or NULL */
	void *uarea;                   /* user area, or NULL */
	uint32_t buf_len;              /* own buffer size */
	/* The three fields alloc sets, adjacent so that the compiler may merge the stores. */
	uint32_t data_off; /* own part: offset of its first byte in buf */
	uint32_t data_len; /* own part: length */
	uint32_t flow_tag;
	uint32_t shr_len;           /* shared part: length (0 unless referencing) */
	DPK__ATOMIC(uint32_t) refs; /* see the file comment */
};

/* In pool_tag: refs is not 0, or the packet references another (see the file comment). */
#define DPK__PACKET_SHARED ((uintptr_t)1)

/* See the file comment. Initial-exec, as dpk__lcore_id: one load from the thread pointer. */
extern DPK__THREAD_LOCAL struct dpk_packet_pool *dpk__packet_last_pool
        __attribute__((tls_model("initial-exec")));

struct dpk_packet_pool {
	uint32_t headroom; /* data_off of a new packet */
	uint32_t max_len;  /* buf_size - headroom */
	/* What alloc reads, in one load: (max_len + 1) | headroom << 32. */
	uint64_t alloc_word;
	struct dpk_packet_pool_params params;
	bool owned; /* dpk_packet_pool_create()'s memory, which free() gives back */
	/* The per-lcore cache of each lcore id, or dpk__packet_no_cache for all (see the
	 * file comment): one load finds the calling lcore's cache, where its address
	 * computed from the pool's would take two loads and a multiply. */
	struct dpk_pool_cache *caches[DPK_LCORE_MAX];
	/* Last, on a line pair as dpk_pool_create() would place it: its ring, caches and
	 * objects follow. */
	DPK__ALIGNAS(2 * DPK_CACHE_LINE) struct dpk_pool pool;
};

/* Out of line: allocs that miss the inline path, with every check of dpk_packet_alloc(). */
struct dpk_packet *dpk__packet_alloc_slow(struct dpk_packet_pool *pp, uint32_t len);
/* Out of line: frees that miss the inline path (referenced or referencing packets, another
 * pool than the thread's last, a full cache, a thread that is not an lcore). */
void dpk__packet_free_slow(struct dpk_packet *pkt);

/*
 * The acquire side of A1 to A4: a fence after the relaxed load or decrement that found
 * the caller's hold to be the only one left. Under ThreadSanitizer it is an acquire load of the
 * count instead, which gives the same order: at these points nobody else can change the
 * count, so the load reads the value just seen, the end of the release sequence of R1.
 */
static inline void dpk__packet_acquire(const struct dpk_packet *pkt)
{
#if DPK__PACKET_TSAN
	(void)atomic_load_explicit(&pkt->refs, memory_order_acquire);
#else
	(void)pkt;
	atomic_thread_fence(memory_order_acquire);
#endif
}

/*
 * Add a hold on @p pkt. With @p direct the caller holds @p pkt itself, one of the holds
 * counted; without, it holds a referencing packet that holds @p pkt, and that packet may
 * have other holders, who may add holds on @p pkt at the same time.
 */
static inline void dpk__packet_hold(struct dpk_packet *pkt, bool direct)
{
	/* Relaxed load, stores and increment: see "Memory orders" at the top of this file. */
	uint32_t holds = atomic_load_explicit(&pkt->refs, memory_order_relaxed);

	if (holds == 0) {
		/* The caller is the only holder: refs leaves 0, and the pool word takes the
		 * flag that keeps every holder's free off the inline path (see the
		 * top of this file; a referencing packet has it already). */
		pkt->pool_tag |= DPK__PACKET_SHARED;
		atomic_store_explicit(&pkt->refs, 2, memory_order_relaxed);
	} else if (holds == 1 && direct) {
		/* The caller's hold is the only one, and only a holder can add or drop one.
		 * A4: pairs with R1 of the holders that left. The store ends the release
		 * sequence of their R1, so the last holder's A1 would not be ordered after
		 * their accesses through it; it is through this holder's own R1 instead. */
		dpk__packet_acquire(pkt);
		atomic_store_explicit(&pkt->refs, 2, memory_order_relaxed);
	} else {
		atomic_fetch_add_explicit(&pkt->refs, 1, memory_order_relaxed);
	}
}

static inline struct dpk_packet *dpk_packet_ref_static(struct dpk_packet *pkt)
{
	if (pkt == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dpk__packet_hold(pkt, true);
	return pkt;
}

/*
 * What alloc writes: the data window (data_off back to the headroom, which push and pull
 * of the last user moved, and data_len) and the flow tag (documented as 0): 12 adjacent
 * bytes of the metadata line, which the free that put the packet in the cache has just
 * touched, so the line is still in L1 when the cache is hot. Nothing else: buf,
 * buf_len, pool_tag's address and uarea never change after pool create, and every free
 * path leaves refs 0, pool_tag unflagged, referenced NULL and shr_len 0, the state of a
 * never-referenced packet.
 *
 * The inline path is a hit in the pool's caches table entry for the calling lcore; it
 * calls nothing and tests neither the cache's pool nor whether the pool has per-lcore
 * caches, as dpk_pool_get() must.
 */
static inline struct dpk_packet *dpk_packet_alloc(struct dpk_packet_pool *pp, uint32_t len)
{
	unsigned id = dpk_lcore_id();
	struct dpk_packet *pkt;
	uint64_t word;
	void *obj;

	if (__builtin_expect(pp == NULL, 0))
		return dpk__packet_alloc_slow(pp, len);
	word = pp->alloc_word;
	if (__builtin_expect(len >= (uint32_t)word || id >= DPK_LCORE_MAX, 0) ||
	    __builtin_expect(!dpk__pool_cache_get1(pp->caches[id], &obj), 0))
		return dpk__packet_alloc_slow(pp, len);
	pkt = (struct dpk_packet *)obj;
	pkt->data_off = (uint32_t)(word >> 32);
	pkt->data_len = len;
	pkt->flow_tag = 0;
	return pkt;
}

static inline void dpk_packet_free(struct dpk_packet *pkt)
{
	struct dpk_packet_pool *pp;
	unsigned id;

	if (pkt == NULL)
		return;
	/* A word equal to the last pool means that this holder is, and always was, the only
	 * one, and the packet references nothing, so no other thread has touched the packet
	 * since it came to this one, and the pool's cache orders this holder's accesses
	 * before the next get. The word cannot read so while another hold is counted (see
	 * the file comment). */
	pp = dpk__packet_last_pool;
	id = dpk_lcore_id();
	if (__builtin_expect(pkt->pool_tag == (uintptr_t)pp && id < DPK_LCORE_MAX, 1) &&
	    __builtin_expect(dpk__pool_cache_put1(pp->caches[id], pkt), 1))
		return;
	/* A referenced packet that references nothing, with other holders: one decrement,
	 * inline as DPDK's free of a referenced mbuf. The count is read first so that the
	 * only holder keeps its plain store (packet_release()). */
	if ((pkt->pool_tag & DPK__PACKET_SHARED) && pkt->referenced == NULL &&
	    atomic_load_explicit(&pkt->refs, memory_order_relaxed) > 1) {
		/* R1: this holder's accesses happen before the last holder recycles it. */
		if (atomic_fetch_sub_explicit(&pkt->refs, 1, memory_order_release) != 1)
			return;
		/* The others left meanwhile. A1: pairs with their R1. The count is 0 now,
		 * which the out-of-line free takes for this holder's own, the last. */
		dpk__packet_acquire(pkt);
	}
	dpk__packet_free_slow(pkt);
}

/* True when the caller is the packet's only holder and may change it. */
static inline bool dpk__packet_exclusive(const struct dpk_packet *pkt)
{
	uint32_t holds = atomic_load_explicit(&pkt->refs, memory_order_relaxed);

	if (holds == 0)
		return true;
	if (holds == 1) {
		/* A2: pairs with R1 in packet_release() of the holders that left: their reads
		 * of the packet happen before this holder's changes. */
		dpk__packet_acquire(pkt);
		return true;
	}
	return false;
}

static inline void *dpk_packet_data(const struct dpk_packet *pkt)
{
	if (__builtin_expect(pkt->data_len == 0 && pkt->shr_len != 0, 0))
		return pkt->shr;
	return pkt->buf + pkt->data_off;
}

static inline uint32_t dpk_packet_len(const struct dpk_packet *pkt)
{
	return pkt->data_len + pkt->shr_len;
}

static inline uint32_t dpk_packet_seg_len(const struct dpk_packet *pkt)
{
	return pkt->data_len != 0 ? pkt->data_len : pkt->shr_len;
}

static inline void *dpk_packet_offset(const struct dpk_packet *pkt, uint32_t offset,
                                      uint32_t *seg_len)
{
	uint32_t rest;

	if (offset < pkt->data_len) {
		if (seg_len)
			*seg_len = pkt->data_len - offset;
		return pkt->buf + pkt->data_off + offset;
	}
	rest = offset - pkt->data_len;
	if (rest >= pkt->shr_len)
		return NULL;
	if (seg_len)
		*seg_len = pkt->shr_len - rest;
	return pkt->shr + rest;
}

static inline uint32_t dpk_packet_headroom(const struct dpk_packet *pkt)
{
	return pkt->data_off;
}

static inline uint32_t dpk_packet_tailroom(const struct dpk_packet *pkt)
{
	/* The bytes after a shared part belong to another packet. */
	if (pkt->referenced != NULL)
		return 0;
	return pkt->buf_len - pkt->data_off - pkt->data_len;
}

static inline int dpk_packet_push_head(struct dpk_packet *pkt, uint32_t len)
{
	if (!dpk__packet_exclusive(pkt))
		return -EBUSY;
	if (len > pkt->data_off)
		return -ENOSPC;
	pkt->data_off -= len;
	pkt->data_len += len;
	return 0;
}

static inline int dpk_packet_pull_head(struct dpk_packet *pkt, uint32_t len)
{
	if (!dpk__packet_exclusive(pkt))
		return -EBUSY;
	if (len > dpk_packet_len(pkt))
		return -EINVAL;
	if (len <= pkt->data_len) {
		pkt->data_off += len;
		pkt->data_len -= len;
	} else {
		uint32_t rest = len - pkt->data_len;

		pkt->data_off += pkt->data_len;
		pkt->data_len = 0;
		pkt->shr += rest;
		pkt->shr_len -= rest;
	}
	return 0;
}

static inline int dpk_packet_put_tail(struct dpk_packet *pkt, uint32_t len)
{
	if (!dpk__packet_exclusive(pkt))
		return -EBUSY;
	if (len > dpk_packet_tailroom(pkt))
		return -ENOSPC;
	pkt->data_len += len;
	return 0;
}

static inline int dpk_packet_trim_tail(struct dpk_packet *pkt, uint32_t len)
{
	if (!dpk__packet_exclusive(pkt))
		return -EBUSY;
	if (len > dpk_packet_len(pkt))
		return -EINVAL;
	if (len <= pkt->shr_len) {
		pkt->shr_len -= len;
	} else {
		pkt->data_len -= len - pkt->shr_len;
		pkt->shr_len = 0;
	}
	return 0;
}

static inline uint32_t dpk_packet_flow_tag(const struct dpk_packet *pkt)
{
	return pkt->flow_tag;
}

static inline int dpk_packet_flow_tag_set(struct dpk_packet *pkt, uint32_t tag)
{
	if (!dpk__packet_exclusive(pkt))
		return -EBUSY;
	pkt->flow_tag = tag;
	return 0;
}

static inline void *dpk_packet_uarea(const struct dpk_packet *pkt)
{
	return pkt->uarea;
}

static inline struct dpk_packet_pool *dpk_packet_pool(const struct dpk_packet *pkt)
{
	return (struct dpk_packet_pool *)(pkt->pool_tag & ~DPK__PACKET_SHARED);
}

static inline bool dpk_packet_has_ref(const struct dpk_packet *pkt)
{
	/* A2: acquire, pairs with R1 in packet_release(): a false answer orders the
	 * departed holders' reads before what the caller does next. */
	return atomic_load_explicit(&pkt->refs, memory_order_acquire) > 1;
}

static inline bool dpk_packet_is_referencing(const struct dpk_packet *pkt)
{
	return pkt->referenced != NULL;
}
