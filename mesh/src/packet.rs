//! What travels: packets (as tokens: the caller keeps the data), the three
//! networks, and what comes out.
//!
//! Model decision owned here: which network a packet travels on
//! ([`Net::select`], isa.md §7.1).

use std::fmt;

use crate::addr::{NodeId, Target};
use crate::Cycle;

/// The three independent meshes of isa.md §7.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Net {
    /// Writes to on-chip destinations, read responses included.
    CMesh,
    /// Read requests, wherever they go.
    RMesh,
    /// Writes to off-chip destinations.
    XMesh,
}

impl Net {
    pub const ALL: [Net; 3] = [Net::CMesh, Net::RMesh, Net::XMesh];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn name(self) -> &'static str {
        match self {
            Net::CMesh => "cmesh",
            Net::RMesh => "rmesh",
            Net::XMesh => "xmesh",
        }
    }

    /// The network a packet of `kind` travels on: read requests on the
    /// rMesh; writes and read responses (which are writes) on the cMesh
    /// when their destination is on the chip, on the xMesh when it is off
    /// the chip (isa.md §7.1).
    pub const fn select(kind: Kind, off_chip: bool) -> Net {
        match (kind, off_chip) {
            (Kind::ReadRequest, _) => Net::RMesh,
            (_, false) => Net::CMesh,
            (_, true) => Net::XMesh,
        }
    }

    /// [`Net::select`] for a classified destination.
    pub const fn for_target(kind: Kind, target: &Target) -> Net {
        Net::select(kind, !matches!(target, Target::Core { .. }))
    }
}

impl fmt::Display for Net {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a transaction is. A read request's response is a separate packet
/// the caller injects at the responding node, addressed to the requester.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Write,
    ReadRequest,
    ReadResponse,
}

/// One mesh transaction (a single 104-bit packet on the hardware, moved in
/// one piece, isa.md §7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packet {
    /// The caller's key for the payload; handed back in the [`Arrival`].
    pub tag: u64,
    pub kind: Kind,
    /// The node whose network interface injects it (ignored by
    /// `Mesh::inject_external`).
    pub src: NodeId,
    /// Global destination address.
    pub dst: u32,
    /// Transaction size: 1, 2, 4 or 8 bytes.
    pub bytes: u8,
}

/// Where a packet is delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dest {
    /// Into this node (its memory, registers or read unit).
    Node(NodeId),
    /// Out of the chip through the eLink (the FPGA, DRAM, the host).
    External,
}

/// A packet delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arrival {
    pub tag: u64,
    /// The cycle it is delivered in: the exact time rounded up to a whole
    /// cycle.
    pub at: Cycle,
    /// The exact time, in half cycles (`at == at_half.div_ceil(2)`).
    pub at_half: u64,
    pub to: Dest,
    pub net: Net,
}
