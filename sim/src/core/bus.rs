//! The bus of one core: how its addresses are classified (local SRAM, its
//! own registers, its own global window, external DRAM, anything else
//! unmapped), its memory-mapped registers, and memory protection.

use epsim_isa::state::{irq, sreg};
use epsim_isa::{Access, ArchState, Bus, MemFault, Size, Sreg};

use super::solo::{SoloLoads, BLOCK_LOADS};
use super::{dma_load, OtherRegs, DEBUG_HALT};
use crate::config::CoreId;
use crate::memory::CodeMem;
use crate::syscall::GuestMemory;
use crate::timing::{Pipeline, Place as TPlace};
use crate::trace::MemAccess;

/// Start of the memory-mapped register window in a core's local space.
pub const MMR_BASE: u32 = 0xF0000;

/// The memory-mapped address (offset in the core's space) of core special
/// register `i` (group 0).
const fn sreg_offset(i: u32) -> u32 {
    MMR_BASE + 0x400 + 4 * i
}
/// End (exclusive) of the memory-mapped register window.
pub const MMR_END: u32 = 0xF1000;

/// Indexes into [`OtherRegs::mem`] (0xF0600, 0xF0604, 0xF0608).
const MEMSTATUS: usize = 1;
pub(super) const MEMPROTECT: usize = 2;
/// MEMPROTECT: the core may not write off-chip; raise the memory fault.
const PROTECT_CORE_XWR: u32 = 1 << 14;
const PROTECT_EXC_EN: u32 = 1 << 15;
/// MEMSTATUS: a fault happened; a write to a protected page; a write
/// off-chip while forbidden.
const MEMSTATUS_FAULT: u32 = 1 << 2;
const MEMSTATUS_WRITE_BREACH: u32 = 1 << 11;
const MEMSTATUS_XWRITE_BREACH: u32 = 1 << 13;

/// The DMA registers (0xF0500-0xF053F): the machine's DMA engine answers
/// them, at the cycle of the access.
#[inline(always)]
pub(crate) fn is_dma(off: u32) -> bool {
    (0xF0500..0xF0540).contains(&off)
}

/// MESHCONFIG and RESETCORE: a write of one changes what the core's DMA
/// engine's moves do to it (the mesh events its timers count, the engine
/// itself), so while the engine's moves wait (`Core::dma_detached`) the
/// machine performs it, after them, as it does a DMA register's.
#[inline(always)]
pub(crate) fn held_by_dma(off: u32) -> bool {
    off == 0xF0700 || off == 0xF070C
}

/// The bit of the DMA register word at `off` (0xF0500-0xF053F) in a
/// polling loop's read set (`Spin`).
#[inline(always)]
pub(crate) fn dma_word(off: u32) -> u16 {
    1 << ((off.wrapping_sub(0xF0500) >> 2) & 15)
}

/// Where an address leads, seen from one core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    Sram(u32),
    Mmr(u32),
    Dram(u32),
    /// Another core of the chip (its SRAM or registers), this core's DMA
    /// registers, or external memory in timed mode: the machine performs
    /// the access.
    Remote,
    Unmapped,
}

impl Place {
    /// What the timing model needs of an access that went here: the SRAM
    /// bank, no bank (a register), or external memory.
    #[inline]
    fn timing(self) -> TPlace {
        match self {
            Place::Sram(off) => TPlace::Local(Some(Pipeline::bank(off))),
            Place::Mmr(_) => TPlace::Local(None),
            Place::Dram(_) | Place::Unmapped => TPlace::External,
            Place::Remote => TPlace::Remote {
                latency: 0,
                external: false,
            },
        }
    }
}

/// The cores of the chip, as a core's bus sees them: which 12-bit core ids
/// exist besides its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chip {
    pub first_row: u32,
    pub first_col: u32,
    pub rows: u32,
    pub cols: u32,
}

impl Chip {
    /// The chip's mesh geometry, its eLink wired on the east edge (the
    /// Parallella's, as the scheduler's mesh has it).
    pub fn geometry(&self) -> epsim_mesh::Geometry {
        epsim_mesh::Geometry::new(
            self.first_row,
            self.first_col,
            self.rows,
            self.cols,
            Some(epsim_mesh::Side::East),
        )
    }

    /// Whether an address that no core or memory answers may leave the
    /// chip through a link that loops it back (an edge other than the
    /// eLink's with a link register node): a write there goes to the
    /// machine, which looks at the link's LINKDEBUG (`Machine::looped`).
    #[cold]
    pub fn may_loop(&self, addr: u32) -> bool {
        let g = self.geometry();
        g.looped(addr)
            .is_some_and(|l| g.elink_node(l.side).is_some())
    }

    /// Whether the core with 12-bit id `id` is on this chip.
    #[inline(always)]
    pub fn contains(&self, id: u32) -> bool {
        let (row, col) = (id >> 6, id & 63);
        row.wrapping_sub(self.first_row) < self.rows && col.wrapping_sub(self.first_col) < self.cols
    }
}

/// What a core asks of another core's memory or registers: the machine
/// performs it (at once in functional mode, through the mesh when timed)
/// and answers with [`Answer`], and the core executes the instruction again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteAccess {
    /// The global address.
    pub addr: u32,
    pub size: Size,
    pub kind: RemoteKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemoteKind {
    Load,
    /// A posted store of the low `size` bytes.
    Store(u64),
    /// TESTSET with this value.
    TestSet(u32),
    /// An instruction fetch of the aligned 8-byte line at `addr` (`size`
    /// is `Double`): a read that only SRAM answers.
    Fetch,
    /// A store made with CONFIG.CTRLMODE = multicast (isa.md §3.3, §7.2):
    /// the low `size` bytes are written at `addr`'s offset in every other
    /// core of the chip whose MULTICAST register holds `addr`'s core-id
    /// field (`addr >> 20`).
    Multicast(u64),
}

/// The index of LINKDEBUG in `OtherRegs::link`, and its loopback bit
/// (mesh/MESH.md, "Loopback").
pub const LINKDEBUG: usize = 5;
pub const LINKDEBUG_LOOPBACK: u32 = 1 << 14;

/// CONFIG.CTRLMODE (bits 15:12) for multicast routing.
pub const CTRLMODE_MULTICAST: u32 = 0b0011;

/// The machine's answer to a [`RemoteAccess`], consumed by the access when
/// the instruction executes again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub addr: u32,
    /// What the access returns: the value loaded (the old word for
    /// TESTSET; nothing for a store), or the fault.
    pub value: Result<u64, MemFault>,
    /// Cycles from issue until the data arrived (loads, TESTSET) or the
    /// mesh accepted the store.
    pub latency: u32,
}

/// The memories a core reaches besides its own.
pub struct Shared<'a> {
    pub dram: &'a mut CodeMem,
    pub ext_base: u32,
}

/// The bus of one core during one execution batch. With `REC` it records
/// the access each instruction makes, for traces.
pub struct CoreBus<'a, const REC: bool = false> {
    pub(super) id_bits: u32,
    pub(super) sram: &'a mut CodeMem,
    pub(super) regs: &'a mut OtherRegs,
    pub(super) dram: &'a mut CodeMem,
    pub(super) ext_base: u32,
    /// Set when a register write asks the core to halt.
    pub(super) halt_requested: bool,
    /// Set when RESETCORE went from 1 to 0: the core resets.
    pub(super) reset_requested: bool,
    /// Set when a store reached a memory-mapped register or decoded code:
    /// the running block must end after this instruction.
    pub(super) attention: bool,
    /// MEMPROTECT protects some page of SRAM: stores to SRAM take the
    /// slow path, which checks it.
    pub(super) protected: bool,
    /// The last access (only with `REC` and `full_rec`).
    pub(super) rec: Option<MemAccess>,
    /// With `REC`: record each access in full in `rec` (the detailed
    /// timing model and the trace), not only as a code in `codes`.
    pub(super) full_rec: bool,
    /// With `REC`: where each access of the block so far went, as a
    /// replay-key code ([`MemCodes::note`]).
    pub(super) codes: MemCodes,
    /// The chip around this core.
    pub(super) chip: Chip,
    /// An access to another core that the machine must perform.
    pub(super) deferred: Option<RemoteAccess>,
    /// The machine's answer to the access deferred last.
    pub(super) answer: Option<Answer>,
    /// The instruction taking `answer` ends its block (`attention`): an
    /// interrupt raised while it waited is taken right after it.
    pub(super) cut_at_answer: bool,
    /// Timed mode: external memory is reached through the mesh and the
    /// eLink, like another core (the machine performs the access).
    pub(super) dram_via_mesh: bool,
    /// The instruction being executed from another core's SRAM: its PC
    /// and word (for traces and diagnostics; its bytes are not here).
    pub(super) remote_insn: Option<(u32, u32)>,
    /// Timed mode, when nothing else can change them during the run
    /// (`Core::dma_direct`): the core's DMA engine, whose registers a
    /// load or MOVFS reads at once instead of asking the machine.
    pub(super) dma: Option<&'a epsim_dma::Dma>,
    /// Timed mode: the run goes on past the DMA engine's next move
    /// (`Core::dma_detached`): writes of MESHCONFIG and RESETCORE go to
    /// the machine (`held_by_dma`).
    pub(super) dma_detached: bool,
    /// Such a read happened since this was last cleared (a polling loop
    /// may read the registers as it reads its SRAM: `Spin`).
    pub(super) direct: bool,
    /// The DMA registers such reads read (bit `n`: the word at offset
    /// `4n` of the window), for a polling loop's read set (`Spin`).
    pub(super) dma_reads: u16,
    /// Lazy timers (`timing::lazy_limit`): the timers have not counted the
    /// cycles of this run's replayed blocks yet, so a read of a timer or
    /// a write of a timer or CONFIG waits (`timer_stall` set, the
    /// instruction not executed) for the detailed model to run it.
    pub(super) lazy_timers: bool,
    pub(super) timer_stall: bool,
    /// Such an access (a read of a timer, a write of a timer or CONFIG)
    /// was made, or waited, since this was last cleared: a polling loop
    /// that makes one is not in a fixed point the timers' values leave
    /// alone (`Spin`).
    pub(super) timer_touched: bool,
    /// The value the last MOVFS of a core register read (a timer's, in a
    /// loop waiting for it: `twait::TimerWait`).
    pub(super) timer_read: u32,
    /// Timed mode, in a run lent the network: its loads from DRAM
    /// (`SoloLoads`).
    pub(super) solo: Option<&'a mut SoloLoads>,
    /// A memoised block executing: loads from DRAM are answered at once
    /// from DRAM (`solo::InBlock`).
    pub(super) solo_on: bool,
    /// Such a load was answered in the block: a store, TESTSET or write
    /// of a special register ends it before it (`solo_split` set).
    pub(super) solo_loaded: bool,
    pub(super) solo_split: bool,
}

/// The memory accesses of a block as its replay key names them: per
/// load/store its bank (4: a register, 5: external memory, 6: through the
/// mesh, 7: from DRAM answered in the block), | 8 for a store, | 16 for a
/// byte or half.
#[derive(Clone, Copy, Debug)]
pub struct MemCodes {
    pub codes: [u8; crate::block::MAX_BLOCK],
    pub n: usize,
    /// An access left the core (external memory or the mesh).
    pub external: bool,
    /// The latency, and whether external, of the access answered through
    /// the mesh (at most one per block: its first instruction, retried).
    pub remote: (u32, bool),
}

impl MemCodes {
    pub const EMPTY: MemCodes = MemCodes {
        codes: [0; crate::block::MAX_BLOCK],
        n: 0,
        external: false,
        remote: (0, false),
    };

    /// Starts a block.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.n = 0;
        self.external = false;
    }

    /// A load from DRAM answered in the block (`CoreBus::solo_answer`):
    /// code 7.
    #[inline]
    fn note_solo(&mut self, sub: bool) {
        if let Some(c) = self.codes.get_mut(self.n) {
            *c = 7 | (sub as u8) << 4;
            self.n += 1;
        }
    }

    #[inline(always)]
    fn note(&mut self, place: TPlace, store: bool, size: Size) {
        let p = match place {
            TPlace::Local(Some(b)) => b,
            TPlace::Local(None) => 4,
            TPlace::External => {
                self.external = true;
                5
            }
            TPlace::Remote { latency, external } => {
                self.external = true;
                self.remote = (latency, external);
                6
            }
        };
        let sub = matches!(size, Size::Byte | Size::Half);
        if let Some(c) = self.codes.get_mut(self.n) {
            *c = p | (store as u8) << 3 | (sub as u8) << 4;
            self.n += 1;
        }
    }
}

impl<'a, const REC: bool> CoreBus<'a, REC> {
    /// The bus of core `id` over its SRAM and registers and the shared
    /// memories, with nothing asked or answered yet; external memory is
    /// reached directly (timed mode sets `dram_via_mesh`).
    pub(super) fn new(
        id: CoreId,
        sram: &'a mut CodeMem,
        regs: &'a mut OtherRegs,
        shared: &'a mut Shared<'_>,
        chip: Chip,
    ) -> Self {
        CoreBus {
            id_bits: id.bits(),
            sram,
            protected: regs.protects(),
            regs,
            dram: &mut *shared.dram,
            ext_base: shared.ext_base,
            halt_requested: false,
            reset_requested: false,
            attention: false,
            rec: None,
            full_rec: true,
            codes: MemCodes::EMPTY,
            chip,
            deferred: None,
            answer: None,
            cut_at_answer: false,
            dram_via_mesh: false,
            remote_insn: None,
            dma: None,
            dma_detached: false,
            direct: false,
            dma_reads: 0,
            lazy_timers: false,
            timer_stall: false,
            timer_touched: false,
            timer_read: 0,
            solo: None,
            solo_on: false,
            solo_loaded: false,
            solo_split: false,
        }
    }

    /// Where a load or store to `addr` goes. An access through the core's
    /// own global address goes out to its mesh node and back, as a remote
    /// one (on hardware it costs what a remote access at no hops costs);
    /// for the core whose id is 0 the two are the same and the access is
    /// local. In timed mode external memory is reached through the mesh
    /// too.
    #[inline(always)]
    pub(super) fn place(&self, addr: u32, len: u32) -> Place {
        let hi = addr >> 20;
        if hi != 0 && hi == self.id_bits {
            return Place::Remote;
        }
        match self.place_local(addr, len) {
            Place::Dram(_) if self.dram_via_mesh => Place::Remote,
            // Off the chip outside the window: the eLink receiver's remap
            // (for data; an instruction fetch there stays a fault).
            Place::Unmapped => {
                let ext =
                    crate::machine::dram_offset(self.chip, self.ext_base, self.dram.size(), addr);
                if !self.dram.contains(ext, len) {
                    Place::Unmapped
                } else if self.dram_via_mesh {
                    Place::Remote
                } else {
                    Place::Dram(ext)
                }
            }
            p => p,
        }
    }

    /// Where `addr` leads with the core's own global address taken as
    /// local: for instruction fetch, and for the system calls' buffers.
    #[inline(always)]
    pub(super) fn place_local(&self, addr: u32, len: u32) -> Place {
        let hi = addr >> 20;
        if hi == 0 || hi == self.id_bits {
            let off = addr & 0xF_FFFF;
            if self.sram.contains(off, len) {
                return Place::Sram(off);
            }
            if is_dma(off) {
                return Place::Remote;
            }
            if (0xF0300..0xF032C).contains(&off) && self.link_reg(off).is_some() {
                // Its own link registers: at the access's cycle in the
                // machine's order, where loopback is looked at.
                return Place::Remote;
            }
            if (MMR_BASE..MMR_END).contains(&off) {
                return Place::Mmr(off);
            }
            return Place::Unmapped;
        }
        if self.chip.contains(hi) {
            return Place::Remote;
        }
        let ext = addr.wrapping_sub(self.ext_base);
        if self.dram.contains(ext, len) {
            return Place::Dram(ext);
        }
        Place::Unmapped
    }

    /// A load from anywhere but local SRAM.
    #[inline(always)]
    fn load_elsewhere(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        if self.solo_on {
            return self.load_solo(s, addr, size);
        }
        self.load_place::<false>(s, addr, size)
    }

    /// [`CoreBus::load_elsewhere`] in a block of a lent run
    /// (`solo_on`): a load from DRAM is answered at once
    /// ([`CoreBus::solo_answer`]), first without classifying its address
    /// (off the chip and through the mesh, `place` finds DRAM,
    /// `Place::Remote`, exactly where `solo_answer` finds its offset in
    /// DRAM; where it does not, nothing changed).
    #[cold]
    #[inline(never)]
    fn load_solo(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        let hi = addr >> 20;
        if self.dram_via_mesh && hi != 0 && !self.chip.contains(hi) {
            if let Some(v) = self.solo_answer(s, addr, size) {
                return Access::Ready(v);
            }
        }
        self.load_solo_place(s, addr, size)
    }

    /// [`CoreBus::load_solo`] for a load it did not answer at once: by the
    /// address's place (out of line, so that the answer's path keeps a
    /// small frame).
    #[cold]
    #[inline(never)]
    fn load_solo_place(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        self.load_place::<true>(s, addr, size)
    }

    /// [`CoreBus::load_elsewhere`] by the address's place; with `SOLO`, a
    /// load through the mesh is answered at once if it can be
    /// ([`CoreBus::solo_answer`]).
    #[inline(always)]
    fn load_place<const SOLO: bool>(
        &mut self,
        s: &mut ArchState,
        addr: u32,
        size: Size,
    ) -> Access<u64> {
        let len = size.bytes();
        let place = self.place(addr, len);
        let access = match place {
            Place::Sram(off) => Access::Ready(self.sram.read_load(off, len)),
            Place::Dram(off) => Access::Ready(self.dram.read(off, len)),
            Place::Mmr(off) if size == Size::Word && self.timer_wait(off, false) => {
                return Access::Busy;
            }
            Place::Mmr(off) if size == Size::Word => match self.mmr_read(s, off) {
                Some(v) => Access::Ready(v as u64),
                None => Access::Fault(MemFault::Unmapped),
            },
            Place::Mmr(_) => Access::Fault(MemFault::Protected),
            Place::Remote => {
                if SOLO {
                    if let Some(v) = self.solo_answer(s, addr, size) {
                        return Access::Ready(v);
                    }
                }
                return self.deferred(addr, size, RemoteKind::Load);
            }
            Place::Unmapped => Access::Fault(MemFault::Unmapped),
        };
        if REC {
            if let Access::Ready(value) = access {
                self.note(place, addr, size, false, value);
            }
        }
        access
    }

    /// Records a load or store that went to `place` (with `REC`): its
    /// replay-key code and, with `full_rec`, the whole access.
    #[inline(always)]
    fn note(&mut self, place: Place, addr: u32, size: Size, store: bool, value: u64) {
        let place = place.timing();
        self.codes.note(place, store, size);
        if self.full_rec {
            self.rec = Some(MemAccess {
                store,
                addr,
                size,
                value,
                place,
            });
        }
    }

    /// A load from DRAM in a memoised block of a run lent the network,
    /// answered at once from DRAM (`solo::InBlock`): its value, the
    /// core's state before it kept; `None` if it goes through the machine.
    #[inline(always)]
    fn solo_answer(&mut self, s: &ArchState, addr: u32, size: Size) -> Option<u64> {
        let solo = self.solo.as_deref_mut()?;
        let len = size.bytes();
        if solo.block.again {
            // (Executing again up to a load taken back, `InBlock::snap`:
            // this one was answered so before.)
            let off = crate::machine::dram_offset(self.chip, self.ext_base, solo.ext_size, addr);
            return Some(self.dram.read(off, len));
        }
        if self.answer.is_some() || solo.block.n == BLOCK_LOADS || solo.posted.is_some() {
            return None;
        }
        // (Whether the network takes `addr` to external memory depends on
        // its 1-MB page only: the last page found so is known.)
        let page = addr >> 20;
        if page != solo.block.ext_page {
            if self.chip.contains(page)
                || !matches!(
                    solo.mesh.geometry().classify(addr),
                    epsim_mesh::Target::External(_)
                )
            {
                return None;
            }
            solo.block.ext_page = page;
        }
        let off = crate::machine::dram_offset(self.chip, self.ext_base, solo.ext_size, addr);
        if off >= solo.ext_size || !self.dram.contains(off, len) {
            return None;
        }
        let b = &mut solo.block;
        if b.n == 0 && !b.nosnap {
            b.snap.clone_from(s);
        }
        b.loads[b.n] = (addr, len as u8);
        b.off[b.n] = off;
        b.n += 1;
        self.solo_loaded = true;
        self.codes
            .note_solo(matches!(size, Size::Byte | Size::Half));
        Some(self.dram.read(off, len))
    }

    /// Ends the block before an access that a load answered in it
    /// (`solo_answer`) could not take back.
    #[cold]
    #[inline(never)]
    fn solo_stop<T>(&mut self) -> Access<T> {
        self.solo_split = true;
        Access::Busy
    }

    /// An access the machine performs, as the semantics see it: `Busy`
    /// (the instruction waits) until the machine has answered.
    fn deferred(&mut self, addr: u32, size: Size, kind: RemoteKind) -> Access<u64> {
        match self.remote(RemoteAccess { addr, size, kind }) {
            Some(a) => match a.value {
                Ok(v) => Access::Ready(v),
                Err(f) => Access::Fault(f),
            },
            None => Access::Busy,
        }
    }

    /// An access to another core: the machine's answer if it has given it
    /// (the instruction is executing again), or `None` after asking for it.
    #[cold]
    #[inline(never)]
    fn remote(&mut self, mut access: RemoteAccess) -> Option<Answer> {
        if access.addr >> 20 == 0 {
            // This core's own DMA registers, by their local address.
            access.addr |= self.id_bits << 20;
        }
        if self.answer.is_none() {
            self.answer = self.direct_dma(access);
        }
        match self.answer.take() {
            Some(a) if a.addr == access.addr => {
                if std::mem::take(&mut self.cut_at_answer) {
                    self.attention = true;
                }
                if REC && a.value.is_ok() {
                    let (store, value) = match access.kind {
                        RemoteKind::Load => (false, a.value.unwrap_or(0)),
                        RemoteKind::Store(v) | RemoteKind::Multicast(v) => (true, v),
                        RemoteKind::TestSet(v) => match a.value {
                            Ok(0) => (true, u64::from(v)),
                            old => (false, old.unwrap_or(0)),
                        },
                        RemoteKind::Fetch => return Some(a),
                    };
                    let place = TPlace::Remote {
                        latency: a.latency,
                        external: !matches!(access.kind, RemoteKind::Multicast(_))
                            && !self.chip.contains(access.addr >> 20),
                    };
                    self.codes.note(place, store, access.size);
                    self.rec = Some(MemAccess {
                        store,
                        addr: access.addr,
                        size: access.size,
                        value,
                        place,
                    });
                }
                Some(a)
            }
            other => {
                self.answer = other;
                self.deferred = Some(access);
                None
            }
        }
    }

    /// A load of one of the core's own DMA registers, answered from the
    /// engine at once when the run allows it (`dma`): what the machine
    /// would answer at the access's cycle, with no latency (sched.rs).
    /// Not when the block already holds an answered access with a latency
    /// (the replay key keeps one latency per block).
    #[inline]
    fn direct_dma(&mut self, access: RemoteAccess) -> Option<Answer> {
        let dma = self.dma?;
        let off = access.addr & 0xF_FFFF;
        if access.kind != RemoteKind::Load
            || access.addr >> 20 != self.id_bits
            || !is_dma(off)
            || (self.codes.external && self.codes.remote != (0, false))
        {
            return None;
        }
        self.direct = true;
        self.dma_reads |= dma_word(off);
        Some(Answer {
            addr: access.addr,
            value: dma_load(dma, access.addr, access.size),
            latency: 0,
        })
    }

    /// A store the memory-protection register forbids: it is dropped,
    /// MEMSTATUS records it, and the memory-fault interrupt is latched
    /// (isa.md §3.6): always for a write to a read-only page (the E16's
    /// page bits raise it by themselves: Adapteva's `labs/mem_protect`
    /// sets only bits 6:0 and expects the interrupt on the board), with
    /// EXC_EN (bit 15) for a forbidden write off-chip. Not a guest fault:
    /// the program asked for it.
    #[cold]
    #[inline(never)]
    fn breach(&mut self, s: &mut ArchState, what: u32) {
        self.regs.mem[MEMSTATUS] |= MEMSTATUS_FAULT | what;
        if what == MEMSTATUS_WRITE_BREACH || self.regs.mem[MEMPROTECT] & PROTECT_EXC_EN != 0 {
            s.ilat |= 1 << irq::MEMFAULT;
        }
        self.attention = true;
    }

    /// The index in `OtherRegs::link` of the chip's eLink register at
    /// `off`, if this node holds an eLink's registers
    /// (`epsim_mesh::Geometry::elink_node`): LINKCFG, LINKTXCFG, LINKRXCFG,
    /// GPIOCFG, FLAGCFG, LINKDEBUG. SYNC, HALT and RESET (chip-wide
    /// actions) are not modelled: `None`, as everywhere else.
    fn link_reg(&self, off: u32) -> Option<usize> {
        let i = match off {
            0xF0300 => 0,
            0xF0304 => 1,
            0xF0308 => 2,
            0xF030C => 3,
            0xF0318 => 4,
            0xF0328 => 5,
            _ => return None,
        };
        let c = self.chip;
        let g = epsim_mesh::Geometry::new(c.first_row, c.first_col, c.rows, c.cols, None);
        let me = epsim_mesh::NodeId::from_bits(self.id_bits);
        let sides = [
            epsim_mesh::Side::North,
            epsim_mesh::Side::East,
            epsim_mesh::Side::South,
            epsim_mesh::Side::West,
        ];
        sides
            .iter()
            .any(|&s| g.elink_node(s) == Some(me))
            .then_some(i)
    }

    /// Whether an access to the register at `off` (a write if `write`)
    /// must wait for the detailed model (`lazy_timers`); an access of the
    /// timers is noted (`timer_touched`).
    #[inline(always)]
    fn timer_wait(&mut self, off: u32, write: bool) -> bool {
        let timer = off == sreg_offset(sreg::CTIMER0)
            || off == sreg_offset(sreg::CTIMER1)
            || (write && off == sreg_offset(sreg::CONFIG));
        self.timer_touched |= timer;
        if !self.lazy_timers {
            return false;
        }
        self.timer_stall |= timer;
        timer
    }

    pub(super) fn mmr_read(&mut self, s: &mut ArchState, off: u32) -> Option<u32> {
        let w = (off - MMR_BASE) / 4;
        match off - MMR_BASE {
            0x000..=0x0FF => Some(s.r[w as usize]),
            0x400..=0x4FF => {
                let i = w - 0x100;
                s.read_core_sreg(i).or(match i {
                    // write-only registers read as zero
                    sreg::ILATST | sreg::ILATCL | sreg::FSTATUS | sreg::DEBUGCMD => Some(0),
                    _ => None,
                })
            }
            0x600..=0x60B => Some(self.regs.mem[(w - 0x180) as usize]),
            0x300..=0x32B => self.link_reg(off).map(|i| self.regs.link[i]),
            0x700 => Some(self.regs.meshconfig),
            0x704 => Some(self.id_bits),
            0x708 => Some(self.regs.multicast),
            0x70C => Some(0),
            _ => None,
        }
    }

    pub(super) fn mmr_write(&mut self, s: &mut ArchState, off: u32, v: u32) -> bool {
        // A register write can halt the core or make an interrupt pending:
        // the running block ends after this instruction.
        self.attention = true;
        let w = (off - MMR_BASE) / 4;
        match off - MMR_BASE {
            0x000..=0x0FF => s.r[w as usize] = v,
            0x400..=0x4FF => {
                let i = w - 0x100;
                if !s.write_core_sreg(i, v) {
                    match i {
                        sreg::PC => s.pc = v,
                        sreg::DEBUGCMD => {
                            if v & 3 == 1 {
                                s.debugstatus |= DEBUG_HALT;
                                self.halt_requested = true;
                            } else if v & 3 == 0 {
                                s.debugstatus &= !DEBUG_HALT;
                            }
                        }
                        _ => return false,
                    }
                }
            }
            0x600..=0x60B => {
                self.regs.mem[(w - 0x180) as usize] = v;
                self.protected = self.regs.protects();
            }
            0x300..=0x32B => match self.link_reg(off) {
                Some(i) => self.regs.link[i] = v,
                None => return false,
            },
            0x700 => {
                self.regs.meshconfig = v;
                // (Its timers may count its mesh traffic from here.)
                if let Some(solo) = self.solo.as_deref_mut() {
                    solo.counted = true;
                }
            }
            0x708 => self.regs.multicast = v & 0xfff,
            0x70C => {
                // Writing 1 then 0 resets the core (isa.md §3.2).
                let was = self.regs.resetcore;
                self.regs.resetcore = v & 1;
                if was == 1 && v & 1 == 0 {
                    self.reset_requested = true;
                }
            }
            _ => return false,
        }
        true
    }
}

impl<const REC: bool> Bus for CoreBus<'_, REC> {
    #[inline(always)]
    fn load(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        // Local SRAM first, in one bounds check (an address inside it has
        // its top 12 bits zero).
        let Some(value) = self.sram.load(addr, size.bytes()) else {
            std::hint::cold_path();
            return self.load_elsewhere(s, addr, size);
        };
        if REC {
            self.note(Place::Sram(addr), addr, size, false, value);
        }
        Access::Ready(value)
    }

    #[inline(always)]
    fn store(&mut self, s: &mut ArchState, addr: u32, size: Size, value: u64) -> Access<()> {
        if self.solo_loaded {
            return self.solo_stop();
        }
        let len = size.bytes();
        // Local SRAM first: one bounds check and one test for decoded code
        // nearby (an address inside it has its top 12 bits zero, so
        // multicast does not apply).
        if !self.protected && self.sram.store_plain(addr, len, value) {
            if REC {
                self.note(Place::Sram(addr), addr, size, true, value);
            }
            return Access::Ready(());
        }
        std::hint::cold_path();
        if addr >> 20 != 0 && (s.config >> 12) & 0xF == CTRLMODE_MULTICAST {
            return match self.deferred(addr, size, RemoteKind::Multicast(value)) {
                Access::Ready(_) => Access::Ready(()),
                Access::Fault(f) => Access::Fault(f),
                _ => Access::Busy,
            };
        }
        let place = self.place(addr, len);
        match place {
            Place::Sram(off) => {
                if off < 0x8000 && self.regs.mem[MEMPROTECT] & 1 << (off >> 12) != 0 {
                    // Dropped: no memory effect to record.
                    self.breach(s, MEMSTATUS_WRITE_BREACH);
                    return Access::Ready(());
                } else {
                    self.attention |= self.sram.write(off, len, value);
                }
            }
            Place::Dram(off) => {
                if self.regs.mem[MEMPROTECT] & PROTECT_CORE_XWR != 0 {
                    self.breach(s, MEMSTATUS_XWRITE_BREACH);
                    return Access::Ready(());
                } else {
                    self.attention |= self.dram.write(off, len, value);
                }
            }
            Place::Mmr(off) if size == Size::Word && self.timer_wait(off, true) => {
                return Access::Busy;
            }
            Place::Mmr(off) if size == Size::Word && self.dma_detached && held_by_dma(off) => {
                let addr = self.id_bits << 20 | off;
                return match self.deferred(addr, size, RemoteKind::Store(value)) {
                    Access::Ready(_) => Access::Ready(()),
                    Access::Fault(f) => Access::Fault(f),
                    _ => Access::Busy,
                };
            }
            Place::Mmr(off) if size == Size::Word => {
                if !self.mmr_write(s, off, value as u32) {
                    return Access::Fault(MemFault::Unmapped);
                }
            }
            Place::Mmr(_) => return Access::Fault(MemFault::Protected),
            Place::Remote => {
                return match self.deferred(addr, size, RemoteKind::Store(value)) {
                    Access::Ready(_) => Access::Ready(()),
                    Access::Fault(f) => Access::Fault(f),
                    _ => Access::Busy,
                };
            }
            Place::Unmapped if addr >> 20 != 0 && self.chip.may_loop(addr) => {
                // Off the chip through an edge whose link may loop it back.
                return match self.deferred(addr, size, RemoteKind::Store(value)) {
                    Access::Ready(_) => Access::Ready(()),
                    Access::Fault(f) => Access::Fault(f),
                    _ => Access::Busy,
                };
            }
            Place::Unmapped => return Access::Fault(MemFault::Unmapped),
        }
        if REC {
            self.note(place, addr, size, true, value);
        }
        Access::Ready(())
    }

    fn testset(&mut self, _s: &mut ArchState, addr: u32, value: u32) -> Access<u32> {
        if self.solo_loaded {
            return self.solo_stop();
        }
        // TESTSET needs a global address (isa.md §2.6).
        if addr >> 20 == 0 {
            return Access::Fault(MemFault::Protected);
        }
        let place = self.place(addr, 4);
        let (mem, off) = match place {
            Place::Sram(off) => (&mut *self.sram, off),
            Place::Dram(off) => (&mut *self.dram, off),
            Place::Mmr(_) => return Access::Fault(MemFault::Protected),
            Place::Remote => {
                return match self.deferred(addr, Size::Word, RemoteKind::TestSet(value)) {
                    Access::Ready(old) => Access::Ready(old as u32),
                    Access::Fault(f) => Access::Fault(f),
                    _ => Access::Busy,
                };
            }
            Place::Unmapped => return Access::Fault(MemFault::Unmapped),
        };
        let old = mem.read(off, 4) as u32;
        if old == 0 {
            self.attention |= mem.write(off, 4, value as u64);
        }
        // (TESTSET needs a global address; only another core's SRAM or
        // DRAM would be protected from this core, which is not modelled
        // for TESTSET yet.)
        if REC {
            // TESTSET reads the old word and writes only if it was zero:
            // the record shows the write when there was one.
            let shown = if old == 0 { value } else { old };
            self.note(place, addr, Size::Word, old == 0, u64::from(shown));
        }
        Access::Ready(old)
    }

    fn read_sreg(&mut self, s: &mut ArchState, sreg: Sreg) -> Access<u32> {
        let off = sreg.mmr_addr();
        if is_dma(off) {
            let addr = self.id_bits << 20 | off;
            if let (Some(dma), None) = (self.dma, self.answer) {
                // (Not noted as a memory access: a MOVFS is no load.)
                self.direct = true;
                self.dma_reads |= dma_word(off);
                return Access::Ready(dma_load(dma, off, Size::Word).map_or(0, |v| v as u32));
            }
            return match self.deferred(addr, Size::Word, RemoteKind::Load) {
                Access::Ready(v) => Access::Ready(v as u32),
                Access::Busy => Access::Busy,
                // (a word read of a DMA register does not fault)
                _ => Access::Ready(0),
            };
        }
        if self.timer_wait(off, false) {
            return Access::Busy;
        }
        // Reserved special registers read as zero.
        let v = self.mmr_read(s, off).unwrap_or(0);
        self.timer_read = v;
        Access::Ready(v)
    }

    fn write_sreg(&mut self, s: &mut ArchState, sreg: Sreg, value: u32) -> Access<()> {
        if self.solo_loaded {
            return self.solo_stop();
        }
        let off = sreg.mmr_addr();
        if is_dma(off) || (self.dma_detached && held_by_dma(off)) {
            let addr = self.id_bits << 20 | off;
            return match self.deferred(addr, Size::Word, RemoteKind::Store(u64::from(value))) {
                Access::Busy => Access::Busy,
                _ => Access::Ready(()),
            };
        }
        if self.timer_wait(off, true) {
            return Access::Busy;
        }
        // Writes to reserved or read-only special registers are ignored.
        let _ = self.mmr_write(s, off, value);
        Access::Ready(())
    }
}

impl<const REC: bool> GuestMemory for CoreBus<'_, REC> {
    fn read_guest(&mut self, addr: u32, len: u32) -> Option<Vec<u8>> {
        match self.place_local(addr, len.max(1)) {
            Place::Sram(off) => Some(self.sram.read_bytes(off, len).to_vec()),
            Place::Dram(off) => Some(self.dram.read_bytes(off, len).to_vec()),
            _ => None,
        }
    }

    fn write_guest(&mut self, addr: u32, data: &[u8]) -> bool {
        match self.place_local(addr, (data.len() as u32).max(1)) {
            Place::Sram(off) => self.attention |= self.sram.write_bytes(off, data),
            Place::Dram(off) => self.attention |= self.dram.write_bytes(off, data),
            _ => return false,
        }
        true
    }
}
