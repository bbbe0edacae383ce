//! Counters for a live heat map and for reports.
//!
//! Model decision owned here: what is counted, and when. A link's load is
//! counted when a packet wins it (so a packet on its way shows on the link
//! it is crossing); deliveries are counted when they are reported by
//! `Mesh::advance`. Every counter only grows until `Mesh::reset_stats`.

use crate::addr::Dir;
use crate::packet::Net;
use crate::Cycle;

/// Load of one output link of one router on one net (or one direction of
/// the eLink).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinkLoad {
    /// Packets that crossed it.
    pub packets: u64,
    /// Half cycles it was occupied (each packet occupies a mesh link for
    /// `link_interval_half_cycles`; the eLink for its per-transaction
    /// cycles).
    pub busy_half_cycles: u64,
    /// Half cycles packets spent ready at this output without winning it
    /// (lost arbitration, busy link, or no room downstream), summed over
    /// packets: the contention at this output.
    pub wait_half_cycles: u64,
}

impl LinkLoad {
    /// Fraction of `window` cycles the link was busy (0.0 for an empty
    /// window).
    pub fn busy_fraction(&self, window: Cycle) -> f64 {
        if window == 0 {
            0.0
        } else {
            self.busy_half_cycles as f64 / (2.0 * window as f64)
        }
    }

    pub(crate) fn add(&mut self, busy: u64, wait: u64) {
        self.packets += 1;
        self.busy_half_cycles = self.busy_half_cycles.saturating_add(busy);
        self.wait_half_cycles = self.wait_half_cycles.saturating_add(wait);
    }
}

/// Traffic of one node's network interface on one net.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodeLoad {
    /// Packets accepted by `inject` at this node.
    pub injected: u64,
    /// Packets delivered into this node.
    pub delivered: u64,
}

/// Load of the eLink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ELinkLoad {
    /// Chip to outside.
    pub tx: LinkLoad,
    /// Outside to chip.
    pub rx: LinkLoad,
    /// Transmitted transactions that did not continue the previous one
    /// (charged `elink_tx_break_cycles` extra).
    pub tx_breaks: u64,
}

/// Whole-network totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Totals {
    /// Packets accepted, per net (`Net::index`), eLink injections included.
    pub injected: [u64; 3],
    /// Packets delivered, per net, `Dest::External` included.
    pub delivered: [u64; 3],
    /// Router-to-router (and router-to-eLink) link traversals, per net.
    pub hops: [u64; 3],
    /// Half-cycle steps the model actually simulated (quiet time costs
    /// none: this stays small when the network is mostly idle).
    pub steps: u64,
}

/// All counters. Per-node and per-link counters are indexed by the node's
/// row-major index (`Geometry::index`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    nodes: usize,
    /// `[(net · nodes + node) · 5 + dir]`.
    links: Vec<LinkLoad>,
    /// `[net · nodes + node]`.
    node: Vec<NodeLoad>,
    pub(crate) elink: ELinkLoad,
    pub(crate) totals: Totals,
}

impl Stats {
    /// Every counter but the steps simulated (which a trip done in closed
    /// form does not take): for tests comparing ways of advancing.
    #[doc(hidden)]
    pub fn modelled(&self) -> Stats {
        let mut s = self.clone();
        s.totals.steps = 0;
        s
    }

    pub(crate) fn new(nodes: usize) -> Stats {
        Stats {
            nodes,
            links: vec![LinkLoad::default(); 3 * nodes * 5],
            node: vec![NodeLoad::default(); 3 * nodes],
            elink: ELinkLoad::default(),
            totals: Totals::default(),
        }
    }

    /// Load of output `dir` of node `node` (row-major index) on `net`;
    /// zero for an index off the chip.
    pub fn link(&self, net: Net, node: usize, dir: Dir) -> LinkLoad {
        if node >= self.nodes {
            return LinkLoad::default();
        }
        self.links[(net.index() * self.nodes + node) * 5 + dir.index()]
    }

    /// Every link of `net`: entry `node · 5 + dir` (a TUI draws its heat
    /// map from this slice without copying).
    pub fn links(&self, net: Net) -> &[LinkLoad] {
        let per = self.nodes * 5;
        &self.links[net.index() * per..(net.index() + 1) * per]
    }

    /// Injections and deliveries of node `node` on `net`; zero off the
    /// chip.
    pub fn node(&self, net: Net, node: usize) -> NodeLoad {
        if node >= self.nodes {
            return NodeLoad::default();
        }
        self.node[net.index() * self.nodes + node]
    }

    pub fn elink(&self) -> ELinkLoad {
        self.elink
    }

    pub fn totals(&self) -> Totals {
        self.totals
    }

    pub(crate) fn link_mut(&mut self, key: usize, dir: usize) -> &mut LinkLoad {
        &mut self.links[key * 5 + dir]
    }

    pub(crate) fn node_ref(&self, key: usize) -> &NodeLoad {
        &self.node[key]
    }

    pub(crate) fn node_mut(&mut self, key: usize) -> &mut NodeLoad {
        &mut self.node[key]
    }

    pub(crate) fn reset(&mut self) {
        *self = Stats::new(self.nodes);
    }
}
