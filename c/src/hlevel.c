/* SPDX-License-Identifier: BSD-3-Clause */
/* Level info of the communicators made by a split (paper 3.3.1, 4.1.3): kept as
   an attribute so that MPI_Comm_dup copies it and MPI_Comm_free frees it. */
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

int hsplit_hlevel_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                       int *flag)
{
    (void)comm; (void)keyval; (void)extra;
    hsplit_hlevel *copy = malloc(sizeof *copy);
    if (copy == NULL)
        return MPI_ERR_NO_MEM;
    memcpy(copy, in, sizeof *copy);
    *(void **)out = copy;
    *flag = 1;
    return MPI_SUCCESS;
}

int hsplit_hlevel_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    free(value);
    return MPI_SUCCESS;
}

int hsplit_hlevel_attach(MPI_Comm comm, const hsplit_hlevel *level)
{
    const hsplit_context *ctx = hsplit_get_context();
    if (ctx == NULL)
        return MPI_ERR_INTERN;
    hsplit_hlevel *copy = malloc(sizeof *copy);
    if (copy == NULL)
        return MPI_ERR_NO_MEM;
    *copy = *level;
    int rc = MPI_Comm_set_attr(comm, ctx->hlevel_keyval, copy);
    if (rc != MPI_SUCCESS)
        free(copy);
    return rc;
}

int HSPLIT_Comm_get_hlevel_info(MPI_Comm comm, int *num_comms, int *index, char *type,
                                int *resultlen)
{
    int kind = hsplit_check_intracomm(comm);
    if (kind == HSPLIT_KIND_OK && (num_comms == NULL || index == NULL || type == NULL ||
                                   resultlen == NULL))
        kind = HSPLIT_KIND_ERR_ARG;
    const hsplit_context *ctx = kind == HSPLIT_KIND_OK ? hsplit_get_context() : NULL;
    if (kind == HSPLIT_KIND_OK && ctx == NULL)
        kind = HSPLIT_KIND_ERR_INTERN;
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);
    hsplit_hlevel *level = NULL;
    int found = 0;
    MPI_Comm_get_attr(comm, ctx->hlevel_keyval, &level, &found);
    if (!found)
        return hsplit_raise(comm, HSPLIT_ERR_NOT_HLEVEL);
    *num_comms = level->num_comms;
    *index = level->index;
    strcpy(type, level->type);
    *resultlen = (int)strlen(level->type);
    return MPI_SUCCESS;
}
