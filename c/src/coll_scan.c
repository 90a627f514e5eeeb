/* SPDX-License-Identifier: BSD-3-Clause */
#include "hsplit_internal.h"
