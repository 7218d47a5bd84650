// The streamlined proxy (proxy paper §3, Fig. 5), at TC ingress of the proxy's interface.
//
// A header-only DATA packet from a sender (IP total length = the headers' length, the spec's
// assumption) becomes a NACK to that sender, sent back out the same interface; every other
// protocol packet (DATA to the receiver, ACKs back to the sender) is forwarded by FIB lookup and
// neighbour resolution (bpf_redirect_neigh). Lower bound of the proxy's latency: the program's own
// run time, bpf_ktime_get_ns() at entry and at exit, one ringbuf sample per packet and path.
#include "measure.h"

// Turns the header in place into a NACK: addresses, ports and MACs swapped (the IP checksum is a
// sum, so a swap leaves it valid), kind NACK, no UDP checksum.
static __always_inline void to_nack(struct packet_view *v) {
    __u8 mac[ETH_ALEN];
    __builtin_memcpy(mac, v->eth->h_source, ETH_ALEN);
    __builtin_memcpy(v->eth->h_source, v->eth->h_dest, ETH_ALEN);
    __builtin_memcpy(v->eth->h_dest, mac, ETH_ALEN);
    __be32 addr = v->ip->saddr;
    v->ip->saddr = v->ip->daddr;
    v->ip->daddr = addr;
    __be16 port = v->udp->source;
    v->udp->source = v->udp->dest;
    v->udp->dest = port;
    v->udp->check = 0;
    v->hdr->kind = KIND_NACK;
}

SEC("tc")
int streamlined_ingress(struct __sk_buff *skb) {
    __u64 start = bpf_ktime_get_ns();
    struct packet_view v;
    if (!view(skb, &v)) return TC_ACT_UNSPEC;
    __u32 path = path_of(&v);
    long verdict;
    if (path == PATH_DATA && bpf_ntohs(v.ip->tot_len) == HEADERS_IP_BYTES) {
        to_nack(&v);
        path = PATH_NACK;
        verdict = bpf_redirect(skb->ifindex, 0);
    } else {
        verdict = bpf_redirect_neigh(skb->ifindex, NULL, 0, 0);
    }
    __u64 end = bpf_ktime_get_ns();
    record(end - start, path);
    count(path);
    return verdict;
}
