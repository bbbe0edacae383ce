//! isa.md §7.4: writes from one source to one destination arrive in the
//! order they were sent, whatever else shares their path.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use epsim_mesh::{Dest, Geometry, Mesh, Net, NodeId, Params};

#[test]
fn every_node_streaming_to_one_node_keeps_each_stream_in_order() {
    let g = Geometry::E16G301;
    let mut mesh = Mesh::new(g, Params::DEFAULT).unwrap();
    let hot = NodeId::new(33, 9);
    let flows: Vec<_> = g
        .nodes()
        .enumerate()
        .map(|(i, n)| Flow::new(n, at(hot, 0x400 * i as u32), 300))
        .collect();
    let run = drive(&mut mesh, &flows, 10_000);
    assert_eq!(run.arrivals.len(), 16 * 300);
    let mut next = vec![0u64; flows.len()];
    for a in &run.arrivals {
        assert_eq!(a.to, Dest::Node(hot));
        assert_eq!(a.net, Net::CMesh);
        let f = flow_of(a.tag);
        assert_eq!(seq_of(a.tag), next[f], "flow {f} out of order");
        next[f] += 1;
    }
    // One ejection port: 4800 packets need at least 4800 cycles.
    let last = run.arrivals.last().unwrap().at;
    assert!(last >= 4800);
}

#[test]
fn streams_to_dram_from_every_node_stay_in_order() {
    let g = Geometry::E16G301;
    let mut mesh = Mesh::new(g, Params::DEFAULT).unwrap();
    let flows: Vec<_> = g
        .nodes()
        .enumerate()
        .map(|(i, n)| Flow::new(n, DRAM + 0x1000 * i as u32, 20))
        .collect();
    let run = drive(&mut mesh, &flows, 20_000);
    assert_eq!(run.arrivals.len(), 16 * 20);
    let mut next = vec![0u64; flows.len()];
    for a in &run.arrivals {
        let f = flow_of(a.tag);
        assert_eq!(seq_of(a.tag), next[f]);
        next[f] += 1;
    }
}
