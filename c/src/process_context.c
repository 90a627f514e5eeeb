/* SPDX-License-Identifier: BSD-3-Clause */
/* What the calling process knows of itself: the node topology, its binding
   and, when emulated, its node. Built once per process from the environment
   (or the real machine) and kept as an attribute of MPI_COMM_SELF, so that
   MPI_Finalize frees it and every simulated rank of SMPI has its own. */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

static const char *env_value(const char *name)
{
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' ? value : NULL;
}

/* The local rank that the launcher gives, for emulated bindings on real
   nodes: the first of its variables that is set, else the MPI_COMM_WORLD
   rank (one node). A value that is no local rank, not a decimal integer in
   [0, world size), is an error (HSPLIT_ERR_BIND, msg names the variable):
   read with atoi, garbage was 0 and a negative value gave an empty binding. */
static int launcher_local_rank(const hsplit_context *ctx, int *local_rank, char *msg,
                               size_t msglen)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "PMI_LOCAL_RANK", "SLURM_LOCALID"};
    *local_rank = ctx->world_rank;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *value = env_value(names[i]);
        if (value == NULL)
            continue;
        long v = 0;
        const char *p = value;
        for (; isdigit((unsigned char)*p) && v < ctx->world_size; p++)
            v = v * 10 + (*p - '0');
        if (*p != '\0' || v >= ctx->world_size) {
            /* cut to msglen (MPI_MAX_ERROR_STRING: 100 under SMPI) on purpose:
               the start names the variable */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
            snprintf(msg, msglen, "hsplit: HSPLIT_BIND needs this process's local rank, "
                     "but the launcher's %s=\"%.40s%s\" is not one: expected an integer "
                     "from 0 to %d (MPI_COMM_WORLD has %d processes)", names[i], value,
                     hsplit_ellipsis(value, 40), ctx->world_size - 1, ctx->world_size);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
            return HSPLIT_ERR_BIND;
        }
        *local_rank = (int)v;
        return HSPLIT_KIND_OK;
    }
    return HSPLIT_KIND_OK;
}

/* A code of ctx->error_kind's class whose string is msg: what is wrong with
   this process's own settings. SMPI has neither: the class's fixed code
   stands (error_code 0). */
static void own_error_code(hsplit_context *ctx, const char *msg)
{
#if HSPLIT_UNDER_SMPI
    (void)ctx; (void)msg;
#else
    const hsplit_registry *reg = hsplit_get_registry();
    if (reg != NULL &&
        MPI_Add_error_code(reg->classes[ctx->error_kind], &ctx->error_code) == MPI_SUCCESS &&
        MPI_Add_error_string(ctx->error_code, msg) != MPI_SUCCESS)
        ctx->error_code = 0;
#endif
}

/* A variable's own error: the message echoes its value, cut at 48
   characters with hsplit_ellipsis (MPI_MAX_ERROR_STRING is 256 in Open MPI). */
static void variable_error(hsplit_context *ctx, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    own_error_code(ctx, msg);
}

static int real_binding(hwloc_topology_t topo, hwloc_bitmap_t binding)
{
    if (hwloc_get_cpubind(topo, binding, HWLOC_CPUBIND_PROCESS) != 0 &&
        hwloc_get_cpubind(topo, binding, HWLOC_CPUBIND_THREAD) != 0)
        return HSPLIT_ERR_HWLOC;
    hwloc_bitmap_and(binding, binding, hwloc_topology_get_topology_cpuset(topo));
    if (hwloc_bitmap_iszero(binding)) /* bound outside what hwloc sees: unbound */
        hwloc_bitmap_copy(binding, hwloc_topology_get_topology_cpuset(topo));
    return HSPLIT_KIND_OK;
}

/* The network description; an error gets its own error code, whose string
   names the file and line (or the variable) at fault. */
static void network_fill(hsplit_context *ctx)
{
    char msg[MPI_MAX_ERROR_STRING];
    msg[0] = '\0';
    ctx->error_kind = hsplit_network_load(ctx, msg, sizeof msg);
    if (ctx->error_kind == HSPLIT_ERR_NETWORK)
        own_error_code(ctx, msg);
}

static void context_fill(hsplit_context *ctx)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx->world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx->world_size);
    const char *topology_spec = env_value("HSPLIT_TOPOLOGY");
    const char *nodes_spec = env_value("HSPLIT_NODES");
    const char *bind_spec = env_value("HSPLIT_BIND");

    char msg[MPI_MAX_ERROR_STRING] = "";
    ctx->error_kind = hsplit_topology_load_msg(topology_spec, &ctx->topo, msg, sizeof msg);
    if (ctx->error_kind != HSPLIT_KIND_OK) {
        /* the string of this process's error says what is wrong (a limit,
           not a regular file, not loadable) */
        if (ctx->error_kind == HSPLIT_ERR_TOPOLOGY && msg[0] != '\0')
            own_error_code(ctx, msg);
        return;
    }
    ctx->nwords = hsplit_cpuset_words(ctx->topo);
    int local_rank = ctx->world_rank;
    if (nodes_spec != NULL) {
        ctx->emulated_nodes = 1; /* even when malformed: every process agrees */
        ctx->error_kind = hsplit_parse_nodes(nodes_spec, ctx->world_size, &ctx->nodes);
        if (ctx->error_kind == HSPLIT_ERR_NODES)
            variable_error(ctx, "hsplit: HSPLIT_NODES=\"%.48s%s\" is malformed: expected K "
                           "(blocks of K ranks), cyclic:N, or one non-negative node index per "
                           "MPI_COMM_WORLD rank (%d here), comma-separated", nodes_spec,
                           hsplit_ellipsis(nodes_spec, 48), ctx->world_size);
        if (ctx->error_kind != HSPLIT_KIND_OK)
            return;
        hsplit_node_of(&ctx->nodes, ctx->world_rank, &ctx->node, &local_rank);
    }
    ctx->binding = hwloc_bitmap_alloc();
    if (ctx->binding == NULL) {
        ctx->error_kind = HSPLIT_KIND_ERR_INTERN;
        return;
    }
    /* An emulated topology has no real binding: HSPLIT_BIND defaults to core. */
    int emulated_binding = bind_spec != NULL || topology_spec != NULL;
    if (emulated_binding && nodes_spec == NULL) { /* local rank from the launcher */
        char msg[MPI_MAX_ERROR_STRING];
        ctx->error_kind = launcher_local_rank(ctx, &local_rank, msg, sizeof msg);
        if (ctx->error_kind != HSPLIT_KIND_OK) {
            own_error_code(ctx, msg);
            return;
        }
    }
    if (emulated_binding) {
        ctx->error_kind = hsplit_emulated_binding(ctx->topo, bind_spec, local_rank, ctx->binding);
        if (ctx->error_kind == HSPLIT_ERR_BIND && bind_spec != NULL)
            variable_error(ctx, "hsplit: HSPLIT_BIND=\"%.48s%s\" is malformed or gives "
                           "this process (local rank %d) no object of the topology: expected "
                           "none, an object type, or a ';'-list with one type:index or cpuset "
                           "item per process of the node", bind_spec,
                           hsplit_ellipsis(bind_spec, 48), local_rank);
    } else
        ctx->error_kind = real_binding(ctx->topo, ctx->binding);
    if (bind_spec != NULL && (ctx->bind_spec = strdup(bind_spec)) == NULL)
        ctx->error_kind = HSPLIT_KIND_ERR_INTERN;
    if (ctx->error_kind == HSPLIT_KIND_OK)
        network_fill(ctx);
    /* emulated nodes and bindings: every process's location can be computed,
       unless each process holds its own switch path (Slurm addresses) */
    ctx->locations_computed = ctx->emulated_nodes && emulated_binding &&
                              ctx->net.source != HSPLIT_NETWORK_SLURM &&
                              ctx->error_kind == HSPLIT_KIND_OK;
}

/* The keyvals of the attributes this process puts on communicators. */
static int create_keyvals(hsplit_context *ctx)
{
    ctx->hlevel_keyval = ctx->rankmap_keyval = ctx->hierarchy_keyval = MPI_KEYVAL_INVALID;
    int rc = MPI_Comm_create_keyval(hsplit_hlevel_copy, hsplit_hlevel_delete,
                                    &ctx->hlevel_keyval, NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(hsplit_rankmap_attr_copy, hsplit_rankmap_attr_delete,
                                    &ctx->rankmap_keyval, NULL);
    /* A duplicate builds its own hierarchy: its collectives must not share
       the internal communicators of the original. */
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, hsplit_hierarchy_delete,
                                    &ctx->hierarchy_keyval, NULL);
    return rc;
}

/* Attributes still set keep their keyval alive until they are deleted. */
static void free_keyvals(hsplit_context *ctx)
{
    int *keyvals[] = {&ctx->hlevel_keyval, &ctx->rankmap_keyval, &ctx->hierarchy_keyval};
    for (size_t i = 0; i < sizeof keyvals / sizeof keyvals[0]; i++)
        if (*keyvals[i] != MPI_KEYVAL_INVALID)
            MPI_Comm_free_keyval(keyvals[i]);
}

static void context_free(hsplit_context *ctx)
{
    if (hsplit_mpi_usable())
        free_keyvals(ctx);
    pthread_mutex_destroy(&ctx->live_lock);
    hsplit_locations_free(ctx);
    hsplit_network_free(&ctx->net);
    if (ctx->binding != NULL)
        hwloc_bitmap_free(ctx->binding);
    if (ctx->topo != NULL)
        hwloc_topology_destroy(ctx->topo);
    free(ctx);
}

int hsplit_context_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    /* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still
       works (not under SMPI: see hsplit_mpi_usable): the internal
       communicators of hierarchies cached on communicators that are never
       freed (MPI_COMM_WORLD) are freed here. */
    hsplit_hierarchy_release_all(value);
    context_free(value);
    return MPI_SUCCESS;
}

/* Serialises the first build when several threads of a process call at
   once. Under SMPI each rank has its own MPI_COMM_SELF, a rank is one
   thread (SMPI has no MPI_THREAD_MULTIPLE), and a lock shared by the ranks
   and held by one that MPI switches out would block them all: no lock. */
#if HSPLIT_UNDER_SMPI
static void context_lock_acquire(void) {}
static void context_lock_release(void) {}
#else
static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static void context_lock_acquire(void) { pthread_mutex_lock(&context_lock); }
static void context_lock_release(void) { pthread_mutex_unlock(&context_lock); }
#endif

hsplit_context *hsplit_get_context(void)
{
    const hsplit_registry *reg = hsplit_get_registry();
    if (reg == NULL)
        return NULL;
    hsplit_context *ctx = NULL;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_SELF, reg->context_keyval, &ctx, &found);
    if (found)
        return ctx;
    context_lock_acquire();
    MPI_Comm_get_attr(MPI_COMM_SELF, reg->context_keyval, &ctx, &found);
    if (!found) {
        ctx = calloc(1, sizeof *ctx);
        if (ctx != NULL) {
            pthread_mutex_init(&ctx->live_lock, NULL);
            pthread_mutex_init(&ctx->table_lock, NULL);
            int rc = create_keyvals(ctx);
            if (rc == MPI_SUCCESS)
                context_fill(ctx);
            if (rc != MPI_SUCCESS ||
                MPI_Comm_set_attr(MPI_COMM_SELF, reg->context_keyval, ctx) != MPI_SUCCESS) {
                context_free(ctx);
                ctx = NULL;
            }
        }
    }
    context_lock_release();
    return ctx;
}

int hsplit_node_key(const hsplit_context *ctx, MPI_Comm comm, int *key)
{
    if (ctx->emulated_nodes) {
        *key = ctx->node;
        return MPI_SUCCESS;
    }
    MPI_Comm shared;
    int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, ctx->world_rank,
                                 MPI_INFO_NULL, &shared);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Allreduce(&ctx->world_rank, key, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    return rc;
}

int hsplit_agree(const hsplit_context *ctx, MPI_Comm comm, int kind, const int *extra,
                 int nextra, int *extra_max)
{
    enum { FIXED = 5, MAX_EXTRA = 4 };
    int fingerprint = ctx != NULL ? ctx->net.fingerprint : 0;
    int emulated = ctx != NULL && ctx->emulated_nodes;
    int in[FIXED + MAX_EXTRA] = {kind, fingerprint, -fingerprint, emulated, -emulated};
    int out[FIXED + MAX_EXTRA];
    for (int i = 0; i < nextra && i < MAX_EXTRA; i++) in[FIXED + i] = extra[i];
    if (MPI_Allreduce(in, out, FIXED + nextra, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return HSPLIT_KIND_ERR_OTHER;
    for (int i = 0; i < nextra && i < MAX_EXTRA; i++) extra_max[i] = out[FIXED + i];
    if (out[0] != HSPLIT_KIND_OK)
        return out[0];
    /* HSPLIT_NODES set on some processes only: their nodes could not be
       compared with the others' (and real node keys are collective) */
    if (out[3] != -out[4])
        return HSPLIT_ERR_NODES;
    if (out[1] != -out[2])
        return HSPLIT_ERR_NETWORK; /* not every process reads the network alike */
    return HSPLIT_KIND_OK;
}
