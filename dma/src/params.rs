//! Timing parameters that belong to the DMA engine itself.
//!
//! Owns: how long the engine takes to react to a trigger, to fetch a
//! descriptor, and how often it may issue an element move. Memory, bank and
//! mesh timing (how long a move takes to land) belong to the simulator.
//! Values and their sources are tabulated in `dma/DMA.md`.

/// Simulated time in core clock cycles.
pub type Cycle = u64;

/// The engine's timing table. `Params::DEFAULT` is the calibrated default;
/// see `dma/DMA.md` for where each number comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// Cycles from a trigger (a CONFIG write with DMAEN or STARTUP, or the
    /// completion of a descriptor in CHAINMODE) until the channel acts on it:
    /// its first move, or the start of a descriptor fetch. SIM: 1.
    pub start_cycles: Cycle,
    /// Cycles a descriptor fetch occupies the channel before the first move
    /// it describes. SIM: `1 + 24/8 = 4` (one cycle plus one per doubleword).
    pub desc_fetch_cycles: Cycle,
    /// Minimum cycles between two moves of the same channel. ARCH-MD: "a
    /// transaction every cycle", so 1.
    pub move_interval_cycles: Cycle,
    /// Moves the whole engine (both channels) may issue in one cycle. The
    /// node has one 8-byte DMA path from local memory to the eMesh
    /// (ARCH-MD ch. 4), so 1: the channels share it, DMA0 first.
    pub moves_per_cycle: u32,
}

impl Params {
    /// The defaults documented in `dma/DMA.md`.
    pub const DEFAULT: Params = Params {
        start_cycles: 1,
        desc_fetch_cycles: 4,
        move_interval_cycles: 1,
        moves_per_cycle: 1,
    };
}

impl Default for Params {
    fn default() -> Self {
        Params::DEFAULT
    }
}
