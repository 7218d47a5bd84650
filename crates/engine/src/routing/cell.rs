//! How `Routes` stores a next hop: a cell of one `u32`, a port or a group of ports.

use std::collections::HashMap;

use crate::ids::{NodeId, PortId};

/// Tag of a cell that names a group rather than a port.
pub(crate) const MULTI: u32 = 1 << 31;
/// Group 0 is the empty set: the node is the destination itself, or cannot reach it.
pub(crate) const NO_ROUTE: u32 = MULTI;
/// `row_of` of a node that answers by rule (see `uplink`).
pub(super) const NO_ROW: u32 = u32::MAX;
/// The attachment switch of a class whose host has no single link to a switch.
pub(crate) const NO_NODE: NodeId = NodeId(u32::MAX);

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Group {
    pub(super) start: u32,
    pub(super) len: u32,
}

/// The cell for a set of next hops: the port itself, or the group of these ports, made the
/// first time the set is seen.
pub(super) fn intern(groups: &mut Vec<Group>, ports: &mut Vec<PortId>, hops: &[PortId], interned: &mut HashMap<Vec<PortId>, u32>) -> u32 {
    if let &[p] = hops {
        return p.0;
    }
    if let Some(&e) = interned.get(hops) {
        return e;
    }
    let cell = MULTI | groups.len() as u32;
    groups.push(Group { start: ports.len() as u32, len: hops.len() as u32 });
    ports.extend_from_slice(hops);
    interned.insert(hops.to_vec(), cell);
    cell
}

/// The ports of group cell `cell` (one with the `MULTI` bit).
pub(super) fn group_ports<'a>(groups: &[Group], ports: &'a [PortId], cell: u32) -> &'a [PortId] {
    let g = groups[(cell & !MULTI) as usize];
    &ports[g.start as usize..(g.start + g.len) as usize]
}
