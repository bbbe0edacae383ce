//! PLACEHOLDER (being written): the declarative encoding table.
/// Identifies one row of the encoding table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncId(pub u16);
