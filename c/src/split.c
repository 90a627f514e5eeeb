/* SPDX-License-Identifier: BSD-3-Clause */
/* The split: colours from the hardware topology, then MPI_Comm_split
   (paper section 4.1, algorithms 1 and 2). */
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

enum { WORD_BITS = 8 * sizeof(unsigned long) };

int hsplit_check_intracomm(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return HSPLIT_KIND_ERR_COMM;
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return HSPLIT_KIND_ERR_COMM;
    return HSPLIT_KIND_OK;
}

/* Colour of this process and the number of possible colours, for one split.
   Colours are 64-bit: node indices can be anywhere in [0, INT_MAX], and a
   guided colour is node x slots. */
typedef struct {
    int64_t colour;    /* NO_COLOUR: no new communicator */
    int64_t ncolours;
    char name[HSPLIT_MAX_HLEVEL_NAME];
    char resource[MPI_MAX_OBJECT_NAME]; /* the switch or node: the new
                                           communicator's MPI name, or "" */
} split_colour;

enum { NO_COLOUR = -1, FAILED_COLOUR = -2 };

static void set_name(split_colour *c, const char *name)
{
    strncpy(c->name, name, HSPLIT_MAX_HLEVEL_NAME - 1);
    c->name[HSPLIT_MAX_HLEVEL_NAME - 1] = '\0';
}

static void set_resource(split_colour *c, const char *resource)
{
    size_t n = strlen(resource);
    if (n >= sizeof c->resource) n = sizeof c->resource - 1; /* cut if too long */
    memcpy(c->resource, resource, n);
    c->resource[n] = '\0';
}

/* Several nodes, no network information: one colour per node. */
static void node_colour(const hsplit_context *ctx, int64_t node_offset, int64_t nnodes,
                        split_colour *c)
{
    c->colour = node_offset;
    c->ncolours = nnodes;
    set_name(c, "Machine");
    set_resource(c, ctx->net.node_name);
}

/* Several nodes under a switch tree: the children of the deepest switch
   above every node of comm (the implicit root when they share none). A
   process whose node hangs from that switch takes its node's colour; one
   under a child switch takes the colour of the switch's first node, in node
   order (key: the emulated node, or the lowest world rank of the node). So
   colours of different children never meet and switches are ordered like
   their nodes. Local: every location of comm is known (location_table.c). */
static int network_colour(hsplit_context *ctx, const hsplit_rankmap *map, int node,
                          int min_node, int64_t nnodes, split_colour *c)
{
    const hsplit_network *net = &ctx->net;
    unsigned long path[HSPLIT_MAX_SWITCH_LEVELS];
    int64_t id;
    int len, common = net->own_len;
    c->ncolours = nnodes; /* the same everywhere, even if a lookup fails below */
    for (int r = 0; r < map->n && common > 0; r++) {
        if (hsplit_network_location_of(ctx, hsplit_rankmap_lookup(map, r), &id, path, &len) != 0)
            return MPI_ERR_INTERN;
        int k = 0;
        while (k < common && k < len && path[k] == net->own_path[k]) k++;
        common = k;
    }
    node_colour(ctx, (int64_t)node - min_node, nnodes, c);
    if (common == net->own_len)
        return MPI_SUCCESS; /* my node hangs from the deepest common switch */
    unsigned long child = net->own_path[common];
    int64_t key = node;
    for (int r = 0; r < map->n; r++) {
        int w = hsplit_rankmap_lookup(map, r);
        if (hsplit_network_location_of(ctx, w, &id, path, &len) != 0)
            return MPI_ERR_INTERN;
        int64_t k = ctx->emulated_nodes ? id : w;
        if (len > common && path[common] == child && k < key)
            key = k;
    }
    c->colour = key - min_node;
    set_name(c, "Switch");
    set_resource(c, net->own_names[common]);
    return MPI_SUCCESS;
}

/* One node: the children of the deepest object holding every binding. */
static int physical_colour_on_node(const hsplit_context *ctx, MPI_Comm comm, split_colour *c)
{
    unsigned long *mine = calloc((size_t)ctx->nwords * 2, sizeof(unsigned long));
    hwloc_bitmap_t all = hwloc_bitmap_alloc();
    int rc = mine != NULL && all != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        unsigned long *union_words = mine + ctx->nwords;
        hsplit_bitmap_to_words(ctx->binding, ctx->nwords, mine);
        rc = MPI_Allreduce(mine, union_words, ctx->nwords, MPI_UNSIGNED_LONG, MPI_BOR, comm);
        if (rc == MPI_SUCCESS) {
            hsplit_bitmap_from_words(all, ctx->nwords, union_words);
            /* no process bound anywhere (what an invalid launcher local rank
               leaves): an empty set lies inside every object, so no object
               would make a strict subset; nothing splits, like processes
               that share one PU */
            hwloc_obj_t ancestor = hsplit_covering_object(ctx->topo, all);
            unsigned arity = hwloc_bitmap_iszero(all) ? 0 : ancestor->arity;
            c->ncolours = (int64_t)arity;
            for (unsigned i = 0; i < arity; i++) {
                hwloc_obj_t child = ancestor->children[i];
                if (hwloc_bitmap_isincluded(ctx->binding, child->cpuset)) {
                    c->colour = (int64_t)i;
                    set_name(c, hsplit_level_name(ctx->topo, child));
                    break;
                }
            }
        }
    }
    hwloc_bitmap_free(all);
    free(mine);
    return rc;
}

/* HW_GUIDED: the object of the requested type that holds the binding, on its node. */
static void guided_colour(const hsplit_context *ctx, hwloc_obj_type_t type, int64_t node_offset,
                          int64_t nnodes, split_colour *c)
{
    if (type == HWLOC_OBJ_MACHINE) {
        c->colour = node_offset;
        c->ncolours = nnodes;
    } else {
        int nslots = 0;
        int slot = hsplit_object_slot(ctx->topo, type, ctx->binding, &nslots);
        c->ncolours = nnodes * nslots; /* < 2^32 x 2^31: no overflow */
        if (slot >= 0)
            c->colour = node_offset * nslots + slot;
    }
    set_name(c, hwloc_obj_type_string(type));
}

/* Colours present and this one's index among them, from one MPI_BOR over a
   bitmap of the possible colours, plus a word saying whether some process
   could not choose its colour (then every process learns it, and none goes
   on to MPI_Comm_split alone). Only for few possible colours. */
static int colour_rank_bitmap(MPI_Comm comm, int64_t colour, int64_t ncolours, int *index,
                              int *count, int *any_failed)
{
    size_t nwords = (size_t)(ncolours / WORD_BITS) + 1;
    unsigned long *mine = calloc((nwords + 1) * 2, sizeof(unsigned long));
    if (mine == NULL)
        return MPI_ERR_NO_MEM;
    unsigned long *present = mine + nwords + 1;
    if (colour >= 0)
        mine[colour / WORD_BITS] |= 1UL << (colour % WORD_BITS);
    mine[nwords] = colour == FAILED_COLOUR;
    int rc = MPI_Allreduce(mine, present, (int)nwords + 1, MPI_UNSIGNED_LONG, MPI_BOR, comm);
    *any_failed = rc == MPI_SUCCESS && present[nwords] != 0;
    *index = *count = 0;
    for (size_t w = 0; rc == MPI_SUCCESS && w < nwords; w++) {
        int bits = __builtin_popcountl(present[w]);
        *count += bits;
        if (colour >= 0 && (int64_t)w < colour / WORD_BITS)
            *index += bits;
        else if (colour >= 0 && (int64_t)w == colour / WORD_BITS)
            *index += __builtin_popcountl(present[w] & ((1UL << (colour % WORD_BITS)) - 1));
    }
    free(mine);
    return rc;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The same from every process's colour, for colours spread over a range far
   larger than the communicator (node indices up to INT_MAX): memory in the
   communicator's size, not in the range. */
static int colour_rank_gather(MPI_Comm comm, int64_t colour, int *index, int *count,
                              int *any_failed)
{
    int size;
    MPI_Comm_size(comm, &size);
    int64_t *all = malloc(sizeof(int64_t) * (size_t)size);
    if (all == NULL)
        return MPI_ERR_NO_MEM;
    int rc = MPI_Allgather(&colour, 1, MPI_INT64_T, all, 1, MPI_INT64_T, comm);
    *index = *count = *any_failed = 0;
    if (rc == MPI_SUCCESS) {
        qsort(all, (size_t)size, sizeof *all, compare_int64);
        for (int i = 0; i < size; i++) {
            if (all[i] == FAILED_COLOUR)
                *any_failed = 1;
            if (all[i] < 0 || (i > 0 && all[i] == all[i - 1]))
                continue;
            if (all[i] < colour)
                (*index)++;
            (*count)++;
        }
    }
    free(all);
    return rc;
}

/* Index of this colour among the colours present, how many are present, and
   whether some process failed; the same choice of method everywhere (ncolours
   and the size are). */
static int colour_rank(MPI_Comm comm, const split_colour *c, int failed, int *index,
                       int *count, int *any_failed)
{
    int size;
    MPI_Comm_size(comm, &size);
    int64_t colour = failed ? FAILED_COLOUR : c->colour;
    if (c->ncolours <= 65536 || c->ncolours <= (int64_t)size * WORD_BITS)
        return colour_rank_bitmap(comm, colour, c->ncolours, index, count, any_failed);
    return colour_rank_gather(comm, colour, index, count, any_failed);
}

/* Node key and node range of comm's processes. Every process must find its
   key the same way (collectively over comm for real nodes), so they first
   agree on errors, which include HSPLIT_NODES being set on some processes
   only (hsplit_agree): such a process then gets the same error as the others
   instead of waiting in a collective that they never enter. */
static int node_range(hsplit_context *ctx, MPI_Comm comm, int kind, int *node, int *min_node,
                      int64_t *nnodes)
{
    int emulated = ctx != NULL && ctx->emulated_nodes;
    *node = emulated ? ctx->node : 0;
    int in[2] = {-*node, *node}, out[2];
    kind = hsplit_agree(ctx, comm, kind, in, 2, out);
    if (kind != HSPLIT_KIND_OK)
        return kind;
    if (!emulated) {
        int rc = hsplit_node_key(ctx, comm, node);
        kind = rc == MPI_SUCCESS ? HSPLIT_KIND_OK : HSPLIT_KIND_ERR_OTHER;
        in[0] = -*node;
        in[1] = *node;
        kind = hsplit_agree(ctx, comm, kind, in, 2, out);
        if (kind != HSPLIT_KIND_OK)
            return kind;
    }
    *min_node = -out[0];
    *nnodes = (int64_t)out[1] - *min_node + 1; /* 64 bits: ids span [0, INT_MAX] */
    return HSPLIT_KIND_OK;
}

int hsplit_split(MPI_Comm comm, int mode, hwloc_obj_type_t guided_type, int guided_known,
                 int key, int local_kind, MPI_Comm *newcomm, int *num_comms,
                 char level_name[HSPLIT_MAX_HLEVEL_NAME])
{
    *newcomm = MPI_COMM_NULL;
    *num_comms = 0;
    hsplit_context *ctx = hsplit_get_context();
    int kind = local_kind;
    if (ctx == NULL)
        kind = HSPLIT_KIND_ERR_INTERN;
    else if (kind == HSPLIT_KIND_OK)
        kind = ctx->error_kind;

    /* Agree on errors before anything that could hang, and on the node range. */
    int node = 0, min_node = 0;
    int64_t nnodes = 1;
    kind = node_range(ctx, comm, kind, &node, &min_node, &nnodes);
    if (kind != HSPLIT_KIND_OK)
        return kind;
    /* the parent's rank map (made, collectively, if the library meets comm for
       the first time) so that every new communicator gets its own by composition */
    const hsplit_rankmap *parent_map;
    kind = hsplit_comm_rankmap(comm, &parent_map);
    if (kind != HSPLIT_KIND_OK)
        return kind;

    split_colour c = {NO_COLOUR, 0, "", ""};
    int64_t node_offset = (int64_t)node - min_node;
    int rc = MPI_SUCCESS;
    if (mode == HSPLIT_SPLIT_GUIDED) {
        if (guided_known)
            guided_colour(ctx, guided_type, node_offset, nnodes, &c);
    } else if (nnodes > 1 && ctx->net.source != HSPLIT_NETWORK_NONE) {
        rc = network_colour(ctx, parent_map, node, min_node, nnodes, &c);
    } else if (nnodes > 1) {
        node_colour(ctx, node_offset, nnodes, &c);
    } else {
        rc = physical_colour_on_node(ctx, comm, &c);
    }
    int index = 0, any_failed = 0;
    int crc = colour_rank(comm, &c, rc != MPI_SUCCESS, &index, num_comms, &any_failed);
    if (rc == MPI_SUCCESS)
        rc = crc != MPI_SUCCESS ? crc : any_failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    /* the index is the colour: dense, an int whatever the range of colours.
       No colour anywhere (agreed): every process would get MPI_COMM_NULL, so
       no MPI_Comm_split, whose context-id agreement is a collective that
       threads making communicators must take turns for (user guide, 3.1) */
    if (rc == MPI_SUCCESS && *num_comms == 0)
        *newcomm = MPI_COMM_NULL;
    else if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(comm, c.colour >= 0 ? index : MPI_UNDEFINED, key, newcomm);
    if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL) {
        hsplit_hlevel level = {*num_comms, index, ""};
        memcpy(level.type, c.name, sizeof level.type);
        memcpy(level_name, c.name, HSPLIT_MAX_HLEVEL_NAME);
        rc = hsplit_hlevel_attach(*newcomm, &level);
        if (rc == MPI_SUCCESS)
            rc = hsplit_attach_child_rankmap(comm, *newcomm);
        if (rc == MPI_SUCCESS && c.resource[0] != '\0')
            rc = MPI_Comm_set_name(*newcomm, c.resource);
    }
    return rc == MPI_SUCCESS ? HSPLIT_KIND_OK : HSPLIT_KIND_ERR_OTHER;
}

/* PHYSICAL_TOPOLOGY split in parent-rank order, plus the roots communicator. */
static int split_with_roots(MPI_Comm comm, int local_kind, MPI_Comm *newcomm,
                            MPI_Comm *rootscomm)
{
    int rank, num_comms, new_rank = -1;
    char name[HSPLIT_MAX_HLEVEL_NAME];
    *rootscomm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &rank);
    int kind = hsplit_split(comm, HSPLIT_SPLIT_PHYSICAL, HWLOC_OBJ_MACHINE, 0, rank,
                            local_kind, newcomm, &num_comms, name);
    if (kind != HSPLIT_KIND_OK || num_comms == 0)
        return kind;
    if (*newcomm != MPI_COMM_NULL)
        MPI_Comm_rank(*newcomm, &new_rank);
    if (MPI_Comm_split(comm, new_rank == 0 ? 0 : MPI_UNDEFINED, rank, rootscomm) != MPI_SUCCESS ||
        (*rootscomm != MPI_COMM_NULL && hsplit_attach_child_rankmap(comm, *rootscomm) != MPI_SUCCESS)) {
        if (*rootscomm != MPI_COMM_NULL)
            MPI_Comm_free(rootscomm);
        if (*newcomm != MPI_COMM_NULL)
            MPI_Comm_free(newcomm);
        return HSPLIT_KIND_ERR_OTHER;
    }
    return HSPLIT_KIND_OK;
}

int HSPLIT_Comm_hsplit_with_roots(MPI_Comm oldcomm, MPI_Info info, MPI_Comm *newcomm,
                                  MPI_Comm *rootscomm)
{
    (void)info; /* no hints are defined yet */
    int kind = hsplit_check_intracomm(oldcomm);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(oldcomm, kind);
    int local_kind = newcomm == NULL || rootscomm == NULL ? HSPLIT_KIND_ERR_ARG
                                                          : HSPLIT_KIND_OK;
    MPI_Comm out, roots;
    kind = split_with_roots(oldcomm, local_kind, &out, &roots);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(oldcomm, kind);
    *newcomm = out;
    *rootscomm = roots;
    return MPI_SUCCESS;
}

int HSPLIT_Comm_hsplit_all(MPI_Comm comm, MPI_Info info, int maxlevels, int *nlevels,
                           MPI_Comm newcomms[], MPI_Comm rootscomms[])
{
    (void)info;
    int kind = hsplit_check_intracomm(comm);
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);
    int local_kind = maxlevels < 0 || nlevels == NULL || (maxlevels > 0 && newcomms == NULL)
                         ? HSPLIT_KIND_ERR_ARG : HSPLIT_KIND_OK;
    if (maxlevels <= 0) {
        if (local_kind == HSPLIT_KIND_OK)
            *nlevels = 0;
        return hsplit_raise(comm, local_kind);
    }
    int n = 0;
    MPI_Comm parent = comm;
    while (n < maxlevels) {
        MPI_Comm level, roots;
        kind = split_with_roots(parent, n == 0 ? local_kind : HSPLIT_KIND_OK, &level, &roots);
        if (kind != HSPLIT_KIND_OK || level == MPI_COMM_NULL)
            break;
        newcomms[n] = level;
        if (rootscomms != NULL)
            rootscomms[n] = roots;
        else if (roots != MPI_COMM_NULL)
            MPI_Comm_free(&roots);
        parent = level;
        n++;
    }
    if (kind != HSPLIT_KIND_OK) {
        for (int i = 0; i < n; i++) {
            MPI_Comm_free(&newcomms[i]);
            if (rootscomms != NULL && rootscomms[i] != MPI_COMM_NULL)
                MPI_Comm_free(&rootscomms[i]);
        }
        return hsplit_raise(comm, kind);
    }
    for (int i = n; i < maxlevels; i++) {
        newcomms[i] = MPI_COMM_NULL;
        if (rootscomms != NULL)
            rootscomms[i] = MPI_COMM_NULL;
    }
    *nlevels = n;
    return MPI_SUCCESS;
}
