//! Register and descriptor layout (isa.md §3.2, §8.2, §8.3; e-lib `e_dma.h`).
//!
//! Owns: the offsets of the sixteen DMA registers inside the window at
//! [`BASE`], the CONFIG bit names, the STATUS state codes, the interrupt
//! numbers the engine raises, and the six-word descriptor. Nothing here
//! has behaviour beyond bit arithmetic.

/// Local address of DMA0CONFIG, the first register of the DMA window.
pub const BASE: u32 = 0xF0500;
/// Size of the window: two channels of eight 32-bit registers.
pub const WINDOW_BYTES: u32 = 0x40;
/// Distance between the register sets of channel 0 and channel 1.
pub const CHANNEL_STRIDE: u32 = 0x20;

/// Register offsets within one channel's set (add [`CHANNEL_STRIDE`] for DMA1).
pub const CONFIG: u32 = 0x00;
/// `[15:0]` source, `[31:16]` destination inner stride (signed bytes).
pub const STRIDE: u32 = 0x04;
/// `[15:0]` inner count, `[31:16]` outer count (live, counts down).
pub const COUNT: u32 = 0x08;
/// Current source address.
pub const SRCADDR: u32 = 0x0C;
/// Current destination address.
pub const DSTADDR: u32 = 0x10;
/// Slave-mode data, low word (e-hal name `AUTODMA0`).
pub const AUTO0: u32 = 0x14;
/// Slave-mode data, high word (e-hal name `AUTODMA1`).
pub const AUTO1: u32 = 0x18;
/// `[3:0]` state ([`DmaState`]), `[31:16]` current descriptor pointer.
pub const STATUS: u32 = 0x1C;

/// CONFIG\[0\] DMAEN: start with the values already in the registers.
pub const DMAEN: u32 = 1 << 0;
/// CONFIG\[1\] MASTER: 1 master (the engine reads the source), 0 slave.
pub const MASTER: u32 = 1 << 1;
/// CONFIG\[2\] CHAINMODE: at completion, load the descriptor at NEXT_PTR.
pub const CHAINMODE: u32 = 1 << 2;
/// CONFIG\[3\] STARTUP: load the descriptor at NEXT_PTR now (e-lib `e_dma_start`).
pub const STARTUP: u32 = 1 << 3;
/// CONFIG\[4\] IRQEN: raise ILAT\[6 + channel\] at the end of the transfer.
pub const IRQEN: u32 = 1 << 4;
/// CONFIG\[6:5\] DATASIZE: 0 byte, 1 half, 2 word, 3 double.
pub const DATASIZE_SHIFT: u32 = 5;
/// Mask of the DATASIZE field (in place).
pub const DATASIZE_MASK: u32 = 3 << DATASIZE_SHIFT;
/// CONFIG\[10\] MSGMODE: message interrupt with the last write; wait for reads.
pub const MSGMODE: u32 = 1 << 10;
/// CONFIG\[12\]: inner source stride is shifted left by 16.
pub const SHIFT_SRC_IN: u32 = 1 << 12;
/// CONFIG\[13\]: inner destination stride is shifted left by 16.
pub const SHIFT_DST_IN: u32 = 1 << 13;
/// CONFIG\[14\]: outer source stride is shifted left by 16.
pub const SHIFT_SRC_OUT: u32 = 1 << 14;
/// CONFIG\[15\]: outer destination stride is shifted left by 16.
pub const SHIFT_DST_OUT: u32 = 1 << 15;
/// CONFIG\[31:16\] NEXT_PTR: local address of the next descriptor.
pub const NEXT_PTR_SHIFT: u32 = 16;

/// ILAT bit of the message interrupt (raised at the *receiving* core).
pub const IRQ_MESSAGE: u8 = 5;
/// ILAT bit of the DMA0 completion interrupt; DMA1 is the next one.
pub const IRQ_DMA0: u8 = 6;
/// ILAT bit of the DMA1 completion interrupt.
pub const IRQ_DMA1: u8 = 7;

/// Bytes per descriptor (six words).
pub const DESCRIPTOR_BYTES: u32 = 24;
/// Required alignment of a descriptor in local memory.
pub const DESCRIPTOR_ALIGN: u32 = 8;

/// Element size in bytes (1, 2, 4 or 8) selected by CONFIG's DATASIZE.
#[inline]
pub const fn datasize_bytes(config: u32) -> u8 {
    1 << ((config & DATASIZE_MASK) >> DATASIZE_SHIFT)
}

/// The NEXT_PTR field of a CONFIG value, as a local address.
#[inline]
pub const fn next_ptr(config: u32) -> u32 {
    config >> NEXT_PTR_SHIFT
}

/// The signed byte step encoded in one half of a stride word
/// (`dst` selects `[31:16]`, otherwise `[15:0]`), shifted left by 16 when
/// the matching SHIFT_* bit is set. Two's-complement wrap-around is the
/// address arithmetic of a 32-bit adder.
#[inline]
pub const fn stride_step(stride: u32, dst: bool, shifted: bool) -> u32 {
    let half = if dst { stride >> 16 } else { stride & 0xFFFF };
    let step = half as u16 as i16 as i32 as u32;
    if shifted {
        step << 16
    } else {
        step
    }
}

/// DMAxSTATUS\[3:0\] (isa.md §8.2; SIM `dv-epiphany_dma.c` state names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DmaState {
    /// Nothing to do.
    Idle = 0x0,
    /// Master transfer in progress (including start-up and descriptor fetch).
    Active = 0x5,
    /// Slave mode, waiting for data written into AUTO0/AUTO1.
    Slave = 0x6,
    /// Every element issued; waiting for the last remote read to return (MSGMODE).
    Wait = 0xA,
    /// Held by the core's DMA pause bit (CONFIG\[24\]).
    Paused = 0xB,
    /// Configuration error; the channel does nothing until STATUS is written with 0.
    Error = 0xD,
}

impl DmaState {
    /// The 4-bit code software reads in STATUS\[3:0\].
    #[inline]
    pub const fn code(self) -> u32 {
        self as u32
    }
}

/// One descriptor as it sits in local memory (e-lib `e_dma_desc_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Descriptor {
    /// Loaded into CONFIG (NEXT_PTR included).
    pub config: u32,
    /// Loaded into STRIDE: `[15:0]` src, `[31:16]` dst.
    pub inner_stride: u32,
    /// Loaded into COUNT: `[15:0]` inner, `[31:16]` outer.
    pub count: u32,
    /// Kept inside the engine: replaces the inner stride at the end of a row.
    pub outer_stride: u32,
    /// Loaded into SRCADDR.
    pub src: u32,
    /// Loaded into DSTADDR.
    pub dst: u32,
}

impl Descriptor {
    /// The descriptor from its six words in memory order.
    pub const fn from_words(w: [u32; 6]) -> Self {
        Descriptor {
            config: w[0],
            inner_stride: w[1],
            count: w[2],
            outer_stride: w[3],
            src: w[4],
            dst: w[5],
        }
    }

    /// The six words in memory order (for building test memories and guests).
    pub const fn to_words(&self) -> [u32; 6] {
        [
            self.config,
            self.inner_stride,
            self.count,
            self.outer_stride,
            self.src,
            self.dst,
        ]
    }
}
