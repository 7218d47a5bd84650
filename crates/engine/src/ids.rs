//! Typed indices. Every per-node, per-port, per-flow table is a `Vec` indexed by one of these,
//! so a lookup on the hot path is an array access, never a hash.

macro_rules! typed_id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            #[inline(always)]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl From<usize> for $name {
            #[inline(always)]
            fn from(i: usize) -> Self {
                $name(i as u32)
            }
        }
    };
}

typed_id!(
    /// A host or a switch.
    NodeId
);
typed_id!(
    /// One direction of a link: the egress port of its `from` node, with its queue.
    PortId
);
typed_id!(
    /// A host, numbered 0..hosts in topology order (dense, unlike `NodeId`).
    HostId
);
typed_id!(
    /// A transport flow (one sender, one receiver, one byte stream).
    FlowId
);
