//! Loads from DRAM timed in closed form in the core's run.
//!
//! While nothing but the core acts before `until` and nothing is on its
//! way in the network (the timed scheduler decides, `crate::sched`), a
//! load from DRAM whose whole round trip surely ends before `until` and
//! within the run meets nothing: its request crosses the idle network,
//! external memory reads when its port is free, the response crosses back
//! (`Mesh::solo_inject`, which leaves the network as stepping would), and
//! the instruction gets its data at once, with the latency the machine
//! would give it (what sending the request when it became the earliest
//! action of all and stepping both packets gives).
//!
//! In a memoised block the bus answers such loads as the block executes
//! and the block's timing sends their trips at their issue ([`InBlock`],
//! `core::blocks::solo_block`), so that a loop loading from DRAM is
//! replayed whole.

use epsim_isa::{ArchState, MemFault};
use epsim_mesh::{Kind, Mesh, NodeId, Packet, Round, Rounds, SoloMark, Target};

use super::{Answer, Chip, RemoteAccess, RemoteKind};
use crate::config::CoreId;
use crate::memory::CodeMem;
use crate::timing::Params;

/// The machine's network and external memory's read port, lent to a core
/// for a run in which its loads from DRAM meet nothing.
pub struct SoloLoads {
    /// The machine's network for the run (swapped back after it).
    pub mesh: Box<Mesh>,
    /// Nothing but the core acts before this cycle (0: off for the run).
    pub until: u64,
    /// `Mesh::solo_bound`.
    pub bound: u64,
    /// Loads timed here since the machine last collected them.
    pub loads: u64,
    pub ext_base: u32,
    pub ext_size: u32,
    pub chip: Chip,
    /// A load whose request reached external memory but whose response
    /// could not be timed here: the machine sends it and the core waits.
    pub waiting: Option<Waiting>,
    /// Loads answered in the block being run (`InBlock`).
    pub block: InBlock,
    /// The round trips of replayed blocks' loads, learnt to be taken
    /// again at once ([`SoloLoads::rounds_again`]).
    pub rounds: Vec<Kept>,
    /// The kept records (bit `rid % KEPT`) with series of trips whose
    /// statistics are not yet written to the network ([`Kept`]'s
    /// `uncounted`; [`SoloLoads::settle`]).
    pub uncounted: u64,
    /// The end cycle of the last block of this run replayed with its loads
    /// answered here that read nothing but DRAM (no DMA register either),
    /// if it was not the run's first block to answer loads here
    /// (`fresh`): the next block, if it starts then, finds the polling
    /// watch steady (`core::blocks::steady`). Both set afresh after each
    /// run.
    pub pass: Option<u64>,
    pub fresh: bool,
    /// A store to DRAM answered in the run and not yet sent
    /// ([`SoloLoads::post`]): its write lands in the run once the core's
    /// next load from DRAM or store to DRAM shows that nothing of the
    /// core's could meet it ([`SoloLoads::land`]); else the machine sends
    /// it at its issue when the run ends (`Machine::send_posted`).
    pub posted: Option<Posted>,
    /// The core's timers count its mesh traffic (MESHCONFIG, set at the
    /// run's start and by a write of it in the run): no store is posted
    /// (its caller counts an answer's two packets).
    pub counted: bool,
}

/// See [`SoloLoads::posted`]: the store and its issue.
#[derive(Clone, Copy, Debug)]
pub struct Posted {
    pub access: RemoteAccess,
    pub issue: u64,
    off: u32,
    value: u64,
}

/// The round trips of the loads of a record's replay ([`Rounds`]): the
/// record, named by its id and the memo's epoch (`Memo::epoch`: a record
/// never changes, and an id names another record only after the memo
/// forgot every one, which advances the epoch), whose loads' trips decide
/// them with the network's way and the eLink's breaks; and how many.
#[derive(Clone, Copy, Debug)]
pub struct Kept {
    rid: u32,
    epoch: u32,
    n: usize,
    /// Relative to the replay's base: the last issue, the least busy time
    /// of the read port before a load, and the latest end of a trip as
    /// [`SoloLoads::trip_to`] bounds it (`SoloLoads::in_time`).
    issue_max: i64,
    busy_min: i64,
    last_max: i64,
    rounds: Rounds,
    /// Series of these trips taken whose statistics are not yet written
    /// to the network (`Mesh::solo_rounds_count`): written at once when
    /// the run ends or the record's trips are learnt afresh
    /// ([`SoloLoads::settle`]).
    uncounted: u64,
}

/// Records whose round trips are kept (direct-mapped by record).
const KEPT: usize = 64;

/// See [`SoloLoads::waiting`].
#[derive(Clone, Copy, Debug)]
pub struct Waiting {
    pub access: RemoteAccess,
    pub issue: u64,
    /// The cycle the response leaves external memory.
    pub leave: u64,
    pub value: Result<u64, MemFault>,
}

/// What became of a load.
pub enum Outcome {
    /// Answered: the core goes on.
    Answered(Answer),
    /// See [`SoloLoads::waiting`] (set).
    Waits,
    /// Not timed here: the machine sends it.
    No,
}

impl SoloLoads {
    /// Core `id`'s load `access`, issuing at `issue` in a run that ends
    /// at `limit`; `busy` is external memory's read port (advanced when
    /// the load reads). A load from DRAM goes after the store kept, if
    /// any, landed ([`SoloLoads::land`]: the machine holds the load
    /// behind it); a store to DRAM is posted ([`SoloLoads::post`]:
    /// answered at once, with no latency).
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        &mut self,
        id: CoreId,
        params: &Params,
        busy: &mut u64,
        dram: &mut CodeMem,
        access: RemoteAccess,
        issue: u64,
        limit: u64,
    ) -> Outcome {
        if self.posted.is_some() || access.kind != RemoteKind::Load {
            return self.post_or_land(id, params, busy, dram, access, issue, limit);
        }
        self.trip(id, params, busy, dram, access, issue, limit, 0).0
    }

    /// [`SoloLoads::load`] of a store, or of a load with a store kept.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    #[inline(never)]
    fn post_or_land(
        &mut self,
        id: CoreId,
        params: &Params,
        busy: &mut u64,
        dram: &mut CodeMem,
        access: RemoteAccess,
        issue: u64,
        limit: u64,
    ) -> Outcome {
        if let RemoteKind::Store(_) = access.kind {
            if !self.post(id, dram, access, issue, limit) {
                return Outcome::No;
            }
            return Outcome::Answered(Answer {
                addr: access.addr,
                value: Ok(0),
                latency: 0,
            });
        }
        if !self.land(id, dram, issue) {
            return Outcome::No;
        }
        self.trip(id, params, busy, dram, access, issue, limit, 0).0
    }

    /// [`SoloLoads::load`], answered only if the response is back at
    /// least `margin` cycles before the run's end and before `until`;
    /// also the cycle the request reached external memory, if it did.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn trip(
        &mut self,
        id: CoreId,
        params: &Params,
        busy: &mut u64,
        dram: &CodeMem,
        access: RemoteAccess,
        issue: u64,
        limit: u64,
        margin: u64,
    ) -> (Outcome, u64) {
        match self.dram_load(access) {
            Some(off) => self.trip_to(
                id, params, busy, dram, access, off, true, issue, limit, margin,
            ),
            None => (Outcome::No, 0),
        }
    }

    /// The offset in DRAM of a load `access` timed here (in a run lent
    /// the network, a load from external memory through the eLink).
    #[inline]
    pub fn dram_load(&self, access: RemoteAccess) -> Option<u32> {
        if self.until == 0
            || access.kind != RemoteKind::Load
            || self.chip.contains(access.addr >> 20)
        {
            return None;
        }
        let off = crate::machine::dram_offset(self.chip, self.ext_base, self.ext_size, access.addr);
        (off < self.ext_size
            && matches!(
                self.mesh.geometry().classify(access.addr),
                Target::External(_)
            ))
        .then_some(off)
    }

    /// [`SoloLoads::trip`] of a load found timed here, at DRAM offset
    /// `off` ([`SoloLoads::dram_load`]); with `read` false, an answer's
    /// value is left 0 (the bus of a block that answered the load has
    /// read it: `InBlock`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn trip_to(
        &mut self,
        id: CoreId,
        params: &Params,
        busy: &mut u64,
        dram: &CodeMem,
        access: RemoteAccess,
        off: u32,
        read: bool,
        issue: u64,
        limit: u64,
        margin: u64,
    ) -> (Outcome, u64) {
        let (latency, extra) = (params.dram_latency, params.remote_read_extra);
        let b = self.bound;
        let last = issue
            .saturating_add(b)
            .max(*busy)
            .saturating_add(latency)
            .saturating_add(b)
            .saturating_add(extra);
        if !self.ends_in_time(issue, last, limit, margin) {
            return (Outcome::No, 0);
        }
        let node = NodeId::new(id.row, id.col);
        let bytes = access.size.bytes() as u8;
        let request = Packet {
            tag: u64::MAX,
            kind: Kind::ReadRequest,
            src: node,
            dst: access.addr,
            bytes,
        };
        let response = Packet {
            tag: u64::MAX,
            kind: Kind::ReadResponse,
            src: node,
            dst: id.global_base(),
            bytes,
        };
        // Read on arrival (`Machine::external_arrival`): nothing writes
        // DRAM before then.
        let round = self.mesh.solo_round(issue, request, response, |at| {
            params.start_read(busy, at) + latency
        });
        let len = access.size.bytes();
        let value = || {
            if dram.contains(off, len) {
                Ok(dram.read(off, len))
            } else {
                Err(MemFault::Unmapped)
            }
        };
        let (arrived, back) = match round {
            Round::No => return (Outcome::No, 0),
            Round::Waits { arrived, leave } => {
                // (Not expected: the network is idle again.)
                self.waiting = Some(Waiting {
                    access,
                    issue,
                    leave,
                    value: value(),
                });
                return (Outcome::Waits, arrived.at);
            }
            Round::Back { arrived, back, .. } => (arrived, back),
        };
        let value = if read { value() } else { Ok(0) };
        self.loads += 1;
        let answer = Answer {
            addr: access.addr,
            value,
            latency: (back.at + extra - issue) as u32,
        };
        (Outcome::Answered(answer), arrived.at)
    }
}

impl SoloLoads {
    /// Core `id`'s store `access` to DRAM issuing at `issue` (answered at
    /// once, with no latency, as the machine answers a store it sends at
    /// its issue: posted), if the run may keep it: one to external memory
    /// through the eLink, issuing before anything else acts (`until`) and
    /// before the run's end `limit`, after the store kept before it, if
    /// any, landed ([`SoloLoads::land`]). Until it lands here, its write
    /// is not made (the core's loads from DRAM wait for it, as the
    /// machine holds them behind its stores: `solo_answer` answers none
    /// meanwhile, [`SoloLoads::load`]'s caller lands it first), and the
    /// core's next store to DRAM lands it or ends the run; anything else
    /// the core sends, or the run's end, leaves it to the machine, which
    /// sends it at its issue (the earliest action of all then: nothing
    /// else acts before `until`, and the run is final, never lent while
    /// running ahead). False, nothing kept, otherwise.
    pub fn post(
        &mut self,
        id: CoreId,
        dram: &mut CodeMem,
        access: RemoteAccess,
        issue: u64,
        limit: u64,
    ) -> bool {
        let RemoteKind::Store(value) = access.kind else {
            return false;
        };
        if self.until == 0
            || self.counted
            || issue >= self.until
            || issue >= limit
            || self.waiting.is_some()
            || self.chip.contains(access.addr >> 20)
            || (self.posted.is_some() && !self.land(id, dram, issue))
        {
            return false;
        }
        let off = crate::machine::dram_offset(self.chip, self.ext_base, self.ext_size, access.addr);
        if off >= self.ext_size
            || !matches!(
                self.mesh.geometry().classify(access.addr),
                Target::External(_)
            )
        {
            return false;
        }
        self.posted = Some(Posted {
            access,
            issue,
            off,
            value,
        });
        true
    }

    /// Lands the store kept ([`SoloLoads::post`]) in the run if its
    /// write surely reaches external memory by `before` (the issue of the
    /// core's next load or store to DRAM: nothing of the core's meets it
    /// on its way or at the eLink, and its own later load reads after it
    /// as the machine holds that one behind it) and before anything else
    /// acts (`until`), and it writes no decoded code (which a block of the
    /// run could have read since: left to the machine): the write crosses
    /// the idle network alone (`Mesh::solo_inject`, which leaves it as
    /// stepping would) and is made. True if none is kept now.
    pub fn land(&mut self, id: CoreId, dram: &mut CodeMem, before: u64) -> bool {
        let Some(w) = self.posted else {
            return true;
        };
        let by = w.issue.saturating_add(self.bound);
        let len = w.access.size.bytes();
        if by > before || by >= self.until || !dram.plain_at(w.off, len) {
            return false;
        }
        let p = Packet {
            tag: u64::MAX,
            kind: Kind::Write,
            src: NodeId::new(id.row, id.col),
            dst: w.access.addr,
            bytes: len as u8,
        };
        let Some(arrived) = self.mesh.solo_inject(w.issue, p) else {
            return false;
        };
        debug_assert!(arrived.at <= before && arrived.at < self.until);
        let wrote = dram.store_plain(w.off, len, w.value);
        debug_assert!(wrote, "invariant: plain_at found no code near it");
        self.posted = None;
        true
    }

    /// Whether a trip issued at `issue` whose response is back by `last`
    /// is timed here: it issues before the run's end, and the response is
    /// back `margin` cycles before the run's end and before anything else
    /// acts (`until`). [`SoloLoads::trip_to`] asks it of each trip,
    /// [`SoloLoads::in_time`] of a replay's at once.
    #[inline(always)]
    fn ends_in_time(&self, issue: u64, last: u64, limit: u64, margin: u64) -> bool {
        let end = last.saturating_add(margin);
        issue < limit && end < self.until && end <= limit
    }

    /// The bounds of [`Kept`] of a replay's loads `solo`.
    fn bounds(&self, params: &Params, solo: &[Sent]) -> (i64, i64, i64) {
        let (latency, extra, b) = (params.dram_latency, params.remote_read_extra, self.bound);
        let tail = (latency + b + extra) as i64;
        solo.iter()
            .fold((i64::MIN, i64::MAX, i64::MIN), |(i, busy, last), e| {
                (
                    i.max(e.issue),
                    busy.min(e.busy),
                    last.max((e.issue + b as i64).max(e.busy) + tail),
                )
            })
    }

    /// Whether each trip of a replay's loads from `base` ends in time, as
    /// [`SoloLoads::trip_to`] asks (and the read port's times are not
    /// clipped at 0), given their bounds ([`Kept`]).
    #[inline]
    fn in_time(
        &self,
        (issue, busy, last): (i64, i64, i64),
        base: u64,
        limit: u64,
        margin: u64,
    ) -> bool {
        let b = base as i64;
        b + busy >= 0 && self.ends_in_time((b + issue) as u64, (b + last) as u64, limit, margin)
    }

    /// The trips of the `n` loads of record `rid`'s replay from `base`
    /// (as the record has them, each checked to arrive as recorded; the
    /// record of the memo's `epoch`) at once, as a replay learnt them
    /// ([`SoloLoads::rounds_learn`]) if the network lets them go so
    /// ([`Mesh::solo_rounds_again`]) and each ends in time: the network and
    /// the count of loads as sending each would leave them. False, nothing
    /// changed, otherwise.
    #[inline]
    pub fn rounds_again(
        &mut self,
        rid: u32,
        epoch: u32,
        n: usize,
        base: u64,
        limit: u64,
        margin: u64,
    ) -> bool {
        let bounds = match self.rounds.get(rid as usize % KEPT) {
            Some(k) if k.rid == rid && k.epoch == epoch => (k.issue_max, k.busy_min, k.last_max),
            _ => return false,
        };
        if !self.in_time(bounds, base, limit, margin) {
            return false;
        }
        let b = &self.block;
        let i = rid as usize % KEPT;
        let k = &mut self.rounds[i];
        if b.n != n
            || !self
                .mesh
                .solo_rounds_again_uncounted(&k.rounds, base, &b.loads[..b.n])
        {
            return false;
        }
        k.uncounted += 1;
        self.uncounted |= 1 << i;
        self.loads += n as u64;
        true
    }

    /// Writes the statistics of the series of trips taken and not yet
    /// counted (`Kept`'s `uncounted`) to the network: to call before the
    /// network goes back to the machine (or anything else reads its
    /// statistics).
    #[inline]
    pub fn settle(&mut self) {
        while self.uncounted != 0 {
            let i = self.uncounted.trailing_zeros() as usize;
            self.uncounted &= self.uncounted - 1;
            self.count(i);
        }
    }

    /// Writes the statistics of kept slot `i`'s uncounted series.
    fn count(&mut self, i: usize) {
        let k = &mut self.rounds[i];
        let m = std::mem::take(&mut k.uncounted);
        if m > 0 {
            self.mesh.solo_rounds_count(&k.rounds, m);
        }
    }

    /// Whether the loads answered in the block (`block`) of record
    /// `rid`'s replay from `base`, right after a replay of it whose last
    /// request ended at `next` (address plus size), can be one more
    /// series of round trips taken at once as [`SoloLoads::rounds_again`]
    /// would take them, as far as they go: the kept trips are still the
    /// record's (`rounds_again` found them to be, and none was learnt
    /// since), each ends in time, and they fit the kept way
    /// ([`Mesh::solo_rounds_fit`]). The network's state before them is the
    /// caller's to know (`core::blocks::solo_repeat`).
    #[inline(always)]
    pub fn rounds_fit(
        &self,
        rid: u32,
        base: u64,
        limit: u64,
        margin: u64,
        next: Option<u32>,
    ) -> bool {
        match self.rounds.get(rid as usize % KEPT) {
            Some(k) if k.rid == rid => {
                self.block.n == k.n
                    && self.in_time((k.issue_max, k.busy_min, k.last_max), base, limit, margin)
                    && Mesh::solo_rounds_fit(&k.rounds, next, &self.block.loads[..k.n])
            }
            _ => false,
        }
    }

    /// Takes `m` series of round trips of record `rid`'s replays found to
    /// fit ([`SoloLoads::rounds_fit`]) at once, the last from `base`, its
    /// last load `last` ([`Mesh::solo_rounds_more`]), and counts their
    /// loads.
    pub fn rounds_more(&mut self, rid: u32, base: u64, m: u64, last: Option<(u32, u8)>) {
        let i = rid as usize % KEPT;
        let Some(k) = self.rounds.get_mut(i).filter(|k| k.rid == rid) else {
            unreachable!("invariant: rounds_fit found the record's trips kept");
        };
        self.mesh
            .solo_rounds_more_uncounted(&k.rounds, base, m, last);
        k.uncounted += m;
        self.uncounted |= 1 << i;
        self.loads += m * k.n as u64;
    }

    /// Learns the trips just sent for the loads of record `rid`'s replay
    /// (the record of the memo's `epoch`)
    /// from `base` (`solo`, each found to arrive as recorded; the network
    /// as `mark` before them, the first one's response leaving at
    /// `leave1`), for [`SoloLoads::rounds_again`].
    #[allow(clippy::too_many_arguments)]
    pub fn rounds_learn(
        &mut self,
        params: &Params,
        rid: u32,
        epoch: u32,
        solo: &[Sent],
        mark: &SoloMark,
        base: u64,
        leave1: u64,
        limit: u64,
        margin: u64,
    ) {
        let (loads, n) = (self.block.loads, self.block.n);
        let bounds = self.bounds(params, solo);
        if n == 0 || n != solo.len() || !self.in_time(bounds, base, limit, margin) {
            return;
        }
        let t1 = (base as i64 + solo[0].issue) as u64;
        let Some(rounds) = self
            .mesh
            .solo_rounds_since(mark, base, t1, leave1, &loads[..n])
        else {
            return;
        };
        let kept = Kept {
            rid,
            epoch,
            n,
            issue_max: bounds.0,
            busy_min: bounds.1,
            last_max: bounds.2,
            rounds,
            uncounted: 0,
        };
        let i = rid as usize % KEPT;
        if self.rounds.len() < KEPT {
            // (Filled on first use.)
            self.rounds.resize(
                KEPT,
                Kept {
                    rid: u32::MAX,
                    ..kept
                },
            );
        }
        if self.uncounted & 1 << i != 0 {
            self.uncounted &= !(1 << i);
            self.count(i);
        }
        self.rounds[i] = kept;
    }
}

/// Loads from DRAM a memoised block answers as it executes, during a run
/// lent the network ([`SoloLoads`]): the bus gives each its value from
/// DRAM at once (nothing writes DRAM before the run ends) and keeps the
/// core's state from before it; the block's timing then sends its trips
/// at its issue (`core::blocks::memo_block`). One whose trips cannot be
/// timed so takes the state back to before it, and goes through the
/// machine as any other. No store, TESTSET or write of a special register
/// follows such a load in its block (the bus ends the block before it:
/// only the core's state would be taken back).
pub struct InBlock {
    /// Loads answered in the block so far.
    pub n: usize,
    /// Their addresses and sizes in bytes, as the network's round trips
    /// take them (`Mesh::solo_rounds_again`; the loads themselves:
    /// [`InBlock::access`]).
    pub loads: [(u32, u8); BLOCK_LOADS],
    /// Their offsets in DRAM (the bus answers a load only on the terms
    /// of [`SoloLoads::dram_load`], which finds them: the block's trips
    /// do not classify the address again).
    pub off: [u32; BLOCK_LOADS],
    /// The core's state before the first of them (but its PC). A load
    /// after it taken back goes back to this state and executes again up
    /// to that load (`core::blocks::solo_block`): no store, TESTSET or
    /// write of a special register lies between (see above), and the loads
    /// between read DRAM and local SRAM, which nothing writes meanwhile.
    pub snap: ArchState,
    /// Set while the block executes again so: a load from DRAM is answered
    /// from DRAM as before, nothing noted (`CoreBus::solo_answer`).
    pub again: bool,
    /// Set while a block runs again in place of the run loop's next pass
    /// (`core::blocks::solo_repeat`, which keeps the state before it and
    /// leaves a pass it does not replay to the run loop): `snap` is not
    /// taken.
    pub nosnap: bool,
    /// The first `npre` loads' trips already sent (a replay's check found
    /// the record off at the last of them, or at the one after): the
    /// detailed model takes them as they are.
    pub pre: [Sent; BLOCK_LOADS],
    pub npre: usize,
    /// The 1-MB page (address >> 20) of the last load answered in a
    /// block: off the chip, and routed to external memory by the network
    /// (whose geometry a machine keeps), as any address of that page.
    pub ext_page: u32,
}

impl InBlock {
    /// The `j`th load answered in the block, as the machine takes it.
    pub fn access(&self, j: usize) -> RemoteAccess {
        let (addr, bytes) = self.loads[j];
        RemoteAccess {
            addr,
            size: epsim_isa::Size::from_bits(bytes.trailing_zeros()),
            kind: RemoteKind::Load,
        }
    }
}

/// At most this many loads from DRAM answered in one block.
pub const BLOCK_LOADS: usize = 4;

/// The trips of a load answered in a block: at its issue (relative to
/// the block's entry in a record), the read port's busy time before it,
/// its request's arrival at external memory, its latency, and (absolute
/// only) the port's busy time after it; `latency` 0 if its response
/// could not be timed (`SoloLoads::waiting` set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    pub issue: i64,
    pub busy: i64,
    pub arrive: i64,
    pub latency: u32,
    pub busy_after: u64,
}

impl Default for InBlock {
    fn default() -> Self {
        InBlock {
            n: 0,
            loads: [(0, 0); BLOCK_LOADS],
            off: [0; BLOCK_LOADS],
            snap: ArchState::new(),
            again: false,
            nosnap: false,
            pre: [Sent::default(); BLOCK_LOADS],
            npre: 0,
            ext_page: u32::MAX,
        }
    }
}
