//! The Epiphany machine: cores with their SRAM and decode caches, external
//! DRAM, the libgloss system calls, and the loop that runs them. The `epsim`
//! command-line tool lives in `src/bin/epsim.rs`.

pub mod block;
pub mod cli;
pub mod config;
pub mod core;
pub mod disasm;
pub(crate) mod evq;
pub mod machine;
pub mod memo;
pub mod memory;
pub mod sched;
pub mod setup;
pub mod syscall;
pub mod timing;
pub mod trace;
pub mod view;

pub use config::{Config, CoreId, FaultPolicy, Mode};
pub use machine::{IdleWatch, Machine, SimError, StopReason};
pub use syscall::Syscalls;
