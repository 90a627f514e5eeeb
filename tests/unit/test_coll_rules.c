/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests without MPI: the rules file of HSPLIT_COLL_RULES
   (c/src/coll_rules.c). Every field form, the first match winning,
   comments, every kind of malformed line (its line number and reason), the
   limits (a line of 1025 characters, 4097 rules, a number past LONG_MAX, a
   file past 1 MiB), a directory, a FIFO and a missing file as the path.
   Expectations are written by hand from the texts below.
   Usage: test_coll_rules_parser [FILE] (FILE: a valid file of 10 rules, the
   output scripts/coll-rules must give on tests/scripts' fixture). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coll_rules.h"
#include "unit_check.h"

enum { BCAST = 0, REDUCE = 1, ALLREDUCE = 2, ALLTOALLV = 11, EXSCAN = 15 };

static int parse(const char *text, hsplit_coll_rules *r, hsplit_rules_error *e)
{
    return hsplit_coll_rules_parse(text, strlen(text), r, e);
}

/* The text is malformed at line, with a reason that contains what. */
static void check_bad(const char *text, int line, const char *what)
{
    hsplit_coll_rules r;
    hsplit_rules_error e;
    int rc = parse(text, &r, &e);
    CHECK(rc == -1 && r.n == 0 && r.rules == NULL, "\"%.60s\" parsed (rc %d)", text, rc);
    CHECK(e.line == line, "\"%.60s\": line %d, expected %d", text, e.line, line);
    CHECK(strstr(e.reason, what) != NULL, "\"%.60s\": reason \"%s\", expected \"%s\"", text,
          e.reason, what);
    hsplit_coll_rules_free(&r);
}

/* The line of the rule matching a call, 0 for none. */
static int line_of(const hsplit_coll_rules *r, int kind, long procs, long depth, long bytes)
{
    const hsplit_coll_rule *m = hsplit_coll_rules_match(r, kind, procs, depth, bytes);
    return m != NULL ? m->line : 0;
}

static void test_forms(void)
{
    const char *text = "# collective  processes  depth  bytes        path\n"
                       "allreduce     *          *      0-1023       shm\n"
                       "\n"
                       "allreduce     64-*       2-*    1024-65535   tree   # trailing comment\n"
                       "   bcast\t*\t1\t*\tplain\r\n"
                       "*             *          *      1048576-*    plain\n"
                       "exscan 8 3 100 shm\n"
                       "   # indented comment\n"
                       "reduce 0-0 0 9223372036854775807 tree"; /* no final newline */
    hsplit_coll_rules r;
    hsplit_rules_error e;
    CHECK(parse(text, &r, &e) == 0, "rc: line %d %s", e.line, e.reason);
    CHECK(r.n == 6, "%d rules", r.n);
    if (r.n != 6) return;
    const hsplit_coll_rule *x = r.rules;
    CHECK(x[0].kind == ALLREDUCE && x[0].line == 2 && x[0].path == HSPLIT_RULE_SHM, "rule 0");
    CHECK(x[0].procs.low == 0 && x[0].procs.high == LONG_MAX, "rule 0 procs");
    CHECK(x[0].bytes.low == 0 && x[0].bytes.high == 1023, "rule 0 bytes");
    CHECK(x[1].line == 4 && x[1].procs.low == 64 && x[1].procs.high == LONG_MAX &&
              x[1].depth.low == 2 && x[1].depth.high == LONG_MAX && x[1].bytes.low == 1024 &&
              x[1].bytes.high == 65535 && x[1].path == HSPLIT_RULE_TREE, "rule 1");
    CHECK(x[2].kind == BCAST && x[2].line == 5 && x[2].depth.low == 1 && x[2].depth.high == 1 &&
              x[2].path == HSPLIT_RULE_PLAIN, "rule 2");
    CHECK(x[3].kind == -1 && x[3].line == 6 && x[3].bytes.low == 1048576, "rule 3");
    CHECK(x[4].kind == EXSCAN && x[4].procs.low == 8 && x[4].procs.high == 8 &&
              x[4].depth.low == 3 && x[4].bytes.low == 100 && x[4].bytes.high == 100, "rule 4");
    CHECK(x[5].kind == REDUCE && x[5].line == 9 && x[5].procs.high == 0 &&
              x[5].bytes.low == LONG_MAX, "rule 5");
    /* first match wins */
    CHECK(line_of(&r, ALLREDUCE, 64, 2, 1023) == 2, "allreduce 1023");
    CHECK(line_of(&r, ALLREDUCE, 64, 2, 1024) == 4, "allreduce 1024");
    CHECK(line_of(&r, ALLREDUCE, 63, 2, 1024) == 0, "allreduce on 63");
    CHECK(line_of(&r, ALLREDUCE, 64, 1, 2048) == 0, "allreduce depth 1");
    CHECK(line_of(&r, ALLREDUCE, 64, 2, 65536) == 0, "allreduce 65536");
    CHECK(line_of(&r, ALLREDUCE, 64, 2, 1048576) == 6, "allreduce 1 MiB");
    CHECK(line_of(&r, BCAST, 2, 1, 1L << 40) == 5, "bcast depth 1 beats the * rule");
    CHECK(line_of(&r, BCAST, 2, 2, 1L << 40) == 6, "bcast depth 2");
    CHECK(line_of(&r, EXSCAN, 8, 3, 100) == 7 && line_of(&r, EXSCAN, 8, 3, 101) == 0, "exscan");
    /* line 9 never wins: line 6 takes every size from 1 MiB on first */
    CHECK(line_of(&r, REDUCE, 0, 0, LONG_MAX) == 6 && line_of(&r, REDUCE, 0, 0, 5) == 0, "reduce");
    /* whole ranges: 0-1023 ruled by line 2; 1024-2047 on 64 by line 4; on 32
       by nothing; 512-2047 on 64 split between lines 2 and 4 */
    const hsplit_coll_rule *m;
    CHECK(hsplit_coll_rules_cover(&r, ALLREDUCE, 64, 2, 512, 1023, &m) == 1 && m->line == 2,
          "cover 512-1023");
    CHECK(hsplit_coll_rules_cover(&r, ALLREDUCE, 64, 2, 1024, 2047, &m) == 1 && m->line == 4,
          "cover 1024-2047");
    CHECK(hsplit_coll_rules_cover(&r, ALLREDUCE, 32, 2, 1024, 2047, &m) == 0 && m == NULL,
          "cover on 32");
    CHECK(hsplit_coll_rules_cover(&r, ALLREDUCE, 64, 2, 512, 2047, &m) == -1, "cover split");
    /* 65536-131071: no rule before line 6, which starts at 1 MiB: none */
    CHECK(hsplit_coll_rules_cover(&r, ALLREDUCE, 64, 2, 65536, 131071, &m) == 0, "cover 64K");
    /* 524288-1048575 on 32 processes: none; 1048576-2097151: line 6 */
    CHECK(hsplit_coll_rules_cover(&r, REDUCE, 32, 2, 1048576, 2097151, &m) == 1 &&
              m->line == 6, "cover 1 MiB");
    CHECK(hsplit_coll_rules_cover(&r, REDUCE, 32, 2, 524288, 1048575, &m) == 0, "cover 512K");
    /* the checksum sees the rules, not the comments nor the line numbers */
    hsplit_coll_rules same, other;
    CHECK(parse("\n\n# other comments\nallreduce * * 0-1023 shm\nallreduce 64-* 2-* 1024-65535 "
                "tree\nbcast * 1 * plain\n* * * 1048576-* plain\nexscan 8 3 100 shm\nreduce 0 "
                "0 9223372036854775807 tree\n", &same, &e) == 0, "same");
    CHECK(parse("allreduce * * 0-1023 shm\nallreduce 64-* 2-* 1024-65535 tree\nbcast * 1 * "
                "plain\n* * * 1048576-* plain\nexscan 8 3 100 shm\nreduce 0 0 "
                "9223372036854775807 plain\n", &other, &e) == 0, "other");
    uint64_t sum = hsplit_coll_rules_checksum(&r);
    CHECK(sum == hsplit_coll_rules_checksum(&same), "same rules, other sums");
    CHECK(sum != hsplit_coll_rules_checksum(&other), "other rules, same sum");
    CHECK(sum != 0 && sum < (1ull << 63), "sum out of range");
    hsplit_coll_rules_free(&same);
    hsplit_coll_rules_free(&other);
    hsplit_coll_rules_free(&r);
    /* a schedule of the engine as the path: its fields, and the checksum
       sees them */
    hsplit_coll_rules a, b;
    CHECK(parse("allreduce * * 32768-* ml\nbcast 256 * 0-2047 all+v8:chain,binomial/4096\n", &a,
                &e) == 0 && a.n == 2, "schedule paths");
    if (a.n == 2) {
        CHECK(a.rules[0].path == HSPLIT_RULE_SCHEDULE && a.rules[0].schedule.view == HSPLIT_VIEW_ML,
              "ml rule");
        const hsplit_schedule *s = &a.rules[1].schedule;
        CHECK(a.rules[1].path == HSPLIT_RULE_SCHEDULE && s->view == HSPLIT_VIEW_ALL &&
                  s->virtual_size == 8 && s->nshapes == 2 && s->shape[0] == HSPLIT_SHAPE_CHAIN &&
                  s->shape[1] == HSPLIT_SHAPE_BINOMIAL && s->segment == 4096,
              "all+v8:chain,binomial/4096 rule");
    }
    CHECK(parse("allreduce * * 32768-* ml\nbcast 256 * 0-2047 all+v8:chain,binomial/8192\n", &b,
                &e) == 0, "other segment");
    CHECK(hsplit_coll_rules_checksum(&a) != hsplit_coll_rules_checksum(&b),
          "schedules that differ by their segment, same sum");
    hsplit_coll_rules_free(&a);
    hsplit_coll_rules_free(&b);
    /* an empty file, or only comments: no rules, a valid file */
    CHECK(parse("", &r, &e) == 0 && r.n == 0, "empty");
    hsplit_coll_rules_free(&r);
    CHECK(parse("# nothing\n\n   \n", &r, &e) == 0 && r.n == 0, "comments only");
    hsplit_coll_rules_free(&r);
}

static void test_malformed(void)
{
    check_bad("bcast * * *\n", 1, "4 fields, expected 5");
    check_bad("# c\nbcast\n", 2, "1 field, expected 5");
    check_bad("\n\nbcast * * * plain extra\n", 3, "more than 5 fields");
    check_bad("broadcast * * * plain\n", 1, "unknown collective \"broadcast\"");
    check_bad("Bcast * * * plain\n", 1, "unknown collective \"Bcast\"");
    check_bad("bcast * * * fast\n", 1, "unknown path \"fast\"");
    check_bad("bcast * * * PLAIN\n", 1, "unknown path \"PLAIN\"");
    check_bad("bcast * * * all:tree\n", 1, "unknown path \"all:tree\"");
    check_bad("bcast * * * two:mpi/0\n", 1, "unknown path \"two:mpi/0\"");
    check_bad("bcast * * * ml:binomial\n", 1, "unknown path \"ml:binomial\"");
    check_bad("bcast -1 * * plain\n", 1, "processes \"-1\" is not N, A-B, A-* or *");
    check_bad("bcast +4 * * plain\n", 1, "processes \"+4\" is not");
    check_bad("bcast 4- * * plain\n", 1, "processes \"4-\" is not");
    check_bad("bcast *-4 * * plain\n", 1, "processes \"*-4\" is not");
    check_bad("bcast 1-2-3 * * plain\n", 1, "processes \"1-2-3\" is not");
    check_bad("bcast 0x10 * * plain\n", 1, "processes \"0x10\" is not");
    check_bad("bcast * two * plain\n", 1, "depth \"two\" is not");
    check_bad("bcast * * 1k plain\n", 1, "bytes \"1k\" is not");
    check_bad("bcast * * 10-5 plain\n", 1, "bytes \"10-5\": an empty range");
    check_bad("ok:\nbcast * * * plain\n", 1, "1 field, expected 5");
    check_bad("bcast * * 9223372036854775808 plain\n", 1, "a number larger than");
    check_bad("bcast * * 0-99999999999999999999 plain\n", 1, "a number larger than");
    check_bad("bcast 99999999999999999999999999999999-* * * plain\n", 1, "a number larger than");
    /* the first malformed line is the one reported */
    check_bad("bcast * * * plain\nreduce * * * tree\nbad\nworse * *\n", 3, "1 field");
    char nul[] = "bcast * * * plain\nreduce * \0 * tree\n";
    hsplit_coll_rules r;
    hsplit_rules_error e;
    CHECK(hsplit_coll_rules_parse(nul, sizeof nul - 1, &r, &e) == -1 && e.line == 2 &&
              strstr(e.reason, "NUL") != NULL, "NUL: line %d %s", e.line, e.reason);
    hsplit_coll_rules_free(&r);
}

static void test_limits(void)
{
    /* a line of 1024 characters is fine, 1025 is not (white space counts) */
    char line[1100];
    const char *rule = "bcast * * * plain";
    size_t n = strlen(rule);
    memcpy(line, rule, n);
    memset(line + n, ' ', 1024 - n);
    line[1024] = '\n';
    line[1025] = '\0';
    hsplit_coll_rules r;
    hsplit_rules_error e;
    CHECK(parse(line, &r, &e) == 0 && r.n == 1, "1024 characters: %s", e.reason);
    hsplit_coll_rules_free(&r);
    memset(line + n, ' ', 1025 - n);
    line[1025] = '\n';
    line[1026] = '\0';
    check_bad(line, 1, "a line of 1025 characters");
    /* 4096 rules are fine, the 4097th is not; comment lines count as lines */
    size_t size = 4100 * 24 + 64;
    char *many = malloc(size);
    size_t at = (size_t)snprintf(many, size, "# many\n");
    for (int i = 0; i < 4096; i++)
        at += (size_t)snprintf(many + at, size - at, "bcast * * %d tree\n", i);
    CHECK(parse(many, &r, &e) == 0 && r.n == 4096 && r.rules[4095].line == 4097, "4096 rules");
    CHECK(line_of(&r, BCAST, 4, 2, 4095) == 4097 && line_of(&r, BCAST, 4, 2, 4096) == 0, "last");
    hsplit_coll_rules_free(&r);
    snprintf(many + at, size - at, "reduce * * 1 tree\n");
    check_bad(many, 4098, "more than 4096 rules");
    free(many);
    /* past 1 MiB: refused as a whole, before any line (blank lines only) */
    size_t big = (size_t)HSPLIT_RULES_MAX_BYTES + 1;
    char *blank = malloc(big);
    memset(blank, '\n', big);
    CHECK(hsplit_coll_rules_parse(blank, big, &r, &e) == -1 && e.line == 0 &&
              strstr(e.reason, "1048576 bytes") != NULL, "1 MiB + 1: %d %s", e.line, e.reason);
    hsplit_coll_rules_free(&r);
    CHECK(hsplit_coll_rules_parse(blank, big - 1, &r, &e) == 0 && r.n == 0, "1 MiB");
    hsplit_coll_rules_free(&r);
    free(blank);
}

static void check_load_bad(const char *path, const char *what)
{
    hsplit_coll_rules r;
    hsplit_rules_error e;
    int rc = hsplit_coll_rules_load(path, &r, &e);
    CHECK(rc == -1 && e.line == 0 && strstr(e.reason, what) != NULL && r.n == 0,
          "%s: rc %d, line %d, \"%s\", expected \"%s\"", path, rc, e.line, e.reason, what);
    hsplit_coll_rules_free(&r);
}

static void test_files(void)
{
    char dir[] = "/tmp/hsplit_rules_XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK(0, "mkdtemp");
        return;
    }
    char path[128], fifo[128], big[128];
    snprintf(path, sizeof path, "%s/rules.txt", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(big, sizeof big, "%s/big.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("# from a file\nallreduce 4 2 0-1023 shm\nbad line\n", f);
    fclose(f);
    hsplit_coll_rules r;
    hsplit_rules_error e;
    CHECK(hsplit_coll_rules_load(path, &r, &e) == -1 && e.line == 3 &&
              strstr(e.reason, "2 fields") != NULL, "file: %d %s", e.line, e.reason);
    hsplit_coll_rules_free(&r);
    f = fopen(path, "w");
    fputs("# from a file\nallreduce 4 2 0-1023 shm\n", f);
    fclose(f);
    CHECK(hsplit_coll_rules_load(path, &r, &e) == 0 && r.n == 1 && r.rules[0].line == 2,
          "file: %s", e.reason);
    hsplit_coll_rules_free(&r);
    /* a directory and a FIFO: refused, never opened (a FIFO would block) */
    check_load_bad(dir, "only a regular file is read");
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    check_load_bad(fifo, "only a regular file is read");
    check_load_bad("/nonexistent/hsplit/rules", "no such file");
    /* over 1 MiB: refused by its size */
    f = fopen(big, "w");
    for (long i = 0; i <= HSPLIT_RULES_MAX_BYTES; i++) fputc('\n', f);
    fclose(f);
    check_load_bad(big, "more than the 1048576 allowed");
    unlink(big);
    unlink(fifo);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    /* scripts/coll-rules' expected output (tests/scripts): a valid file */
    if (argc > 1) {
        hsplit_coll_rules r;
        hsplit_rules_error e;
        CHECK(hsplit_coll_rules_load(argv[1], &r, &e) == 0 && r.n == 11, "%s: %d rules, line %d: %s",
              argv[1], r.n, e.line, e.reason);
        hsplit_coll_rules_free(&r);
    }
    test_forms();
    test_malformed();
    test_limits();
    test_files();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
