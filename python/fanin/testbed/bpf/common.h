// Shared by the testbed's TC programs: headers, packet access, the loader's config map.
#pragma once
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

// u64 settings the loader writes before attaching (--config INDEX=VALUE); each program names its slots.
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 8);
    __type(key, __u32);
    __type(value, __u64);
} config SEC(".maps");

static __always_inline __u64 setting(__u32 slot) {
    __u64 *v = bpf_map_lookup_elem(&config, &slot);
    return v ? *v : 0;
}

// A pointer to LEN bytes at OFF in the packet, or NULL when the packet is shorter.
#define AT(skb, off, len) \
    ((void *)(long)(skb)->data + (off) + (len) <= (void *)(long)(skb)->data_end ? (void *)(long)(skb)->data + (off) : NULL)
