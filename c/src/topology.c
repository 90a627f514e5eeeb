/* hwloc helpers: loading a topology, naming levels, finding objects. */
#include <string.h>
#include <sys/stat.h>
#include "hsplit_internal.h"

int hsplit_topology_load(const char *spec, hwloc_topology_t *topo)
{
    if (hwloc_topology_init(topo) != 0)
        return HSPLIT_ERR_HWLOC;
    int kind = HSPLIT_KIND_OK;
    if (spec != NULL) {
        /* A path of an existing file is XML; anything else must be a synthetic
           description. Each failure is the user's HSPLIT_TOPOLOGY. */
        struct stat st;
        int is_file = stat(spec, &st) == 0;
        int rc = is_file ? hwloc_topology_set_xml(*topo, spec)
                         : hwloc_topology_set_synthetic(*topo, spec);
        if (rc != 0)
            kind = HSPLIT_ERR_TOPOLOGY;
    }
    if (kind == HSPLIT_KIND_OK && hwloc_topology_load(*topo) != 0)
        kind = spec != NULL ? HSPLIT_ERR_TOPOLOGY : HSPLIT_ERR_HWLOC;
    if (kind != HSPLIT_KIND_OK) {
        hwloc_topology_destroy(*topo);
        *topo = NULL;
    }
    return kind;
}

static int has_numa_memory_child(hwloc_obj_t obj)
{
    /* Memory children may be memory-side caches above the NUMA node. */
    for (hwloc_obj_t m = obj->memory_first_child; m != NULL; m = m->next_sibling)
        if (m->type == HWLOC_OBJ_NUMANODE || has_numa_memory_child(m))
            return 1;
    return 0;
}

const char *hsplit_level_name(hwloc_topology_t topo, hwloc_obj_t obj)
{
    (void)topo;
    hwloc_obj_t top = obj;
    while (top->parent != NULL && hwloc_bitmap_isequal(top->parent->cpuset, top->cpuset))
        top = top->parent;
    if (top->parent == NULL)
        return "Machine";
    if (has_numa_memory_child(top))
        return "NUMANode";
    return hwloc_obj_type_string(top->type);
}

hwloc_obj_t hsplit_covering_object(hwloc_topology_t topo, hwloc_const_bitmap_t set)
{
    hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);
    return obj != NULL ? obj : hwloc_get_root_obj(topo);
}

int hsplit_parse_type(const char *name, hwloc_obj_type_t *type)
{
    if (name == NULL || name[0] == '\0' || hwloc_type_sscanf(name, type, NULL, 0) != 0)
        return -1;
    switch (*type) {
    case HWLOC_OBJ_MACHINE: case HWLOC_OBJ_PACKAGE: case HWLOC_OBJ_DIE:
    case HWLOC_OBJ_GROUP: case HWLOC_OBJ_NUMANODE: case HWLOC_OBJ_L5CACHE:
    case HWLOC_OBJ_L4CACHE: case HWLOC_OBJ_L3CACHE: case HWLOC_OBJ_L2CACHE:
    case HWLOC_OBJ_L1CACHE: case HWLOC_OBJ_CORE: case HWLOC_OBJ_PU:
        return 0;
    default:
        return -1; /* instruction caches, memory-side caches, I/O, Misc */
    }
}

/* Depths holding objects of a type, deepest first; returns how many. */
static int type_depths(hwloc_topology_t topo, hwloc_obj_type_t type, int *depths, int max)
{
    int depth = hwloc_get_type_depth(topo, type);
    if (depth == HWLOC_TYPE_DEPTH_UNKNOWN)
        return 0;
    if (depth != HWLOC_TYPE_DEPTH_MULTIPLE) {
        depths[0] = depth;
        return 1;
    }
    int n = 0;
    for (int d = hwloc_topology_get_depth(topo) - 1; d >= 0 && n < max; d--)
        if (hwloc_get_depth_type(topo, d) == type)
            depths[n++] = d;
    return n;
}

enum { MAX_TYPE_DEPTHS = 64 };

int hsplit_count_objects(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int depths[MAX_TYPE_DEPTHS];
    if (type_depths(topo, type, depths, MAX_TYPE_DEPTHS) == 0)
        return 0;
    return hwloc_get_nbobjs_by_depth(topo, depths[0]);
}

hwloc_obj_t hsplit_object(hwloc_topology_t topo, hwloc_obj_type_t type, int index)
{
    int depths[MAX_TYPE_DEPTHS];
    if (type_depths(topo, type, depths, MAX_TYPE_DEPTHS) == 0)
        return NULL;
    return hwloc_get_obj_by_depth(topo, depths[0], (unsigned)index);
}

int hsplit_object_slot(hwloc_topology_t topo, hwloc_obj_type_t type,
                       hwloc_const_bitmap_t set, int *nslots)
{
    int depths[MAX_TYPE_DEPTHS];
    int ndepths = type_depths(topo, type, depths, MAX_TYPE_DEPTHS);
    int slot = -1, offset = 0;
    for (int i = 0; i < ndepths; i++) {
        int n = hwloc_get_nbobjs_by_depth(topo, depths[i]);
        for (int j = 0; slot < 0 && j < n; j++) {
            hwloc_obj_t obj = hwloc_get_obj_by_depth(topo, depths[i], (unsigned)j);
            if (!hwloc_bitmap_iszero(obj->cpuset) && hwloc_bitmap_isincluded(set, obj->cpuset))
                slot = offset + j;
        }
        offset += n;
    }
    *nslots = offset;
    return slot;
}

int hsplit_cpuset_words(hwloc_topology_t topo)
{
    int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
    int bits = (int)(8 * sizeof(unsigned long));
    return last < 0 ? 1 : last / bits + 1;
}

void hsplit_bitmap_to_words(hwloc_const_bitmap_t set, int nwords, unsigned long *words)
{
    memset(words, 0, sizeof(unsigned long) * (size_t)nwords);
    hwloc_bitmap_to_ulongs(set, (unsigned)nwords, words);
}

void hsplit_bitmap_from_words(hwloc_bitmap_t set, int nwords, const unsigned long *words)
{
    hwloc_bitmap_from_ulongs(set, (unsigned)nwords, words);
}
