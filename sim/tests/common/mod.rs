//! Shared by the machine-level tests: a machine running raw bytes.

use epsim_loader::{Flags, LoadPlan, Region, Segment};
use epsim_sim::{Config, FaultPolicy, Machine, Syscalls};

/// A single-core machine with `code` loaded at local address 0 (the entry
/// point), captured standard streams and no access to host files.
pub fn machine_with_code(code: Vec<u8>, policy: FaultPolicy) -> Machine {
    let seg = Segment {
        index: 0,
        vaddr: 0,
        region: Region::Local { offset: 0 },
        flags: Flags {
            read: true,
            write: true,
            exec: true,
        },
        data: code,
        zero_fill: 0,
    };
    let plan = LoadPlan::new(0, vec![seg], Vec::new());
    let mut config = Config::parallella16();
    config.fault_policy = policy;
    let mut m = Machine::single_core(config, Syscalls::captured(vec!["test".into()], Vec::new()));
    m.load(&plan, std::path::Path::new("test.elf"))
        .expect("loads");
    m
}
