//! The libe-hal shared object once more, as an example target, for the
//! tests: `cargo test` builds a package's examples but not its library's
//! `cdylib` (cargo builds only the rlib that tests link). The exported
//! symbols are the library's `#[no_mangle]` functions and `e_platform`;
//! the tests link `target/<profile>/examples/libehal_so.so` as
//! `libe-hal.so`. Installing uses the library's own `libe_hal.so`
//! (`make -C host install`).

pub use e_hal::ffi::*;
