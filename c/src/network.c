/* SPDX-License-Identifier: BSD-3-Clause */
/* The switch tree above the nodes, and where this process's node hangs in it.
   Sources, first found wins: HSPLIT_NETWORK (a Slurm topology.conf, read by
   every process); SLURM_TOPOLOGY_ADDR and SLURM_TOPOLOGY_ADDR_PATTERN (set by
   Slurm's topology/tree plugin, each process knowing its own path only);
   none (all nodes under one implicit switch). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

static const char *env_value(const char *name)
{
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' ? value : NULL;
}

static uint64_t fnv1a(uint64_t hash, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) hash = (hash ^ p[i]) * 1099511628211ull;
    return hash;
}

/* Id of a switch known by name only (Slurm addresses): equal names, equal ids. */
static unsigned long name_id(const char *name, size_t len)
{
    unsigned long id = (unsigned long)fnv1a(1469598103934665603ull, name, len);
    return id != 0 ? id : 1;
}

/* Switch path of a node of the file, and the switches' names; -1 if absent. */
static int path_of_name(const hsplit_network *net, const char *name, unsigned long *path,
                        const char **names)
{
    int i = hsplit_topology_conf_find_node(&net->conf, name);
    if (i < 0) return -1;
    int idx[HSPLIT_MAX_SWITCH_LEVELS];
    int len = hsplit_topology_conf_path(&net->conf, net->conf.nodes[i].leaf, idx);
    for (int k = 0; k < len; k++) {
        path[k] = (unsigned long)idx[k] + 1;
        if (names != NULL) names[k] = net->conf.switches[idx[k]].name;
    }
    return len;
}

int hsplit_network_node_path(const hsplit_network *net, int node, unsigned long *path)
{
    if (net->source != HSPLIT_NETWORK_FILE) return 0;
    char name[32];
    snprintf(name, sizeof name, "node%d", node);
    return path_of_name(net, name, path, NULL);
}

/* The lowest emulated node of HSPLIT_NODES missing from the file, or -1:
   every process checks every node, so that all report the same one. */
static int first_missing_node(const hsplit_context *ctx)
{
    const hsplit_node_map *m = &ctx->nodes;
    unsigned long path[HSPLIT_MAX_SWITCH_LEVELS];
    int missing = -1, last = -1;
    if (m->mode == HSPLIT_NODES_BLOCK) last = (ctx->world_size - 1) / m->param;
    if (m->mode == HSPLIT_NODES_CYCLIC)
        last = (m->param < ctx->world_size ? m->param : ctx->world_size) - 1;
    for (int n = 0; n <= last; n++)
        if (hsplit_network_node_path(&ctx->net, n, path) < 0) return n;
    for (int r = 0; m->mode == HSPLIT_NODES_LIST && r < m->nlist; r++) {
        int n = m->list[r];
        if ((missing < 0 || n < missing) && hsplit_network_node_path(&ctx->net, n, path) < 0)
            missing = n;
    }
    return missing;
}

/* Equal for processes that read the same switches and nodes. */
static int conf_fingerprint(const hsplit_topology_conf *conf)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < conf->nswitches; i++) {
        h = fnv1a(h, conf->switches[i].name, strlen(conf->switches[i].name) + 1);
        h = fnv1a(h, &conf->switches[i].parent, sizeof conf->switches[i].parent);
    }
    for (int i = 0; i < conf->nnodes; i++) {
        h = fnv1a(h, conf->nodes[i].name, strlen(conf->nodes[i].name) + 1);
        h = fnv1a(h, &conf->nodes[i].leaf, sizeof conf->nodes[i].leaf);
    }
    return 1 + (int)(h % 0x1fffffffu);
}

enum { SLURM_FINGERPRINT = 0x20000000 };

static int load_file(hsplit_context *ctx, const char *file, char *msg, size_t msglen)
{
    hsplit_network *net = &ctx->net;
    char detail[768];
    int status = hsplit_topology_conf_load(file, &net->conf, detail, sizeof detail);
    if (status == HSPLIT_CONF_NOMEM) return HSPLIT_KIND_ERR_INTERN;
    if (status != HSPLIT_CONF_OK) {
        snprintf(msg, msglen, "hsplit: HSPLIT_NETWORK %s", detail);
        return HSPLIT_ERR_NETWORK;
    }
    for (int i = 0; i < net->conf.nswitches; i++) net->ntops += net->conf.switches[i].parent < 0;
    net->fingerprint = conf_fingerprint(&net->conf);
    if (ctx->emulated_nodes) {
        int n = first_missing_node(ctx);
        if (n >= 0) {
            snprintf(msg, msglen, "hsplit: HSPLIT_NETWORK %s: node 'node%d' (emulated node %d of "
                     "HSPLIT_NODES) is in no switch: every node must be listed under a switch",
                     file, n, n);
            return HSPLIT_ERR_NETWORK;
        }
    }
    net->own_len = path_of_name(net, net->node_name, net->own_path, net->own_names);
    if (net->own_len < 0) {
        snprintf(msg, msglen, "hsplit: HSPLIT_NETWORK %s: node '%s' (the host of "
                 "MPI_COMM_WORLD rank %d) is in no switch: every node must be listed under "
                 "a switch", file, net->node_name, ctx->world_rank);
        return HSPLIT_ERR_NETWORK;
    }
    return HSPLIT_KIND_OK;
}

/* Is pattern "switch.switch...node", n words: "switch" for every component
   of the address but the last, "node" for the last? Reads the pattern up to
   its end only, however short it is. */
static int pattern_matches(const char *pattern, int n)
{
    const char *p = pattern;
    for (int i = 0; i < n; i++) {
        const char *word = i < n - 1 ? "switch" : "node";
        size_t len = strcspn(p, "."); /* this word of the pattern */
        if (len != strlen(word) || memcmp(p, word, len) != 0) return 0;
        p += len;
        if (i < n - 1) {
            if (*p != '.') return 0; /* the pattern ends before the address */
            p++;
        }
    }
    return *p == '\0'; /* the pattern ends with the address */
}

/* SLURM_TOPOLOGY_ADDR "s0.s3.node17" with pattern "switch.switch.node": the
   switches from the top down, then the node (whose name is not used: nodes
   are found by MPI or HSPLIT_NODES). Without a pattern, the last name is the
   node's. */
static int load_slurm(hsplit_network *net, const char *addr, const char *pattern, char *msg,
                      size_t msglen)
{
    net->fingerprint = SLURM_FINGERPRINT;
    net->ntops = 1; /* a Slurm job never spans two switch trees */
    net->addr_copy = malloc(strlen(addr) + 1);
    if (net->addr_copy == NULL) return HSPLIT_KIND_ERR_INTERN;
    strcpy(net->addr_copy, addr);
    int n = 1;
    for (const char *p = addr; *p; p++) n += *p == '.';
    int bad = pattern != NULL && !pattern_matches(pattern, n);
    char *name = net->addr_copy;
    for (int i = 0; i < n && !bad; i++) {
        char *dot = strchr(name, '.');
        if (dot != NULL) *dot = '\0';
        bad = name[0] == '\0';
        if (i < n - 1 && i < HSPLIT_MAX_SWITCH_LEVELS) {
            net->own_names[i] = name;
            net->own_path[i] = name_id(name, strlen(name));
        }
        name = dot != NULL ? dot + 1 : name;
    }
    if (bad) {
        snprintf(msg, msglen, "hsplit: SLURM_TOPOLOGY_ADDR \"%s\" does not match "
                 "SLURM_TOPOLOGY_ADDR_PATTERN \"%s\": expected non-empty names separated by "
                 "'.', switches from the top down, then the node (pattern "
                 "switch.switch...node)", addr, pattern != NULL ? pattern : "(unset)");
        return HSPLIT_ERR_NETWORK;
    }
    if (n - 1 > HSPLIT_MAX_SWITCH_LEVELS) {
        snprintf(msg, msglen, "hsplit: SLURM_TOPOLOGY_ADDR \"%s\" has %d switches: hsplit handles "
                 "at most %d switch levels", addr, n - 1, HSPLIT_MAX_SWITCH_LEVELS);
        return HSPLIT_ERR_NETWORK;
    }
    net->own_len = n - 1;
    return HSPLIT_KIND_OK;
}

/* This process's node name: node<i> when emulated, else the host name up to
   its first dot (what topology.conf lists). */
static void own_node_name(const hsplit_context *ctx, char *name)
{
    if (ctx->emulated_nodes) {
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "node%d", ctx->node);
        return;
    }
    int len = 0;
    MPI_Get_processor_name(name, &len);
    name[len] = '\0';
    char *dot = strchr(name, '.');
    if (dot != NULL) *dot = '\0';
}

int hsplit_network_load(hsplit_context *ctx, char *msg, size_t msglen)
{
    hsplit_network *net = &ctx->net;
    own_node_name(ctx, net->node_name);
    const char *file = env_value("HSPLIT_NETWORK");
    const char *addr = env_value("SLURM_TOPOLOGY_ADDR");
    if (file != NULL) {
        net->source = HSPLIT_NETWORK_FILE;
        return load_file(ctx, file, msg, msglen);
    }
    if (addr != NULL) {
        net->source = HSPLIT_NETWORK_SLURM;
        return load_slurm(net, addr, env_value("SLURM_TOPOLOGY_ADDR_PATTERN"), msg, msglen);
    }
    return HSPLIT_KIND_OK;
}

void hsplit_network_free(hsplit_network *net)
{
    hsplit_topology_conf_free(&net->conf);
    free(net->addr_copy);
    net->addr_copy = NULL;
}
