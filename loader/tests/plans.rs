//! Load plans of the committed sample ELFs (snapshots), and the plan's
//! look-up helpers on real files.

mod common;

use common::*;
use epsim_loader::{load_file, plan, Binding, Region, SymbolKind, Target};

fn plan_of(name: &str) -> epsim_loader::LoadPlan {
    load_file(data_path(name), &Target::parallella16())
        .unwrap_or_else(|e| panic!("{name} should load: {e}"))
}

#[test]
fn local_plan() {
    insta::assert_yaml_snapshot!("local", plan_of("local.elf"));
}

#[test]
fn external_plan() {
    insta::assert_yaml_snapshot!("external", plan_of("external.elf"));
}

#[test]
fn onchip_plan() {
    insta::assert_yaml_snapshot!("onchip", plan_of("onchip.elf"));
}

#[test]
fn regions_of_the_samples() {
    let local = plan_of("local.elf");
    assert!(local
        .segments
        .iter()
        .all(|s| matches!(s.region, Region::Local { .. })));

    let ext = plan_of("external.elf");
    let regions: Vec<Region> = ext.segments.iter().map(|s| s.region).collect();
    assert_eq!(
        regions,
        [
            Region::Local { offset: 0 },
            Region::External { offset: 0 },
            Region::External { offset: 0x20 },
        ]
    );
    assert_eq!(ext.segments[2].data.len(), 16);
    assert_eq!(ext.segments[2].zero_fill, 0x1000);
    assert_eq!(ext.segments[2].mem_size(), 0x1010);

    let onchip = plan_of("onchip.elf");
    assert_eq!(
        onchip.segments[1].region,
        Region::OnChip {
            coreid: 0x809,
            row: 32,
            col: 9,
            offset: 0x4000
        }
    );
    // The mailbox's initial value, little-endian.
    assert_eq!(onchip.segments[1].data[..4], 0xcafe_f00du32.to_le_bytes());
}

#[test]
fn segment_bytes_are_the_file_bytes() {
    for name in SAMPLES {
        let bytes = sample(name);
        let p = plan(&bytes, &Target::default()).expect("sample loads");
        for seg in &p.segments {
            let ph = phdr(&bytes, seg.index);
            let off = get_u32(&bytes, ph + P_OFFSET) as usize;
            assert_eq!(seg.vaddr, get_u32(&bytes, ph + P_VADDR));
            assert_eq!(seg.data, bytes[off..off + seg.data.len()], "{name}");
            assert_eq!(seg.mem_size(), u64::from(get_u32(&bytes, ph + P_MEMSZ)));
        }
    }
}

#[test]
fn symbols_by_name() {
    let p = plan_of("local.elf");
    assert_eq!(p.symbol("_start"), Some(0));
    assert_eq!(p.symbol("_main"), Some(0x24));
    assert_eq!(p.symbol("_counter"), Some(0x98));
    assert_eq!(p.symbol("__stack"), Some(0x7ff0));
    assert_eq!(p.symbol("main"), None, "names are kept as in the file");
    let ext = plan_of("external.elf");
    assert_eq!(ext.symbol("_dram_sum"), Some(0x8e00_0000));
    assert_eq!(ext.symbol("_scratch"), Some(0x8e00_0030));
}

#[test]
fn symbols_for_labelling() {
    let p = plan_of("local.elf");
    let addrs: Vec<u32> = p.symbols().iter().map(|s| s.addr).collect();
    assert!(addrs.windows(2).all(|w| w[0] <= w[1]), "sorted by address");

    let at = |a| p.symbol_at(a).map(|s| s.name.as_str());
    assert_eq!(at(0x0), Some("_start"));
    assert_eq!(at(0x24), Some("_main"));
    assert_eq!(at(0x30), Some("_main"), "inside _main (0x24 + 102 bytes)");
    assert_eq!(at(0x14), Some("_helper"), "static function: local binding");
    assert_eq!(at(0xa4), Some("_table"));
    assert_eq!(at(0x8), None, "between _start (size 0) and _halt");
    assert_eq!(
        p.symbol_before(0x8).map(|s| s.name.as_str()),
        Some("_start")
    );

    // Epiphany GCC emits no .type for functions: untyped symbols in
    // executable sections count as functions.
    let main = p.symbol_at(0x24).expect("_main");
    assert_eq!(
        (main.kind, main.binding, main.size),
        (SymbolKind::Func, Binding::Global, 102)
    );
    let table = p.symbol_at(0xa0).expect("_table");
    assert_eq!(table.kind, SymbolKind::Object);
    let stack = p.symbol_at(0x7ff0).expect("__stack");
    assert_eq!(stack.kind, SymbolKind::Absolute);
}

#[test]
fn same_plan_from_bytes_and_from_file() {
    for name in SAMPLES {
        let from_bytes = plan(&sample(name), &Target::default()).expect("sample loads");
        assert_eq!(from_bytes, plan_of(name));
    }
}

#[test]
fn onchip_sample_on_a_64_core_chip() {
    let p = load_file(data_path("onchip.elf"), &Target::parallella64()).expect("loads");
    assert!(matches!(
        p.segments[1].region,
        Region::OnChip {
            row: 32,
            col: 9,
            ..
        }
    ));
}

#[test]
fn stripped_file_has_no_symbols() {
    // Dropping the section header table leaves a loadable file.
    let mut b = sample("local.elf");
    put_u32(&mut b, E_SHOFF, 0);
    put_u16(&mut b, E_SHNUM, 0);
    let p = plan(&b, &Target::default()).expect("loads without sections");
    assert!(p.symbols().is_empty());
    assert_eq!(p.symbol("_main"), None);
    assert_eq!(p.segments.len(), 2);
}

/// e-loader's configuration sections, as the ESDK's layouts place them
/// (the host crate's test programs cfg_dev*.elf), or absent (our samples).
#[test]
fn configuration_sections_are_found_by_name() {
    let dev = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/tests/dev");
    let t = Target::parallella16();
    for (name, at) in [
        ("cfg_dev.elf", 0x28),
        ("cfg_dev_dram.elf", 0x8f10_0000),
        ("cfg_dev_oncore.elf", 0x8080_7000u32),
    ] {
        let p = load_file(dev.join(name), &t).unwrap();
        assert_eq!(
            p.config_sections,
            [Some(at), Some(at + 0x28), Some(at + 0x30)],
            "{name}"
        );
    }
    for name in SAMPLES {
        assert_eq!(plan_of(name).config_sections, [None; 3], "{name}");
    }
}
