//! The incast star and the two-switch dumbbell of the IMC'24 paper.

use super::{add_hosts, connect, host_ids, LinkParams, NodeKind, Topology};
use crate::ids::PortId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumbbellParams {
    pub senders: u32,
    pub receivers: u32,
    pub sender_link: LinkParams,
    pub receiver_link: LinkParams,
    /// `None`: a star (one switch `sw0`). `Some`: receivers on `tor_a`, senders on `tor_b`,
    /// joined by one link with these parameters.
    pub core_link: Option<LinkParams>,
}

/// Hosts `s0..` (senders) then `r0..` (receivers); groups `senders`, `receivers`, `all`;
/// named ports `bottleneck` (switch -> `r0`) and, for a dumbbell, `core` (`tor_b -> tor_a`).
pub fn dumbbell(p: &DumbbellParams) -> Topology {
    debug_assert!(p.senders >= 1 && p.receivers >= 1, "dumbbell needs hosts on both sides");
    let mut t = Topology::default();
    let senders = add_hosts(&mut t, "s", p.senders);
    let receivers = add_hosts(&mut t, "r", p.receivers);
    let (rx_switch, tx_switch) = match p.core_link {
        None => {
            let sw = t.add_node(NodeKind::Switch, "sw0");
            (sw, sw)
        }
        Some(_) => {
            let a = t.add_node(NodeKind::Switch, "tor_a");
            let b = t.add_node(NodeKind::Switch, "tor_b");
            (a, b)
        }
    };
    for &s in &senders {
        connect(&mut t, s, tx_switch, p.sender_link);
    }
    let mut bottleneck = None;
    for &r in &receivers {
        // The host is the `a` end, so the switch's egress toward it is the odd port.
        let up = connect(&mut t, r, rx_switch, p.receiver_link);
        bottleneck.get_or_insert(PortId(up.0 + 1));
    }
    if let Some(l) = p.core_link {
        let core = connect(&mut t, tx_switch, rx_switch, l);
        t.named_ports.push(("core".into(), core));
    }
    t.named_ports.insert(0, ("bottleneck".into(), bottleneck.expect("at least one receiver")));
    let (s_ids, r_ids) = (host_ids(&t, &senders), host_ids(&t, &receivers));
    let all = s_ids.iter().chain(&r_ids).copied().collect();
    t.groups = vec![("senders".into(), s_ids), ("receivers".into(), r_ids), ("all".into(), all)];
    t
}
