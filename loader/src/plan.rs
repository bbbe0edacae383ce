//! The load plan: what to copy where, the entry point and the symbols.
//!
//! Model decisions owned here: how symbols are ordered for labelling (by
//! address, then the preferred name first) and which name wins when several
//! symbols share a name. The `Serialize` output is meant for people
//! (snapshots, `--dump-plan` style output): addresses and sizes are `0x`
//! hex strings and segment bytes are summarised, not dumped.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::target::Region;

/// Everything the simulator needs to load one ELF program, independent of
/// goblin and of simulator state. The simulator applies it: copy each
/// segment's [`data`](Segment::data), clear its [`zero_fill`](Segment::zero_fill)
/// bytes (or not, see there), and start the core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadPlan {
    /// `e_entry`. Informational: an Epiphany core starts at its reset
    /// (SYNC) vector, local address 0, not at the ELF entry point; e-hal
    /// starts a loaded core by raising SYNC.
    #[serde(serialize_with = "hex")]
    pub entry: u32,
    /// The loadable segments (`PT_LOAD` with `p_memsz != 0`), in program
    /// header order. They do not overlap (see [`plan`](crate::plan())).
    pub segments: Vec<Segment>,
    /// Sorted as described at [`LoadPlan::symbols`].
    symbols: Vec<Symbol>,
    /// The address of the ELF's `workgroup_cfg`, `ext_mem_cfg` and
    /// `loader_cfg` sections (the first of each name), where e-loader
    /// writes its configuration words ([`crate::CONFIG_SECTIONS`],
    /// [`LoadPlan::config_places`]); `None` for a section the file lacks.
    #[serde(skip_serializing_if = "no_sections", serialize_with = "hex_sections")]
    pub config_sections: [Option<u32>; 3],
    /// Name → address, built from `symbols`.
    #[serde(skip)]
    by_name: BTreeMap<String, u32>,
    /// Largest symbol size, bounding the backward search in `symbol_at`.
    #[serde(skip)]
    max_size: u32,
}

impl LoadPlan {
    /// Builds a plan from its parts (the loader does this; tests and tools
    /// may build plans by hand). `symbols` may come in any order.
    pub fn new(entry: u32, segments: Vec<Segment>, mut symbols: Vec<Symbol>) -> Self {
        symbols.sort_by(label_order);
        let mut by_name: BTreeMap<String, u32> = BTreeMap::new();
        let mut best: BTreeMap<&str, Binding> = BTreeMap::new();
        for s in &symbols {
            let better = best
                .get(s.name.as_str())
                .is_none_or(|b| s.binding.rank() < b.rank());
            if better {
                best.insert(&s.name, s.binding);
                by_name.insert(s.name.clone(), s.addr);
            }
        }
        let max_size = symbols.iter().map(|s| s.size).max().unwrap_or(0);
        LoadPlan {
            entry,
            segments,
            symbols,
            config_sections: [None; 3],
            by_name,
            max_size,
        }
    }

    /// The plan with the configuration sections at `addrs` (see
    /// [`LoadPlan::config_sections`]).
    pub fn with_config_sections(mut self, addrs: [Option<u32>; 3]) -> Self {
        self.config_sections = addrs;
        self
    }

    /// All symbols worth naming an address by, sorted by address; symbols
    /// at the same address come in order of preference for a label: global,
    /// then weak, then local; then functions, objects, absolute values;
    /// then by name.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// The address of the symbol called `name`, spelled as in the file
    /// (C `main` is `_main` on the Epiphany). When several symbols share a
    /// name (local `static` functions of different files), a global one
    /// wins over a weak one over a local one; among equals, the lowest
    /// address.
    pub fn symbol(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// Name → address for every symbol, with the rule of [`LoadPlan::symbol`].
    pub fn symbol_map(&self) -> &BTreeMap<String, u32> {
        &self.by_name
    }

    /// The symbol to label `addr` with: the preferred symbol starting at
    /// `addr` if there is one, otherwise the nearest-starting symbol whose
    /// `[addr, addr + size)` contains it.
    pub fn symbol_at(&self, addr: u32) -> Option<&Symbol> {
        let upto = self.symbols.partition_point(|s| s.addr <= addr);
        let candidates = &self.symbols[..upto];
        let first_at = candidates.partition_point(|s| s.addr < addr);
        if let Some(s) = candidates.get(first_at) {
            return Some(s);
        }
        let contains = |s: &&Symbol| addr - s.addr < s.size;
        let hit = candidates
            .iter()
            .rev()
            .take_while(|s| addr - s.addr < self.max_size)
            .find(contains)?;
        // Several symbols at that address may contain `addr`: take the
        // preferred one, which sorts first.
        let group = candidates.partition_point(|s| s.addr < hit.addr);
        candidates[group..].iter().find(contains)
    }

    /// The nearest symbol starting at or before `addr` (objdump's choice
    /// for `<symbol+offset>` labels), whether or not its size covers `addr`.
    /// Absolute symbols are skipped, as they usually name constants.
    pub fn symbol_before(&self, addr: u32) -> Option<&Symbol> {
        let upto = self.symbols.partition_point(|s| s.addr <= addr);
        let candidates = &self.symbols[..upto];
        let mut group = candidates
            .iter()
            .rev()
            .filter(|s| s.kind != SymbolKind::Absolute);
        let last = group.next()?;
        // The preferred symbol is the first of its address group.
        let first_at = candidates.partition_point(|s| s.addr < last.addr);
        candidates[first_at..]
            .iter()
            .find(|s| s.kind != SymbolKind::Absolute)
    }
}

fn label_order(a: &Symbol, b: &Symbol) -> Ordering {
    a.addr
        .cmp(&b.addr)
        .then(a.binding.rank().cmp(&b.binding.rank()))
        .then(a.kind.rank().cmp(&b.kind.rank()))
        .then_with(|| a.name.cmp(&b.name))
        .then(a.size.cmp(&b.size))
}

/// One loadable segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// Index of its program header, as `readelf -l` counts (0-based).
    pub index: usize,
    /// `p_vaddr`, the address the program was linked for.
    #[serde(serialize_with = "hex")]
    pub vaddr: u32,
    /// The memory it goes into.
    pub region: Region,
    /// `p_flags`.
    pub flags: Flags,
    /// The `p_filesz` bytes to copy to `vaddr`.
    #[serde(serialize_with = "summarise")]
    pub data: Vec<u8>,
    /// `p_memsz - p_filesz`: bytes after the data that the program expects
    /// to be zero (`.bss`). e-hal clears a core's whole SRAM before loading,
    /// but does not clear external memory; whether to model that is the
    /// simulator's choice.
    #[serde(serialize_with = "hex")]
    pub zero_fill: u32,
}

impl Segment {
    /// `p_memsz`: file bytes plus zero fill.
    pub fn mem_size(&self) -> u64 {
        self.data.len() as u64 + u64::from(self.zero_fill)
    }

    /// One past the segment's last address (`vaddr + p_memsz`).
    pub fn end(&self) -> u64 {
        u64::from(self.vaddr) + self.mem_size()
    }
}

/// Segment permissions (`p_flags`). Epiphany memory has no protection at
/// load time; these are kept for tools and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// `PF_R`.
    pub read: bool,
    /// `PF_W`.
    pub write: bool,
    /// `PF_X`.
    pub exec: bool,
}

impl Flags {
    /// From the raw `p_flags` word.
    pub fn from_bits(p_flags: u32) -> Self {
        Flags {
            read: p_flags & 4 != 0,
            write: p_flags & 2 != 0,
            exec: p_flags & 1 != 0,
        }
    }
}

impl std::fmt::Display for Flags {
    /// `rwx` style, with `-` for a missing permission.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bit = |on: bool, c: char| if on { c } else { '-' };
        write!(
            f,
            "{}{}{}",
            bit(self.read, 'r'),
            bit(self.write, 'w'),
            bit(self.exec, 'x')
        )
    }
}

impl Serialize for Flags {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A named address, for `symbol()` look-ups and for labelling disassembly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// The name as in the file (C `main` is `_main`).
    pub name: String,
    /// `st_value`: the address (local or global, as linked).
    #[serde(serialize_with = "hex")]
    pub addr: u32,
    /// `st_size` in bytes (0 for plain labels).
    #[serde(serialize_with = "hex")]
    pub size: u32,
    /// What the symbol names.
    pub kind: SymbolKind,
    /// `STB_LOCAL`, `STB_GLOBAL` or `STB_WEAK`.
    pub binding: Binding,
}

/// What a symbol names.
///
/// Epiphany GCC emits no `.type` for functions, so untyped symbols
/// (`STT_NOTYPE`) are classified by the section they are defined in:
/// executable means code, other allocated sections mean data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// Code: `STT_FUNC`, or untyped in an executable section.
    Func,
    /// Data: `STT_OBJECT`, or untyped in another allocated section.
    Object,
    /// An absolute value (`SHN_ABS`), e.g. `__stack` from a linker script.
    Absolute,
}

impl SymbolKind {
    fn rank(self) -> u8 {
        match self {
            SymbolKind::Func => 0,
            SymbolKind::Object => 1,
            SymbolKind::Absolute => 2,
        }
    }
}

/// Symbol binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Binding {
    /// `STB_LOCAL`: visible in one object file (C `static`, assembly labels).
    Local,
    /// `STB_GLOBAL`.
    Global,
    /// `STB_WEAK`.
    Weak,
}

impl Binding {
    fn rank(self) -> u8 {
        match self {
            Binding::Global => 0,
            Binding::Weak => 1,
            Binding::Local => 2,
        }
    }
}

/// Serialises an address or size as a `0x` hex string.
pub(crate) fn hex<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{v:#x}"))
}

fn no_sections(addrs: &[Option<u32>; 3]) -> bool {
    addrs.iter().all(Option::is_none)
}

/// Serialises the configuration sections as a map from section name to
/// `0x` hex address, for the sections the file has.
fn hex_sections<S: Serializer>(addrs: &[Option<u32>; 3], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(None)?;
    for (name, addr) in crate::CONFIG_SECTIONS.iter().zip(addrs) {
        if let Some(a) = addr {
            map.serialize_entry(name, &format_args!("{a:#x}").to_string())?;
        }
    }
    map.end()
}

/// Serialises a core id as a `0x` hex string.
pub(crate) fn hex16<S: Serializer>(v: &u16, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{v:#x}"))
}

/// Serialises segment bytes as their length, FNV-1a hash and first bytes,
/// which is enough to review a change without a full dump.
fn summarise<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Summary {
        len: String,
        fnv1a: String,
        head: String,
    }
    let head: Vec<String> = data.iter().take(16).map(|b| format!("{b:02x}")).collect();
    Summary {
        len: format!("{:#x}", data.len()),
        fnv1a: format!("{:#010x}", fnv1a(data)),
        head: head.join(" "),
    }
    .serialize(s)
}

/// 32-bit FNV-1a, a small stable hash for summaries.
pub fn fnv1a(data: &[u8]) -> u32 {
    data.iter().fold(0x811C_9DC5, |h: u32, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, addr: u32, size: u32, kind: SymbolKind, binding: Binding) -> Symbol {
        Symbol {
            name: name.into(),
            addr,
            size,
            kind,
            binding,
        }
    }

    fn sample() -> LoadPlan {
        use Binding::*;
        use SymbolKind::*;
        LoadPlan::new(
            0,
            vec![],
            vec![
                sym("_main", 0x100, 0x40, Func, Global),
                sym("_loop", 0x120, 0, Func, Local),
                sym("_start", 0x0, 0, Func, Global),
                sym("_halt", 0xc, 0, Func, Local),
                sym("__stack", 0x7ff0, 0, Absolute, Global),
                sym("_helper", 0x200, 0x10, Func, Local),
                sym("_helper", 0x300, 0x10, Func, Local),
                sym("_alias", 0x100, 0x40, Func, Local),
                sym("_table", 0x400, 0x100, Object, Global),
                sym("_field", 0x410, 4, Object, Local),
                sym("_dup", 0x500, 4, Object, Local),
                sym("_dup", 0x600, 4, Object, Weak),
            ],
        )
    }

    #[test]
    fn sorted_by_address_then_preference() {
        let p = sample();
        let addrs: Vec<u32> = p.symbols().iter().map(|s| s.addr).collect();
        let mut sorted = addrs.clone();
        sorted.sort();
        assert_eq!(addrs, sorted);
        // The global `_main` is preferred over the local `_alias`.
        let at_100: Vec<&str> = p
            .symbols()
            .iter()
            .filter(|s| s.addr == 0x100)
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(at_100, ["_main", "_alias"]);
    }

    #[test]
    fn symbol_by_name() {
        let p = sample();
        assert_eq!(p.symbol("_main"), Some(0x100));
        assert_eq!(p.symbol("__stack"), Some(0x7ff0));
        assert_eq!(p.symbol("main"), None);
        // Equal bindings: lowest address wins; a weak one beats a local one.
        assert_eq!(p.symbol("_helper"), Some(0x200));
        assert_eq!(p.symbol("_dup"), Some(0x600));
        assert_eq!(p.symbol_map().len(), 10);
    }

    #[test]
    fn symbol_at_prefers_start_then_containing() {
        let p = sample();
        let name = |a| p.symbol_at(a).map(|s| s.name.as_str());
        assert_eq!(name(0x0), Some("_start"));
        assert_eq!(name(0x4), None);
        assert_eq!(name(0x100), Some("_main"));
        assert_eq!(name(0x104), Some("_main"));
        assert_eq!(name(0x120), Some("_loop"));
        assert_eq!(name(0x124), Some("_main"));
        assert_eq!(name(0x140), None);
        assert_eq!(name(0x40c), Some("_table"));
        assert_eq!(name(0x410), Some("_field"));
        assert_eq!(name(0x414), Some("_table"));
        assert_eq!(name(0x7ff0), Some("__stack"));
        assert_eq!(name(u32::MAX), None);
    }

    #[test]
    fn symbol_before_ignores_sizes_and_absolutes() {
        let p = sample();
        let name = |a| p.symbol_before(a).map(|s| s.name.as_str());
        assert_eq!(name(0x4), Some("_start"));
        assert_eq!(name(0x10), Some("_halt"));
        assert_eq!(name(0x100), Some("_main"));
        assert_eq!(name(0x150), Some("_loop"));
        assert_eq!(name(0x8000), Some("_dup"));
        assert_eq!(LoadPlan::new(0, vec![], vec![]).symbol_before(5), None);
    }

    #[test]
    fn flags_display() {
        assert_eq!(Flags::from_bits(5).to_string(), "r-x");
        assert_eq!(Flags::from_bits(6).to_string(), "rw-");
        assert_eq!(Flags::from_bits(0).to_string(), "---");
    }

    #[test]
    fn fnv1a_reference_values() {
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a(b"foobar"), 0xbf9c_f968);
    }
}
