//! Link bandwidth, round-robin sharing and back-pressure, with exact
//! numbers from the documented parameters (mesh/MESH.md).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use epsim_mesh::{Dest, Dir, Geometry, InjectError, Mesh, Net, NodeId, Params};

fn e16() -> Mesh {
    Mesh::new(Geometry::E16G301, Params::DEFAULT).unwrap()
}

#[test]
fn one_stream_fills_a_link_at_one_packet_per_cycle() {
    let mut mesh = e16();
    let (a, b) = (NodeId::new(33, 9), NodeId::new(33, 10));
    let n = 2000;
    let run = drive(&mut mesh, &[Flow::new(a, at(b, 0), n)], n + 10);
    // Never refused: the network takes one packet per cycle.
    assert_eq!(run.accepted[0], (0..n).collect::<Vec<_>>());
    assert_eq!(run.arrivals.len() as u64, n);
    for (i, arr) in run.arrivals.iter().enumerate() {
        // Packet i, injected at i, arrives after the 1-hop latency of 3.
        assert_eq!(seq_of(arr.tag), i as u64);
        assert_eq!(arr.at, i as u64 + 3);
        assert_eq!(arr.to, Dest::Node(b));
    }
    // 8 bytes per cycle: the link was busy every cycle of the stream.
    let link = mesh.link_load(Net::CMesh, a, Dir::East).unwrap();
    assert_eq!(link.packets, n);
    assert_eq!(link.busy_half_cycles, 2 * n);
    assert_eq!(link.wait_half_cycles, 0);
    assert!((link.busy_fraction(n) - 1.0).abs() < 1e-12);
}

#[test]
fn two_streams_share_a_link_half_each() {
    // (32,8) and (32,9) both stream to (32,11): they meet at (32,9)'s east
    // output, whose round-robin arbiter alternates between its west input
    // and its local input.
    let mut mesh = e16();
    let dst = NodeId::new(32, 11);
    let flows = [
        Flow::new(NodeId::new(32, 8), at(dst, 0x0000), u64::MAX),
        Flow::new(NodeId::new(32, 9), at(dst, 0x4000), u64::MAX),
    ];
    let run = drive(&mut mesh, &flows, 5000);
    let window: Vec<_> = run
        .arrivals
        .iter()
        .filter(|a| (1000..3000).contains(&a.at))
        .collect();
    // The link still carries one packet every cycle in total...
    assert_eq!(window.len(), 2000);
    for pair in window.windows(2) {
        assert_eq!(pair[1].at, pair[0].at + 1);
        // ... and the two flows strictly alternate.
        assert_ne!(flow_of(pair[1].tag), flow_of(pair[0].tag));
    }
    let first = window.iter().filter(|a| flow_of(a.tag) == 0).count();
    assert_eq!(first, 1000);
    // The shared link saw contention; its waits are counted there.
    let shared = mesh
        .link_load(Net::CMesh, NodeId::new(32, 9), Dir::East)
        .unwrap();
    assert!(shared.wait_half_cycles > 0);
    // Everything reported was counted on the destination's ejection port.
    let eject = mesh.link_load(Net::CMesh, dst, Dir::Local).unwrap();
    assert_eq!(eject.packets, run.arrivals.len() as u64);
    assert_eq!(
        mesh.node_load(Net::CMesh, dst).unwrap().delivered,
        run.arrivals.len() as u64
    );
}

#[test]
fn queue_depth_then_full_then_accepted_again() {
    // A stream from the east-edge node (32,11) to DRAM: the eLink takes a
    // transaction every 18 cycles (26 for the first, which opens a burst),
    // so the stream backs up. Hand derivation (ticks = half cycles):
    //   t=0: 4 packets fill the interface queue (ni_queue_depth); 5th Full.
    //   tick 2: p0 to the router and on to the eLink port (there at 5);
    //   tick 4: p1 likewise (port at 7); tick 6: p2 (port at 9): the port
    //   now holds 2 (router_buffer_depth) and p0 went onto the link at 5.
    //   ticks 8, 10: p3, p4 fill the router's local input (2); from tick 12
    //   the interface is blocked. Each of cycles 1-5 frees one queue place
    //   before the caller injects: 4 + 5 = 9 accepted = 4 (queue) + 2
    //   (local input) + 2 (port) + 1 (on the link).
    //   The link frees at tick 5 + 52 = 57 (p0 delivered then, cycle 29);
    //   tick 58 p3 moves to the port, tick 59 p5 to the local input, so a
    //   place is free from cycle 30 (tick 60); then one every 18 cycles.
    let mut mesh = e16();
    let src = NodeId::new(32, 11);
    let mut out = Vec::new();
    let mut accepted = Vec::new();
    let mut seq = 0u64;
    for t in 0..=200 {
        mesh.advance(t, &mut out);
        loop {
            match mesh.inject(t, write(seq, src, DRAM + 8 * seq as u32)) {
                Ok(()) => {
                    accepted.push(t);
                    seq += 1;
                }
                Err(InjectError::Full) => break,
                Err(e) => panic!("{e}"),
            }
        }
    }
    assert_eq!(
        accepted,
        [0, 0, 0, 0, 1, 2, 3, 4, 5, 30, 48, 66, 84, 102, 120, 138, 156, 174, 192]
    );
    let ats: Vec<_> = out.iter().map(|a| a.at).collect();
    assert_eq!(&ats[..4], &[29, 47, 65, 83]);
    assert!(out.iter().all(|a| a.to == Dest::External));
    assert_eq!(mesh.queued(src, Net::XMesh), Some(4));
}

#[test]
fn full_is_per_node_and_per_net() {
    let mut mesh = e16();
    let (a, b) = (NodeId::new(32, 8), NodeId::new(33, 8));
    for i in 0..4 {
        mesh.inject(0, write(i, a, at(b, 0))).unwrap();
    }
    assert_eq!(
        mesh.inject(0, write(9, a, at(b, 0))),
        Err(InjectError::Full)
    );
    // Another net of the same node, and another node, still accept.
    mesh.inject(0, read(10, a, at(b, 0))).unwrap();
    mesh.inject(0, write(11, b, at(a, 0))).unwrap();
    // One cycle later the first write has left the queue.
    let mut out = Vec::new();
    mesh.advance(1, &mut out);
    mesh.inject(1, write(12, a, at(b, 0))).unwrap();
    assert_eq!(
        mesh.inject(1, write(13, a, at(b, 0))),
        Err(InjectError::Full)
    );
}

#[test]
fn a_router_buffer_of_one_cannot_keep_a_link_busy() {
    // Why router_buffer_depth is 2: a place in the next router is taken
    // when a packet wins the link, the packet can leave it 3 half cycles
    // later (the hop), and the place is usable again the half cycle after
    // that. With one place a link carries a packet every 4 half cycles:
    // half a packet per cycle.
    let params = Params {
        router_buffer_depth: 1,
        ..Params::DEFAULT
    };
    let mut mesh = Mesh::new(Geometry::E16G301, params).unwrap();
    let (a, b) = (NodeId::new(32, 8), NodeId::new(32, 11));
    let run = drive(&mut mesh, &[Flow::new(a, at(b, 0), u64::MAX)], 3100);
    let n = run
        .arrivals
        .iter()
        .filter(|x| (100..3100).contains(&x.at))
        .count();
    assert_eq!(n, 1500);
}
