/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology.conf (topology/tree plugin): the switch tree above the
   nodes. Pure C, no MPI: unit-tested on its own.

   One switch per line, `SwitchName=NAME` first, then `Nodes=HOSTLIST` (the
   nodes attached to it), `Switches=HOSTLIST` (its child switches), or both;
   other keys (LinkSpeed, ...) are ignored. Keys are case-insensitive; `#`
   starts a comment; blank lines are allowed.

   Limits, each checked before what it bounds is read or allocated, so that
   a hostile or mistaken file costs bounded time and memory in every process
   (parsing is linear in the size of the file): the file is a regular file of
   at most HSPLIT_CONF_MAX_BYTES, its lines have at most HSPLIT_CONF_MAX_LINE
   bytes, and its Nodes= and Switches= lists together name at most
   HSPLIT_CONF_MAX_NAMES nodes and switches, each name (SwitchName= too) of at
   most HSPLIT_HOSTLIST_MAX_NAME characters (hostlist.h). */
#ifndef HSPLIT_TOPOLOGY_CONF_H
#define HSPLIT_TOPOLOGY_CONF_H

#include <stddef.h>

/* Most switches on the path from a top switch down to a node. */
#define HSPLIT_MAX_SWITCH_LEVELS 16

/* Most bytes of a topology.conf: 16 MiB, hundreds of times a real cluster's
   (100,000 switches of one line each take about 3 MB). */
#define HSPLIT_CONF_MAX_BYTES (16L * 1024 * 1024)

/* Most bytes of one line, its end of line and comment included. */
#define HSPLIT_CONF_MAX_LINE 65536

/* Most names (nodes and child switches) in all the Nodes= and Switches= lists
   of a file together, as each hostlist expression alone (HSPLIT_HOSTLIST_MAX). */
#define HSPLIT_CONF_MAX_NAMES 1000000L

typedef struct {
    char *name;
    int line;     /* line of its SwitchName definition                    */
    int parent;   /* index of the switch that lists it; -1: a top switch  */
    int depth;    /* switches above it (0 for a top switch)               */
} hsplit_conf_switch;

typedef struct {
    char *name;
    int leaf;     /* index of the switch that lists the node              */
    int line;     /* line of that switch                                  */
} hsplit_conf_node;

typedef struct {
    hsplit_conf_switch *switches; /* in the order of the file            */
    int nswitches;
    hsplit_conf_node *nodes;      /* sorted by name                       */
    int nnodes;
} hsplit_topology_conf;

enum {
    HSPLIT_CONF_OK = 0,
    HSPLIT_CONF_UNREADABLE,     /* the file cannot be read                     */
    HSPLIT_CONF_SYNTAX,         /* a malformed line                            */
    HSPLIT_CONF_DUPLICATE,      /* a switch defined twice                      */
    HSPLIT_CONF_UNKNOWN_SWITCH, /* Switches= names a switch that is not defined */
    HSPLIT_CONF_TWO_PARENTS,    /* a switch listed under two switches          */
    HSPLIT_CONF_CYCLE,          /* a switch is its own ancestor                */
    HSPLIT_CONF_TOO_DEEP,       /* more than HSPLIT_MAX_SWITCH_LEVELS levels   */
    HSPLIT_CONF_NODE_TWICE,     /* a node listed twice                         */
    HSPLIT_CONF_TOO_LARGE,      /* over a limit: file, line, names, a name     */
    HSPLIT_CONF_NOMEM
};

/* Parse the text of a topology.conf; `file` only names it in messages. On
   error, msg gets "FILE line N: what is wrong" (the first error found: every
   line's syntax, then duplicate switches, unknown or shared child switches,
   cycles, depth, nodes listed twice) and conf is left empty. Returns an
   HSPLIT_CONF_* status. */
int hsplit_topology_conf_parse(const char *text, const char *file,
                               hsplit_topology_conf *conf, char *msg, size_t msglen);

/* Read and parse the file at path: only a regular file is opened (a FIFO or
   a device could block or never end), and one larger than
   HSPLIT_CONF_MAX_BYTES is refused before anything is read. */
int hsplit_topology_conf_load(const char *path, hsplit_topology_conf *conf, char *msg,
                              size_t msglen);

void hsplit_topology_conf_free(hsplit_topology_conf *conf);

/* Read the whole of the regular file at path, of at most max_bytes (limit:
   the name of that limit, for messages), into *text (NUL-terminated, to
   free) and *length. The size is checked before anything is read, and a
   FIFO or a device is never opened. On error, msg gets "PATH: what is
   wrong". Returns HSPLIT_CONF_OK, _UNREADABLE, _TOO_LARGE or _NOMEM. Also
   reads HSPLIT_TOPOLOGY's XML files (topology.c). */
int hsplit_read_regular_file(const char *path, long max_bytes, const char *limit,
                             char **text, size_t *length, char *msg, size_t msglen);

/* The node of that name (index into conf->nodes), or -1. */
int hsplit_topology_conf_find_node(const hsplit_topology_conf *conf, const char *name);

/* Switch indices from the top switch down to switch sw, into path (at least
   HSPLIT_MAX_SWITCH_LEVELS long); returns their number. */
int hsplit_topology_conf_path(const hsplit_topology_conf *conf, int sw, int *path);

#endif /* HSPLIT_TOPOLOGY_CONF_H */
