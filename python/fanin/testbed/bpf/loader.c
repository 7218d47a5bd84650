// fanin-bpf: loads one BPF object, attaches its TC programs with tcx links, feeds its ringbuf to
// a file and dumps its array maps at exit. One small generic loader for every testbed program.
//
//   fanin-bpf OBJ [--attach PROG:IFACE:ingress|egress]... [--max-entries MAP:N]...
//                 [--config INDEX=VALUE|@IFACE|now]... [--ringbuf MAP:FILE] [--dump MAP:FILE]...
//                 [--duration SECONDS]
//   fanin-bpf --query IFACE       (how many tcx programs IFACE has: "ingress N egress M")
//
// Prints "ready MONO_NS REAL_NS" (the two clocks read back to back, so bpf_ktime_get_ns() times
// convert to the capture's CLOCK_REALTIME) once everything is attached, runs until SIGTERM, SIGINT,
// EOF on stdin or the duration, then drains the ringbuf, dumps the maps and prints "done".
// tcx links belong to this process: when it exits, however it dies, the kernel detaches the
// programs, so a killed run leaves no filter on any interface (kernel 6.6 or later).
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ITEMS 16
#ifndef BPF_TCX_INGRESS
#define BPF_TCX_INGRESS 46
#define BPF_TCX_EGRESS 47
#endif

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static void die(const char *what, const char *arg, int err) {
    fprintf(stderr, "fanin-bpf: %s %s: %s\n", what, arg ? arg : "", strerror(err < 0 ? -err : err));
    exit(1);
}

// Splits "A:B[:C]" in place into at most n parts; returns how many.
static int split(char *s, char **parts, int n) {
    int k = 0;
    parts[k++] = s;
    for (char *p = s; *p && k < n; p++)
        if (*p == ':') { *p = 0; parts[k++] = p + 1; }
    return k;
}

static unsigned long long now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned ifindex_of(const char *name) {
    unsigned idx = if_nametoindex(name);
    if (!idx) die("no interface", name, errno);
    return idx;
}

static int ringbuf_record(void *ctx, void *data, size_t size) {
    return fwrite(data, 1, size, (FILE *)ctx) == size ? 0 : -EIO;
}

// Every value of an array map, in key order, as raw bytes.
static void dump_array(struct bpf_map *map, const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot write", path, errno);
    size_t size = bpf_map__value_size(map);
    char *value = malloc(size);
    for (unsigned key = 0; key < bpf_map__max_entries(map); key++) {
        if (bpf_map_lookup_elem(bpf_map__fd(map), &key, value)) die("lookup in", bpf_map__name(map), errno);
        fwrite(value, 1, size, f);
    }
    free(value);
    if (fclose(f)) die("cannot write", path, errno);
}

static struct bpf_map *map_named(struct bpf_object *obj, const char *name) {
    struct bpf_map *m = bpf_object__find_map_by_name(obj, name);
    if (!m) die("no map named", name, ENOENT);
    return m;
}

// "--query IFACE": how many programs are attached to IFACE by tcx, "ingress N egress M".
static int query(const char *iface) {
    unsigned ifindex = ifindex_of(iface), count[2] = {0, 0};
    int types[2] = {BPF_TCX_INGRESS, BPF_TCX_EGRESS};
    for (int i = 0; i < 2; i++) {
        __u32 ids[64], n = 64, flags;
        if (bpf_prog_query(ifindex, types[i], 0, &flags, ids, &n)) die("cannot query", iface, errno);
        count[i] = n;
    }
    printf("ingress %u egress %u\n", count[0], count[1]);
    return 0;
}

int main(int argc, char **argv) {
    char *attach[MAX_ITEMS], *entries[MAX_ITEMS], *config[MAX_ITEMS], *dumps[MAX_ITEMS], *ring = NULL;
    int n_attach = 0, n_entries = 0, n_config = 0, n_dumps = 0;
    double duration = 0;
    if (argc < 2) { fprintf(stderr, "usage: fanin-bpf OBJ [options] | --query IFACE (see loader.c)\n"); return 2; }
    if (argc == 3 && !strcmp(argv[1], "--query")) return query(argv[2]);
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) die("missing value after", o, EINVAL);
        i++;
        if (!strcmp(o, "--attach") && n_attach < MAX_ITEMS) attach[n_attach++] = v;
        else if (!strcmp(o, "--max-entries") && n_entries < MAX_ITEMS) entries[n_entries++] = v;
        else if (!strcmp(o, "--config") && n_config < MAX_ITEMS) config[n_config++] = v;
        else if (!strcmp(o, "--dump") && n_dumps < MAX_ITEMS) dumps[n_dumps++] = v;
        else if (!strcmp(o, "--ringbuf")) ring = v;
        else if (!strcmp(o, "--duration")) duration = atof(v);
        else die("unknown option (or too many)", o, EINVAL);
    }
    libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
    struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
    if (!obj) die("cannot open", argv[1], errno);
    for (int i = 0; i < n_entries; i++) {
        char *p[2];
        if (split(entries[i], p, 2) != 2) die("--max-entries wants MAP:N, got", entries[i], EINVAL);
        int err = bpf_map__set_max_entries(map_named(obj, p[0]), (unsigned)strtoul(p[1], NULL, 10));
        if (err) die("cannot size", p[0], err);
    }
    int err = bpf_object__load(obj);
    if (err) die("cannot load", argv[1], err);
    // the run's time origin, "now" in --config: the same instant "ready" reports
    unsigned long long mono = now_ns(CLOCK_MONOTONIC), real = now_ns(CLOCK_REALTIME);
    for (int i = 0; i < n_config; i++) {  // config[INDEX] = VALUE, or an interface's index
        char *eq = strchr(config[i], '=');
        if (!eq) die("--config wants INDEX=VALUE, got", config[i], EINVAL);
        *eq = 0;
        unsigned key = (unsigned)strtoul(config[i], NULL, 10);
        unsigned long long value = eq[1] == '@'           ? ifindex_of(eq + 2)
                                   : !strcmp(eq + 1, "now") ? mono
                                                            : strtoull(eq + 1, NULL, 10);
        if (bpf_map_update_elem(bpf_map__fd(map_named(obj, "config")), &key, &value, BPF_ANY))
            die("cannot set config", config[i], errno);
    }
    for (int i = 0; i < n_attach; i++) {
        char *p[3];
        if (split(attach[i], p, 3) != 3) die("--attach wants PROG:IFACE:ingress|egress, got", attach[i], EINVAL);
        struct bpf_program *prog = bpf_object__find_program_by_name(obj, p[0]);
        if (!prog) die("no program named", p[0], ENOENT);
        int type = !strcmp(p[2], "ingress") ? BPF_TCX_INGRESS : !strcmp(p[2], "egress") ? BPF_TCX_EGRESS : -1;
        if (type < 0) die("direction must be ingress or egress, got", p[2], EINVAL);
        if (bpf_link_create(bpf_program__fd(prog), ifindex_of(p[1]), type, NULL) < 0)
            die("cannot attach (tcx needs Linux 6.6+)", p[0], errno);
    }
    FILE *ring_file = NULL;
    struct ring_buffer *rb = NULL;
    if (ring) {
        char *p[2];
        if (split(ring, p, 2) != 2) die("--ringbuf wants MAP:FILE, got", ring, EINVAL);
        ring_file = fopen(p[1], "wb");
        if (!ring_file) die("cannot write", p[1], errno);
        rb = ring_buffer__new(bpf_map__fd(map_named(obj, p[0])), ringbuf_record, ring_file, NULL);
        if (!rb) die("cannot read ringbuf", p[0], errno);
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("ready %llu %llu\n", mono, real);
    fflush(stdout);
    struct pollfd in = {.fd = 0, .events = POLLIN};
    while (!stop && (duration <= 0 || (now_ns(CLOCK_MONOTONIC) - mono) < duration * 1e9)) {
        if (rb) ring_buffer__poll(rb, 10);
        if (poll(&in, 1, rb ? 0 : 10) > 0) {  // EOF on stdin: the parent is done
            char buf[64];
            if (read(0, buf, sizeof buf) <= 0) break;
        }
    }
    if (rb) {
        ring_buffer__consume(rb);
        if (fclose(ring_file)) die("cannot write ringbuf file", NULL, errno);
    }
    for (int i = 0; i < n_dumps; i++) {
        char *p[2];
        if (split(dumps[i], p, 2) != 2) die("--dump wants MAP:FILE, got", dumps[i], EINVAL);
        dump_array(map_named(obj, p[0]), p[1]);
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}
