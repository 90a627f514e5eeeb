/* Slurm's topology.conf (topology/tree plugin): the switch tree above the
   nodes. Pure C, no MPI: unit-tested on its own.

   One switch per line, `SwitchName=NAME` first, then `Nodes=HOSTLIST` (the
   nodes attached to it), `Switches=HOSTLIST` (its child switches), or both;
   other keys (LinkSpeed, ...) are ignored. Keys are case-insensitive; `#`
   starts a comment; blank lines are allowed. */
#ifndef HSPLIT_TOPOLOGY_CONF_H
#define HSPLIT_TOPOLOGY_CONF_H

#include <stddef.h>

/* Most switches on the path from a top switch down to a node. */
#define HSPLIT_MAX_SWITCH_LEVELS 16

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
    HSPLIT_CONF_NOMEM
};

/* Parse the text of a topology.conf; `file` only names it in messages. On
   error, msg gets "FILE line N: what is wrong" (the first error found: every
   line's syntax, then duplicate switches, unknown or shared child switches,
   cycles, depth, nodes listed twice) and conf is left empty. Returns an
   HSPLIT_CONF_* status. */
int hsplit_topology_conf_parse(const char *text, const char *file,
                               hsplit_topology_conf *conf, char *msg, size_t msglen);

/* Read and parse the file at path. */
int hsplit_topology_conf_load(const char *path, hsplit_topology_conf *conf, char *msg,
                              size_t msglen);

void hsplit_topology_conf_free(hsplit_topology_conf *conf);

/* The node of that name (index into conf->nodes), or -1. */
int hsplit_topology_conf_find_node(const hsplit_topology_conf *conf, const char *name);

/* Switch indices from the top switch down to switch sw, into path (at least
   HSPLIT_MAX_SWITCH_LEVELS long); returns their number. */
int hsplit_topology_conf_path(const hsplit_topology_conf *conf, int sw, int *path);

#endif /* HSPLIT_TOPOLOGY_CONF_H */
