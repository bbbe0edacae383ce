//! Off-chip traffic through the east eLink, with the documented
//! calibration (mesh/MESH.md): 18 cycles per transaction that continues
//! the previous one, 8 more when it does not (a broken burst).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use epsim_mesh::{Dest, Dir, Geometry, InjectError, Kind, Mesh, Net, NodeId, Packet, Params, Side};

fn e16() -> Mesh {
    Mesh::new(Geometry::E16G301, Params::DEFAULT).unwrap()
}

#[test]
fn a_store_to_dram_leaves_through_the_elink() {
    let mut mesh = e16();
    let src = NodeId::new(32, 8);
    let mut out = Vec::new();
    mesh.inject(0, write(7, src, DRAM)).unwrap();
    mesh.advance(100, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to, Dest::External);
    assert_eq!(out[0].net, Net::XMesh);
    // 2 (entry) + 3 hops to the edge router + 1 hop into the eLink port,
    // 3 half cycles each = 14; then the first transaction opens a burst:
    // (18 + 8) cycles = 52. 66 half cycles = cycle 33.
    assert_eq!(out[0].at_half, 66);
    assert_eq!(out[0].at, 33);
    // min_latency is the continuing-burst case: (2 + 12 + 36) / 2.
    assert_eq!(mesh.min_latency(src, Dest::External, Kind::Write), Some(25));
    let e = mesh.stats().elink();
    assert_eq!(
        (e.tx.packets, e.tx.busy_half_cycles, e.tx_breaks),
        (1, 52, 1)
    );
    for col in 8..=11 {
        let l = mesh
            .link_load(Net::XMesh, NodeId::new(32, col), Dir::East)
            .unwrap();
        assert_eq!(l.packets, 1);
    }
}

fn external_gaps(arrivals: &[epsim_mesh::Arrival]) -> Vec<u64> {
    let ext: Vec<_> = arrivals
        .iter()
        .filter(|a| a.to == Dest::External)
        .map(|a| a.at)
        .collect();
    ext.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn a_stream_of_stores_costs_18_cycles_each() {
    let mut mesh = e16();
    let run = drive(&mut mesh, &[Flow::new(NodeId::new(32, 8), DRAM, 100)], 2000);
    assert_eq!(run.arrivals.len(), 100);
    assert_eq!(run.arrivals[0].at, 33);
    assert!(external_gaps(&run.arrivals).iter().all(|&g| g == 18));
    assert_eq!(mesh.stats().elink().tx_breaks, 1);
    // The core is throttled to the link: after the pipeline fills, one
    // accepted store per 18 cycles.
    let acc = &run.accepted[0];
    assert!(acc[20..].windows(2).all(|w| w[1] - w[0] == 18));
}

#[test]
fn the_cost_is_per_transaction_whatever_the_size() {
    // Ascending 4-byte stores continue the burst just the same.
    let mut mesh = e16();
    let src = NodeId::new(33, 11);
    let mut out = Vec::new();
    let mut t = 0;
    let mut i = 0u32;
    while i < 20 {
        mesh.advance(t, &mut out);
        let p = Packet {
            tag: i.into(),
            kind: Kind::Write,
            src,
            dst: DRAM + 4 * i,
            bytes: 4,
        };
        if mesh.inject(t, p).is_ok() {
            i += 1;
        }
        t += 1;
    }
    mesh.advance(t + 1000, &mut out);
    assert!(external_gaps(&out).iter().all(|&g| g == 18));
}

#[test]
fn descending_stores_break_every_burst() {
    let mut mesh = e16();
    let src = NodeId::new(32, 8);
    let mut out = Vec::new();
    let mut t = 0;
    let mut i = 0u32;
    while i < 20 {
        mesh.advance(t, &mut out);
        if mesh
            .inject(t, write(i.into(), src, DRAM + 0x1000 - 8 * i))
            .is_ok()
        {
            i += 1;
        }
        t += 1;
    }
    mesh.advance(t + 1000, &mut out);
    assert!(external_gaps(&out).iter().all(|&g| g == 26));
    assert_eq!(mesh.stats().elink().tx_breaks, 20);
}

#[test]
fn sixteen_cores_share_the_elink_at_26_cycles_per_transaction() {
    // Every core streams ascending 8-byte stores into its own DRAM area.
    // The eLink takes its four row ports in turn, so consecutive
    // transactions never continue each other: 26 cycles each in total
    // (8 B / 26 cycles · 600 MHz ≈ 185 MB/s), 416 per core on average.
    let mut mesh = e16();
    let g = Geometry::E16G301;
    let flows: Vec<_> = g
        .nodes()
        .enumerate()
        .map(|(i, n)| Flow::new(n, DRAM + 0x10_0000 * i as u32, u64::MAX))
        .collect();
    let run = drive(&mut mesh, &flows, 30_000);
    let window: Vec<_> = run
        .arrivals
        .iter()
        .filter(|a| (1000..27_000).contains(&a.at))
        .collect();
    assert_eq!(window.len(), 1000);
    for w in window.windows(2) {
        assert_eq!(w[1].at - w[0].at, 26);
        // Rows take turns.
        let row = |tag| flows[flow_of(tag)].src.row;
        assert_eq!((row(w[0].tag) - 32 + 1) % 4, row(w[1].tag) - 32);
    }
    // Round robin between rows: a quarter each. Within a row, each router
    // alternates between the traffic from the west and its own core, so
    // the core nearest the edge gets half the row's share, the next a
    // quarter, the last two an eighth each.
    let per_flow = |f: usize| window.iter().filter(|a| flow_of(a.tag) == f).count();
    for row in 0..4 {
        let shares: Vec<_> = (0..4).map(|c| per_flow(4 * row + c)).collect();
        assert_eq!(shares.iter().sum::<usize>(), 250);
        assert!(shares[3].abs_diff(125) <= 1, "{shares:?}");
        assert!(shares[2].abs_diff(62) <= 1, "{shares:?}");
        assert!(shares[1].abs_diff(31) <= 1, "{shares:?}");
        assert!(shares[0].abs_diff(31) <= 1, "{shares:?}");
    }
}

#[test]
fn a_dram_read_goes_out_on_the_rmesh_and_comes_back_through_the_elink() {
    let mut mesh = e16();
    let core = NodeId::new(32, 8);
    let mut out = Vec::new();
    mesh.inject(0, read(1, core, DRAM + 0x40)).unwrap();
    mesh.advance(1000, &mut out);
    assert_eq!(out.len(), 1);
    // 1 (rMesh entry) + 4 hops · 3 = 13, + 52 (first transaction) = 65.
    assert_eq!(
        (out[0].to, out[0].net, out[0].at),
        (Dest::External, Net::RMesh, 33)
    );
    // The DRAM model answers 100 cycles later.
    let resp = Packet {
        tag: 2,
        kind: Kind::ReadResponse,
        src: core, // ignored
        dst: at(core, 0x7000),
        bytes: 8,
    };
    mesh.inject_external(1133, resp).unwrap();
    out.clear();
    mesh.advance(2000, &mut out);
    // Link starts at 1134 (rx latency 1), carries it 18 cycles, enters
    // (32,11) from the east and crosses 3 hops west: 2 + 36 + 9 = 47 half
    // cycles = 24 cycles.
    assert_eq!(mesh.min_latency_from_elink(core), Some(24));
    assert_eq!(out.len(), 1);
    assert_eq!(
        (out[0].to, out[0].net, out[0].at),
        (Dest::Node(core), Net::CMesh, 1157)
    );
    let l = mesh
        .link_load(Net::CMesh, NodeId::new(32, 11), Dir::West)
        .unwrap();
    assert_eq!(l.packets, 1);
    assert_eq!(mesh.stats().elink().rx.packets, 1);
}

#[test]
fn host_reads_of_core_memory_answer_over_the_xmesh() {
    let mut mesh = e16();
    let core = NodeId::new(35, 9);
    let mut out = Vec::new();
    let req = Packet {
        tag: 1,
        kind: Kind::ReadRequest,
        src: core,
        dst: at(core, 0x100),
        bytes: 4,
    };
    mesh.inject_external(0, req).unwrap();
    mesh.advance(100, &mut out);
    // Enters (35,11) from the east: 2 + 36 + 2 hops · 3 = 44 → 22.
    assert_eq!(
        (out[0].to, out[0].net, out[0].at),
        (Dest::Node(core), Net::RMesh, 22)
    );
    let resp = Packet {
        tag: 2,
        kind: Kind::ReadResponse,
        src: core,
        dst: 0x8F00_0000,
        bytes: 4,
    };
    mesh.inject(100, resp).unwrap();
    out.clear();
    mesh.advance(1000, &mut out);
    assert_eq!((out[0].to, out[0].net), (Dest::External, Net::XMesh));
}

#[test]
fn the_receive_side_takes_18_cycles_per_transaction_and_queues_8() {
    let mut mesh = e16();
    let core = NodeId::new(33, 10);
    for i in 0..8 {
        mesh.inject_external(0, write(i, core, at(core, 8 * i as u32)))
            .unwrap();
    }
    assert_eq!(
        mesh.inject_external(0, write(9, core, at(core, 0))),
        Err(InjectError::Full)
    );
    let mut out = Vec::new();
    mesh.advance(1000, &mut out);
    let ats: Vec<_> = out.iter().map(|a| a.at).collect();
    // First: 2 + 36 + 3 = 41 half cycles → 21; then one per 18 cycles.
    assert_eq!(ats, [21, 39, 57, 75, 93, 111, 129, 147]);
}

#[test]
fn refused_packets() {
    let mut mesh = e16();
    let core = NodeId::new(32, 8);
    // Off-chip to the west and south: no eLink there (isa.md §4.4).
    assert_eq!(
        mesh.inject(0, write(1, core, 0x8000_0000)),
        Err(InjectError::NoRoute {
            addr: 0x8000_0000,
            exit: Side::West
        })
    );
    assert_eq!(
        mesh.inject(0, read(1, core, 0x9080_0000)),
        Err(InjectError::NoRoute {
            addr: 0x9080_0000,
            exit: Side::South
        })
    );
    assert_eq!(
        mesh.inject(0, write(1, NodeId::new(40, 8), at(core, 0))),
        Err(InjectError::SourceOffChip(NodeId::new(40, 8)))
    );
    let mut p = write(1, core, DRAM);
    p.bytes = 3;
    assert_eq!(mesh.inject(0, p), Err(InjectError::BadSize(3)));
    assert_eq!(
        mesh.inject_external(0, write(1, core, DRAM)),
        Err(InjectError::NotOnChip(DRAM))
    );
    let mut out = Vec::new();
    mesh.advance(10, &mut out);
    assert_eq!(
        mesh.inject(9, write(1, core, DRAM)),
        Err(InjectError::Past {
            t: 9,
            not_before: 10
        })
    );
    mesh.inject(12, write(1, core, DRAM)).unwrap();
    assert_eq!(
        mesh.inject(11, write(2, core, DRAM)),
        Err(InjectError::Past {
            t: 11,
            not_before: 12
        })
    );
    let bare = Mesh::new(Geometry::new(32, 8, 4, 4, None), Params::DEFAULT).unwrap();
    let mut bare2 = bare.clone();
    assert_eq!(
        bare2.inject(0, write(1, core, DRAM)),
        Err(InjectError::NoRoute {
            addr: DRAM,
            exit: Side::East
        })
    );
    assert_eq!(
        bare2.inject_external(0, write(1, core, at(core, 0))),
        Err(InjectError::NoELink)
    );
    assert!(bare.is_idle() && bare2.is_idle());
}
