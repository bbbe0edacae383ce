//! Uncontended latencies and XY routes, from the documented parameters
//! (mesh/MESH.md): a one-way trip is `entry + 3 · hops` half cycles, with
//! entry 2 on the cMesh/xMesh and 1 on the rMesh, rounded up to a cycle.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use epsim_mesh::{Dest, Dir, Geometry, Kind, Link, Mesh, Net, NodeId, Params, Side};

fn e16() -> Mesh {
    Mesh::new(Geometry::E16G301, Params::DEFAULT).unwrap()
}

/// Sends one packet alone at cycle `t0` and returns its arrival.
fn lone(mesh: &mut Mesh, t0: u64, p: epsim_mesh::Packet) -> epsim_mesh::Arrival {
    let mut out = Vec::new();
    mesh.advance(t0, &mut out);
    mesh.inject(t0, p).unwrap();
    mesh.advance(t0 + 10_000, &mut out);
    assert_eq!(out.len(), 1);
    out[0]
}

#[test]
fn write_latency_for_every_distance_on_the_e16() {
    // ceil((2 + 3h) / 2) = 1 + ceil(1.5 h): the 1.5 cycles per hop of
    // isa.md §7.3, plus one cycle into the router.
    const BY_HOPS: [u64; 7] = [1, 3, 4, 6, 7, 9, 10];
    let g = Geometry::E16G301;
    for src in g.nodes() {
        for dst in g.nodes() {
            let h = src.hops(dst) as usize;
            for t0 in [0, 7] {
                let mut mesh = e16();
                let a = lone(&mut mesh, t0, write(1, src, at(dst, 0x100)));
                assert_eq!(a.to, Dest::Node(dst));
                assert_eq!(a.net, Net::CMesh);
                assert_eq!(a.at - t0, BY_HOPS[h], "{src} -> {dst}");
                assert_eq!(a.at_half - 2 * t0, 2 + 3 * h as u64);
                assert_eq!(
                    mesh.min_latency(src, Dest::Node(dst), Kind::Write),
                    Some(BY_HOPS[h])
                );
            }
        }
    }
}

#[test]
fn read_request_latency_for_every_distance() {
    // rMesh: ceil((1 + 3h) / 2).
    const BY_HOPS: [u64; 7] = [1, 2, 4, 5, 7, 8, 10];
    let g = Geometry::E16G301;
    let src = NodeId::new(32, 8);
    for dst in g.nodes() {
        let h = src.hops(dst) as usize;
        let mut mesh = e16();
        let a = lone(&mut mesh, 0, read(1, src, at(dst, 0)));
        assert_eq!(a.net, Net::RMesh);
        assert_eq!(a.at, BY_HOPS[h]);
        assert_eq!(
            mesh.min_latency(src, Dest::Node(dst), Kind::ReadRequest),
            Some(BY_HOPS[h])
        );
    }
}

#[test]
fn read_round_trip_is_3_per_hop_plus_2() {
    // Request on the rMesh, response injected at the responder in the
    // cycle the request arrives: ceil((1+3h)/2) + ceil((2+3h)/2) = 3h + 2
    // for every h. The simulator adds 12 for a bare load's 14 + 3h
    // (sim/TIMING.md, `remote_read_extra`).
    let g = Geometry::E16G301;
    for a in g.nodes() {
        for b in g.nodes() {
            let mut mesh = e16();
            let mut out = Vec::new();
            mesh.inject(0, read(1, a, at(b, 0x40))).unwrap();
            let mut t = 0;
            while out.is_empty() {
                t += 1;
                mesh.advance(t, &mut out);
            }
            let req = out.pop().unwrap();
            assert_eq!(req.to, Dest::Node(b));
            let resp = epsim_mesh::Packet {
                tag: 2,
                kind: Kind::ReadResponse,
                src: b,
                dst: at(a, 0x7000),
                bytes: 8,
            };
            mesh.inject(req.at, resp).unwrap();
            mesh.advance(req.at + 100, &mut out);
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].net, Net::CMesh);
            assert_eq!(out[0].to, Dest::Node(a));
            assert_eq!(out[0].at, 3 * u64::from(a.hops(b)) + 2, "{a} <-> {b}");
        }
    }
}

#[test]
fn corner_to_corner_on_a_64x64_mesh() {
    let g = Geometry::new(0, 0, 64, 64, None);
    let mut mesh = Mesh::new(g, Params::DEFAULT).unwrap();
    let (nw, se) = (NodeId::new(0, 0), NodeId::new(63, 63));
    let a = lone(&mut mesh, 0, write(9, nw, at(se, 0)));
    // 126 hops: 2 + 378 half cycles = 190 cycles.
    assert_eq!(a.at_half, 380);
    assert_eq!(a.at, 190);
    assert_eq!(mesh.min_latency(nw, Dest::Node(se), Kind::Write), Some(190));
    // One simulated step per router on the way (plus the injection).
    assert!(
        mesh.stats().totals().steps <= 130,
        "{:?}",
        mesh.stats().totals()
    );
    let b = lone(&mut mesh, 20_000, write(10, se, at(nw, 0)));
    assert_eq!(b.at, 20_190);
}

#[test]
fn edge_to_edge_on_the_e64_is_12_cycles() {
    // ARCH-MD's example: crossing a 64-core chip (7 hops) is about 12
    // cycles: 1 + ceil(10.5) = 12.
    let mut mesh = Mesh::new(Geometry::E64G401, Params::DEFAULT).unwrap();
    let (w, e) = (NodeId::new(35, 8), NodeId::new(35, 15));
    assert_eq!(lone(&mut mesh, 0, write(1, w, at(e, 0))).at, 12);
}

/// Links that carried at least one packet on `net`.
fn used_links(mesh: &Mesh, net: Net) -> Vec<Link> {
    let g = *mesh.geometry();
    let mut used = Vec::new();
    for node in g.nodes() {
        for dir in Dir::ALL {
            let l = mesh.link_load(net, node, dir).unwrap();
            if l.packets > 0 {
                assert_eq!(l.packets, 1);
                assert_eq!(l.busy_half_cycles, 2);
                used.push(Link { node, dir });
            }
        }
    }
    used
}

fn sorted(mut v: Vec<Link>) -> Vec<Link> {
    v.sort_by_key(|l| (l.node, l.dir));
    v
}

#[test]
fn xy_route_goes_column_first_then_row() {
    let g = Geometry::E16G301;
    let l = |row, col, dir| Link {
        node: NodeId::new(row, col),
        dir,
    };
    let cases = [
        (
            NodeId::new(32, 8),
            NodeId::new(35, 11),
            vec![
                l(32, 8, Dir::East),
                l(32, 9, Dir::East),
                l(32, 10, Dir::East),
                l(32, 11, Dir::South),
                l(33, 11, Dir::South),
                l(34, 11, Dir::South),
                l(35, 11, Dir::Local),
            ],
        ),
        (
            NodeId::new(35, 11),
            NodeId::new(33, 9),
            vec![
                l(35, 11, Dir::West),
                l(35, 10, Dir::West),
                l(35, 9, Dir::North),
                l(34, 9, Dir::North),
                l(33, 9, Dir::Local),
            ],
        ),
    ];
    for (src, dst, path) in cases {
        assert_eq!(g.route(src, at(dst, 0)).unwrap(), path);
        let mut mesh = e16();
        lone(&mut mesh, 0, write(1, src, at(dst, 0)));
        assert_eq!(used_links(&mesh, Net::CMesh), sorted(path));
        assert!(used_links(&mesh, Net::RMesh).is_empty());
    }
    // Every pair: the route stats match Geometry::route, and no route
    // turns from a row move back to a column move.
    for src in g.nodes() {
        for dst in g.nodes() {
            let path = g.route(src, at(dst, 0)).unwrap();
            let first_row_move = path
                .iter()
                .position(|l| matches!(l.dir, Dir::North | Dir::South))
                .unwrap_or(path.len());
            assert!(path[first_row_move..]
                .iter()
                .all(|l| !matches!(l.dir, Dir::East | Dir::West)));
            assert_eq!(path.len() as u32, src.hops(dst) + 1);
            let mut mesh = e16();
            lone(&mut mesh, 0, read(1, src, at(dst, 0)));
            assert_eq!(used_links(&mesh, Net::RMesh), sorted(path));
        }
    }
}

#[test]
fn external_route_leaves_through_the_east_edge_of_its_row() {
    let g = Geometry::E16G301;
    let src = NodeId::new(34, 9);
    let path = g.route(src, DRAM).unwrap();
    let l = |col, dir| Link {
        node: NodeId::new(34, col),
        dir,
    };
    assert_eq!(
        path,
        vec![l(9, Dir::East), l(10, Dir::East), l(11, Dir::East)]
    );
    let mut mesh = e16();
    let a = lone(&mut mesh, 0, write(1, src, DRAM));
    assert_eq!(a.to, Dest::External);
    assert_eq!(a.net, Net::XMesh);
    assert_eq!(used_links(&mesh, Net::XMesh), path);
    assert_eq!(g.elink, Some(Side::East));
}
