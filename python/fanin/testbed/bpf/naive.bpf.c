// The naive proxy's hooks (proxy paper Fig. 4): TC ingress on the proxy's interface hands every
// protocol packet to a user-space relay (over the veth pair rl0 -> rl1, read with AF_PACKET), and
// TC ingress on rl0 takes what the relay sends back and forwards it by FIB lookup. The relay's
// latency is timed from the first hook to the second, one ringbuf sample per packet and path.
#include "measure.h"

enum { CFG_RELAY_IFINDEX = 0, CFG_OUT_IFINDEX = 1 };

struct key {  // a packet, across the relay: its kind, flow, sequence number and attempt
    __u32 kind, flow, seq, attempt;
};

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 65536);
    __type(key, struct key);
    __type(value, __u64);
} entered SEC(".maps");

static __always_inline struct key key_of(struct packet_view *v) {
    struct key k = {v->hdr->kind, bpf_ntohs(v->hdr->flow), bpf_ntohl(v->hdr->seq), bpf_ntohl(v->hdr->attempt)};
    return k;
}

SEC("tc")
int to_relay(struct __sk_buff *skb) {
    struct packet_view v;
    if (!view(skb, &v)) return TC_ACT_UNSPEC;
    struct key k = key_of(&v);
    __u64 now = bpf_ktime_get_ns();
    bpf_map_update_elem(&entered, &k, &now, BPF_ANY);
    return bpf_redirect(setting(CFG_RELAY_IFINDEX), 0);
}

SEC("tc")
int from_relay(struct __sk_buff *skb) {
    struct packet_view v;
    if (!view(skb, &v)) return TC_ACT_SHOT;  // only the relay's packets come this way
    struct key k = key_of(&v);
    __u64 *t = bpf_map_lookup_elem(&entered, &k);
    __u32 path = path_of(&v);
    if (t) {
        record(bpf_ktime_get_ns() - *t, path);
        bpf_map_delete_elem(&entered, &k);
    }
    count(path);
    return bpf_redirect_neigh(setting(CFG_OUT_IFINDEX), NULL, 0, 0);
}
