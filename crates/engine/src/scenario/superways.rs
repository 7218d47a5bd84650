//! `[topology.superways]`: which servers get extra links to which spines.

use super::fields::Ctx;
use super::net::link;
use super::spec::{HostRef, SuperwaysSpec};
use crate::ids::HostId;
use crate::topology::{LinkParams, ShortcutServer, SuperwaysParams, TopologyParams};
use crate::ScenarioError;

/// Most extra links one server may get.
const MAX_LINKS: i64 = 64;

/// Either `servers = [{ server = "h19" | 19, links = 3, spines = [0, 1, 2] }, ...]` (spines
/// default to 0..links, wrapping into LAGs past the last spine), or `per_rack = 19` with
/// `links = 3`: server 19 of every rack, links to spines 0..3 (the paper's code).
pub fn params(cx: &Ctx, sw: &SuperwaysSpec, base: &TopologyParams, fabric_link: LinkParams) -> Result<SuperwaysParams, ScenarioError> {
    let (racks, per_rack, spines) = match base {
        TopologyParams::LeafSpine(p) | TopologyParams::Subways(p) | TopologyParams::Bcube(p) => (p.leaves, p.hosts_per_leaf, p.spines),
        TopologyParams::Jellyfish(p) => (p.leaves, p.hosts_per_leaf, p.spines),
        _ => unreachable!("superways on a base the topology layer did not allow"),
    };
    if spines == 0 {
        return Err(cx.err("servers", "needs spine switches in the base topology (spines = 0)"));
    }
    let link = link(cx, "link", sw.link.as_ref(), fabric_link)?;
    let default_spines = |links: u32| (0..links).map(|j| j % spines).collect::<Vec<u32>>();
    let servers = match (&sw.servers, sw.per_rack) {
        (Some(_), Some(_)) => return Err(cx.err("per_rack", "give either servers or per_rack, not both")),
        (None, None) => return Err(cx.err("servers", "is required (or per_rack with links), e.g. servers = [{ server = \"h19\", links = 3 }]")),
        (None, Some(_)) => {
            let local = cx.count("per_rack", sw.per_rack, None, 0, per_rack as i64 - 1)? as u32;
            let links = cx.count("links", sw.links, None, 1, MAX_LINKS)? as u32;
            (0..racks).map(|r| ShortcutServer { host: HostId(r * per_rack + local), spines: default_spines(links) }).collect()
        }
        (Some(list), None) => {
            if sw.links.is_some() {
                return Err(cx.err("links", "with servers, give links per server"));
            }
            let mut out: Vec<ShortcutServer> = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let cx = cx.at(&format!("servers[{i}]"));
                let host = server(&cx, s.server.as_ref(), racks * per_rack)?;
                if out.iter().any(|o| o.host == host) {
                    return Err(cx.err("server", format!("h{} is listed twice", host.0)));
                }
                let links = cx.count("links", s.links, None, 1, MAX_LINKS)? as u32;
                let chosen = match &s.spines {
                    None => default_spines(links),
                    Some(list) => {
                        if list.len() != links as usize {
                            return Err(cx.err("spines", format!("lists {} spines for {links} links (one per link)", list.len())));
                        }
                        let bad = list.iter().find(|&&j| j < 0 || j >= spines as i64);
                        if let Some(j) = bad {
                            return Err(cx.err("spines", format!("spine {j} does not exist (allowed: 0..{})", spines - 1)));
                        }
                        list.iter().map(|&j| j as u32).collect()
                    }
                };
                out.push(ShortcutServer { host, spines: chosen });
            }
            out
        }
    };
    Ok(SuperwaysParams { servers, link })
}

/// A server by host number or name (`h{number}`, the builders' naming).
fn server(cx: &Ctx, s: Option<&HostRef>, hosts: u32) -> Result<HostId, ScenarioError> {
    let n = match s {
        None => return Err(cx.err("server", "is required (a host name such as \"h19\", or its number)")),
        Some(HostRef::Index(i)) => Some(*i),
        Some(HostRef::Name(name)) => name.strip_prefix('h').and_then(|d| d.parse::<i64>().ok()),
    };
    match n {
        Some(i) if (0..hosts as i64).contains(&i) => Ok(HostId(i as u32)),
        _ => Err(cx.err("server", format!("must be a host, h0..h{} or 0..{}", hosts - 1, hosts - 1))),
    }
}
