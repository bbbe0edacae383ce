//! The Epiphany eMesh: a deterministic, cycle-stepped transport model of the
//! three networks on chip (cMesh, rMesh, xMesh), their routers, the node
//! network interfaces and the eLink.
//!
//! The mesh moves *tokens*: a [`Packet`] carries the caller's `tag`, its
//! kind, source, destination address and size, never the data. The caller
//! keeps the payload keyed by the tag and applies it when the [`Arrival`]
//! comes out. No instruction semantics and no memory live here (README.md,
//! "Design rules": function and timing are separate); every timing number is a field of [`Params`], explained in
//! `mesh/MESH.md`.
//!
//! # Time
//!
//! Time is core clock cycles ([`Cycle`]). Inside, the model runs in half
//! cycles so that the 1.5-cycle hop is exact; arrivals are reported in the
//! whole cycle that contains them (the exact time rounded up), with the
//! exact half-cycle time beside it.
//!
//! [`Mesh::now`] is the current cycle `C`: everything up to the end of
//! cycle `C` has been simulated and every arrival with `at <= C` has been
//! reported. [`Mesh::advance`]`(to, out)` simulates up to the end of `to`
//! and appends the arrivals with `now < at <= to`, in a fixed order (exact
//! time, then destination, then net). Nothing in flight: it costs O(1),
//! whatever `to - now`. Packets in flight: each node interface, router and
//! eLink side is visited only at the half cycles at which it can act, so
//! the cost follows the packets' moves, never the size of the mesh.
//!
//! # Injecting
//!
//! [`Mesh::inject`]`(t, p)` offers `p` at its source node's network
//! interface at cycle `t`. The contract:
//! * `t >= now()`, and per source node and net `t` never decreases
//!   (otherwise [`InjectError::Past`]);
//! * the network is chosen from the kind and destination
//!   ([`Net::select`]): read requests on the rMesh, writes and read
//!   responses on the cMesh if their destination is on the chip, on the
//!   xMesh if it is off the chip;
//! * each node interface has a queue of `ni_queue_depth` packets per net.
//!   If it is full *as of `now()`*, counting everything injected so far,
//!   the answer is [`InjectError::Full`]: the caller stalls, advances the
//!   mesh and retries. Only the node fills its own queue, so after
//!   `advance(t)` the answer for an injection at `t` is exact;
//! * a packet injected at `t` arrives at `t + 1` at the earliest, so an
//!   injection at `now()` is never "in the past" of the model, and the
//!   next `advance` reports it in order;
//! * destinations that leave the chip through an edge without an eLink
//!   are refused ([`InjectError::NoRoute`]); nothing a guest program does
//!   can make the model panic.
//!
//! A read is two packets: the caller injects the [`Kind::ReadRequest`];
//! when it arrives at the node that owns the address, the caller injects
//! the [`Kind::ReadResponse`] there, addressed to the requester. Traffic
//! coming from outside the chip (DRAM read responses, host accesses) enters
//! with [`Mesh::inject_external`], and traffic leaving it arrives as
//! [`Dest::External`].
//!
//! # Scheduling helpers
//!
//! For a conservative scheduler: [`Mesh::next_arrival_bound`] and
//! [`Mesh::earliest_arrival_bound`] give a cycle before which no packet now
//! in flight (for that destination, or at all) can arrive;
//! [`Mesh::min_latency`] gives the uncontended latency of a packet not yet
//! injected. A core that only touches its own memory cannot be affected
//! before `min(next_arrival_bound(core), earliest injection elsewhere +
//! min_latency)`.

#![forbid(unsafe_code)]

pub mod addr;
pub mod mesh;
pub mod packet;
pub mod params;
pub mod stats;
mod wheel;

/// Core clock cycles.
pub type Cycle = u64;

pub use addr::{
    is_local, Dir, Geometry, GeometryError, Link, Looped, NodeId, RxRemap, Side, Target,
};
pub use mesh::{ConfigError, InjectError, LoopLegs, Mesh, Round, Rounds, SoloMark};
pub use packet::{Arrival, Dest, Kind, Net, Packet};
pub use params::{ParamError, Params};
pub use stats::{ELinkLoad, LinkLoad, NodeLoad, Stats, Totals};

/// A xorshift generator for the unit tests: a number below `k` per call
/// (the integration tests' `tests/common` has its own, out of their reach).
#[cfg(test)]
fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |k| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % k
    }
}
