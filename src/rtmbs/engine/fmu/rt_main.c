/* rt_main.c -- the standalone real-time program of `rtmbs export-c` (no Python).
 *
 * One li-euler step of the compiled-in plan (model_data.c) per tick of h, through the FMU
 * instance (instance.c): step k starts on the absolute tick t0 + k h of CLOCK_MONOTONIC
 * (clock_nanosleep with TIMER_ABSTIME: no drift), then the outputs at its end are evaluated
 * ("published"). As rtmbs.realtime.loop.run_realtime: the turnaround of a step is wake-up to step
 * end (CLOCK_MONOTONIC), its CPU time is CLOCK_THREAD_CPUTIME_ID over the same span, its lateness
 * is wake-up minus tick; an overrun (lateness + turnaround > h) is a step overrun when the CPU
 * time alone exceeds h, else an OS overrun (a late start when lateness + CPU time > h, else a
 * preemption); the deadline policies warn, catch-up, degrade (li-euler has no cheaper step: the
 * outputs are not published while degraded) and stop; the same summary (Markdown, --json line,
 * summary.json) and a result.csv as rtmbs.result.Result.save_csv writes it.
 *
 * UDP I/O as rtmbs.realtime.udp.UdpIO (the configuration compiled in at export): every step the
 * socket is drained without blocking (at most MAX_DRAIN packets) and the newest valid input
 * packet applied; the outputs go out after the step (every `decimation` steps).
 *
 * POSIX (Linux): _GNU_SOURCE for sched_setaffinity. Nothing is allocated, printed or written
 * inside the loop; the records are kept in memory allocated (and locked) before it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "instance.h"
#include "rt_info.h"

#define FLAG_OVERRUN 1
#define FLAG_CATCHUP 2
#define FLAG_DEGRADED 4
#define POLICY_WARN 0
#define POLICY_CATCHUP 1
#define POLICY_DEGRADE 2
#define POLICY_STOP 3

static const char* const POLICIES[] = {"warn", "catch-up", "degrade", "stop"};
static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig) {
    (void)sig;
    interrupted = 1;
}

static int64_t now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + (int64_t)ts.tv_nsec;
}

typedef struct {
    double duration, h;
    int unpaced, busy_wait, priority, cpu, mlock, json, policy, every, recover_after, csv;
    int64_t spin_ns;
    const char* out;
    const char* listen; /* host:port overriding the configuration's (NULL: keep) */
    const char* send_to;
} options;

static void usage(FILE* f, const char* argv0) {
    fprintf(f,
            "usage: %s [--duration S] [--unpaced] [--priority N] [--cpu N] [--no-mlock]\n"
            "          [--busy-wait] [--spin US] [--policy warn|catch-up|degrade|stop] [--recover-after N]\n"
            "          [--out DIR] [--every N] [--no-csv] [--json] [--listen H:P] [--send-to H:P]\n"
            "Runs model %s (solver %s, h = %g s, %s) paced on CLOCK_MONOTONIC, one step per tick.\n"
            "  --duration S       simulated (= wall) time, s (default 1)\n"
            "  --unpaced          no pacing: steps back to back (tests, qemu)\n"
            "  --priority N       SCHED_FIFO priority 1-99 (root or CAP_SYS_NICE)\n"
            "  --cpu N            pin the process to CPU N\n"
            "  --no-mlock         do not lock the memory (mlockall)\n"
            "  --busy-wait        spin through the whole period instead of sleeping\n"
            "  --spin US          sleep until US before the tick, then spin (default 200, as\n"
            "                     rtmbs realtime; 0: clock_nanosleep to the tick itself)\n"
            "  --policy P         deadline policy (default warn)\n"
            "  --recover-after N  degrade: steps within budget before leaving degraded mode (50)\n"
            "  --out DIR          folder of result.csv, summary.json, summary.md (default out)\n"
            "  --every N          keep every N-th step in result.csv (default 1)\n"
            "  --no-csv           write no result.csv\n"
            "  --json             print one line of JSON instead of the Markdown summary\n"
            "  --listen H:P       UDP: receive the input packets there (exported with --udp)\n"
            "  --send-to H:P      UDP: send the output packets there\n",
            argv0, rtmbs_rt_the_info.model, rtmbs_rt_the_info.solver, rtmbs_fmu_the_plan.opt.h,
            rtmbs_rt_the_info.options);
}

static int parse_args(int argc, char** argv, options* o) {
    int i;
    char* end;
    o->duration = 1.0;
    o->h = rtmbs_fmu_the_plan.opt.h;
    o->unpaced = o->busy_wait = o->json = 0;
    o->priority = 0;
    o->cpu = -1;
    o->mlock = 1;
    o->policy = POLICY_WARN;
    o->every = 1;
    o->recover_after = 50;
    o->csv = 1;
    o->out = "out";
    o->spin_ns = 200000;
    o->listen = o->send_to = NULL;
    for (i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, argv[0]);
            exit(0);
        } else if (!strcmp(a, "--unpaced")) {
            o->unpaced = 1;
        } else if (!strcmp(a, "--busy-wait")) {
            o->busy_wait = 1;
        } else if (!strcmp(a, "--no-mlock")) {
            o->mlock = 0;
        } else if (!strcmp(a, "--no-csv")) {
            o->csv = 0;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (v && !strcmp(a, "--duration")) {
            o->duration = strtod(v, &end);
            if (*end || !(o->duration >= 0.0) || !isfinite(o->duration)) goto bad;
            i++;
        } else if (v && !strcmp(a, "--spin")) {
            double us = strtod(v, &end);
            if (*end || !(us >= 0.0) || us > 1e9) goto bad;
            o->spin_ns = (int64_t)(us * 1e3);
            i++;
        } else if (v && (!strcmp(a, "--priority") || !strcmp(a, "--cpu") ||
                         !strcmp(a, "--every") || !strcmp(a, "--recover-after"))) {
            long n = strtol(v, &end, 10);
            if (*end || !*v) goto bad;
            if (!strcmp(a, "--priority")) {
                if (n < 1 || n > 99) goto bad;
                o->priority = (int)n;
            } else if (!strcmp(a, "--cpu")) {
                if (n < 0 || n >= CPU_SETSIZE) goto bad;
                o->cpu = (int)n;
            } else if (!strcmp(a, "--every")) {
                if (n < 1) goto bad;
                o->every = (int)n;
            } else {
                if (n < 1) goto bad;
                o->recover_after = (int)n;
            }
            i++;
        } else if (v && !strcmp(a, "--policy")) {
            int k;
            for (k = 0; k < 4; k++)
                if (!strcmp(v, POLICIES[k])) break;
            if (k == 4) goto bad;
            o->policy = k;
            i++;
        } else if (v && !strcmp(a, "--out")) {
            o->out = v;
            i++;
        } else if (v && !strcmp(a, "--listen")) {
            o->listen = v;
            i++;
        } else if (v && !strcmp(a, "--send-to")) {
            o->send_to = v;
            i++;
        } else {
            fprintf(stderr, "rtmbs-rt: unknown option or missing value: %s\n", a);
            usage(stderr, argv[0]);
            return -1;
        }
        continue;
    bad:
        fprintf(stderr, "rtmbs-rt: bad value for %s: %s\n", a, v);
        return -1;
    }
    return 0;
}

/* -- UDP I/O (rtmbs.realtime.udp) --------------------------------------------------------------
 * packet (little-endian): char[4] magic, uint32 seq, float64 t, uint16 N, N float64 */
#define MAX_DRAIN 16
#define HEADER_SIZE 18
#define MAX_DATAGRAM 65536

typedef struct {
    int sock, has_dest;
    struct sockaddr_in dest;
    unsigned char* rx; /* MAX_DATAGRAM */
    unsigned char* tx;
    double* latest;
    int64_t last_seq, nstep;
    uint32_t tx_seq;
    int64_t rx_packets, rx_accepted, rx_superseded, rx_malformed, rx_out_of_order, rx_late,
        rx_errors, rx_drain_limited, tx_packets, tx_errors;
} udp_io;

static uint32_t get_u32(const unsigned char* b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static double get_f64(const unsigned char* b) {
    uint64_t u = 0;
    double d;
    int i;
    for (i = 7; i >= 0; i--) u = u << 8 | b[i];
    memcpy(&d, &u, sizeof d);
    return d;
}

static void put_f64(unsigned char* b, double d) {
    uint64_t u;
    int i;
    memcpy(&u, &d, sizeof u);
    for (i = 0; i < 8; i++) b[i] = (unsigned char)(u >> (8 * i));
}

static int parse_address(const char* text, const char* host, int port, struct sockaddr_in* a) {
    char buf[256];
    const char* colon;
    if (text) { /* host:port */
        colon = strrchr(text, ':');
        if (!colon || (size_t)(colon - text) >= sizeof buf) return -1;
        memcpy(buf, text, (size_t)(colon - text));
        buf[colon - text] = 0;
        port = atoi(colon + 1);
        host = buf;
    }
    if (port < 0 || port > 65535) return -1;
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)port);
    if (!strcmp(host, "localhost")) host = "127.0.0.1";
    return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

static int udp_open(udp_io* u, const options* o) {
    const rtmbs_rt_info* in = &rtmbs_rt_the_info;
    struct sockaddr_in a;
    int size = 1 << 20;
    memset(u, 0, sizeof *u);
    u->last_seq = -1;
    u->rx = (unsigned char*)calloc(MAX_DATAGRAM, 1);
    u->tx = (unsigned char*)calloc((size_t)(HEADER_SIZE + 8 * in->udp_nout), 1);
    u->latest = (double*)calloc((size_t)in->udp_nin + 1, sizeof(double));
    if (!u->rx || !u->tx || !u->latest) return -1;
    if (parse_address(o->listen, in->listen_host, in->listen_port, &a)) {
        fprintf(stderr, "rtmbs-rt: bad listen address %s\n", o->listen ? o->listen : in->listen_host);
        return -1;
    }
    u->sock = socket(AF_INET, SOCK_DGRAM, 0);
    if (u->sock < 0) return -1;
    setsockopt(u->sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    if (bind(u->sock, (struct sockaddr*)&a, sizeof a) != 0) {
        fprintf(stderr, "rtmbs-rt: cannot listen on %s:%d (%s)\n", inet_ntoa(a.sin_addr),
                (int)ntohs(a.sin_port), strerror(errno));
        return -1;
    }
    if (o->send_to || in->send_port >= 0) {
        if (parse_address(o->send_to, in->send_host, in->send_port, &u->dest)) {
            fprintf(stderr, "rtmbs-rt: bad send-to address\n");
            return -1;
        }
        u->has_dest = 1;
    }
    return 0;
}

/* the initial values of the channels that have one */
static void udp_initial(rtmbs_fmu* f) {
    const rtmbs_rt_info* in = &rtmbs_rt_the_info;
    int64_t i;
    for (i = 0; i < in->udp_nin; i++)
        if (!isnan(in->udp_initial[i]))
            rtmbs_fmu_set(f, in->udp_in_vr[i], in->udp_scale[i] * in->udp_initial[i] +
                                                   in->udp_offset[i]);
}

/* UdpIO.read_inputs: drain at most MAX_DRAIN packets, apply the newest valid one */
static void udp_read(udp_io* u, rtmbs_fmu* f, double t) {
    const rtmbs_rt_info* in = &rtmbs_rt_the_info;
    const int64_t nin = in->udp_nin;
    const size_t rx_len = (size_t)(HEADER_SIZE + 8 * nin);
    int64_t ref = u->last_seq, i;
    int have = 0, k;
    for (k = 0; k < MAX_DRAIN; k++) {
        ssize_t nb = recv(u->sock, u->rx, MAX_DATAGRAM, MSG_DONTWAIT);
        uint32_t seq;
        double tp, sum;
        if (nb < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) u->rx_errors++;
            break;
        }
        u->rx_packets++;
        if ((size_t)nb != rx_len) {
            u->rx_malformed++;
            continue;
        }
        seq = get_u32(u->rx + 4);
        tp = get_f64(u->rx + 8);
        sum = tp;
        for (i = 0; i < nin; i++) sum += get_f64(u->rx + HEADER_SIZE + 8 * i);
        if (memcmp(u->rx, "RTMI", 4) || (int64_t)(u->rx[16] | u->rx[17] << 8) != nin ||
            !isfinite(sum)) {
            u->rx_malformed++;
            continue;
        }
        if (ref >= 0 && !((uint32_t)(seq - (uint32_t)ref) > 0 &&
                          (uint32_t)(seq - (uint32_t)ref) < 0x80000000u)) {
            u->rx_out_of_order++;
            continue;
        }
        if (!isnan(in->max_age) && tp < t - in->max_age) {
            u->rx_late++;
            continue;
        }
        if (have) u->rx_superseded++;
        for (i = 0; i < nin; i++) u->latest[i] = get_f64(u->rx + HEADER_SIZE + 8 * i);
        ref = (int64_t)seq;
        have = 1;
    }
    if (k == MAX_DRAIN) u->rx_drain_limited++;
    if (have) {
        u->last_seq = ref;
        u->rx_accepted++;
        for (i = 0; i < nin; i++)
            rtmbs_fmu_set(f, in->udp_in_vr[i], in->udp_scale[i] * u->latest[i] + in->udp_offset[i]);
    }
}

/* UdpIO.write_outputs */
static void udp_write(udp_io* u, double t, const double* y) {
    const rtmbs_rt_info* in = &rtmbs_rt_the_info;
    const int64_t nout = in->udp_nout;
    int64_t j;
    if (!u->has_dest) return;
    u->nstep++;
    if (u->nstep % in->decimation) return;
    u->tx_seq++;
    memcpy(u->tx, "RTMO", 4);
    for (j = 0; j < 4; j++) u->tx[4 + j] = (unsigned char)(u->tx_seq >> (8 * j));
    put_f64(u->tx + 8, t);
    u->tx[16] = (unsigned char)(nout & 0xff);
    u->tx[17] = (unsigned char)(nout >> 8);
    for (j = 0; j < nout; j++) put_f64(u->tx + HEADER_SIZE + 8 * j, y[in->udp_out[j]]);
    if (sendto(u->sock, u->tx, (size_t)(HEADER_SIZE + 8 * nout), 0, (struct sockaddr*)&u->dest,
               sizeof u->dest) >= 0)
        u->tx_packets++;
    else
        u->tx_errors++;
}

static void udp_counters(FILE* f, const udp_io* u, const char* eq, const char* sep) {
    const char* names[] = {"rx_packets", "rx_accepted", "rx_superseded", "rx_malformed",
                           "rx_out_of_order", "rx_late", "rx_errors", "rx_drain_limited",
                           "tx_packets", "tx_errors", "last_rx_seq"};
    int64_t v[11];
    int i;
    v[0] = u->rx_packets; v[1] = u->rx_accepted; v[2] = u->rx_superseded; v[3] = u->rx_malformed;
    v[4] = u->rx_out_of_order; v[5] = u->rx_late; v[6] = u->rx_errors; v[7] = u->rx_drain_limited;
    v[8] = u->tx_packets; v[9] = u->tx_errors; v[10] = u->last_seq;
    for (i = 0; i < 11; i++)
        fprintf(f, "%s%s%s%s%lld", i ? sep : "", eq[0] == ':' ? "\"" : "", names[i],
                eq[0] == ':' ? "\": " : " = ", (long long)v[i]);
}

/* -- statistics (rtmbs.realtime.stats) --------------------------------------------------------- */
static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

typedef struct {
    double p50, p99, p999, max, mean;
} timing;

/* numpy.percentile (linear) of a series in ns, in us; `tmp` is scratch of n */
static double percentile(const int64_t* sorted, int64_t n, double p) {
    double r = p / 100.0 * (double)(n - 1), fr, a, b;
    int64_t lo = (int64_t)floor(r), hi = lo + 1 < n ? lo + 1 : n - 1;
    fr = r - (double)lo;
    a = (double)sorted[lo] * 1e-3;
    b = (double)sorted[hi] * 1e-3;
    return fr >= 0.5 ? b - (b - a) * (1.0 - fr) : a + (b - a) * fr;
}

static timing timing_summary(const int64_t* ns, int64_t n, int64_t* tmp) {
    timing s;
    double sum = 0.0;
    int64_t i;
    if (n == 0) {
        s.p50 = s.p99 = s.p999 = s.max = s.mean = NAN;
        return s;
    }
    memcpy(tmp, ns, (size_t)n * sizeof(int64_t));
    qsort(tmp, (size_t)n, sizeof(int64_t), cmp_i64);
    for (i = 0; i < n; i++) sum += (double)ns[i] * 1e-3;
    s.p50 = percentile(tmp, n, 50.0);
    s.p99 = percentile(tmp, n, 99.0);
    s.p999 = percentile(tmp, n, 99.9);
    s.max = (double)tmp[n - 1] * 1e-3;
    s.mean = sum / (double)n;
    return s;
}

/* a double as Python's repr would give it where it can: the shortest %.Ng that reads back */
static void fmt_double(char* buf, size_t len, double v) {
    int p;
    if (isnan(v)) {
        snprintf(buf, len, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "inf" : "-inf");
        return;
    }
    for (p = 15; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static void json_number(FILE* f, double v) {
    char b[40];
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    fmt_double(b, sizeof b, v);
    if (!strpbrk(b, ".en")) strcat(b, ".0"); /* (a float as json.dumps writes it) */
    fputs(b, f);
}

static void json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* the summary of rtmbs.realtime.loop.RealtimeReport.summary */
typedef struct {
    const char* policy;
    double h;
    int64_t steps, overruns, step_overruns, os_overruns, os_late, os_preempted, catchup_steps,
        degrade_entries, degraded_steps;
    const char* degrade_mode;
    int stopped_early, status;
    double slip_us, wall_s, realtime_factor, budget_used_p50;
    char message[512];
    char sched[256];
    timing turn, cpu, late;
    const udp_io* udp; /* NULL: no UDP I/O */
} summary;

#define US "\xc2\xb5s" /* (UTF-8 micro sign: the C file stays ASCII) */

/* rtmbs.realtime.stats.summary_markdown */
static void write_markdown(FILE* f, const summary* s) {
    const timing* rows[3];
    const char* labels[3] = {"turnaround (" US ")", "step CPU time (" US ")",
                             "start lateness (" US ")"};
    int r;
    rows[0] = &s->turn;
    rows[1] = &s->cpu;
    rows[2] = &s->late;
    fprintf(f, "# Real-time run\n\nmodel `%s`, solver `%s`, h = %g " US ", policy `%s`, %lld "
            "steps (%g s simulated)\n\n", rtmbs_rt_the_info.model, rtmbs_rt_the_info.solver,
            s->h * 1e6, s->policy, (long long)s->steps, (double)s->steps * s->h);
    fprintf(f, "| series | p50 | p99 | p99.9 | max | mean |\n| --- | --- | --- | --- | --- | --- |\n");
    for (r = 0; r < 3; r++)
        fprintf(f, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", labels[r], rows[r]->p50,
                rows[r]->p99, rows[r]->p999, rows[r]->max, rows[r]->mean);
    fprintf(f, "\n| counter | value |\n| --- | --- |\n");
    fprintf(f, "| overruns | %lld |\n| step_overruns | %lld |\n| os_overruns | %lld |\n",
            (long long)s->overruns, (long long)s->step_overruns, (long long)s->os_overruns);
    fprintf(f, "| os_overruns_late_start | %lld |\n| os_overruns_preempted | %lld |\n",
            (long long)s->os_late, (long long)s->os_preempted);
    fprintf(f, "| catchup_steps | %lld |\n| degrade_entries | %lld |\n| degraded_steps | %lld |\n",
            (long long)s->catchup_steps, (long long)s->degrade_entries,
            (long long)s->degraded_steps);
    fprintf(f, "| stopped_early | %s |\n| slip_us | %.4g |\n| realtime_factor | %.4g |\n",
            s->stopped_early ? "True" : "False", s->slip_us, s->realtime_factor);
    fprintf(f, "| budget_used_p50 | %.4g |\n| status | %d |\n| sched | %s |\n",
            s->budget_used_p50, s->status, s->sched);
    fprintf(f, "| outputs_at | end |\n| prewarm_steps | 0 |\n| prewarm_skipped | 0 |\n");
    if (s->udp) {
        fputs("\nI/O counters: ", f);
        udp_counters(f, s->udp, " = ", ", ");
        fputs("\n", f);
    }
    if (s->message[0]) fprintf(f, "\n%s\n", s->message);
}

static void json_timing(FILE* f, const char* prefix, const timing* t, int sep) {
    fprintf(f, "\"%s_p50\": ", prefix); json_number(f, t->p50);
    fprintf(f, ", \"%s_p99\": ", prefix); json_number(f, t->p99);
    fprintf(f, ", \"%s_p999\": ", prefix); json_number(f, t->p999);
    fprintf(f, ", \"%s_max\": ", prefix); json_number(f, t->max);
    fprintf(f, ", \"%s_mean\": ", prefix); json_number(f, t->mean);
    if (sep) fputs(", ", f);
}

/* the summary as JSON: every key of RealtimeReport.summary (one line), or the keys of `rtmbs
 * realtime --json` first and the timing series whole */
static void write_json(FILE* f, const summary* s) {
    fputs("{\"model\": ", f); json_string(f, rtmbs_rt_the_info.model);
    fputs(", \"solver\": ", f); json_string(f, rtmbs_rt_the_info.solver);
    fputs(", \"policy\": ", f); json_string(f, s->policy);
    fputs(", \"h\": ", f); json_number(f, s->h);
    fprintf(f, ", \"steps\": %lld, \"overruns\": %lld, \"step_overruns\": %lld, "
            "\"os_overruns\": %lld, \"os_overruns_late_start\": %lld, "
            "\"os_overruns_preempted\": %lld, \"catchup_steps\": %lld, \"degrade_entries\": %lld, "
            "\"degraded_steps\": %lld, ", (long long)s->steps, (long long)s->overruns,
            (long long)s->step_overruns, (long long)s->os_overruns, (long long)s->os_late,
            (long long)s->os_preempted, (long long)s->catchup_steps,
            (long long)s->degrade_entries, (long long)s->degraded_steps);
    fputs("\"degrade_mode\": ", f); json_string(f, s->degrade_mode);
    fprintf(f, ", \"stopped_early\": %s, ", s->stopped_early ? "true" : "false");
    json_timing(f, "turnaround_us", &s->turn, 1);
    json_timing(f, "step_cpu_us", &s->cpu, 1);
    json_timing(f, "lateness_us", &s->late, 0);
    fputs(", \"budget_used_p50\": ", f); json_number(f, s->budget_used_p50);
    fputs(", \"realtime_factor\": ", f); json_number(f, s->realtime_factor);
    fputs(", \"slip_us\": ", f); json_number(f, s->slip_us);
    fputs(", \"wall_s\": ", f); json_number(f, s->wall_s);
    fprintf(f, ", \"status\": %d, \"message\": ", s->status); json_string(f, s->message);
    fputs(", \"sched\": ", f); json_string(f, s->sched);
    fputs(", \"outputs_at\": \"end\", \"prewarm_steps\": 0, \"prewarm_skipped\": 0, \"io\": {", f);
    if (s->udp) udp_counters(f, s->udp, ":", ", ");
    fputs("}, \"warnings\": []}\n", f);
}

/* -- result.csv (rtmbs.result.Result.save_csv) ------------------------------------------------- */
static int write_csv(const char* path, rtmbs_fmu* f, double* rows, int64_t nrow, int64_t width) {
    const rtmbs_fmu_plan* p = f->plan;
    const int64_t n = p->nq, m = p->nc, nx = rtmbs_rt_the_info.nx;
    int64_t nw = m ? rtmbs_workspace_size(n, m) : 1, r, j, i;
    double* w = (double*)calloc((size_t)nw, sizeof(double));
    char b[40];
    FILE* out;
    if (!w) return -1;
    out = fopen(path, "w");
    if (!out) {
        free(w);
        return -1;
    }
    /* (csv.writer ends its rows with \r\n) */
    fprintf(out, "%s\r\n%s\r\n", rtmbs_rt_the_info.csv_names, rtmbs_rt_the_info.csv_units);
    for (r = 0; r < nrow; r++) {
        const double* row = rows + r * width; /* t, q, qd, x, y */
        double phi = 0.0, phid = 0.0;
        if (m) { /* |Phi| and |Phi_q qdot + Phi_t| (run_realtime's result) */
            const double* q = row + 1;
            const double* qd = row + 1 + n;
            const double *ph, *pq, *pt;
            rtmbs_evaluate(&f->model, &f->data, RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ, row[0], q, qd, w,
                           nw);
            ph = w + n * n + n;
            pq = ph + m;
            pt = pq + m * n;
            for (i = 0; i < m; i++) {
                double v = pt[i];
                for (j = 0; j < n; j++) v += pq[i * n + j] * qd[j];
                phi += ph[i] * ph[i];
                phid += v * v;
            }
            phi = sqrt(phi);
            phid = sqrt(phid);
        }
        for (j = 0; j < 1 + 2 * n + nx; j++) {
            fmt_double(b, sizeof b, row[j]);
            fprintf(out, j ? ",%s" : "%s", b);
        }
        fmt_double(b, sizeof b, phi);
        fprintf(out, ",%s", b);
        fmt_double(b, sizeof b, phid);
        fprintf(out, ",%s", b);
        for (j = 1 + 2 * n + nx; j < width; j++) {
            fmt_double(b, sizeof b, row[j]);
            fprintf(out, ",%s", b);
        }
        fputs("\r\n", out);
    }
    free(w);
    return fclose(out) == 0 ? 0 : -1;
}

/* one record row: t, q, qd, x, y (the outputs in y) */
static void record(double* row, const rtmbs_fmu* f, const double* y) {
    const rtmbs_fmu_plan* p = f->plan;
    const int64_t n = p->nq, nx = rtmbs_rt_the_info.nx;
    row[0] = rtmbs_fmu_time(f);
    memcpy(row + 1, f->q, (size_t)n * sizeof(double));
    memcpy(row + 1 + n, f->qd, (size_t)n * sizeof(double));
    if (nx) memcpy(row + 1 + 2 * n, f->data.xstate + 1, (size_t)nx * sizeof(double));
    if (p->nout) memcpy(row + 1 + 2 * n + nx, y, (size_t)p->nout * sizeof(double));
}

static int outputs(rtmbs_fmu* f, double* y) {
    const rtmbs_fmu_plan* p = f->plan;
    rtmbs_status s;
    int64_t k;
    for (k = 0; k < p->nout; k++)
        if (rtmbs_fmu_get(f, p->nin + 1 + k, y + k, &s)) return -1;
    return 0;
}

/* sleep (CLOCK_MONOTONIC, TIMER_ABSTIME) until spin ns before the tick, then spin to it */
static void sleep_until(int64_t tick, int busy, int64_t spin) {
    struct timespec ts;
    int64_t wake = tick - spin;
    if (!busy && wake > now_ns(CLOCK_MONOTONIC)) {
        ts.tv_sec = (time_t)(wake / 1000000000LL);
        ts.tv_nsec = (long)(wake % 1000000000LL);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !interrupted)
            ;
    }
    while (now_ns(CLOCK_MONOTONIC) < tick && !interrupted)
        ;
}

int main(int argc, char** argv) {
    const rtmbs_fmu_plan* p = &rtmbs_fmu_the_plan;
    options o;
    summary s;
    rtmbs_fmu* f;
    rtmbs_status st;
    int64_t nsteps, h_ns, budget_ns, k, nrow, width, krow = 0, n_done = 0;
    int64_t *turn, *late, *cpu, *tmp, anchor, k_anchor, t0, tick = 0, start, end = 0, c0, c1;
    unsigned char* flags;
    double *rows, *y, *scratch;
    int degraded = 0, good = 0, publish = 1, rc;
    char msg[256], path[4096];
    struct sigaction sa;
    udp_io udp;

    if (parse_args(argc, argv, &o)) return 2;
    memset(&s, 0, sizeof s);
    s.policy = POLICIES[o.policy];
    s.h = o.h;
    s.degrade_mode = o.policy == POLICY_DEGRADE ? "skip outputs" : "";
    s.status = 1;
    nsteps = (int64_t)floor(o.duration / o.h + 0.5);
    if (o.duration > 0 && nsteps < 1) {
        fprintf(stderr, "rtmbs-rt: duration = %g s is less than one step (h = %g s)\n", o.duration,
                o.h);
        return 2;
    }
    h_ns = (int64_t)floor(o.h * 1e9 + 0.5);
    budget_ns = h_ns;

    /* -- everything allocated before the loop ------------------------------------------------ */
    f = rtmbs_fmu_new(p, &st);
    if (!f) {
        fprintf(stderr, "rtmbs-rt: the model does not bind (engine status %d)\n", (int)st);
        return 3;
    }
    nrow = nsteps / o.every + 1;
    width = 1 + 2 * p->nq + rtmbs_rt_the_info.nx + p->nout;
    turn = (int64_t*)calloc((size_t)nsteps + 1, sizeof(int64_t));
    late = (int64_t*)calloc((size_t)nsteps + 1, sizeof(int64_t));
    cpu = (int64_t*)calloc((size_t)nsteps + 1, sizeof(int64_t));
    tmp = (int64_t*)calloc((size_t)nsteps + 1, sizeof(int64_t));
    flags = (unsigned char*)calloc((size_t)nsteps + 1, 1);
    rows = o.csv ? (double*)calloc((size_t)(nrow * width), sizeof(double)) : NULL;
    y = (double*)calloc((size_t)p->nout + 1, sizeof(double));
    scratch = (double*)calloc((size_t)p->nout + 1, sizeof(double));
    if (!turn || !late || !cpu || !tmp || !flags || !y || !scratch || (o.csv && !rows)) {
        fprintf(stderr, "rtmbs-rt: out of memory for %lld steps\n", (long long)nsteps);
        return 3;
    }
    if (o.csv) { /* (the folder checked before the run, not after it) */
        if (mkdir(o.out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "rtmbs-rt: cannot make the output folder %s: %s\n", o.out,
                    strerror(errno));
            return 2;
        }
    }

    /* -- warm-up: one step on the instance, then back to the initial state ------------------ */
    rtmbs_fmu_do_step(f, rtmbs_fmu_time(f), o.h, msg, sizeof msg);
    outputs(f, y);
    rtmbs_fmu_reset(f, p->t0);
    if (outputs(f, y)) {
        fprintf(stderr, "rtmbs-rt: the outputs at the start failed\n");
        return 3;
    }
    if (rtmbs_rt_the_info.udp) { /* (the port is checked before the run) */
        if (udp_open(&udp, &o)) return 2;
        udp_initial(f);
        s.udp = &udp;
        if (outputs(f, y)) return 3;
    }
    if (o.csv) record(rows, f, y);

    /* -- scheduling ------------------------------------------------------------------------------ */
    strcpy(s.sched, o.unpaced ? "unpaced" : "default");
    if (o.priority) {
        struct sched_param sp;
        sp.sched_priority = o.priority;
        if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
            snprintf(s.sched, sizeof s.sched, "%sSCHED_FIFO %d", o.unpaced ? "unpaced, " : "",
                     o.priority);
        else
            snprintf(s.sched, sizeof s.sched, "%s (SCHED_FIFO %d refused: %s)",
                     o.unpaced ? "unpaced" : "default", o.priority, strerror(errno));
    }
    if (o.cpu >= 0) {
        cpu_set_t set;
        size_t l = strlen(s.sched);
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) == 0)
            snprintf(s.sched + l, sizeof s.sched - l, ", CPU %d", o.cpu);
        else
            snprintf(s.sched + l, sizeof s.sched - l, ", CPU %d refused: %s", o.cpu,
                     strerror(errno));
    }
    if (o.mlock) {
        size_t l = strlen(s.sched);
        if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
            snprintf(s.sched + l, sizeof s.sched - l, ", mlockall");
        else
            snprintf(s.sched + l, sizeof s.sched - l, ", mlockall refused: %s", strerror(errno));
    }
    if (o.busy_wait && !o.unpaced) strcat(s.sched, ", busy-wait");
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    strcpy(s.message, "finished");

    /* -- the loop ---------------------------------------------------------------------------- */
    t0 = now_ns(CLOCK_MONOTONIC) + (h_ns > 1000000 ? h_ns : 1000000);
    anchor = t0;
    k_anchor = 0;
    for (k = 0; k < nsteps; k++) {
        int behind, published, fl = 0;
        if (interrupted) {
            s.status = 2;
            snprintf(s.message, sizeof s.message, "interrupted after step %lld of %lld (t = %.6g s)",
                     (long long)n_done, (long long)nsteps, rtmbs_fmu_time(f));
            break;
        }
        if (!o.unpaced) {
            tick = anchor + (k - k_anchor) * h_ns;
            sleep_until(tick, o.busy_wait, o.spin_ns);
        }
        start = now_ns(CLOCK_MONOTONIC);
        c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        if (o.unpaced) tick = start;
        behind = o.policy == POLICY_CATCHUP && start - tick >= h_ns;
        published = p->nout && !behind && publish;
        if (s.udp) udp_read(&udp, f, rtmbs_fmu_time(f));
        rc = rtmbs_fmu_do_step(f, rtmbs_fmu_time(f), o.h, msg, sizeof msg);
        if (rc == 0 && published) rc = outputs(f, y);
        if (rc == 0 && s.udp && !behind && publish) udp_write(&udp, rtmbs_fmu_time(f), y);
        c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
        end = now_ns(CLOCK_MONOTONIC);
        /* -- bookkeeping (not part of the turnaround) -- */
        turn[k] = end - start;
        late[k] = start - tick;
        cpu[k] = c1 - c0;
        n_done = k + 1;
        if (rc) {
            s.status = -1;
            snprintf(s.message, sizeof s.message, "simulation diverged at t = %.6g s (step %lld of "
                     "%lld, solver '%s', h = %g s): %s", rtmbs_fmu_time(f) + o.h,
                     (long long)(k + 1), (long long)nsteps, rtmbs_rt_the_info.solver, o.h, msg);
            break;
        }
        if (o.csv && (k + 1) % o.every == 0) {
            if (!published && p->nout) outputs(f, y);
            record(rows + (++krow) * width, f, y);
        }
        if (behind) {
            s.catchup_steps++;
            fl = FLAG_CATCHUP;
        } else if (end > tick + h_ns) {
            s.overruns++;
            fl = FLAG_OVERRUN;
            if (o.policy == POLICY_STOP) {
                s.stopped_early = 1;
                flags[k] = (unsigned char)fl;
                snprintf(s.message, sizeof s.message, "stopped at the first overrun: step %lld of "
                         "%lld finished %.0f " US " after its deadline", (long long)(k + 1),
                         (long long)nsteps, (double)(end - tick - h_ns) * 1e-3);
                break;
            }
            if (!o.unpaced && (o.policy == POLICY_WARN || o.policy == POLICY_DEGRADE)) {
                s.slip_us += (double)(end - (tick + h_ns)) * 1e-3;
                anchor = end;
                k_anchor = k + 1;
            }
        }
        if (degraded) {
            fl |= FLAG_DEGRADED;
            s.degraded_steps++;
        }
        flags[k] = (unsigned char)fl;
        if (o.policy == POLICY_DEGRADE) {
            if (fl & FLAG_OVERRUN) {
                good = 0;
                if (!degraded) {
                    degraded = 1;
                    s.degrade_entries++;
                    publish = 0;
                }
            } else if (degraded) {
                good = end - start <= budget_ns ? good + 1 : 0;
                if (good >= o.recover_after) {
                    degraded = 0;
                    good = 0;
                    publish = 1;
                }
            }
        }
    }
    if (o.mlock) munlockall();

    /* -- the summary --------------------------------------------------------------------------- */
    s.steps = n_done;
    s.wall_s = n_done ? (double)((end > tick + h_ns ? end : tick + h_ns) - t0) * 1e-9 : 0.0;
    if (o.unpaced) { /* (no ticks: the wall time is the steps' own) */
        double w = 0.0;
        for (k = 0; k < n_done; k++) w += (double)turn[k];
        s.wall_s = w * 1e-9;
    }
    s.realtime_factor = s.wall_s > 0 ? (double)n_done * o.h / s.wall_s : NAN;
    for (k = 0; k < n_done; k++) {
        if (!(flags[k] & FLAG_OVERRUN)) continue;
        if (cpu[k] > h_ns) {
            s.step_overruns++;
        } else {
            s.os_overruns++;
            if (late[k] + cpu[k] > h_ns) s.os_late++;
            else s.os_preempted++;
        }
    }
    s.turn = timing_summary(turn, n_done, tmp);
    s.cpu = timing_summary(cpu, n_done, tmp);
    s.late = timing_summary(late, n_done, tmp);
    s.budget_used_p50 = s.turn.p50 * 1e-6 / o.h;
    if (s.udp && s.status == 1 && udp.rx_packets && !udp.rx_accepted &&
        rtmbs_rt_the_info.udp_nin) { /* (UdpIO.problem) */
        size_t l;
        snprintf(s.message, sizeof s.message, "finished with a warning: all %lld input packets "
                 "were refused (%lld late, %lld malformed, %lld out of order); inputs kept their "
                 "initial values", (long long)udp.rx_packets, (long long)udp.rx_late,
                 (long long)udp.rx_malformed, (long long)udp.rx_out_of_order);
        l = strlen(s.message);
        if (udp.rx_late)
            snprintf(s.message + l, sizeof s.message - l, "; late means stamped before t - "
                     "max_age (max_age = %g s): stamp packets with the simulated time, not the "
                     "sender's clock", rtmbs_rt_the_info.max_age);
        s.status = 0;
    }
    if (o.json) write_json(stdout, &s);
    else write_markdown(stdout, &s);
    if (o.csv) {
        FILE* g;
        snprintf(path, sizeof path, "%s/summary.json", o.out);
        if ((g = fopen(path, "w"))) { write_json(g, &s); fclose(g); }
        snprintf(path, sizeof path, "%s/summary.md", o.out);
        if ((g = fopen(path, "w"))) { write_markdown(g, &s); fclose(g); }
        snprintf(path, sizeof path, "%s/result.csv", o.out);
        /* (on divergence the last, bad state is not kept: the rows recorded are the good ones) */
        if (write_csv(path, f, rows, krow + 1, width)) {
            fprintf(stderr, "rtmbs-rt: cannot write %s: %s\n", path, strerror(errno));
            return 3;
        }
        if (!o.json) printf("\nwritten to %s\n", o.out);
    }
    if (s.status == 0) fprintf(stderr, "rtmbs-rt: warning: %s\n", s.message);
    if (s.status == 2) fprintf(stderr, "rtmbs-rt: %s; results kept up to there\n", s.message);
    if (s.status < 0) fprintf(stderr, "rtmbs-rt: error: %s; results kept up to there\n", s.message);
    free(turn); free(late); free(cpu); free(tmp); free(flags); free(rows); free(y); free(scratch);
    rtmbs_fmu_free(f);
    if (s.udp) {
        close(udp.sock);
        free(udp.rx); free(udp.tx); free(udp.latest);
    }
    return s.status == 2 ? 130 : s.status < 0 ? 3 : s.status == 0 ? 1 : 0;
}
