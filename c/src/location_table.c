/* The node and the binding of every process of a communicator, exchanged once
   (collectively) and cached on the communicator, so that later queries are
   local. MPI_Comm_dup shares the table. */
#include <stdatomic.h>
#include <stdlib.h>
#include "hsplit_internal.h"

struct table_with_count {
    hsplit_location_table table;
    atomic_int refcount;
};

static void table_release(struct table_with_count *t)
{
    if (atomic_fetch_sub(&t->refcount, 1) == 1) {
        free(t->table.node_key);
        free(t->table.binding_words);
        free(t);
    }
}

int hsplit_location_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                         int *flag)
{
    (void)comm; (void)keyval; (void)extra;
    struct table_with_count *t = in;
    atomic_fetch_add(&t->refcount, 1);
    *(void **)out = t;
    *flag = 1;
    return MPI_SUCCESS;
}

int hsplit_location_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    table_release(value);
    return MPI_SUCCESS;
}

/* Exchange the locations over comm. Returns an agreed HSPLIT kind. */
static int table_build(MPI_Comm comm, const hsplit_context *ctx, struct table_with_count **out)
{
    int kind = ctx == NULL ? HSPLIT_KIND_ERR_INTERN : ctx->error_kind;
    int node = 0, size, agreed;
    if (ctx != NULL && hsplit_node_key(ctx, comm, &node) != MPI_SUCCESS && kind == HSPLIT_KIND_OK)
        kind = HSPLIT_KIND_ERR_OTHER;
    MPI_Comm_size(comm, &size);
    struct table_with_count *t = calloc(1, sizeof *t);
    unsigned long *mine = ctx != NULL ? calloc((size_t)ctx->nwords, sizeof *mine) : NULL;
    if (kind == HSPLIT_KIND_OK) {
        if (t != NULL && mine != NULL) {
            t->table.size = size;
            t->table.nwords = ctx->nwords;
            t->table.node_key = malloc(sizeof(int) * (size_t)size);
            t->table.binding_words = malloc(sizeof(unsigned long) * (size_t)size * (size_t)ctx->nwords);
        }
        if (t == NULL || mine == NULL || t->table.node_key == NULL || t->table.binding_words == NULL)
            kind = HSPLIT_KIND_ERR_INTERN;
    }
    if (MPI_Allreduce(&kind, &agreed, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        agreed = HSPLIT_KIND_ERR_OTHER;
    if (agreed == HSPLIT_KIND_OK) {
        hsplit_bitmap_to_words(ctx->binding, ctx->nwords, mine);
        if (MPI_Allgather(&node, 1, MPI_INT, t->table.node_key, 1, MPI_INT, comm) != MPI_SUCCESS ||
            MPI_Allgather(mine, ctx->nwords, MPI_UNSIGNED_LONG, t->table.binding_words,
                          ctx->nwords, MPI_UNSIGNED_LONG, comm) != MPI_SUCCESS)
            agreed = HSPLIT_KIND_ERR_OTHER;
    }
    free(mine);
    if (agreed != HSPLIT_KIND_OK) {
        if (t != NULL) {
            free(t->table.node_key);
            free(t->table.binding_words);
            free(t);
        }
        return agreed;
    }
    atomic_init(&t->refcount, 1);
    *out = t;
    return HSPLIT_KIND_OK;
}

int hsplit_location_table_get(MPI_Comm comm, const hsplit_location_table **table)
{
    const hsplit_registry *reg = hsplit_get_registry();
    if (reg == NULL)
        return HSPLIT_KIND_ERR_INTERN;
    struct table_with_count *t = NULL;
    int found = 0;
    MPI_Comm_get_attr(comm, reg->location_keyval, &t, &found);
    if (!found) {
        int kind = table_build(comm, hsplit_get_context(), &t);
        if (kind != HSPLIT_KIND_OK)
            return kind;
        if (MPI_Comm_set_attr(comm, reg->location_keyval, t) != MPI_SUCCESS) {
            table_release(t);
            return HSPLIT_KIND_ERR_OTHER;
        }
    }
    *table = &t->table;
    return HSPLIT_KIND_OK;
}
