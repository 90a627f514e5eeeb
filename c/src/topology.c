/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc helpers: loading a topology, naming levels, finding objects. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "hsplit_internal.h"

static int topology_error(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg != NULL && msglen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return HSPLIT_ERR_TOPOLOGY;
}

/* (MPI's error strings hold 256 characters with Open MPI: in the messages
   here the limit's name comes last, after the cut value) */
const char *hsplit_ellipsis(const char *s, size_t max)
{
    return strlen(s) > max ? "..." : "";
}

/* The size of a synthetic description, read the way hwloc reads it
   (topology-synthetic.c): optional root attributes "(...)", then levels
   "[type(attributes)]" (memory attached to each object of the level
   before: NUMA nodes) or "[type:]number[(attributes)]". */
typedef struct {
    unsigned long pus;    /* product of the arities, clamped             */
    unsigned long numas;  /* attached NUMA nodes, clamped                */
    unsigned long widest; /* largest arity                               */
} synthetic_size;

/* -1 where hwloc itself refuses the string (it gives the error), else 0. */
static int measure_synthetic(const char *spec, synthetic_size *size)
{
    const unsigned long clamp = HSPLIT_TOPOLOGY_MAX_PUS + 1UL;
    const char *pos = spec;
    *size = (synthetic_size){1, 0, 0};
    if (*pos == '(') { /* the root's attributes */
        if ((pos = strchr(pos, ')')) == NULL) return -1;
        pos++;
    }
    while (*pos != '\0') {
        while (*pos == ' ' || *pos == '\n') pos++;
        if (*pos == '\0') break;
        if (*pos == '[') { /* one per object of the level so far */
            size->numas = size->numas + size->pus >= clamp ? clamp : size->numas + size->pus;
            if ((pos = strchr(pos, ']')) == NULL) return -1;
            pos++;
            continue;
        }
        if ((*pos < '0' || *pos > '9') && (pos = strchr(pos, ':')) == NULL) return -1;
        if (*pos == ':') pos++;
        char *end;
        errno = 0;
        unsigned long arity = strtoul(pos, &end, 0);
        if (end == pos || arity == 0 || errno != 0 || arity > 0xffffffffUL) return -1;
        if (arity > size->widest) size->widest = arity;
        size->pus = arity >= clamp || size->pus * arity >= clamp ? clamp : size->pus * arity;
        pos = end;
        if (*pos == '(') { /* the level's attributes */
            if ((pos = strchr(pos, ')')) == NULL) return -1;
            pos++;
        }
    }
    return 0;
}

/* Synthetic descriptions past the limits are refused before hwloc builds
   them; hwloc refuses the malformed ones. */
static int check_synthetic(const char *spec, char *msg, size_t msglen)
{
    synthetic_size size;
    if (measure_synthetic(spec, &size) != 0) return HSPLIT_KIND_OK;
    if (size.widest > HSPLIT_TOPOLOGY_MAX_ARITY)
        return topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY \"%.64s%s\" gives an object "
                              "%lu children, more than the %d allowed (the limit "
                              "HSPLIT_TOPOLOGY_MAX_ARITY)", spec, hsplit_ellipsis(spec, 64),
                              size.widest, HSPLIT_TOPOLOGY_MAX_ARITY);
    if (size.pus > HSPLIT_TOPOLOGY_MAX_PUS)
        return topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY \"%.64s%s\" has more than the "
                              "%d PUs allowed (the limit HSPLIT_TOPOLOGY_MAX_PUS)", spec,
                              hsplit_ellipsis(spec, 64), HSPLIT_TOPOLOGY_MAX_PUS);
    if (size.numas > HSPLIT_TOPOLOGY_MAX_PUS)
        return topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY \"%.64s%s\" attaches more "
                              "than %d NUMA nodes (the limit HSPLIT_TOPOLOGY_MAX_PUS)", spec,
                              hsplit_ellipsis(spec, 64), HSPLIT_TOPOLOGY_MAX_PUS);
    return HSPLIT_KIND_OK;
}

/* An XML file: read here, a regular file within HSPLIT_TOPOLOGY_MAX_XML_BYTES
   (hwloc would block on a FIFO and read any size), then given to hwloc;
   *text (to free after hwloc_topology_load) gets the buffer. */
static int set_xml(hwloc_topology_t topo, const char *path, char **text, char *msg,
                   size_t msglen)
{
    char detail[512];
    size_t len;
    int status = hsplit_read_regular_file(path, HSPLIT_TOPOLOGY_MAX_XML_BYTES,
                                          "HSPLIT_TOPOLOGY_MAX_XML_BYTES", text, &len, detail,
                                          sizeof detail);
    if (status == HSPLIT_CONF_NOMEM) return HSPLIT_KIND_ERR_INTERN;
    if (status != HSPLIT_CONF_OK)
        return topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY %s", detail);
    /* the length with the final NUL, as hwloc_topology_export_xmlbuffer gives it */
    if (hwloc_topology_set_xmlbuffer(topo, *text, (int)len + 1) != 0)
        return topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY %.128s%s: not an hwloc XML "
                              "topology (hwloc cannot read it)", path, hsplit_ellipsis(path, 128));
    return HSPLIT_KIND_OK;
}

int hsplit_topology_load_msg(const char *spec, hwloc_topology_t *topo, char *msg,
                             size_t msglen)
{
    if (msg != NULL && msglen > 0) msg[0] = '\0';
    if (hwloc_topology_init(topo) != 0)
        return HSPLIT_ERR_HWLOC;
    int kind = HSPLIT_KIND_OK;
    char *xml = NULL;
    if (spec != NULL) {
        /* A path of an existing file is XML; anything else must be a synthetic
           description. Each failure is the user's HSPLIT_TOPOLOGY. */
        struct stat st;
        if (stat(spec, &st) == 0) {
            kind = set_xml(*topo, spec, &xml, msg, msglen);
        } else {
            /* a value that reads as a path was meant as a file: say so */
            size_t n = strlen(spec);
            int path_like = strchr(spec, '/') != NULL ||
                            (n >= 4 && strcmp(spec + n - 4, ".xml") == 0);
            kind = check_synthetic(spec, msg, msglen);
            if (kind == HSPLIT_KIND_OK && hwloc_topology_set_synthetic(*topo, spec) != 0)
                kind = topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY \"%.64s%s\" is "
                                      "neither an existing file nor a valid hwloc synthetic "
                                      "description%s", spec, hsplit_ellipsis(spec, 64),
                                      path_like ? " (no such file)" : "");
        }
    }
    if (kind == HSPLIT_KIND_OK && hwloc_topology_load(*topo) != 0)
        kind = spec == NULL ? HSPLIT_ERR_HWLOC
                            : topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY %.128s%s: "
                                             "hwloc cannot load it", spec,
                                             hsplit_ellipsis(spec, 128));
    free(xml);
    int pus = kind == HSPLIT_KIND_OK ? hwloc_get_nbobjs_by_type(*topo, HWLOC_OBJ_PU) : 0;
    if (spec != NULL && pus > HSPLIT_TOPOLOGY_MAX_PUS) /* an XML file */
        kind = topology_error(msg, msglen, "hsplit: HSPLIT_TOPOLOGY %.128s%s has %d PUs, more "
                              "than the %d allowed (the limit HSPLIT_TOPOLOGY_MAX_PUS)", spec,
                              hsplit_ellipsis(spec, 128), pus, HSPLIT_TOPOLOGY_MAX_PUS);
    if (kind != HSPLIT_KIND_OK) {
        hwloc_topology_destroy(*topo);
        *topo = NULL;
    }
    return kind;
}

int hsplit_topology_load(const char *spec, hwloc_topology_t *topo)
{
    return hsplit_topology_load_msg(spec, topo, NULL, 0);
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
