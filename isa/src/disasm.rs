//! Disassembly in `epiphany-elf-objdump -d` syntax.
//!
//! The text is produced by expanding the matched row's syntax template
//! (`encoding.rs`, module docs) with the row's fields; there is no second
//! decoder here. The output is exactly the mnemonic-and-operands part of an
//! objdump line, which the golden tests (`isa/tests/decode_golden.rs`) check
//! for every 16-bit halfword and a large sample of 32-bit words. Notable
//! objdump conventions reproduced here:
//!
//! * register names are `r0`…`r63` except `fp` (r11), `sp` (r13) and `lr`
//!   (r14); r12 is printed `r12`, not `ip`;
//! * branch targets are absolute (`addr + disp`, wrapping at 32 bits) in
//!   `0x…` hex; objdump appends ` <symbol>` when it has symbols, which is the
//!   caller's business ([`Decoded::branch_target`]);
//! * unsigned immediates are `0x…` hex, signed ones (ADD/SUB) decimal;
//!   32-bit displacements and indices carry an explicit `+`/`-`;
//! * special registers without a name print as `???`;
//! * a word that matches no row prints `*unknown*` (objdump then skips 4
//!   bytes, whatever op4 says; our `Decoded::len` still follows op4).

use std::fmt::{self, Write};

use crate::decode::Decoded;
use crate::encoding::Encoding;
use crate::op::Op;

/// What objdump prints for a word that matches no row.
pub const UNKNOWN: &str = "*unknown*";

/// binutils' register names (CGEN `gr-names`: the first alias listed for a
/// number wins).
pub fn gpr_name(r: u8) -> &'static str {
    const NAMES: [&str; 64] = [
        "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "fp", "r12", "sp", "lr",
        "r15", "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27",
        "r28", "r29", "r30", "r31", "r32", "r33", "r34", "r35", "r36", "r37", "r38", "r39", "r40",
        "r41", "r42", "r43", "r44", "r45", "r46", "r47", "r48", "r49", "r50", "r51", "r52", "r53",
        "r54", "r55", "r56", "r57", "r58", "r59", "r60", "r61", "r62", "r63",
    ];
    NAMES[(r & 63) as usize]
}

/// binutils' name of special register `index` in `group` (0 core, 1 DMA,
/// 2 memory protection, 3 mesh), or `None` where objdump prints `???`.
pub fn sreg_name(group: u32, index: u32) -> Option<&'static str> {
    const CORE: &[&str] = &[
        "config", "status", "pc", "debug", "iab", "lc", "ls", "le", "iret", "imask", "ilat",
        "ilatst", "ilatcl", "ipend", "ctimer0", "ctimer1", "hstatus",
    ];
    const DMA: &[&str] = &[
        "dma0config",
        "dma0stride",
        "dma0count",
        "dma0srcaddr",
        "dma0dstaddr",
        "dma0auto0",
        "dma0auto1",
        "dma0status",
        "dma1config",
        "dma1stride",
        "dma1count",
        "dma1srcaddr",
        "dma1dstaddr",
        "dma1auto0",
        "dma1auto1",
        "dma1status",
    ];
    const MEM: &[&str] = &["memconfig", "memstatus", "memprotect", "memreserve"];
    const MESH: &[&str] = &["meshconfig", "coreid", "meshmulticast", "swreset"];
    let names = match group {
        0 => CORE,
        1 => DMA,
        2 => MEM,
        3 => MESH,
        _ => return None,
    };
    names.get(index as usize).copied()
}

impl Decoded {
    /// The disassembly of this instruction at `addr`, exactly as
    /// `epiphany-elf-objdump -d` prints its mnemonic and operands (without
    /// the ` <symbol>` objdump may append to a branch target). `word` must
    /// be the word this was decoded from.
    pub fn disasm(&self, addr: u32, word: u32) -> String {
        let mut s = String::with_capacity(24);
        // Writing into a String cannot fail.
        let _ = self.write_disasm(&mut s, addr, word);
        s
    }

    /// [`disasm`](Self::disasm) into any writer, without allocating (for
    /// traces).
    pub fn write_disasm<W: Write>(&self, out: &mut W, addr: u32, word: u32) -> fmt::Result {
        match self.enc.encoding() {
            Some(e) => expand(e, out, addr, word),
            None => out.write_str(UNKNOWN),
        }
    }

    /// The absolute target of a `B<cond>`/`B`/`BL` at `addr` (wrapping at 32
    /// bits, as objdump prints it), or `None` for any other instruction.
    pub fn branch_target(&self, addr: u32) -> Option<u32> {
        match self.op {
            Op::Bcond { disp, .. } => Some(addr.wrapping_add(disp as u32)),
            _ => None,
        }
    }
}

/// Expands the syntax template of row `e` for `word` at `addr`.
fn expand<W: Write>(e: &Encoding, out: &mut W, addr: u32, word: u32) -> fmt::Result {
    let mut rest = e.syntax;
    while let Some(at) = rest.find('%') {
        out.write_str(&rest[..at])?;
        let mut keys = rest[at + 1..].chars();
        let key = keys.next().unwrap_or('%');
        rest = keys.as_str();
        match key {
            'd' | 'n' | 'm' => out.write_str(gpr_name(e.field(key as u8, word) as u8))?,
            'x' => write!(out, "{:#x}", e.field(b'i', word))?,
            'i' => write!(out, "{}", e.sfield(b'i', word))?,
            't' => write!(out, "{:#x}", e.field(b't', word))?,
            'b' => {
                let target = addr.wrapping_add((e.sfield(b'o', word) * 2) as u32);
                write!(out, "{target:#x}")?
            }
            'g' => out.write_char(if e.field(b'g', word) != 0 { '-' } else { '+' })?,
            '0'..='3' => {
                let group = key as u32 - '0' as u32;
                out.write_str(sreg_name(group, e.field(b'n', word)).unwrap_or("???"))?
            }
            // The table's self-test rejects any other key.
            _ => out.write_char(key)?,
        }
    }
    out.write_str(rest)
}

#[cfg(test)]
mod tests {
    use crate::decode::decode;

    fn dis(addr: u32, word: u32) -> String {
        decode(word).disasm(addr, word)
    }

    #[test]
    fn a_few_forms() {
        assert_eq!(dis(0, 0x2122_068b), "mov r8,0x1234");
        assert_eq!(dis(0xe, 0x010006cc), "ldr r0,[r1,-0x5]");
        assert_eq!(dis(0x66, 0x3200), "beq 0xca");
        assert_eq!(dis(0xce, 0x800000f8), "bl 0xff0000ce");
        assert_eq!(dis(0, 0x0402194f), "rts");
        assert_eq!(dis(0, 0x2012010f), "movts dma0config,r8");
        assert_eq!(dis(0, 0x0077), "fabs rd,rn");
        assert_eq!(dis(0, 0x0122), "*unknown*");
        assert_eq!(decode(0x3200).branch_target(0x66), Some(0xca));
        assert_eq!(decode(0x01a2).branch_target(0x66), None);
    }
}
