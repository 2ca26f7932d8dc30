/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DPK_RING_H
#error "include <dpk/ring.h>, not <dpk/impl/ring.h>"
#endif
