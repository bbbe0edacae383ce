//! Debugging aid: runs a program one instruction at a time and prints each
//! instruction with the registers it changed.
//!
//! `cargo run --release -p epsim-sim --example steptrace -- PROG.elf [FROM_PC [COUNT]]`
//! prints COUNT (default 200) instructions starting at the first time the PC
//! equals FROM_PC (hex; default: from the start).

use epsim_sim::{Config, Machine, StopReason, Syscalls};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]);
    let from = args
        .get(2)
        .map(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex pc"));
    let count: usize = args
        .get(3)
        .map(|s| s.parse().expect("count"))
        .unwrap_or(200);
    let config = Config::parallella16();
    let plan = epsim_loader::load_file(&path, &config.load_target()).expect("loads");
    let mut m = Machine::new(config, Syscalls::inherit(vec!["prog".into()]))
        .expect("a valid configuration");
    m.load(&plan, &path).expect("fits");
    let mut printing = from.is_none();
    let mut printed = 0;
    let ext_base = m.config.ext_base;
    loop {
        let pc = m.cores[0].state.pc;
        if Some(pc) == from {
            printing = true;
        }
        let before = m.cores[0].state.clone();
        let stop = m.run(Some(m.now + 1));
        let core = &m.cores[0];
        if printing {
            let word = if pc < core.sram.size() {
                core.sram.word_for_decode(pc)
            } else {
                m.dram.word_for_decode(pc.wrapping_sub(ext_base))
            };
            let d = epsim_isa::decode(word);
            let mut line = format!("{pc:08x}  {:<28}", d.disasm(pc, word));
            for r in 0..64 {
                if before.r[r] != core.state.r[r] {
                    line += &format!(" r{r}={:#x}", core.state.r[r]);
                }
            }
            if before.status() != core.state.status() {
                line += &format!(" status={:#x}", core.state.status());
            }
            if before.config != core.state.config {
                line += &format!(" config={:#x}", core.state.config);
            }
            println!("{line}");
            printed += 1;
            if printed >= count {
                break;
            }
        }
        if !matches!(stop, StopReason::CycleLimit { .. }) {
            println!("stop: {stop:?}");
            break;
        }
    }
}
