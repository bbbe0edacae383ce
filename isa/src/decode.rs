//! PLACEHOLDER (being written): the decoder derived from the encoding table.
use crate::encoding::EncId;
use crate::op::Op;

/// A decoded instruction: the typed operation, its length in bytes (2 or 4)
/// and the encoding row it matched (for the disassembler).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decoded {
    pub op: Op,
    pub len: u8,
    pub enc: EncId,
}

/// Decodes the instruction whose first halfword is `word & 0xffff` and whose
/// second halfword (used only by 32-bit forms) is `word >> 16`.
pub fn decode(word: u32) -> Decoded {
    let _ = word;
    Decoded { op: Op::Unimpl, len: 2, enc: EncId(0) }
}
