/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI's Fortran entry points (placeholder: filled in below). */
#include "pmpi_internal.h"
