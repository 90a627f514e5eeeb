/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_PMPI and HSPLIT_PMPI_REPORT as libhsplit_pmpi parses them (no MPI
   call is made). */
#include <stdio.h>
#include "pmpi_internal.h"

static int failures;

static void expect(const char *pmpi, const char *report, int rc, int enabled, int reported)
{
    hsplit_pmpi_settings s;
    int got = hsplit_pmpi_parse_settings(pmpi, report, &s);
    if (got != rc || s.bad != (rc != 0) || (rc == 0 && (s.enabled != enabled || s.report != reported))) {
        printf("HSPLIT_PMPI=%s HSPLIT_PMPI_REPORT=%s: rc %d bad %d enabled %d report %d\n",
               pmpi ? pmpi : "(unset)", report ? report : "(unset)", got, s.bad, s.enabled,
               s.report);
        failures++;
    }
}

int main(void)
{
    expect(NULL, NULL, 0, 1, 0);   /* defaults: on, no report */
    expect("", "", 0, 1, 0);       /* empty: the default */
    expect("on", "1", 0, 1, 1);
    expect("off", "0", 0, 0, 0);
    expect("off", "1", 0, 0, 1);
    expect("ON", NULL, -1, 0, 0);  /* exact spelling */
    expect("yes", NULL, -1, 0, 0);
    expect(NULL, "2", -1, 0, 0);
    expect(NULL, "on", -1, 0, 0);
    expect("on ", NULL, -1, 0, 0);
    printf("%d failed\n", failures);
    return failures != 0;
}
