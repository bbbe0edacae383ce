//! No guest program can make the simulator panic: random instruction
//! streams (including every kind of fault, TRAP with garbage arguments,
//! writes to special registers, interrupts) run under both fault policies
//! and must end in a `StopReason`.

mod common;

use epsim_sim::{FaultPolicy, Mode, StopReason};

/// xorshift64*: deterministic, seeded, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn run_random(seed: u64, policy: FaultPolicy, mode: Mode, memoise: bool) -> StopReason {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    // 2 KB of random code at 0; captured streams, no host files.
    let code: Vec<u8> = (0..2048).map(|_| rng.next() as u8).collect();
    let mut m = common::machine_with_code(code, policy);
    m.config.mode = mode;
    m.config.memoise = memoise;
    m.run(Some(20_000))
}

#[test]
fn random_programs_never_panic_under_either_fault_policy() {
    let mut kinds = std::collections::BTreeSet::new();
    let kind = |s: &StopReason| -> &'static str {
        match s {
            StopReason::Exit { .. } => "exit",
            StopReason::Signalled { .. } => "signalled",
            StopReason::CycleLimit { .. } => "cycle limit",
            StopReason::AllIdle => "idle",
            StopReason::Breakpoint { .. } => "breakpoint",
            StopReason::AllHalted => "halted",
            StopReason::Fault(_) => "fault",
            StopReason::Dma { .. } => "dma error",
        }
    };
    for seed in 0..300 {
        for policy in [FaultPolicy::Stop, FaultPolicy::Raise] {
            // Timed mode with and without replayed schedules must agree
            // exactly; functional mode must not panic either.
            let timed = run_random(seed, policy, Mode::Timed, true);
            let detailed = run_random(seed, policy, Mode::Timed, false);
            assert_eq!(timed, detailed, "seed {seed} {policy:?}");
            run_random(seed, policy, Mode::Functional, false);
            kinds.insert(kind(&timed));
        }
    }
    // The sample must actually exercise several ways of stopping.
    assert!(kinds.len() >= 3, "only {kinds:?}");
}

/// Issue 14, item 1: a PC at the very top of the address space (an ELF
/// entry of 0xffffffff, or a host writing it) is a fetch fault naming the
/// core and the PC in both modes; it once matched an empty slot of the
/// block map (functional: an index out of bounds) or spun (timed).
#[test]
fn a_pc_of_all_ones_is_a_fetch_fault_in_both_modes() {
    for mode in [Mode::Functional, Mode::Timed] {
        for pc in [0xffff_ffffu32, 0xffff_fffe, 0xffff_fff0] {
            let mut m = common::machine_with_code(vec![0xa2, 0x01], FaultPolicy::Stop);
            m.config.mode = mode;
            m.cores[0].state.pc = pc;
            let stop = m.run(Some(10_000));
            let StopReason::Fault(f) = &stop else {
                panic!("{mode:?} pc {pc:#x}: {stop:?}");
            };
            let text = f.to_string();
            assert!(text.contains(&format!("{pc:#010x}")), "{text}");
            assert!(text.contains("instruction fetch"), "{text}");
        }
    }
}
