/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: any text as a topology.conf, and its first line as a
   hostlist expression. The parsers must never crash, leak or overrun, must
   leave nothing behind on error (with a message naming the file), and what
   they accept must be a consistent tree. Built with clang (tests/CMakeLists.txt). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"
#include "topology_conf.h"

static int count_name(const char *name, void *arg)
{
    (void)name;
    (*(long *)arg)++;
    return 0;
}

static void check_conf(const hsplit_topology_conf *conf)
{
    for (int i = 0; i < conf->nswitches; i++) {
        const hsplit_conf_switch *s = &conf->switches[i];
        if (s->parent < -1 || s->parent >= conf->nswitches || s->depth < 0 ||
            s->depth >= HSPLIT_MAX_SWITCH_LEVELS ||
            (s->parent >= 0 && conf->switches[s->parent].depth != s->depth - 1) ||
            (s->parent < 0 && s->depth != 0))
            abort();
        for (int j = 0; j < i; j++)
            if (strcmp(conf->switches[j].name, s->name) == 0) abort(); /* duplicate kept */
    }
    int path[HSPLIT_MAX_SWITCH_LEVELS];
    for (int i = 0; i < conf->nnodes; i++) {
        const hsplit_conf_node *n = &conf->nodes[i];
        if (n->leaf < 0 || n->leaf >= conf->nswitches) abort();
        if (i > 0 && strcmp(conf->nodes[i - 1].name, n->name) >= 0) abort(); /* sorted, unique */
        if (hsplit_topology_conf_find_node(conf, n->name) != i) abort();
        int len = hsplit_topology_conf_path(conf, n->leaf, path);
        if (len < 1 || len > HSPLIT_MAX_SWITCH_LEVELS || path[len - 1] != n->leaf ||
            conf->switches[path[0]].parent != -1)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    hsplit_topology_conf conf;
    char msg[256];
    int rc = hsplit_topology_conf_parse(text, "fuzz.conf", &conf, msg, sizeof msg);
    if (rc == HSPLIT_CONF_OK) {
        check_conf(&conf);
    } else if (conf.nswitches != 0 || conf.nnodes != 0 || conf.switches != NULL ||
               conf.nodes != NULL || strncmp(msg, "fuzz.conf", 9) != 0) {
        abort();
    }
    hsplit_topology_conf_free(&conf);

    /* the first line as a hostlist: counting and expanding agree */
    char *eol = strchr(text, '\n');
    if (eol != NULL) *eol = '\0';
    long expected = hsplit_hostlist_count(text), got = 0;
    if (expected >= 0 && expected <= 100000) {
        if (hsplit_hostlist_foreach(text, count_name, &got) != HSPLIT_HOSTLIST_OK ||
            got != expected)
            abort();
    } else if (expected < 0 && hsplit_hostlist_foreach(text, count_name, &got) ==
                                   HSPLIT_HOSTLIST_OK) {
        abort();
    }
    free(text);
    return 0;
}
