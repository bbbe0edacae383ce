//! `exec_next` is `exec_ref` in the execution loop's convention: for random
//! instructions on random states, it returns true exactly when `exec_ref`
//! returns `Step::Next`, leaves the same step in its slot otherwise, and
//! changes the state and memory in the same way.

mod semantics_util;

use epsim_isa::decode::decode;
use epsim_isa::exec::{exec_next, exec_ref};
use epsim_isa::Step;
use semantics_util::{Machine, Rng, MEM, MEM_SIZE, PC};

#[test]
fn exec_next_agrees_with_exec_ref_on_random_instructions() {
    let mut rng = Rng(0x5eed_e9e1);
    let mut stops = 0;
    for _ in 0..50_000 {
        let d = decode(rng.next() as u32);
        let mut a = Machine::new();
        // Registers point into the test memory half of the time, so that
        // loads and stores complete as often as they fault.
        for n in 0..64u8 {
            let v = rng.next() as u32;
            let v = if v & 1 == 0 {
                MEM + (v >> 1) % MEM_SIZE
            } else {
                v
            };
            a.s.set_reg(n, v);
        }
        a.s.flags.az = rng.next() & 1 != 0;
        a.s.flags.ac = rng.next() & 1 != 0;
        let mut b = Machine {
            s: a.s.clone(),
            bus: a.bus.clone(),
        };
        let step = exec_ref(&mut a.s, &mut a.bus, &d.op, PC, d.len as u32);
        let mut slot = Step::Sync;
        let fell = exec_next(&mut b.s, &mut b.bus, &d.op, PC, d.len as u32, &mut slot);
        assert_eq!(fell, step == Step::Next, "{:?}", d.op);
        if !fell {
            stops += 1;
            assert_eq!(slot, step, "{:?}", d.op);
        } else {
            assert_eq!(slot, Step::Sync, "{:?}: the slot is left alone", d.op);
        }
        assert_eq!(a.s, b.s, "{:?}", d.op);
        assert_eq!(a.bus, b.bus, "{:?}", d.op);
    }
    // Both outcomes were seen many times.
    assert!(stops > 5_000 && stops < 45_000, "{stops}");
}
