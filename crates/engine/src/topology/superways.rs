//! Superways (Rezaei & Vamanan, WWW '21): on a base topology, each incast server gets extra
//! links straight to spine switches (Jellyfish: inner switches), never to leaves. Nothing
//! else changes; the server keeps its leaf link.

use super::{connect, LinkParams, Topology};
use crate::ids::HostId;

/// One incast server and the spine each of its extra links goes to (a spine listed twice
/// gets a LAG of two links).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShortcutServer {
    pub host: HostId,
    pub spines: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuperwaysParams {
    pub servers: Vec<ShortcutServer>,
    /// The extra links' rate and delay (the paper's Figs 6-9: 40 Gb/s, the fabric's).
    pub link: LinkParams,
}

/// Adds the extra links to the switches named `spine{j}` (every base builder names its
/// spines, or inner switches, so); the scenario layer has checked each `j`.
pub fn add_superways(t: &mut Topology, p: &SuperwaysParams) {
    for s in &p.servers {
        let host = t.hosts[s.host.idx()];
        for j in &s.spines {
            let name = format!("spine{j}");
            let spine = t.nodes.iter().position(|n| n.name == name).expect("a spine of the base topology");
            connect(t, host, crate::ids::NodeId::from(spine), p.link);
        }
    }
}

/// Extra links in all (for a summary).
pub fn extra_links(p: &SuperwaysParams) -> usize {
    p.servers.iter().map(|s| s.spines.len()).sum()
}
