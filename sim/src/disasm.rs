//! Program listings in the layout of `epiphany-elf-objdump -d`: a label
//! line per symbol, then one line per instruction with its address, its
//! halfwords and its disassembly, branch targets named by symbol.

use std::fmt::Write as _;

use epsim_isa::encoding::EncId;
use epsim_isa::{decode, insn_len};
use epsim_loader::{LoadPlan, Segment};

/// The listing of every executable segment of `plan`.
pub fn listing(plan: &LoadPlan) -> String {
    let mut out = String::new();
    for seg in plan.segments.iter().filter(|s| s.flags.exec) {
        segment_listing(plan, seg, &mut out);
    }
    out
}

fn segment_listing(plan: &LoadPlan, seg: &Segment, out: &mut String) {
    let data = &seg.data;
    let half =
        |i: usize| -> Option<u16> { Some(u16::from_le_bytes([*data.get(i)?, *data.get(i + 1)?])) };
    let mut i = 0usize;
    while i + 1 < data.len() {
        let addr = seg.vaddr.wrapping_add(i as u32);
        if let Some(sym) = plan.symbol_at(addr).filter(|s| s.addr == addr) {
            let _ = write!(out, "\n{addr:08x} <{}>:\n", sym.name);
        }
        let Some(h0) = half(i) else { break };
        let len = insn_len(h0) as usize;
        let (word, bytes) = match (len, half(i + 2)) {
            (4, Some(h1)) => (
                (h0 as u32) | (h1 as u32) << 16,
                format!("{h0:04x} {h1:04x} "),
            ),
            _ => (h0 as u32, format!("{h0:04x}      ")),
        };
        let d = decode(word);
        let mut text = d.disasm(addr, word);
        if let Some(target) = d.branch_target(addr) {
            if let Some(sym) = plan.symbol_before(target) {
                // objdump drops the 0x of a target it can name
                let hex = format!("0x{target:x}");
                if text.ends_with(&hex) {
                    text.truncate(text.len() - hex.len());
                    let _ = write!(text, "{target:x}");
                }
                let _ = match target - sym.addr {
                    0 => write!(text, " <{}>", sym.name),
                    off => write!(text, " <{}+{off:#x}>", sym.name),
                };
            }
        }
        let _ = writeln!(out, "{addr:8x}:\t{bytes}\t{text}");
        // objdump steps over an undecodable halfword as a whole word
        i += if d.enc == EncId::NoRow {
            4
        } else {
            d.len as usize
        };
    }
}
