//! `Mesh::solo_inject` and `Mesh::solo_inject_external` (one packet
//! through an idle network in closed form) against stepping the packet
//! through the model: on many random idle states (left by random traffic:
//! busy links, round-robin pointers, the eLink's last address and busy
//! times), each packet must arrive at the same half cycle and leave the
//! same state and statistics.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use epsim_mesh::{Arrival, Geometry, Kind, Mesh, NodeId, Packet, Params, Round, Side};

fn node_of(g: &Geometry, rng: &mut Rng) -> NodeId {
    NodeId::new(
        g.first_row + rng.below(u64::from(g.rows)) as u32,
        g.first_col + rng.below(u64::from(g.cols)) as u32,
    )
}

/// External memory's base on the side of `g`'s eLink.
fn dram_of(g: &Geometry) -> u32 {
    let off = match g.elink {
        Some(Side::East) | None => NodeId::new(g.first_row, g.first_col + g.cols + 20),
        Some(Side::West) => NodeId::new(g.first_row, g.first_col - 5),
        Some(Side::North) => NodeId::new(g.first_row - 5, g.first_col),
        Some(Side::South) => NodeId::new(g.first_row + g.rows + 5, g.first_col),
    };
    off.addr(0)
}

/// An external node beside [`dram_of`]'s along the chip's edge: its
/// 1-MB page differs, and so does the route a load to it takes.
fn dram_beside(g: &Geometry) -> u32 {
    let n = NodeId::from_addr(dram_of(g));
    let off = match g.elink {
        Some(Side::East | Side::West) | None => NodeId::new(n.row + 1, n.col),
        Some(Side::North | Side::South) => NodeId::new(n.row, n.col + 1),
    };
    off.addr(0)
}

fn bytes_of(rng: &mut Rng) -> u8 {
    [1, 2, 4, 8][rng.below(4) as usize]
}

/// A random packet from a node of `g`: a read or write of DRAM or of a
/// node's SRAM, or (`external`) a response coming in through the eLink.
fn random_packet(g: &Geometry, rng: &mut Rng, tag: u64, next_dram: &mut u32) -> (bool, Packet) {
    let src = node_of(g, rng);
    let bytes = bytes_of(rng);
    let node_addr = node_of(g, rng).addr(rng.below(0x8000) as u32 & !7);
    match rng.below(5) {
        0 | 1 => {
            // DRAM: half the time continuing the last DRAM transaction.
            let addr = if rng.below(2) == 0 {
                *next_dram
            } else {
                dram_of(g) + (rng.below(0x1000) as u32 & !7)
            };
            *next_dram = addr.wrapping_add(u32::from(bytes));
            let kind = if rng.below(3) == 0 {
                Kind::Write
            } else {
                Kind::ReadRequest
            };
            (
                false,
                Packet {
                    tag,
                    kind,
                    src,
                    dst: addr,
                    bytes,
                },
            )
        }
        2 => (
            true,
            Packet {
                tag,
                kind: Kind::ReadResponse,
                src,
                dst: node_addr,
                bytes,
            },
        ),
        3 => (
            false,
            Packet {
                tag,
                kind: Kind::Write,
                src,
                dst: node_addr,
                bytes,
            },
        ),
        _ => (
            false,
            Packet {
                tag,
                kind: Kind::ReadRequest,
                src,
                dst: node_addr,
                bytes,
            },
        ),
    }
}

/// Random traffic from cycle `from`, then the network runs until it is
/// idle.
fn traffic(mesh: &mut Mesh, rng: &mut Rng, from: u64, next_dram: &mut u32) {
    let g = *mesh.geometry();
    let mut out = Vec::new();
    let mut t = from;
    for tag in 0..rng.below(12) {
        t += rng.below(20);
        mesh.advance(t, &mut out);
        let (external, p) = random_packet(&g, rng, 1000 + tag, next_dram);
        // A full queue refuses: fine, the traffic is random anyway.
        let _ = if external {
            mesh.inject_external(t, p)
        } else {
            mesh.inject(t, p)
        };
    }
    while !mesh.is_idle() {
        let b = mesh.earliest_arrival_bound().unwrap();
        mesh.advance(b, &mut out);
    }
}

/// Steps `p` through the model from cycle `t`, as the scheduler does:
/// advance to `t`, inject, advance to each arrival bound until it arrives.
fn stepped(mesh: &mut Mesh, t: u64, external: bool, p: Packet) -> Arrival {
    let mut out = Vec::new();
    mesh.advance(t, &mut out);
    assert!(out.is_empty());
    if external {
        mesh.inject_external(t, p).unwrap();
    } else {
        mesh.inject(t, p).unwrap();
    }
    loop {
        let b = mesh.earliest_arrival_bound().unwrap();
        mesh.advance(b, &mut out);
        if let Some(&a) = out.first() {
            assert_eq!(out.len(), 1);
            return a;
        }
    }
}

fn check(geometry: Geometry, seed: u64, states: usize, lone_trips: &mut u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let (mut solo, mut refused) = (0, 0);
    for _ in 0..states {
        let mut mesh = Mesh::new(geometry, Params::DEFAULT).unwrap();
        let mut next_dram = dram_of(&geometry);
        traffic(&mut mesh, &mut rng, 0, &mut next_dram);
        // A few packets in a row, each alone in the network, sometimes
        // more traffic in between.
        for k in 0..8 {
            if rng.below(4) == 0 {
                // (Other traffic: the solo trips' routers written first.)
                mesh.solo_settle();
                let from = mesh.now() + 1;
                traffic(&mut mesh, &mut rng, from, &mut next_dram);
            }
            let (external, p) = random_packet(&geometry, &mut rng, k, &mut next_dram);
            // Soon after the last packet (its links and the eLink may
            // still be busy) or much later.
            let t = mesh.now()
                + match rng.below(3) {
                    0 => rng.below(4),
                    1 => rng.below(60),
                    _ => rng.below(2000),
                };
            let mut reference = mesh.clone();
            reference.solo_settle();
            reference.step_lone_trips(true);
            // Advancing to the bound with the packet alone in flight: its
            // trip done at once (`Mesh::lone_trip`), the same as stepped.
            let mut lone = reference.clone();
            lone.step_lone_trips(false);
            let want = stepped(&mut reference, t, external, p);
            let before = lone.lone_trips();
            assert_eq!(stepped(&mut lone, t, external, p), want);
            assert_eq!(lone.state_digest(), reference.state_digest());
            *lone_trips += lone.lone_trips() - before;
            reference.step_lone_trips(false);
            let got = if external {
                mesh.solo_inject_external(t, p)
            } else {
                mesh.solo_inject(t, p)
            };
            match got {
                Some(a) => {
                    solo += 1;
                    assert!(a.at - t <= mesh.solo_bound(), "{a:?} from {t}");
                    assert_eq!(a, want, "seed {seed}: {p:?} at {t}");
                    assert_eq!(
                        mesh.state_digest(),
                        reference.state_digest(),
                        "seed {seed}: {p:?} at {t}"
                    );
                }
                None => {
                    refused += 1;
                    mesh = reference;
                }
            }
        }
    }
    (solo, refused)
}

#[test]
fn a_packet_alone_arrives_and_leaves_the_network_as_stepped() {
    let mut lone = 0;
    let (solo, refused) = check(Geometry::E16G301, 7, 400, &mut lone);
    // Nearly every packet of an idle network is timed in closed form.
    assert!(solo > 20 * refused.max(1), "{solo} solo, {refused} refused");
    // Those for a node by advancing to their bound, too.
    assert!(lone > 500, "{lone} lone trips");
}

/// A chip of `rows` x `cols` cores from (32,8), its eLink on `side`.
fn chip(rows: u32, cols: u32, side: Side) -> Geometry {
    Geometry {
        first_row: 32,
        first_col: 8,
        rows,
        cols,
        elink: Some(side),
    }
}

#[test]
fn on_other_chips_and_elink_sides_too() {
    let (mut total, mut lone) = (0, 0);
    for (k, (rows, cols, side)) in [
        (8, 8, Side::East),
        (2, 3, Side::West),
        (4, 4, Side::North),
        (1, 5, Side::South),
    ]
    .into_iter()
    .enumerate()
    {
        total += check(chip(rows, cols, side), 100 + k as u64, 100, &mut lone).0;
    }
    assert!(total > 2000, "{total}");
    assert!(lone > 500, "{lone} lone trips");
}

#[test]
fn nothing_is_done_while_a_packet_is_in_flight() {
    let mut mesh = Mesh::new(Geometry::E16G301, Params::DEFAULT).unwrap();
    let src = NodeId::new(32, 8);
    mesh.inject(0, read(1, src, DRAM)).unwrap();
    let before = mesh.state_digest();
    assert_eq!(mesh.solo_inject(1, read(2, src, DRAM + 8)), None);
    assert_eq!(
        mesh.solo_inject_external(1, write(3, src, src.addr(0))),
        None
    );
    assert_eq!(mesh.state_digest(), before);
}

/// One core's loads from DRAM, each alone in the network, as the
/// scheduler lends it to a core: a read request to external memory and,
/// when it has read, the response back, again and again over the same two
/// routes, with gaps from none (links still busy: the trip waits) to many
/// cycles (the routers' updates are left for later, `Mesh::solo_settle`).
/// Every arrival and, after every packet, the whole state must equal
/// stepping's.
/// After a series of solo trips settled: stepping both networks on from
/// there with the same random traffic leaves them alike.
fn steps_on_alike(
    mesh: &mut Mesh,
    reference: &mut Mesh,
    rng: &mut Rng,
    next_dram: &mut u32,
    seed: u64,
) {
    let from = mesh.now() + 1;
    let more = rng.below(1 << 20) + 1;
    let mut d2 = *next_dram;
    traffic(mesh, &mut Rng::new(more), from, next_dram);
    traffic(reference, &mut Rng::new(more), from, &mut d2);
    assert_eq!(mesh.state_digest(), reference.state_digest(), "seed {seed}");
}

/// Three chips besides the E16G301, their eLinks on other sides.
fn other_chips() -> [Geometry; 3] {
    [(8, 8, Side::East), (2, 3, Side::West), (1, 5, Side::South)].map(|(r, c, s)| chip(r, c, s))
}

fn loads(geometry: Geometry, params: Params, seed: u64, rounds: usize) -> usize {
    let mut rng = Rng::new(seed);
    let mut lazy = 0;
    for _ in 0..rounds {
        let mut mesh = Mesh::new(geometry, params).unwrap();
        let mut next_dram = dram_of(&geometry);
        traffic(&mut mesh, &mut rng, 0, &mut next_dram);
        let mut reference = mesh.clone();
        let src = node_of(&geometry, &mut rng);
        let mut addr = dram_of(&geometry) + (rng.below(0x100) as u32 & !7);
        for k in 0..40 {
            let bytes = bytes_of(&mut rng);
            let gap = match rng.below(4) {
                0 => 0,
                1 => rng.below(8),
                _ => rng.below(200),
            };
            let t = mesh.now() + gap;
            let request = Packet {
                tag: 2 * k,
                kind: Kind::ReadRequest,
                src,
                dst: addr,
                bytes,
            };
            // Byte loads continuing the eLink's burst, or not.
            addr = if rng.below(2) == 0 {
                addr.wrapping_add(u32::from(bytes))
            } else {
                dram_of(&geometry) + (rng.below(0x100) as u32 & !7)
            };
            let want = stepped(&mut reference, t, false, request);
            let Some(got) = mesh.solo_inject(t, request) else {
                mesh.solo_settle();
                assert_eq!(mesh.state_digest(), reference.state_digest());
                break;
            };
            assert_eq!(got, want, "seed {seed}: {request:?} at {t}");
            assert_eq!(mesh.state_digest(), reference.state_digest(), "seed {seed}");
            let leave = got.at + rng.below(3) * 60;
            let response = Packet {
                tag: 2 * k + 1,
                kind: Kind::ReadResponse,
                src,
                dst: src.addr(0x100),
                bytes,
            };
            let want = stepped(&mut reference, leave, true, response);
            let Some(got) = mesh.solo_inject_external(leave, response) else {
                mesh.solo_settle();
                assert_eq!(mesh.state_digest(), reference.state_digest());
                break;
            };
            assert_eq!(got, want, "seed {seed}: {response:?} at {leave}");
            assert_eq!(mesh.state_digest(), reference.state_digest(), "seed {seed}");
            lazy += usize::from(mesh.solo_unsettled());
        }
        mesh.solo_settle();
        assert!(!mesh.solo_unsettled());
        assert_eq!(mesh.state_digest(), reference.state_digest(), "seed {seed}");
        steps_on_alike(&mut mesh, &mut reference, &mut rng, &mut next_dram, seed);
    }
    lazy
}

#[test]
fn a_cores_loads_one_after_another_leave_the_network_as_stepped() {
    let lazy = loads(Geometry::E16G301, Params::DEFAULT, 11, 60);
    // Most trips leave their routers for later.
    assert!(lazy > 60 * 20, "{lazy}");
    // Links slower than a round trip: a trip soon after the last on its
    // route waits at its routers (and must be walked).
    let slow = Params {
        link_interval_half_cycles: 500,
        ..Params::DEFAULT
    };
    loads(Geometry::E16G301, slow, 12, 60);
    for (k, g) in other_chips().into_iter().enumerate() {
        loads(g, Params::DEFAULT, 200 + k as u64, 20);
    }
}

/// Round trips as a core's loads from DRAM make them (`Mesh::solo_round`,
/// which takes a round trip over the ways of the one before without
/// working them out again): from three nodes to two DRAM nodes (more
/// routes than the mesh keeps), sizes and addresses continuing the eLink's
/// burst or not, external memory's reply after a random delay, gaps from
/// none to many cycles, and now and then other traffic between two (the
/// series settled and broken). Every arrival, the cycle external memory
/// saw, and the whole state after each round trip must equal stepping's.
/// Returns how many packets took the kept ways.
fn rounds(geometry: Geometry, params: Params, seed: u64, n: usize) -> u64 {
    let mut rng = Rng::new(seed);
    let mut fast = 0;
    for _ in 0..n {
        let mut mesh = Mesh::new(geometry, params).unwrap();
        let mut next_dram = dram_of(&geometry);
        traffic(&mut mesh, &mut rng, 0, &mut next_dram);
        let mut reference = mesh.clone();
        let srcs: Vec<NodeId> = (0..3).map(|_| node_of(&geometry, &mut rng)).collect();
        let drams = [dram_of(&geometry), dram_of(&geometry) + 0x10_0000];
        let (mut src, mut dram) = (srcs[0], drams[0]);
        let mut addr = dram + (rng.below(0x100) as u32 & !7);
        for k in 0..60 {
            if rng.below(8) == 0 {
                // Another core, or another DRAM node.
                src = srcs[rng.below(3) as usize];
                dram = drams[rng.below(2) as usize];
                addr = dram + (rng.below(0x100) as u32 & !7);
            }
            if rng.below(16) == 0 {
                // Other traffic between two round trips.
                mesh.solo_settle();
                let from = mesh.now() + 1;
                let more = rng.below(1 << 20) + 1;
                let mut d2 = next_dram;
                traffic(&mut mesh, &mut Rng::new(more), from, &mut next_dram);
                traffic(&mut reference, &mut Rng::new(more), from, &mut d2);
            }
            let bytes = bytes_of(&mut rng);
            let gap = match rng.below(4) {
                0 => 0,
                1 => rng.below(8),
                _ => rng.below(200),
            };
            let t = mesh.now() + gap;
            let request = Packet {
                tag: 2 * k,
                kind: Kind::ReadRequest,
                src,
                dst: addr,
                bytes,
            };
            addr = if rng.below(2) == 0 {
                addr.wrapping_add(u32::from(bytes))
            } else {
                dram + (rng.below(0x100) as u32 & !7)
            };
            let response = Packet {
                tag: 2 * k + 1,
                kind: Kind::ReadResponse,
                src,
                dst: src.addr(0x100),
                bytes,
            };
            let delay = match rng.below(3) {
                0 => 0,
                1 => rng.below(4),
                _ => rng.below(3) * 60,
            };
            let mut seen = None;
            let got = mesh.solo_round(t, request, response, |at| {
                seen = Some(at);
                at + delay
            });
            let Round::No = got else {
                let want = stepped(&mut reference, t, false, request);
                assert_eq!(seen, Some(want.at), "seed {seed}: {request:?} at {t}");
                let leave = want.at + delay;
                let back = stepped(&mut reference, leave, true, response);
                match got {
                    Round::Back {
                        arrived,
                        leave: l,
                        back: b,
                    } => {
                        assert_eq!((arrived, l, b), (want, leave, back), "seed {seed}: {k}");
                    }
                    Round::Waits { arrived, leave: l } => {
                        assert_eq!((arrived, l), (want, leave), "seed {seed}: {k}");
                        mesh.solo_settle();
                        assert_eq!(stepped(&mut mesh, leave, true, response), back);
                    }
                    Round::No => unreachable!(),
                }
                assert_eq!(
                    mesh.state_digest(),
                    reference.state_digest(),
                    "seed {seed}: {k}"
                );
                continue;
            };
            assert_eq!(seen, None);
            mesh.solo_settle();
            assert_eq!(
                mesh.state_digest(),
                reference.state_digest(),
                "seed {seed}: {k}"
            );
            break;
        }
        mesh.solo_settle();
        assert_eq!(mesh.state_digest(), reference.state_digest(), "seed {seed}");
        fast += mesh.solo_round_fast();
        steps_on_alike(&mut mesh, &mut reference, &mut rng, &mut next_dram, seed);
    }
    fast
}

#[test]
fn round_trips_over_the_ways_before_leave_the_network_as_stepped() {
    let fast = rounds(Geometry::E16G301, Params::DEFAULT, 21, 60);
    // Most packets take the ways kept.
    assert!(fast > 60 * 60, "{fast}");
    // Links slower than a round trip: the routes wait, the kept ways are
    // refused.
    let slow = Params {
        link_interval_half_cycles: 500,
        ..Params::DEFAULT
    };
    rounds(Geometry::E16G301, slow, 22, 40);
    for (k, g) in other_chips().into_iter().enumerate() {
        rounds(g, Params::DEFAULT, 300 + k as u64, 20);
    }
}

/// One core's series of round trips (`Mesh::solo_round`, as a replayed
/// block's loads) learnt (`Mesh::solo_mark`, `Mesh::solo_rounds_since`)
/// and taken again at once from later bases (`Mesh::solo_rounds_again`):
/// each time it takes them, the network must be as taking each trip
/// leaves it; each time it refuses, unchanged. The bases come from soon
/// after the series before (its links and the eLink still busy: the
/// first trip would wait, refused) to long after; the addresses continue
/// the eLink's transaction or break it as in the series learnt or not.
fn rounds_again(geometry: Geometry, params: Params, seed: u64, n: usize) -> (u64, u64, u64) {
    let mut rng = Rng::new(seed);
    let (mut taken, mut refused, mut more) = (0, 0, 0);
    for _ in 0..n {
        let mut mesh = Mesh::new(geometry, params).unwrap();
        let mut next_dram = dram_of(&geometry);
        traffic(&mut mesh, &mut rng, 0, &mut next_dram);
        mesh.solo_settle();
        let src = node_of(&geometry, &mut rng);
        let dram = dram_of(&geometry);
        let beside = dram_beside(&geometry);
        let mut aside = Rng::new(seed ^ 0xa51de);
        let count = 1 + rng.below(4) as usize;
        // The series: issues relative to its base, reads' delays, sizes.
        let mut issue = Vec::new();
        let mut at = 0;
        for _ in 0..count {
            issue.push(at);
            at += rng.below(40);
        }
        let delays: Vec<u64> = (0..count).map(|_| rng.below(3) * 7).collect();
        let sizes: Vec<u8> = (0..count).map(|_| bytes_of(&mut rng)).collect();
        // (Each series' first address continues the one before half the
        // time.)
        let mut next = dram;
        let mut addrs = |rng: &mut Rng| -> Vec<(u32, u8)> {
            let mut a = if rng.below(2) == 0 {
                next
            } else {
                dram + (rng.below(0x100) as u32 & !7)
            };
            let mut loads: Vec<(u32, u8)> = (0..count)
                .map(|j| {
                    let l = (a, sizes[j]);
                    a = if rng.below(2) == 0 {
                        a + u32::from(sizes[j])
                    } else {
                        dram + (rng.below(0x100) as u32 & !7)
                    };
                    l
                })
                .collect();
            // Now and then one load to another node's page: the way the
            // series learnt does not take it.
            // (Chosen apart, the series' other draws as before.)
            if aside.below(8) == 0 {
                let j = aside.below(count as u64) as usize;
                loads[j].0 = beside | (loads[j].0 & 0xf_ffff);
            }
            next = a;
            loads
        };
        let send = |mesh: &mut Mesh, t0: u64, loads: &[(u32, u8)]| -> Option<u64> {
            let mut leave1 = None;
            for (j, &(addr, bytes)) in loads.iter().enumerate() {
                let request = Packet {
                    tag: 2 * j as u64,
                    kind: Kind::ReadRequest,
                    src,
                    dst: addr,
                    bytes,
                };
                let response = Packet {
                    tag: 2 * j as u64 + 1,
                    kind: Kind::ReadResponse,
                    src,
                    dst: src.addr(0x100),
                    bytes,
                };
                match mesh.solo_round(t0 + issue[j], request, response, |at| at + delays[j]) {
                    Round::Back { leave, .. } => {
                        leave1.get_or_insert(leave);
                    }
                    _ => return None,
                }
            }
            leave1
        };
        // Warm the ways up, then learn the series.
        let mut t0 = mesh.now() + 1;
        let first = addrs(&mut rng);
        let Some(_) = send(&mut mesh, t0, &first) else {
            continue;
        };
        t0 = mesh.now() + 1 + rng.below(100);
        let loads = addrs(&mut rng);
        let Some(mark) = mesh.solo_mark() else {
            continue;
        };
        let Some(leave1) = send(&mut mesh, t0, &loads) else {
            continue;
        };
        let Some(learnt) = mesh.solo_rounds_since(&mark, t0, t0 + issue[0], leave1, &loads) else {
            continue;
        };
        for _ in 0..30 {
            // From the base before: the first trip may issue before the
            // last response is back (refused), soon after, or long after.
            t0 += match rng.below(3) {
                0 => rng.below(40),
                1 => rng.below(200),
                _ => 100 + rng.below(400),
            };
            let loads = addrs(&mut rng);
            let before = mesh.state_digest();
            let mut each = mesh.clone();
            // (A series with a load to another node is not sent when
            // refused: the ways it would keep end the series learnt.)
            let elsewhere = loads.iter().any(|&(a, _)| a >> 20 == beside >> 20);
            let took = mesh.solo_rounds_again(&learnt, t0, &loads);
            if elsewhere && !took {
                refused += 1;
                assert_eq!(mesh.state_digest(), before, "seed {seed}");
                continue;
            }
            if took {
                taken += 1;
                assert!(send(&mut each, t0, &loads).is_some(), "seed {seed}");
                assert_eq!(mesh.state_digest(), each.state_digest(), "seed {seed}");
                // Half the time, more series each `gap` after the one
                // before: as many as `solo_rounds_again` takes one by one
                // (each fitting: `solo_rounds_fit`), then taken at once by
                // `solo_rounds_more`.
                if rng.below(2) == 0 {
                    let gap = 1 + rng.below(300);
                    let mut one = mesh.clone();
                    let (mut m, mut last) = (0, None);
                    let mut after = loads.last().map(|&(a, b)| a + u32::from(b));
                    for _ in 0..1 + rng.below(6) {
                        let series = addrs(&mut rng);
                        let t = t0 + (m + 1) * gap;
                        let fits = Mesh::solo_rounds_fit(&learnt, after, &series);
                        if !fits {
                            // (What does not fit is refused.)
                            assert!(
                                !one.clone().solo_rounds_again(&learnt, t, &series),
                                "seed {seed}"
                            );
                            break;
                        }
                        if !one.solo_rounds_again(&learnt, t, &series) {
                            break;
                        }
                        m += 1;
                        last = series.last().copied();
                        after = last.map(|(a, b)| a + u32::from(b));
                    }
                    if m > 0 {
                        mesh.solo_rounds_more(&learnt, t0 + m * gap, m, last);
                        assert_eq!(mesh.state_digest(), one.state_digest(), "seed {seed}");
                        t0 += m * gap;
                        more += 1;
                    }
                }
            } else {
                refused += 1;
                assert_eq!(mesh.state_digest(), before, "seed {seed}");
                if send(&mut mesh, t0, &loads).is_none() {
                    // (Refused too: on from the network's clock.)
                    t0 = mesh.now() + 1;
                }
            }
        }
        mesh.solo_settle();
        let mut reference = mesh.clone();
        steps_on_alike(&mut mesh, &mut reference, &mut rng, &mut next_dram, seed);
    }
    (taken, refused, more)
}

#[test]
fn a_series_of_round_trips_taken_again_at_once_leaves_the_network_as_each() {
    let (taken, refused, more) = rounds_again(Geometry::E16G301, Params::DEFAULT, 41, 200);
    assert!(
        taken > 500 && refused > 500 && more > 100,
        "{taken} taken, {refused} refused, {more} more at once"
    );
    // Links slower than a round trip: a series' first trip waits for the
    // routes the one before took.
    let slow = Params {
        link_interval_half_cycles: 300,
        ..Params::DEFAULT
    };
    let (taken, refused, _) = rounds_again(Geometry::E16G301, slow, 42, 100);
    assert!(
        taken > 10 && refused > 40,
        "{taken} taken, {refused} refused"
    );
    for (k, g) in other_chips().into_iter().enumerate() {
        rounds_again(g, Params::DEFAULT, 400 + k as u64, 40);
    }
}

/// `Mesh::lone_moves`: advancing while every packet in the network is
/// alone on its net moves each at once, as stepping would. Two networks
/// take the same sparse random traffic (writes and read requests between
/// nodes, now and then a packet through the eLink), one stepping every
/// packet (`step_lone_trips(true)`), and are advanced to the same random
/// cycles (packets often left midway), some with a node's queue watched:
/// the same arrivals, freed places, cycles reached and state after each.
fn lone_moves_check(geometry: Geometry, seed: u64, rounds: usize) -> u64 {
    let mut rng = Rng::new(seed);
    let mut stepped = Mesh::new(geometry, Params::DEFAULT).unwrap();
    stepped.step_lone_trips(true);
    let mut lone = Mesh::new(geometry, Params::DEFAULT).unwrap();
    let mut next_dram = dram_of(&geometry);
    let (mut out_s, mut out_l) = (Vec::new(), Vec::new());
    let (mut freed_s, mut freed_l) = (Vec::new(), Vec::new());
    for tag in 0..rounds as u64 {
        // A packet now and then: mostly between nodes, on either net.
        if rng.below(3) != 0 {
            let t = stepped.now() + rng.below(3);
            let (external, p) = match rng.below(10) {
                0 => random_packet(&geometry, &mut rng, tag, &mut next_dram),
                k => {
                    let kind = if k % 2 == 0 {
                        Kind::Write
                    } else {
                        Kind::ReadRequest
                    };
                    let src = node_of(&geometry, &mut rng);
                    let dst = node_of(&geometry, &mut rng).addr(0x100);
                    (
                        false,
                        Packet {
                            tag,
                            kind,
                            src,
                            dst,
                            bytes: 4,
                        },
                    )
                }
            };
            let (a, b) = if external {
                (stepped.inject_external(t, p), lone.inject_external(t, p))
            } else {
                (stepped.inject(t, p), lone.inject(t, p))
            };
            assert_eq!(a, b, "seed {seed}, packet {tag}");
            if !external && rng.below(6) == 0 {
                // Another behind it in its node's queue.
                let q = Packet {
                    tag: tag | 1 << 40,
                    ..p
                };
                assert_eq!(stepped.inject(t, q), lone.inject(t, q));
            }
        }
        if rng.below(4) == 0 {
            let n = node_of(&geometry, &mut rng);
            assert_eq!(stepped.watch_queue(n), lone.watch_queue(n));
        }
        // To the next arrival, or a few cycles on.
        // (Both asked: a bound is worked out when first asked for.)
        let bound = stepped.earliest_arrival_bound();
        assert_eq!(
            bound,
            lone.earliest_arrival_bound(),
            "seed {seed}, round {tag}"
        );
        let to = match (rng.below(3), bound) {
            (0, Some(b)) => b,
            _ => stepped.now() + rng.below(12),
        };
        let (a, b) = if rng.below(2) == 0 {
            (
                stepped.advance_until_freed(to, &mut out_s, &mut freed_s),
                lone.advance_until_freed(to, &mut out_l, &mut freed_l),
            )
        } else {
            stepped.advance(to, &mut out_s);
            lone.advance(to, &mut out_l);
            (stepped.now(), lone.now())
        };
        let at = format!("seed {seed}, round {tag}, to {to}");
        assert_eq!(a, b, "{at}");
        assert_eq!(out_s, out_l, "{at}");
        assert_eq!(freed_s, freed_l, "{at}");
        assert_eq!(
            stepped.earliest_arrival_bound(),
            lone.earliest_arrival_bound(),
            "{at}"
        );
        assert_eq!(stepped.next_event(), lone.next_event(), "{at}");
        assert_eq!(lone.state_digest(), stepped.state_digest(), "{at}");
    }
    lone.lone_moves_made()
}

#[test]
fn packets_alone_on_their_nets_move_as_stepped() {
    let mut moved = lone_moves_check(Geometry::E16G301, 11, 20_000);
    for (k, (rows, cols, side)) in [(8, 8, Side::East), (2, 3, Side::West), (1, 5, Side::South)]
        .into_iter()
        .enumerate()
    {
        moved += lone_moves_check(chip(rows, cols, side), 200 + k as u64, 5_000);
    }
    assert!(moved > 5_000, "{moved} advances with lone moves");
}
