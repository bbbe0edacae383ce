//! One packet through an idle network, in closed form.
//!
//! With nothing in flight and nothing pending, a packet meets no other:
//! each agent on its way acts on it as soon as the packet is ready there
//! and the agent's output (a router's link, the eLink) is free, with room
//! everywhere downstream. [`Mesh::solo_inject`] and
//! [`Mesh::solo_inject_external`] walk that route at once and leave every
//! piece of state (busy times, round-robin pointers, the eLink's last
//! address, statistics, the clock) as injecting the packet and advancing
//! to its arrival would (`mesh/tests/solo.rs` compares the two on random
//! idle states), except the count of steps simulated, which they do not
//! take. They refuse (`None`, nothing changed) whenever that is not
//! certain, and the caller steps the packet as usual.

use super::{ceil_cycle, Down, Flit, Mesh, EXTERNAL, LOCAL, NEVER};
use crate::addr::{xy_step, NodeId, Target};
use crate::packet::{Arrival, Dest, Kind, Net, Packet};
use crate::stats::{ELinkLoad, LinkLoad};
use crate::Cycle;

impl Mesh {
    /// [`Mesh::inject`] of `p` at cycle `t` and its trip to its
    /// destination, if the network is idle (nothing in flight, no wake-up
    /// pending, no queue watched at its source) and the injection is
    /// valid: the arrival, with the mesh advanced to its cycle.
    pub fn solo_inject(&mut self, t: Cycle, p: Packet) -> Option<Arrival> {
        if !self.quiet() {
            return None;
        }
        let src = self.geo.index(p.src)?;
        if !matches!(p.bytes, 1 | 2 | 4 | 8) {
            return None;
        }
        let (net, to) = match self.geo.classify(p.dst) {
            Target::Core { node, .. } => (
                Net::select(p.kind, false),
                self.geo.index(node).map_or(EXTERNAL, |i| i as u32),
            ),
            Target::External(_) => (Net::select(p.kind, true), EXTERNAL),
            Target::Unroutable { .. } => return None,
        };
        let key = net.index() * self.n + src;
        if self.watched[src] || t < self.now.max(self.nis[key].last) || self.k.ni_depth == 0 {
            return None;
        }
        let ready = t
            .saturating_mul(2)
            .saturating_add(self.k.entry[net.index()]);
        let s = ready.max(self.nis[key].free);
        if s <= self.wheel.cur() || s >= u64::MAX / 4 {
            return None;
        }
        // The node interface hands it to its router at `s`.
        let ni = &mut self.nis[key];
        ni.last = t;
        ni.free = s.saturating_add(self.k.ni);
        self.stats.node_mut(key).injected += 1;
        self.stats.totals.injected[net.index()] += 1;
        self.wheel_at(s);
        let f = Flit {
            tag: p.tag,
            addr: p.dst,
            dst: NodeId::from_addr(p.dst),
            to,
            bytes: p.bytes,
            net,
            ready: s,
        };
        Some(self.solo_walk(t, f, src, LOCAL))
    }

    /// [`Mesh::inject_external`] of `p` at cycle `t` and its trip to its
    /// node, on the terms of [`Mesh::solo_inject`].
    pub fn solo_inject_external(&mut self, t: Cycle, p: Packet) -> Option<Arrival> {
        if !self.quiet() || !matches!(p.bytes, 1 | 2 | 4 | 8) || self.k.rx_depth == 0 {
            return None;
        }
        let side = self.geo.elink?;
        let to = match self.geo.classify(p.dst) {
            Target::Core { node, .. } => self.geo.index(node)?,
            _ => return None,
        };
        if t < self.now.max(self.rx_last) {
            return None;
        }
        let dst = NodeId::from_addr(p.dst);
        let entry = self.geo.index(self.geo.edge_router(side, dst))?;
        let net = Net::select(p.kind, false);
        let ready = t.saturating_mul(2).saturating_add(self.k.rx_latency);
        let s = ready.max(self.rx_busy);
        if s <= self.wheel.cur() || s >= u64::MAX / 4 {
            return None;
        }
        self.rx_last = t;
        self.stats.totals.injected[net.index()] += 1;
        // The receive side carries it into its entry router from `s`.
        let r = s.saturating_add(self.k.rx);
        self.rx_busy = r;
        self.stats.elink.rx.add(self.k.rx, s - ready);
        let f = Flit {
            tag: p.tag,
            addr: p.dst,
            dst,
            to: to as u32,
            bytes: p.bytes,
            net,
            ready: r,
        };
        self.wheel_at(s);
        Some(self.solo_walk(t, f, entry, side.dir().index()))
    }

    /// A load's round trip alone in the network: [`Mesh::solo_inject`]
    /// of `request` at cycle `t`, `read` given its arrival and giving the
    /// cycle the response leaves external memory, and
    /// [`Mesh::solo_inject_external`] of `response` then; the same
    /// results and the same state (`mesh/tests/solo.rs`). A round trip
    /// over the ways the last one took (the same node, DRAM node and
    /// sizes) whose routes are left for later ([`Lazy`]) is taken without
    /// working out its ends, routes and agents again.
    pub fn solo_round(
        &mut self,
        t: Cycle,
        request: Packet,
        response: Packet,
        read: impl FnOnce(Cycle) -> Cycle,
    ) -> Round {
        let known = self
            .solo_way
            .way
            .is_some_and(|w| w.fits(&request, &response) && self.quiet());
        let arrived = match known.then(|| self.solo_request_fast(t, &request)).flatten() {
            Some(a) => a,
            None => match self.solo_inject(t, request) {
                Some(a) => a,
                None => return Round::No,
            },
        };
        let leave = read(arrived.at);
        let back = match known
            .then(|| self.solo_response_fast(leave, &response))
            .flatten()
        {
            Some(b) => b,
            None => match self.solo_inject_external(leave, response) {
                Some(b) => b,
                None => return Round::Waits { arrived, leave },
            },
        };
        if !known {
            self.solo_way.way = self.solo_learn(&request, &response);
            self.solo_way.gen = next_gen();
        }
        Round::Back {
            arrived,
            leave,
            back,
        }
    }

    /// The ways of `request` and `response` ([`Way`]), if their routes
    /// are kept and go to the eLink and to a node.
    fn solo_learn(&self, request: &Packet, response: &Packet) -> Option<Way> {
        if !matches!(request.bytes, 1 | 2 | 4 | 8)
            || !matches!(response.bytes, 1 | 2 | 4 | 8)
            || !matches!(self.geo.classify(request.dst), Target::External(_))
        {
            return None;
        }
        let src = self.geo.index(request.src)?;
        let net = Net::select(request.kind, true);
        let dst = NodeId::from_addr(request.dst);
        let key = (src, LOCAL, net.index(), dst);
        let route = self.routes.iter().position(|r| r.key == key)?;
        let End::Port(port) = self.routes[route].end else {
            return None;
        };
        let side = self.geo.elink?;
        let back = NodeId::from_addr(response.dst);
        let to = match self.geo.classify(response.dst) {
            Target::Core { node, .. } => self.geo.index(node)?,
            _ => return None,
        };
        let entry = self.geo.index(self.geo.edge_router(side, back))?;
        let net2 = Net::select(response.kind, false);
        let key2 = (entry, side.dir().index(), net2.index(), back);
        let route2 = self.routes.iter().position(|r| r.key == key2)?;
        if !matches!(self.routes[route2].end, End::Eject(node) if node == to) {
            return None;
        }
        Some(Way {
            src: request.src,
            dst,
            back,
            kinds: (request.kind, response.kind),
            src_i: src,
            ni: net.index() * self.n + src,
            net,
            route,
            steps: self.routes[route].steps.len() as u64,
            port,
            net2,
            route2,
            steps2: self.routes[route2].steps.len() as u64,
            to: self.coords[to],
            node2: net2.index() * self.n + to,
        })
    }

    /// [`Mesh::solo_inject`] of `p` at `t` over the kept [`Way`]'s
    /// request way (which fits `p`, the network quiet), if its route's
    /// trips are left for later and this one can be: nothing changed
    /// otherwise.
    #[inline]
    fn solo_request_fast(&mut self, t: Cycle, p: &Packet) -> Option<Arrival> {
        let w = self.solo_way.way?;
        let net = w.net.index();
        let ni = &self.nis[w.ni];
        if self.watched[w.src_i] || t < self.now.max(ni.last) {
            return None;
        }
        let ready = t.saturating_mul(2).saturating_add(self.k.entry[net]);
        let s = ready.max(ni.free);
        if s <= self.wheel.cur() || s >= u64::MAX / 4 {
            return None;
        }
        let (hop, link) = (self.k.hop, self.k.link);
        let l = self.solo_lazy[net].as_mut()?;
        if l.route != w.route || s < l.entry.saturating_add(link) {
            return None;
        }
        // As `solo_inject` and `solo_walk`'s trip left for later.
        self.solo_way.fast += 1;
        l.entry = s;
        l.pending += 1;
        let ni = &mut self.nis[w.ni];
        ni.last = t;
        ni.free = s.saturating_add(self.k.ni);
        self.stats.node_mut(w.ni).injected += 1;
        self.stats.totals.injected[net] += 1;
        self.stats.totals.hops[net] += w.steps;
        let ready = s + w.steps * hop;
        let start = ready.max(self.tx_busy);
        let port = &mut self.tx_ports[w.port];
        port.popped_at = start;
        port.waiting = false;
        self.tx_rr = (w.port + 1) % self.tx_ports.len();
        self.transmit(p.dst, p.bytes, start, ready);
        self.wheel_at(start);
        let tick = self.tx_busy.saturating_add(self.k.tx_latency);
        Some(self.solo_arrive(t, tick, p.tag, Dest::External, w.net))
    }

    /// [`Mesh::solo_inject_external`] of `p` at `t` over the kept
    /// [`Way`]'s response way, on the terms of
    /// [`Mesh::solo_request_fast`].
    #[inline]
    fn solo_response_fast(&mut self, t: Cycle, p: &Packet) -> Option<Arrival> {
        let w = self.solo_way.way?;
        let net = w.net2.index();
        if t < self.now.max(self.rx_last) {
            return None;
        }
        let ready = t.saturating_mul(2).saturating_add(self.k.rx_latency);
        let s = ready.max(self.rx_busy);
        if s <= self.wheel.cur() || s >= u64::MAX / 4 {
            return None;
        }
        let r = s.saturating_add(self.k.rx);
        let (hop, link) = (self.k.hop, self.k.link);
        let l = self.solo_lazy[net].as_mut()?;
        if l.route != w.route2 || r < l.entry.saturating_add(link) {
            return None;
        }
        // As `solo_inject_external` and `solo_walk`'s trip left for later.
        self.solo_way.fast += 1;
        l.entry = r;
        l.pending += 1;
        self.rx_last = t;
        self.stats.totals.injected[net] += 1;
        self.rx_busy = r;
        self.stats.elink.rx.add(self.k.rx, s - ready);
        let tick = r + (w.steps2 - 1) * hop;
        self.stats.totals.hops[net] += w.steps2 - 1;
        self.wheel_at(tick.max(s));
        self.stats.node_mut(w.node2).delivered += 1;
        Some(self.solo_arrive(t, tick, p.tag, Dest::Node(w.to), w.net2))
    }

    /// A bound on the cycles from a solo packet's injection to its
    /// arrival, wherever it goes: its uncontended trip over the longest
    /// route, plus a wait of at most one busy time at each agent on the
    /// way (in an idle network each was last taken at or before the tick
    /// last simulated, which every tick of a solo trip follows).
    pub fn solo_bound(&self) -> Cycle {
        let k = &self.k;
        let routers = u64::from(self.geo.rows) + u64::from(self.geo.cols) + 1;
        let entry = k.entry.iter().copied().max().unwrap_or(0);
        let tx = k.tx.saturating_add(k.tx_break);
        let ticks = [
            entry,
            k.ni,
            routers.saturating_mul(k.hop.saturating_add(k.link)),
            tx.saturating_mul(2),
            k.tx_latency,
            k.rx.saturating_mul(2),
            k.rx_latency,
        ]
        .iter()
        .fold(0u64, |a, &b| a.saturating_add(b));
        ceil_cycle(ticks).saturating_add(1)
    }

    /// Nothing in flight and nothing pending: a packet meets no other.
    #[inline]
    fn quiet(&self) -> bool {
        self.in_flight == 0
            && self.tx_count == 0
            && self.rx.is_empty()
            && self.deliveries.is_empty()
            && self.wheel.next() == u64::MAX
    }

    /// Notes that the network stepped tick `t`.
    fn wheel_at(&mut self, t: u64) {
        self.wheel.skip_to(t);
    }

    /// Carries `f`, ready at input `port` of router `node` on its net, to
    /// its destination, each router taking it when its output is free
    /// (there is room everywhere: nothing else is in the network, and
    /// every tick on the way is later than any packet's last move).
    ///
    /// A trip over the route the last one on its net took, entering at
    /// least a link's busy time after that one did, waits nowhere: its
    /// routers are left for later (`Lazy`), written once by
    /// [`Mesh::solo_settle`] or the next trip that cannot be left so.
    fn solo_walk(&mut self, t: Cycle, mut f: Flit, node: usize, port: usize) -> Arrival {
        let net = f.net.index();
        let (hop, link) = (self.k.hop, self.k.link);
        // (Most often the route of the last trip on the net.)
        let route = match self.solo_lazy[net] {
            Some(l) if self.routes[l.route].key == (node, port, net, f.dst) => l.route,
            _ => self.route(node, port, net, f.dst),
        };
        let end = self.routes[route].end;
        let entry = f.ready;
        let mut tick;
        match &mut self.solo_lazy[net] {
            Some(l) if l.route == route && entry >= l.entry.saturating_add(link) => {
                // Each router takes it as it arrives: `entry` plus a hop
                // per router before.
                let n = self.routes[route].steps.len() as u64;
                l.entry = entry;
                l.pending += 1;
                tick = entry + (n - 1) * hop;
                let hops = if matches!(end, End::Port(_)) {
                    f.ready = tick + hop;
                    n
                } else {
                    n - 1
                };
                self.stats.totals.hops[net] += hops;
            }
            _ => {
                self.solo_flush(net);
                let steps = std::mem::take(&mut self.routes[route].steps);
                let mut waited = false;
                tick = 0;
                for (k, &(key, d, port)) in steps.iter().enumerate() {
                    let (key, d, port) = (key as usize, usize::from(d), usize::from(port));
                    let router = &mut self.routers[key];
                    tick = f.ready.max(router.out_busy[d]);
                    waited |= tick != f.ready;
                    let input = &mut router.inputs[port];
                    input.popped_at = tick;
                    input.waiting = false;
                    router.rr[d] = ((port + 1) % 5) as u8;
                    router.out_busy[d] = tick.saturating_add(link);
                    self.stats.link_mut(key, d).add(link, tick - f.ready);
                    if k + 1 < steps.len() || matches!(end, End::Port(_)) {
                        f.ready = tick.saturating_add(hop);
                        self.stats.totals.hops[net] += 1;
                    }
                }
                self.routes[route].steps = steps;
                self.solo_lazy[net] = (!waited).then_some(Lazy {
                    route,
                    entry,
                    pending: 0,
                });
            }
        }
        self.wheel_at(tick);
        let to = match end {
            End::Port(i) => {
                // The transmit side takes it when it is free.
                let s = f.ready.max(self.tx_busy);
                let port = &mut self.tx_ports[i];
                port.popped_at = s;
                port.waiting = false;
                self.tx_rr = (i + 1) % self.tx_ports.len();
                self.transmit(f.addr, f.bytes, s, f.ready);
                self.wheel_at(s);
                tick = self.tx_busy.saturating_add(self.k.tx_latency);
                Dest::External
            }
            End::Eject(node) => {
                self.stats.node_mut(net * self.n + node).delivered += 1;
                Dest::Node(self.coords[node])
            }
        };
        self.solo_arrive(t, tick, f.tag, to, f.net)
    }

    /// A solo packet injected at cycle `t` arrives at tick `tick` (half
    /// cycles) at `to`: counted as delivered, the clock moved to its cycle.
    #[inline(always)]
    fn solo_arrive(&mut self, t: Cycle, tick: u64, tag: u64, to: Dest, net: Net) -> Arrival {
        self.seq += 1;
        self.stats.totals.delivered[net.index()] += 1;
        let at = ceil_cycle(tick);
        self.now = self.now.max(at).max(t);
        *self.bounds.get_mut() = None;
        Arrival {
            tag,
            at,
            at_half: tick,
            to,
            net,
        }
    }

    /// Writes the routers and link statistics of the trips on `net` left
    /// for later ([`Lazy`]): every router of the route as the last of them
    /// left it, each of its outputs carrying `pending` more packets, none
    /// of which waited.
    fn solo_flush(&mut self, net: usize) {
        let Some(l) = self.solo_lazy[net].as_mut() else {
            return;
        };
        let n = std::mem::take(&mut l.pending);
        if n == 0 {
            return;
        }
        let (hop, link) = (self.k.hop, self.k.link);
        let mut tick = l.entry;
        for &(key, d, port) in &self.routes[l.route].steps {
            let (key, d, port) = (key as usize, usize::from(d), usize::from(port));
            let router = &mut self.routers[key];
            let input = &mut router.inputs[port];
            input.popped_at = tick;
            input.waiting = false;
            router.rr[d] = ((port + 1) % 5) as u8;
            router.out_busy[d] = tick.saturating_add(link);
            let s = self.stats.link_mut(key, d);
            s.packets += n;
            s.busy_half_cycles = s.busy_half_cycles.saturating_add(link.saturating_mul(n));
            tick = tick.saturating_add(hop);
        }
    }

    /// Writes everything solo trips left for later: to call after the last
    /// of a series of [`Mesh::solo_inject`] and
    /// [`Mesh::solo_inject_external`] and before anything else reads or
    /// moves the network (the scheduler does so when a core's run that
    /// was lent the network ends).
    #[inline]
    pub fn solo_settle(&mut self) {
        if self.solo_unsettled() {
            self.solo_settle_all();
        }
    }

    #[inline(never)]
    fn solo_settle_all(&mut self) {
        for net in 0..self.solo_lazy.len() {
            self.solo_flush(net);
            self.solo_lazy[net] = None;
        }
    }

    /// How many packets of [`Mesh::solo_round`] took the ways of the round
    /// trip before without working them out again (for tests).
    #[doc(hidden)]
    pub fn solo_round_fast(&self) -> u64 {
        self.solo_way.fast
    }

    /// How many trips of a lone packet advancing did at once
    /// (`Mesh::lone_trip`; for tests).
    #[doc(hidden)]
    pub fn lone_trips(&self) -> u64 {
        self.lone
    }

    /// Advances in which packets alone on their nets moved at once
    /// (`Mesh::lone_moves`; for tests).
    #[doc(hidden)]
    pub fn lone_moves_made(&self) -> u64 {
        self.lone_moved
    }

    /// Steps a lone packet's trip as any other (`off`), or does it at once
    /// (the default): for tests comparing the two.
    #[doc(hidden)]
    pub fn step_lone_trips(&mut self, off: bool) {
        self.lone_off = off;
    }

    /// Whether solo trips left anything for [`Mesh::solo_settle`].
    #[inline]
    pub fn solo_unsettled(&self) -> bool {
        self.solo_lazy.iter().any(Option::is_some)
    }

    /// The index in `routes` of the route of a packet for `dst` entering
    /// router `node` on `net` by input `port` (worked out and kept, in
    /// place of the oldest, if not there).
    fn route(&mut self, node: usize, port: usize, net: usize, dst: NodeId) -> usize {
        let key = (node, port, net, dst);
        if let Some(i) = self.routes.iter().position(|r| r.key == key) {
            return i;
        }
        let mut steps = Vec::new();
        let (mut node, mut port) = (node, port);
        let end = loop {
            let d = xy_step(self.coords[node], dst).index();
            steps.push(((net * self.n + node) as u32, d as u8, port as u8));
            match self.downstream(node, net, d) {
                Down::Router(k, q) => {
                    node = k % self.n;
                    port = q;
                }
                Down::Port(i) => break End::Port(i),
                // (`Nowhere` is refused by `classify`.)
                Down::Eject | Down::Nowhere => break End::Eject(node),
            }
        };
        let route = Route { key, steps, end };
        if self.routes.len() < ROUTES {
            self.routes.push(route);
            self.routes.len() - 1
        } else {
            let i = self.routes_next;
            self.routes_next = (i + 1) % ROUTES;
            // (A route with trips left for later is written out first.)
            for net in 0..self.solo_lazy.len() {
                if self.solo_lazy[net].is_some_and(|l| l.route == i) {
                    self.solo_flush(net);
                    self.solo_lazy[net] = None;
                }
            }
            self.routes[i] = route;
            self.solo_way.way = None;
            self.solo_way.gen = next_gen();
            i
        }
    }
}

impl Mesh {
    /// Advancing to tick `limit` with one packet in the network, for a
    /// node, waiting at its node interface or at the eLink's receive side
    /// and due to leave it (the one wake-up pending): its whole trip is
    /// done at once, each agent on its way acting on it as stepping would
    /// (nothing else is there to meet it), leaving its arrival among the
    /// deliveries and the network at the tick of its arrival, if that is
    /// no later than `limit`. False (nothing changed) otherwise, and
    /// whenever stepping would leave a wake-up behind: a node interface
    /// reporting a freed place, an upstream agent waiting for room on the
    /// way.
    pub(super) fn lone_trip(&mut self, limit: u64) -> bool {
        if self.in_flight != 1 || self.wheel.pending() != 1 || self.k.buf_depth == 0 {
            return false;
        }
        // Where it waits: the first router it enters, by which input, and
        // when it leaves.
        let ni = self.busy_nis.keys.first().map(|&k| k as usize);
        let (f, s, node, port) = match ni {
            Some(key) => {
                let ni = &self.nis[key];
                let Some(&f) = ni.q.front() else {
                    return false;
                };
                let s = f.ready.max(ni.free);
                let src = key % self.n;
                if ni.q.len() != 1 || self.ni_wake[key] != s || self.watched[src] {
                    return false;
                }
                (f, s, src, LOCAL)
            }
            None => {
                let (Some(&f), Some(side)) = (self.rx.front(), self.geo.elink) else {
                    return false;
                };
                let s = f.ready.max(self.rx_busy);
                let entry = self.geo.index(self.geo.edge_router(side, f.dst));
                let Some(entry) = entry.filter(|_| self.rx.len() == 1 && self.rx_wake == s) else {
                    return false;
                };
                (f, s, entry, side.dir().index())
            }
        };
        if f.to == EXTERNAL || s > limit || s <= self.wheel.cur() {
            return false;
        }
        let net = f.net.index();
        let (hop, link) = (self.k.hop, self.k.link);
        // (The receive side carries it into its entry router.)
        let enter = if ni.is_some() {
            s
        } else {
            s.saturating_add(self.k.rx)
        };
        // Where it arrives, when (routers take it as their output frees:
        // there is room everywhere).
        let (mut at, mut input, mut ready) = (node, port, enter);
        let end = loop {
            let d = xy_step(self.coords[at], f.dst).index();
            let r = &self.routers[net * self.n + at];
            if r.inputs[input].waiting {
                return false;
            }
            let tick = ready.max(r.out_busy[d]);
            match self.downstream(at, net, d) {
                Down::Router(k, q) => {
                    (at, input, ready) = (k % self.n, q, tick.saturating_add(hop));
                }
                Down::Eject => break tick,
                _ => return false,
            }
        };
        if end > limit {
            return false;
        }
        // It leaves where it waits at `s`.
        let mut due = std::mem::take(&mut self.due);
        self.wheel.take(s, &mut due);
        due.clear();
        self.due = due;
        match ni {
            Some(key) => {
                self.ni_wake[key] = NEVER;
                let ni = &mut self.nis[key];
                ni.q.pop_front();
                ni.free = s.saturating_add(self.k.ni);
                self.busy_nis.remove(key);
            }
            None => {
                self.rx_wake = NEVER;
                self.rx.pop_front();
                self.rx_busy = enter;
                self.stats.elink.rx.add(self.k.rx, s - f.ready);
            }
        }
        let (mut at, mut input, mut ready) = (node, port, enter);
        loop {
            let d = xy_step(self.coords[at], f.dst).index();
            let key = net * self.n + at;
            let router = &mut self.routers[key];
            let tick = ready.max(router.out_busy[d]);
            let b = &mut router.inputs[input];
            b.popped_at = tick;
            b.waiting = false;
            router.rr[d] = ((input + 1) % 5) as u8;
            router.out_busy[d] = tick.saturating_add(link);
            self.stats.link_mut(key, d).add(link, tick - ready);
            match self.downstream(at, net, d) {
                Down::Router(k, q) => {
                    (at, input, ready) = (k % self.n, q, tick.saturating_add(hop));
                    self.stats.totals.hops[net] += 1;
                }
                _ => {
                    self.node_flits -= 1;
                    self.wheel_at(tick);
                    self.deliver(tick, at as u32, net, f.tag);
                    self.lone += 1;
                    return true;
                }
            }
        }
    }
}

/// Where a packet alone on its net waits (`Mesh::lone_moves`): at a node
/// interface (its key) or in input `port` of router `key`.
#[derive(Clone, Copy, Debug)]
enum Held {
    Ni(usize),
    Router(usize, usize),
}

/// The most packets [`Mesh::lone_moves`] moves (one per net).
const LONE: usize = 3;

impl Mesh {
    /// Advancing to tick `limit` with every packet in the network alone
    /// on its net (at a node interface or in a router, one wake-up pending
    /// for each and nothing else: nothing at the eLink): each moves on by
    /// itself up to `limit`, each agent on its way acting on it as
    /// stepping would (the nets share no router, interface or queue, and
    /// nothing else is there to meet it), arriving among the deliveries or
    /// left where stepping would leave it, woken when it can next move.
    /// False (nothing changed) otherwise, and when one would reach the
    /// eLink's transmit side by `limit` or stepping would leave a wake-up
    /// behind: a node interface reporting a freed place.
    pub(super) fn lone_moves(&mut self, limit: u64) -> bool {
        // (No wake-up but the packets': none of the eLink's sides, which
        // are woken while they hold any. A router's buffers, validated
        // positive, have room for each: nothing else is on its net.)
        let packets = self.busy_nis.keys.len() + self.busy_routers.keys.len();
        if packets == 0 || packets > LONE || self.wheel.pending() != packets {
            return false;
        }
        // Each packet, where it waits, its first move's tick.
        let mut held = [(Held::Ni(0), 0u64); LONE];
        let mut nets = 0u8;
        let mut first = u64::MAX;
        let keys = self.busy_nis.keys.iter().map(|&k| (true, k as usize));
        let keys = keys.chain(self.busy_routers.keys.iter().map(|&k| (false, k as usize)));
        for (j, (at_ni, key)) in keys.enumerate() {
            let net = key / self.n;
            if nets & 1 << net != 0 {
                return false;
            }
            nets |= 1 << net;
            let (h, wake, s) = if at_ni {
                let ni = &self.nis[key];
                let (Some(&f), 1) = (ni.q.front(), ni.q.len()) else {
                    return false;
                };
                if self.watched[key % self.n] {
                    return false;
                }
                (Held::Ni(key), self.ni_wake[key], f.ready.max(ni.free))
            } else {
                let r = &self.routers[key];
                if r.queued != 1 {
                    return false;
                }
                let Some(port) = r.inputs.iter().position(|b| !b.q.is_empty()) else {
                    return false;
                };
                let Some(&f) = r.inputs[port].q.front() else {
                    return false;
                };
                let d = xy_step(self.coords[key % self.n], f.dst).index();
                (
                    Held::Router(key, port),
                    self.router_wake[key],
                    f.ready.max(r.out_busy[d]),
                )
            };
            // Stepping moves it at its wake-up (or, earlier, finds its
            // output busy and wakes it for its move): only then does it
            // move at `s`.
            if wake > s {
                return false;
            }
            held[j] = (h, s);
            first = first.min(s);
        }
        if first > limit {
            return false;
        }
        // Every move first worked out (nothing changed if one cannot be
        // made so), then made, the wake-ups pending replaced by those of
        // the packets' next moves (past `limit`; the network stands at its
        // last move, at or before it).
        let mut last = 0;
        for &(h, s) in &held[..packets] {
            match self.lone_walk(h, s, limit, false) {
                Some(t) => last = last.max(t),
                None => return false,
            }
        }
        self.wheel.clear_to(last);
        for &(h, s) in &held[..packets] {
            self.lone_walk(h, s, limit, true);
        }
        self.lone_moved += 1;
        true
    }

    /// The moves of a packet alone on its net held at `h`, first moving
    /// at tick `s`, up to tick `limit`: whether they can be made alone
    /// (`apply` false: nothing changed), or made (`apply`); `Some` with
    /// the tick of the last (0: none).
    fn lone_walk(&mut self, h: Held, s: u64, limit: u64, apply: bool) -> Option<u64> {
        let (hop, link) = (self.k.hop, self.k.link);
        // Where it is, by which input, from when it may leave, and the
        // tick of its next move.
        let (mut at, mut input, mut ready, net, f) = match h {
            Held::Ni(key) => {
                let ni = &self.nis[key];
                let &f = ni.q.front()?;
                if s > limit {
                    // Not moving before `limit`: woken as it was.
                    if apply {
                        self.wheel.push(s, super::NI | key as u32);
                        self.ni_wake[key] = s;
                    }
                    return Some(0);
                }
                if apply {
                    self.ni_wake[key] = NEVER;
                    let ni = &mut self.nis[key];
                    ni.q.pop_front();
                    ni.free = s.saturating_add(self.k.ni);
                    self.busy_nis.remove(key);
                }
                (key % self.n, LOCAL, s, key / self.n, f)
            }
            Held::Router(key, port) => {
                let &f = self.routers[key].inputs[port].q.front()?;
                if apply {
                    self.router_wake[key] = NEVER;
                    let r = &mut self.routers[key];
                    r.inputs[port].q.pop_front();
                    r.queued -= 1;
                    r.for_nodes -= u32::from(f.to != EXTERNAL);
                    self.busy_routers.remove(key);
                }
                (key % self.n, port, f.ready, key / self.n, f)
            }
        };
        // (The node interface's move, if any.)
        let mut last = if matches!(h, Held::Ni(_)) { s } else { 0 };
        loop {
            let d = xy_step(self.coords[at], f.dst).index();
            let key = net * self.n + at;
            let router = &mut self.routers[key];
            let tick = ready.max(router.out_busy[d]);
            if tick > limit {
                // It waits here: woken for its move.
                if apply {
                    let mut g = f;
                    g.ready = ready;
                    router.inputs[input].q.push_back(g);
                    self.router_gained(key, f.to != EXTERNAL);
                    self.router_wake[key] = tick;
                    self.wheel.push(tick, super::ROUTER | key as u32);
                }
                return Some(last);
            }
            let b = &mut router.inputs[input];
            // (Nothing waits for room behind it: nothing else is on its
            // net.)
            debug_assert!(!b.waiting);
            last = tick;
            if apply {
                b.popped_at = tick;
                router.rr[d] = if input == 4 { 0 } else { input as u8 + 1 };
                router.out_busy[d] = tick.saturating_add(link);
                self.stats.link_mut(key, d).add(link, tick - ready);
            }
            match self.downstream(at, net, d) {
                Down::Router(k, q) => {
                    (at, input, ready) = (k % self.n, q, tick.saturating_add(hop));
                    if apply {
                        self.stats.totals.hops[net] += 1;
                    }
                }
                Down::Eject => {
                    if apply {
                        self.node_flits -= 1;
                        self.deliver(tick, at as u32, net, f.tag);
                    }
                    return Some(last);
                }
                // (A packet for external memory reaching the eLink's
                // transmit side by `limit` is left to the steps.)
                _ => return None,
            }
        }
    }
}

/// Routes kept by [`Mesh::solo_inject`] (a core's loads from DRAM use two).
const ROUTES: usize = 8;

/// The routers a packet crosses from a router input to its destination:
/// (router key, output, input) each, and where it ends.
#[derive(Clone, Debug)]
pub(super) struct Route {
    key: (usize, usize, usize, NodeId),
    steps: Vec<(u32, u8, u8)>,
    end: End,
}

/// Solo trips on one net whose routers are not written yet: all over
/// `route`, none waiting anywhere (each router took the packet as it
/// arrived), the last entering its first router at tick `entry`; the
/// routers hold the state of the trips before them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lazy {
    route: usize,
    entry: u64,
    pending: u64,
}

/// What [`Mesh::solo_round`] made of a round trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Neither packet was sent (nothing changed).
    No,
    /// The request arrived, external memory read and the response left
    /// at `leave`, but its trip could not be taken alone: the caller
    /// sends it.
    Waits { arrived: Arrival, leave: Cycle },
    /// Both arrived.
    Back {
        arrived: Arrival,
        leave: Cycle,
        back: Arrival,
    },
}

/// What [`Mesh::solo_round`] keeps: the ways of the last round trip, and
/// how many packets took them without working them out (for tests).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ways {
    way: Option<Way>,
    fast: u64,
    /// Which learning of the way `way` is (unique among all networks'
    /// and their copies': [`Rounds`] learnt over a way hold it).
    gen: u64,
}

/// A new [`Ways::gen`].
fn next_gen() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static GEN: AtomicU64 = AtomicU64::new(1);
    GEN.fetch_add(1, Ordering::Relaxed)
}

/// The ways of a round trip of [`Mesh::solo_round`]: the request's node,
/// DRAM node, kind and node interface (`ni`: its key), its route to the
/// eLink's transmit `port`; the response's node and route from the eLink
/// to it (`node2`: the node's key on `net2`). Routes are kept until
/// replaced (which forgets this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Way {
    src: NodeId,
    dst: NodeId,
    back: NodeId,
    kinds: (Kind, Kind),
    src_i: usize,
    ni: usize,
    net: Net,
    route: usize,
    steps: u64,
    port: usize,
    net2: Net,
    route2: usize,
    steps2: u64,
    to: NodeId,
    node2: usize,
}

impl Way {
    #[inline]
    fn fits(&self, request: &Packet, response: &Packet) -> bool {
        self.src == request.src
            && self.dst == NodeId::from_addr(request.dst)
            && self.back == NodeId::from_addr(response.dst)
            && self.kinds == (request.kind, response.kind)
            && matches!(request.bytes, 1 | 2 | 4 | 8)
            && matches!(response.bytes, 1 | 2 | 4 | 8)
    }
}

#[derive(Clone, Copy, Debug)]
enum End {
    /// Delivered at this node.
    Eject(usize),
    /// Into this eLink transmit port.
    Port(usize),
}

impl Mesh {
    /// Every piece of the network's state a later packet or a statistic
    /// can see (busy times, round-robin pointers, the eLink's state, the
    /// clock, the counters but the steps simulated), as text: for tests
    /// comparing [`Mesh::solo_inject`] with stepping.
    #[doc(hidden)]
    pub fn state_digest(&self) -> String {
        use std::fmt::Write;
        if self.solo_unsettled() {
            let mut m = self.clone();
            m.solo_settle();
            return m.state_digest();
        }
        let mut s = String::new();
        let mut stats = self.stats.clone();
        stats.totals.steps = 0;
        let _ = write!(
            s,
            "now {} in_flight {} seq {} rx {} {} {} tx {} {} {:?} {:?}\n{:?}\n",
            self.now,
            self.in_flight,
            self.seq,
            self.rx.len(),
            self.rx_busy,
            self.rx_last,
            self.tx_busy,
            self.tx_rr,
            self.tx_next_addr,
            self.tx_count,
            stats
        );
        for (k, r) in self.routers.iter().enumerate() {
            let inputs: Vec<_> = r
                .inputs
                .iter()
                .map(|b| (b.q.len(), b.popped_at, b.waiting))
                .collect();
            let _ = writeln!(
                s,
                "r{k} {:?} {:?} {} {inputs:?}",
                r.out_busy, r.rr, r.queued
            );
        }
        for (k, ni) in self.nis.iter().enumerate() {
            let _ = writeln!(s, "ni{k} {} {} {}", ni.q.len(), ni.free, ni.last);
        }
        for (k, p) in self.tx_ports.iter().enumerate() {
            let _ = writeln!(s, "tx{k} {} {} {}", p.q.len(), p.popped_at, p.waiting);
        }
        s
    }
}

/// The state a series of round trips over the kept way ([`Mesh::solo_round`])
/// meets before its first: what decides whether the first waits anywhere
/// (`SoloMark::clear`).
#[derive(Clone, Copy, Debug)]
struct Before {
    now: Cycle,
    ni_last: Cycle,
    ni_free: u64,
    cur: u64,
    entry1: u64,
    tx_busy: u64,
    tx_next_addr: Option<u32>,
    rx_last: Cycle,
    rx_busy: u64,
    entry2: u64,
}

/// The counters a series of round trips adds to (their sums, kept by
/// [`Rounds`]).
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    seq: u64,
    fast: u64,
    elink: ELinkLoad,
    injected: [u64; 3],
    delivered: [u64; 3],
    hops: [u64; 3],
    node_injected: u64,
    node_delivered: u64,
    pending1: u64,
    pending2: u64,
}

/// The network before a series of round trips ([`Mesh::solo_mark`]), to
/// learn what they did ([`Mesh::solo_rounds_since`]).
#[derive(Clone, Copy, Debug)]
pub struct SoloMark {
    way: Way,
    gen: u64,
    before: Before,
    counts: Counts,
}

/// What a series of round trips over the kept way did, every cycle and
/// tick relative to a base cycle `t0` (ticks to `2 t0`): the first one's
/// issue and the cycle its response left external memory, which of the
/// requests broke the eLink's transaction (bit `j`), and the network's
/// state after the last and the counters' sums. A series whose first trip
/// waited nowhere for the state before it (`Before::clear`) leaves the
/// network so from any base whose state lets its first wait nowhere too:
/// each agent it crosses is taken by the first later than anything
/// before it, and every later trip meets only the series' own.
#[derive(Clone, Copy, Debug)]
pub struct Rounds {
    way: Way,
    gen: u64,
    n: u32,
    breaks: u8,
    t1: u64,
    leave1: u64,
    ni_last: u64,
    ni_free: u64,
    entry1: u64,
    popped: u64,
    tx_busy: u64,
    tx_rr: usize,
    rx_last: u64,
    rx_busy: u64,
    entry2: u64,
    cur: u64,
    now: u64,
    counts: Counts,
}

impl Before {
    /// Whether a round trip over this way issued at `t1`, whose response
    /// leaves external memory at `leave1`, waits nowhere for this state
    /// (and is taken over the kept way: `Mesh::solo_request_fast`,
    /// `Mesh::solo_response_fast`).
    #[inline]
    fn clear(&self, way: &Way, k: &super::Ticks, t1: Cycle, leave1: Cycle) -> bool {
        let net = way.net.index();
        let s = t1.wrapping_mul(2).wrapping_add(k.entry[net]);
        let tx_ready = s.wrapping_add(way.steps * k.hop);
        let r_ready = leave1.wrapping_mul(2).wrapping_add(k.rx_latency);
        t1 < u64::MAX / 8
            && leave1 < u64::MAX / 8
            && t1 >= self.now.max(self.ni_last)
            && self.ni_free <= s
            && s > self.cur
            && self.entry1.saturating_add(k.link) <= s
            && self.tx_busy <= tx_ready
            && leave1 >= self.rx_last
            && self.rx_busy <= r_ready
            && self.entry2.saturating_add(k.link) <= r_ready.wrapping_add(k.rx)
    }
}

impl Mesh {
    /// The state before a series of round trips over `way` (the kept
    /// one), if the network is quiet and the last trips on both of its
    /// nets went that way (left for later: [`Lazy`]).
    #[inline(always)]
    fn solo_before(&self, way: &Way) -> Option<Before> {
        let l1 = self.solo_lazy[way.net.index()]?;
        let l2 = self.solo_lazy[way.net2.index()]?;
        if l1.route != way.route
            || l2.route != way.route2
            || !self.quiet()
            || self.watched[way.src_i]
        {
            return None;
        }
        let ni = &self.nis[way.ni];
        Some(Before {
            now: self.now,
            ni_last: ni.last,
            ni_free: ni.free,
            cur: self.wheel.cur(),
            entry1: l1.entry,
            tx_busy: self.tx_busy,
            tx_next_addr: self.tx_next_addr,
            rx_last: self.rx_last,
            rx_busy: self.rx_busy,
            entry2: l2.entry,
        })
    }

    fn solo_counts(&self, way: &Way) -> Counts {
        let t = &self.stats.totals;
        let pending = |net: Net| self.solo_lazy[net.index()].map_or(0, |l| l.pending);
        Counts {
            seq: self.seq,
            fast: self.solo_way.fast,
            elink: self.stats.elink,
            injected: t.injected,
            delivered: t.delivered,
            hops: t.hops,
            node_injected: self.stats.node_ref(way.ni).injected,
            node_delivered: self.stats.node_ref(way.node2).delivered,
            pending1: pending(way.net),
            pending2: pending(way.net2),
        }
    }

    /// The network before a series of round trips (for
    /// [`Mesh::solo_rounds_since`]), if it can learn one.
    pub fn solo_mark(&self) -> Option<SoloMark> {
        let way = self.solo_way.way?;
        let before = self.solo_before(&way)?;
        Some(SoloMark {
            way,
            gen: self.solo_way.gen,
            before,
            counts: self.solo_counts(&way),
        })
    }

    /// The cycle the response of the last round trip left external memory.
    #[inline]
    pub fn solo_last_leave(&self) -> Cycle {
        self.rx_last
    }

    /// What the round trips since `mark` did (each of [`Mesh::solo_round`],
    /// answered: `Round::Back`), relative to `t0`: the first issued at
    /// `t1`, its response leaving at `leave1`; `loads` their addresses and
    /// sizes in bytes. `None` unless every packet took the kept way and
    /// the first waited nowhere for the state before it.
    pub fn solo_rounds_since(
        &self,
        mark: &SoloMark,
        t0: Cycle,
        t1: Cycle,
        leave1: Cycle,
        loads: &[(u32, u8)],
    ) -> Option<Rounds> {
        let (b, way) = (&mark.before, &mark.way);
        let n = loads.len() as u64;
        if n == 0
            || n > 8
            || self.solo_way.gen != mark.gen
            || self.solo_way.way.is_none()
            || self.solo_way.fast != mark.counts.fast + 2 * n
            || !b.clear(way, &self.k, t1, leave1)
            || loads.iter().any(|&(a, _)| NodeId::from_addr(a) != way.dst)
        {
            return None;
        }
        let after = self.solo_before(way)?;
        let c = self.solo_counts(way);
        let m = &mark.counts;
        let d3 = |a: [u64; 3], b: [u64; 3]| std::array::from_fn(|i| a[i] - b[i]);
        let dl = |a: LinkLoad, b: LinkLoad| LinkLoad {
            packets: a.packets - b.packets,
            busy_half_cycles: a.busy_half_cycles - b.busy_half_cycles,
            wait_half_cycles: a.wait_half_cycles - b.wait_half_cycles,
        };
        let (c0, h0) = (t0, t0.wrapping_mul(2));
        Some(Rounds {
            way: *way,
            gen: mark.gen,
            n: n as u32,
            breaks: breaks(b.tx_next_addr, loads),
            t1: t1.wrapping_sub(c0),
            leave1: leave1.wrapping_sub(c0),
            ni_last: after.ni_last.wrapping_sub(c0),
            ni_free: after.ni_free.wrapping_sub(h0),
            entry1: after.entry1.wrapping_sub(h0),
            popped: self.tx_ports[way.port].popped_at.wrapping_sub(h0),
            tx_busy: after.tx_busy.wrapping_sub(h0),
            tx_rr: self.tx_rr,
            rx_last: after.rx_last.wrapping_sub(c0),
            rx_busy: after.rx_busy.wrapping_sub(h0),
            entry2: after.entry2.wrapping_sub(h0),
            cur: after.cur.wrapping_sub(h0),
            now: after.now.wrapping_sub(c0),
            counts: Counts {
                seq: c.seq - m.seq,
                fast: c.fast - m.fast,
                elink: ELinkLoad {
                    tx: dl(c.elink.tx, m.elink.tx),
                    rx: dl(c.elink.rx, m.elink.rx),
                    tx_breaks: c.elink.tx_breaks - m.elink.tx_breaks,
                },
                injected: d3(c.injected, m.injected),
                delivered: d3(c.delivered, m.delivered),
                hops: d3(c.hops, m.hops),
                node_injected: c.node_injected - m.node_injected,
                node_delivered: c.node_delivered - m.node_delivered,
                pending1: c.pending1 - m.pending1,
                pending2: c.pending2 - m.pending2,
            },
        })
    }

    /// The round trips `r` learnt ([`Mesh::solo_rounds_since`]) again from
    /// base cycle `t0`, for loads `loads`, if the network lets them go as
    /// they went then (the same way, the same breaks of the eLink's
    /// transaction, the first waiting nowhere): the network left as
    /// [`Mesh::solo_round`] of each would leave it. False, nothing changed,
    /// otherwise.
    #[inline]
    pub fn solo_rounds_again(&mut self, r: &Rounds, t0: Cycle, loads: &[(u32, u8)]) -> bool {
        let took = self.solo_rounds_again_uncounted(r, t0, loads);
        if took {
            self.solo_rounds_count(r, 1);
        }
        took
    }

    /// [`Mesh::solo_rounds_again`] but for the statistics, left to the
    /// caller to write with [`Mesh::solo_rounds_count`] before anything
    /// reads them ([`Mesh::stats`], [`Mesh::state_digest`]; the
    /// differences of [`Mesh::solo_rounds_since`] from a mark are not
    /// changed by writes left over the two).
    #[inline]
    pub fn solo_rounds_again_uncounted(
        &mut self,
        r: &Rounds,
        t0: Cycle,
        loads: &[(u32, u8)],
    ) -> bool {
        if self.solo_way.gen != r.gen || self.solo_way.way.is_none() {
            return false;
        }
        // (The same learning of the kept way: `r.way` is it.)
        let Some(b) = self.solo_before(&r.way) else {
            return false;
        };
        let c0 = t0;
        if loads.len() != r.n as usize
            || !b.clear(
                &r.way,
                &self.k,
                r.t1.wrapping_add(c0),
                r.leave1.wrapping_add(c0),
            )
            || !same_breaks_and_page(b.tx_next_addr, loads, r.breaks, r.way.dst.bits())
        {
            return false;
        }
        self.solo_rounds_write(r, t0, 1, loads.last().copied());
        true
    }

    /// Whether the series of round trips of `loads` that [`Mesh::solo_rounds_more`]
    /// would take after one whose last request ended at `next` (its
    /// address plus its size) fits `r` as [`Mesh::solo_rounds_again`]
    /// asks: as many, breaking the eLink's transaction as then, each in
    /// the kept way's DRAM node.
    #[inline]
    pub fn solo_rounds_fit(r: &Rounds, next: Option<u32>, loads: &[(u32, u8)]) -> bool {
        loads.len() == r.n as usize && same_breaks_and_page(next, loads, r.breaks, r.way.dst.bits())
    }

    /// `m` further series of round trips over `r`'s way at once, the last
    /// from `t0` with the loads `last`, right after a series
    /// [`Mesh::solo_rounds_again`] took: the network left as taking each
    /// with `solo_rounds_again` would leave it. For the caller to know:
    /// each of them would have been taken so (nothing else used the
    /// network since, each from the one before's `t0` plus the same
    /// period as between the last series taken by `solo_rounds_again` and
    /// the one before it, which that one's checks found clear, and each
    /// fitting `r`: [`Mesh::solo_rounds_fit`]). Every time it writes is
    /// the last series' (the others' are overwritten, or kept as the
    /// greatest), every count `m` times one series'.
    pub fn solo_rounds_more(&mut self, r: &Rounds, t0: Cycle, m: u64, last: Option<(u32, u8)>) {
        self.solo_rounds_more_uncounted(r, t0, m, last);
        self.solo_rounds_count(r, m);
    }

    /// [`Mesh::solo_rounds_more`] but for the statistics, left to the
    /// caller as [`Mesh::solo_rounds_again_uncounted`] leaves them.
    pub fn solo_rounds_more_uncounted(
        &mut self,
        r: &Rounds,
        t0: Cycle,
        m: u64,
        last: Option<(u32, u8)>,
    ) {
        if m > 0 {
            self.solo_rounds_write(r, t0, m, last);
        }
    }

    /// The writes of [`Mesh::solo_rounds_again`] for `m` series, the last
    /// from `t0`, whose last load is `last`, but for the statistics
    /// ([`Mesh::solo_rounds_count`]).
    #[inline(always)]
    fn solo_rounds_write(&mut self, r: &Rounds, t0: Cycle, m: u64, last: Option<(u32, u8)>) {
        let (c0, h0) = (t0, t0.wrapping_mul(2));
        let w = r.way;
        let c = &r.counts;
        let ni = &mut self.nis[w.ni];
        ni.last = r.ni_last.wrapping_add(c0);
        ni.free = r.ni_free.wrapping_add(h0);
        if let Some(l) = self.solo_lazy[w.net.index()].as_mut() {
            l.entry = r.entry1.wrapping_add(h0);
            l.pending += c.pending1 * m;
        }
        if let Some(l) = self.solo_lazy[w.net2.index()].as_mut() {
            l.entry = r.entry2.wrapping_add(h0);
            l.pending += c.pending2 * m;
        }
        let port = &mut self.tx_ports[w.port];
        port.popped_at = r.popped.wrapping_add(h0);
        port.waiting = false;
        self.tx_rr = r.tx_rr;
        self.tx_busy = r.tx_busy.wrapping_add(h0);
        if let Some((a, bytes)) = last {
            self.tx_next_addr = Some(a.wrapping_add(u32::from(bytes)));
        }
        self.rx_last = r.rx_last.wrapping_add(c0);
        self.rx_busy = r.rx_busy.wrapping_add(h0);
        self.wheel_at(r.cur.wrapping_add(h0));
        self.now = self.now.max(r.now.wrapping_add(c0));
        *self.bounds.get_mut() = None;
        self.seq += c.seq * m;
        self.solo_way.fast += c.fast * m;
    }

    /// The statistics of `m` series of round trips `r` taken by
    /// [`Mesh::solo_rounds_again_uncounted`] or
    /// [`Mesh::solo_rounds_more_uncounted`] (each counter only grows, by
    /// additions, saturating or not, that may be made in any order).
    pub fn solo_rounds_count(&mut self, r: &Rounds, m: u64) {
        let (w, c) = (r.way, &r.counts);
        let s = &mut self.stats;
        // (`m` saturating additions of `d` are one of `d * m`, saturated.)
        let add = |a: &mut LinkLoad, d: &LinkLoad| {
            a.packets += d.packets * m;
            a.busy_half_cycles = a
                .busy_half_cycles
                .saturating_add(d.busy_half_cycles.saturating_mul(m));
            a.wait_half_cycles = a
                .wait_half_cycles
                .saturating_add(d.wait_half_cycles.saturating_mul(m));
        };
        add(&mut s.elink.tx, &c.elink.tx);
        add(&mut s.elink.rx, &c.elink.rx);
        s.elink.tx_breaks += c.elink.tx_breaks * m;
        for i in 0..3 {
            s.totals.injected[i] += c.injected[i] * m;
            s.totals.delivered[i] += c.delivered[i] * m;
            s.totals.hops[i] += c.hops[i] * m;
        }
        s.node_mut(w.ni).injected += c.node_injected * m;
        s.node_mut(w.node2).delivered += c.node_delivered * m;
    }
}

/// Whether `loads` break the eLink's transaction as `breaks` has it
/// (`breaks(next, loads) == breaks`) and each lies in the node of 1-MB
/// page `page` (`NodeId::from_addr(a).bits() == page`: a node's
/// coordinates are its address's top 12 bits), in one pass.
#[inline(always)]
fn same_breaks_and_page(next: Option<u32>, loads: &[(u32, u8)], breaks: u8, page: u32) -> bool {
    // (The address after the one before as a `u64`, none being one no
    // address is: no `Option` compared in the loop.)
    let mut next = next.map_or(u64::MAX, u64::from);
    let mut m = 0u32;
    let mut pages = 0;
    for (j, &(a, bytes)) in loads.iter().enumerate() {
        m |= u32::from(next != u64::from(a)) << j;
        pages |= (a >> 20) ^ page;
        next = u64::from(a.wrapping_add(u32::from(bytes)));
    }
    m == u32::from(breaks) && pages == 0
}

/// Which of `loads`' requests break the eLink's transaction (bit `j`: it
/// does not continue the one before, the first `next` before them).
#[inline]
fn breaks(mut next: Option<u32>, loads: &[(u32, u8)]) -> u8 {
    let mut m = 0;
    for (j, &(a, bytes)) in loads.iter().enumerate() {
        if next != Some(a) {
            m |= 1 << j;
        }
        next = Some(a.wrapping_add(u32::from(bytes)));
    }
    m
}
