/*
 * zkcheck drives ZooKeeper's C client (libzookeeper_mt) through its
 * asynchronous API and its watches against one server, and prints one line
 * per check: "<check>: <what happened>". The Go test compiles it at test
 * time, runs it against Apache ZooKeeper 3.8.0 and against gozk, and
 * compares the lines with testdata/zkcheck.golden, recorded from Java.
 *
 * The lines hold only what must be the same on both servers: return codes,
 * names, data, versions, counts, event types and states, and relations
 * (such as "the owner is this session") instead of raw zxids or session
 * ids. Every asynchronous call is waited for before the next one, except in
 * the pipelining check, so the output order is fixed.
 *
 *   zkcheck <host:port> <root>          every check, under the path <root>
 *   zkcheck --child <host:port> <path>  helper process for session_expiry
 *   zkcheck --hold <host:port> <path>   helper process for session_resume
 *
 * Build: gcc -DTHREADED -I/usr/include/zookeeper zkcheck.c -lzookeeper_mt -lpthread
 */
#include <zookeeper.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* waitMs bounds every wait: a guard against a reply or event that never
 * comes, not a performance check. */
#define WAIT_MS 20000

static const char *host;
static const char *root;
static int failures;

/* ---- output ---- */

typedef struct {
    char buf[8192];
    size_t n;
} line_t;

static void add(line_t *l, const char *fmt, ...) {
    va_list ap;
    if (l->n > 0 && l->n < sizeof(l->buf) - 1) {
        l->buf[l->n++] = ' ';
        l->buf[l->n] = 0;
    }
    va_start(ap, fmt);
    int w = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
    va_end(ap);
    if (w > 0) {
        l->n += (size_t)w;
        if (l->n >= sizeof(l->buf)) {
            l->n = sizeof(l->buf) - 1;
        }
    }
}

static void emit(const char *check, line_t *l) {
    printf("%s: %s\n", check, l->buf);
    fflush(stdout);
}

/* fail records something that cannot be compared line by line (a wait that
 * timed out, a broken invariant); the line still goes out. */
static void fail(line_t *l, const char *what) {
    failures++;
    add(l, "FAIL(%s)", what);
}

static const char *type_name(int t) {
    if (t == ZOO_CREATED_EVENT) return "CREATED";
    if (t == ZOO_DELETED_EVENT) return "DELETED";
    if (t == ZOO_CHANGED_EVENT) return "CHANGED";
    if (t == ZOO_CHILD_EVENT) return "CHILD";
    if (t == ZOO_SESSION_EVENT) return "SESSION";
    if (t == ZOO_NOTWATCHING_EVENT) return "NOTWATCHING";
    return "UNKNOWN";
}

static const char *state_name(int s) {
    if (s == 0) return "CLOSED";
    if (s == ZOO_CONNECTING_STATE) return "CONNECTING";
    if (s == ZOO_ASSOCIATING_STATE) return "ASSOCIATING";
    if (s == ZOO_CONNECTED_STATE) return "CONNECTED";
    if (s == ZOO_READONLY_STATE) return "READONLY";
    if (s == ZOO_EXPIRED_SESSION_STATE) return "EXPIRED_SESSION";
    if (s == ZOO_AUTH_FAILED_STATE) return "AUTH_FAILED";
    if (s == ZOO_NOTCONNECTED_STATE) return "NOTCONNECTED";
    return "INVALID";
}

/* ---- waiting ---- */

static void deadline(struct timespec *ts, int ms) {
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- events ---- */

#define MAX_EVENTS 256

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;
    char ev[MAX_EVENTS][200];
} evlog_t;

static void evlog_init(evlog_t *l) {
    memset(l, 0, sizeof(*l));
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
}

static void watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx) {
    evlog_t *l = ctx;
    (void)zh;
    if (!l) return;
    pthread_mutex_lock(&l->mu);
    if (l->n < MAX_EVENTS) {
        snprintf(l->ev[l->n], sizeof(l->ev[0]), "%s/%s:%s", type_name(type), state_name(state),
                 path && path[0] ? path : "-");
        l->n++;
    }
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

/* wait_events waits until the log holds at least n events. */
static int wait_events(evlog_t *l, int n, int ms) {
    struct timespec ts;
    int ok;
    deadline(&ts, ms);
    pthread_mutex_lock(&l->mu);
    while (l->n < n) {
        if (pthread_cond_timedwait(&l->cv, &l->mu, &ts) == ETIMEDOUT) break;
    }
    ok = l->n >= n;
    pthread_mutex_unlock(&l->mu);
    return ok;
}

/* add_events appends events [from, n) of the log, with root replaced by
 * "<root>" so that lines do not depend on it. */
static void add_events(line_t *out, evlog_t *l, int from) {
    char buf[4096];
    size_t k = 0;
    size_t rl = strlen(root);
    buf[0] = 0;
    pthread_mutex_lock(&l->mu);
    for (int i = from; i < l->n; i++) {
        const char *e = l->ev[i];
        const char *p = strstr(e, root);
        if (k) k += snprintf(buf + k, sizeof(buf) - k, ",");
        if (p && k < sizeof(buf)) {
            k += snprintf(buf + k, sizeof(buf) - k, "%.*s<root>%s", (int)(p - e), e, p + rl);
        } else if (k < sizeof(buf)) {
            k += snprintf(buf + k, sizeof(buf) - k, "%s", e);
        }
        if (k >= sizeof(buf)) k = sizeof(buf) - 1;
    }
    int n = l->n - from;
    pthread_mutex_unlock(&l->mu);
    add(out, "events=[%s]", n > 0 ? buf : "");
}

static int event_count(evlog_t *l) {
    pthread_mutex_lock(&l->mu);
    int n = l->n;
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* ---- completions ---- */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int rc;
    char text[4096]; /* name, data, children or ACL, as text */
    int has_stat;
    struct Stat stat;
} res_t;

static void res_init(res_t *r) {
    memset(r, 0, sizeof(*r));
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
}

static void res_done(res_t *r, int rc, const struct Stat *stat) {
    pthread_mutex_lock(&r->mu);
    r->rc = rc;
    if (stat) {
        r->stat = *stat;
        r->has_stat = 1;
    }
    r->done = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* await waits for a completion; it returns the rc, or 999 on timeout. */
static int await(res_t *r) {
    struct timespec ts;
    deadline(&ts, WAIT_MS);
    pthread_mutex_lock(&r->mu);
    while (!r->done) {
        if (pthread_cond_timedwait(&r->cv, &r->mu, &ts) == ETIMEDOUT) break;
    }
    int rc = r->done ? r->rc : 999;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static void relpath(char *dst, size_t n, const char *p) {
    size_t rl = strlen(root);
    if (p && strncmp(p, root, rl) == 0) {
        snprintf(dst, n, "<root>%s", p + rl);
    } else {
        snprintf(dst, n, "%s", p ? p : "(null)");
    }
}

static void void_cb(int rc, const void *data) { res_done((res_t *)data, rc, NULL); }

static void stat_cb(int rc, const struct Stat *stat, const void *data) {
    res_done((res_t *)data, rc, stat);
}

static void string_cb(int rc, const char *value, const void *data) {
    res_t *r = (res_t *)data;
    if (rc == 0) relpath(r->text, sizeof(r->text), value);
    res_done(r, rc, NULL);
}

static void string_stat_cb(int rc, const char *value, const struct Stat *stat, const void *data) {
    res_t *r = (res_t *)data;
    if (rc == 0) relpath(r->text, sizeof(r->text), value);
    res_done(r, rc, stat);
}

static void data_cb(int rc, const char *value, int len, const struct Stat *stat, const void *data) {
    res_t *r = (res_t *)data;
    if (rc == 0) {
        if (value == NULL) {
            snprintf(r->text, sizeof(r->text), "(null)");
        } else if (len > 64) {
            int sum = 0;
            for (int i = 0; i < len; i++) sum = (sum * 31 + (unsigned char)value[i]) & 0xffffff;
            snprintf(r->text, sizeof(r->text), "len%d/sum%06x", len, sum);
        } else {
            snprintf(r->text, sizeof(r->text), "'%.*s'", len, value);
        }
    }
    res_done(r, rc, stat);
}

static int cmpstr(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strings_text(res_t *r, const struct String_vector *v) {
    size_t k = 0;
    char **s;
    if (!v) return;
    s = calloc(v->count ? v->count : 1, sizeof(char *));
    for (int i = 0; i < v->count; i++) s[i] = v->data[i];
    /* The order of children is the server's own; compare sets. */
    qsort(s, v->count, sizeof(char *), cmpstr);
    r->text[0] = 0;
    for (int i = 0; i < v->count && k < sizeof(r->text); i++) {
        k += snprintf(r->text + k, sizeof(r->text) - k, "%s%s", i ? "," : "", s[i]);
    }
    free(s);
}

static void strings_cb(int rc, const struct String_vector *v, const void *data) {
    res_t *r = (res_t *)data;
    if (rc == 0) strings_text(r, v);
    res_done(r, rc, NULL);
}

static void strings_stat_cb(int rc, const struct String_vector *v, const struct Stat *stat,
                            const void *data) {
    res_t *r = (res_t *)data;
    if (rc == 0) strings_text(r, v);
    res_done(r, rc, stat);
}

static void acl_cb(int rc, struct ACL_vector *acl, struct Stat *stat, const void *data) {
    res_t *r = (res_t *)data;
    size_t k = 0;
    if (rc == 0 && acl) {
        for (int i = 0; i < acl->count && k < sizeof(r->text); i++) {
            int p = acl->data[i].perms;
            k += snprintf(r->text + k, sizeof(r->text) - k, "%s%s:%s:%s%s%s%s%s", i ? "," : "",
                          acl->data[i].id.scheme, acl->data[i].id.id, (p & ZOO_PERM_CREATE) ? "c" : "",
                          (p & ZOO_PERM_DELETE) ? "d" : "", (p & ZOO_PERM_READ) ? "r" : "",
                          (p & ZOO_PERM_WRITE) ? "w" : "", (p & ZOO_PERM_ADMIN) ? "a" : "");
        }
    }
    res_done(r, rc, stat);
}

/* ---- helpers ---- */

static char *P(const char *suffix) {
    static char bufs[8][512];
    static int i;
    char *b = bufs[i++ % 8];
    snprintf(b, 512, "%s%s", root, suffix);
    return b;
}

static void add_stat(line_t *l, const struct Stat *s) {
    add(l, "version=%d cversion=%d aversion=%d dataLength=%d numChildren=%d", s->version,
        s->cversion, s->aversion, s->dataLength, s->numChildren);
}

/* connect opens a session and waits until it is connected. */
static zhandle_t *connect_to(int timeout, evlog_t *log, const clientid_t *id) {
    zhandle_t *zh = zookeeper_init(host, watcher, timeout, id, log, 0);
    if (!zh) {
        fprintf(stderr, "zookeeper_init: %s\n", strerror(errno));
        exit(2);
    }
    if (!wait_events(log, 1, WAIT_MS)) {
        fprintf(stderr, "no session event within %d ms\n", WAIT_MS);
        exit(2);
    }
    return zh;
}

static int acreate(zhandle_t *zh, const char *path, const char *data, int mode, res_t *r) {
    res_init(r);
    int rc = zoo_acreate(zh, path, data, data ? (int)strlen(data) : -1, &ZOO_OPEN_ACL_UNSAFE, mode,
                         string_cb, r);
    return rc ? rc : await(r);
}

static void create_line(line_t *l, zhandle_t *zh, const char *label, const char *path,
                        const char *data, int mode) {
    res_t r;
    int rc = acreate(zh, path, data, mode, &r);
    add(l, "%s:rc=%d", label, rc);
    if (rc == 0) add(l, "name=%s", r.text);
}

static int aset(zhandle_t *zh, const char *path, const char *data, int version, res_t *r) {
    res_init(r);
    int rc = zoo_aset(zh, path, data, (int)strlen(data), version, stat_cb, r);
    return rc ? rc : await(r);
}

static int adelete(zhandle_t *zh, const char *path, int version) {
    res_t r;
    res_init(&r);
    int rc = zoo_adelete(zh, path, version, void_cb, &r);
    return rc ? rc : await(&r);
}

static int aget(zhandle_t *zh, const char *path, int watch, res_t *r) {
    res_init(r);
    int rc = zoo_aget(zh, path, watch, data_cb, r);
    return rc ? rc : await(r);
}

static int aexists(zhandle_t *zh, const char *path, int watch, res_t *r) {
    res_init(r);
    int rc = zoo_aexists(zh, path, watch, stat_cb, r);
    return rc ? rc : await(r);
}

/* ---- checks ---- */

static int wait_event_text(evlog_t *l, int from, const char *text, int ms);

static zhandle_t *zh;      /* the main session */
static evlog_t glog;       /* its global watcher */
static zhandle_t *zh2;     /* a second session, for changes seen by zh */
static evlog_t glog2;

/* auth_schemes: what add_auth does with each scheme and odd credentials:
 * the completion's rc, the session's state after, and whether it still
 * serves a read. */
static void check_auth_schemes(void) {
    line_t l = {0};
    static const char *cases[][2] = {
        {"ip", "127.0.0.1"}, {"ip", "10.0.0.1"}, {"world", "anyone"}, {"digest", "nocolon"},
        {"digest", ""}, {"digest", ":"}, {"digest", "a:b:c"}, {"sasl", "x"}, {"x509", "x"},
        {"", "x"}, {"auth", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        evlog_t log;
        res_t r;
        evlog_init(&log);
        zhandle_t *h = connect_to(10000, &log, NULL);
        res_init(&r);
        int rc = zoo_add_auth(h, cases[i][0], cases[i][1], (int)strlen(cases[i][1]), void_cb, &r);
        rc = rc ? rc : await(&r);
        res_t g;
        res_init(&g);
        int grc = zoo_aget(h, "/", 0, data_cb, &g);
        grc = grc ? grc : await(&g);
        add(&l, "%s:%s:rc=%d,state=%s,get=%d", cases[i][0][0] ? cases[i][0] : "(empty)",
            cases[i][1][0] ? cases[i][1] : "(empty)", rc, state_name(zoo_state(h)), grc);
        zookeeper_close(h);
    }
    emit("auth_schemes", &l);
}

/* oversize: a request over jute.maxbuffer (1 MB less one byte, on both
 * servers by default) loses the connection, not the session. */
static void check_oversize(void) {
    line_t l = {0};
    res_t r;
    evlog_t log;
    evlog_init(&log);
    zhandle_t *h = connect_to(10000, &log, NULL);
    int64_t sid = zoo_client_id(h)->client_id;
    int n = 1024 * 1024;
    char *big = malloc(n);
    memset(big, 'x', n);
    res_init(&r);
    int rc = zoo_acreate(h, P("/oversize"), big, n, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, string_cb, &r);
    add(&l, "create_1MiB:rc=%d", rc ? rc : await(&r));
    free(big);
    wait_event_text(&log, 1, "SESSION/CONNECTED", WAIT_MS);
    add(&l, "exists_after:rc=%d", aexists(h, P("/oversize"), 0, &r));
    add(&l, "same_session=%s", zoo_client_id(h)->client_id == sid ? "yes" : "no");
    add_events(&l, &log, 0);
    zookeeper_close(h);
    emit("oversize", &l);
}

/* timeouts: the session timeout the server grants for requests below,
 * inside and above its bounds (2 and 20 ticks). */
static void check_timeouts(void) {
    line_t l = {0};
    static const int asked[] = {2000, 3999, 4000, 10000, 40000, 40001, 600000};
    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        evlog_t log;
        evlog_init(&log);
        zhandle_t *h = connect_to(asked[i], &log, NULL);
        add(&l, "%d->%d", asked[i], zoo_recv_timeout(h));
        zookeeper_close(h);
    }
    emit("timeouts", &l);
}

static void check_connect(void) {
    line_t l = {0};
    add(&l, "state=%s timeout=%d", state_name(zoo_state(zh)), zoo_recv_timeout(zh));
    add_events(&l, &glog, 0);
    const clientid_t *id = zoo_client_id(zh);
    add(&l, "session=%s", id->client_id != 0 ? "nonzero" : "zero");
    emit("connect", &l);
}

static void check_create_modes(void) {
    line_t l = {0};
    res_t r;
    add(&l, "root:rc=%d", acreate(zh, root, "root", ZOO_PERSISTENT, &r));
    create_line(&l, zh, "persistent", P("/p"), "data", ZOO_PERSISTENT);
    create_line(&l, zh, "seq", P("/p/s-"), "", ZOO_PERSISTENT_SEQUENTIAL);
    create_line(&l, zh, "seq", P("/p/s-"), NULL, ZOO_PERSISTENT_SEQUENTIAL);
    create_line(&l, zh, "eph", P("/p/e"), "x", ZOO_EPHEMERAL);
    create_line(&l, zh, "ephseq", P("/p/es-"), "x", ZOO_EPHEMERAL_SEQUENTIAL);
    create_line(&l, zh, "container", P("/c"), "", ZOO_CONTAINER);
    create_line(&l, zh, "container_child", P("/c/k"), "", ZOO_PERSISTENT);
    emit("create_modes", &l);
}

static void check_create_ttl(void) {
    line_t l = {0};
    res_t r;
    int rc;
    res_init(&r);
    rc = zoo_acreate_ttl(zh, P("/ttl"), "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL,
                         100000, string_cb, &r);
    add(&l, "ttl:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_acreate_ttl(zh, P("/ttl"), "t", 1, &ZOO_OPEN_ACL_UNSAFE,
                         ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL, 100000, string_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "ttlseq:rc=%d", rc);
    if (rc == 0) add(&l, "name=%s", r.text);
    res_init(&r);
    rc = zoo_acreate_ttl(zh, P("/ttl0"), "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, 0,
                         string_cb, &r);
    add(&l, "ttl_zero:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aexists(zh, P("/ttl"), 0, stat_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "exists:rc=%d", rc);
    if (rc == 0) add(&l, "ephemeralOwner=%s", r.stat.ephemeralOwner == 0 ? "0" : "ttl-encoded");
    emit("create_ttl", &l);
}

static void check_create_errors(void) {
    line_t l = {0};
    res_t r;
    struct ACL_vector empty = {0, NULL};
    int rc;
    add(&l, "exists:rc=%d", acreate(zh, P("/p"), "x", ZOO_PERSISTENT, &r));
    add(&l, "noparent:rc=%d", acreate(zh, P("/nope/x"), "x", ZOO_PERSISTENT, &r));
    add(&l, "under_ephemeral:rc=%d", acreate(zh, P("/p/e/x"), "x", ZOO_PERSISTENT, &r));
    res_init(&r);
    rc = zoo_acreate(zh, P("/emptyacl"), "x", 1, &empty, ZOO_PERSISTENT, string_cb, &r);
    add(&l, "empty_acl:rc=%d", rc ? rc : await(&r));
    add(&l, "bad_path:rc=%d", acreate(zh, P("/a//b"), "x", ZOO_PERSISTENT, &r));
    add(&l, "container_under_missing:rc=%d", acreate(zh, P("/nope/c"), "x", ZOO_CONTAINER, &r));
    emit("create_errors", &l);
}

static void check_create2(void) {
    line_t l = {0};
    res_t r;
    res_init(&r);
    int rc = zoo_acreate2(zh, P("/c2"), "hello", 5, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL,
                          string_stat_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "rc=%d name=%s", rc, r.text);
    if (r.has_stat) {
        add_stat(&l, &r.stat);
        add(&l, "owner=%s czxid==mzxid==pzxid:%s",
            r.stat.ephemeralOwner == zoo_client_id(zh)->client_id ? "self" : "other",
            r.stat.czxid == r.stat.mzxid && r.stat.mzxid == r.stat.pzxid ? "yes" : "no");
    }
    res_init(&r);
    rc = zoo_acreate2(zh, P("/c2"), "again", 5, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                      string_stat_cb, &r);
    add(&l, "again:rc=%d", rc ? rc : await(&r));
    emit("create2", &l);
}

static void check_get(void) {
    line_t l = {0};
    res_t r;
    int rc = aget(zh, P("/p"), 0, &r);
    add(&l, "rc=%d data=%s", rc, r.text);
    if (r.has_stat) add_stat(&l, &r.stat);
    rc = aget(zh, P("/p/s-0000000001"), 0, &r);
    add(&l, "nulldata:rc=%d data=%s dataLength=%d", rc, r.text, r.stat.dataLength);
    rc = aget(zh, P("/missing"), 0, &r);
    add(&l, "missing:rc=%d has_stat=%d", rc, r.has_stat);
    rc = aget(zh, "/zookeeper", 0, &r);
    add(&l, "zookeeper:rc=%d data=%s", rc, r.text);
    emit("get", &l);
}

static void check_set(void) {
    line_t l = {0};
    res_t r;
    int rc = aset(zh, P("/p"), "v1", -1, &r);
    add(&l, "any:rc=%d version=%d", rc, r.stat.version);
    rc = aset(zh, P("/p"), "v2", 1, &r);
    add(&l, "v1:rc=%d version=%d dataLength=%d", rc, r.stat.version, r.stat.dataLength);
    rc = aset(zh, P("/p"), "v3", 7, &r);
    add(&l, "stale:rc=%d has_stat=%d", rc, r.has_stat);
    rc = aset(zh, P("/missing"), "x", -1, &r);
    add(&l, "missing:rc=%d", rc);
    rc = aget(zh, P("/p"), 0, &r);
    add(&l, "after:data=%s version=%d", r.text, r.stat.version);
    emit("set", &l);
}

static void check_exists(void) {
    line_t l = {0};
    res_t r;
    int rc = aexists(zh, P("/p"), 0, &r);
    add(&l, "rc=%d numChildren=%d", rc, r.stat.numChildren);
    rc = aexists(zh, P("/missing"), 0, &r);
    add(&l, "missing:rc=%d", rc);
    rc = aexists(zh, "/", 0, &r);
    add(&l, "root:rc=%d czxid=%lld", rc, (long long)r.stat.czxid);
    emit("exists", &l);
}

static void check_children2(void) {
    line_t l = {0};
    res_t r;
    res_init(&r);
    int rc = zoo_aget_children2(zh, P("/p"), 0, strings_stat_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "rc=%d children=[%s]", rc, r.text);
    if (r.has_stat) add_stat(&l, &r.stat);
    res_init(&r);
    rc = zoo_aget_children(zh, P("/p"), 0, strings_cb, &r);
    add(&l, "children:rc=%d [%s]", rc ? rc : await(&r), r.text);
    res_init(&r);
    rc = zoo_aget_children2(zh, P("/missing"), 0, strings_stat_cb, &r);
    add(&l, "missing:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aget_children2(zh, P("/p/e"), 0, strings_stat_cb, &r);
    add(&l, "leaf:rc=%d [%s]", rc ? rc : await(&r), r.text);
    emit("get_children2", &l);
}

static void check_delete(void) {
    line_t l = {0};
    res_t r;
    acreate(zh, P("/d"), "x", ZOO_PERSISTENT, &r);
    acreate(zh, P("/d/k"), "x", ZOO_PERSISTENT, &r);
    add(&l, "notempty:rc=%d", adelete(zh, P("/d"), -1));
    add(&l, "badversion:rc=%d", adelete(zh, P("/d/k"), 3));
    add(&l, "version0:rc=%d", adelete(zh, P("/d/k"), 0));
    add(&l, "again:rc=%d", adelete(zh, P("/d/k"), -1));
    add(&l, "parent:rc=%d", adelete(zh, P("/d"), -1));
    add(&l, "root:rc=%d", adelete(zh, "/", -1));
    add(&l, "zookeeper:rc=%d", adelete(zh, "/zookeeper", -1));
    emit("delete", &l);
}

typedef struct {
    int n;
    zoo_op_t ops[8];
    zoo_op_result_t res[8];
    char bufs[8][256];
    struct Stat stats[8];
} multi_t;

static int run_multi(multi_t *m) {
    res_t r;
    res_init(&r);
    int rc = zoo_amulti(zh, m->n, m->ops, m->res, void_cb, &r);
    return rc ? rc : await(&r);
}

static void add_multi_results(line_t *l, multi_t *m) {
    char b[1024];
    size_t k = 0;
    b[0] = 0;
    for (int i = 0; i < m->n; i++) {
        k += snprintf(b + k, sizeof(b) - k, "%s%d", i ? "," : "", m->res[i].err);
    }
    add(l, "results=[%s]", b);
}

static void check_multi(void) {
    line_t l = {0};
    multi_t m;
    res_t r;
    memset(&m, 0, sizeof(m));
    zoo_create_op_init(&m.ops[0], P("/m"), "one", 3, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                       m.bufs[0], sizeof(m.bufs[0]));
    zoo_create_op_init(&m.ops[1], P("/m/s-"), "", 0, &ZOO_OPEN_ACL_UNSAFE,
                       ZOO_PERSISTENT_SEQUENTIAL, m.bufs[1], sizeof(m.bufs[1]));
    zoo_set_op_init(&m.ops[2], P("/m"), "two", 3, 0, &m.stats[2]);
    zoo_check_op_init(&m.ops[3], P("/m"), 1);
    zoo_delete_op_init(&m.ops[4], P("/m/s-0000000000"), 0);
    m.n = 5;
    int rc = run_multi(&m);
    add(&l, "ok:rc=%d", rc);
    add_multi_results(&l, &m);
    char n0[300], n1[300];
    relpath(n0, sizeof(n0), m.bufs[0]);
    relpath(n1, sizeof(n1), m.bufs[1]);
    add(&l, "names=%s,%s set_version=%d", n0, n1, m.stats[2].version);
    rc = aget(zh, P("/m"), 0, &r);
    add(&l, "after:data=%s cversion=%d numChildren=%d", r.text, r.stat.cversion, r.stat.numChildren);
    emit("multi", &l);
}

static void check_multi_failing(void) {
    line_t l = {0};
    multi_t m;
    res_t r;
    memset(&m, 0, sizeof(m));
    zoo_create_op_init(&m.ops[0], P("/mf"), "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                       m.bufs[0], sizeof(m.bufs[0]));
    zoo_set_op_init(&m.ops[1], P("/m"), "three", 5, -1, &m.stats[1]);
    zoo_delete_op_init(&m.ops[2], P("/missing"), -1);
    zoo_create_op_init(&m.ops[3], P("/mf2"), "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                       m.bufs[3], sizeof(m.bufs[3]));
    m.n = 4;
    int rc = run_multi(&m);
    add(&l, "delete_missing:rc=%d", rc);
    add_multi_results(&l, &m);
    add(&l, "created=%d", aexists(zh, P("/mf"), 0, &r) == 0);
    aget(zh, P("/m"), 0, &r);
    add(&l, "m=%s", r.text);

    memset(&m, 0, sizeof(m));
    zoo_check_op_init(&m.ops[0], P("/m"), 5);
    zoo_create_op_init(&m.ops[1], P("/mf"), "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                       m.bufs[1], sizeof(m.bufs[1]));
    m.n = 2;
    rc = run_multi(&m);
    add(&l, "check_version:rc=%d", rc);
    add_multi_results(&l, &m);

    memset(&m, 0, sizeof(m));
    zoo_create_op_init(&m.ops[0], P("/mf"), "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                       m.bufs[0], sizeof(m.bufs[0]));
    zoo_create_op_init(&m.ops[1], P("/mf"), "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                       m.bufs[1], sizeof(m.bufs[1]));
    m.n = 2;
    rc = run_multi(&m);
    add(&l, "dup_create:rc=%d", rc);
    add_multi_results(&l, &m);

    memset(&m, 0, sizeof(m));
    zoo_delete_op_init(&m.ops[0], P("/p"), -1);
    m.n = 1;
    rc = run_multi(&m);
    add(&l, "delete_notempty:rc=%d", rc);
    add_multi_results(&l, &m);

    memset(&m, 0, sizeof(m));
    m.n = 0;
    rc = run_multi(&m);
    add(&l, "empty:rc=%d", rc);
    emit("multi_failing", &l);
}

static void check_sync(void) {
    line_t l = {0};
    res_t r;
    res_init(&r);
    int rc = zoo_async(zh, P("/p"), string_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "rc=%d path=%s", rc, r.text);
    res_init(&r);
    rc = zoo_async(zh, P("/missing"), string_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "missing:rc=%d path=%s", rc, r.text);
    emit("sync", &l);
}

static void check_acl(void) {
    line_t l = {0};
    res_t r;
    int rc;
    struct ACL read_only[] = {{ZOO_PERM_READ, ZOO_ANYONE_ID_UNSAFE}};
    struct ACL_vector ro = {1, read_only};
    struct ACL two[] = {{ZOO_PERM_READ | ZOO_PERM_ADMIN, ZOO_ANYONE_ID_UNSAFE},
                        {ZOO_PERM_ALL, {"ip", "127.0.0.1"}}};
    struct ACL_vector twov = {2, two};

    acreate(zh, P("/acl"), "x", ZOO_PERSISTENT, &r);
    res_init(&r);
    rc = zoo_aget_acl(zh, P("/acl"), acl_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "get:rc=%d acl=[%s] aversion=%d", rc, r.text, r.stat.aversion);
    res_init(&r);
    rc = zoo_aset_acl(zh, P("/acl"), 3, &ro, void_cb, &r);
    add(&l, "set_badversion:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aset_acl(zh, P("/acl"), 0, &twov, void_cb, &r);
    add(&l, "set:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aget_acl(zh, P("/acl"), acl_cb, &r);
    rc = rc ? rc : await(&r);
    add(&l, "get:rc=%d acl=[%s] aversion=%d", rc, r.text, r.stat.aversion);
    res_init(&r);
    rc = zoo_aset_acl(zh, P("/acl"), -1, &ro, void_cb, &r);
    add(&l, "set_ro:rc=%d", rc ? rc : await(&r));
    add(&l, "write_ro:rc=%d", aset(zh, P("/acl"), "y", -1, &r));
    add(&l, "read_ro:rc=%d", aget(zh, P("/acl"), 0, &r));
    add(&l, "create_under_ro:rc=%d", acreate(zh, P("/acl/k"), "x", ZOO_PERSISTENT, &r));
    res_init(&r);
    rc = zoo_aset_acl(zh, P("/acl"), -1, &ZOO_OPEN_ACL_UNSAFE, void_cb, &r);
    add(&l, "set_without_admin:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aget_acl(zh, P("/missing"), acl_cb, &r);
    add(&l, "get_missing:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    struct ACL_vector empty = {0, NULL};
    rc = zoo_aset_acl(zh, P("/p"), -1, &empty, void_cb, &r);
    add(&l, "set_empty:rc=%d", rc ? rc : await(&r));
    struct ACL bad[] = {{ZOO_PERM_ALL, {"nosuch", "x"}}};
    struct ACL_vector badv = {1, bad};
    res_init(&r);
    rc = zoo_aset_acl(zh, P("/p"), -1, &badv, void_cb, &r);
    add(&l, "set_bad_scheme:rc=%d", rc ? rc : await(&r));
    emit("acl", &l);
}

static void check_auth(void) {
    line_t l = {0};
    res_t r;
    int rc;
    struct ACL authacl[] = {{ZOO_PERM_ALL, ZOO_AUTH_IDS}};
    struct ACL_vector authv = {1, authacl};

    res_init(&r);
    rc = zoo_acreate(zh, P("/auth_none"), "x", 1, &authv, ZOO_PERSISTENT, string_cb, &r);
    add(&l, "create_auth_acl_unauthenticated:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_add_auth(zh, "digest", "alice:secret", 12, void_cb, &r);
    add(&l, "add_auth:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_acreate(zh, P("/auth"), "private", 7, &authv, ZOO_PERSISTENT, string_cb, &r);
    add(&l, "create:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aget_acl(zh, P("/auth"), acl_cb, &r);
    add(&l, "acl:rc=%d [%s]", rc ? rc : await(&r), r.text);
    rc = aget(zh, P("/auth"), 0, &r);
    add(&l, "owner_get:rc=%d data=%s", rc, r.text);
    rc = aget(zh2, P("/auth"), 0, &r);
    add(&l, "other_get:rc=%d", rc);
    add(&l, "other_exists:rc=%d", aexists(zh2, P("/auth"), 0, &r));
    add(&l, "other_set:rc=%d", aset(zh2, P("/auth"), "x", -1, &r));
    res_init(&r);
    rc = zoo_add_auth(zh2, "digest", "alice:wrong", 11, void_cb, &r);
    add(&l, "other_wrong_password:rc=%d", rc ? rc : await(&r));
    add(&l, "other_get:rc=%d", aget(zh2, P("/auth"), 0, &r));
    res_init(&r);
    rc = zoo_add_auth(zh2, "digest", "alice:secret", 12, void_cb, &r);
    add(&l, "other_add_auth:rc=%d", rc ? rc : await(&r));
    rc = aget(zh2, P("/auth"), 0, &r);
    add(&l, "other_get:rc=%d data=%s", rc, r.text);
    add(&l, "state=%s", state_name(zoo_state(zh2)));
    emit("auth", &l);
}

static void check_auth_failed(void) {
    line_t l = {0};
    evlog_t log;
    res_t r;
    evlog_init(&log);
    zhandle_t *h = connect_to(10000, &log, NULL);
    res_init(&r);
    int rc = zoo_add_auth(h, "nosuchscheme", "x", 1, void_cb, &r);
    add(&l, "add_auth:rc=%d", rc ? rc : await(&r));
    wait_events(&log, 2, WAIT_MS);
    add_events(&l, &log, 0);
    add(&l, "state=%s", state_name(zoo_state(h)));
    res_init(&r);
    rc = zoo_aget(h, "/", 0, data_cb, &r);
    add(&l, "get_after:rc=%d", rc ? rc : await(&r));
    zookeeper_close(h);
    emit("auth_failed", &l);
}

/* watch_global: reads with watch=1 leave watches for the global watcher. */
static void check_watch_global(void) {
    line_t l = {0};
    res_t r;
    int from = event_count(&glog);
    add(&l, "exists_missing:rc=%d", aexists(zh, P("/wg"), 1, &r));
    create_line(&l, zh2, "other_create", P("/wg"), "x", ZOO_PERSISTENT);
    wait_events(&glog, from + 1, WAIT_MS);
    add(&l, "get:rc=%d", aget(zh, P("/wg"), 1, &r));
    res_init(&r);
    int rc = zoo_aget_children(zh, P("/wg"), 1, strings_cb, &r);
    add(&l, "children:rc=%d", rc ? rc : await(&r));
    add(&l, "other_set:rc=%d", aset(zh2, P("/wg"), "y", -1, &r));
    wait_events(&glog, from + 2, WAIT_MS);
    add(&l, "other_set_again:rc=%d", aset(zh2, P("/wg"), "z", -1, &r));
    create_line(&l, zh2, "other_child", P("/wg/k"), "x", ZOO_PERSISTENT);
    wait_events(&glog, from + 3, WAIT_MS);
    add(&l, "exists:rc=%d", aexists(zh, P("/wg"), 1, &r));
    add(&l, "get:rc=%d", aget(zh, P("/wg"), 1, &r));
    add(&l, "other_delete_child:rc=%d", adelete(zh2, P("/wg/k"), -1));
    add(&l, "other_delete:rc=%d", adelete(zh2, P("/wg"), -1));
    wait_events(&glog, from + 4, WAIT_MS);
    /* A sync on the main session flushes anything still on its way. */
    res_init(&r);
    zoo_async(zh, "/", string_cb, &r);
    await(&r);
    add_events(&l, &glog, from);
    emit("watch_global", &l);
}

/* watch_own_change: the session's own write fires its watch before the
 * write's reply. */
static void check_watch_own(void) {
    line_t l = {0};
    res_t r;
    evlog_t w;
    evlog_init(&w);
    acreate(zh, P("/wo"), "x", ZOO_PERSISTENT, &r);
    res_init(&r);
    int rc = zoo_awget(zh, P("/wo"), watcher, &w, data_cb, &r);
    add(&l, "wget:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aset(zh, P("/wo"), "y", 1, -1, stat_cb, &r);
    rc = rc ? rc : await(&r);
    int seen = event_count(&w);
    add(&l, "set:rc=%d events_before_reply=%d", rc, seen);
    add_events(&l, &w, 0);
    emit("watch_own_change", &l);
}

/* watch_per_call: watchers passed to zoo_aw* calls get their own events,
 * once each. */
static void check_watch_per_call(void) {
    line_t l = {0};
    res_t r;
    evlog_t wd, we, wc, wm, wchild;
    int rc;
    evlog_init(&wd);
    evlog_init(&we);
    evlog_init(&wc);
    evlog_init(&wm);
    evlog_init(&wchild);
    int gfrom = event_count(&glog);

    acreate(zh, P("/w"), "x", ZOO_PERSISTENT, &r);
    res_init(&r);
    rc = zoo_awget(zh, P("/w"), watcher, &wd, data_cb, &r);
    add(&l, "wget:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_awexists(zh, P("/w"), watcher, &we, stat_cb, &r);
    add(&l, "wexists:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_awget_children2(zh, P("/w"), watcher, &wc, strings_stat_cb, &r);
    add(&l, "wchildren2:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_awexists(zh, P("/w/k"), watcher, &wm, stat_cb, &r);
    add(&l, "wexists_missing:rc=%d", rc ? rc : await(&r));

    add(&l, "other_set:rc=%d", aset(zh2, P("/w"), "y", -1, &r));
    wait_events(&wd, 1, WAIT_MS);
    wait_events(&we, 1, WAIT_MS);
    create_line(&l, zh2, "other_create_child", P("/w/k"), "x", ZOO_PERSISTENT);
    wait_events(&wc, 1, WAIT_MS);
    wait_events(&wm, 1, WAIT_MS);
    add(&l, "other_set_again:rc=%d", aset(zh2, P("/w"), "z", -1, &r));

    res_init(&r);
    rc = zoo_awget(zh, P("/w/k"), watcher, &wchild, data_cb, &r);
    add(&l, "wget_child:rc=%d", rc ? rc : await(&r));
    add(&l, "other_delete_child:rc=%d", adelete(zh2, P("/w/k"), -1));
    wait_events(&wchild, 1, WAIT_MS);
    res_init(&r);
    zoo_async(zh, "/", string_cb, &r);
    await(&r);

    line_t e = {0};
    add(&e, "data:");
    add_events(&e, &wd, 0);
    add(&e, "exists:");
    add_events(&e, &we, 0);
    add(&e, "children:");
    add_events(&e, &wc, 0);
    add(&e, "exists_missing:");
    add_events(&e, &wm, 0);
    add(&e, "child_data:");
    add_events(&e, &wchild, 0);
    add(&e, "global:");
    add_events(&e, &glog, gfrom);
    add(&l, "%s", e.buf);
    emit("watch_per_call", &l);
}

/* watch_same_watcher: one watcher set twice on a path (data and exists)
 * is called once; two different watchers are each called. */
static void check_watch_dedup(void) {
    line_t l = {0};
    res_t r;
    evlog_t a, b;
    evlog_init(&a);
    evlog_init(&b);
    acreate(zh, P("/wd"), "x", ZOO_PERSISTENT, &r);
    res_init(&r);
    zoo_awget(zh, P("/wd"), watcher, &a, data_cb, &r);
    await(&r);
    res_init(&r);
    zoo_awexists(zh, P("/wd"), watcher, &a, stat_cb, &r);
    await(&r);
    res_init(&r);
    zoo_awget(zh, P("/wd"), watcher, &b, data_cb, &r);
    await(&r);
    add(&l, "other_delete:rc=%d", adelete(zh2, P("/wd"), -1));
    wait_events(&a, 1, WAIT_MS);
    wait_events(&b, 1, WAIT_MS);
    res_init(&r);
    zoo_async(zh, "/", string_cb, &r);
    await(&r);
    add(&l, "a:");
    add_events(&l, &a, 0);
    add(&l, "b:");
    add_events(&l, &b, 0);
    emit("watch_dedup", &l);
}

/* zookeeper.h 3.8.0 declares the completion of zoo_aremove_watches and
 * zoo_aremove_all_watches as a pointer to a void_completion_t, but the
 * library calls it as the function itself. */
#define RW_CB ((void_completion_t *)(void *)void_cb)

static void check_remove_watches(void) {
    line_t l = {0};
    res_t r;
    evlog_t wd, wc;
    int rc;
    evlog_init(&wd);
    evlog_init(&wc);
    acreate(zh, P("/rw"), "x", ZOO_PERSISTENT, &r);
    res_init(&r);
    zoo_awget(zh, P("/rw"), watcher, &wd, data_cb, &r);
    await(&r);
    res_init(&r);
    zoo_awget_children(zh, P("/rw"), watcher, &wc, strings_cb, &r);
    await(&r);
    res_init(&r);
    rc = zoo_aremove_watches(zh, P("/rw"), ZWATCHTYPE_DATA, watcher, &wd, 0, RW_CB, &r);
    add(&l, "remove_data:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aremove_watches(zh, P("/rw"), ZWATCHTYPE_DATA, watcher, &wd, 0, RW_CB, &r);
    add(&l, "remove_data_again:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aremove_all_watches(zh, P("/rw"), ZWATCHTYPE_ANY, 0, RW_CB, &r);
    add(&l, "remove_all:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aremove_all_watches(zh, P("/rw"), ZWATCHTYPE_ANY, 0, RW_CB, &r);
    add(&l, "remove_all_again:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aremove_all_watches(zh, P("/missing"), ZWATCHTYPE_ANY, 0, RW_CB, &r);
    add(&l, "remove_missing:rc=%d", rc ? rc : await(&r));
    /* A watch the server has but the client forgot: local removal first,
     * then the server is asked. */
    add(&l, "get_global:rc=%d", aget(zh, P("/rw"), 1, &r));
    res_init(&r);
    rc = zoo_aremove_all_watches(zh, P("/rw"), ZWATCHTYPE_CHILD, 0, RW_CB, &r);
    add(&l, "remove_child_none:rc=%d", rc ? rc : await(&r));
    res_init(&r);
    rc = zoo_aremove_all_watches(zh, P("/rw"), ZWATCHTYPE_DATA, 0, RW_CB, &r);
    add(&l, "remove_global_data:rc=%d", rc ? rc : await(&r));
    int gfrom = event_count(&glog);
    add(&l, "other_set:rc=%d", aset(zh2, P("/rw"), "y", -1, &r));
    res_init(&r);
    zoo_async(zh, "/", string_cb, &r);
    await(&r);
    add(&l, "data:");
    add_events(&l, &wd, 0);
    add(&l, "children:");
    add_events(&l, &wc, 0);
    add(&l, "global_after:");
    add_events(&l, &glog, gfrom);
    emit("remove_watches", &l);
}

/* pipeline: many writes in flight at once complete in the order sent. */
#define PIPE_N 200
static res_t pipe_res[PIPE_N];

static void check_pipeline(void) {
    line_t l = {0};
    res_t r;
    int order_ok = 1, versions_ok = 1, rcs = 0;
    acreate(zh, P("/pipe"), "0", ZOO_PERSISTENT, &r);
    for (int i = 0; i < PIPE_N; i++) {
        char v[32];
        snprintf(v, sizeof(v), "%d", i + 1);
        res_init(&pipe_res[i]);
        if (i % 2 == 0) {
            zoo_aset(zh, P("/pipe"), v, (int)strlen(v), i / 2, stat_cb, &pipe_res[i]);
        } else {
            zoo_aget(zh, P("/pipe"), 0, data_cb, &pipe_res[i]);
        }
    }
    for (int i = 0; i < PIPE_N; i++) {
        rcs |= await(&pipe_res[i]);
    }
    /* Each get sees the set sent just before it; each set's version is the
     * number of sets before it plus one. */
    for (int i = 0; i < PIPE_N; i++) {
        if (i % 2 == 0) {
            if (pipe_res[i].stat.version != i / 2 + 1) versions_ok = 0;
        } else {
            char want[40];
            snprintf(want, sizeof(want), "'%d'", i);
            if (strcmp(pipe_res[i].text, want) != 0) order_ok = 0;
            if (pipe_res[i].stat.version != i / 2 + 1) order_ok = 0;
        }
    }
    add(&l, "sent=%d rc_or=%d reads_see_preceding_write=%s versions=%s", PIPE_N, rcs,
        order_ok ? "yes" : "no", versions_ok ? "yes" : "no");
    /* A stale version in the middle fails alone. */
    res_t a, b, c;
    res_init(&a);
    res_init(&b);
    res_init(&c);
    zoo_aset(zh, P("/pipe"), "x", 1, PIPE_N / 2, stat_cb, &a);
    zoo_aset(zh, P("/pipe"), "y", 1, 0, stat_cb, &b);
    zoo_aset(zh, P("/pipe"), "z", 1, PIPE_N / 2 + 1, stat_cb, &c);
    add(&l, "mixed:rc=%d,%d,%d", await(&a), await(&b), await(&c));
    emit("pipeline", &l);
}

static void check_large_data(void) {
    line_t l = {0};
    res_t r;
    int n = 1000 * 1000;
    char *big = malloc(n);
    for (int i = 0; i < n; i++) big[i] = (char)('a' + i % 26);
    res_init(&r);
    int rc = zoo_acreate(zh, P("/big"), big, n, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, string_cb,
                         &r);
    add(&l, "create_1MB:rc=%d", rc ? rc : await(&r));
    rc = aget(zh, P("/big"), 0, &r);
    add(&l, "get:rc=%d data=%s", rc, r.text);
    free(big);
    add(&l, "state=%s", state_name(zoo_state(zh)));
    emit("large_data", &l);
}

static void check_config(void) {
    line_t l = {0};
    res_t r;
    res_init(&r);
    int rc = zoo_agetconfig(zh, 0, data_cb, &r);
    add(&l, "getconfig:rc=%d data=%s", rc ? rc : await(&r), r.text);
    res_init(&r);
    rc = zoo_areconfig(zh, NULL, "1", NULL, -1, data_cb, &r);
    add(&l, "reconfig:rc=%d", rc ? rc : await(&r));
    emit("config", &l);
}

/* session_close: closing a session removes its ephemerals and fires the
 * watches others hold on them. */
static void check_session_close(void) {
    line_t l = {0};
    res_t r;
    evlog_t log, w;
    evlog_init(&log);
    evlog_init(&w);
    zhandle_t *h = connect_to(10000, &log, NULL);
    create_line(&l, h, "eph", P("/sc"), "x", ZOO_EPHEMERAL);
    res_t seq;
    int rc = acreate(h, P("/sc-"), "x", ZOO_EPHEMERAL_SEQUENTIAL, &seq);
    add(&l, "ephseq:rc=%d", rc);
    char seqpath[4200];
    snprintf(seqpath, sizeof(seqpath), "%s%s", root, seq.text + strlen("<root>"));
    /* More ephemerals, each watched: closing deletes them, and fires the
     * watches, in the order of Java's HashSet of the session's paths. */
    static const char *more[] = {"/sc-alpha", "/sc-beta", "/sc-gamma", "/sc-delta", "/sc-n1",
                                 "/sc-n2", "/sc-n3", "/sc-n4", "/sc-n5", "/sc-n6"};
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        acreate(h, P(more[i]), "", ZOO_EPHEMERAL, &r);
    }
    adelete(h, P("/sc-beta"), -1);
    acreate(h, P("/sc-beta"), "", ZOO_EPHEMERAL, &r);
    res_init(&r);
    zoo_awexists(zh, P("/sc"), watcher, &w, stat_cb, &r);
    add(&l, "watch:rc=%d", await(&r));
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        res_init(&r);
        zoo_awexists(zh, P(more[i]), watcher, &w, stat_cb, &r);
        await(&r);
    }
    add(&l, "close=%d", zookeeper_close(h));
    wait_events(&w, 1 + (int)(sizeof(more) / sizeof(more[0])), WAIT_MS);
    add_events(&l, &w, 0);
    add(&l, "exists_after:rc=%d", aexists(zh, P("/sc"), 0, &r));
    add(&l, "exists_seq_after:rc=%d", aexists(zh, seqpath, 0, &r));
    emit("session_close", &l);
}

/* spawn_self starts this program again as a child in the given mode
 * (--child, --hold) on path, and returns its standard output to read,
 * with its pid in *pid; NULL when it cannot be started. */
static FILE *spawn_self(const char *self, const char *mode, const char *path, pid_t *pid) {
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    *pid = fork();
    if (*pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (*pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(self, self, mode, host, path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    return fdopen(fds[0], "r");
}

/* session_expiry: a child process makes a session with an ephemeral,
 * is stopped until the session expires, then resumed: its ephemeral is
 * gone, others' watches fire, and it is told EXPIRED_SESSION. */
static void check_session_expiry(const char *self) {
    line_t l = {0};
    res_t r;
    evlog_t w;
    evlog_init(&w);
    pid_t pid;
    FILE *in = spawn_self(self, "--child", P("/se"), &pid);
    if (in == NULL) {
        fail(&l, "starting the child process");
        emit("session_expiry", &l);
        return;
    }
    char buf[512];
    int created = 0;
    while (fgets(buf, sizeof(buf), in)) {
        if (strncmp(buf, "created", 7) == 0) {
            created = 1;
            break;
        }
    }
    add(&l, "child_created=%d", created);
    res_init(&r);
    zoo_awexists(zh, P("/se"), watcher, &w, stat_cb, &r);
    add(&l, "watch:rc=%d", await(&r));
    struct timeval t0, t1;
    gettimeofday(&t0, NULL);
    kill(pid, SIGSTOP);
    int got = wait_events(&w, 1, 30000);
    gettimeofday(&t1, NULL);
    long waited = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_usec - t0.tv_usec) / 1000;
    add_events(&l, &w, 0);
    /* The session timeout is 4000 ms and the client pings every third of
     * it, so the server last heard from it at most ~1.4 s before the stop:
     * expiry must not come within 2 s of it. */
    add(&l, "not_early=%s", got && waited >= 2000 ? "yes" : "no");
    add(&l, "exists_after:rc=%d", aexists(zh, P("/se"), 0, &r));
    kill(pid, SIGCONT);
    char last[512] = "";
    while (fgets(buf, sizeof(buf), in)) {
        buf[strcspn(buf, "\n")] = 0;
        if (strncmp(buf, "event ", 6) == 0) snprintf(last, sizeof(last), "%s", buf + 6);
        if (strstr(buf, "EXPIRED_SESSION") || strncmp(buf, "timeout", 7) == 0) break;
    }
    add(&l, "child_last_event=%s", last[0] ? last : "none");
    fclose(in);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    emit("session_expiry", &l);
}

/* ---- a loopback proxy whose connections can be cut ----
 *
 * The reconnect check puts it between a session and the server: cutting
 * drops the session's connection and refuses new ones until allowed
 * again, so that changes made meanwhile are known to have happened while
 * the session was away, and the server learns of its watches only from
 * the SetWatches the client sends when it comes back. */

#define PROXY_MAX 16
static struct {
    pthread_mutex_t mu;
    int listen_fd;
    int port;
    int blocked;
    int n;
    int down[PROXY_MAX], up[PROXY_MAX];
} proxy = {PTHREAD_MUTEX_INITIALIZER, -1, 0, 0, 0, {0}, {0}};
static struct sockaddr_in upstream;

static void proxy_close(int i) {
    close(proxy.down[i]);
    close(proxy.up[i]);
    proxy.down[i] = proxy.down[proxy.n - 1];
    proxy.up[i] = proxy.up[proxy.n - 1];
    proxy.n--;
}

static int pump(int from, int to) {
    char b[65536];
    ssize_t n = read(from, b, sizeof(b));
    if (n <= 0) return -1;
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(to, b + off, n - off);
        if (w <= 0) return -1;
        off += w;
    }
    return 0;
}

static void *proxy_loop(void *arg) {
    (void)arg;
    for (;;) {
        struct pollfd fds[1 + 2 * PROXY_MAX];
        int nfds = 0, n;
        pthread_mutex_lock(&proxy.mu);
        fds[nfds].fd = proxy.listen_fd;
        fds[nfds++].events = POLLIN;
        n = proxy.n;
        for (int i = 0; i < n; i++) {
            fds[nfds].fd = proxy.down[i];
            fds[nfds++].events = POLLIN;
            fds[nfds].fd = proxy.up[i];
            fds[nfds++].events = POLLIN;
        }
        pthread_mutex_unlock(&proxy.mu);
        if (poll(fds, nfds, 20) < 0) continue;
        pthread_mutex_lock(&proxy.mu);
        if (fds[0].revents & POLLIN) {
            int c = accept(proxy.listen_fd, NULL, NULL);
            if (c >= 0) {
                int u = -1;
                if (!proxy.blocked && proxy.n < PROXY_MAX) {
                    u = socket(AF_INET, SOCK_STREAM, 0);
                    if (connect(u, (struct sockaddr *)&upstream, sizeof(upstream)) != 0) {
                        close(u);
                        u = -1;
                    }
                }
                if (u < 0) {
                    close(c);
                } else {
                    proxy.down[proxy.n] = c;
                    proxy.up[proxy.n++] = u;
                }
            }
        }
        /* Pairs were only added at the end, so the first n are the ones
         * polled; go backwards so that closing one keeps the rest. */
        for (int i = (n < proxy.n ? n : proxy.n) - 1; i >= 0; i--) {
            short rd = fds[1 + 2 * i].revents, ru = fds[2 + 2 * i].revents;
            if (fds[1 + 2 * i].fd != proxy.down[i]) continue;
            int bad = 0;
            if (rd & (POLLIN | POLLHUP | POLLERR)) bad |= pump(proxy.down[i], proxy.up[i]);
            if (!bad && (ru & (POLLIN | POLLHUP | POLLERR))) bad |= pump(proxy.up[i], proxy.down[i]);
            if (bad) proxy_close(i);
        }
        pthread_mutex_unlock(&proxy.mu);
    }
    return NULL;
}

/* proxy_start returns the proxy's "127.0.0.1:<port>". */
static const char *proxy_start(void) {
    static char addr[64];
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    const char *colon = strrchr(host, ':');
    memset(&upstream, 0, sizeof(upstream));
    upstream.sin_family = AF_INET;
    upstream.sin_port = htons((unsigned short)atoi(colon + 1));
    inet_pton(AF_INET, "127.0.0.1", &upstream.sin_addr);
    proxy.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (bind(proxy.listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(proxy.listen_fd, 16) != 0) {
        fprintf(stderr, "proxy: %s\n", strerror(errno));
        exit(2);
    }
    getsockname(proxy.listen_fd, (struct sockaddr *)&a, &len);
    proxy.port = ntohs(a.sin_port);
    pthread_t t;
    pthread_create(&t, NULL, proxy_loop, NULL);
    pthread_detach(t);
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", proxy.port);
    return addr;
}

static void proxy_cut(void) {
    pthread_mutex_lock(&proxy.mu);
    proxy.blocked = 1;
    for (int i = 0; i < proxy.n; i++) {
        shutdown(proxy.down[i], SHUT_RDWR);
        shutdown(proxy.up[i], SHUT_RDWR);
    }
    pthread_mutex_unlock(&proxy.mu);
}

static void proxy_allow(void) {
    pthread_mutex_lock(&proxy.mu);
    proxy.blocked = 0;
    pthread_mutex_unlock(&proxy.mu);
}

/* wait_event_text waits until the log holds an event containing text,
 * looking from index from on. */
static int wait_event_text(evlog_t *l, int from, const char *text, int ms) {
    struct timespec ts;
    deadline(&ts, ms);
    pthread_mutex_lock(&l->mu);
    for (;;) {
        for (int i = from; i < l->n; i++) {
            if (strstr(l->ev[i], text)) {
                pthread_mutex_unlock(&l->mu);
                return 1;
            }
        }
        if (pthread_cond_timedwait(&l->cv, &l->mu, &ts) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&l->mu);
    return 0;
}

/* reconnect_set_watches: a session's connection drops; while it is away
 * another session changes what it watches; when it comes back (same
 * session, SetWatches with its last zxid) the server must fire the
 * watches whose nodes changed meanwhile, and keep the others. */
static void check_reconnect_set_watches(void) {
    line_t l = {0};
    res_t r;
    evlog_t log, pc;
    evlog_init(&log);
    evlog_init(&pc);
    const char *real = host;
    host = proxy_start();
    zhandle_t *h = connect_to(10000, &log, NULL);
    host = real;
    int64_t sid = zoo_client_id(h)->client_id;

    acreate(zh, P("/sw"), "", ZOO_PERSISTENT, &r);
    acreate(zh, P("/sw/data"), "0", ZOO_PERSISTENT, &r);
    acreate(zh, P("/sw/child"), "", ZOO_PERSISTENT, &r);
    acreate(zh, P("/sw/gone"), "", ZOO_PERSISTENT, &r);
    acreate(zh, P("/sw/gonekids"), "", ZOO_PERSISTENT, &r);
    acreate(zh, P("/sw/same"), "", ZOO_PERSISTENT, &r);
    add(&l, "get_data:rc=%d", aget(h, P("/sw/data"), 1, &r));
    res_init(&r);
    zoo_aget_children(h, P("/sw/child"), 1, strings_cb, &r);
    add(&l, "children:rc=%d", await(&r));
    add(&l, "exists_later:rc=%d", aexists(h, P("/sw/later"), 1, &r));
    add(&l, "get_gone:rc=%d", aget(h, P("/sw/gone"), 1, &r));
    res_init(&r);
    zoo_aget_children(h, P("/sw/gonekids"), 1, strings_cb, &r);
    add(&l, "children_gonekids:rc=%d", await(&r));
    add(&l, "get_same:rc=%d", aget(h, P("/sw/same"), 1, &r));
    add(&l, "exists_never:rc=%d", aexists(h, P("/sw/never"), 1, &r));
    res_init(&r);
    zoo_awget(h, P("/sw/data"), watcher, &pc, data_cb, &r);
    add(&l, "wget_data:rc=%d", await(&r));

    int from = event_count(&log);
    proxy_cut();
    if (!wait_event_text(&log, from, "CONNECTING", WAIT_MS)) fail(&l, "no CONNECTING");
    add(&l, "away:set=%d", aset(zh, P("/sw/data"), "1", -1, &r));
    add(&l, "create_child=%d", acreate(zh, P("/sw/child/k"), "", ZOO_PERSISTENT, &r));
    add(&l, "create_later=%d", acreate(zh, P("/sw/later"), "", ZOO_PERSISTENT, &r));
    add(&l, "delete_gone=%d", adelete(zh, P("/sw/gone"), -1));
    add(&l, "delete_gonekids=%d", adelete(zh, P("/sw/gonekids"), -1));
    proxy_allow();
    if (!wait_event_text(&log, from, "SESSION/CONNECTED", WAIT_MS)) fail(&l, "no reconnect");
    add(&l, "same_session=%s", zoo_client_id(h)->client_id == sid ? "yes" : "no");
    wait_events(&log, from + 2 + 5, WAIT_MS);
    wait_events(&pc, 1, WAIT_MS);
    /* The watches on unchanged nodes survived: change them now. */
    add(&l, "back:set_same=%d", aset(zh, P("/sw/same"), "x", -1, &r));
    add(&l, "create_never=%d", acreate(zh, P("/sw/never"), "", ZOO_PERSISTENT, &r));
    wait_events(&log, from + 2 + 7, WAIT_MS);
    res_init(&r);
    zoo_async(h, "/", string_cb, &r);
    await(&r);
    /* In the order they came: the session events, then what SetWatches
     * fired (data, exist, child watches, in the order the client listed
     * them), then the changes made after the return. */
    pthread_mutex_lock(&log.mu);
    int n = log.n - from;
    char *evs[MAX_EVENTS];
    for (int i = 0; i < n; i++) evs[i] = log.ev[from + i];
    char buf[4096];
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof(buf); i++) {
        const char *e = evs[i], *p = strstr(e, root);
        if (p) {
            k += snprintf(buf + k, sizeof(buf) - k, "%s%.*s<root>%s", i ? "," : "", (int)(p - e), e, p + strlen(root));
        } else {
            k += snprintf(buf + k, sizeof(buf) - k, "%s%s", i ? "," : "", e);
        }
    }
    pthread_mutex_unlock(&log.mu);
    add(&l, "events=[%s]", n ? buf : "");
    add(&l, "per_call:");
    add_events(&l, &pc, 0);
    zookeeper_close(h);
    emit("reconnect_set_watches", &l);
}

/* session_resume: a process dies without closing its session; another
 * handle takes the session over with its id and password, within the
 * timeout, and finds its ephemeral; a wrong password is refused. */
static void check_session_resume(const char *self) {
    line_t l = {0};
    res_t r;
    pid_t pid;
    FILE *in = spawn_self(self, "--hold", P("/held"), &pid);
    if (in == NULL) {
        fail(&l, "starting the child process");
        emit("session_resume", &l);
        return;
    }
    char buf[512];
    clientid_t id;
    memset(&id, 0, sizeof(id));
    int got = 0;
    while (fgets(buf, sizeof(buf), in)) {
        long long sid;
        char pw[64];
        if (sscanf(buf, "id %llx %32s", &sid, pw) == 2) {
            id.client_id = sid;
            for (int i = 0; i < 16; i++) {
                unsigned int b;
                sscanf(pw + 2 * i, "%2x", &b);
                id.passwd[i] = (char)b;
            }
            got = 1;
            break;
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fclose(in);
    add(&l, "child_session=%d", got);

    /* A wrong password: the server refuses the session. */
    evlog_t bad;
    evlog_init(&bad);
    clientid_t wrong = id;
    wrong.passwd[0] ^= 0x55;
    zhandle_t *hb = zookeeper_init(host, watcher, 10000, &wrong, &bad, 0);
    wait_events(&bad, 1, WAIT_MS);
    add(&l, "wrong_password:");
    add_events(&l, &bad, 0);
    zookeeper_close(hb);

    evlog_t log;
    evlog_init(&log);
    zhandle_t *h = connect_to(10000, &log, &id);
    add(&l, "resume:");
    add_events(&l, &log, 0);
    add(&l, "same_session=%s", zoo_client_id(h)->client_id == id.client_id ? "yes" : "no");
    int rc = aexists(h, P("/held"), 0, &r);
    add(&l, "ephemeral:rc=%d owner=%s", rc,
        rc == 0 && r.stat.ephemeralOwner == id.client_id ? "resumed" : "other");
    add(&l, "create_eph=%d", acreate(h, P("/held2"), "", ZOO_EPHEMERAL, &r));
    add(&l, "close=%d", zookeeper_close(h));
    add(&l, "after_close:held=%d held2=%d", aexists(zh, P("/held"), 0, &r), aexists(zh, P("/held2"), 0, &r));
    emit("session_resume", &l);
}

static int hold_main(const char *path) {
    evlog_t log;
    res_t r;
    evlog_init(&log);
    zoo_set_debug_level(0);
    zhandle_t *h = connect_to(30000, &log, NULL);
    if (acreate(h, path, "x", ZOO_EPHEMERAL, &r) != 0) {
        printf("create failed\n");
        return 1;
    }
    const clientid_t *id = zoo_client_id(h);
    printf("id %llx ", (long long)id->client_id);
    for (int i = 0; i < 16; i++) printf("%02x", (unsigned char)id->passwd[i]);
    printf("\n");
    fflush(stdout);
    for (;;) sleep_ms(1000);
}

static int child_main(const char *path) {
    evlog_t log;
    res_t r;
    evlog_init(&log);
    zoo_set_debug_level(0);
    zhandle_t *h = connect_to(4000, &log, NULL);
    if (acreate(h, path, "x", ZOO_EPHEMERAL, &r) != 0) {
        printf("create failed\n");
        return 1;
    }
    printf("created\n");
    fflush(stdout);
    int seen = 1;
    for (int waited = 0; waited < 60000; waited += 50) {
        int n = event_count(&log);
        for (; seen < n; seen++) {
            printf("event %s\n", log.ev[seen]);
            fflush(stdout);
            if (strstr(log.ev[seen], "EXPIRED_SESSION")) return 0;
        }
        sleep_ms(50);
    }
    printf("timeout\n");
    return 1;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--hold") == 0) {
        host = argv[2];
        root = "";
        return hold_main(argv[3]);
    }
    if (argc == 4 && strcmp(argv[1], "--child") == 0) {
        host = argv[2];
        root = "";
        return child_main(argv[3]);
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s host:port /root\n", argv[0]);
        return 2;
    }
    host = argv[1];
    root = argv[2];
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* The library logs warnings (connection loss on purpose, refused auth)
     * on stderr, which the test keeps apart from the checks. */
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    zoo_deterministic_conn_order(1);

    evlog_init(&glog);
    evlog_init(&glog2);
    zh = connect_to(10000, &glog, NULL);
    zh2 = connect_to(10000, &glog2, NULL);

    check_connect();
    check_timeouts();
    check_create_modes();
    check_create_ttl();
    check_create_errors();
    check_create2();
    check_get();
    check_set();
    check_exists();
    check_children2();
    check_delete();
    check_multi();
    check_multi_failing();
    check_sync();
    check_acl();
    check_auth();
    check_auth_failed();
    check_auth_schemes();
    check_watch_global();
    check_watch_own();
    check_watch_per_call();
    check_watch_dedup();
    check_remove_watches();
    check_pipeline();
    check_large_data();
    check_oversize();
    check_config();
    check_session_close();
    check_session_expiry(argv[0]);
    check_session_resume(argv[0]);
    check_reconnect_set_watches();

    line_t l = {0};
    add(&l, "main=%d other=%d", zookeeper_close(zh), zookeeper_close(zh2));
    emit("close", &l);
    return failures ? 1 : 0;
}
