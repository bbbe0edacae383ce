//! The host interface of epsim: a Rust [`Host`] API over the simulated
//! chip, and a C ABI that is a drop-in `libe-hal` (every e-hal / e-loader
//! function of ESDK 2016.11, the `e_platform` global, and `epsim_*`
//! controls; headers in `host/include/`). See README "The e-hal drop-in".

pub mod dramwatch;
pub mod ffi;
pub mod host;
pub mod hosttime;
pub mod lifetime;
pub mod log;
pub mod platform;
pub mod progress;
pub mod shm;
pub mod view_server;
pub(crate) mod x86move;

pub use host::{Host, HostError, HostStats, RunMode, Workgroup};
pub use platform::{ChipKind, Emem, Platform};
