//! The flows of a run, by their stable id, in slots that a retired flow gives back.
//!
//! A flow's id (`FlowId`, what packets, events and result rows carry) never changes; its
//! state lives in a slot found through `slot_of` (4 bytes per flow ever created). A run that
//! streams its flows table retires a finished flow once nothing of it is left in the network
//! (`World::retire_if_done`): its row goes out and its slot is reused, so memory follows the
//! flows alive at once, not all the run has made. Without retirement, slot = id.

use super::flow::Flow;
use crate::ids::FlowId;

/// `slot_of` of a retired flow.
const RETIRED: u32 = u32::MAX;

#[derive(Default)]
pub struct FlowTable {
    slots: Vec<Flow>,
    /// Per flow id: its slot, or `RETIRED`.
    slot_of: Vec<u32>,
    /// Slots of retired flows, reused last-freed first (still warm in the cache).
    free: Vec<u32>,
}

impl FlowTable {
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

    /// Flows alive (not retired).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn push(&mut self, flow: Flow) -> FlowId {
        let id = FlowId::from(self.slot_of.len());
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
        id
    }

    /// The flow with this id, unless it was retired.
    #[inline(always)]
    pub fn get(&self, id: usize) -> Option<&Flow> {
        self.slots.get(*self.slot_of.get(id)? as usize)
    }

    #[inline(always)]
    pub fn get_mut(&mut self, id: usize) -> Option<&mut Flow> {
        self.slots.get_mut(*self.slot_of.get(id)? as usize)
    }

    pub fn is_retired(&self, id: usize) -> bool {
        self.slot_of[id] == RETIRED
    }

    /// Gives the flow's slot back; its id now names nothing (`get` is `None`).
    pub fn retire(&mut self, id: usize) {
        let slot = std::mem::replace(&mut self.slot_of[id], RETIRED);
        debug_assert!(slot != RETIRED, "flow {id} retired twice");
        // Its sender's and receiver's buffers go now, not when the slot is next written.
        self.slots[slot as usize].release_buffers();
        self.free.push(slot);
    }

    /// The flows not retired, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Flow> {
        self.enumerate().map(|(_, f)| f)
    }

    /// The flows not retired, with their ids, in id order.
    pub fn enumerate(&self) -> impl Iterator<Item = (FlowId, &Flow)> {
        self.slot_of.iter().enumerate().filter(|(_, &s)| s != RETIRED).map(|(i, &s)| (FlowId::from(i), &self.slots[s as usize]))
    }
}

impl std::ops::Index<usize> for FlowTable {
    type Output = Flow;
    /// The flow with id `id`; a retired one panics (nothing may name it any more).
    #[inline(always)]
    fn index(&self, id: usize) -> &Flow {
        &self.slots[self.slot_of[id] as usize]
    }
}

impl std::ops::IndexMut<usize> for FlowTable {
    #[inline(always)]
    fn index_mut(&mut self, id: usize) -> &mut Flow {
        &mut self.slots[self.slot_of[id] as usize]
    }
}

impl<'a> IntoIterator for &'a FlowTable {
    type Item = &'a Flow;
    type IntoIter = Box<dyn Iterator<Item = &'a Flow> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}
