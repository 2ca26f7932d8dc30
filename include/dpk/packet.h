/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/packet.h - packet buffers from a packet pool, with references.
 *
 * A packet pool is an object pool (<dpk/pool.h>) whose objects are a 64-byte metadata
 * block, a user area and a data buffer of buf_size bytes, padded to a multiple of 128
 * bytes so that no packet's metadata shares an L1 set with a cache header of the pool
 * (see the layout notes in src/pool.c). A new packet's data starts headroom bytes into
 * its buffer; push/pull move the start, put/trim move the end. Metadata: data offset and
 * length, a 32-bit flow tag, the pool, the user area (its content is left as the last
 * user of the buffer left it) and the reference state.
 *
 * References (as ODP's odp_packet_ref_static() and odp_packet_ref()):
 *   - dpk_packet_ref_static(pkt) gives another handle to the same packet: the same
 *     pointer, counted once more. Each holder frees it once. While the packet has more
 *     than one holder, its data and metadata are read-only for all of them.
 *   - dpk_packet_ref(pkt, offset) gives a new packet with its own metadata whose data is
 *     pkt's data from offset on, shared, followed by nothing: its tailroom is 0. It may
 *     push headers into its own private headroom (its own buffer, all of it headroom),
 *     so its data may be in two parts: the private head and the shared rest. Use
 *     dpk_packet_seg_len(), dpk_packet_offset() or dpk_packet_read() to walk it. The
 *     packet whose buffer holds the shared data, its owner, stays allocated until the
 *     reference is freed, and is read-only while referenced.
 *   - A reference made from a referencing packet R (at an offset in R's shared part)
 *     references R's owner directly, as DPDK's rte_pktmbuf_attach() attaches to the
 *     direct mbuf, and takes no hold on R. It shares nothing of R's own buffer or
 *     metadata (ODP's odp_packet_ref() does not share the metadata or the data before the
 *     offset either), so holding R would keep a buffer and forbid changes that the new
 *     packet can never see. R stays as it was: dpk_packet_has_ref(R) is not made true,
 *     its changes are allowed, and its buffer goes back at its last free. References
 *     therefore never chain, and a free returns at most two buffers.
 *   - dpk_packet_has_ref(pkt): pkt's own buffer or metadata is shared, with another
 *     holder or with a referencing packet whose shared data is in pkt's buffer.
 *     dpk_packet_is_referencing(pkt): pkt was made by dpk_packet_ref() and holds its
 *     owner.
 * The calls that change a packet (push, pull, put, trim, flow tag set) return -EBUSY
 * while dpk_packet_has_ref() is true. Writing through a data pointer cannot be checked:
 * the caller must not write shared data (any data of a packet with has_ref, or the
 * shared part of a referencing packet, whatever its has_ref says).
 *
 * The last free of a packet returns its buffer to its pool; the last free of a packet
 * made by dpk_packet_ref() returns its own buffer and drops its hold on its owner. A
 * packet that was never referenced is freed with plain loads and stores only: its
 * reference count is 0 ("never referenced", as in ODP), which a flag in the word holding
 * its pool's address mirrors, and the free path reads that one word to know both its pool
 * and that it may skip the atomic decrement.
 *
 * Misuse. A second free of a packet that has one holder is a second put of its buffer,
 * which the pool underneath treats as <dpk/pool.h> says ("Misuse": a DPK_POOL_F_DEBUG
 * pool refuses it). A second free by one of several holders counts as another holder's
 * free: the buffer goes back while the others still use it, and nothing notices until
 * the last holder's free puts it once more. A free of a pointer that is not a packet, and
 * any use after free, are undefined and not detected. docs/misuse.md has the whole list.
 *
 * Concurrency (a "handle" is one holder's pointer to a packet; a holder passes it to
 * another thread through something that orders memory, such as a dpkit ring):
 *
 *   call                                  may run at the same time as
 *   alloc, alloc_multi, free, free_multi, the same calls on other threads, as gets and
 *   ref, ref_static                       puts of <dpk/pool.h> may (one thread per cache,
 *                                         the pool's SP/SC flags)
 *   queries (data, len, seg_len, offset,  queries, ref, ref_static and free of the same
 *   read, headroom, tailroom, flow_tag,   packet by its other holders
 *   uarea, pool, has_ref, is_referencing)
 *   changes (push_head, pull_head,        nothing on the same packet; refused with -EBUSY
 *   put_tail, trim_tail, flow_tag_set)    while the packet has another holder
 *   pool create, pool free                nothing on the pool
 *
 * What the reference count costs (atomic read-modify-writes on it, per call):
 *
 *   call                                  read-modify-writes
 *   free of a never-referenced packet     none: its pool word says so (see above)
 *   ref, ref_static, free by a holder     none: a plain store of the new count, since no
 *   that is the packet's only one         other holder exists and none can appear
 *   the same with other holders           one increment or decrement
 *   ref of a referencing packet           one increment on the owner, always: the
 *                                         referencing packet's holders may make
 *                                         references of it at the same time
 */
#ifndef DPK_PACKET_H
#define DPK_PACKET_H

#include <stdint.h>

#include <dpk/common.h>
#include <dpk/impl/compat.h>
#include <dpk/pool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest data buffer per packet, in bytes. */
#define DPK_PACKET_BUF_SIZE_MAX (1u << 24)
/** Largest user area per packet, in bytes. */
#define DPK_PACKET_UAREA_MAX (1u << 16)

/** Defaults set by dpk_packet_pool_params_init(). */
#define DPK_PACKET_DEFAULT_COUNT    4096u
#define DPK_PACKET_DEFAULT_BUF_SIZE 2048u
#define DPK_PACKET_DEFAULT_HEADROOM 128u
#define DPK_PACKET_DEFAULT_CACHE    256u

struct dpk_packet;
struct dpk_packet_pool;

/** What a packet pool is made of. */
struct dpk_packet_pool_params {
	unsigned count;      /**< packets, 1..DPK_POOL_COUNT_MAX */
	unsigned buf_size;   /**< data buffer per packet, headroom included, 1.._BUF_SIZE_MAX */
	unsigned headroom;   /**< where a new packet's data starts, 0..buf_size */
	unsigned uarea_size; /**< user area per packet, 0.._UAREA_MAX (0: none) */
	unsigned cache_size; /**< per-lcore cache, 0..DPK_POOL_CACHE_MAX (0: none) */
	unsigned flags;      /**< DPK_POOL_F_* for the object pool underneath, but
	                          DPK_POOL_F_NO_CACHE_ALIGN: packets start on cache lines */
};

/** Fill @p prm with the defaults above (uarea 0, flags 0). */
void dpk_packet_pool_params_init(struct dpk_packet_pool_params *prm);

/**
 * Create a packet pool.
 * @return the pool, or NULL with errno EINVAL (@p prm NULL; count 0 or too large;
 *         buf_size 0 or too large; headroom above buf_size; uarea_size too large; a
 *         cache size too large or too big for count, as dpk_pool_memsize(); unknown
 *         flags, or DPK_POOL_F_NO_CACHE_ALIGN) or ENOMEM; dpk_last_error() names the bad
 *         field
 */
struct dpk_packet_pool *dpk_packet_pool_create(const struct dpk_packet_pool_params *prm);

/** The alignment dpk_packet_pool_init() needs: a pair of cache lines. */
#define DPK_PACKET_POOL_ALIGN 128u

/**
 * Bytes a packet pool of @p prm takes, for dpk_packet_pool_init() (a multiple of
 * DPK_PACKET_POOL_ALIGN).
 * @retval -EINVAL as dpk_packet_pool_create() would refuse @p prm; dpk_last_error() says why
 */
ssize_t dpk_packet_pool_memsize(const struct dpk_packet_pool_params *prm);

/**
 * Build a packet pool of @p prm in caller memory @p pp of at least
 * dpk_packet_pool_memsize() bytes, aligned to DPK_PACKET_POOL_ALIGN (a huge page, a NUMA
 * node's memory, a benchmark's arena). dpk_packet_pool_free() leaves it alone; the caller
 * frees the memory once no packet of it is in use.
 * @retval 0
 * @retval -EINVAL bad @p prm (as dpk_packet_pool_memsize()), @p pp NULL or misaligned
 */
int dpk_packet_pool_init(struct dpk_packet_pool *pp, const struct dpk_packet_pool_params *prm);

/** Free a packet pool from dpk_packet_pool_create(); NULL is a no-op, and one from
 * dpk_packet_pool_init() is left alone (dpk_last_error() says so). No packet of it may be
 * used afterwards, and user caches made on its object pool must have been freed. */
void dpk_packet_pool_free(struct dpk_packet_pool *pp);

/** The parameters @p pp was created with. */
const struct dpk_packet_pool_params *dpk_packet_pool_params(const struct dpk_packet_pool *pp);

/** The object pool underneath, for its counts, audit and caches. */
struct dpk_pool *dpk_packet_pool_to_pool(struct dpk_packet_pool *pp);

/**
 * Allocate a packet of @p len data bytes (content undefined) starting headroom bytes into
 * its buffer, through the calling lcore's cache. Its flow tag is 0.
 * @return the packet, or NULL with errno EINVAL (@p pp NULL, or @p len above buf_size -
 *         headroom) or ENOENT (no packet reachable)
 */
static inline struct dpk_packet *dpk_packet_alloc(struct dpk_packet_pool *pp, uint32_t len);

/**
 * Allocate up to @p n packets of @p len bytes each into @p pkts. Partial success is
 * possible: when fewer than @p n packets are reachable (in the ring and this lcore's
 * cache), as many as there are are allocated and their number returned.
 * @retval 0..n    packets allocated, in @p pkts[0..ret-1]
 * @retval -EINVAL @p pp NULL, @p pkts NULL with @p n > 0, or @p len above buf_size -
 *                 headroom; nothing allocated
 */
int dpk_packet_alloc_multi(struct dpk_packet_pool *pp, uint32_t len, struct dpk_packet **pkts,
                           unsigned n);

/** Drop this holder's reference to @p pkt (see the file comment); NULL is a no-op. */
static inline void dpk_packet_free(struct dpk_packet *pkt);

/**
 * Free @p n packets, from any pools, in one call; NULL entries are skipped, and a NULL
 * @p pkts is a no-op. Buffers going back to the same pool are handed back with bulk puts
 * (up to 32 at a time, for up to 4 pools at once).
 */
void dpk_packet_free_multi(struct dpk_packet *const *pkts, unsigned n);

/** First data byte (the start of the private head of a referencing packet, when it has
 * one). */
static inline void *dpk_packet_data(const struct dpk_packet *pkt);

/** Data length in bytes, all parts. */
static inline uint32_t dpk_packet_len(const struct dpk_packet *pkt);

/** Contiguous bytes at dpk_packet_data(): the whole length unless the packet is
 * referencing and has pushed a private head. */
static inline uint32_t dpk_packet_seg_len(const struct dpk_packet *pkt);

/**
 * Pointer to data byte @p offset, and in *@p seg_len (when not NULL) the contiguous bytes
 * from there.
 * @return the pointer, or NULL when @p offset is not below dpk_packet_len()
 */
static inline void *dpk_packet_offset(const struct dpk_packet *pkt, uint32_t offset,
                                      uint32_t *seg_len);

/**
 * Copy @p len data bytes from @p offset into @p dst, across parts.
 * @retval 0       copied
 * @retval -EINVAL @p pkt is NULL, @p offset + @p len is past the data, or @p dst is NULL
 *                 with @p len > 0
 */
int dpk_packet_read(const struct dpk_packet *pkt, uint32_t offset, uint32_t len, void *dst);

/** Bytes that dpk_packet_push_head() may add. */
static inline uint32_t dpk_packet_headroom(const struct dpk_packet *pkt);

/** Bytes that dpk_packet_put_tail() may add (0 for a referencing packet). */
static inline uint32_t dpk_packet_tailroom(const struct dpk_packet *pkt);

/**
 * Add @p len bytes in front of the data (content undefined); dpk_packet_data() is then
 * the new first byte.
 * @retval 0       done
 * @retval -ENOSPC @p len is above dpk_packet_headroom(); nothing changed
 * @retval -EBUSY  the packet has another holder (dpk_packet_has_ref()); nothing changed
 */
static inline int dpk_packet_push_head(struct dpk_packet *pkt, uint32_t len);

/**
 * Remove @p len bytes from the front of the data.
 * @retval 0       done
 * @retval -EINVAL @p len is above dpk_packet_len(); nothing changed
 * @retval -EBUSY  the packet has another holder; nothing changed
 */
static inline int dpk_packet_pull_head(struct dpk_packet *pkt, uint32_t len);

/**
 * Add @p len bytes at the end of the data (content undefined).
 * @retval 0       done
 * @retval -ENOSPC @p len is above dpk_packet_tailroom(); nothing changed
 * @retval -EBUSY  the packet has another holder; nothing changed
 */
static inline int dpk_packet_put_tail(struct dpk_packet *pkt, uint32_t len);

/**
 * Remove @p len bytes from the end of the data.
 * @retval 0       done
 * @retval -EINVAL @p len is above dpk_packet_len(); nothing changed
 * @retval -EBUSY  the packet has another holder; nothing changed
 */
static inline int dpk_packet_trim_tail(struct dpk_packet *pkt, uint32_t len);

/** The flow tag (0 after alloc; copied by dpk_packet_ref()). */
static inline uint32_t dpk_packet_flow_tag(const struct dpk_packet *pkt);

/**
 * Set the flow tag.
 * @retval 0      done
 * @retval -EBUSY the packet has another holder; nothing changed
 */
static inline int dpk_packet_flow_tag_set(struct dpk_packet *pkt, uint32_t tag);

/** The user area (uarea_size bytes, aligned to 64), or NULL when the pool has none. */
static inline void *dpk_packet_uarea(const struct dpk_packet *pkt);

/** The pool the packet's own buffer came from. */
static inline struct dpk_packet_pool *dpk_packet_pool(const struct dpk_packet *pkt);

/**
 * Another handle to @p pkt: @p pkt itself, counted once more. From now on, until all but
 * one holder have freed it, the packet is read-only (see the file comment).
 * @return @p pkt, or NULL with errno EINVAL when @p pkt is NULL
 */
static inline struct dpk_packet *dpk_packet_ref_static(struct dpk_packet *pkt);

/**
 * A new packet, from @p pkt's pool, whose data is @p pkt's data from @p offset on,
 * shared. It has its own metadata (flow tag copied from @p pkt, user area untouched) and
 * its whole own buffer as private headroom. It holds the owner of the shared data until
 * it is freed: @p pkt itself, or, when @p pkt is referencing, @p pkt's owner; then
 * @p offset must lie in @p pkt's shared part, and @p pkt is neither held nor made
 * read-only (see the file comment).
 * @return the new packet, or NULL with errno EINVAL (@p pkt NULL or @p offset not below
 *         dpk_packet_len()), ENOTSUP (@p offset inside the private head of a
 *         referencing @p pkt) or ENOENT (the pool has no packet for it); on failure
 *         nothing is held and @p pkt is unchanged
 */
struct dpk_packet *dpk_packet_ref(struct dpk_packet *pkt, uint32_t offset);

/** True when @p pkt's own buffer or metadata is shared: it has another holder, or a
 * packet made by dpk_packet_ref() shares data in its buffer. A reference made from a
 * referencing @p pkt shares the buffer of @p pkt's owner, not @p pkt's, and does not make
 * this true. */
static inline bool dpk_packet_has_ref(const struct dpk_packet *pkt);

/** True when @p pkt was made by dpk_packet_ref(): it holds the owner of its shared data
 * until it is freed, even once pull or trim have left none of that data in it. */
static inline bool dpk_packet_is_referencing(const struct dpk_packet *pkt);

#include <dpk/impl/packet.h>

#ifdef __cplusplus
}
#endif

#endif /* DPK_PACKET_H */
