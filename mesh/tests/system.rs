//! Random mixed traffic through a small "system" around the mesh: reads
//! are answered at the node that owns the address (in the cycle the
//! request arrives) or by a DRAM model 50 cycles after the request leaves
//! through the eLink. Checks ordering, exactly-once delivery, determinism,
//! independence from how the caller advances, the scheduler bounds, and
//! that idle time costs nothing.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{BTreeMap, VecDeque};

use common::*;
use epsim_mesh::{
    Arrival, Cycle, Dest, Geometry, InjectError, Kind, Mesh, Net, NodeId, Packet, Params,
};

const DRAM_LATENCY: Cycle = 50;

/// Where a packet is injected from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Node(NodeId),
    ELink,
}

#[derive(Clone, Debug)]
struct Sent {
    place: Place,
    p: Packet,
    /// The address a response goes back to (read requests).
    reply_to: u32,
    accepted: Option<Cycle>,
    /// Position in the order of all accepted injections.
    order: u64,
    arrival: Option<Arrival>,
}

struct System {
    mesh: Mesh,
    sent: Vec<Sent>,
    /// Per place, in order: (earliest cycle, tag).
    pending: BTreeMap<Place, VecDeque<(Cycle, u64)>>,
    /// Planned first injections, by cycle.
    plan: VecDeque<(Cycle, u64)>,
    arrivals: Vec<Arrival>,
    /// (cycle, destination, bound) as seen after each visit.
    bounds: Vec<(Cycle, Option<Dest>, Option<Cycle>)>,
    record_bounds: bool,
    full_seen: bool,
    injections: u64,
}

fn random_plan(
    geo: Geometry,
    seed: u64,
    packets: u64,
    horizon: Cycle,
) -> (Vec<Sent>, VecDeque<(Cycle, u64)>) {
    let mut rng = Rng::new(seed);
    let nodes: Vec<_> = geo.nodes().collect();
    let mut sent = Vec::new();
    let mut plan = Vec::new();
    for tag in 0..packets {
        let src = nodes[rng.below(nodes.len() as u64) as usize];
        let dst_node = nodes[rng.below(nodes.len() as u64) as usize];
        let off = 8 * rng.below(0x800) as u32;
        let (kind, dst) = match rng.below(20) {
            0 => (Kind::Write, DRAM + off),
            1 => (Kind::ReadRequest, DRAM + off),
            2..=7 => (Kind::ReadRequest, at(dst_node, off)),
            _ => (Kind::Write, at(dst_node, off)),
        };
        let bytes = [1, 2, 4, 8][rng.below(4) as usize];
        sent.push(Sent {
            place: Place::Node(src),
            p: Packet {
                tag,
                kind,
                src,
                dst,
                bytes,
            },
            reply_to: at(src, 0x7000 + 8 * (tag as u32 % 64)),
            accepted: None,
            order: 0,
            arrival: None,
        });
        plan.push((rng.below(horizon), tag));
    }
    plan.sort();
    (sent, plan.into())
}

impl System {
    fn new(geo: Geometry, seed: u64, packets: u64, horizon: Cycle) -> System {
        let (sent, plan) = random_plan(geo, seed, packets, horizon);
        System {
            mesh: Mesh::new(geo, Params::DEFAULT).unwrap(),
            sent,
            pending: BTreeMap::new(),
            plan,
            arrivals: Vec::new(),
            bounds: Vec::new(),
            record_bounds: false,
            full_seen: false,
            injections: 0,
        }
    }

    /// Advances to `t`, answers reads that arrived, injects what is due.
    fn visit(&mut self, t: Cycle) {
        let mut out = Vec::new();
        self.mesh.advance(t, &mut out);
        for a in &out {
            assert!(a.at <= t);
            let s = &mut self.sent[a.tag as usize];
            assert!(s.arrival.is_none(), "delivered twice: {a:?}");
            s.arrival = Some(*a);
            if s.p.kind != Kind::ReadRequest {
                continue;
            }
            let (requester, reply_to, bytes) = (s.p.src, s.reply_to, s.p.bytes);
            // The response, back to the requester.
            let (place, when) = match a.to {
                Dest::Node(n) => (Place::Node(n), a.at),
                Dest::External => (Place::ELink, a.at + DRAM_LATENCY),
            };
            let src = match a.to {
                Dest::Node(n) => n,
                Dest::External => requester,
            };
            let tag = self.sent.len() as u64;
            let reply = Packet {
                tag,
                kind: Kind::ReadResponse,
                src,
                dst: reply_to,
                bytes,
            };
            self.sent.push(Sent {
                place,
                p: reply,
                reply_to: 0,
                accepted: None,
                order: 0,
                arrival: None,
            });
            self.pending
                .entry(place)
                .or_default()
                .push_back((when, tag));
        }
        self.arrivals.extend(out);
        while let Some(&(c, tag)) = self.plan.front() {
            if c > t {
                break;
            }
            self.plan.pop_front();
            let place = self.sent[tag as usize].place;
            self.pending.entry(place).or_default().push_back((c, tag));
        }
        self.full_seen = false;
        for (place, q) in self.pending.iter_mut() {
            while let Some(&(c, tag)) = q.front() {
                if c > t {
                    break;
                }
                let s = &mut self.sent[tag as usize];
                let r = match place {
                    Place::Node(_) => self.mesh.inject(t, s.p),
                    Place::ELink => self.mesh.inject_external(t, s.p),
                };
                match r {
                    Ok(()) => {
                        s.accepted = Some(t);
                        s.order = self.injections;
                        self.injections += 1;
                        q.pop_front();
                    }
                    Err(InjectError::Full) => {
                        self.full_seen = true;
                        break;
                    }
                    Err(e) => panic!("{e}"),
                }
            }
        }
        if self.record_bounds {
            let geo = *self.mesh.geometry();
            for n in geo.nodes() {
                let d = Dest::Node(n);
                self.bounds
                    .push((t, Some(d), self.mesh.next_arrival_bound(d)));
            }
            let d = Dest::External;
            self.bounds
                .push((t, Some(d), self.mesh.next_arrival_bound(d)));
            self.bounds
                .push((t, None, self.mesh.earliest_arrival_bound()));
        }
    }

    fn busy(&self) -> bool {
        !self.mesh.is_idle()
            || !self.plan.is_empty()
            || self.pending.values().any(|q| !q.is_empty())
    }

    /// Visits every cycle until everything is delivered.
    fn run_every_cycle(&mut self) {
        let mut t = 0;
        while self.busy() {
            self.visit(t);
            t += 1;
            assert!(t < 1_000_000, "no progress: deadlock?");
        }
    }

    /// Visits only the cycles a conservative scheduler would: the next
    /// planned or pending injection, the cycle after a Full, and the
    /// mesh's earliest arrival bound.
    fn run_by_bounds(&mut self) -> u64 {
        let mut t = 0;
        let mut visits = 0;
        loop {
            self.visit(t);
            visits += 1;
            let mut next = Cycle::MAX;
            if self.full_seen {
                next = t + 1;
            }
            if let Some(&(c, _)) = self.plan.front() {
                next = next.min(c);
            }
            for q in self.pending.values() {
                if let Some(&(c, _)) = q.front() {
                    next = next.min(c.max(t + 1));
                }
            }
            if let Some(b) = self.mesh.earliest_arrival_bound() {
                assert!(b > t);
                next = next.min(b);
            }
            if next == Cycle::MAX {
                assert!(!self.busy());
                return visits;
            }
            t = next;
        }
    }

    fn check_delivery(&self) {
        for s in &self.sent {
            let (acc, arr) = (s.accepted.unwrap(), s.arrival.unwrap());
            // Never faster than the uncontended latency.
            let min = match s.place {
                Place::Node(n) => self.mesh.min_latency(n, arr.to, s.p.kind).unwrap(),
                Place::ELink => match arr.to {
                    Dest::Node(n) => self.mesh.min_latency_from_elink(n).unwrap(),
                    Dest::External => unreachable!(),
                },
            };
            assert!(arr.at >= acc + min, "{s:?}");
            let want_net = Net::select(s.p.kind, arr.to == Dest::External);
            assert_eq!(arr.net, want_net);
        }
        let t = self.mesh.stats().totals();
        assert_eq!(t.injected, t.delivered);
        assert_eq!(t.injected.iter().sum::<u64>(), self.sent.len() as u64);
    }

    /// Same place, same destination, same net: arrivals in injection order
    /// (isa.md §7.4).
    fn check_order(&self) {
        let mut last: BTreeMap<(Place, Dest, Net), (Cycle, u64)> = BTreeMap::new();
        let mut by_acceptance: Vec<&Sent> = self.sent.iter().collect();
        by_acceptance.sort_by_key(|s| s.order);
        for s in by_acceptance {
            let a = s.arrival.unwrap();
            let key = (s.place, a.to, a.net);
            if let Some(&(prev_half, prev_tag)) = last.get(&key) {
                assert!(
                    a.at_half > prev_half,
                    "tag {} overtook tag {prev_tag}",
                    s.p.tag
                );
            }
            last.insert(key, (a.at_half, s.p.tag));
        }
    }

    /// Every recorded bound is at most the arrival of every packet then in
    /// flight for that destination, and there is a bound exactly when one
    /// is in flight.
    fn check_bounds(&self) {
        for &(t, dest, bound) in &self.bounds {
            let first = self
                .sent
                .iter()
                .filter(|s| s.accepted.unwrap() <= t)
                .map(|s| s.arrival.unwrap())
                .filter(|a| {
                    a.at > t
                        && match dest {
                            None => true,
                            Some(d) => d == a.to,
                        }
                })
                .map(|a| a.at)
                .min();
            assert_eq!(bound.is_some(), first.is_some(), "t={t} {dest:?}");
            if let (Some(b), Some(f)) = (bound, first) {
                assert!(b > t && b <= f, "t={t} {dest:?}: bound {b}, arrival {f}");
            }
        }
    }
}

#[test]
fn random_traffic_is_delivered_once_in_order_within_bounds() {
    let mut sys = System::new(Geometry::E16G301, 1, 1500, 1500);
    sys.record_bounds = true;
    sys.run_every_cycle();
    sys.check_delivery();
    sys.check_order();
    sys.check_bounds();
    // There was contention and back-pressure.
    let e = sys.mesh.stats().elink();
    assert!(e.tx.packets > 100 && e.rx.packets > 50);
    assert!(sys.sent.len() > 2000);
}

#[test]
fn the_same_injections_give_the_same_arrivals() {
    let run = |seed| {
        let mut sys = System::new(Geometry::E16G301, seed, 1500, 1000);
        sys.run_every_cycle();
        (sys.arrivals, sys.mesh.stats().clone())
    };
    let (a, sa) = run(7);
    let (b, sb) = run(7);
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    let (c, _) = run(8);
    assert_ne!(a, c);
}

#[test]
fn advancing_by_the_bounds_gives_the_same_arrivals_as_every_cycle() {
    let mut lone = 0;
    for (geo, packets, horizon) in [
        (Geometry::E16G301, 800, 5000),
        (Geometry::E16G301, 1500, 800),
        (Geometry::E64G401, 3000, 3000),
    ] {
        let mut every = System::new(geo, 3, packets, horizon);
        every.run_every_cycle();
        let mut jumps = System::new(geo, 3, packets, horizon);
        let visits = jumps.run_by_bounds();
        assert_eq!(every.arrivals, jumps.arrivals);
        // (Advancing to an arrival bound with one packet in flight does its
        // trip at once: `Mesh::lone_trip`.)
        assert_eq!(every.mesh.stats().modelled(), jumps.mesh.stats().modelled());
        lone += jumps.mesh.lone_trips();
        jumps.check_order();
        assert!(visits < every.mesh.now(), "{visits} visits");
    }
    assert!(lone > 0);
}

#[test]
fn a_64x64_mesh_under_random_traffic() {
    let geo = Geometry::new(0, 0, 64, 64, None);
    let mut mesh = Mesh::new(geo, Params::DEFAULT).unwrap();
    let mut rng = Rng::new(5);
    let mut out = Vec::new();
    let n = 20_000u64;
    let mut sent = 0;
    let mut t = 0;
    while sent < n {
        mesh.advance(t, &mut out);
        for _ in 0..20 {
            let src = NodeId::new(rng.below(64) as u32, rng.below(64) as u32);
            let dst = NodeId::new(rng.below(64) as u32, rng.below(64) as u32);
            if mesh.inject(t, write(sent, src, at(dst, 0))).is_ok() {
                sent += 1;
            }
        }
        t += 1;
    }
    mesh.advance(t + 1000, &mut out);
    assert_eq!(out.len() as u64, n);
    assert!(mesh.is_idle());
    let mut seen = vec![false; n as usize];
    for a in &out {
        assert!(!std::mem::replace(&mut seen[a.tag as usize], true));
    }
}

#[test]
fn idle_time_costs_nothing() {
    let mut mesh = Mesh::new(Geometry::E16G301, Params::DEFAULT).unwrap();
    let mut out = Vec::new();
    mesh.advance(1_000_000_000, &mut out);
    assert_eq!(mesh.now(), 1_000_000_000);
    assert_eq!(mesh.stats().totals().steps, 0);
    assert_eq!(mesh.earliest_arrival_bound(), None);
    // One packet, then another long quiet stretch.
    let (a, b) = (NodeId::new(32, 8), NodeId::new(32, 9));
    mesh.inject(1_000_000_000, write(1, a, at(b, 0))).unwrap();
    assert_eq!(mesh.earliest_arrival_bound(), Some(1_000_000_003));
    assert_eq!(mesh.next_arrival_bound(Dest::Node(b)), Some(1_000_000_003));
    assert_eq!(mesh.next_arrival_bound(Dest::Node(a)), None);
    assert_eq!(mesh.next_arrival_bound(Dest::Node(NodeId::new(0, 0))), None);
    mesh.advance(2_000_000_000, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].at, 1_000_000_003);
    assert!(mesh.is_idle());
    assert!(mesh.stats().totals().steps <= 4);
    // Even the largest cycle is only a jump.
    mesh.advance(Cycle::MAX, &mut out);
    assert_eq!(mesh.now(), Cycle::MAX);
}
