//! The flows of a run, by their stable id, in slots that a retired flow gives back.
//!
//! A flow's id (`FlowId`, what packets, events and result rows carry) never changes; its
//! state lives in a slot found through `slot_of` (4 bytes per flow ever created). A run that
//! streams its flows table retires a finished flow once nothing of it is left in the network
//! (`World::retire_if_done`): its row goes out and its slot is reused, so memory follows the
//! flows alive at once, not all the run has made. Without retirement, slot = id.

use super::flow::Flow;
use crate::ids::FlowId;

#[derive(Default)]
pub struct FlowTable {
    /// Never shrinks, so every `slot_of` entry stays a valid index.
    slots: Vec<Flow>,
    /// Per flow id: its slot. A retired flow's entry still names its old slot, which holds
    /// another flow (`Flow::id` tells) or none yet.
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

    /// Stores a new flow; its `id` must be the next id (`len()`).
    pub fn push(&mut self, flow: Flow) -> FlowId {
        let id = FlowId::from(self.slot_of.len());
        assert_eq!(flow.id, id, "flows are pushed in id order");
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
        let f = &self.slots[*self.slot_of.get(id)? as usize];
        (f.id.idx() == id && !f.retired).then_some(f)
    }

    #[inline(always)]
    pub fn get_mut(&mut self, id: usize) -> Option<&mut Flow> {
        let f = &mut self.slots[*self.slot_of.get(id)? as usize];
        (f.id.idx() == id && !f.retired).then_some(f)
    }

    /// Gives the flow's slot back; its id now names nothing (`get` is `None`).
    pub fn retire(&mut self, id: usize) {
        let slot = self.slot_of[id];
        let f = &mut self.slots[slot as usize];
        assert!(f.id.idx() == id && !f.retired, "flow {id} retired twice");
        f.retired = true;
        // Its sender's and receiver's buffers go now, not when the slot is next written.
        f.release_buffers();
        self.free.push(slot);
    }

    /// The flow in slot `slot_of[id]`, without a bounds check on the slot: every entry of
    /// `slot_of` is below `slots.len()` (written by `push` only, and `slots` never shrinks).
    /// An id whose flow was retired reads whatever holds its old slot now; nothing names
    /// a retired flow but events, which ask `get` (checked in debug builds here).
    #[inline(always)]
    fn slot(&self, id: usize) -> usize {
        let s = self.slot_of[id] as usize;
        debug_assert!(s < self.slots.len() && self.slots[s].id.idx() == id && !self.slots[s].retired, "flow {id} is retired");
        s
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

impl std::ops::Index<usize> for FlowTable {
    type Output = Flow;
    /// The flow with id `id`; a retired one panics (nothing may name it any more).
    #[inline(always)]
    fn index(&self, id: usize) -> &Flow {
        let s = self.slot(id);
        // SAFETY: `slot` is below `slots.len()` (see there).
        unsafe { self.slots.get_unchecked(s) }
    }
}

impl std::ops::IndexMut<usize> for FlowTable {
    #[inline(always)]
    fn index_mut(&mut self, id: usize) -> &mut Flow {
        let s = self.slot(id);
        // SAFETY: as in `index`.
        unsafe { self.slots.get_unchecked_mut(s) }
    }
}

impl<'a> IntoIterator for &'a FlowTable {
    type Item = &'a Flow;
    type IntoIter = Box<dyn Iterator<Item = &'a Flow> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}
