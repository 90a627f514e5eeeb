/* SPDX-License-Identifier: BSD-3-Clause */
/* The constants of hsplit.h as the C compiler sees them, for the Fortran
   tests to compare with the named constants of hsplit_f08. */
#include <string.h>
#include "hsplit.h"

void hsplit_test_c_constants(int values[19]);
void hsplit_test_c_info_key(char key[64], int *len);

void hsplit_test_c_constants(int values[19])
{
    const int all[19] = {HSPLIT_VERSION_MAJOR, HSPLIT_VERSION_MINOR, HSPLIT_VERSION_PATCH,
                         HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, HSPLIT_COMM_TYPE_HW_UNGUIDED,
                         HSPLIT_COMM_TYPE_HW_GUIDED, HSPLIT_MAX_HLEVEL_NAME,
                         HSPLIT_ERR_TOPOLOGY, HSPLIT_ERR_NODES, HSPLIT_ERR_BIND,
                         HSPLIT_ERR_HWLOC, HSPLIT_ERR_NOT_HLEVEL, HSPLIT_ERR_RANK_REPEATED,
                         HSPLIT_ERR_GUIDED_INFO, HSPLIT_ERR_NETWORK,
                         HSPLIT_SOURCE_DEFAULT, HSPLIT_SOURCE_ENVIRONMENT,
                         HSPLIT_SOURCE_COMM_INFO, HSPLIT_SOURCE_SET_COLL_INFO};
    memcpy(values, all, sizeof all);
}

void hsplit_test_c_info_key(char key[64], int *len)
{
    *len = (int)strlen(HSPLIT_INFO_KEY_HW_RESOURCE_TYPE);
    memcpy(key, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, (size_t)*len);
}
