/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm's topology.conf (see topology_conf.h): lines into switches, then the
   tree checked as a whole (duplicates, unknown or shared children, cycles,
   depth, nodes listed twice). Every error names the file and the line.
   Every step is linear in the text (or n log n: sorts, lookups), so that
   the limits of topology_conf.h bound the work as well as the memory. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* open, fstat, read: also built alone (tests) */
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hostlist.h"
#include "topology_conf.h"

/* What a line says before the tree is checked. */
typedef struct {
    char *nodes;    /* Nodes= value, or NULL    */
    char *children; /* Switches= value, or NULL */
} switch_lists;

typedef struct {
    hsplit_topology_conf *conf;
    switch_lists *lists;
    int *by_name;   /* switch indices sorted by name */
    const char *file;
    char *msg;
    size_t msglen;
    int status;
    int current;    /* the switch whose lists are being read */
    int capacity;   /* of conf->switches and lists           */
    long names;     /* in the Nodes= and Switches= lists so far */
} parser;

static int fail(parser *p, int status, int line, const char *fmt, ...)
{
    if (p->status != HSPLIT_CONF_OK) return p->status;
    p->status = status;
    if (p->msg != NULL && p->msglen > 0) {
        int n = line > 0 ? snprintf(p->msg, p->msglen, "%s line %d: ", p->file, line)
                         : snprintf(p->msg, p->msglen, "%s: ", p->file);
        if (n >= 0 && (size_t)n < p->msglen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->msg + n, p->msglen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return status;
}

static int same_key(const char *a, size_t alen, const char *b)
{
    if (alen != strlen(b)) return 0;
    for (size_t i = 0; i < alen; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
    return 1;
}

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Append a switch defined at line; takes ownership of name and the lists.
   The arrays grow by doubling: growing by one was quadratic. */
static int add_switch(parser *p, char *name, int line, char *nodes, char *children)
{
    hsplit_topology_conf *c = p->conf;
    if (c->nswitches == p->capacity) {
        int cap = p->capacity > 0 ? 2 * p->capacity : 16;
        hsplit_conf_switch *s = realloc(c->switches, sizeof *s * (size_t)cap);
        if (s != NULL) c->switches = s;
        switch_lists *l = s == NULL ? NULL : realloc(p->lists, sizeof *l * (size_t)cap);
        if (l != NULL) p->lists = l;
        if (s == NULL || l == NULL) {
            free(name); free(nodes); free(children);
            return fail(p, HSPLIT_CONF_NOMEM, line, "out of memory");
        }
        p->capacity = cap;
    }
    c->switches[c->nswitches] = (hsplit_conf_switch){name, line, -1, 0};
    p->lists[c->nswitches] = (switch_lists){nodes, children};
    c->nswitches++;
    return HSPLIT_CONF_OK;
}

/* A Nodes= or Switches= value: a hostlist expression within the limits, its
   names counted against HSPLIT_CONF_MAX_NAMES before any is expanded. */
static void check_list(parser *p, int line, const char *key, size_t klen, const char *list)
{
    long count = 0;
    int rc = hsplit_hostlist_check(list, &count);
    if (rc == HSPLIT_HOSTLIST_MALFORMED)
        fail(p, HSPLIT_CONF_SYNTAX, line,
             "%.*s=%s is not a hostlist expression (expected e.g. node[01-04,07])", (int)klen,
             key, list);
    else if (rc == HSPLIT_HOSTLIST_TOO_LARGE)
        fail(p, HSPLIT_CONF_TOO_LARGE, line, "%.*s=%.32s%s expands to more than %d names (the "
             "limit HSPLIT_HOSTLIST_MAX)", (int)klen, key, list, strlen(list) > 32 ? "..." : "",
             HSPLIT_HOSTLIST_MAX);
    else if (rc == HSPLIT_HOSTLIST_NAME_TOO_LONG)
        fail(p, HSPLIT_CONF_TOO_LARGE, line, "%.*s=%.32s%s has a name of more than %d "
             "characters (the limit HSPLIT_HOSTLIST_MAX_NAME)", (int)klen, key, list,
             strlen(list) > 32 ? "..." : "", HSPLIT_HOSTLIST_MAX_NAME);
    else if ((p->names += count) > HSPLIT_CONF_MAX_NAMES)
        fail(p, HSPLIT_CONF_TOO_LARGE, line, "the lists name more than %ld nodes and switches "
             "(the limit HSPLIT_CONF_MAX_NAMES)", (long)HSPLIT_CONF_MAX_NAMES);
}

/* One line [s, end), comment already cut. */
static int parse_line(parser *p, const char *s, const char *end, int line)
{
    char *name = NULL, *nodes = NULL, *children = NULL;
    int ntokens = 0;
    while (p->status == HSPLIT_CONF_OK) {
        while (s < end && isspace((unsigned char)*s)) s++;
        if (s == end) break;
        const char *tok = s;
        while (s < end && !isspace((unsigned char)*s)) s++;
        size_t len = (size_t)(s - tok);
        const char *eq = memchr(tok, '=', len);
        if (eq == NULL || eq == tok || eq == tok + len - 1) {
            fail(p, HSPLIT_CONF_SYNTAX, line, "expected KEY=VALUE, found '%.*s'", (int)len, tok);
            break;
        }
        size_t klen = (size_t)(eq - tok), vlen = len - klen - 1;
        const char *value = eq + 1;
        if (ntokens++ == 0) {
            if (!same_key(tok, klen, "SwitchName")) {
                fail(p, HSPLIT_CONF_SYNTAX, line,
                     "expected SwitchName=NAME first, found '%.*s' (only the tree "
                     "topology of Slurm's topology/tree plugin is supported)", (int)len, tok);
                break;
            }
            /* within the token only: strcspn ran on to the end of the text,
               for every line (quadratic) */
            size_t plain = 0;
            while (plain < vlen && strchr("[],", value[plain]) == NULL) plain++;
            if (plain < vlen) {
                fail(p, HSPLIT_CONF_SYNTAX, line, "SwitchName must be one name, found '%.*s'",
                     (int)vlen, value);
                break;
            }
            if (vlen > HSPLIT_HOSTLIST_MAX_NAME) {
                fail(p, HSPLIT_CONF_TOO_LARGE, line, "SwitchName=%.32s... has %zu characters, "
                     "more than the %d of a name (the limit HSPLIT_HOSTLIST_MAX_NAME)", value,
                     vlen, HSPLIT_HOSTLIST_MAX_NAME);
                break;
            }
            name = dup_range(value, vlen);
        } else if (same_key(tok, klen, "Nodes") || same_key(tok, klen, "Switches")) {
            char **target = same_key(tok, klen, "Nodes") ? &nodes : &children;
            if (*target != NULL) {
                fail(p, HSPLIT_CONF_SYNTAX, line, "%.*s is given twice", (int)klen, tok);
                break;
            }
            *target = dup_range(value, vlen);
            if (*target == NULL) fail(p, HSPLIT_CONF_NOMEM, line, "out of memory");
            else check_list(p, line, tok, klen, *target);
        } /* other keys (LinkSpeed, ...) carry nothing hsplit needs */
        if (ntokens == 1 && name == NULL) fail(p, HSPLIT_CONF_NOMEM, line, "out of memory");
    }
    if (p->status == HSPLIT_CONF_OK && ntokens > 0 && nodes == NULL && children == NULL)
        fail(p, HSPLIT_CONF_SYNTAX, line, "switch '%s' has neither Nodes= nor Switches=", name);
    if (p->status != HSPLIT_CONF_OK || ntokens == 0) {
        free(name); free(nodes); free(children);
        return p->status;
    }
    return add_switch(p, name, line, nodes, children);
}

/* Does switch x sort before switch y (by name, then by position)? */
static int switch_before(const hsplit_conf_switch *s, int x, int y)
{
    int c = strcmp(s[x].name, s[y].name);
    return c < 0 || (c == 0 && x < y);
}

/* Merge sort of switch indices by name (qsort has no context argument, and
   the library keeps no global state). */
static void sort_by_name(const hsplit_conf_switch *s, int *idx, int *tmp, int n)
{
    if (n < 2) return;
    int half = n / 2;
    sort_by_name(s, idx, tmp, half);
    sort_by_name(s, idx + half, tmp, n - half);
    int i = 0, j = half, k = 0;
    while (i < half && j < n) tmp[k++] = switch_before(s, idx[j], idx[i]) ? idx[j++] : idx[i++];
    while (i < half) tmp[k++] = idx[i++];
    while (j < n) tmp[k++] = idx[j++];
    memcpy(idx, tmp, sizeof(int) * (size_t)n);
}

/* Index of the switch of that name, or -1 (by_name sorted). */
static int find_switch(const parser *p, const char *name)
{
    int lo = 0, hi = p->conf->nswitches - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, idx = p->by_name[mid];
        int c = strcmp(p->conf->switches[idx].name, name);
        if (c == 0) return idx;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int sort_switches(parser *p)
{
    int n = p->conf->nswitches;
    p->by_name = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (p->by_name == NULL) return fail(p, HSPLIT_CONF_NOMEM, 0, "out of memory");
    int *tmp = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (tmp == NULL) return fail(p, HSPLIT_CONF_NOMEM, 0, "out of memory");
    for (int i = 0; i < n; i++) p->by_name[i] = i;
    sort_by_name(p->conf->switches, p->by_name, tmp, n);
    free(tmp);
    return HSPLIT_CONF_OK;
}

/* ---- the tree ---- */

static int check_duplicates(parser *p)
{
    const hsplit_conf_switch *s = p->conf->switches;
    int worst = -1; /* the duplicate definition that comes first in the file */
    for (int i = 1; i < p->conf->nswitches; i++) {
        int a = p->by_name[i - 1], b = p->by_name[i];
        if (strcmp(s[a].name, s[b].name) == 0 && (worst < 0 || b < worst)) worst = b;
    }
    if (worst < 0) return HSPLIT_CONF_OK;
    int first = worst;
    for (int i = 0; i < worst; i++)
        if (strcmp(s[i].name, s[worst].name) == 0) { first = i; break; }
    return fail(p, HSPLIT_CONF_DUPLICATE, s[worst].line,
                "switch '%s' is defined twice (first at line %d)", s[worst].name, s[first].line);
}

static int link_child(const char *child, void *arg)
{
    parser *p = arg;
    hsplit_conf_switch *s = p->conf->switches;
    const hsplit_conf_switch *parent = &s[p->current];
    int c = find_switch(p, child);
    if (c < 0)
        return fail(p, HSPLIT_CONF_UNKNOWN_SWITCH, parent->line,
                    "switch '%s' lists switch '%s', which is not defined", parent->name, child);
    if (s[c].parent >= 0)
        return fail(p, HSPLIT_CONF_TWO_PARENTS, parent->line,
                    "switch '%s' is listed under two switches: '%s' (line %d) and '%s'", child,
                    s[s[c].parent].name, s[s[c].parent].line, parent->name);
    s[c].parent = p->current;
    return HSPLIT_CONF_OK;
}

static int link_children(parser *p)
{
    for (int i = 0; i < p->conf->nswitches && p->status == HSPLIT_CONF_OK; i++) {
        if (p->lists[i].children == NULL) continue;
        p->current = i;
        int rc = hsplit_hostlist_foreach(p->lists[i].children, link_child, p);
        if (rc == HSPLIT_HOSTLIST_NOMEM) fail(p, HSPLIT_CONF_NOMEM, 0, "out of memory");
    }
    return p->status;
}

/* Walk up from every switch; meeting a switch of the walk in progress is a
   cycle, reported at the line of its earliest switch. */
static int check_cycles(parser *p)
{
    hsplit_conf_switch *s = p->conf->switches;
    int n = p->conf->nswitches;
    char *state = calloc((size_t)(n > 0 ? n : 1), 1); /* 0 new, 1 on this walk, 2 done */
    if (state == NULL) return fail(p, HSPLIT_CONF_NOMEM, 0, "out of memory");
    for (int i = 0; i < n && p->status == HSPLIT_CONF_OK; i++) {
        int j = i;
        while (j >= 0 && state[j] == 0) {
            state[j] = 1;
            j = s[j].parent;
        }
        if (j >= 0 && state[j] == 1) { /* j lies on a cycle */
            int first = j;
            for (int k = s[j].parent; k != j; k = s[k].parent)
                if (s[k].line < s[first].line) first = k;
            char chain[256] = "";
            size_t len = 0;
            int k = first;
            do {
                int w = snprintf(chain + len, sizeof chain - len, "%s -> ", s[k].name);
                if (w < 0 || (size_t)w >= sizeof chain - len) break;
                len += (size_t)w;
                k = s[k].parent;
            } while (k != first);
            fail(p, HSPLIT_CONF_CYCLE, s[first].line,
                 "switch '%s' is its own ancestor: the switches form a cycle (%s%s)",
                 s[first].name, chain, s[first].name);
        }
        for (j = i; j >= 0 && state[j] == 1; j = s[j].parent) state[j] = 2;
    }
    free(state);
    return p->status;
}

static int set_depths(parser *p)
{
    hsplit_conf_switch *s = p->conf->switches;
    for (int i = 0; i < p->conf->nswitches; i++) {
        int depth = 0;
        for (int j = s[i].parent; j >= 0; j = s[j].parent) depth++;
        s[i].depth = depth;
        if (depth >= HSPLIT_MAX_SWITCH_LEVELS)
            return fail(p, HSPLIT_CONF_TOO_DEEP, s[i].line,
                        "switch '%s' lies %d switches below the top: hsplit handles at most "
                        "%d switch levels", s[i].name, depth, HSPLIT_MAX_SWITCH_LEVELS);
    }
    return HSPLIT_CONF_OK;
}

static int add_node(const char *name, void *arg)
{
    parser *p = arg;
    hsplit_topology_conf *c = p->conf;
    if ((c->nnodes & (c->nnodes - 1)) == 0) { /* grow at powers of two */
        hsplit_conf_node *grown = realloc(c->nodes, sizeof *grown * (size_t)(c->nnodes ? 2 * c->nnodes : 1));
        if (grown == NULL) return fail(p, HSPLIT_CONF_NOMEM, 0, "out of memory");
        c->nodes = grown;
    }
    char *copy = dup_range(name, strlen(name));
    if (copy == NULL) return fail(p, HSPLIT_CONF_NOMEM, 0, "out of memory");
    c->nodes[c->nnodes++] = (hsplit_conf_node){copy, p->current, c->switches[p->current].line};
    return HSPLIT_CONF_OK;
}

static int compare_nodes(const void *a, const void *b)
{
    const hsplit_conf_node *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

static int collect_nodes(parser *p)
{
    hsplit_topology_conf *c = p->conf;
    for (int i = 0; i < c->nswitches && p->status == HSPLIT_CONF_OK; i++) {
        if (p->lists[i].nodes == NULL) continue;
        p->current = i;
        hsplit_hostlist_foreach(p->lists[i].nodes, add_node, p);
    }
    if (p->status != HSPLIT_CONF_OK) return p->status;
    if (c->nnodes > 1) qsort(c->nodes, (size_t)c->nnodes, sizeof *c->nodes, compare_nodes);
    for (int i = 1; i < c->nnodes; i++)
        if (strcmp(c->nodes[i - 1].name, c->nodes[i].name) == 0)
            return fail(p, HSPLIT_CONF_NODE_TWICE, c->nodes[i].line,
                        "node '%s' is listed twice (also at line %d)", c->nodes[i].name,
                        c->nodes[i - 1].line);
    return HSPLIT_CONF_OK;
}

void hsplit_topology_conf_free(hsplit_topology_conf *conf)
{
    for (int i = 0; i < conf->nswitches; i++) free(conf->switches[i].name);
    for (int i = 0; i < conf->nnodes; i++) free(conf->nodes[i].name);
    free(conf->switches);
    free(conf->nodes);
    memset(conf, 0, sizeof *conf);
}

int hsplit_topology_conf_parse(const char *text, const char *file, hsplit_topology_conf *conf,
                               char *msg, size_t msglen)
{
    memset(conf, 0, sizeof *conf);
    parser p = {conf, NULL, NULL, file != NULL ? file : "topology.conf", msg, msglen,
                HSPLIT_CONF_OK, 0, 0, 0};
    if (msg != NULL && msglen > 0) msg[0] = '\0';
    int line = 1;
    for (const char *s = text; p.status == HSPLIT_CONF_OK && *s != '\0'; line++) {
        const char *eol = strchr(s, '\n');
        if (eol == NULL) eol = s + strlen(s);
        size_t len = (size_t)(eol - s) + (*eol == '\n');
        if (len > HSPLIT_CONF_MAX_LINE) {
            fail(&p, HSPLIT_CONF_TOO_LARGE, line, "the line has %zu bytes, more than the %d "
                 "allowed (the limit HSPLIT_CONF_MAX_LINE)", len, HSPLIT_CONF_MAX_LINE);
            break;
        }
        const char *hash = memchr(s, '#', (size_t)(eol - s));
        parse_line(&p, s, hash != NULL ? hash : eol, line);
        s = *eol == '\0' ? eol : eol + 1;
    }
    if (p.status == HSPLIT_CONF_OK) sort_switches(&p);
    if (p.status == HSPLIT_CONF_OK) check_duplicates(&p);
    if (p.status == HSPLIT_CONF_OK) link_children(&p);
    if (p.status == HSPLIT_CONF_OK) check_cycles(&p);
    if (p.status == HSPLIT_CONF_OK) set_depths(&p);
    if (p.status == HSPLIT_CONF_OK) collect_nodes(&p);
    for (int i = 0; p.lists != NULL && i < conf->nswitches; i++) {
        free(p.lists[i].nodes);
        free(p.lists[i].children);
    }
    free(p.lists);
    free(p.by_name);
    if (p.status != HSPLIT_CONF_OK) hsplit_topology_conf_free(conf);
    return p.status;
}

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
         : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

static int load_error(const char *path, int status, char *msg, size_t msglen, const char *fmt,
                      ...)
{
    if (msg != NULL && msglen > 0) {
        int n = snprintf(msg, msglen, "%s: ", path);
        if (n >= 0 && (size_t)n < msglen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return status;
}

int hsplit_read_regular_file(const char *path, long max_bytes, const char *limit,
                             char **text, size_t *length, char *msg, size_t msglen)
{
    *text = NULL;
    *length = 0;
    /* stat first: a FIFO or a device is never opened (opening a FIFO blocks
       until a writer comes); O_NONBLOCK and fstat then cover a file swapped
       in between */
    struct stat st;
    int fd = -1, err = 0;
    if (stat(path, &st) != 0) err = errno;
    else if (!S_ISREG(st.st_mode)) err = -1;
    else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) err = errno;
    else if (fstat(fd, &st) != 0) err = errno;
    else if (!S_ISREG(st.st_mode)) err = -1;
    if (err == -1) {
        if (fd >= 0) close(fd);
        return load_error(path, HSPLIT_CONF_UNREADABLE, msg, msglen,
                          "cannot read the file (%s: only a regular file is read)",
                          file_kind(st.st_mode));
    }
    if (err == 0 && st.st_size > max_bytes) {
        close(fd);
        return load_error(path, HSPLIT_CONF_TOO_LARGE, msg, msglen, "the file has %lld bytes, "
                          "more than the %ld allowed (the limit %s)", (long long)st.st_size,
                          max_bytes, limit);
    }
    /* the size read, plus one byte to see the end, plus the final NUL; the
       file may still grow while it is read: never past the limit */
    size_t max = (size_t)max_bytes, cap = err == 0 ? (size_t)st.st_size + 2 : 0, len = 0;
    char *buf = err == 0 ? malloc(cap) : NULL;
    if (err == 0 && buf == NULL) err = ENOMEM;
    while (err == 0) {
        if (len + 1 == cap) {
            if (len > max) break;
            size_t grown_cap = 2 * cap < max + 2 ? 2 * cap : max + 2;
            char *grown = realloc(buf, grown_cap);
            if (grown == NULL) { err = ENOMEM; break; }
            buf = grown;
            cap = grown_cap;
        }
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) err = errno;
        if (got <= 0) break;
        len += (size_t)got;
    }
    if (fd >= 0) close(fd);
    if (err == 0 && len > max) {
        free(buf);
        return load_error(path, HSPLIT_CONF_TOO_LARGE, msg, msglen, "the file has more than "
                          "the %ld bytes allowed (the limit %s)", max_bytes, limit);
    }
    if (err != 0) {
        free(buf);
        return load_error(path, err == ENOMEM ? HSPLIT_CONF_NOMEM : HSPLIT_CONF_UNREADABLE,
                          msg, msglen, "cannot read the file (%s)",
                          err == ENOENT || err == ENOTDIR ? "no such file"
                          : err == EACCES ? "permission denied"
                          : err == ENOMEM ? "out of memory" : "read error");
    }
    buf[len] = '\0';
    *text = buf;
    *length = len;
    return HSPLIT_CONF_OK;
}

int hsplit_topology_conf_load(const char *path, hsplit_topology_conf *conf, char *msg,
                              size_t msglen)
{
    memset(conf, 0, sizeof *conf);
    char *text;
    size_t len;
    int status = hsplit_read_regular_file(path, HSPLIT_CONF_MAX_BYTES, "HSPLIT_CONF_MAX_BYTES",
                                          &text, &len, msg, msglen);
    if (status != HSPLIT_CONF_OK) return status;
    if (memchr(text, '\0', len) != NULL) {
        free(text);
        return load_error(path, HSPLIT_CONF_UNREADABLE, msg, msglen,
                          "cannot read the file (not a text file)");
    }
    status = hsplit_topology_conf_parse(text, path, conf, msg, msglen);
    free(text);
    return status;
}

int hsplit_topology_conf_find_node(const hsplit_topology_conf *conf, const char *name)
{
    int lo = 0, hi = conf->nnodes - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(conf->nodes[mid].name, name);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

int hsplit_topology_conf_path(const hsplit_topology_conf *conf, int sw, int *path)
{
    int n = conf->switches[sw].depth + 1;
    for (int i = n - 1; i >= 0; i--, sw = conf->switches[sw].parent) path[i] = sw;
    return n;
}
