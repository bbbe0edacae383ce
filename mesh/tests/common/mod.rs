//! Helpers shared by the mesh tests: packet builders, a flow driver that
//! injects as fast as the network accepts, and a seeded random source.
#![allow(dead_code)]

use epsim_mesh::{Arrival, Cycle, InjectError, Kind, Mesh, NodeId, Packet};

pub const DRAM: u32 = 0x8E00_0000;

pub fn write(tag: u64, src: NodeId, dst: u32) -> Packet {
    Packet {
        tag,
        kind: Kind::Write,
        src,
        dst,
        bytes: 8,
    }
}

pub fn read(tag: u64, src: NodeId, dst: u32) -> Packet {
    Packet {
        tag,
        kind: Kind::ReadRequest,
        src,
        dst,
        bytes: 8,
    }
}

/// The node's SRAM address `offset`.
pub fn at(node: NodeId, offset: u32) -> u32 {
    node.addr(offset)
}

/// A stream of 8-byte writes from `src` to ascending addresses from
/// `base`; tags are `flow << 32 | sequence number`.
#[derive(Clone, Copy, Debug)]
pub struct Flow {
    pub src: NodeId,
    pub base: u32,
    pub count: u64,
}

impl Flow {
    pub fn new(src: NodeId, base: u32, count: u64) -> Flow {
        Flow { src, base, count }
    }
}

pub fn flow_of(tag: u64) -> usize {
    (tag >> 32) as usize
}

pub fn seq_of(tag: u64) -> u64 {
    tag & 0xffff_ffff
}

/// What `drive` saw.
#[derive(Debug, Default)]
pub struct Run {
    pub arrivals: Vec<Arrival>,
    /// Cycle of each accepted injection, per flow.
    pub accepted: Vec<Vec<Cycle>>,
}

/// Every cycle from 0 to `until`: advance to it, then offer each flow's
/// next packet (flows in order), retrying the next cycle on `Full`.
pub fn drive(mesh: &mut Mesh, flows: &[Flow], until: Cycle) -> Run {
    let mut run = Run {
        arrivals: Vec::new(),
        accepted: vec![Vec::new(); flows.len()],
    };
    for t in 0..=until {
        mesh.advance(t, &mut run.arrivals);
        for (i, f) in flows.iter().enumerate() {
            let n = run.accepted[i].len() as u64;
            if n >= f.count {
                continue;
            }
            let p = write((i as u64) << 32 | n, f.src, f.base + 8 * n as u32);
            match mesh.inject(t, p) {
                Ok(()) => run.accepted[i].push(t),
                Err(InjectError::Full) => {}
                Err(e) => panic!("flow {i}: {e}"),
            }
        }
    }
    run
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
