//! The flows of a run, in slots that a retired flow gives back.
//!
//! Inside the world a `FlowId` names a flow's slot: packets carry it, and the handlers index
//! `flows` with it directly (no indirection on the per-packet path). A flow's stable id
//! (`Flow::id`: its row's `flow_id`, its entropy's seed) is what timer events carry, since
//! an event may outlive its flow: `live_slot` turns it into the slot, or `None` for a
//! retired flow. A run that streams its flows table retires a finished flow once none of
//! its packets is left in the network (`World::retire_if_done`), so a packet never names a
//! slot that changed hands; memory then follows the flows alive at once, plus 4 bytes a
//! flow for `slot_of`. Without retirement, slot = id.

use super::flow::Flow;
use crate::ids::FlowId;

#[derive(Default)]
pub struct FlowTable {
    /// Never shrinks: the most flows alive at once.
    slots: Vec<Flow>,
    /// Per flow id: its slot. A retired flow's entry still names its old slot, which holds
    /// another flow (`Flow::id` tells) or none yet.
    slot_of: Vec<u32>,
    /// Slots of retired flows, reused last-freed first (still warm in the cache).
    free: Vec<u32>,
}

impl FlowTable {
    /// Slot `slot` if there is one (for prefetching: a packet names its flow's slot).
    #[inline(always)]
    pub fn slot(&self, slot: usize) -> Option<&Flow> {
        self.slots.get(slot)
    }

    /// Flows created so far (retired ones included): the next flow's id.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// Slots in use or free: what the flow state occupies.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Flows the slots have room for without growing.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Room for `n` more flows pushed at once (a list known at build): one block, not a
    /// doubling from empty, each step of which is fresh memory and a copy.
    pub fn reserve(&mut self, n: usize) {
        self.slots.reserve(n);
        self.slot_of.reserve(n);
    }

    /// Stores a new flow (its `id` must be the next id, `len()`); returns its slot.
    pub fn push(&mut self, flow: Flow) -> FlowId {
        assert_eq!(flow.id.idx(), self.slot_of.len(), "flows are pushed in id order");
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = flow;
                s
            }
            None => {
                self.slots.push(flow);
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 flow slots")
            }
        };
        self.slot_of.push(slot);
        FlowId(slot)
    }

    /// The slot of the flow with stable id `id`, unless it was retired.
    #[inline(always)]
    pub fn live_slot(&self, id: u32) -> Option<FlowId> {
        let slot = *self.slot_of.get(id as usize)?;
        let f = &self.slots[slot as usize];
        (f.id.0 == id && !f.retired).then_some(FlowId(slot))
    }

    /// The flow with stable id `id`, unless it was retired.
    pub fn get(&self, id: usize) -> Option<&Flow> {
        Some(&self.slots[self.live_slot(u32::try_from(id).ok()?)?.idx()])
    }

    /// Frees slot `slot` for the next flow; its flow's id now names nothing (`live_slot`
    /// is `None`).
    pub fn retire(&mut self, slot: FlowId) {
        let f = &mut self.slots[slot.idx()];
        assert!(!f.retired, "flow {} retired twice", f.id.0);
        f.retired = true;
        // Its sender's and receiver's buffers go now, not when the slot is next written.
        f.release_buffers();
        self.free.push(slot.0);
    }

    /// The flows not retired, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Flow> {
        self.enumerate().map(|(_, f)| f)
    }

    /// The flows not retired, with their ids, in id order.
    pub fn enumerate(&self) -> impl Iterator<Item = (FlowId, &Flow)> {
        (0..self.slot_of.len()).filter_map(|i| Some((FlowId::from(i), self.get(i)?)))
    }
}

/// By slot (a `FlowId` inside the world; = the id in a run that retires no flow).
impl std::ops::Index<usize> for FlowTable {
    type Output = Flow;
    #[inline(always)]
    fn index(&self, slot: usize) -> &Flow {
        &self.slots[slot]
    }
}

impl std::ops::IndexMut<usize> for FlowTable {
    #[inline(always)]
    fn index_mut(&mut self, slot: usize) -> &mut Flow {
        &mut self.slots[slot]
    }
}

impl<'a> IntoIterator for &'a FlowTable {
    type Item = &'a Flow;
    type IntoIter = Box<dyn Iterator<Item = &'a Flow> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}
