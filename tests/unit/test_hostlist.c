/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests without MPI: Slurm hostlist expressions (c/src/hostlist.c).
   Every expected list is written out by hand from the grammar in hostlist.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"
#include "unit_check.h"

/* The names, joined with spaces. */
typedef struct {
    char text[4096];
    int count, stop_after;
} collected;

static int collect(const char *name, void *arg)
{
    collected *c = arg;
    size_t len = strlen(c->text);
    snprintf(c->text + len, sizeof c->text - len, "%s%s", len > 0 ? " " : "", name);
    c->count++;
    return c->stop_after > 0 && c->count == c->stop_after;
}

static void check_expands(const char *expr, const char *expected, int count)
{
    collected c = {"", 0, 0};
    int rc = hsplit_hostlist_foreach(expr, collect, &c);
    CHECK(rc == HSPLIT_HOSTLIST_OK, "\"%s\": status %d", expr, rc);
    CHECK(strcmp(c.text, expected) == 0, "\"%s\" gave \"%s\", expected \"%s\"", expr, c.text,
          expected);
    CHECK(c.count == count, "\"%s\": %d names, expected %d", expr, c.count, count);
    CHECK(hsplit_hostlist_count(expr) == count, "count(\"%s\") = %ld, expected %d", expr,
          hsplit_hostlist_count(expr), count);
}

static void check_refused(const char *expr, int status)
{
    collected c = {"", 0, 0};
    int rc = hsplit_hostlist_foreach(expr, collect, &c);
    CHECK(rc == status, "\"%s\": status %d, expected %d", expr, rc, status);
    CHECK(c.count == 0, "\"%s\": %d names produced from a refused expression", expr, c.count);
    CHECK(hsplit_hostlist_count(expr) == -1, "count(\"%s\") = %ld, expected -1", expr,
          hsplit_hostlist_count(expr));
}

int main(void)
{
    /* plain names and lists */
    check_expands("tux0", "tux0", 1);
    check_expands("login1,tux3", "login1 tux3", 2);
    check_expands("a,b,c", "a b c", 3);
    check_expands("n-1.cluster_x", "n-1.cluster_x", 1);
    /* ranges, single numbers, several pieces in one bracket */
    check_expands("tux[0-3]", "tux0 tux1 tux2 tux3", 4);
    check_expands("tux[0-3,12,18-20]", "tux0 tux1 tux2 tux3 tux12 tux18 tux19 tux20", 8);
    check_expands("s[5]", "s5", 1);
    check_expands("s[7-7]", "s7", 1);
    /* the example: zero padding to the width of the low bound */
    check_expands("node[01-04,07]", "node01 node02 node03 node04 node07", 5);
    check_expands("n[08-11]", "n08 n09 n10 n11", 4);
    check_expands("n[098-101]", "n098 n099 n100 n101", 4);
    check_expands("n[8-11]", "n8 n9 n10 n11", 4);
    check_expands("n[001-3]", "n001 n002 n003", 3);
    check_expands("n[0]", "n0", 1);
    check_expands("n[00]", "n00", 1);
    /* a suffix after the brackets, a bracket alone, names mixed with ranges */
    check_expands("rack[1-2]-ib", "rack1-ib rack2-ib", 2);
    check_expands("[3-4]", "3 4", 2);
    check_expands("login,cn[1-2],gpu[09-10]", "login cn1 cn2 gpu09 gpu10", 5);
    /* several groups: every combination, the leftmost slowest */
    check_expands("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2", 4);
    check_expands("r[0,2]c[1-3]x", "r0c1x r0c2x r0c3x r2c1x r2c2x r2c3x", 6);
    check_expands("a[1-2]b[3]c[4-5]", "a1b3c4 a1b3c5 a2b3c4 a2b3c5", 4);
    /* order is the expression's, not sorted; repeats are kept */
    check_expands("n[3,1,2]", "n3 n1 n2", 3);
    check_expands("n1,n1", "n1 n1", 2);
    /* nine digits are allowed */
    check_expands("n[999999998-999999999]", "n999999998 n999999999", 2);

    /* malformed */
    const char *bad[] = {"", ",", "a,", ",a", "a,,b", "n[", "n]", "n[1", "n1]", "n[]", "n[1-]",
                         "n[-1]", "n[a]", "n[1-a]", "n[3-1]", "n[1,]", "n[,1]", "n[1--2]",
                         "n[[1]]", "n[1]]", "n [1]", "a b", "n[1-2-3]", "n[1234567890]",
                         "n[1 ,2]", "n[1]x[", "tab\tname"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_refused(bad[i], HSPLIT_HOSTLIST_MALFORMED);
    CHECK(hsplit_hostlist_foreach(NULL, collect, NULL) == HSPLIT_HOSTLIST_MALFORMED,
          "NULL expression accepted");
    /* too large: more than HSPLIT_HOSTLIST_MAX names, even across groups or items */
    check_refused("n[0-999999999]", HSPLIT_HOSTLIST_TOO_LARGE);
    check_refused("a[0-999]b[0-999]c[0-9]", HSPLIT_HOSTLIST_TOO_LARGE);
    check_refused("a[1-600000],b[1-600000]", HSPLIT_HOSTLIST_TOO_LARGE);
    char big[64];
    snprintf(big, sizeof big, "n[1-%d]", HSPLIT_HOSTLIST_MAX);
    CHECK(hsplit_hostlist_count(big) == HSPLIT_HOSTLIST_MAX, "count(%s) = %ld", big,
          hsplit_hostlist_count(big));
    /* a malformed name late in the list: nothing produced at all */
    check_refused("n[1-3],m[2-1]", HSPLIT_HOSTLIST_MALFORMED);

    /* hsplit_hostlist_check: the verdict and the count, nothing expanded */
    long n = -1;
    CHECK(hsplit_hostlist_check("node[01-04,07],login1", &n) == HSPLIT_HOSTLIST_OK && n == 6,
          "check: count %ld", n);
    CHECK(hsplit_hostlist_check("n[1-", &n) == HSPLIT_HOSTLIST_MALFORMED, "check malformed");
    CHECK(hsplit_hostlist_check(NULL, &n) == HSPLIT_HOSTLIST_MALFORMED, "check NULL");
    CHECK(hsplit_hostlist_check("n[0-999999999]", &n) == HSPLIT_HOSTLIST_TOO_LARGE,
          "check too large");
    /* every name is read before the limits: a malformed one anywhere wins,
       even after (or inside) a group past HSPLIT_HOSTLIST_MAX */
    check_refused("n[0-999999999],m[", HSPLIT_HOSTLIST_MALFORMED);
    check_refused("n[0-999999999,a]", HSPLIT_HOSTLIST_MALFORMED);
    check_refused("a[0-999]b[0-999]c[0-9]d[x]", HSPLIT_HOSTLIST_MALFORMED);

    /* names of at most HSPLIT_HOSTLIST_MAX_NAME characters, counted with the
       widest number of each group (its padding or its high bound) */
    char name[HSPLIT_HOSTLIST_MAX_NAME + 64], longest[HSPLIT_HOSTLIST_MAX_NAME + 1];
    memset(longest, 'x', HSPLIT_HOSTLIST_MAX_NAME);
    longest[HSPLIT_HOSTLIST_MAX_NAME] = '\0';
    check_expands(longest, longest, 1);
    snprintf(name, sizeof name, "a,%sy", longest);
    check_refused(name, HSPLIT_HOSTLIST_NAME_TOO_LONG);
    /* 250 letters and 5 digits: 255; 6 digits (high bound or padding): 256 */
    snprintf(name, sizeof name, "%.250s[1-99999]", longest);
    CHECK(hsplit_hostlist_count(name) == 99999, "250 letters + 5 digits: %ld",
          hsplit_hostlist_count(name));
    snprintf(name, sizeof name, "%.250s[99999-100000]", longest);
    check_refused(name, HSPLIT_HOSTLIST_NAME_TOO_LONG);
    snprintf(name, sizeof name, "%.250s[000001-2]", longest);
    check_refused(name, HSPLIT_HOSTLIST_NAME_TOO_LONG);
    snprintf(name, sizeof name, "%.250s[00001-2]", longest);
    CHECK(hsplit_hostlist_count(name) == 2, "250 letters + 5 padded digits");
    /* several groups add up: 242 letters + 1 + "x" + 9 + "y" + 1 = 255, one
       more letter 256 */
    char expected[HSPLIT_HOSTLIST_MAX_NAME + 1];
    snprintf(name, sizeof name, "%.242s[1]x[123456789]y[7]", longest);
    snprintf(expected, sizeof expected, "%.242s1x123456789y7", longest);
    check_expands(name, expected, 1);
    snprintf(name, sizeof name, "%.243s[1]x[123456789]y[7]", longest);
    check_refused(name, HSPLIT_HOSTLIST_NAME_TOO_LONG);

    /* the callback stops the expansion */
    collected c = {"", 0, 2};
    int rc = hsplit_hostlist_foreach("n[1-5]", collect, &c);
    CHECK(rc == HSPLIT_HOSTLIST_STOPPED && c.count == 2 && strcmp(c.text, "n1 n2") == 0,
          "stop after 2: status %d, \"%s\"", rc, c.text);

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
