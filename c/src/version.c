/* SPDX-License-Identifier: BSD-3-Clause */
/* The version of the library itself, which a program may compare with the
   headers it was compiled with (HSPLIT_VERSION_*). */
#include "hsplit_internal.h"

int HSPLIT_Get_version(int *major, int *minor, int *patch)
{
    if (major != NULL) *major = HSPLIT_VERSION_MAJOR;
    if (minor != NULL) *minor = HSPLIT_VERSION_MINOR;
    if (patch != NULL) *patch = HSPLIT_VERSION_PATCH;
    return MPI_SUCCESS;
}
