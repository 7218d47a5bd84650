// The testbed's minimal reliable protocol over UDP (python/fanin/testbed/_proto.py is its twin).
//
// Every packet carries one 16 B header after the UDP header; a DATA packet then carries its payload.
// The receiver listens on PROTO_PORT; it ACKs every DATA packet and NACKs every header-only one.
// A trimmed packet is a DATA packet cut to its headers (Ethernet, IPv4, UDP, this header): the
// spec's "header-only" test is that its IP total length equals the length of those headers.
#pragma once
#include "common.h"

#define PROTO_PORT 7000
enum { KIND_DATA = 1, KIND_ACK = 2, KIND_NACK = 3 };
enum { FLAG_TRIMMED = 1 };

struct proto {
    __u8 kind, flags;
    __be16 flow;
    __be32 seq, attempt, count;
};

#define HEADERS_IP_BYTES (sizeof(struct iphdr) + sizeof(struct udphdr) + sizeof(struct proto))
#define HEADERS_FRAME_BYTES (ETH_HLEN + HEADERS_IP_BYTES)

// Paths a proxy measures, as the ringbuf records and the counters name them.
enum { PATH_DATA = 0, PATH_ACK = 1, PATH_NACK = 2, PATH_OTHER = 3 };

struct packet_view {
    struct ethhdr *eth;
    struct iphdr *ip;
    struct udphdr *udp;
    struct proto *hdr;
};

// The protocol's packet (IPv4 without options, UDP to or from PROTO_PORT), or 0.
static __always_inline int view(struct __sk_buff *skb, struct packet_view *v) {
    v->eth = AT(skb, 0, sizeof(*v->eth));
    if (!v->eth || v->eth->h_proto != bpf_htons(ETH_P_IP)) return 0;
    v->ip = AT(skb, ETH_HLEN, sizeof(*v->ip));
    if (!v->ip || v->ip->ihl != 5 || v->ip->protocol != IPPROTO_UDP) return 0;
    v->udp = AT(skb, ETH_HLEN + sizeof(struct iphdr), sizeof(*v->udp));
    if (!v->udp || (v->udp->dest != bpf_htons(PROTO_PORT) && v->udp->source != bpf_htons(PROTO_PORT))) return 0;
    v->hdr = AT(skb, ETH_HLEN + sizeof(struct iphdr) + sizeof(struct udphdr), sizeof(*v->hdr));
    return v->hdr != NULL;
}

static __always_inline int path_of(struct packet_view *v) {
    return v->hdr->kind == KIND_DATA ? PATH_DATA : v->hdr->kind == KIND_ACK ? PATH_ACK : PATH_OTHER;
}
