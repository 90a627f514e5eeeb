/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal interfaces between the files of the C core. Not installed. */
#ifndef HSPLIT_INTERNAL_H
#define HSPLIT_INTERNAL_H

#include <pthread.h>
#include <limits.h>
#include <stdint.h>
#include <hwloc.h>
#include <mpi.h>
#include "hsplit.h"
#include "rankmap.h"
#include "topology_conf.h"
#include "coll_rules.h"
#include "coll_schedule.h"

/* SimGrid's SMPI (its mpi.h defines SMPI_H) runs every rank as a user-level
   thread of one process, where MPI_COMM_WORLD is one object whose attributes
   all ranks share; registry.c, process_context.c and hierarchy.c adapt. */
#ifdef SMPI_H
#define HSPLIT_UNDER_SMPI 1
#else
#define HSPLIT_UNDER_SMPI 0
#endif

/* ---- registry.c: the context keyval and error classes, made once per
   process (the other keyvals are the context's: see hsplit_context) ---- */

typedef struct {
    int context_keyval;  /* per-process context, on MPI_COMM_SELF            */
    int codes[HSPLIT_ERR_LAST_KIND + 1]; /* error code of each HSPLIT_ERR_*   */
    int classes[HSPLIT_ERR_LAST_KIND + 1];
} hsplit_registry;

/* The registry, created on the first call (thread-safe); NULL if MPI failed. */
const hsplit_registry *hsplit_get_registry(void);

/* Error codes travel inside the library as "error kinds" so that processes can
   agree on one with MPI_MAX: 0 is success, the HSPLIT_ERR_* values are
   library errors, the ones below are MPI's own classes. */
enum {
    HSPLIT_KIND_OK = 0,
    HSPLIT_KIND_ERR_ARG = HSPLIT_ERR_LAST_KIND + 1, /* MPI_ERR_ARG  */
    HSPLIT_KIND_ERR_RANK,                          /* MPI_ERR_RANK */
    HSPLIT_KIND_ERR_COMM,                          /* MPI_ERR_COMM */
    HSPLIT_KIND_ERR_INTERN,                        /* MPI_ERR_INTERN */
    HSPLIT_KIND_ERR_OTHER                          /* an MPI call failed */
};

/* MPI error code of an error kind. */
int hsplit_kind_code(int kind);

/* Invoke comm's error handler (MPI_COMM_WORLD's for MPI_COMM_NULL) with the
   code of kind and return that code; MPI_SUCCESS for HSPLIT_KIND_OK. */
int hsplit_raise(MPI_Comm comm, int kind);

/* Invoke comm's error handler with an MPI error code and return it. */
int hsplit_raise_code(MPI_Comm comm, int code);

/* Can the library still call MPI? Not inside MPI_Finalize under SMPI, which
   deletes MPI_COMM_SELF's attributes once MPI is finalized (real MPIs delete
   them first, while MPI works). Attribute callbacks check it. */
int hsplit_mpi_usable(void);

/* ---- topology.c: hwloc helpers ---- */

/* Load a topology from an XML file or a synthetic string (spec != NULL), or
   the real machine (spec == NULL). Returns an HSPLIT kind. */
int hsplit_topology_load(const char *spec, hwloc_topology_t *topo);

/* Limits of HSPLIT_TOPOLOGY, checked before hwloc builds anything: hwloc's
   time and memory grow faster than the number of objects (262,144 PUs take
   minutes and gigabytes, a flat level of 8192 PUs minutes). The largest
   accepted topology loads in about a second; an XML file of 8192 PUs has
   about 7 MB (and libxml2 parses no buffer beyond 10 MB). */
#define HSPLIT_TOPOLOGY_MAX_PUS 8192         /* PUs of a synthetic or XML topology,
                                                and attached NUMA nodes ("[numa]") */
#define HSPLIT_TOPOLOGY_MAX_ARITY 1024       /* children of one synthetic object   */
#define HSPLIT_TOPOLOGY_MAX_XML_BYTES (8L * 1024 * 1024) /* bytes of an XML file   */

/* hsplit_topology_load, and on HSPLIT_ERR_TOPOLOGY msg gets what is wrong
   with spec ("hsplit: HSPLIT_TOPOLOGY ..."): a limit above, not a regular
   file, not loadable by hwloc. */
int hsplit_topology_load_msg(const char *spec, hwloc_topology_t *topo, char *msg,
                             size_t msglen);
/* "..." when s is longer than max, else "": what follows a value that an
   error message quotes cut at max characters ("%.48s%s"). */
const char *hsplit_ellipsis(const char *s, size_t max);

/* Name of the level whose PUs are exactly obj's: the highest object with the
   same cpuset, a NUMA node counting as just above the object it is attached
   to, the root always "Machine". */
const char *hsplit_level_name(hwloc_topology_t topo, hwloc_obj_t obj);

/* Deepest normal object whose cpuset contains set (never NULL for a non-empty
   subset of the topology). */
hwloc_obj_t hsplit_covering_object(hwloc_topology_t topo, hwloc_const_bitmap_t set);

/* Parse a level/type name (case-insensitive: machine, package, die, group,
   numanode, l3cache, l2cache, l1cache, core, pu, ...). Returns 0 on success.
   Instruction caches, memory-side caches, I/O and Misc are refused. */
int hsplit_parse_type(const char *name, hwloc_obj_type_t *type);

/* Objects of a type in logical order. Types at several depths (Group) use the
   deepest such depth. Returns the count, 0 if the type is absent. */
int hsplit_count_objects(hwloc_topology_t topo, hwloc_obj_type_t type);
hwloc_obj_t hsplit_object(hwloc_topology_t topo, hwloc_obj_type_t type, int index);

/* Slot of the deepest object of a type that contains set: the object's
   position in the list of all objects of that type (every depth, deepest
   first). Returns -1 if none contains it; *nslots gets the list length. */
int hsplit_object_slot(hwloc_topology_t topo, hwloc_obj_type_t type,
                       hwloc_const_bitmap_t set, int *nslots);

/* Number of unsigned longs that hold any cpuset of the topology. */
int hsplit_cpuset_words(hwloc_topology_t topo);

/* ---- emulation.c: HSPLIT_NODES and HSPLIT_BIND ---- */

typedef struct {
    int mode;        /* HSPLIT_NODES_BLOCK, _CYCLIC or _LIST */
    int param;       /* K or N */
    int *list;       /* node of each world rank (LIST mode) */
    int nlist;
} hsplit_node_map;

enum { HSPLIT_NODES_BLOCK = 1, HSPLIT_NODES_CYCLIC, HSPLIT_NODES_LIST };

/* Parse HSPLIT_NODES for a world of world_size ranks. Returns an HSPLIT kind. */
int hsplit_parse_nodes(const char *spec, int world_size, hsplit_node_map *map);
void hsplit_node_map_free(hsplit_node_map *map);
/* Node and local rank (position among the ranks of its node) of a world rank. */
void hsplit_node_of(const hsplit_node_map *map, int world_rank, int *node,
                    int *local_rank);
/* Node of a world rank only: O(1) in every mode. */
int hsplit_node_index_of(const hsplit_node_map *map, int world_rank);

/* Binding of the process of a given local rank under HSPLIT_BIND spec (NULL:
   "core"): writes it into binding, an allocated bitmap, never empty. Returns an
   HSPLIT kind: HSPLIT_ERR_BIND for a negative local rank, and for any malformed
   spec (spaces, an empty list item, junk after a type name or index). */
int hsplit_emulated_binding(hwloc_topology_t topo, const char *spec, int local_rank,
                            hwloc_bitmap_t binding);

/* ---- network.c: the switch tree above the nodes ---- */

enum {
    HSPLIT_NETWORK_NONE = 0, /* no switch levels: all nodes under one switch   */
    HSPLIT_NETWORK_FILE,     /* HSPLIT_NETWORK: a Slurm topology.conf           */
    HSPLIT_NETWORK_SLURM     /* SLURM_TOPOLOGY_ADDR / _PATTERN of each process  */
};

/* A process's place in the network is its switch path: the ids of the
   switches from a top switch down to the one its node hangs from. Ids are
   never 0 and equal ids mean the same switch: a switch's index + 1 in
   topology.conf, or a hash of its name from SLURM_TOPOLOGY_ADDR. */
typedef struct {
    int source;                /* HSPLIT_NETWORK_*                           */
    hsplit_topology_conf conf; /* FILE: the switches and nodes of the file   */
    int ntops;                 /* top switches (FILE); SLURM: 1              */
    int fingerprint;           /* equal where processes read the network alike */
    int own_len;               /* this process's switch path                 */
    unsigned long own_path[HSPLIT_MAX_SWITCH_LEVELS];
    const char *own_names[HSPLIT_MAX_SWITCH_LEVELS]; /* their names         */
    char *addr_copy;           /* SLURM: the names, NUL-separated            */
    char node_name[MPI_MAX_PROCESSOR_NAME]; /* this process's node           */
} hsplit_network;

struct hsplit_context;
/* Read the network description of the calling process (HSPLIT_NETWORK, else
   SLURM_TOPOLOGY_ADDR, else none) into ctx->net, once its nodes are known.
   Returns an HSPLIT kind; on HSPLIT_ERR_NETWORK, msg says what is wrong. */
int hsplit_network_load(struct hsplit_context *ctx, char *msg, size_t msglen);
void hsplit_network_free(hsplit_network *net);
/* Switch path of an emulated node (FILE or NONE source): its length, or -1
   when the node is in no switch. */
int hsplit_network_node_path(const hsplit_network *net, int node, unsigned long *path);

/* ---- process_context.c: what this process knows of itself ---- */

struct hsplit_hierarchy;

typedef struct hsplit_context {
    /* Keyvals of the attributes this process puts on communicators. They
       are the process's own, not process-global: under SMPI all ranks share
       the MPI_COMM_WORLD object and its attributes, keyed by keyval. */
    int hlevel_keyval;       /* level info of communicators made by a split */
    int rankmap_keyval;      /* rank map (comm rank -> world rank)          */
    int hierarchy_keyval;    /* cached hierarchy of the collectives         */
    hwloc_topology_t topo;   /* the topology of every node              */
    hwloc_bitmap_t binding;  /* this process's binding, within topo     */
    int emulated_nodes;      /* HSPLIT_NODES set                         */
    int node;                /* this process's node when emulated        */
    int world_rank;
    int nwords;              /* hsplit_cpuset_words(topo)                */
    int error_kind;          /* why the context could not be built, or 0 */
    int error_code;          /* HSPLIT_ERR_NETWORK, HSPLIT_ERR_TOPOLOGY, or
                                HSPLIT_ERR_BIND for a launcher's local
                                rank: the code whose string says what is
                                wrong (file and line, limit, or variable),
                                0 if none                                */
    hsplit_network net;      /* the switches above the nodes             */
    pthread_mutex_t live_lock;           /* guards live_hierarchies       */
    struct hsplit_hierarchy *live_hierarchies; /* freed at MPI_Finalize at
                                            the latest, while MPI works  */
    int world_size;
    /* Where the other processes are (location_table.c). Emulated nodes and
       bindings: computed from the variables, nothing stored but the bindings
       of each local rank. Otherwise: a table of the world processes filled by
       exchanges, each distinct node and binding stored once. */
    int locations_computed;
    hsplit_node_map nodes;               /* emulated node map            */
    char *bind_spec;                     /* HSPLIT_BIND, NULL: core      */
    pthread_mutex_t table_lock;          /* guards what follows          */
    hwloc_bitmap_t *local_bindings;      /* computed: by local rank      */
    int nlocal_bindings;
    uint32_t *node_slot, *binding_slot;  /* table: per world rank        */
    unsigned long *node_ids;             /* table: distinct node ids     */
    uint32_t nnode_ids;
    unsigned long *binding_words;        /* table: distinct bindings     */
    uint32_t nbinding_words;
    uint32_t *path_slot;                 /* table: per world rank, when
                                            there is a network           */
    unsigned long *path_words;           /* table: distinct switch paths,
                                            HSPLIT_MAX_SWITCH_LEVELS ids
                                            each, zero-padded            */
    uint32_t npath_words;
} hsplit_context;

/* This process's context, built on first use and kept until MPI_Finalize.
   Never NULL unless MPI itself failed (then its keyvals are not valid);
   check error_kind. */
hsplit_context *hsplit_get_context(void);

/* Node key of the calling process within comm (collective over comm when the
   nodes are real): equal keys mean the same node; keys are ordered like the
   nodes (emulated: node index; real: the lowest MPI_COMM_WORLD rank on the node
   among comm's processes). */
int hsplit_node_key(const hsplit_context *ctx, MPI_Comm comm, int *key);

/* The agreement a collective entry makes before anything that could hang,
   in one MPI_MAX allreduce over comm: the worst error kind of its processes,
   or HSPLIT_ERR_NODES when HSPLIT_NODES is set on some of them only, or
   HSPLIT_ERR_NETWORK when their network descriptions differ (ctx NULL:
   kind must be an error). extra[0..nextra) (nextra <= 4) are maximised in the
   same allreduce into extra_max. Returns the agreed HSPLIT kind. */
int hsplit_agree(const hsplit_context *ctx, MPI_Comm comm, int kind, const int *extra,
                 int nextra, int *extra_max);

/* ---- hlevel.c: level info attached to communicators made by a split ---- */

typedef struct {
    int num_comms;
    int index;
    char type[HSPLIT_MAX_HLEVEL_NAME];
} hsplit_hlevel;

/* Attach a copy of level to comm. Returns an MPI error code. */
int hsplit_hlevel_attach(MPI_Comm comm, const hsplit_hlevel *level);

/* Attribute callbacks of the hlevel keyval (used by registry.c). */
int hsplit_hlevel_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                       int *flag);
int hsplit_hlevel_delete(MPI_Comm comm, int keyval, void *value, void *extra);

/* ---- location_table.c: where every process is, and rank maps ---- */

/* The rank map of comm (comm rank -> MPI_COMM_WORLD rank), made on first use
   and kept as an attribute. When locations are not computed, making it also
   exchanges the locations of comm's processes into the world table: then it
   is collective over comm. Returns an HSPLIT kind, agreed when collective. */
int hsplit_comm_rankmap(MPI_Comm comm, const hsplit_rankmap **map);
/* The rank map of child, made by splitting parent (which has one): local. */
int hsplit_attach_child_rankmap(MPI_Comm parent, MPI_Comm child);
/* Node id and binding of a world process; -1 if not known. */
int hsplit_location_of(hsplit_context *ctx, int world_rank, int64_t *node,
                       hwloc_bitmap_t binding);
/* Node id and switch path (top first, *len ids) of a world process; -1 if
   not known. */
int hsplit_network_location_of(hsplit_context *ctx, int world_rank, int64_t *node,
                               unsigned long path[HSPLIT_MAX_SWITCH_LEVELS], int *len);
int hsplit_rankmap_attr_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                             int *flag);
int hsplit_rankmap_attr_delete(MPI_Comm comm, int keyval, void *value, void *extra);
/* Release the location state of a context. */
void hsplit_locations_free(hsplit_context *ctx);

/* ---- context attribute callback (process_context.c) ---- */
int hsplit_context_delete(MPI_Comm comm, int keyval, void *value, void *extra);

/* ---- hierarchy.c: the hierarchy the collectives run over ---- */

/* Per-communicator collective settings, read from the environment when the
   hierarchy is built (the same on every process). */
typedef struct {
    int mode;            /* HSPLIT_COLL_AUTO, _ON or _OFF          */
    long segment_bytes;  /* pipelining segment; 0: by message size  */
    int min_procs;       /* below: plain MPI                        */
    long min_bytes, max_bytes; /* outside: plain MPI (auto mode)    */
    long rsag_bytes;     /* allreduce of a commutative operation:
                            reduce-scatter/allgather from this many
                            bytes on; -1: never                     */
    int trials;          /* auto: timed calls of each path per size
                            class before choosing; 0: no measuring  */
    int report;          /* print each choice on stderr (rank 0)    */
    int shm;             /* HSPLIT_COLL_SHM: _AUTO, _ON or _OFF     */
    long shm_bytes;      /* node segment bytes per process          */
    long shm_fanout;     /* processes per group of the node's tree  */
    int rules;           /* HSPLIT_COLL_RULES names a file (auto)   */
    int has_schedule;    /* HSPLIT_COLL_SCHEDULE set: the schedule of
                            bcast, reduce and allreduce on the hierarchy */
    hsplit_schedule schedule;
    int ncandidates;     /* HSPLIT_COLL_SCHEDULES: what auto mode
                            measures besides plain MPI, the default tree
                            and shared memory */
    hsplit_engine_candidate candidates[HSPLIT_ENGINE_CANDIDATES];
    const char *bad;     /* the malformed variable, or NULL         */
} hsplit_coll_config;

enum { HSPLIT_COLL_AUTO = 0, HSPLIT_COLL_ON, HSPLIT_COLL_OFF };

/* The collectives whose choice between the hierarchy and plain MPI is
   measured (coll_select.c). */
enum {
    HSPLIT_COLL_BCAST, HSPLIT_COLL_REDUCE, HSPLIT_COLL_ALLREDUCE, HSPLIT_COLL_GATHER,
    HSPLIT_COLL_SCATTER, HSPLIT_COLL_ALLGATHER, HSPLIT_COLL_BARRIER, HSPLIT_COLL_GATHERV,
    HSPLIT_COLL_SCATTERV, HSPLIT_COLL_ALLGATHERV, HSPLIT_COLL_ALLTOALL, HSPLIT_COLL_ALLTOALLV,
    HSPLIT_COLL_REDUCE_SCATTER_BLOCK, HSPLIT_COLL_REDUCE_SCATTER, HSPLIT_COLL_SCAN,
    HSPLIT_COLL_EXSCAN, HSPLIT_COLL_NKINDS
};
/* The collectives whose node part may run in shared memory. */
static inline int hsplit_coll_shm_kind(int kind)
{
    return kind == HSPLIT_COLL_BCAST || kind == HSPLIT_COLL_REDUCE ||
           kind == HSPLIT_COLL_ALLREDUCE || kind == HSPLIT_COLL_BARRIER ||
           kind == HSPLIT_COLL_GATHER || kind == HSPLIT_COLL_SCATTER ||
           kind == HSPLIT_COLL_ALLGATHER;
}
/* The size a collective passes to hsplit_coll_begin and hsplit_coll_choose
   when its processes do not all know the message size (gatherv, scatterv
   and alltoallv: each knows its own counts only). Agreeing on a size before
   the call would cost a collective per call, so their size class is the
   one learned below, and the byte thresholds (HSPLIT_COLL_MIN_BYTES,
   _MAX_BYTES) do not apply to them. */
#define HSPLIT_COLL_ANY_SIZE LONG_MIN
/* For these kinds, the size class of a call is the one the last call that
   took the hierarchy agreed on (hsplit_coll_learn_size; 0 until then): the
   hierarchy's schedule exchanges sizes anyway, and can agree on one for
   nothing more (gatherv, whose sizes only travel up, for one 8-byte bcast
   from the root in auto mode), while plain MPI cannot. A class where plain
   MPI won stays plain until the hierarchy is taken again, which costs
   nothing against MPI (the calls go to MPI's at once: bit 0 of plain[]); a
   class where the hierarchy won learns the next call's size, so that a new
   size is measured before it is kept. */
/* Whether a kind is one of those. */
static inline int hsplit_coll_unsized(int kind)
{
    return kind == HSPLIT_COLL_GATHERV || kind == HSPLIT_COLL_SCATTERV ||
           kind == HSPLIT_COLL_ALLTOALLV;
}
#define HSPLIT_COLL_MAX_TRIALS 5
/* The second measurement of a size class takes this many times as many
   samples of each path (the differences it settles are often a few hundred
   nanoseconds, the noise of one sample as much), at most the bound below. */
#define HSPLIT_COLL_RECHECK_FACTOR 4
#define HSPLIT_COLL_MAX_SAMPLES 16
/* A communicator the collectives made for themselves, just made. Under
   SMPI, a communicator's first collective under the `mpich` selector also
   gathers where its processes are (SMPI's smp-aware setup, communication
   on the simulated clock), which an MPI library does when it makes the
   communicator: done here, so that no collective and no measurement of
   auto mode counts it (the first 32 KiB allreduce of mlall on EPYC16:
   35.0 us, every later one 28.5). Elsewhere nothing. */
static inline int hsplit_comm_made(MPI_Comm comm)
{
    if (!HSPLIT_UNDER_SMPI || comm == MPI_COMM_NULL) return MPI_SUCCESS;
    int one = 1, all = 0;
    return MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm);
}
/* Default of HSPLIT_COLL_SHM_BYTES: the node segment's bytes per process. */
#define HSPLIT_COLL_SHM_BYTES_DEFAULT 65536L
/* Default of HSPLIT_COLL_RSAG_BYTES (user guide, section 8). */
#define HSPLIT_COLL_RSAG_DEFAULT 524288L
/* Segments chosen by message size (HSPLIT_COLL_SEGMENT_SIZE unset): none
   below PIPELINE_BYTES, then at least MIN_SEGMENT bytes and at most
   MAX_SEGMENTS segments. */
#define HSPLIT_COLL_PIPELINE_BYTES 262144L
#define HSPLIT_COLL_MIN_SEGMENT 65536L
#define HSPLIT_COLL_MAX_SEGMENTS 16L
#define HSPLIT_COLL_TRIAL_SLOTS 4

/* The paths a collective may take: MPI's own call, the hierarchy with
   messages at every level, the hierarchy with the node's shared memory
   (hsplit_coll_shm_kind). */
/* The engine's schedules (coll_engine.c) are paths too: the candidates
   auto mode measures (hsplit_engine_candidates), and the schedule
   HSPLIT_COLL_SCHEDULE forces. */
enum {
    HSPLIT_PATH_PLAIN = 0, HSPLIT_PATH_TREE, HSPLIT_PATH_SHM, HSPLIT_PATH_ENGINE,
    HSPLIT_PATH_FORCED = HSPLIT_PATH_ENGINE + HSPLIT_ENGINE_CANDIDATES,
    HSPLIT_PATH_RULED,   /* a schedule a rules file names (never measured) */
    HSPLIT_NPATHS
};
/* The collectives the engine runs: bcast, reduce and allreduce with any
   schedule, allgather with the multi-leader one (ml) only. */
static inline int hsplit_coll_engine_kind(int kind)
{
    return kind == HSPLIT_COLL_BCAST || kind == HSPLIT_COLL_REDUCE ||
           kind == HSPLIT_COLL_ALLREDUCE || kind == HSPLIT_COLL_ALLGATHER;
}
/* The allgather: ml only; the multi-leader schedules over several levels
   (mlall, mlnet): the allreduce and the bcast. */
static inline int hsplit_engine_serves(int kind, const hsplit_schedule *s)
{
    if (s->view == HSPLIT_VIEW_MLALL || s->view == HSPLIT_VIEW_MLNET)
        return kind == HSPLIT_COLL_ALLREDUCE || kind == HSPLIT_COLL_BCAST;
    return hsplit_coll_engine_kind(kind) &&
           (kind != HSPLIT_COLL_ALLGATHER || s->view == HSPLIT_VIEW_ML);
}
/* The library's candidate schedules (HSPLIT_COLL_SCHEDULES=auto). */
#define HSPLIT_ENGINE_DEFAULTS 12
/* A number macro as the text of its digits, for the settings'
   descriptions (which then follow the counts above). */
#define HSPLIT_NUMBER_TEXT_(n) #n
#define HSPLIT_NUMBER_TEXT(n) HSPLIT_NUMBER_TEXT_(n)
_Static_assert(HSPLIT_ENGINE_DEFAULTS <= HSPLIT_ENGINE_CANDIDATES,
               "the library's candidates fit a settings' list");
extern const hsplit_engine_candidate hsplit_engine_candidates[HSPLIT_ENGINE_DEFAULTS];

/* A size class being measured: call c of the trial runs path c % n of the
   n candidate paths, and records its time. */
typedef struct {
    int size_class;      /* -1: free                                 */
    int calls;
    int npaths;          /* candidates: plain MPI and 1 or 2 more   */
    int samples;         /* timed calls of each path                */
    int paths[HSPLIT_NPATHS]; /* their HSPLIT_PATH_*                */
    double time[HSPLIT_NPATHS][HSPLIT_COLL_MAX_SAMPLES]; /* by path */
} hsplit_coll_trial_slot;

/* Decided calls of a size class before it is measured a second time: the
   first measurement falls into the MPI's own warm-up at a new size (MPICH
   4.0's first 20 or so calls of a size take 2 to 3 times its steady time),
   the second one sees steady calls. */
#define HSPLIT_COLL_RECHECK_CALLS 32
/* The hierarchical paths measured again besides plain MPI: the fastest of
   the first measurement. Its 12 samples of each of up to 12 paths took 144
   calls, most on paths that had lost by far (a 64 KiB bcast on 32 processes:
   the binomial and ml schedules at 3 to 4 times plain MPI's time). */
#define HSPLIT_COLL_FINALISTS 2

/* What one collective has learnt: bit c of decided is set once size class c
   (bytes in [2^(c-1), 2^c), class 0: no bytes) is measured, bit c of
   use_tree when the hierarchy won there, and also of use_shm when its
   shared-memory variant did; bit c of final once it is measured the second
   time (only then do its calls take the direct routes at the top of the
   call: until then they are counted in since[c]). */
typedef struct {
    uint64_t decided, use_tree, use_shm, final;
    /* the rules file (HSPLIT_COLL_RULES): bit c of rules_seen once size
       class c is looked up in it, of ruled when one rule decides the whole
       class (decided and final are set too, as a second measurement would),
       of rules_split when rules decide some of its sizes (per call; the
       others are measured, and the class takes no direct route), of
       rules_said once HSPLIT_COLL_REPORT said so */
    uint64_t rules_seen, ruled, rules_split, rules_said;
    uint8_t since[64];
    /* bit p of finalists[c]: path p is measured again for size class c
       (plain MPI and the HSPLIT_COLL_FINALISTS fastest other paths of the
       first measurement); 0 before it */
    uint32_t finalists[64];
    uint8_t chosen[64];  /* bit c of use_tree set, of use_shm clear: the
                            hierarchical path size class c takes (TREE, or
                            an engine schedule) */
    hsplit_schedule ruled_schedule[64]; /* chosen[c] HSPLIT_PATH_RULED: the
                            schedule of the rule that decides class c */
    hsplit_coll_trial_slot slots[HSPLIT_COLL_TRIAL_SLOTS];
    int next_slot;       /* the slot a new size class takes when all are busy */
    int learned_class;   /* kinds without an agreed size: the size class the
                            hierarchy's last call agreed on (0 at first) */
} hsplit_coll_tuning;

/* The tree of a communicator: at every level l, the processes of each group
   of level l-1 are split along the hardware; the "roots" communicator of that
   split holds the leader (lowest rank) of every new group and every process
   the split left alone. A process belongs to the roots communicators of a run
   of consecutive levels: it receives at the first and leads below. */
typedef struct hsplit_hierarchy {
    MPI_Comm user;        /* the communicator the hierarchy belongs to     */
    MPI_Comm base;        /* private copy of user: point-to-point messages */
    int size, rank;
    int first;            /* level of roots[0]                              */
    int nlevels;          /* roots communicators of this process            */
    MPI_Comm *roots;      /* roots[i]: the roots communicator at level first+i */
    int **counts;         /* counts[i][j]: processes under member j of roots[i] */
    int depth;            /* agreed: the most levels of any process         */
    int multi_node;       /* agreed: several nodes, so level 0 places every
                             process: its groups are the nodes, or the
                             top-level switch groups under a switch tree    */
    int node_leader;      /* comm rank of the leader of this process's
                             level-0 group (the comm's rank 0 on one node)  */
    int *top_starts;      /* several nodes, members of level 0: where the
                             subtree of each roots[0] member starts in tree
                             order (prefix sums of counts[0], one more)     */
    hsplit_rankmap order; /* tree position -> comm rank (what a gather
                             collects); direct when tree order is rank order */
    hsplit_coll_config config;
    const hsplit_coll_rules *rules; /* the communicator's rules file, agreed
                                       (its state's; NULL: none) */
    hsplit_coll_tuning tuning[HSPLIT_COLL_NKINDS]; /* auto mode's measurements */
    /* multi-leader schedules (coll_multileader.c), made on their first
       use: this process's node (one node: its level-0 group), the holders
       of its piece in every group (MPI_COMM_NULL: it holds none), and the
       number of pieces (agreed: the smallest group's size) */
    int rsag_ready;
    MPI_Comm rsag_group, rsag_cross;
    int rsag_pieces;
    /* the node groups in rank terms (coll_node_layout.c), made on first
       use after the node groups: node_order lists the comm ranks group
       after group (groups in the order of their leaders' ranks, the order
       of rsag_cross among leaders; members in rank order), node_starts[g]
       where group g starts (nnodes + 1), node_largest the largest group;
       nodes_contiguous (agreed) says every group is a range of consecutive
       ranks; node_lasts holds the last process of every group (contiguous
       only, else MPI_COMM_NULL) */
    int nodes_ready;
    int nodes_contiguous, nnodes, node_index, node_largest;
    int *node_order, *node_starts;
    int *node_slot;       /* node_slot[r]: where rank r is in node_order  */
    MPI_Comm node_lasts;
    /* the node's shared segment (coll_shm_segment.c), made on first use;
       NULL when shared memory cannot serve this hierarchy */
    int shm_ready;
    struct hsplit_shm *shm;
    /* the engine's views (coll_view.c), made on first use; NULL until then */
    struct hsplit_view *views[HSPLIT_NVIEWS];
    /* the stages of the multi-leader schedules over several levels
       (coll_ml_levels.c), per kind, made on first use; NULL until then */
    struct hsplit_ml_levels *ml_levels[2]; /* HSPLIT_ML_LEVEL_KINDS */
    hsplit_context *ctx;  /* for the live list; NULL once detached          */
    struct hsplit_hierarchy *prev, *next;
} hsplit_hierarchy;

/* The hierarchy of comm, built collectively on first use. Returns an MPI code. */
int hsplit_hierarchy_get(MPI_Comm comm, hsplit_hierarchy **h);

/* The deepest hierarchy the collectives build. Every level's groups are
   strictly smaller than their parents' and a level descends at least one
   level of the topology (hwloc: some 10 to 20), of the switch tree
   (HSPLIT_MAX_SWITCH_LEVELS) or to the nodes, so that a deeper one means
   bindings that contradict the topology: the build fails with
   MPI_ERR_INTERN, said on stderr, rather than splitting on. */
#define HSPLIT_MAX_LEVELS 64
/* What the build does at level `level` (0: the communicator itself) after
   splitting a group of psize processes into num groups (the split's agreed
   count), this process's new group having csize processes (1 when it has
   none). Pure, for the unit test. */
enum {
    HSPLIT_LEVELS_SPLIT = 0, /* a roots communicator of the new groups'
                                leaders and the processes left alone; the
                                descent goes on in each new group          */
    HSPLIT_LEVELS_FLAT,      /* no group strictly smaller (none, single
                                processes, or the group itself again): the
                                group is its own roots communicator, the
                                descent ends                               */
    HSPLIT_LEVELS_TOO_DEEP   /* level >= HSPLIT_MAX_LEVELS: an error         */
};
int hsplit_levels_step(int level, int psize, int num, int csize);
int hsplit_hierarchy_delete(MPI_Comm comm, int keyval, void *value, void *extra);
/* Frees every hierarchy still alive (called when the context goes). */
void hsplit_hierarchy_release_all(hsplit_context *ctx);

/* Roots communicator of this process at level l, or MPI_COMM_NULL. */
MPI_Comm hsplit_roots_at(const hsplit_hierarchy *h, int level);
/* Subtree sizes of the members of the roots communicator at level l. */
const int *hsplit_counts_at(const hsplit_hierarchy *h, int level);
/* Rank, in the roots communicator of level l, of the member a collective
   rooted at comm rank root starts from (level 0 on several nodes: the leader
   of the root's level-0 group; elsewhere the leader, rank 0). */
int hsplit_root_at(const hsplit_hierarchy *h, int level, int root);
/* The process that holds the data at the top for a collective rooted at root:
   the leader of the root's level-0 group (several nodes) or comm rank 0. Is
   it me? */
int hsplit_is_top_holder(const hsplit_hierarchy *h, int root);

/* ---- coll_settings.c: the settings of the collectives, read once ---- */

/* A setting, declared once: its variable (and info key), its type (the
   mode: auto, on, off; an integer in [min, max]; a path, any string, parsed
   as 1 when not empty), its default, and what the user guide and
   hsplit-info --settings say of it. */
enum {
    HSPLIT_SETTING_INT = 0, HSPLIT_SETTING_MODE, HSPLIT_SETTING_PATH, HSPLIT_SETTING_SCHEDULE,
    HSPLIT_SETTING_SCHEDULES
};
typedef struct {
    const char *name;
    int type;
    long fallback, min, max;
    const char *default_text, *expected, *description;
} hsplit_coll_setting;

enum {
    HSPLIT_SET_MODE, HSPLIT_SET_SEGMENT, HSPLIT_SET_MIN_PROCS, HSPLIT_SET_MIN_BYTES,
    HSPLIT_SET_MAX_BYTES, HSPLIT_SET_RSAG, HSPLIT_SET_TRIALS, HSPLIT_SET_REPORT,
    HSPLIT_SET_SHM, HSPLIT_SET_SHM_BYTES, HSPLIT_SET_SHM_FANOUT, HSPLIT_SET_RULES,
    HSPLIT_SET_SCHEDULE, HSPLIT_SET_SCHEDULES, HSPLIT_COLL_NSETTINGS
};
extern const hsplit_coll_setting hsplit_coll_settings[HSPLIT_COLL_NSETTINGS];

/* Index of the setting called name, or -1. */
int hsplit_coll_setting_index(const char *name);
/* Setting i's value (NULL or empty: its default) into *out; -1 when
   malformed, else 0. */
int hsplit_coll_parse_setting(int i, const char *value, long *out);
/* The HSPLIT_COLL* variables (NULL: unset), in one pass over environ. */
void hsplit_coll_environment(const char *values[HSPLIT_COLL_NSETTINGS]);
/* The settings of values (NULL: default). Returns MPI_ERR_ARG, with
   config->bad naming the first malformed one, or MPI_SUCCESS. */
int hsplit_coll_config_from(const char *const values[HSPLIT_COLL_NSETTINGS],
                            hsplit_coll_config *config);
/* The HSPLIT_COLL* keys of comm's own info (MPI_Comm_get_info; NULL:
   none), copied into values, which the caller frees; settings whose skip[i]
   is set are not looked at. Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI's
   code when MPI_Comm_get_info fails. Local. */
int hsplit_coll_comm_info(MPI_Comm comm, const int skip[HSPLIT_COLL_NSETTINGS],
                          char *values[HSPLIT_COLL_NSETTINGS]);
/* The HSPLIT_COLL* environment variables. Returns MPI_ERR_ARG, with
   config->bad naming the variable, when one is malformed (the same on every
   process: the environment is). */
int hsplit_coll_read_config(hsplit_coll_config *config);

/* What a communicator's collectives know, in an attribute made at its first
   collective: the settings (read once) and, per collective, the size
   classes that take MPI's own call, so that such a call costs one attribute
   look-up and one branch. */
typedef struct {
    uint64_t plain[HSPLIT_COLL_NKINDS]; /* bit c: size class c goes to MPI
                                           directly (off mode, auto's
                                           thresholds and decisions, a flat
                                           hierarchy); 0 until ready or on
                                           malformed settings */
    int rank, size;
    int ready;            /* settings read (a duplicate's hints wait)     */
    int flat;             /* the hierarchy has one level: plain MPI always */
    int flat_but_shm;     /* one level, but the node's shared memory may
                             serve the kinds of hsplit_coll_shm_kind:
                             plain MPI always for the others            */
    hsplit_coll_config config;
    uint64_t decided_plain[HSPLIT_COLL_NKINDS]; /* auto mode's choices of MPI */
    char *values[HSPLIT_COLL_NSETTINGS]; /* raw values, NULL: default      */
    int source[HSPLIT_COLL_NSETTINGS];   /* HSPLIT_SOURCE_*: where each came
                                            from (before ready: the hints) */
    int info_disagree;                   /* the communicator's HSPLIT_COLL*
                                            info keys differ between
                                            processes or are malformed on
                                            one: every collective fails */
    unsigned long hierarchy_calls;       /* calls the hierarchy served (what
                                            libhsplit_pmpi's report counts;
                                            MPI allows one collective at a
                                            time per communicator) */
    uint64_t shm_direct[HSPLIT_COLL_NKINDS]; /* bit c: size class c takes the
                                                node's shared memory for good
                                                (forced, or auto's choice) */
    hsplit_hierarchy *shm_hierarchy;     /* whose segment those calls use (the
                                            communicator's own: it lives as
                                            long as this state) */
    int rules_status;                    /* HSPLIT_RULES_*                 */
    hsplit_coll_rules rules;             /* HSPLIT_COLL_RULES, parsed, agreed */
} hsplit_coll_state;

/* The rules file of a communicator: none (not auto mode, or no file), to
   read and agree on at its next collective (after the settings are read
   or changed), read and agreed, or malformed, unreadable or different
   between processes (every collective: MPI_ERR_ARG). While it is pending
   or bad, no call takes a fast path at the top. */
enum { HSPLIT_RULES_NONE = 0, HSPLIT_RULES_PENDING, HSPLIT_RULES_OK, HSPLIT_RULES_BAD };
/* Reads the communicator's rules file and agrees on it (one MPI_Allreduce
   over comm: every process is in the same collective); a bad file, or
   different rules on different processes, is said once on rank 0's
   standard error. Returns MPI's code of the allreduce. */
int hsplit_coll_rules_settle(MPI_Comm comm, hsplit_coll_state *state);

/* comm's state when a collective made it already, else NULL (MPI_COMM_NULL
   included); costs one attribute look-up. */
hsplit_coll_state *hsplit_coll_state_find(MPI_Comm comm);
/* comm's state, made on first use, not ready yet (comm checked: an
   intracommunicator). */
int hsplit_coll_state_get(MPI_Comm comm, hsplit_coll_state **state);
/* Completes a state at the communicator's first collective: its hints, else
   its own info keys, else the variables; the processes agree on the info
   keys with one allreduce over comm (every process is in that collective). */
int hsplit_coll_state_ready(MPI_Comm comm, hsplit_coll_state *state);
/* Calls of comm's collectives that the hierarchy served so far (0 before
   its first collective). */
unsigned long hsplit_coll_hierarchy_calls(MPI_Comm comm);
/* Parses the state's values again and recomputes its plain masks. */
void hsplit_coll_state_update(hsplit_coll_state *state);

/* 0 for no bytes, else 1 + floor(log2(bytes)), at most 63. */
static inline int hsplit_size_class(long bytes)
{
    if (bytes <= 0) return 0;
#if defined(__GNUC__) || defined(__clang__)
    return 64 - __builtin_clzll((unsigned long long)bytes);
#else
    int c = 0;
    while (bytes > 0 && c < 63) {
        bytes >>= 1;
        c++;
    }
    return c;
#endif
}

/* Whether a collective of this kind and size goes straight to MPI's own
   call (s from hsplit_coll_state_find, NULL: no). */
static inline int hsplit_coll_plain(const hsplit_coll_state *s, int kind, long bytes)
{
    return s != NULL && ((s->plain[kind] >> hsplit_size_class(bytes)) & 1);
}

/* The hierarchy whose node segment serves a collective of this kind and
   size at once, without the choice (shared memory decided for its size
   class), else NULL. The caller has checked what the full path checks. */
static inline hsplit_hierarchy *hsplit_coll_shm_direct(const hsplit_coll_state *s, int kind,
                                                       long bytes)
{
    return s != NULL && ((s->shm_direct[kind] >> hsplit_size_class(bytes)) & 1)
               ? s->shm_hierarchy
               : NULL;
}

/* The same for a collective of blocks (gather, scatter, allgather) of
   bytes each: the segment when its size class is decided for it and the
   blocks of every process fit an int of bytes, as the full path requires. */
static inline hsplit_hierarchy *hsplit_coll_shm_direct_blocks(const hsplit_coll_state *s,
                                                              int kind, long bytes, int root)
{
    if (s == NULL || bytes <= 0 || bytes > INT_MAX / s->size || root < -1 || root >= s->size)
        return NULL;
    return hsplit_coll_shm_direct(s, kind, bytes);
}

/* Bytes of count elements when count > 0 and MPI_Type_size knows them, else
   0 (the fast paths' size class; 0 sends the call down the full path). */
static inline long hsplit_coll_bytes(int count, MPI_Datatype datatype)
{
    int size = 0;
    return count > 0 && MPI_Type_size(datatype, &size) == MPI_SUCCESS ? (long)count * size : 0;
}

/* ---- coll_util.c: shared pieces of the collectives ---- */

/* MPI_ERR_COMM unless comm is an intracommunicator (MPI_COMM_NULL included):
   what every public collective checks before anything asks comm. */
int hsplit_coll_check_comm(MPI_Comm comm);

/* Check comm (and root, when root >= -1 is meaningful: pass -2 for none) and
   the HSPLIT_COLL* variables (MPI_ERR_ARG, said on rank 0's stderr), and
   choose: *h gets the hierarchy, or NULL when the plain MPI collective should
   run. The choice is the same on every process. Returns an MPI code. */
int hsplit_coll_begin(MPI_Comm comm, long bytes, int root, hsplit_hierarchy **h);

/* A process that gave MPI_IN_PLACE for a receive buffer where MPI does not
   allow it, but whose input is defined, still takes its part (with a scratch
   receive buffer from hsplit_temp_buffer, *base) so that the others complete:
   the end of its call frees base and fails with code, on comm's handler,
   unless the call failed already (rc, raised then). */
int hsplit_coll_misused(MPI_Comm comm, void *base, int rc, int code);

/* ---- coll_select.c: measured choice between the hierarchy and plain MPI ---- */
/* One call's part in a measurement (h NULL: the call is not measured). */
typedef struct {
    hsplit_hierarchy *h;
    hsplit_coll_trial_slot *slot;
    hsplit_coll_tuning *tuning;
    int path;            /* HSPLIT_PATH_*: what this call runs       */
    int shm;             /* the hierarchy's node part in shared memory
                            (set with or without a measurement)      */
    const hsplit_schedule *schedule; /* the engine's schedule this call
                            runs, or NULL                            */
    double start;
} hsplit_coll_trial;

/* In auto mode, with a usable hierarchy *h: keeps *h when the hierarchy is the
   choice for this collective and size, sets it to NULL when plain MPI is.
   Until a size class is decided, calls alternate between the candidates and
   are timed (the same on every process: the call sequence is). t->shm says
   whether the hierarchy's node part runs in shared memory: a third
   candidate in auto mode (HSPLIT_COLL_SHM=auto), always with
   HSPLIT_COLL_SHM=on, never with off; the node segment is made here on the
   first call that can use it (collective: every process is in this call).
   Call hsplit_coll_record after the collective, with its return code. */
void hsplit_coll_choose(hsplit_hierarchy **h, int kind, long bytes, hsplit_coll_trial *t);
/* A call of an unsized kind that took the hierarchy agreed on bytes (the
   same on every process): the size class of the kind's next calls. */
void hsplit_coll_learn_size(hsplit_hierarchy *h, int kind, long bytes);
/* Records a measured call; the last trial call of a size class agrees on the
   choice (one allreduce of the slowest process's median times). */
int hsplit_coll_record(hsplit_coll_trial *t, int rc);
/* The end of every collective: records the trial, and raises an error of the
   hierarchical path on comm (plain MPI has raised its own already). */
int hsplit_coll_finish(MPI_Comm comm, const hsplit_hierarchy *used, hsplit_coll_trial *t, int rc);
/* The end of a call that hsplit_coll_shm_direct sent to the segment: counted
   as the hierarchy's, an error raised on comm. */
int hsplit_coll_direct_done(MPI_Comm comm, hsplit_coll_state *s, int rc);
/* A buffer for count elements of datatype (any extent); *base is what to
   free. NULL (and *base NULL) when out of memory or when the bytes would not
   fit a size_t. */
void *hsplit_temp_buffer(int64_t count, MPI_Datatype datatype, void **base);
/* MPI_Pack and MPI_Unpack that also take MPI_BOTTOM as the user buffer. */
int hsplit_pack(const void *inbuf, int count, MPI_Datatype datatype, void *outbuf, int outsize,
                int *position, MPI_Comm comm);
int hsplit_unpack(const void *inbuf, int insize, int *position, void *outbuf, int count,
                  MPI_Datatype datatype, MPI_Comm comm);
/* Whether MPI may move a datatype's elements as the bytes they lie in, for
   any partner's datatype of equal signature: a predefined type without gaps
   (lb 0, size = extent = true extent; MPI_DATATYPE_NULL: no). The plain
   paths of the alltoalls and of allgatherv move other types packed, as
   bytes: Open MPI 4.1's Bruck MPI_Alltoall and MPICH 4.0's ring
   MPI_Allgatherv cut messages in elements of each process's own datatype
   and get type maps that differ between processes wrong. */
int hsplit_type_dense_named(MPI_Datatype type);
/* Copy count elements of datatype (MPI_Sendrecv on MPI_COMM_SELF). */
int hsplit_local_copy(const void *src, void *dst, int count, MPI_Datatype datatype);
/* Complete n requests (MPI_Waitall without MPI_STATUSES_IGNORE, which gcc
   flags with MPICH's definition). */
int hsplit_wait_all(int n, MPI_Request *requests);
/* Bytes per pipeline segment for a message of `bytes` (bytes itself: not
   cut): HSPLIT_COLL_SEGMENT_SIZE when set, else chosen by the size. */
long hsplit_segment_bytes(const hsplit_hierarchy *h, long bytes);
/* Whether a datatype's elements lie in memory as their bytes, one after
   the other from the buffer's address (size = extent = true extent, lower
   bounds 0): what can be moved or cut as bytes. */
int hsplit_type_contiguous(MPI_Datatype datatype);
/* Elements per pipeline segment for count elements of a datatype (count
   itself when the message is not to be cut). */
int hsplit_segment_elements(const hsplit_hierarchy *h, int count, MPI_Datatype datatype);
/* Segments of seg elements in count (at least 1), without overflow. */
int hsplit_segment_count(int count, int seg);
/* Frees the reduce-scatter/allgather communicators and the node layout
   (hierarchy.c, while MPI works). */
void hsplit_rsag_free(hsplit_hierarchy *h);
/* The two-level view of h, made on first use (collective over h->base: every
   process calls it in the same collective call): h->rsag_group, this
   process's node (one node: its level-0 group; a process left alone is a
   group of its own), ranked as in h->base; h->rsag_cross, the processes of
   the same group rank i < h->rsag_pieces across the groups, ranked as in
   h->base (i = 0: the group leaders). Returns an MPI code. */
int hsplit_node_groups(hsplit_hierarchy *h);
/* A non-commutative operation needs the tree order to be the rank order
   (h->order direct) for the hierarchical reductions. */
int hsplit_needs_rank_order(const hsplit_hierarchy *h, MPI_Op op);
/* The hierarchical reduce of count > 0 elements to comm rank root (recvbuf
   significant there only; sendbuf MPI_IN_PLACE at the root reads recvbuf);
   operations in rank order when hsplit_needs_rank_order is false. */
int hsplit_reduce_tree(const hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root);
/* Pipelined hierarchical broadcast of count elements from the top holder
   (levels from `from` down); buffer on every process. */
int hsplit_tree_bcast(const hsplit_hierarchy *h, void *buffer, int count,
                      MPI_Datatype datatype, int root, int from_level);
/* Allgather of blockbytes from every process, in tree order, into out
   (size * blockbytes bytes) on every process. */
int hsplit_tree_allgather_bytes(const hsplit_hierarchy *h, const void *mine, int blockbytes,
                                void *out);
/* Byte counts and displacements of n members holding counts[j] blocks of
   blockbytes each, in one allocation (free the returned pointer; *displs
   points inside it); *total gets the sum. NULL if out of memory or if the
   bytes exceed an int. */
int *hsplit_byte_layout(const int *counts, int n, int blockbytes, int **displs, int *total);
/* ---- coll_gatherv.c: pieces that HSPLIT_Scatterv shares ---- */

/* Bytes per point-to-point message of the vector collectives, whose blocks
   may sum to more than an int: HSPLIT_COLL_SEGMENT_SIZE when set (so that
   the tests cut small messages), else 1 GiB. The same on every process. */
int64_t hsplit_vector_piece(const hsplit_hierarchy *h);
/* Requests of messages cut in pieces, completed together. */
typedef struct {
    MPI_Request *reqs;
    int n, cap;
} hsplit_requests;
/* Post bytes (>= 0) to or from peer on comm in pieces of `piece` bytes
   (tag HSPLIT_TAG_LIFT); both sides cut alike. Returns an MPI code. */
int hsplit_post_pieces(hsplit_requests *q, int send, char *buf, int64_t bytes, int peer,
                       MPI_Comm comm, int64_t piece);
/* Complete and forget the requests (the list is freed). */
int hsplit_requests_wait(hsplit_requests *q);
/* Bytes of one element of datatype when MPI_Pack can take one (at most an
   int), else -1. */
int64_t hsplit_element_bytes(MPI_Datatype datatype);
/* Pack or unpack count elements of elembytes (from hsplit_element_bytes)
   packed bytes each, by pieces of at most an int of bytes: a block may hold
   more. */
int hsplit_pack_elements(const void *buf, int count, MPI_Datatype datatype, int64_t elembytes,
                         char *out, MPI_Comm comm);
int hsplit_unpack_elements(const char *in, void *buf, int count, MPI_Datatype datatype,
                           int64_t elembytes, MPI_Comm comm);
/* A scratch receive buffer for the blocks at displs[i] of counts[i]
   elements, i < n (a process that gave MPI_IN_PLACE where MPI does not
   allow it still takes its part): NULL if out of memory. */
void *hsplit_temp_vector(const int *counts, const int *displs, int n, MPI_Datatype datatype,
                         void **base);
/* The node groups in rank terms (h->node_order, node_starts,
   nodes_contiguous, node_lasts), made on first use after hsplit_node_groups
   (collective over h->base, like it). Returns an MPI code. */
int hsplit_node_layout(hsplit_hierarchy *h);
/* Frees them (from hsplit_rsag_free). */
void hsplit_node_layout_free(hsplit_hierarchy *h);
/* The node group (index in the layout's order) of comm rank `rank`, and
   *position, its rank within the group (layout made). */
int hsplit_node_layout_find(const hsplit_hierarchy *h, int rank, int *position);
/* ---- coll_shm_schedule.c: the node part in shared memory (h->shm made
   by hsplit_shm_get), the leaders with the MPI's collective; root a comm
   rank. Non-commutative operations: only where the tree order is the rank
   order (as the message-based tree). */
int hsplit_shm_schedule_barrier(hsplit_hierarchy *h);
int hsplit_shm_schedule_bcast(hsplit_hierarchy *h, void *buf, int count, MPI_Datatype datatype,
                              int root);
int hsplit_shm_schedule_reduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                               int count, MPI_Datatype datatype, MPI_Op op, int root);
int hsplit_shm_schedule_allreduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf,
                                  int count, MPI_Datatype datatype, MPI_Op op);
/* Gather, scatter, allgather: the node part into (from) the node leader,
   the leaders' MPI_Gatherv (Scatterv, Allgatherv) of the node blocks, which
   the root puts in rank order (nodes need not be ranges of ranks). */
int hsplit_shm_schedule_gather(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root);
int hsplit_shm_schedule_scatter(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root);
int hsplit_shm_schedule_allgather(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype);
/* ---- coll_view.c: the levels the engine runs over ---- */

/* One level of a view as this process sees it: its communicator (for the
   levels that run MPI's own collective), its members' ranks in h->base in
   the communicator's order, this process's index, and the view's level
   (0: the top) whose shape it takes. */
typedef struct {
    MPI_Comm comm;
    int n, me, index;
    int *members;
} hsplit_view_level;

/* The levels of a view this process is a member of, top first: a member at
   the first one (its leader or the top member above it), the leader (index
   0) at the others. */
typedef struct hsplit_view {
    int kind;             /* HSPLIT_VIEW_ALL, _TWO or _NET                  */
    int nlevels;
    hsplit_view_level level[HSPLIT_MAX_LEVELS];
    int top_base;         /* this process's top member (its leader on the
                             view's level 0; itself when it is on level 0) */
    int *top_starts;      /* ALL, level-0 members: tree position where each
                             member's subtree starts, and one more          */
} hsplit_view;

/* The view `kind` of h (HSPLIT_VIEW_ALL, _TWO or _NET), made on first use
   (collective over h->base: every process in the same collective call).
   Returns an MPI code, the same on every process. */
int hsplit_view_get(hsplit_hierarchy *h, int kind, hsplit_view **view);
/* Level-0 members: the index on level 0 of the member whose subtree holds
   comm rank root. */
int hsplit_view_top_index(const hsplit_hierarchy *h, const hsplit_view *view, int root);
/* Frees the views (memory only: they own no communicator). */
void hsplit_views_free(hsplit_hierarchy *h);

/* ---- coll_engine.c: schedules of per-level algorithms ---- */

/* Broadcast, reduce and allreduce as schedule s over its view (s->view
   HSPLIT_VIEW_ALL or _TWO); root a comm rank; count >= 0; contiguous or not.
   Non-commutative operations: only where hsplit_needs_rank_order is false.
   Returns an MPI code. */
int hsplit_engine_bcast(hsplit_hierarchy *h, const hsplit_schedule *s, void *buf, int count,
                        MPI_Datatype datatype, int root);
int hsplit_engine_reduce(hsplit_hierarchy *h, const hsplit_schedule *s, const void *sendbuf,
                         void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root);
int hsplit_engine_allreduce(hsplit_hierarchy *h, const hsplit_schedule *s, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op);
/* Makes what schedule s runs over (its view, or the node groups), so that a
   measured call does not time their making (collective over h->base, as
   the calls above). Returns an MPI code; on failure the call makes them
   again and fails the same way. */
int hsplit_engine_prepare(hsplit_hierarchy *h, const hsplit_schedule *s);

/* ---- coll_level_algo.c: one level's collective over point-to-point on
   base (the engine's "rd", "rab" and "ring" shapes), among the level's members
   l->members (base ranks); root a member index. Any datatype; count >= 0;
   buf is the whole message at every member. Return an MPI code. ---- */
/* Recursive doubling; exact in member order for non-commutative ops. */
int hsplit_level_allreduce_rd(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                              MPI_Datatype datatype, MPI_Op op, int noncommutative);
/* Rabenseifner's: reduce-scatter by recursive halving + allgather by
   recursive doubling; exact in member order as recursive doubling. */
int hsplit_level_allreduce_rab(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                               MPI_Datatype datatype, MPI_Op op, int noncommutative);
/* Ring reduce-scatter + ring allgather; commutative operations only. */
int hsplit_level_allreduce_ring(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                                MPI_Datatype datatype, MPI_Op op);
/* Binomial scatter from root + ring allgather. */
int hsplit_level_bcast_ring(MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
                            MPI_Datatype datatype, int root);
/* Ring reduce-scatter + gather of the blocks at root, into acc there (acc
   is clobbered elsewhere); commutative operations only. */
int hsplit_level_reduce_ring(MPI_Comm base, const hsplit_view_level *l, void *acc, int count,
                             MPI_Datatype datatype, MPI_Op op, int root);
/* Allgatherv in place over an even number of members by neighbour exchange:
   member i's counts[i] elements at displs[i] of buf (in extents) go to every
   member's buf. MPI_ERR_INTERN for an odd number. */
int hsplit_level_allgatherv_nx(MPI_Comm base, const hsplit_view_level *l, void *buf,
                               const int *counts, const int *displs, MPI_Datatype datatype);

/* ---- coll_multileader.c: multi-leader (split-rail) schedules over the
   two-level view of hsplit_node_groups (made here on first use: collective
   over h->base). The message is cut into h->rsag_pieces slices; process i
   of every group (i < pieces) carries slice i across the groups on
   h->rsag_cross, all slices at once; the group steps give every process
   (those of group rank >= pieces included) its part. Groups of different
   sizes and groups that are no ranges of ranks are fine. One node: the
   same schedules over its level-0 groups. root: a comm rank. cross: the
   algorithm of the step across the groups (a schedule's shape: MPI's own
   call, HSPLIT_SHAPE_RING for the bcast, reduce and allreduce, and
   HSPLIT_SHAPE_RD and HSPLIT_SHAPE_RAB for the allreduce; MPI's call for
   any other). Collective
   over h->base: every process calls with the same arguments MPI requires
   alike. Return an MPI code. ---- */
/* Any root and datatype, count 0; bytes in MPI's packed form (the buffer
   itself when a datatype's elements lie as their bytes), so processes may
   give different datatypes of one signature; messages beyond INT_MAX bytes
   go to MPI_Bcast on h->base. */
int hsplit_ml_bcast(hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                    int root, int cross);
/* Commutative operations only (MPI_ERR_OP otherwise, before any
   communication); MPI_IN_PLACE at the root; recvbuf significant at the root. */
int hsplit_ml_reduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root, int cross);
/* Commutative operations only (the caller checks); MPI_IN_PLACE. */
int hsplit_ml_allreduce(hsplit_hierarchy *h, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, int cross);
/* Blocks in rank order of h->user for any layout of the groups; MPI_IN_PLACE;
   sendtype and recvtype of one signature (packed bytes between them); all
   blocks beyond INT_MAX bytes go to MPI_Allgather on h->base. */
int hsplit_ml_allgather(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype);
/* Slice i of `total` units cut into `pieces` (the first total % pieces
   slices one unit larger; none for i >= pieces), and where it starts
   (i <= pieces). */
int64_t hsplit_ml_slice_size(int64_t total, int pieces, int i);
int64_t hsplit_ml_slice_start(int64_t total, int pieces, int i);
/* The group steps and the step across the groups of the schedules above,
   for coll_ml_levels.c: a group's reduce-scatter of counts[i] elements to
   member i (displs: where they start in input); a group's allgatherv in
   place (member i's counts[i] elements at displs[i] of buf to every
   member); the allreduce in place of count elements across comm under a
   cross shape (MPI's call, HSPLIT_SHAPE_RING, HSPLIT_SHAPE_RD or
   HSPLIT_SHAPE_RAB). */
int hsplit_ml_group_reduce_scatter(const void *input, void *piece, const int *counts,
                                   const int *displs, int gsize, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm group);
int hsplit_ml_group_allgatherv(void *buf, const int *counts, const int *displs, int gsize,
                               MPI_Datatype datatype, MPI_Comm group);
int hsplit_ml_cross_allreduce(MPI_Comm comm, int shape, void *buf, int count,
                              MPI_Datatype datatype, MPI_Op op);
int hsplit_ml_cross_bcast(MPI_Comm comm, int shape, void *buf, int count, MPI_Datatype datatype,
                          int root);
/* The frame of a multi-leader bcast, which moves bytes so that processes
   may give different datatypes of one signature: the argument checks, a
   message of more than INT_MAX bytes whole by MPI_Bcast, packing at the
   root and unpacking elsewhere where the datatype is not contiguous; move
   carries the message's bytes (collective over h->base; arg: the
   schedule's own). */
typedef int (*hsplit_ml_bytes_mover)(hsplit_hierarchy *h, char *bytes, int nbytes, int root,
                                     const void *arg);
int hsplit_ml_bcast_bytes(hsplit_hierarchy *h, void *buffer, int count, MPI_Datatype datatype,
                          int root, hsplit_ml_bytes_mover move, const void *arg);

/* ---- coll_ml_levels.c: the multi-leader allreduce over several levels
   (schedules mlall and mlnet): reduce-scatter stage by stage up a list of
   partitions of the processes (finest first), the carriers of one slice
   across the coarsest groups allreduce it, allgather stage by stage down.
   HSPLIT_ML_ALL: every level of the hierarchy that groups processes;
   HSPLIT_ML_NET: the nodes and the levels above them (switches). ---- */
enum { HSPLIT_ML_ALL = 0, HSPLIT_ML_NET, HSPLIT_ML_LEVEL_KINDS };
/* One stage as this process sees it: its group (MPI_COMM_NULL: it carries
   nothing into this stage), ranked as in h->base, and the slices the group
   cuts (its carriers' smallest group size; members of group rank >= pieces
   get none). */
typedef struct {
    MPI_Comm group;
    int gsize, grank, pieces;
    const int *members;   /* the group's h->base ranks (in m->tables)     */
} hsplit_ml_stage;
typedef struct hsplit_ml_levels {
    int ready;
    int nstages;          /* stages (the same everywhere)                    */
    hsplit_ml_stage stage[HSPLIT_MAX_LEVELS + 1];
    MPI_Comm top;         /* the carriers of this process's slice across the
                             coarsest groups (MPI_COMM_NULL: it carries none) */
    int top_size;
    const int *top_members; /* top's h->base ranks (in m->tables)         */
    /* part[s * n + r]: the group (its lowest rank) of rank r in stage s's
       partition, for the broadcast to find the root's path; in m->tables,
       with the members (n * nstages + the group sizes ints) */
    const int *part;
    int *tables;
} hsplit_ml_levels;
/* The stages of kind, made on first use (collective over h->base: every
   process in the same collective call). Returns an MPI code. */
int hsplit_ml_levels_get(hsplit_hierarchy *h, int kind, hsplit_ml_levels **m);
/* Commutative operations only (the caller checks); MPI_IN_PLACE; any
   datatype; cross: the step across the top (as hsplit_ml_allreduce's). */
int hsplit_ml_levels_allreduce(hsplit_hierarchy *h, int kind, const void *sendbuf, void *recvbuf,
                               int count, MPI_Datatype datatype, MPI_Op op, int cross);
/* The broadcast over the same stages: the root's slices scattered down its
   own groups, each last slice broadcast across the top from the root's
   side, then allgathered stage by stage down (as the allreduce). Any
   datatype, and datatypes of one signature on different processes (it
   moves bytes); cross: MPI's call or the ring across the top. */
int hsplit_ml_levels_bcast(hsplit_hierarchy *h, int kind, void *buffer, int count,
                           MPI_Datatype datatype, int root, int cross);
/* Frees the stages (from hsplit_rsag_free, while MPI works). */
void hsplit_ml_levels_free(hsplit_hierarchy *h);
/* Frees the memory of the stages alone (MPI finalized: communicators left
   to MPI). */
void hsplit_ml_levels_discard(hsplit_ml_levels *m);

/* Tags of the point-to-point messages on h->base. */
enum {
    HSPLIT_TAG_LIFT = 0x4853, HSPLIT_TAG_DELIVER,
    HSPLIT_TAG_ENGINE = HSPLIT_TAG_LIFT + 16, /* the engine's segments (coll_engine.c) */
    HSPLIT_TAG_ENGINE_RESULT,                 /* a reduce's result to its root      */
    HSPLIT_TAG_ENGINE_LEVEL                   /* a level's own algorithm            */
};

/* ---- coll_shm: collectives in one node's shared memory ---- */

typedef struct hsplit_shm hsplit_shm; /* opaque outside coll_shm*.c */
/* The node's shared segment, made on first use: collective over h->base
   (every process of h->base calls it in the same collective call). The node
   group: this process's node (hsplit_node_groups) with several nodes, all of
   h->base on one. *shm is NULL on every process alike when shared memory
   cannot serve this hierarchy (SMPI build; a node group that is not one
   shared-memory domain; MPI_Win_allocate_shared failing or out of memory
   anywhere; a node of one process): the message-based path runs instead.
   Returns an MPI code (an MPI call that failed), MPI_SUCCESS otherwise, also
   when *shm is NULL. Made once per hierarchy (h->shm), freed by
   hsplit_rsag_free. */
int hsplit_shm_get(hsplit_hierarchy *h, hsplit_shm **shm);
/* MPI_Win_free (collective over the node group), communicators freed. */
void hsplit_shm_free(hsplit_shm *shm);
int hsplit_shm_rank(const hsplit_shm *shm);      /* rank in the node group (ranks
                                                    ordered as in h->base) */
int hsplit_shm_size(const hsplit_shm *shm);
int hsplit_shm_fanout(const hsplit_shm *shm);    /* processes per group of its tree */
MPI_Comm hsplit_shm_node(const hsplit_shm *shm); /* the node group's communicator */
/* Node rank 0 of every node, ordered as in h->base; MPI_COMM_NULL elsewhere. */
MPI_Comm hsplit_shm_leaders(const hsplit_shm *shm);
/* Node-local collectives, called by every process of the node group in the
   same order. root: rank in the node group. Any datatype of positive extent,
   count 0 .. INT_MAX (larger than the segment: in slices), MPI_IN_PLACE as
   MPI allows (reduce: sendbuf at the root; allreduce: sendbuf), predefined
   and user-defined operations, non-commutative ones combined in rank order.
   bcast moves bytes in MPI's packed form (memcpy of the buffer when the
   datatype is a predefined type without gaps or contiguous copies of one,
   else packed and unpacked), so processes may give different datatypes of
   one signature; reduce and allreduce copy elements in the datatype's own
   layout (memcpy when it has no gaps), and an element that does not fit half
   a data area goes to MPI's own call on the node communicator. Return an MPI
   code. */
int hsplit_shm_barrier(hsplit_shm *shm);
/* The two halves of the barrier, for a barrier across nodes: arrive; the
   leaders' MPI_Barrier; release. arrive returns on node rank 0 once every
   process of the node arrived; release returns once rank 0 released. */
int hsplit_shm_barrier_arrive(hsplit_shm *shm);
int hsplit_shm_barrier_release(hsplit_shm *shm);
int hsplit_shm_bcast(hsplit_shm *shm, void *buf, int count, MPI_Datatype datatype, int root);
int hsplit_shm_reduce(hsplit_shm *shm, const void *sendbuf, void *recvbuf, int count,
                      MPI_Datatype datatype, MPI_Op op, int root);
int hsplit_shm_allreduce(hsplit_shm *shm, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op);
/* Gather, scatter and allgather with MPI's semantics (sendtype and recvtype
   of one signature, MPI_IN_PLACE: the gather root's sendbuf, the scatter
   root's recvbuf, allgather's sendbuf), any datatype MPI_Pack takes; blocks
   beyond a slot go through the areas in slices (coll_shm_gather.c). */
int hsplit_shm_gather(hsplit_shm *shm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int hsplit_shm_scatter(hsplit_shm *shm, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int hsplit_shm_allgather(hsplit_shm *shm, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype);

/* ---- split.c ---- */

/* How a split chooses colours. */
enum { HSPLIT_SPLIT_PHYSICAL = 1, HSPLIT_SPLIT_GUIDED };

/* The one split behind every public split function. local_kind is an error the
   caller found in its own arguments: processes agree on errors before any
   communication that could hang. guided_type applies to HSPLIT_SPLIT_GUIDED
   (guided_known 0: an unrecognised resource, every process gets
   MPI_COMM_NULL). level_name gets the new level's name when newcomm is not
   MPI_COMM_NULL. Returns an HSPLIT kind, agreed by all processes of comm. */
int hsplit_split(MPI_Comm comm, int mode, hwloc_obj_type_t guided_type,
                 int guided_known, int key, int local_kind, MPI_Comm *newcomm,
                 int *num_comms, char level_name[HSPLIT_MAX_HLEVEL_NAME]);

/* Valid intracommunicator? Returns an HSPLIT kind. */
int hsplit_check_intracomm(MPI_Comm comm);

/* Bitmap <-> words for MPI exchange. */
void hsplit_bitmap_to_words(hwloc_const_bitmap_t set, int nwords, unsigned long *words);
void hsplit_bitmap_from_words(hwloc_bitmap_t set, int nwords, const unsigned long *words);

#endif /* HSPLIT_INTERNAL_H */
