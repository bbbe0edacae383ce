//! Every timing number of the network, as one table of named values.
//!
//! `mesh/MESH.md` gives each value's source and the choice made where the
//! sources disagree or are silent. Nothing else in the crate is a timing
//! number. Values the model keeps in half cycles say so in their names.

use std::fmt;

/// The network's parameters (see `mesh/MESH.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// Router to next router: from a packet winning an output to it being
    /// able to win an output at the next router (1.5 cycles per hop).
    pub hop_half_cycles: u64,
    /// A link, and a node's ejection port, carry one packet per this many
    /// half cycles (one per cycle: 8 bytes/cycle per direction per net).
    pub link_interval_half_cycles: u64,
    /// A node's network interface hands its router one packet per this
    /// many half cycles, per net.
    pub ni_interval_half_cycles: u64,
    /// From injection (a cycle edge) to the packet being at its router's
    /// local input, per net. With no eject cost, a one-way uncontended
    /// trip is `entry + hops · hop` half cycles.
    pub cmesh_entry_half_cycles: u64,
    pub rmesh_entry_half_cycles: u64,
    pub xmesh_entry_half_cycles: u64,
    /// Packets a node's network interface queues per net before
    /// `inject` answers `Full` (not counting the router's local input).
    pub ni_queue_depth: u32,
    /// Packets each router input (and each eLink port) holds, counting
    /// packets still on the link towards it: the credit of the link.
    pub router_buffer_depth: u32,
    /// Cycles the eLink's transmit side is busy per transaction that
    /// continues the previous one (its address follows the previous
    /// transaction's last byte).
    pub elink_tx_cycles: u64,
    /// Extra transmit cycles for a transaction that does not continue the
    /// previous one (a broken burst: another source, another stream).
    pub elink_tx_break_cycles: u64,
    /// Cycles from the end of a transmission to delivery as
    /// `Dest::External`.
    pub elink_tx_latency_cycles: u64,
    /// Cycles the eLink's receive side is busy per transaction.
    pub elink_rx_cycles: u64,
    /// Cycles from `inject_external` to the receive side starting to
    /// carry the transaction (at least 1).
    pub elink_rx_latency_cycles: u64,
    /// Transactions the receive side queues before `inject_external`
    /// answers `Full`.
    pub elink_rx_queue_depth: u32,
}

impl Params {
    /// The model's defaults (E16G301 on a Parallella; `mesh/MESH.md`).
    pub const DEFAULT: Params = Params {
        hop_half_cycles: 3,
        link_interval_half_cycles: 2,
        ni_interval_half_cycles: 2,
        cmesh_entry_half_cycles: 2,
        rmesh_entry_half_cycles: 1,
        xmesh_entry_half_cycles: 2,
        ni_queue_depth: 4,
        router_buffer_depth: 2,
        elink_tx_cycles: 18,
        elink_tx_break_cycles: 8,
        elink_tx_latency_cycles: 0,
        elink_rx_cycles: 18,
        elink_rx_latency_cycles: 1,
        elink_rx_queue_depth: 8,
    };

    /// Checks every value the model needs to be at least 1 (a zero would
    /// let a packet arrive in the cycle it is sent, or never move).
    pub fn validate(&self) -> Result<(), ParamError> {
        let positive: [(&'static str, u64); 12] = [
            ("hop_half_cycles", self.hop_half_cycles),
            ("link_interval_half_cycles", self.link_interval_half_cycles),
            ("ni_interval_half_cycles", self.ni_interval_half_cycles),
            ("cmesh_entry_half_cycles", self.cmesh_entry_half_cycles),
            ("rmesh_entry_half_cycles", self.rmesh_entry_half_cycles),
            ("xmesh_entry_half_cycles", self.xmesh_entry_half_cycles),
            ("ni_queue_depth", self.ni_queue_depth.into()),
            ("router_buffer_depth", self.router_buffer_depth.into()),
            ("elink_tx_cycles", self.elink_tx_cycles),
            ("elink_rx_cycles", self.elink_rx_cycles),
            ("elink_rx_latency_cycles", self.elink_rx_latency_cycles),
            ("elink_rx_queue_depth", self.elink_rx_queue_depth.into()),
        ];
        match positive.iter().find(|(_, v)| *v == 0) {
            Some((name, _)) => Err(ParamError { name }),
            None => Ok(()),
        }
    }

    /// The entry time of a net, in half cycles.
    pub const fn entry_half_cycles(&self, net: crate::Net) -> u64 {
        match net {
            crate::Net::CMesh => self.cmesh_entry_half_cycles,
            crate::Net::RMesh => self.rmesh_entry_half_cycles,
            crate::Net::XMesh => self.xmesh_entry_half_cycles,
        }
    }
}

impl Default for Params {
    fn default() -> Params {
        Params::DEFAULT
    }
}

/// A parameter that must be at least 1 is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub name: &'static str,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mesh parameter {} must be at least 1", self.name)
    }
}

impl std::error::Error for ParamError {}
