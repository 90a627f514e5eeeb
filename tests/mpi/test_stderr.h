/* SPDX-License-Identifier: BSD-3-Clause */
/* This process's standard error captured into a temporary file, so that a
   test can check what the library says there (its reports, its error
   messages). Header only, for the MPI tests. */
#ifndef HSPLIT_TEST_STDERR_H
#define HSPLIT_TEST_STDERR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    FILE *file; /* NULL: not capturing */
    int saved;  /* the standard error to restore */
} test_stderr;

/* Captures from now on when on is nonzero (rank 0, say); else nothing. */
static inline void test_stderr_begin(test_stderr *c, int on)
{
    c->file = NULL;
    c->saved = -1;
    if (!on) return;
    fflush(stderr);
    c->file = tmpfile();
    c->saved = c->file != NULL ? dup(STDERR_FILENO) : -1;
    if (c->saved < 0) {
        if (c->file != NULL) fclose(c->file);
        c->file = NULL;
        return;
    }
    dup2(fileno(c->file), STDERR_FILENO);
}

/* Lines written so far that contain what (and what2 unless NULL); -1 when
   not capturing. The file is read to its end, where writing goes on. */
static inline int test_stderr_count(test_stderr *c, const char *what, const char *what2)
{
    if (c->file == NULL) return -1;
    fflush(stderr);
    rewind(c->file);
    int count = 0;
    char line[1024];
    while (fgets(line, sizeof line, c->file) != NULL)
        if (strstr(line, what) != NULL && (what2 == NULL || strstr(line, what2) != NULL))
            count++;
    return count;
}

/* Everything written so far (malloc'd; NULL when not capturing). */
static inline char *test_stderr_text(test_stderr *c)
{
    if (c->file == NULL) return NULL;
    fflush(stderr);
    fseek(c->file, 0, SEEK_END);
    long n = ftell(c->file);
    char *text = malloc((size_t)(n > 0 ? n : 0) + 1);
    rewind(c->file);
    size_t got = text != NULL ? fread(text, 1, (size_t)(n > 0 ? n : 0), c->file) : 0;
    if (text != NULL) text[got] = '\0';
    return text;
}

/* Restores the standard error; the file goes. */
static inline void test_stderr_end(test_stderr *c)
{
    if (c->file == NULL) return;
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    fclose(c->file);
    c->file = NULL;
}

#endif
