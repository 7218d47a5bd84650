// Millisampler (IMC '24 §2): per-bin host counters from TC ingress and egress.
//
// Bin k covers [t0 + k*bin_ns, t0 + (k+1)*bin_ns) of bpf_ktime_get_ns(); a packet past the last
// bin is not counted (late[0] says how many were). Counted on the same basis as fanin's capture
// reader (fanin.bursts.capture), so the two agree packet for packet:
//   - bytes are frame bytes: 14 B of Ethernet header + the IP packet's length (IPv4 and IPv6;
//     other frames, ARP for one, are not counted);
//   - a retransmitted segment is a TCP segment with payload whose first sequence number lies
//     below the highest one already seen on its directional 5-tuple (modulo 2^32). This sees
//     both directions, unlike the tcp_retransmit_skb tracepoint, which only sees this host's
//     own retransmissions (and in every namespace at once);
//   - ECN-CE bytes: ingress frames whose IP ECN field is 11;
//   - connections: distinct 5-tuples with at least one ingress packet in the bin.
#include "common.h"

enum { CFG_T0_NS = 0, CFG_BIN_NS = 1 };

struct bin {
    __u64 ingress_bytes, egress_bytes, in_rxmit_bytes, out_rxmit_bytes, in_ce_bytes, connections;
};

struct flow {
    __u8 src[16], dst[16];
    __u16 sport, dport;
    __u8 proto, pad[3];
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1000);  // the loader sizes it to the run (--max-entries bins:N)
    __type(key, __u32);
    __type(value, struct bin);
} bins SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} late SEC(".maps");

struct {  // highest sequence number + 1 seen per directional 5-tuple
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 65536);
    __type(key, struct flow);
    __type(value, __u32);
} highest SEC(".maps");

struct {  // the last bin each 5-tuple was counted active in
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 65536);
    __type(key, struct flow);
    __type(value, __u64);
} active SEC(".maps");

struct packet {
    struct flow flow;
    __u32 frame_bytes, seq, payload_bytes;
    __u8 ecn, tcp;
};

static __always_inline int parse_tcp(struct __sk_buff *skb, __u32 off, __u32 l4_bytes, struct packet *p) {
    struct tcphdr *th = AT(skb, off, sizeof(*th));
    if (!th) return 0;
    p->flow.sport = th->source;
    p->flow.dport = th->dest;
    p->tcp = 1;
    p->seq = bpf_ntohl(th->seq);
    __u32 hdr = th->doff * 4;
    p->payload_bytes = l4_bytes > hdr ? l4_bytes - hdr : 0;
    return 1;
}

static __always_inline int parse_udp(struct __sk_buff *skb, __u32 off, struct packet *p) {
    struct udphdr *uh = AT(skb, off, sizeof(*uh));
    if (!uh) return 0;
    p->flow.sport = uh->source;
    p->flow.dport = uh->dest;
    return 1;
}

static __always_inline int parse(struct __sk_buff *skb, struct packet *p) {
    struct ethhdr *eth = AT(skb, 0, sizeof(*eth));
    if (!eth) return 0;
    __u32 off = sizeof(*eth), l4_bytes;
    if (eth->h_proto == bpf_htons(ETH_P_IP)) {
        struct iphdr *ip = AT(skb, off, sizeof(*ip));
        if (!ip) return 0;
        __u32 len = bpf_ntohs(ip->tot_len), hl = ip->ihl * 4;
        p->frame_bytes = ETH_HLEN + (len ? len : skb->len - ETH_HLEN);  // 0 under TSO: what is there
        p->ecn = ip->tos & 3;
        p->flow.proto = ip->protocol;
        __builtin_memcpy(p->flow.src, &ip->saddr, 4);
        __builtin_memcpy(p->flow.dst, &ip->daddr, 4);
        if (ip->frag_off & bpf_htons(0x1fff)) return 1;  // a later fragment: no ports
        off += hl;
        l4_bytes = len > hl ? len - hl : 0;
    } else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
        struct ipv6hdr *ip6 = AT(skb, off, sizeof(*ip6));
        if (!ip6) return 0;
        l4_bytes = bpf_ntohs(ip6->payload_len);
        p->frame_bytes = ETH_HLEN + sizeof(*ip6) + l4_bytes;
        p->ecn = (bpf_ntohl(*(__be32 *)ip6) >> 20) & 3;
        p->flow.proto = ip6->nexthdr;  // ports only without extension headers
        __builtin_memcpy(p->flow.src, &ip6->saddr, 16);
        __builtin_memcpy(p->flow.dst, &ip6->daddr, 16);
        off += sizeof(*ip6);
    } else {
        return 0;
    }
    if (p->flow.proto == IPPROTO_TCP) return parse_tcp(skb, off, l4_bytes, p) || 1;
    if (p->flow.proto == IPPROTO_UDP) return parse_udp(skb, off, p) || 1;
    return 1;
}

// As fanin.bursts.capture._Retransmissions: is the segment below the highest seen, and raise it.
static __always_inline int retransmitted(struct packet *p) {
    if (!p->tcp || !p->payload_bytes) return 0;
    __u32 end = p->seq + p->payload_bytes;
    __u32 *hi = bpf_map_lookup_elem(&highest, &p->flow);
    if (!hi) {
        bpf_map_update_elem(&highest, &p->flow, &end, BPF_ANY);
        return 0;
    }
    __u32 before = *hi;
    if ((__s32)(end - before) > 0) *hi = end;
    return (__s32)(before - p->seq) > 0;
}

// Counts the 5-tuple once in bin k: the first packet of the bin swaps its stamp to k.
static __always_inline void count_active(struct packet *p, __u64 k, struct bin *b) {
    __u64 stamp = k + 1;  // 0 = never
    __u64 *last = bpf_map_lookup_elem(&active, &p->flow);
    if (!last) {
        if (bpf_map_update_elem(&active, &p->flow, &stamp, BPF_NOEXIST) == 0) {
            __sync_fetch_and_add(&b->connections, 1);
            return;
        }
        last = bpf_map_lookup_elem(&active, &p->flow);
        if (!last) return;
    }
    __u64 seen = *last;
    if (seen != stamp && __sync_val_compare_and_swap(last, seen, stamp) == seen)
        __sync_fetch_and_add(&b->connections, 1);
}

static __always_inline struct bin *current_bin(__u64 *k) {
    __u64 t0 = setting(CFG_T0_NS), bin_ns = setting(CFG_BIN_NS), now = bpf_ktime_get_ns();
    if (!bin_ns || now < t0) return NULL;
    *k = (now - t0) / bin_ns;
    __u32 key = *k;
    struct bin *b = *k < 0xffffffffull ? bpf_map_lookup_elem(&bins, &key) : NULL;
    if (!b) {
        __u32 zero = 0;
        __u64 *n = bpf_map_lookup_elem(&late, &zero);
        if (n) __sync_fetch_and_add(n, 1);
    }
    return b;
}

SEC("tc")
int sample_ingress(struct __sk_buff *skb) {
    struct packet p = {};
    __u64 k;
    if (!parse(skb, &p)) return TC_ACT_UNSPEC;
    struct bin *b = current_bin(&k);
    if (!b) return TC_ACT_UNSPEC;
    __sync_fetch_and_add(&b->ingress_bytes, p.frame_bytes);
    if (retransmitted(&p)) __sync_fetch_and_add(&b->in_rxmit_bytes, p.frame_bytes);
    if (p.ecn == 3) __sync_fetch_and_add(&b->in_ce_bytes, p.frame_bytes);
    count_active(&p, k, b);
    return TC_ACT_UNSPEC;
}

SEC("tc")
int sample_egress(struct __sk_buff *skb) {
    struct packet p = {};
    __u64 k;
    if (!parse(skb, &p)) return TC_ACT_UNSPEC;
    struct bin *b = current_bin(&k);
    if (!b) return TC_ACT_UNSPEC;
    __sync_fetch_and_add(&b->egress_bytes, p.frame_bytes);
    if (retransmitted(&p)) __sync_fetch_and_add(&b->out_rxmit_bytes, p.frame_bytes);
    return TC_ACT_UNSPEC;
}
