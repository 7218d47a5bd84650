//! Links, output ports and their queues.
//!
//! A port serializes one packet at a time at its line rate and then puts it on its wire,
//! where it propagates for the link's delay. Wires deliver in FIFO order, so only the head
//! packet's arrival is ever scheduled: one pending event per port for the wire, one for the
//! transmitter.

pub mod buffer;
pub mod faults;
pub mod port;
pub mod queue;

pub use port::PortState;
