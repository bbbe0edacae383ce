//! Configuration errors: what put a channel into state 0xD.
//!
//! Owns: the guest-visible reasons a channel stops with an error and the
//! text the simulator prints for them. These are guest faults (README.md,
//! "Design rules": guest faults are data): data, never panics.

use std::fmt;

/// Why a channel entered the configuration-error state (STATUS = 0xD).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// NEXT_PTR is not a multiple of 8.
    DescriptorMisaligned {
        /// The pointer taken from CONFIG\[31:16\].
        ptr: u32,
    },
    /// Some word of the 24-byte descriptor is not in local memory.
    DescriptorOutOfRange {
        /// The descriptor pointer.
        ptr: u32,
        /// The first word address the local memory could not supply.
        word: u32,
    },
    /// The loaded descriptor's config word has DMAEN clear.
    DescriptorNotEnabled {
        /// The config word that was loaded.
        config: u32,
    },
    /// The inner or the outer count is zero at the start of a transfer or
    /// was written as zero during one.
    ZeroCount {
        /// The COUNT value.
        count: u32,
    },
    /// The source address of the next element is not a multiple of the
    /// element size.
    MisalignedSource {
        /// The offending source address.
        addr: u32,
        /// Element size in bytes.
        size: u8,
    },
    /// The destination address of the next element is not a multiple of the
    /// element size.
    MisalignedDestination {
        /// The offending destination address.
        addr: u32,
        /// Element size in bytes.
        size: u8,
    },
    /// CONFIG was written while the channel was not idle.
    ConfigWhileBusy {
        /// The value the program tried to write (it was not stored).
        value: u32,
        /// STATUS\[3:0\] at the time of the write.
        state: u8,
    },
    /// The simulator could not perform a move (no memory at the address);
    /// reported through [`crate::Dma::fault`].
    AccessFault {
        /// The address that could not be accessed.
        addr: u32,
    },
}

/// A channel's configuration error, with everything needed for a clear
/// diagnostic: the channel, the descriptor it was working from (if any),
/// and the reason including the bad address or value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DmaError {
    /// 0 or 1.
    pub channel: u8,
    /// Local address of the descriptor the channel was loading or running,
    /// `None` for a transfer started by DMAEN from the registers.
    pub descriptor: Option<u32>,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl DmaError {
    /// The bad address the error is about, where there is one: the
    /// descriptor pointer, the misaligned element address, or the address
    /// the simulator could not access.
    pub fn addr(&self) -> Option<u32> {
        match self.kind {
            ErrorKind::DescriptorMisaligned { ptr } => Some(ptr),
            ErrorKind::DescriptorOutOfRange { word, .. } => Some(word),
            ErrorKind::MisalignedSource { addr, .. }
            | ErrorKind::MisalignedDestination { addr, .. }
            | ErrorKind::AccessFault { addr } => Some(addr),
            ErrorKind::DescriptorNotEnabled { .. }
            | ErrorKind::ZeroCount { .. }
            | ErrorKind::ConfigWhileBusy { .. } => None,
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::DescriptorMisaligned { ptr } => {
                write!(f, "descriptor pointer {ptr:#06x} is not 8-byte aligned")
            }
            ErrorKind::DescriptorOutOfRange { ptr, word } => write!(
                f,
                "descriptor at {ptr:#06x} is outside local memory (no word at {word:#07x})"
            ),
            ErrorKind::DescriptorNotEnabled { config } => {
                write!(f, "descriptor config {config:#010x} has DMAEN clear")
            }
            ErrorKind::ZeroCount { count } => {
                write!(f, "count {count:#010x} has a zero inner or outer count")
            }
            ErrorKind::MisalignedSource { addr, size } => write!(
                f,
                "source address {addr:#010x} is not aligned to the {size}-byte element size"
            ),
            ErrorKind::MisalignedDestination { addr, size } => write!(
                f,
                "destination address {addr:#010x} is not aligned to the {size}-byte element size"
            ),
            ErrorKind::ConfigWhileBusy { value, state } => write!(
                f,
                "CONFIG written with {value:#010x} while the channel was busy (state {state:#x})"
            ),
            ErrorKind::AccessFault { addr } => {
                write!(f, "no memory at address {addr:#010x}")
            }
        }
    }
}

impl fmt::Display for DmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DMA{}", self.channel)?;
        if let Some(d) = self.descriptor {
            write!(f, " (descriptor at {d:#06x})")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for DmaError {}
