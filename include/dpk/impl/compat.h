/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpk/impl/compat.h - the C11 features dpkit's inline code uses, spelled so that its
 * headers compile as C11 and as C++17 or later with the same layout and behaviour.
 * Internal: the public headers include it, before their extern "C" block opens.
 *
 *   DPK__ATOMIC(T)            _Atomic(T) in C, std::atomic<T> in C++
 *   DPK__THREAD_LOCAL         _Thread_local in C; __thread in C++, whose thread_local
 *                             would make every read of an extern variable call a
 *                             wrapper that checks for a dynamic initialiser first
 *   DPK__ALIGNAS(n)           _Alignas(n) / alignas(n)
 *   DPK__STATIC_ASSERT(c, m)  _Static_assert(c, m) / static_assert(c, m)
 *
 * In C++ the calls and orders of <stdatomic.h> that the inline code names
 * (atomic_load_explicit(), memory_order_acquire, atomic_flag, ...) are brought into the
 * global namespace from std, as C++23's <stdatomic.h> does (a name the inline code starts
 * to use is added to the list); the C text of the inline functions is then the same in
 * both languages. Each atomic type a dpkit structure holds has the size and alignment of
 * its plain type in both languages (asserted below), so a structure has one layout
 * whichever language a file that includes it is written in.
 */
#ifndef DPK_IMPL_COMPAT_H
#define DPK_IMPL_COMPAT_H

#include <stdint.h>

#ifdef __cplusplus
#include <atomic>

#define DPK__ATOMIC(T)           std::atomic<T>
#define DPK__THREAD_LOCAL        __thread
#define DPK__ALIGNAS(n)          alignas(n)
#define DPK__STATIC_ASSERT(c, m) static_assert(c, m)
#define DPK__ALIGNOF(T)          alignof(T)

using std::atomic_compare_exchange_strong_explicit;
using std::atomic_compare_exchange_weak_explicit;
using std::atomic_fetch_add_explicit;
using std::atomic_fetch_sub_explicit;
using std::atomic_flag;
using std::atomic_load_explicit;
using std::atomic_store_explicit;
using std::atomic_thread_fence;
using std::memory_order_acq_rel;
using std::memory_order_acquire;
using std::memory_order_relaxed;
using std::memory_order_release;
using std::memory_order_seq_cst;
#else
#include <stdatomic.h>

#define DPK__ATOMIC(T)           _Atomic(T)
#define DPK__THREAD_LOCAL        _Thread_local
#define DPK__ALIGNAS(n)          _Alignas(n)
#define DPK__STATIC_ASSERT(c, m) _Static_assert(c, m)
#define DPK__ALIGNOF(T)          _Alignof(T)
#endif

/* One layout in C and C++: an atomic word is as large as its plain word and aligned to its
 * size, and an atomic_flag is one byte. */
#define DPK__ATOMIC_NATURAL(T)                                                                     \
	(sizeof(DPK__ATOMIC(T)) == sizeof(T) && DPK__ALIGNOF(DPK__ATOMIC(T)) == sizeof(T))
DPK__STATIC_ASSERT(DPK__ATOMIC_NATURAL(uint32_t), "an atomic uint32_t is a natural uint32_t");
DPK__STATIC_ASSERT(DPK__ATOMIC_NATURAL(uint64_t), "an atomic uint64_t is a natural uint64_t");
DPK__STATIC_ASSERT(sizeof(atomic_flag) == 1 && DPK__ALIGNOF(atomic_flag) == 1,
                   "an atomic_flag is one byte");
#undef DPK__ATOMIC_NATURAL

#endif /* DPK_IMPL_COMPAT_H */
