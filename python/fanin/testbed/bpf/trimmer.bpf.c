// The trimmer at the bottleneck (the switch's port toward the proxy, TC egress, ahead of its tbf).
//
// "Overflow" is decided on a model of the port's buffer kept here, because the tbf's backlog is
// not visible to a TC program: a virtual FIFO of `buffer` bytes drained at the tbf's rate.
// Every frame entering the port adds its length (skb->len, as tbf counts it); between two frames
// the backlog falls by rate x elapsed time. A DATA frame that would take the backlog past the
// buffer is cut to its headers (Ethernet + IPv4 + UDP + protocol header, 58 B), marked trimmed
// and let through, as a trimming switch puts headers in its high-priority queue; the header's
// bytes enter the model. The tbf behind it is given a limit far above the buffer, so the real
// queue never drops (its drop counter, recorded by the run, must stay 0).
#include "proto.h"

enum { CFG_RATE_BPS = 0, CFG_BUFFER_BYTES = 1 };

struct port {
    struct bpf_spin_lock lock;
    __u64 backlog_bytes, last_ns;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct port);
} port SEC(".maps");

enum { TRIMMED = 0, PASSED = 1, PEAK_BACKLOG = 2 };
struct {  // trimmed DATA frames, frames passed whole, the model's peak backlog (bytes)
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 3);
    __type(key, __u32);
    __type(value, __u64);
} trims SEC(".maps");

static __always_inline void add(__u32 slot, __u64 v) {
    __u64 *n = bpf_map_lookup_elem(&trims, &slot);
    if (n) __sync_fetch_and_add(n, v);
}

// Whether the frame overflows the modelled buffer; its (possibly trimmed) length joins the backlog.
static __always_inline int overflows(__u32 len, int trimmable) {
    __u32 zero = 0;
    struct port *q = bpf_map_lookup_elem(&port, &zero);
    if (!q) return 0;
    __u64 rate_bytes_per_s = setting(CFG_RATE_BPS) / 8, buffer = setting(CFG_BUFFER_BYTES), now = bpf_ktime_get_ns();
    int trim;
    bpf_spin_lock(&q->lock);
    __u64 elapsed = now > q->last_ns ? now - q->last_ns : 0;
    if (elapsed > 1000000000ull) elapsed = 1000000000ull;  // keeps the product below 2^64
    __u64 drained = elapsed * rate_bytes_per_s / 1000000000ull;
    q->backlog_bytes = q->backlog_bytes > drained ? q->backlog_bytes - drained : 0;
    q->last_ns = now;
    trim = trimmable && q->backlog_bytes + len > buffer;
    q->backlog_bytes += trim ? HEADERS_FRAME_BYTES : len;
    __u64 backlog = q->backlog_bytes;
    bpf_spin_unlock(&q->lock);
    __u32 peak = PEAK_BACKLOG;
    __u64 *p = bpf_map_lookup_elem(&trims, &peak);
    if (p && backlog > *p) *p = backlog;  // a racy maximum: a report, not a decision
    return trim;
}

// Cuts the frame to its headers and says so in the IP and UDP lengths and the protocol's flags.
static __always_inline int trim(struct __sk_buff *skb) {
    if (bpf_skb_change_tail(skb, HEADERS_FRAME_BYTES, 0)) return 0;
    struct packet_view v;
    if (!view(skb, &v)) return 0;
    __be16 old_len = v.ip->tot_len, new_len = bpf_htons(HEADERS_IP_BYTES);
    v.ip->tot_len = new_len;
    v.udp->len = bpf_htons(sizeof(struct udphdr) + sizeof(struct proto));
    v.udp->check = 0;  // no UDP checksum (IPv4 allows it): the payload it covered is gone
    v.hdr->flags |= FLAG_TRIMMED;
    bpf_l3_csum_replace(skb, ETH_HLEN + __builtin_offsetof(struct iphdr, check), old_len, new_len, sizeof(new_len));
    return 1;
}

SEC("tc")
int trim_egress(struct __sk_buff *skb) {
    struct packet_view v;
    int data = view(skb, &v) && v.hdr->kind == KIND_DATA && skb->len > HEADERS_FRAME_BYTES;
    if (overflows(skb->len, data) && trim(skb)) {
        add(TRIMMED, 1);
    } else {
        add(PASSED, 1);
    }
    return TC_ACT_UNSPEC;
}
