//! The bodies of the fuzz targets (`fuzz/`, run with `cargo +nightly fuzz
//! run TARGET`): each takes any bytes and must return without a panic, a
//! hang or an unbounded allocation, and checks what must hold of the
//! result. They live here, inside the workspace, so that the normal test
//! suite replays every committed corpus file through the same code
//! (`tests/tests/fuzz_corpus.rs`): the regression run CI does.
//!
//! Each body bounds its own work (input sizes, cycles), so one input takes
//! milliseconds at most.

use std::path::Path;

use clap::Parser;
use epsim_isa::encoding::{lookup, lookup_linear, EncId};
use epsim_isa::{decode, insn_len};
use epsim_loader::{
    Binding, Flags, GroupConfig, LoadPlan, Region, Segment, Symbol, SymbolKind, Target,
};
use epsim_sim::cli::{Cli, Command};
use epsim_sim::core::FaultKind;
use epsim_sim::setup::{check_args, parse_dram, parse_u64, write_loader_config, SetupError};
use epsim_sim::{Config, CoreId, FaultPolicy, Machine, Mode, StopReason, Syscalls};

/// A fuzz target: its name (the directory of its corpus under
/// `fuzz/corpus/`) and its body.
pub struct FuzzTarget {
    pub name: &'static str,
    pub body: fn(&[u8]),
}

/// Every target, by the name of its corpus directory and of its
/// `fuzz/fuzz_targets/` file.
pub const TARGETS: [FuzzTarget; 5] = [
    FuzzTarget {
        name: "elf",
        body: elf,
    },
    FuzzTarget {
        name: "decode",
        body: decode_disasm,
    },
    FuzzTarget {
        name: "core",
        body: core,
    },
    FuzzTarget {
        name: "cli",
        body: cli,
    },
    FuzzTarget {
        name: "hdf",
        body: hdf,
    },
];

/// Cycles a program loaded by the `elf` target runs (functional mode).
const ELF_RUN_CYCLES: u64 = 2_000;

/// The ELF readers: `epsim disasm`'s (which needs no memory map), and the
/// loader, as `epsim
/// run` and `e_load` use it: the bytes are planned for the Parallella-16 and -64; a plan must place
/// every segment where its target says, and its listing, its loading
/// onto a core with e-loader's configuration words, its argument check and
/// a short functional run must all end without a panic.
pub fn elf(data: &[u8]) {
    // `epsim disasm`: objdump's listing, from the file alone.
    let _ = epsim_sim::disasm::objdump(b"fuzz.elf", data);
    for target in [Target::parallella16(), Target::parallella64()] {
        let plan = match epsim_loader::plan(data, &target) {
            Ok(plan) => plan,
            Err(e) => {
                assert!(!e.to_string().is_empty(), "a load error says what is wrong");
                continue;
            }
        };
        for seg in &plan.segments {
            let len = u32::try_from(seg.mem_size()).expect("a placed segment fits in 32 bits");
            assert_eq!(
                target.place(seg.vaddr, len),
                Ok(seg.region),
                "segment {} is placed where the target puts it",
                seg.index
            );
        }
        let _ = epsim_sim::disasm::listing(&plan);
        let _ = check_args(&plan, &["fuzz.elf".to_string()]);
        let mut config = if target == Target::parallella16() {
            Config::parallella16()
        } else {
            Config::e64()
        };
        config.mode = Mode::Functional;
        assert_eq!(config.load_target(), target);
        let Ok(places) = plan.config_places(&target) else {
            continue;
        };
        let mut m = Machine::new(
            config,
            Syscalls::captured(vec!["fuzz.elf".into()], Vec::new()),
        )
        .expect("the built-in chips are valid");
        let first = m.config.first_core();
        if m.load_group(&plan, Path::new("fuzz.elf"), &[first])
            .is_err()
        {
            continue;
        }
        let group = GroupConfig {
            chip_type: u32::from(target != Target::parallella16()),
            row: first.row,
            col: first.col,
            rows: 1,
            cols: 1,
            ext_base: m.config.ext_base,
        };
        write_loader_config(&mut m, &places, &group, first);
        let stop = m.run(Some(ELF_RUN_CYCLES));
        assert!(m.now <= ELF_RUN_CYCLES || !matches!(stop, StopReason::CycleLimit { .. }));
    }
}

/// The decoder and disassembler: every 32-bit window of the input (at
/// each halfword) decodes as the reference linear lookup says, with the
/// length `insn_len` gives, to the same thing whatever the unused second
/// halfword of a 16-bit form; it disassembles to some text, and the
/// listing of the bytes as an executable segment (with two symbols the
/// input places) is made without a panic.
pub fn decode_disasm(data: &[u8]) {
    let data = &data[..data.len().min(4096)];
    let half = |i: usize| -> u32 {
        u32::from(u16::from_le_bytes([
            data.get(i).copied().unwrap_or(0),
            data.get(i + 1).copied().unwrap_or(0),
        ]))
    };
    let base = if data.len() >= 4 {
        u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & !1
    } else {
        0
    };
    for i in (0..data.len()).step_by(2) {
        let word = half(i) | half(i + 2) << 16;
        let d = decode(word);
        assert_eq!(u32::from(d.len), insn_len(word as u16));
        let fast = lookup(word).map(|e| e.id);
        let slow = lookup_linear(word).map(|e| e.id);
        assert_eq!(fast, slow, "bucketed and linear lookup of {word:#010x}");
        assert_eq!(d.enc, fast.unwrap_or(EncId::NoRow));
        if d.len == 2 {
            assert_eq!(decode(word & 0xffff), d, "16-bit {word:#010x}");
            assert_eq!(decode(word | 0xffff_0000), d, "16-bit {word:#010x}");
        }
        let addr = base.wrapping_add(i as u32);
        let text = d.disasm(addr, word);
        assert!(!text.is_empty(), "{word:#010x} disassembles to nothing");
        let _ = d.branch_target(addr);
    }
    // The listing: the bytes as code at `base`, labelled by two symbols.
    let sym = |at: usize, name: &str| Symbol {
        name: name.to_string(),
        addr: base.wrapping_add(half(at)),
        size: half(at + 2),
        kind: SymbolKind::Func,
        binding: Binding::Global,
    };
    let seg = Segment {
        index: 0,
        vaddr: base,
        region: Region::Local { offset: 0 },
        flags: Flags {
            read: true,
            write: false,
            exec: true,
        },
        data: data.to_vec(),
        zero_fill: 0,
    };
    let plan = LoadPlan::new(base, vec![seg], vec![sym(4, "_a"), sym(8, "_b")]);
    let _ = epsim_sim::disasm::listing(&plan);
}

/// Bytes of code the `core` target places.
const CORE_CODE_MAX: usize = 4096;
/// Cycles the `core` target runs.
const CORE_CYCLES: u64 = 3_000;

/// What a run of the `core` target came to: everything a split run must
/// reproduce.
#[derive(Debug, PartialEq, Eq)]
struct CoreOutcome {
    stop: StopReason,
    now: u64,
    instret: u64,
    state: String,
    /// FNV-1a of the core's SRAM.
    sram: u32,
    stdout: Vec<u8>,
}

/// One core of a 2x2 chip runs arbitrary words from an arbitrary entry
/// point, in functional or timed mode (fast or strict), with either fault
/// policy, for at most [`CORE_CYCLES`] cycles: a run must end (by itself
/// or at the limit) without a panic, a fault that stops it must leave the
/// PC at the faulting instruction, and a run split into two at a cycle the
/// input picks must come to the same end, state and memory as one run
/// (what `epsim run`'s slicing relies on).
///
/// Input: byte 0 flags (bit 0 timed, bit 1 strict, bit 2 fault policy
/// Raise, bits 3-4 where the code goes: own SRAM, DRAM, a neighbour's
/// SRAM, own SRAM; bit 5 the entry is the raw word 1-4 instead of an
/// offset into the code), bytes 1-4 the entry, 5-8 the code's offset,
/// 9-10 the split cycle, then the code.
pub fn core(data: &[u8]) {
    if data.len() < 11 {
        return;
    }
    let word = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let flags = data[0];
    let (entry_raw, place_raw) = (word(1), word(5));
    let split = u64::from(u16::from_le_bytes([data[9], data[10]])) % CORE_CYCLES;
    let code = &data[11..data.len().min(11 + CORE_CODE_MAX)];
    let mut config = Config::mesh(2, 2);
    config.ext_size = 1 << 20;
    config.mode = if flags & 1 != 0 {
        Mode::Timed
    } else {
        Mode::Functional
    };
    config.fault_policy = if flags & 4 != 0 {
        FaultPolicy::Raise
    } else {
        FaultPolicy::Stop
    };
    let strict = flags & 2 != 0;
    let len = code.len() as u32;
    let me = config.first_core();
    let neighbour = CoreId::new(me.row, me.col + 1);
    let room = |size: u32| (place_raw % (size - len).max(1)) & !7;
    // The code's address as the core sees it, and where it is written.
    let (at, target) = match (flags >> 3) & 3 {
        1 => {
            let off = room(config.ext_size);
            (config.ext_base + off, Err(off))
        }
        2 => {
            let off = room(config.sram_size);
            (neighbour.bits() << 20 | off, Ok((neighbour, off)))
        }
        _ => {
            let off = room(config.sram_size);
            (off, Ok((me, off)))
        }
    };
    let entry = if flags & 0x20 != 0 || len == 0 {
        entry_raw
    } else {
        at + ((entry_raw % len) & !1)
    };
    let outcome = |slices: &[u64]| -> CoreOutcome {
        let sys = Syscalls::captured(vec!["fuzz".into()], b"input\n".to_vec());
        let mut m = Machine::new(config.clone(), sys).expect("a 2x2 chip is valid");
        m.strict = strict;
        let plan = LoadPlan::new(entry, Vec::new(), Vec::new());
        m.load_group(&plan, Path::new("fuzz"), &[me])
            .expect("an empty plan loads");
        match target {
            Ok((id, off)) => {
                let i = m.config.core_index(id).expect("on the chip");
                m.cores[i].sram.write_bytes(off, code);
            }
            Err(off) => {
                m.dram.write_bytes(off, code);
            }
        }
        let mut stop = StopReason::AllHalted;
        for &to in slices {
            stop = m.run(Some(to));
            if !matches!(stop, StopReason::CycleLimit { .. }) {
                break;
            }
        }
        assert!(m.now <= CORE_CYCLES, "ran past the limit to {}", m.now);
        m.sys.flush_lines();
        let i = m.config.core_index(me).expect("on the chip");
        if let StopReason::Fault(f) = &stop {
            // A fault that stops the run leaves the PC at the instruction
            // (after it for an FPU exception, whose result is written).
            // (The faulting core: code the input runs may start another.)
            if f.kind != FaultKind::Fpu {
                let k = m.config.core_index(f.core).expect("a core of the chip");
                assert_eq!(m.cores[k].state.pc, f.pc, "the PC after {f}");
            }
        }
        CoreOutcome {
            stop,
            now: m.now,
            instret: m.instret(),
            state: format!("{:?}", m.cores[i].state),
            sram: epsim_loader::fnv1a(m.cores[i].sram.bytes()),
            stdout: m.sys.stdout.captured().to_vec(),
        }
    };
    let whole = outcome(&[CORE_CYCLES]);
    if split > 0 {
        let halves = outcome(&[split, CORE_CYCLES]);
        assert_eq!(
            whole, halves,
            "a run split at cycle {split} ends as one run does"
        );
    }
}

/// The `epsim` command line: the input is the arguments, one per line.
/// Parsing must give a result or an error message (rendered as `epsim`
/// prints it); a `run` is then checked as `epsim run` checks it before
/// reading any file: the machine's geometry (`--chip`, `--dram`,
/// `--group`, `--load`) and the trace options. Accepted groups lie on the
/// chip, hold the cores their size says and share none.
pub fn cli(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(&data[..data.len().min(4096)]) else {
        return;
    };
    let args: Vec<&str> = std::iter::once("epsim").chain(text.split('\n')).collect();
    for dram in dram_options(&args) {
        check_dram(dram);
    }
    let parsed = match Cli::try_parse_from(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            let _ = e.render().to_string();
            return;
        }
    };
    let Command::Run {
        program,
        machine,
        trace,
        on_fault,
        ..
    } = parsed.command
    else {
        return;
    };
    let setup = machine.setup(&program, on_fault.policy());
    let config = setup.config();
    match setup.groups() {
        Ok(groups) => {
            assert!(config.validate().is_ok(), "groups accepted on a bad chip");
            let mut seen = std::collections::BTreeSet::new();
            for ((group, _), cores) in setup.loads.iter().zip(&groups) {
                assert_eq!(
                    cores.len() as u64,
                    u64::from(group.rows) * u64::from(group.cols)
                );
                for id in cores {
                    assert!(config.core_index(*id).is_some(), "{id} is off the chip");
                    assert!(seen.insert(*id), "{id} is in two groups");
                }
            }
            if let Err(e) = trace.filter(&config) {
                assert!(
                    e.starts_with("--trace"),
                    "the message names the option: {e}"
                );
            }
        }
        Err(SetupError::Usage(e)) => assert!(!e.is_empty()),
        Err(SetupError::Load(e)) => panic!("checking the geometry read a file: {e}"),
    }
}

/// The values of the `--dram` options among `args` (before `--`).
fn dram_options<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "--dram" {
            out.extend(it.next().copied());
        } else if let Some(v) = a.strip_prefix("--dram=") {
            out.push(v);
        }
    }
    out
}

/// `--dram BASE:SIZE`: an accepted value is the base and size asked for,
/// not a number cut to 32 bits.
fn check_dram(text: &str) {
    let Ok((base, size)) = parse_dram(text) else {
        return;
    };
    let asked = |t: &str| -> Option<u64> {
        let t = t.trim();
        let (digits, scale) = match t.as_bytes().last() {
            Some(b'K' | b'k') => (&t[..t.len() - 1], 1u64 << 10),
            Some(b'M' | b'm') => (&t[..t.len() - 1], 1 << 20),
            Some(b'G' | b'g') => (&t[..t.len() - 1], 1 << 30),
            _ => (t, 1),
        };
        parse_u64(digits).ok()?.checked_mul(scale)
    };
    let (b, z) = text.split_once(':').expect("an accepted value has a colon");
    assert_eq!(Some(u64::from(base)), asked(b), "--dram {text}: base");
    assert_eq!(Some(u64::from(size)), asked(z), "--dram {text}: size");
}

/// The HDF parser of libe-hal's `e_init`: any text parses to a platform
/// whose machine configuration is valid, or to a message.
pub fn hdf(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match e_hal::Platform::parse_hdf(text) {
        Ok(p) => {
            let config = p.config();
            assert_eq!(config.validate(), Ok(()));
            assert_eq!((config.rows, config.cols), p.chip.size());
            let _ = p.type_code();
        }
        Err(e) => assert!(!e.is_empty()),
    }
}
