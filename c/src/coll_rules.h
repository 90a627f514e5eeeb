/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_COLL_RULES: a text file that fixes auto mode's choice of path per
   collective, communicator size, hierarchy depth and message size (user
   guide, section 8.5). One rule per line, '#' starts a comment, five fields
   separated by white space:
       collective  processes  depth  bytes  path
   collective: a kind name (hsplit_coll_kind_names) or '*'; the three numbers:
   N, A-B, A-* or '*' (non-negative decimal, A <= B); path: plain, tree,
   shm or a schedule of the engine (coll_schedule.h: two:mpi, ml, ...). The
   first rule that matches wins.
   No MPI here: the parser is tested on its own (tests/unit). Hostile files
   are bounded: at most HSPLIT_RULES_MAX_BYTES, lines of at most
   HSPLIT_RULES_MAX_LINE characters, at most HSPLIT_RULES_MAX_RULES rules. */
#ifndef HSPLIT_COLL_RULES_H
#define HSPLIT_COLL_RULES_H

#include <stddef.h>
#include <stdint.h>
#include "coll_schedule.h"

#define HSPLIT_RULES_MAX_BYTES (1L << 20)
#define HSPLIT_RULES_MAX_LINE 1024
#define HSPLIT_RULES_MAX_RULES 4096
/* The collectives that auto mode chooses for, in the order of
   HSPLIT_COLL_BCAST... (hsplit_internal.h checks that they agree). */
#define HSPLIT_RULES_NKINDS 16
extern const char *const hsplit_coll_kind_names[HSPLIT_RULES_NKINDS];

/* The paths a rule names: the values of HSPLIT_PATH_* (hsplit_internal.h). */
enum { HSPLIT_RULE_PLAIN = 0, HSPLIT_RULE_TREE, HSPLIT_RULE_SHM, HSPLIT_RULE_SCHEDULE };

/* A closed range of non-negative integers; '*' is [0, LONG_MAX]. */
typedef struct {
    long low, high;
} hsplit_rule_range;

typedef struct {
    int kind;                        /* index into hsplit_coll_kind_names; -1: any */
    hsplit_rule_range procs, depth, bytes;
    int path;                        /* HSPLIT_RULE_*                  */
    hsplit_schedule schedule;        /* HSPLIT_RULE_SCHEDULE's          */
    int line;                        /* in the file, from 1            */
} hsplit_coll_rule;

typedef struct {
    hsplit_coll_rule *rules;         /* in file order                  */
    int n;
} hsplit_coll_rules;

/* What makes a file malformed: line 0 for the file as a whole. */
typedef struct {
    int line;
    char reason[160];
} hsplit_rules_error;

/* Parses len bytes of text into *rules (to free with hsplit_coll_rules_free,
   also on error: it is then empty). Returns 0, or -1 with *err filled. */
int hsplit_coll_rules_parse(const char *text, size_t len, hsplit_coll_rules *rules,
                            hsplit_rules_error *err);
/* Reads the regular file at path and parses it; a FIFO, a directory, a
   device, a missing or unreadable file or one over the size limit is an
   error of line 0. Returns 0 or -1 as hsplit_coll_rules_parse. */
int hsplit_coll_rules_load(const char *path, hsplit_coll_rules *rules, hsplit_rules_error *err);
void hsplit_coll_rules_free(hsplit_coll_rules *rules);

/* The first rule matching a call (kind, communicator size, hierarchy depth,
   bytes), or NULL. */
const hsplit_coll_rule *hsplit_coll_rules_match(const hsplit_coll_rules *rules, int kind,
                                                long procs, long depth, long bytes);
/* What the rules say of every size in [low, high] at once: 1 with *rule the
   one that decides them all (the first rule to match any of them matches
   them all), 0 when no rule matches any of them, -1 when different sizes
   go different ways (decide per call). */
int hsplit_coll_rules_cover(const hsplit_coll_rules *rules, int kind, long procs, long depth,
                            long low, long high, const hsplit_coll_rule **rule);
/* A checksum of the parsed rules (not their line numbers): equal rules,
   equal sums. Never 0. */
uint64_t hsplit_coll_rules_checksum(const hsplit_coll_rules *rules);

#endif /* HSPLIT_COLL_RULES_H */
