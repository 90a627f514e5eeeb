/* SPDX-License-Identifier: BSD-3-Clause */
/* The settings of the collectives: declared once (name, type, default,
   range, description), read once per communicator (at its first collective,
   from the HSPLIT_COLL* variables, overridden by keys of the communicator's
   own info, overridden by HSPLIT_Comm_set_coll_info),
   and kept with what auto mode has decided in an attribute of the
   communicator, so that a collective whose path is plain MPI costs one
   attribute look-up and one branch. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* The environment, as POSIX declares it. */
extern char **environ;

_Static_assert(HSPLIT_COLL_MAX_TRIALS == 5, "HSPLIT_COLL_TRIALS range");

/* In the order a malformed value is reported (the first one wins). */
const hsplit_coll_setting hsplit_coll_settings[HSPLIT_COLL_NSETTINGS] = {
    {"HSPLIT_COLL", HSPLIT_SETTING_MODE, 0, 0, 0, "auto", "auto, on, off or empty",
     "auto: hierarchy or plain MPI, measured per collective and size class; on: hierarchy "
     "always; off: plain MPI always"},
    {"HSPLIT_COLL_SEGMENT_SIZE", HSPLIT_SETTING_INT, 0, 1, LONG_MAX, "unset",
     "an integer >= 1 (bytes), or unset to choose by message size",
     "pipelining segment of the tree's broadcasts and reductions"},
    {"HSPLIT_COLL_MIN_PROCS", HSPLIT_SETTING_INT, 4, 1, INT_MAX, "4", "an integer >= 1",
     "auto: plain MPI on communicators of fewer processes"},
    {"HSPLIT_COLL_MIN_BYTES", HSPLIT_SETTING_INT, 0, 0, LONG_MAX, "0", "an integer >= 0",
     "auto: plain MPI below this many bytes per process"},
    {"HSPLIT_COLL_MAX_BYTES", HSPLIT_SETTING_INT, -1, -1, LONG_MAX, "-1",
     "an integer >= 0, or -1 for no limit",
     "auto: plain MPI above this many bytes per process"},
    {"HSPLIT_COLL_RSAG_BYTES", HSPLIT_SETTING_INT, HSPLIT_COLL_RSAG_DEFAULT, -1, LONG_MAX,
     "524288", "an integer >= 0 (bytes), or -1 for never",
     "allreduce of a commutative operation: reduce-scatter/allgather from this size on"},
    {"HSPLIT_COLL_TRIALS", HSPLIT_SETTING_INT, 3, 0, HSPLIT_COLL_MAX_TRIALS, "3",
     "an integer from 0 to 5",
     "auto: timed calls of each path per collective and size class before choosing"},
    {"HSPLIT_COLL_REPORT", HSPLIT_SETTING_INT, 0, 0, 1, "0", "0 or 1",
     "auto: print each choice on rank 0's standard error"},
    {"HSPLIT_COLL_SHM", HSPLIT_SETTING_MODE, 0, 0, 0, "auto", "auto, on, off or empty",
     "shared memory inside a node for barrier, bcast, reduce, allreduce, gather, scatter and "
     "allgather: auto: measured "
     "as a third candidate; on: always where the node is one shared-memory domain; off: never"},
    {"HSPLIT_COLL_SHM_BYTES", HSPLIT_SETTING_INT, HSPLIT_COLL_SHM_BYTES_DEFAULT, 4096, 1L << 30,
     "65536", "an integer from 4096 to 1073741824 (bytes)",
     "shared memory: bytes of the node segment per process (larger messages go in slices)"},
    {"HSPLIT_COLL_SHM_FANOUT", HSPLIT_SETTING_INT, 16, 2, 1L << 20, "16", "an integer >= 2",
     "shared memory: processes per group of the node's tree (barrier and small messages); "
     "a node of at most this many processes is one group"},
    {"HSPLIT_COLL_RULES", HSPLIT_SETTING_PATH, 0, 0, 1, "empty",
     "a path to a rules file, or empty",
     "auto: a file of rules that fix the path per collective, processes, hierarchy depth and "
     "size, without measuring (user guide, section 8.5)"},
    {"HSPLIT_COLL_SCHEDULE", HSPLIT_SETTING_SCHEDULE, 0, 0, 1, "empty",
     "a schedule such as all:binomial, two:mpi, all+v8:chain,binomial/65536 or ml, or empty",
     "bcast, reduce and allreduce: the hierarchy's schedule (levels, algorithm per level, "
     "segment) instead of the default tree; auto mode measures it against plain MPI "
     "(user guide, section 8.6)"},
    {"HSPLIT_COLL_SCHEDULES", HSPLIT_SETTING_SCHEDULES, 0, 0, 1, "auto",
     "auto, none, or up to " HSPLIT_NUMBER_TEXT(HSPLIT_ENGINE_CANDIDATES)
     " schedules separated by spaces",
     "auto mode: the engine's schedules measured besides plain MPI, the default tree and "
     "shared memory (auto: the library's " HSPLIT_NUMBER_TEXT(HSPLIT_ENGINE_DEFAULTS)
     " candidates; none: no other)"},
};

int hsplit_coll_setting_index(const char *name)
{
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++)
        if (strcmp(hsplit_coll_settings[i].name, name) == 0) return i;
    return -1;
}

int hsplit_coll_parse_setting(int i, const char *value, long *out)
{
    const hsplit_coll_setting *s = &hsplit_coll_settings[i];
    *out = s->fallback;
    if (value == NULL || value[0] == '\0') return 0;
    if (s->type == HSPLIT_SETTING_SCHEDULE) {
        hsplit_schedule schedule;
        if (hsplit_schedule_parse(value, &schedule) != 0) return -1;
        *out = 1;
        return 0;
    }
    if (s->type == HSPLIT_SETTING_SCHEDULES) {
        hsplit_engine_candidate list[HSPLIT_ENGINE_CANDIDATES];
        int n;
        return hsplit_schedule_list_parse(value, list, &n) < 0 ? -1 : 0;
    }
    if (s->type == HSPLIT_SETTING_PATH) { /* any string names a file */
        *out = 1;
        return 0;
    }
    if (s->type == HSPLIT_SETTING_MODE) {
        if (strcmp(value, "auto") == 0) *out = HSPLIT_COLL_AUTO;
        else if (strcmp(value, "on") == 0) *out = HSPLIT_COLL_ON;
        else if (strcmp(value, "off") == 0) *out = HSPLIT_COLL_OFF;
        else return -1;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < s->min || v > s->max) return -1;
    *out = v;
    return 0;
}

/* The HSPLIT_COLL* variables, in one pass over the environment; the first
   definition counts, as for getenv. */
void hsplit_coll_environment(const char *values[HSPLIT_COLL_NSETTINGS])
{
    static const char prefix[] = "HSPLIT_COLL";
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) values[i] = NULL;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, prefix, sizeof prefix - 1) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (eq == NULL) continue;
        for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
            size_t n = strlen(hsplit_coll_settings[i].name);
            if (values[i] == NULL && (size_t)(eq - *e) == n &&
                strncmp(*e, hsplit_coll_settings[i].name, n) == 0) {
                values[i] = eq + 1;
                break;
            }
        }
    }
}

int hsplit_coll_config_from(const char *const values[HSPLIT_COLL_NSETTINGS],
                            hsplit_coll_config *c)
{
    long v[HSPLIT_COLL_NSETTINGS];
    c->bad = NULL;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++)
        if (hsplit_coll_parse_setting(i, values[i], &v[i]) != 0 && c->bad == NULL)
            c->bad = hsplit_coll_settings[i].name;
    c->mode = (int)v[HSPLIT_SET_MODE];
    c->segment_bytes = v[HSPLIT_SET_SEGMENT];
    c->min_procs = (int)v[HSPLIT_SET_MIN_PROCS];
    c->min_bytes = v[HSPLIT_SET_MIN_BYTES];
    c->max_bytes = v[HSPLIT_SET_MAX_BYTES];
    c->rsag_bytes = v[HSPLIT_SET_RSAG];
    c->trials = (int)v[HSPLIT_SET_TRIALS];
    c->report = v[HSPLIT_SET_REPORT] > 0;
    c->shm = (int)v[HSPLIT_SET_SHM];
    c->shm_bytes = v[HSPLIT_SET_SHM_BYTES];
    c->shm_fanout = v[HSPLIT_SET_SHM_FANOUT];
    c->rules = v[HSPLIT_SET_RULES] != 0;
    c->has_schedule = v[HSPLIT_SET_SCHEDULE] != 0;
    if (c->has_schedule) hsplit_schedule_parse(values[HSPLIT_SET_SCHEDULE], &c->schedule);
    /* the candidates: the library's, or the user's for every collective
       the engine serves (allgather: ml only), from any size */
    int n = 0, listed = hsplit_schedule_list_parse(values[HSPLIT_SET_SCHEDULES], c->candidates, &n);
    if (listed == 1) {
        for (int i = 0; i < HSPLIT_ENGINE_DEFAULTS; i++) c->candidates[i] = hsplit_engine_candidates[i];
        n = HSPLIT_ENGINE_DEFAULTS;
    }
    for (int i = 0; listed == 0 && i < n; i++) {
        c->candidates[i].min_bytes = 0;
        c->candidates[i].kinds = 0;
        for (int k = 0; k < HSPLIT_COLL_NKINDS; k++)
            if (hsplit_engine_serves(k, &c->candidates[i].schedule))
                c->candidates[i].kinds |= 1u << k;
    }
    if (listed < 0) n = 0;
    c->ncandidates = n;
    return c->bad == NULL ? MPI_SUCCESS : MPI_ERR_ARG;
}

int hsplit_coll_read_config(hsplit_coll_config *c)
{
    const char *values[HSPLIT_COLL_NSETTINGS];
    hsplit_coll_environment(values);
    return hsplit_coll_config_from(values, c);
}

/* ---- the per-communicator attribute ---- */

static void state_free(hsplit_coll_state *s)
{
    if (s == NULL) return;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) free(s->values[i]);
    hsplit_coll_rules_free(&s->rules);
    free(s);
}

static int state_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    state_free(value);
    return MPI_SUCCESS;
}

/* A duplicate keeps the settings given with HSPLIT_Comm_set_coll_info (as
   MPI_Comm_dup keeps info hints); the variables are read again at its first
   collective, and auto mode measures again. */
static int state_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval; (void)extra;
    const hsplit_coll_state *s = in;
    *flag = 0;
    int any = 0;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++)
        any |= s->source[i] == HSPLIT_SOURCE_SET_COLL_INFO;
    if (!any) return MPI_SUCCESS;
    hsplit_coll_state *copy = calloc(1, sizeof *copy);
    if (copy == NULL) return MPI_ERR_NO_MEM;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
        if (s->source[i] != HSPLIT_SOURCE_SET_COLL_INFO) continue;
        copy->source[i] = HSPLIT_SOURCE_SET_COLL_INFO;
        if (s->values[i] == NULL) continue; /* an empty hint: the default */
        copy->values[i] = strdup(s->values[i]);
        if (copy->values[i] == NULL) {
            state_free(copy);
            return MPI_ERR_NO_MEM;
        }
    }
    *(hsplit_coll_state **)out = copy;
    *flag = 1;
    return MPI_SUCCESS;
}

static int create_keyval(int *keyval)
{
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_Comm_create_keyval(state_copy, state_delete, keyval, NULL);
}

#if HSPLIT_UNDER_SMPI
/* Under SMPI the ranks share this file's variables and the attributes of
   MPI_COMM_WORLD: the settings keyval is each rank's own, kept on its
   MPI_COMM_SELF under one keyval for all ranks (made as the registry's is,
   with no MPI call between the test and the store). */
static int self_keyval = MPI_KEYVAL_INVALID;

static int free_rank_keyval(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    int *k = value;
    MPI_Comm_free_keyval(k);
    free(k);
    return MPI_SUCCESS;
}

static int settings_keyval(void)
{
    if (self_keyval == MPI_KEYVAL_INVALID) {
        int k = MPI_KEYVAL_INVALID;
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_rank_keyval, &k, NULL) !=
            MPI_SUCCESS)
            return MPI_KEYVAL_INVALID;
        if (self_keyval == MPI_KEYVAL_INVALID) self_keyval = k;
        else MPI_Comm_free_keyval(&k);
    }
    int *mine = NULL, found = 0;
    MPI_Comm_get_attr(MPI_COMM_SELF, self_keyval, &mine, &found);
    if (found) return *mine;
    mine = malloc(sizeof *mine);
    if (mine == NULL) return MPI_KEYVAL_INVALID;
    if (create_keyval(mine) != MPI_SUCCESS) {
        free(mine);
        return MPI_KEYVAL_INVALID;
    }
    if (MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, mine) != MPI_SUCCESS) {
        MPI_Comm_free_keyval(mine);
        free(mine);
        return MPI_KEYVAL_INVALID;
    }
    return *mine;
}
#else
/* One process, one MPI: the keyval is made once and never changes after. */
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval_value = MPI_KEYVAL_INVALID;

static void keyval_create(void)
{
    if (create_keyval(&keyval_value) != MPI_SUCCESS) keyval_value = MPI_KEYVAL_INVALID;
}

static int settings_keyval(void)
{
    pthread_once(&keyval_once, keyval_create);
    return keyval_value;
}
#endif

hsplit_coll_state *hsplit_coll_state_find(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return NULL;
    int keyval = settings_keyval();
    if (keyval == MPI_KEYVAL_INVALID) return NULL;
    hsplit_coll_state *s = NULL;
    int found = 0;
    /* a bad handle: MPI's error, as the call forwarded to MPI would raise */
    if (MPI_Comm_get_attr(comm, keyval, &s, &found) != MPI_SUCCESS || !found) return NULL;
    return s;
}

unsigned long hsplit_coll_hierarchy_calls(MPI_Comm comm)
{
    const hsplit_coll_state *s = hsplit_coll_state_find(comm);
    return s != NULL ? s->hierarchy_calls : 0;
}

/* Bit c set: size class c (bytes in [2^(c-1), 2^c)) lies wholly outside
   [min_bytes, max_bytes]. */
static uint64_t outside_bytes(const hsplit_coll_config *c)
{
    uint64_t mask = 0;
    for (int k = 1; k < 64; k++) {
        long low = 1L << (k - 1), high = k == 63 ? LONG_MAX : (1L << k) - 1;
        if (high < c->min_bytes || (c->max_bytes >= 0 && low > c->max_bytes))
            mask |= (uint64_t)1 << k;
    }
    if (c->min_bytes > 0) mask |= 1; /* no bytes */
    return mask;
}

void hsplit_coll_state_update(hsplit_coll_state *s)
{
    const char *values[HSPLIT_COLL_NSETTINGS];
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) values[i] = s->values[i];
    hsplit_coll_config_from(values, &s->config);
    /* not a setting's name: report_bad_config says what differs */
    if (s->info_disagree && s->config.bad == NULL) s->config.bad = "the communicator's info";
    uint64_t plain = 0;
    /* every call reports the error, or comes to read the rules file */
    int rules_unsettled = s->rules_status == HSPLIT_RULES_PENDING ||
                          s->rules_status == HSPLIT_RULES_BAD;
    if (s->config.bad != NULL || rules_unsettled) plain = 0;
    else if (s->config.mode == HSPLIT_COLL_OFF || s->flat) plain = ~(uint64_t)0;
    else if (s->config.mode == HSPLIT_COLL_AUTO)
        plain = s->size < s->config.min_procs ? ~(uint64_t)0 : outside_bytes(&s->config);
    int measured = s->config.bad == NULL && s->config.mode == HSPLIT_COLL_AUTO;
    /* kinds of no agreed size: every call is in class 0, thresholds aside */
    uint64_t unsized = plain == ~(uint64_t)0 ? plain : 0;
    for (int k = 0; k < HSPLIT_COLL_NKINDS; k++) {
        s->plain[k] = s->ready ? (hsplit_coll_unsized(k) ? unsized : plain) |
                                     (measured ? s->decided_plain[k] : 0)
                               : 0;
        if (s->ready && s->config.bad == NULL && !rules_unsettled && s->flat_but_shm &&
            !hsplit_coll_shm_kind(k))
            s->plain[k] = ~(uint64_t)0;
    }
}

int hsplit_coll_state_get(MPI_Comm comm, hsplit_coll_state **state)
{
    *state = hsplit_coll_state_find(comm);
    if (*state != NULL) return MPI_SUCCESS;
    int keyval = settings_keyval();
    if (keyval == MPI_KEYVAL_INVALID) return MPI_ERR_INTERN;
    hsplit_coll_state *s = calloc(1, sizeof *s);
    if (s == NULL) return MPI_ERR_NO_MEM;
    int rc = MPI_Comm_set_attr(comm, keyval, s);
    if (rc != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    *state = s;
    return MPI_SUCCESS;
}

int hsplit_coll_comm_info(MPI_Comm comm, const int skip[HSPLIT_COLL_NSETTINGS],
                          char *values[HSPLIT_COLL_NSETTINGS])
{
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) values[i] = NULL;
    MPI_Info info = MPI_INFO_NULL;
    int rc = MPI_Comm_get_info(comm, &info);
    if (rc != MPI_SUCCESS || info == MPI_INFO_NULL) return rc;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS && rc == MPI_SUCCESS; i++) {
        if (skip != NULL && skip[i]) continue;
        char value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        rc = MPI_Info_get(info, hsplit_coll_settings[i].name, MPI_MAX_INFO_VAL, value, &flag);
        if (rc != MPI_SUCCESS || !flag) continue;
        value[MPI_MAX_INFO_VAL] = '\0';
        if ((values[i] = strdup(value)) == NULL) rc = MPI_ERR_NO_MEM;
    }
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
            free(values[i]);
            values[i] = NULL;
        }
    return rc;
}

static int hints_fingerprint(const int present[HSPLIT_COLL_NSETTINGS],
                             const long parsed[HSPLIT_COLL_NSETTINGS]);

/* The values of the settings comm's hints leave open: its info keys, else
   the variables (copies; NULL: the default), and where each comes from. */
static int gather_values(MPI_Comm comm, const hsplit_coll_state *s,
                         char *values[HSPLIT_COLL_NSETTINGS],
                         int source[HSPLIT_COLL_NSETTINGS], int *bad, int *fingerprint)
{
    int hinted[HSPLIT_COLL_NSETTINGS], present[HSPLIT_COLL_NSETTINGS] = {0};
    long parsed[HSPLIT_COLL_NSETTINGS] = {0};
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++)
        hinted[i] = s->source[i] == HSPLIT_SOURCE_SET_COLL_INFO;
    int rc = hsplit_coll_comm_info(comm, hinted, values);
    if (rc != MPI_SUCCESS) return rc;
    const char *env[HSPLIT_COLL_NSETTINGS];
    hsplit_coll_environment(env);
    *bad = 0;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
        source[i] = HSPLIT_SOURCE_DEFAULT;
        if (hinted[i]) continue;
        if (values[i] != NULL) {
            source[i] = HSPLIT_SOURCE_COMM_INFO;
            present[i] = 1;
            *bad |= hsplit_coll_parse_setting(i, values[i], &parsed[i]) != 0;
        } else if (env[i] != NULL) {
            source[i] = HSPLIT_SOURCE_ENVIRONMENT;
            if ((values[i] = strdup(env[i])) == NULL) rc = MPI_ERR_NO_MEM;
        }
    }
    *fingerprint = hints_fingerprint(present, parsed);
    return rc;
}

int hsplit_coll_state_ready(MPI_Comm comm, hsplit_coll_state *s)
{
    if (s->ready) return MPI_SUCCESS;
    char *values[HSPLIT_COLL_NSETTINGS] = {NULL};
    int source[HSPLIT_COLL_NSETTINGS], bad = 0, fingerprint = 0;
    int rc = gather_values(comm, s, values, source, &bad, &fingerprint);
    /* one allreduce (MPI_MAX): a failure anywhere, a malformed info key
       anywhere, and whether every process's info gives the same settings;
       MPI lets each process pass its own info, and processes that read
       different settings would take different paths */
    int in[4] = {rc != MPI_SUCCESS, bad, fingerprint, -fingerprint}, out[4];
    int arc = MPI_Allreduce(in, out, 4, MPI_INT, MPI_MAX, comm);
    if (arc != MPI_SUCCESS || out[0] != 0) { /* not ready: tried again next call */
        for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) free(values[i]);
        return arc != MPI_SUCCESS ? arc : rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    }
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
        if (s->source[i] == HSPLIT_SOURCE_SET_COLL_INFO) continue;
        free(s->values[i]);
        s->values[i] = values[i];
        s->source[i] = source[i];
    }
    s->info_disagree = out[1] != 0 || out[2] != -out[3];
    MPI_Comm_size(comm, &s->size);
    MPI_Comm_rank(comm, &s->rank);
    s->ready = 1;
    s->rules_status = HSPLIT_RULES_PENDING;
    hsplit_coll_state_update(s);
    return MPI_SUCCESS;
}

/* What rank 0 says of a bad rules file: its own file's error, or which
   process could not read its file, or that the files differ. */
static void report_bad_rules(const hsplit_coll_state *s, const char *path, int mine_ok,
                             const hsplit_rules_error *err, long long first_bad)
{
    if (s->rank != 0) return;
    char what[sizeof err->reason + 96];
    if (!mine_ok && err->line > 0)
        snprintf(what, sizeof what, ":%d: %s", err->line, err->reason);
    else if (!mine_ok)
        snprintf(what, sizeof what, ": %s", err->reason);
    else if (first_bad > 0)
        snprintf(what, sizeof what, ": process %lld cannot read or parse its file",
                 (long long)s->size - first_bad);
    else
        snprintf(what, sizeof what, ": the processes read different rules");
    fprintf(stderr, "hsplit: HSPLIT_COLL_RULES: %s%s: the collectives return MPI_ERR_ARG\n",
            path, what);
}

int hsplit_coll_rules_settle(MPI_Comm comm, hsplit_coll_state *s)
{
    hsplit_coll_rules_free(&s->rules);
    const char *path = s->values[HSPLIT_SET_RULES];
    if (s->config.mode != HSPLIT_COLL_AUTO || !s->config.rules || path == NULL) {
        s->rules_status = HSPLIT_RULES_NONE;
        hsplit_coll_state_update(s);
        return MPI_SUCCESS;
    }
    hsplit_rules_error err;
    int ok = hsplit_coll_rules_load(path, &s->rules, &err) == 0;
    /* one allreduce (MPI_MAX): the largest and the smallest checksum (0: no
       valid rules), and the lowest rank that has none */
    long long sum = ok ? (long long)hsplit_coll_rules_checksum(&s->rules) : 0;
    long long in[3] = {sum, -sum, ok ? 0 : (long long)s->size - s->rank}, out[3];
    int rc = MPI_Allreduce(in, out, 3, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) {
        hsplit_coll_rules_free(&s->rules); /* still pending: read again next time */
        return rc;
    }
    if (out[2] == 0 && out[0] == -out[1]) {
        s->rules_status = HSPLIT_RULES_OK;
    } else {
        s->rules_status = HSPLIT_RULES_BAD;
        hsplit_coll_rules_free(&s->rules);
        report_bad_rules(s, path, ok, &err, out[2]);
    }
    hsplit_coll_state_update(s);
    return MPI_SUCCESS;
}

/* ---- HSPLIT_Comm_set_coll_info ---- */

/* A 31-bit fingerprint (FNV-1a) of the settings an info gives, as parsed:
   "010" and "10" are the same value, an empty value (the default) is not
   the same as no key. 0 when it gives none. */
static int hints_fingerprint(const int present[HSPLIT_COLL_NSETTINGS],
                             const long parsed[HSPLIT_COLL_NSETTINGS])
{
    uint32_t h = 2166136261u;
    int any = 0;
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
        unsigned char bytes[1 + sizeof(long)];
        bytes[0] = (unsigned char)(present[i] ? i + 1 : 0);
        unsigned long v = present[i] ? (unsigned long)parsed[i] : 0;
        for (size_t b = 0; b < sizeof(long); b++) bytes[1 + b] = (unsigned char)(v >> (8 * b));
        for (size_t b = 0; b < sizeof bytes; b++) {
            h ^= bytes[b];
            h *= 16777619u;
        }
        any |= present[i];
    }
    return any ? (int)(h % (uint32_t)(INT_MAX - 1)) + 1 : 0;
}

/* The HSPLIT_COLL* keys of info: *bad_key gets an unknown one or a setting
   whose value is malformed (the first), values[i] a copy of setting i's
   value (NULL for an empty one: its default) when present[i]. Returns 1 for
   a bad key or value, -1 out of memory or when MPI fails, else 0. */
static int read_hints(MPI_Info info, int present[HSPLIT_COLL_NSETTINGS],
                      long parsed[HSPLIT_COLL_NSETTINGS], char *values[HSPLIT_COLL_NSETTINGS],
                      char bad_key[MPI_MAX_INFO_KEY + 1], char bad_value[MPI_MAX_INFO_VAL + 1])
{
    static const char prefix[] = "HSPLIT_COLL";
    int nkeys = 0, result = 0;
    if (MPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) return -1;
    for (int k = 0; k < nkeys; k++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (MPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS) return -1;
        if (strncmp(key, prefix, sizeof prefix - 1) != 0) continue; /* another's hint */
        int i = hsplit_coll_setting_index(key);
        if (MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS) return -1;
        value[MPI_MAX_INFO_VAL] = '\0';
        if (i < 0 || !flag || hsplit_coll_parse_setting(i, value, &parsed[i]) != 0) {
            if (result == 0) {
                snprintf(bad_key, MPI_MAX_INFO_KEY + 1, "%s", key);
                snprintf(bad_value, MPI_MAX_INFO_VAL + 1, "%s", flag ? value : "");
            }
            result = 1;
            continue;
        }
        present[i] = 1;
        if (value[0] != '\0' && (values[i] = strdup(value)) == NULL) return -1;
    }
    return result;
}

/* Hands values to the communicator's state (made, waiting for its first
   collective, when there is none yet), and forgets what auto mode measured
   so that the new settings decide from the next collective on. */
static int apply_hints(MPI_Comm comm, const int present[HSPLIT_COLL_NSETTINGS],
                       char *values[HSPLIT_COLL_NSETTINGS])
{
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s == NULL) {
        int keyval = settings_keyval();
        if (keyval == MPI_KEYVAL_INVALID) return MPI_ERR_INTERN;
        s = calloc(1, sizeof *s);
        if (s == NULL) return MPI_ERR_NO_MEM;
        int rc = MPI_Comm_set_attr(comm, keyval, s);
        if (rc != MPI_SUCCESS) {
            free(s);
            return rc;
        }
    }
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) {
        if (!present[i]) continue;
        free(s->values[i]);
        s->values[i] = values[i];
        values[i] = NULL;
        s->source[i] = HSPLIT_SOURCE_SET_COLL_INFO;
    }
    for (int k = 0; k < HSPLIT_COLL_NKINDS; k++) s->decided_plain[k] = s->shm_direct[k] = 0;
    s->flat = s->flat_but_shm = 0; /* one level: found again (the shared
                                      memory setting may have changed) */
    /* the rules file is read again (it may have changed too) */
    hsplit_coll_rules_free(&s->rules);
    if (s->ready) s->rules_status = HSPLIT_RULES_PENDING;
    hsplit_coll_state_update(s);
    /* the hierarchy stays; its measurements and copy of the settings go */
    hsplit_context *ctx = hsplit_get_context();
    hsplit_hierarchy *h = NULL;
    int found = 0;
    if (ctx != NULL && MPI_Comm_get_attr(comm, ctx->hierarchy_keyval, &h, &found) == MPI_SUCCESS &&
        found && h != NULL) {
        memset(h->tuning, 0, sizeof h->tuning);
        h->rules = NULL; /* freed above: set again by the next collective */
        if (s->ready) h->config = s->config;
    }
    return MPI_SUCCESS;
}

int HSPLIT_Comm_set_coll_info(MPI_Comm comm, MPI_Info info)
{
    int kind = hsplit_check_intracomm(comm);
    if (kind != HSPLIT_KIND_OK) return hsplit_raise(comm, kind);
    if (info == MPI_INFO_NULL) return MPI_SUCCESS;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int present[HSPLIT_COLL_NSETTINGS] = {0};
    long parsed[HSPLIT_COLL_NSETTINGS] = {0};
    char *values[HSPLIT_COLL_NSETTINGS] = {NULL};
    char bad_key[MPI_MAX_INFO_KEY + 1] = "", bad_value[MPI_MAX_INFO_VAL + 1] = "";
    int local = read_hints(info, present, parsed, values, bad_key, bad_value);
    int fingerprint = local == 0 ? hints_fingerprint(present, parsed) : -1;
    /* one allreduce (MPI_MAX): the lowest rank with a bad key or value, any
       failure, and whether every process gives the same settings */
    int in[4] = {local == 1 ? size - rank : 0, local < 0, fingerprint,
                 fingerprint < 0 ? INT_MIN : -fingerprint};
    int out[4];
    int rc = MPI_Allreduce(in, out, 4, MPI_INT, MPI_MAX, comm);
    if (rc == MPI_SUCCESS) {
        if (out[0] > 0) {
            if (size - rank == out[0])
                fprintf(stderr, "hsplit: HSPLIT_Comm_set_coll_info: %s=\"%s\" is %s: "
                                "MPI_ERR_ARG\n", bad_key, bad_value,
                        hsplit_coll_setting_index(bad_key) < 0 ? "no setting" : "malformed");
            rc = hsplit_raise(comm, HSPLIT_KIND_ERR_ARG);
        } else if (out[1] != 0) {
            rc = hsplit_raise(comm, HSPLIT_KIND_ERR_OTHER);
        } else if (out[2] != -out[3]) {
            if (rank == 0)
                fprintf(stderr, "hsplit: HSPLIT_Comm_set_coll_info: the processes give "
                                "different settings: MPI_ERR_ARG\n");
            rc = hsplit_raise(comm, HSPLIT_KIND_ERR_ARG);
        } else {
            rc = apply_hints(comm, present, values);
            if (rc != MPI_SUCCESS) rc = hsplit_raise_code(comm, rc);
        }
    }
    for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) free(values[i]);
    return rc;
}

/* ---- enumerating the settings ---- */

/* A string into a caller's buffer, as MPI_Info_get_string returns one:
   *len in: the buffer's size; out: the size the string needs (NUL
   included). Arguments are checked first (check_string). */
static int check_string(const char *buffer, const int *len)
{
    return len == NULL || (*len >= 0 && (*len == 0 || buffer != NULL));
}

static void put_string(const char *text, char *buffer, int *len)
{
    if (len == NULL) return;
    size_t n = strlen(text);
    if (*len > 0) {
        size_t kept = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
        memcpy(buffer, text, kept);
        buffer[kept] = '\0';
    }
    *len = n < INT_MAX ? (int)n + 1 : INT_MAX;
}

int HSPLIT_Coll_setting_count(int *count)
{
    if (count == NULL) return hsplit_raise(MPI_COMM_NULL, HSPLIT_KIND_ERR_ARG);
    *count = HSPLIT_COLL_NSETTINGS;
    return MPI_SUCCESS;
}

int HSPLIT_Coll_setting_describe(int index, char *name, int *name_len, char *default_value,
                                 int *default_len, char *allowed, int *allowed_len,
                                 char *description, int *description_len)
{
    if (index < 0 || index >= HSPLIT_COLL_NSETTINGS || !check_string(name, name_len) ||
        !check_string(default_value, default_len) || !check_string(allowed, allowed_len) ||
        !check_string(description, description_len))
        return hsplit_raise(MPI_COMM_NULL, HSPLIT_KIND_ERR_ARG);
    const hsplit_coll_setting *s = &hsplit_coll_settings[index];
    put_string(s->name, name, name_len);
    put_string(s->default_text, default_value, default_len);
    put_string(s->expected, allowed, allowed_len);
    put_string(s->description, description, description_len);
    return MPI_SUCCESS;
}

int HSPLIT_Coll_setting_get(MPI_Comm comm, int index, char *value, int *value_len,
                            int *source, int *valid)
{
    if (comm != MPI_COMM_NULL) {
        int kind = hsplit_check_intracomm(comm);
        if (kind != HSPLIT_KIND_OK) return hsplit_raise(comm, kind);
    }
    if (index < 0 || index >= HSPLIT_COLL_NSETTINGS || !check_string(value, value_len))
        return hsplit_raise(comm, HSPLIT_KIND_ERR_ARG);
    const char *text = NULL;
    char *info[HSPLIT_COLL_NSETTINGS] = {NULL};
    int from = HSPLIT_SOURCE_DEFAULT;
    const hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && (s->ready || s->source[index] == HSPLIT_SOURCE_SET_COLL_INFO)) {
        from = s->source[index];
        text = s->values[index] != NULL ? s->values[index] : ""; /* "": the default */
    } else {
        /* what the first collective would read now */
        if (comm != MPI_COMM_NULL) {
            int skip[HSPLIT_COLL_NSETTINGS];
            for (int i = 0; i < HSPLIT_COLL_NSETTINGS; i++) skip[i] = i != index;
            int rc = hsplit_coll_comm_info(comm, skip, info);
            if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
        }
        const char *env[HSPLIT_COLL_NSETTINGS];
        hsplit_coll_environment(env);
        if (info[index] != NULL) {
            from = HSPLIT_SOURCE_COMM_INFO;
            text = info[index];
        } else if (env[index] != NULL) {
            from = HSPLIT_SOURCE_ENVIRONMENT;
            text = env[index];
        }
    }
    long parsed;
    if (from == HSPLIT_SOURCE_DEFAULT) text = hsplit_coll_settings[index].default_text;
    if (valid != NULL)
        *valid = from == HSPLIT_SOURCE_DEFAULT || hsplit_coll_parse_setting(index, text, &parsed) == 0;
    if (source != NULL) *source = from;
    put_string(text, value, value_len);
    free(info[index]);
    return MPI_SUCCESS;
}
