//! Superways (Rezaei & Vamanan, WWW '21): on a base topology, each incast server gets extra
//! links straight to spine switches (Jellyfish: inner switches), never to leaves. Nothing
//! else changes; the server keeps its leaf link. The paper's Fig. 12 compares this with the
//! same capacity wired to other racks' leaves instead (`ShortcutTarget::Leaves`).

use super::{connect, LinkParams, Topology};
use crate::ids::HostId;

/// One incast server and the switch each of its extra links goes to: `spine{j}` (or
/// `leaf{j}` when the links go to leaves) for each `j` (a switch listed twice gets a LAG).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShortcutServer {
    pub host: HostId,
    pub switches: Vec<u32>,
}

/// Which switches the extra links reach.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShortcutTarget {
    /// Superways: spine (inner) switches.
    Spines,
    /// Fig. 12's alternative: leaves of other racks.
    Leaves,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuperwaysParams {
    pub servers: Vec<ShortcutServer>,
    pub to: ShortcutTarget,
    /// The extra links' rate and delay (the paper's Figs 6-9: 40 Gb/s, the fabric's).
    pub link: LinkParams,
}

/// Adds the extra links to the switches named `spine{j}` or `leaf{j}` (every base builder
/// names its spines, or inner switches, and leaves so); the scenario layer has checked each `j`.
pub fn add_superways(t: &mut Topology, p: &SuperwaysParams) {
    let prefix = match p.to {
        ShortcutTarget::Spines => "spine",
        ShortcutTarget::Leaves => "leaf",
    };
    for s in &p.servers {
        let host = t.hosts[s.host.idx()];
        for j in &s.switches {
            let name = format!("{prefix}{j}");
            let switch = t.nodes.iter().position(|n| n.name == name).expect("a switch of the base topology");
            connect(t, host, crate::ids::NodeId::from(switch), p.link);
        }
    }
}

/// Extra links in all (for a summary).
pub fn extra_links(p: &SuperwaysParams) -> usize {
    p.servers.iter().map(|s| s.switches.len()).sum()
}
