/* The emulation variables HSPLIT_NODES and HSPLIT_BIND: which node each
   process is on, and what it is bound to. Pure functions of the strings. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* Parse a whole string [s, end) as a non-negative int; spaces around allowed. */
static int parse_count(const char *s, const char *end, int *value)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (s == end || !isdigit((unsigned char)*s))
        return -1;
    long v = 0;
    for (; s < end; s++) {
        if (!isdigit((unsigned char)*s))
            return -1;
        v = v * 10 + (*s - '0');
        if (v > 0x7fffffffL)
            return -1;
    }
    *value = (int)v;
    return 0;
}

int hsplit_parse_nodes(const char *spec, int world_size, hsplit_node_map *map)
{
    memset(map, 0, sizeof *map);
    const char *end = spec + strlen(spec);
    if (strncmp(spec, "cyclic:", 7) == 0) {
        map->mode = HSPLIT_NODES_CYCLIC;
        if (parse_count(spec + 7, end, &map->param) != 0 || map->param == 0)
            return HSPLIT_ERR_NODES;
        return HSPLIT_KIND_OK;
    }
    if (strchr(spec, ',') == NULL) {
        map->mode = HSPLIT_NODES_BLOCK;
        if (parse_count(spec, end, &map->param) != 0 || map->param == 0)
            return HSPLIT_ERR_NODES;
        return HSPLIT_KIND_OK;
    }
    map->mode = HSPLIT_NODES_LIST;
    map->list = malloc(sizeof(int) * (size_t)(world_size > 0 ? world_size : 1));
    if (map->list == NULL)
        return HSPLIT_KIND_ERR_INTERN;
    const char *item = spec;
    for (;;) {
        const char *comma = strchr(item, ',');
        const char *item_end = comma != NULL ? comma : end;
        int node;
        if (map->nlist == world_size || parse_count(item, item_end, &node) != 0)
            goto malformed;
        map->list[map->nlist++] = node;
        if (comma == NULL)
            break;
        item = comma + 1;
    }
    if (map->nlist != world_size)
        goto malformed;
    return HSPLIT_KIND_OK;
malformed:
    hsplit_node_map_free(map);
    return HSPLIT_ERR_NODES;
}

void hsplit_node_map_free(hsplit_node_map *map)
{
    free(map->list);
    map->list = NULL;
    map->nlist = 0;
}

void hsplit_node_of(const hsplit_node_map *map, int world_rank, int *node, int *local_rank)
{
    switch (map->mode) {
    case HSPLIT_NODES_BLOCK:
        *node = world_rank / map->param;
        *local_rank = world_rank % map->param;
        break;
    case HSPLIT_NODES_CYCLIC:
        *node = world_rank % map->param;
        *local_rank = world_rank / map->param;
        break;
    default:
        *node = map->list[world_rank];
        *local_rank = 0;
        for (int r = 0; r < world_rank; r++)
            *local_rank += map->list[r] == *node;
        break;
    }
}

int hsplit_node_index_of(const hsplit_node_map *map, int world_rank)
{
    switch (map->mode) {
    case HSPLIT_NODES_BLOCK: return world_rank / map->param;
    case HSPLIT_NODES_CYCLIC: return world_rank % map->param;
    default: return map->list[world_rank];
    }
}

/* One item of a HSPLIT_BIND list: "type:index" or an hwloc cpuset string. */
static int parse_bind_item(hwloc_topology_t topo, const char *item, hwloc_bitmap_t set)
{
    const char *colon = strchr(item, ':');
    if (colon == NULL) {
        if (hwloc_bitmap_sscanf(set, item) != 0 || hwloc_bitmap_iszero(set) ||
            !hwloc_bitmap_isincluded(set, hwloc_topology_get_topology_cpuset(topo)))
            return HSPLIT_ERR_BIND;
        return HSPLIT_KIND_OK;
    }
    char type_name[64];
    size_t len = (size_t)(colon - item);
    if (len >= sizeof type_name)
        return HSPLIT_ERR_BIND;
    memcpy(type_name, item, len);
    type_name[len] = '\0';
    hwloc_obj_type_t type;
    int index;
    if (hsplit_parse_type(type_name, &type) != 0 ||
        parse_count(colon + 1, colon + strlen(colon), &index) != 0 ||
        index >= hsplit_count_objects(topo, type))
        return HSPLIT_ERR_BIND;
    hwloc_obj_t obj = hsplit_object(topo, type, index);
    if (obj == NULL || hwloc_bitmap_iszero(obj->cpuset))
        return HSPLIT_ERR_BIND;
    hwloc_bitmap_copy(set, obj->cpuset);
    return HSPLIT_KIND_OK;
}

/* A list: every item is checked, so that all processes of a node agree on
   whether the variable is valid; the local_rank-th one is the binding. */
static int bind_from_list(hwloc_topology_t topo, const char *spec, int local_rank,
                          hwloc_bitmap_t binding)
{
    char *copy = strdup(spec);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int kind = copy != NULL && set != NULL ? HSPLIT_KIND_OK : HSPLIT_KIND_ERR_INTERN;
    int nitems = 0;
    char *item = copy;
    while (kind == HSPLIT_KIND_OK) {
        char *semi = strchr(item, ';');
        if (semi != NULL)
            *semi = '\0';
        kind = parse_bind_item(topo, item, set);
        if (kind == HSPLIT_KIND_OK && nitems++ == local_rank)
            hwloc_bitmap_copy(binding, set);
        if (semi == NULL)
            break;
        item = semi + 1;
    }
    if (kind == HSPLIT_KIND_OK && local_rank >= nitems)
        kind = HSPLIT_ERR_BIND; /* more processes on the node than items */
    hwloc_bitmap_free(set);
    free(copy);
    return kind;
}

int hsplit_emulated_binding(hwloc_topology_t topo, const char *spec, int local_rank,
                            hwloc_bitmap_t binding)
{
    if (spec == NULL)
        spec = "core";
    if (strcmp(spec, "none") == 0) {
        hwloc_bitmap_copy(binding, hwloc_topology_get_topology_cpuset(topo));
        return HSPLIT_KIND_OK;
    }
    if (strchr(spec, ';') != NULL || strchr(spec, ':') != NULL || strncmp(spec, "0x", 2) == 0)
        return bind_from_list(topo, spec, local_rank, binding);
    hwloc_obj_type_t type;
    if (hsplit_parse_type(spec, &type) != 0)
        return HSPLIT_ERR_BIND;
    int n = hsplit_count_objects(topo, type);
    if (n == 0)
        return HSPLIT_ERR_BIND;
    hwloc_obj_t obj = hsplit_object(topo, type, local_rank % n);
    if (obj == NULL || hwloc_bitmap_iszero(obj->cpuset))
        return HSPLIT_ERR_BIND;
    hwloc_bitmap_copy(binding, obj->cpuset);
    return HSPLIT_KIND_OK;
}
