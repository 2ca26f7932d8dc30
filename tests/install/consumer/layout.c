/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout list of layout.h, computed as C. */
#include "layout.h"

#define DPK_TEST_VALUE(v) (v),

const size_t dpk_test_layout_c[] = {DPK_TEST_LAYOUT(DPK_TEST_VALUE)};
const size_t dpk_test_layout_c_count = sizeof(dpk_test_layout_c) / sizeof(dpk_test_layout_c[0]);
