/* SPDX-License-Identifier: BSD-3-Clause */
/* Where every process is (node and binding), and the rank maps that lead
   there from any communicator the library knows.

   With emulated nodes and bindings, the location of any MPI_COMM_WORLD rank is
   computed from HSPLIT_NODES and HSPLIT_BIND: nothing is exchanged, and only
   the binding of each local rank is kept. Otherwise each process keeps one
   table for the whole world (not one per communicator): per world rank, a
   slot into the distinct node ids and a slot into the distinct bindings, both
   stored once, and, when there is a network, a slot into the distinct switch
   paths. The table is filled by one exchange over a communicator the
   first time the library meets it; the communicators the library derives
   from it get their rank maps by composition, without communication.

   The first meeting with a communicator that has no rank map yet is
   collective over it (errors agreed, and the exchange in table mode); its
   map comes from MPI_Comm_compare with MPI_COMM_WORLD (same processes, same
   order: direct) or MPI_Group_translate_ranks, both local MPI calls. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

enum { UNKNOWN_SLOT = 0xffffffffu };

typedef struct {
    hsplit_rankmap map;
} rankmap_attr;

int hsplit_rankmap_attr_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                             int *flag)
{
    (void)comm; (void)keyval; (void)extra;
    rankmap_attr *copy = malloc(sizeof *copy);
    if (copy == NULL) return MPI_ERR_NO_MEM;
    hsplit_rankmap_copy(&((rankmap_attr *)in)->map, &copy->map);
    *(void **)out = copy;
    *flag = 1;
    return MPI_SUCCESS;
}

int hsplit_rankmap_attr_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    hsplit_rankmap_free(&((rankmap_attr *)value)->map);
    free(value);
    return MPI_SUCCESS;
}

void hsplit_locations_free(hsplit_context *ctx)
{
    for (int i = 0; i < ctx->nlocal_bindings; i++)
        if (ctx->local_bindings[i] != NULL) hwloc_bitmap_free(ctx->local_bindings[i]);
    free(ctx->local_bindings);
    free(ctx->node_slot);
    free(ctx->binding_slot);
    free(ctx->node_ids);
    free(ctx->binding_words);
    free(ctx->path_slot);
    free(ctx->path_words);
    hsplit_node_map_free(&ctx->nodes);
    free(ctx->bind_spec);
    pthread_mutex_destroy(&ctx->table_lock);
}

/* Computed mode: the binding of a local rank, made once. Caller holds the lock. */
static hwloc_const_bitmap_t local_binding(hsplit_context *ctx, int local_rank)
{
    if (local_rank >= ctx->nlocal_bindings) {
        int n = local_rank + 1;
        hwloc_bitmap_t *grown = realloc(ctx->local_bindings, sizeof *grown * (size_t)n);
        if (grown == NULL) return NULL;
        for (int i = ctx->nlocal_bindings; i < n; i++) grown[i] = NULL;
        ctx->local_bindings = grown;
        ctx->nlocal_bindings = n;
    }
    if (ctx->local_bindings[local_rank] == NULL) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (set == NULL || hsplit_emulated_binding(ctx->topo, ctx->bind_spec, local_rank, set) !=
                               HSPLIT_KIND_OK) {
            hwloc_bitmap_free(set);
            return NULL;
        }
        ctx->local_bindings[local_rank] = set;
    }
    return ctx->local_bindings[local_rank];
}

int hsplit_location_of(hsplit_context *ctx, int world_rank, int64_t *node, hwloc_bitmap_t binding)
{
    int found = -1;
    pthread_mutex_lock(&ctx->table_lock);
    if (ctx->locations_computed) {
        int node_index, local;
        hsplit_node_of(&ctx->nodes, world_rank, &node_index, &local);
        hwloc_const_bitmap_t set = local_binding(ctx, local);
        if (set != NULL) {
            *node = node_index;
            hwloc_bitmap_copy(binding, set);
            found = 0;
        }
    } else if (ctx->node_slot != NULL && ctx->node_slot[world_rank] != UNKNOWN_SLOT) {
        *node = (int64_t)ctx->node_ids[ctx->node_slot[world_rank]];
        hsplit_bitmap_from_words(binding, ctx->nwords,
                                 ctx->binding_words + (size_t)ctx->binding_slot[world_rank] *
                                                          (size_t)ctx->nwords);
        found = 0;
    }
    pthread_mutex_unlock(&ctx->table_lock);
    return found;
}

int hsplit_network_location_of(hsplit_context *ctx, int world_rank, int64_t *node,
                               unsigned long path[HSPLIT_MAX_SWITCH_LEVELS], int *len)
{
    int found = -1;
    *len = 0;
    if (ctx->locations_computed) { /* no lock: nothing stored is read */
        int n = hsplit_node_index_of(&ctx->nodes, world_rank);
        *node = n;
        *len = hsplit_network_node_path(&ctx->net, n, path);
        return *len < 0 ? -1 : 0;
    }
    pthread_mutex_lock(&ctx->table_lock);
    if (ctx->node_slot != NULL && ctx->node_slot[world_rank] != UNKNOWN_SLOT) {
        *node = (int64_t)ctx->node_ids[ctx->node_slot[world_rank]];
        found = 0;
        if (ctx->path_slot != NULL) {
            const unsigned long *p = ctx->path_words + (size_t)ctx->path_slot[world_rank] *
                                                           HSPLIT_MAX_SWITCH_LEVELS;
            while (*len < HSPLIT_MAX_SWITCH_LEVELS && p[*len] != 0) {
                path[*len] = p[*len];
                (*len)++;
            }
        }
    }
    pthread_mutex_unlock(&ctx->table_lock);
    return found;
}

/* This process's node id in the table: the emulated node, or a hash of the
   host name (equal names, equal nodes). */
static int64_t own_node_id(const hsplit_context *ctx)
{
    if (ctx->emulated_nodes) return ctx->node;
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    uint64_t hash = 1469598103934665603ull; /* FNV-1a */
    for (int i = 0; i < len; i++) hash = (hash ^ (unsigned char)name[i]) * 1099511628211ull;
    return (int64_t)(hash >> 1);
}

/* The distinct values of one kind (node ids, bindings, switch paths) met
   in an exchange, found through an open-addressing hash set of their slots
   (O(1) expected per value, whatever the order of the ranks), freed after
   the exchange. The values themselves live in the context's table. */
typedef struct {
    unsigned long **table; /* the context's distinct values, nwords each */
    uint32_t *count;       /* how many */
    int nwords;
    uint32_t *buckets;     /* slot + 1, 0: empty; a power of two of them */
    uint32_t mask;
} slot_set;

static uint64_t words_hash(const unsigned long *value, int nwords)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < nwords; i++) {
        h ^= (uint64_t)value[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static void set_insert(slot_set *set, uint32_t slot)
{
    const unsigned long *value = *set->table + (size_t)slot * (size_t)set->nwords;
    uint32_t i = (uint32_t)words_hash(value, set->nwords) & set->mask;
    while (set->buckets[i] != 0) i = (i + 1) & set->mask;
    set->buckets[i] = slot + 1;
}

/* Room for twice the values at most: rehashes when half full. */
static bool set_reserve(slot_set *set, uint32_t values)
{
    uint32_t want = 16;
    while (want / 2 < values) {
        if (want > (UINT32_MAX >> 2)) return false;
        want *= 2;
    }
    if (set->buckets != NULL && set->mask + 1 >= want) return true;
    uint32_t *grown = calloc(want, sizeof *grown);
    if (grown == NULL) return false;
    free(set->buckets);
    set->buckets = grown;
    set->mask = want - 1;
    for (uint32_t slot = 0; slot < *set->count; slot++) set_insert(set, slot);
    return true;
}

/* A set over the values the table already holds. */
static bool set_open(slot_set *set, unsigned long **table, uint32_t *count, int nwords)
{
    set->table = table;
    set->count = count;
    set->nwords = nwords;
    set->buckets = NULL;
    set->mask = 0;
    return set_reserve(set, *count + 1);
}

static void set_close(slot_set *set)
{
    free(set->buckets);
    set->buckets = NULL;
}

/* Slot of a value among the distinct ones, added if new. */
static uint32_t slot_of(slot_set *set, const unsigned long *value)
{
    size_t bytes = sizeof *value * (size_t)set->nwords;
    uint32_t i = (uint32_t)words_hash(value, set->nwords) & set->mask;
    for (; set->buckets[i] != 0; i = (i + 1) & set->mask) {
        uint32_t slot = set->buckets[i] - 1;
        if (memcmp(*set->table + (size_t)slot * (size_t)set->nwords, value, bytes) == 0)
            return slot;
    }
    uint32_t slot = *set->count;
    if (slot == UNKNOWN_SLOT - 1 || !set_reserve(set, slot + 1)) return UNKNOWN_SLOT;
    unsigned long *grown = realloc(*set->table, bytes * ((size_t)slot + 1));
    if (grown == NULL) return UNKNOWN_SLOT;
    *set->table = grown;
    memcpy(grown + (size_t)slot * (size_t)set->nwords, value, bytes);
    (*set->count)++;
    set_insert(set, slot);
    return slot;
}

/* Table mode: the locations of comm's processes, into the world table. Each
   process sends its node id, its binding and, when there is a network, its
   switch path (padded with zeros to npath, the longest of comm). */
static int exchange_locations(hsplit_context *ctx, MPI_Comm comm, const hsplit_rankmap *map,
                              int npath)
{
    int size, has_network = ctx->net.source != HSPLIT_NETWORK_NONE;
    MPI_Comm_size(comm, &size);
    int stride = 1 + ctx->nwords + npath;
    unsigned long *mine = malloc(sizeof *mine * (size_t)stride);
    unsigned long *all = malloc(sizeof *all * (size_t)stride * (size_t)size);
    int rc = mine != NULL && all != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        mine[0] = (unsigned long)own_node_id(ctx);
        hsplit_bitmap_to_words(ctx->binding, ctx->nwords, mine + 1);
        for (int i = 0; i < npath; i++)
            mine[1 + ctx->nwords + i] = i < ctx->net.own_len ? ctx->net.own_path[i] : 0;
    }
    int ok = rc == MPI_SUCCESS, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    rc = all_ok ? MPI_Allgather(mine, stride, MPI_UNSIGNED_LONG, all, stride, MPI_UNSIGNED_LONG,
                                comm)
                : MPI_ERR_NO_MEM;
    pthread_mutex_lock(&ctx->table_lock);
    if (rc == MPI_SUCCESS && ctx->node_slot == NULL) {
        ctx->node_slot = malloc(sizeof(uint32_t) * (size_t)ctx->world_size);
        ctx->binding_slot = malloc(sizeof(uint32_t) * (size_t)ctx->world_size);
        if (has_network) ctx->path_slot = malloc(sizeof(uint32_t) * (size_t)ctx->world_size);
        if (ctx->node_slot == NULL || ctx->binding_slot == NULL ||
            (has_network && ctx->path_slot == NULL))
            rc = MPI_ERR_NO_MEM;
        for (int w = 0; rc == MPI_SUCCESS && w < ctx->world_size; w++) {
            ctx->node_slot[w] = ctx->binding_slot[w] = UNKNOWN_SLOT;
            if (has_network) ctx->path_slot[w] = UNKNOWN_SLOT;
        }
    }
    slot_set nodes = {0}, bindings = {0}, paths = {0};
    if (rc == MPI_SUCCESS &&
        (!set_open(&nodes, &ctx->node_ids, &ctx->nnode_ids, 1) ||
         !set_open(&bindings, &ctx->binding_words, &ctx->nbinding_words, ctx->nwords) ||
         (has_network && !set_open(&paths, &ctx->path_words, &ctx->npath_words,
                                   HSPLIT_MAX_SWITCH_LEVELS))))
        rc = MPI_ERR_NO_MEM;
    unsigned long path[HSPLIT_MAX_SWITCH_LEVELS];
    for (int r = 0; rc == MPI_SUCCESS && r < size; r++) {
        int w = hsplit_rankmap_lookup(map, r); /* in [0, world size): map_to_world checked */
        const unsigned long *entry = all + (size_t)r * (size_t)stride;
        uint32_t ns = slot_of(&nodes, entry);
        uint32_t bs = slot_of(&bindings, entry + 1);
        uint32_t ps = 0;
        if (has_network) {
            memset(path, 0, sizeof path);
            memcpy(path, entry + 1 + ctx->nwords, sizeof *path * (size_t)npath);
            ps = slot_of(&paths, path);
        }
        if (ns == UNKNOWN_SLOT || bs == UNKNOWN_SLOT || ps == UNKNOWN_SLOT) rc = MPI_ERR_NO_MEM;
        else {
            ctx->node_slot[w] = ns;
            ctx->binding_slot[w] = bs;
            if (has_network) ctx->path_slot[w] = ps;
        }
    }
    set_close(&nodes);
    set_close(&bindings);
    set_close(&paths);
    pthread_mutex_unlock(&ctx->table_lock);
    free(mine);
    free(all);
    return rc;
}

static int attach_map(MPI_Comm comm, hsplit_rankmap *map)
{
    const hsplit_context *ctx = hsplit_get_context();
    rankmap_attr *attr = malloc(sizeof *attr);
    if (ctx == NULL || attr == NULL) {
        free(attr);
        hsplit_rankmap_free(map);
        return MPI_ERR_NO_MEM;
    }
    attr->map = *map;
    int rc = MPI_Comm_set_attr(comm, ctx->rankmap_keyval, attr);
    if (rc != MPI_SUCCESS) hsplit_rankmap_attr_delete(comm, 0, attr, NULL);
    return rc;
}

/* The map of a communicator from the MPI groups: comm ranks into the ranks
   of `into` (local, no communication). MPI_ERR_COMM when a process of comm
   is not in `into` (MPI_UNDEFINED: e.g. spawned outside MPI_COMM_WORLD). */
static int map_from_groups(MPI_Comm comm, MPI_Comm into, hsplit_rankmap *map)
{
    MPI_Group group, target;
    int size;
    MPI_Comm_size(comm, &size);
    int *ranks = malloc(sizeof(int) * 2 * (size_t)(size > 0 ? size : 1));
    if (ranks == NULL) return MPI_ERR_NO_MEM;
    for (int i = 0; i < size; i++) ranks[i] = i;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(into, &target);
    int rc = MPI_Group_translate_ranks(group, size, ranks, target, ranks + size);
    MPI_Group_free(&group);
    MPI_Group_free(&target);
    for (int i = 0; rc == MPI_SUCCESS && i < size; i++)
        if (ranks[size + i] < 0) rc = MPI_ERR_COMM;
    if (rc == MPI_SUCCESS && hsplit_rankmap_detect(ranks + size, size, map) != HSPLIT_RANKMAP_OK)
        rc = MPI_ERR_NO_MEM;
    free(ranks);
    return rc;
}

/* The map of comm into MPI_COMM_WORLD, with local MPI calls only: direct
   when comm has MPI_COMM_WORLD's processes in its order (MPI_Comm_compare,
   O(1)), else from the group translation. Returns an HSPLIT kind; *map is a
   valid map (empty on error). */
static int map_to_world(hsplit_context *ctx, MPI_Comm comm, hsplit_rankmap *map)
{
    int cmp = MPI_UNEQUAL, rc;
    hsplit_rankmap_regular(0, 0, 1, 1, map);
    if (MPI_Comm_compare(comm, MPI_COMM_WORLD, &cmp) != MPI_SUCCESS) return HSPLIT_KIND_ERR_OTHER;
    if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT)
        rc = hsplit_rankmap_regular(ctx->world_size, 0, 1, 1, map) == HSPLIT_RANKMAP_OK
                 ? MPI_SUCCESS : MPI_ERR_INTERN;
    else
        rc = map_from_groups(comm, MPI_COMM_WORLD, map);
    if (rc == MPI_SUCCESS) return HSPLIT_KIND_OK;
    hsplit_rankmap_free(map);
    return rc == MPI_ERR_COMM ? HSPLIT_KIND_ERR_COMM
           : rc == MPI_ERR_NO_MEM ? HSPLIT_KIND_ERR_INTERN : HSPLIT_KIND_ERR_OTHER;
}

int hsplit_comm_rankmap(MPI_Comm comm, const hsplit_rankmap **out)
{
    hsplit_context *ctx = hsplit_get_context();
    if (ctx == NULL) return HSPLIT_KIND_ERR_INTERN;
    rankmap_attr *attr = NULL;
    int found = 0;
    MPI_Comm_get_attr(comm, ctx->rankmap_keyval, &attr, &found);
    if (!found) {
        /* every process of comm takes this path together: agree on errors
           (the map's included: a process outside MPI_COMM_WORLD), and on
           the longest switch path for the exchange. Agreed even when the
           locations are computed, so that processes whose variables differ
           (one with Slurm addresses to exchange, say) get an error, not a
           hang. */
        hsplit_rankmap map;
        int npath = 0;
        int kind = map_to_world(ctx, comm, &map);
        if (kind == HSPLIT_KIND_OK) kind = ctx->error_kind;
        kind = hsplit_agree(ctx, comm, kind, &ctx->net.own_len, 1, &npath);
        if (kind == HSPLIT_KIND_OK && !ctx->locations_computed) {
            if (exchange_locations(ctx, comm, &map, npath) != MPI_SUCCESS)
                kind = HSPLIT_KIND_ERR_OTHER;
        }
        if (kind != HSPLIT_KIND_OK) {
            hsplit_rankmap_free(&map);
            return kind;
        }
        if (attach_map(comm, &map) != MPI_SUCCESS) return HSPLIT_KIND_ERR_OTHER;
        MPI_Comm_get_attr(comm, ctx->rankmap_keyval, &attr, &found);
    }
    *out = &attr->map;
    return HSPLIT_KIND_OK;
}

int hsplit_attach_child_rankmap(MPI_Comm parent, MPI_Comm child)
{
    const hsplit_context *ctx = hsplit_get_context();
    rankmap_attr *attr = NULL;
    int found = 0;
    if (ctx == NULL) return MPI_ERR_INTERN;
    MPI_Comm_get_attr(parent, ctx->rankmap_keyval, &attr, &found);
    if (!found) return MPI_ERR_INTERN;
    hsplit_rankmap to_parent, to_world;
    int rc = map_from_groups(child, parent, &to_parent);
    if (rc != MPI_SUCCESS) return rc;
    rc = hsplit_rankmap_compose(&attr->map, &to_parent, &to_world) == HSPLIT_RANKMAP_OK
             ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    hsplit_rankmap_free(&to_parent);
    return rc == MPI_SUCCESS ? attach_map(child, &to_world) : rc;
}
