// What a proxy measures: one ringbuf sample per packet (nanoseconds, path) and packets per path.
#pragma once
#include "proto.h"

// One latency sample: nanoseconds and the path it was taken on.
struct sample {
    __u64 ns;
    __u32 path, pad;
};

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 1 << 24);  // 16 MB: 1 M samples between two reads of the loader
} samples SEC(".maps");

struct {  // packets per path
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 4);
    __type(key, __u32);
    __type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 path) {
    __u64 *n = bpf_map_lookup_elem(&counts, &path);
    if (n) __sync_fetch_and_add(n, 1);
}

static __always_inline void record(__u64 ns, __u32 path) {
    struct sample *s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
    if (!s) return;
    s->ns = ns;
    s->path = path;
    s->pad = 0;
    bpf_ringbuf_submit(s, 0);
}
