/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_PMPI and HSPLIT_PMPI_REPORT, read once per process: the switch that
   turns interception off without removing the preload must cost one load
   and one branch per call (the overhead target is tens of nanoseconds),
   which a getenv per call would not. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmpi_internal.h"

static int parse_switch(const char *value, const char *on, const char *off, int fallback)
{
    if (value == NULL || value[0] == '\0') return fallback;
    if (strcmp(value, on) == 0) return 1;
    if (strcmp(value, off) == 0) return 0;
    return -1;
}

int hsplit_pmpi_parse_settings(const char *pmpi, const char *report, hsplit_pmpi_settings *s)
{
    int enabled = parse_switch(pmpi, "on", "off", 1);
    int reported = parse_switch(report, "1", "0", 0);
    s->bad = enabled < 0 || reported < 0;
    s->enabled = enabled != 0;
    s->report = reported > 0;
    return s->bad ? -1 : 0;
}

/* Written once, under pthread_once, before any reader sees it; read-only
   after (the library is not built for SMPI, whose ranks share a process). */
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;
static hsplit_pmpi_settings settings;

static void read_settings(void)
{
    const char *pmpi = getenv("HSPLIT_PMPI"), *report = getenv("HSPLIT_PMPI_REPORT");
    if (hsplit_pmpi_parse_settings(pmpi, report, &settings) == 0) return;
    int rank = 0, initialized = 0;
    PMPI_Initialized(&initialized);
    if (initialized) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "hsplit: HSPLIT_PMPI=\"%.40s\" HSPLIT_PMPI_REPORT=\"%.40s\": expected "
                        "on or off, and 0 or 1: the intercepted MPI calls return MPI_ERR_ARG\n",
                pmpi != NULL ? pmpi : "", report != NULL ? report : "");
}

const hsplit_pmpi_settings *hsplit_pmpi_get_settings(void)
{
    pthread_once(&settings_once, read_settings);
    return &settings;
}
