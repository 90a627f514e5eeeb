/* SPDX-License-Identifier: BSD-3-Clause */
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

/* A decimal index: digits only (no sign, no spaces), at most INT_MAX. */
static int parse_index(const char *s, int *value)
{
    if (*s == '\0')
        return -1;
    long v = 0;
    for (; *s != '\0'; s++) {
        if (!isdigit((unsigned char)*s))
            return -1;
        v = v * 10 + (*s - '0');
        if (v > 0x7fffffffL)
            return -1;
    }
    *value = (int)v;
    return 0;
}

/* A type name: letters and digits only. hwloc_type_sscanf reads a prefix and
   ignores what follows ("core junk" is Core), so the junk is refused here. */
static int parse_type_name(const char *name, hwloc_obj_type_t *type)
{
    for (const char *p = name; *p != '\0'; p++)
        if (!isalnum((unsigned char)*p))
            return -1;
    return hsplit_parse_type(name, type);
}

/* hwloc's cpuset format, checked before hwloc_bitmap_sscanf sees it: that
   function aborts on some malformed strings (",0x1": an assertion in hwloc
   2.9) and makes odd sets of others ("0x1," or "0x1,,0x2"). Comma-separated
   32-bit words, each 0x and 1 to 8 hexadecimal digits, as hwloc prints them. */
static int valid_cpuset_string(const char *s)
{
    for (;;) {
        if (s[0] != '0' || s[1] != 'x')
            return 0;
        s += 2;
        int digits = 0;
        while (isxdigit((unsigned char)*s)) {
            s++;
            digits++;
        }
        if (digits == 0 || digits > 8)
            return 0;
        if (*s == '\0')
            return 1;
        if (*s++ != ',')
            return 0;
    }
}

/* One item of a HSPLIT_BIND list (a copy, cut at its ':'): "type:index" or
   an hwloc cpuset string. Nothing else: no spaces, no empty item. */
static int parse_bind_item(hwloc_topology_t topo, char *item, hwloc_bitmap_t set)
{
    hwloc_bitmap_zero(set);
    char *colon = strchr(item, ':');
    if (colon == NULL) {
        if (!valid_cpuset_string(item) || hwloc_bitmap_sscanf(set, item) != 0 ||
            hwloc_bitmap_iszero(set) ||
            !hwloc_bitmap_isincluded(set, hwloc_topology_get_topology_cpuset(topo)))
            return HSPLIT_ERR_BIND;
        return HSPLIT_KIND_OK;
    }
    *colon = '\0';
    hwloc_obj_type_t type;
    int index;
    if (parse_type_name(item, &type) != 0 || parse_index(colon + 1, &index) != 0 ||
        index >= hsplit_count_objects(topo, type))
        return HSPLIT_ERR_BIND;
    hwloc_obj_t obj = hsplit_object(topo, type, index);
    if (obj == NULL || hwloc_bitmap_iszero(obj->cpuset))
        return HSPLIT_ERR_BIND;
    hwloc_bitmap_copy(set, obj->cpuset);
    return HSPLIT_KIND_OK;
}

/* A list: every item is checked, so that all processes of a node agree on
   whether the variable is valid; the local_rank-th one is the binding. An
   empty item (";;", a ';' at either end) is an error, not a copy of its
   neighbour. */
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
        kind = item[0] != '\0' ? parse_bind_item(topo, item, set) : HSPLIT_ERR_BIND;
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
    /* no binding for a process that has no place on its node */
    if (local_rank < 0)
        return HSPLIT_ERR_BIND;
    for (const char *p = spec; *p != '\0'; p++)
        if (isspace((unsigned char)*p))
            return HSPLIT_ERR_BIND; /* items are written without spaces */
    if (strcmp(spec, "none") == 0) {
        hwloc_bitmap_copy(binding, hwloc_topology_get_topology_cpuset(topo));
        return HSPLIT_KIND_OK;
    }
    if (strchr(spec, ';') != NULL || strchr(spec, ':') != NULL || strncmp(spec, "0x", 2) == 0)
        return bind_from_list(topo, spec, local_rank, binding);
    hwloc_obj_type_t type;
    if (parse_type_name(spec, &type) != 0)
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
