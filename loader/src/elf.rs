//! ELF32 parsing with goblin, and the checks that turn a file into a
//! [`LoadPlan`] or one [`LoadError`].
//!
//! Order of work, so that the first error reported is the most basic one
//! and nothing is copied from an unchecked range:
//! 1. identification (magic, class, byte order), then the ELF header
//!    (`e_machine`, `e_type`);
//! 2. the program header table (entry size, range), then every `PT_LOAD`
//!    segment with `p_memsz != 0`: file range, `p_filesz <= p_memsz`,
//!    placement on the target, overlaps;
//! 3. the section header table, the symbol table and the section-name
//!    table, if the file has them (a stripped file simply has no symbols);
//! 4. only then are segment bytes copied.
//!
//! goblin is handed only ranges that have been checked here, and goblin
//! types do not leave this module.

use goblin::container::{Container, Ctx, Endian};
use goblin::elf::{Elf, ProgramHeader, SectionHeader, Symtab};

use crate::error::{LoadError, Part};
use crate::plan::{Binding, Flags, LoadPlan, Segment, Symbol, SymbolKind};
use crate::target::{Region, Target};

/// `EM_ADAPTEVA_EPIPHANY`.
pub const EM_ADAPTEVA_EPIPHANY: u16 = 0x1223;

const ELFMAG: [u8; 4] = [0x7F, b'E', b'L', b'F'];
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;
const ELFCLASS32: u8 = 1;
const ELFDATA2LSB: u8 = 1;
const E_MACHINE: usize = 18;
const ET_EXEC: u16 = 2;
const PT_LOAD: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHF_ALLOC: u64 = 0x2;
const SHF_EXECINSTR: u64 = 0x4;
const SHN_UNDEF: usize = 0;
const SHN_LORESERVE: usize = 0xFF00;
const SHN_ABS: usize = 0xFFF1;
const STT_NOTYPE: u8 = 0;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
const STB_LOCAL: u8 = 0;
const STB_WEAK: u8 = 2;

pub(crate) const EHDR_SIZE: usize = 52;
const PHDR_SIZE: u16 = 32;
const SHDR_SIZE: u16 = 40;
const SYM_SIZE: u64 = 16;

const CTX: Ctx = Ctx {
    container: Container::Little,
    le: Endian::Little,
};

/// A `PT_LOAD` segment that passed every check, before its bytes are copied.
struct Checked {
    index: usize,
    vaddr: u32,
    mem_size: u32,
    file_offset: usize,
    file_size: usize,
    flags: Flags,
    region: Region,
}

impl Checked {
    fn end(&self) -> u64 {
        u64::from(self.vaddr) + u64::from(self.mem_size)
    }
}

/// See [`crate::plan`].
pub fn plan(bytes: &[u8], target: &Target) -> Result<LoadPlan, LoadError> {
    check_ident(bytes)?;
    let header = Elf::parse_header(bytes).map_err(|e| LoadError::Parse {
        part: Part::Header,
        reason: e.to_string(),
    })?;
    if header.e_machine != EM_ADAPTEVA_EPIPHANY {
        return Err(LoadError::WrongMachine {
            machine: header.e_machine,
        });
    }
    if header.e_type != ET_EXEC {
        return Err(LoadError::NotExecutable {
            e_type: header.e_type,
        });
    }

    let phdrs = program_headers(bytes, header.e_phoff, header.e_phnum, header.e_phentsize)?;
    let segments = check_segments(bytes, &phdrs, target)?;
    let sections = section_headers(bytes, header.e_shoff, header.e_shnum, header.e_shentsize)?;
    let symbols = symbols(bytes, &sections)?;
    let config = config_sections(bytes, &sections, header.e_shstrndx)?;

    let mut out = Vec::with_capacity(segments.len());
    for s in &segments {
        let data = bytes
            .get(s.file_offset..s.file_offset + s.file_size)
            .ok_or_else(|| {
                truncated(
                    Part::Segment(s.index),
                    s.file_offset as u64,
                    s.file_size as u64,
                    bytes,
                )
            })?;
        out.push(Segment {
            index: s.index,
            vaddr: s.vaddr,
            region: s.region,
            flags: s.flags,
            data: data.to_vec(),
            zero_fill: s.mem_size - s.file_size as u32,
        });
    }
    Ok(LoadPlan::new(narrow(header.e_entry), out, symbols).with_config_sections(config))
}

/// Magic, class, byte order and machine, each checked as soon as the file
/// is long enough to hold it (so a cut-off foreign file is still called
/// foreign); then the length of the whole ELF32 header.
pub(crate) fn check_ident(bytes: &[u8]) -> Result<(), LoadError> {
    let magic_len = bytes.len().min(ELFMAG.len());
    if bytes[..magic_len] != ELFMAG[..magic_len] || bytes.is_empty() {
        return Err(LoadError::NotElf {
            found: bytes[..magic_len].to_vec(),
        });
    }
    if let Some(&class) = bytes.get(EI_CLASS) {
        if class != ELFCLASS32 {
            return Err(LoadError::NotElf32 { class });
        }
    }
    if let Some(&data) = bytes.get(EI_DATA) {
        if data != ELFDATA2LSB {
            return Err(LoadError::NotLittleEndian { data });
        }
    }
    // Report a foreign machine even when the rest of the header is cut off.
    if let Some(m) = bytes.get(E_MACHINE..E_MACHINE + 2) {
        let machine = u16::from_le_bytes([m[0], m[1]]);
        if machine != EM_ADAPTEVA_EPIPHANY {
            return Err(LoadError::WrongMachine { machine });
        }
    }
    if bytes.len() < EHDR_SIZE {
        return Err(truncated(Part::Header, 0, EHDR_SIZE as u64, bytes));
    }
    Ok(())
}

fn program_headers(
    bytes: &[u8],
    phoff: u64,
    phnum: u16,
    phentsize: u16,
) -> Result<Vec<ProgramHeader>, LoadError> {
    if phnum == 0 {
        return Err(LoadError::NoLoadableSegments);
    }
    if phentsize != PHDR_SIZE {
        return Err(LoadError::BadEntrySize {
            table: "program header",
            field: "e_phentsize",
            found: phentsize,
            expected: PHDR_SIZE,
        });
    }
    let len = u64::from(phnum) * u64::from(PHDR_SIZE);
    let start = in_file(Part::ProgramHeaders, phoff, len, bytes)?;
    ProgramHeader::parse(bytes, start, usize::from(phnum), CTX).map_err(|e| LoadError::Parse {
        part: Part::ProgramHeaders,
        reason: e.to_string(),
    })
}

fn check_segments(
    bytes: &[u8],
    phdrs: &[ProgramHeader],
    target: &Target,
) -> Result<Vec<Checked>, LoadError> {
    let mut segments = Vec::new();
    for (index, ph) in phdrs.iter().enumerate() {
        if ph.p_type != PT_LOAD || ph.p_memsz == 0 {
            continue;
        }
        let (vaddr, mem_size) = (narrow(ph.p_vaddr), narrow(ph.p_memsz));
        let file_size = narrow(ph.p_filesz);
        if file_size > mem_size {
            return Err(LoadError::FileSizeExceedsMemSize {
                index,
                file_size,
                mem_size,
            });
        }
        // A segment with no file bytes may point anywhere (often at the end
        // of the file); there is nothing to read.
        let file_offset = if file_size == 0 {
            0
        } else {
            in_file(
                Part::Segment(index),
                ph.p_offset,
                u64::from(file_size),
                bytes,
            )?
        };
        let region = target
            .place(vaddr, mem_size)
            .map_err(|reason| LoadError::OutsideMemory {
                index,
                start: vaddr,
                end: u64::from(vaddr) + u64::from(mem_size),
                reason,
            })?;
        segments.push(Checked {
            index,
            vaddr,
            mem_size,
            file_offset,
            file_size: file_size as usize,
            flags: Flags::from_bits(ph.p_flags),
            region,
        });
    }
    if segments.is_empty() {
        return Err(LoadError::NoLoadableSegments);
    }
    check_overlaps(&segments)?;
    Ok(segments)
}

/// Local segments are compared with local ones, global (on-chip and
/// external) with global ones. A local segment and an on-chip segment of
/// the core the program is later loaded on can still collide; only the
/// simulator, which knows the core, can check that.
fn check_overlaps(segments: &[Checked]) -> Result<(), LoadError> {
    let mut order: Vec<&Checked> = segments.iter().collect();
    let is_local = |s: &Checked| matches!(s.region, Region::Local { .. });
    order.sort_by_key(|s| (!is_local(s), s.vaddr, s.index));
    // Compare each segment with the one reaching furthest among those that
    // start before it in the same space: if any earlier one overlaps, that
    // one does.
    let mut reach: Option<&Checked> = None;
    for &s in &order {
        if let Some(r) = reach.filter(|r| is_local(r) == is_local(s)) {
            if u64::from(s.vaddr) < r.end() {
                let (a, b) = if r.index < s.index { (r, s) } else { (s, r) };
                return Err(LoadError::Overlap {
                    first: a.index,
                    first_start: a.vaddr,
                    first_end: a.end(),
                    second: b.index,
                    second_start: b.vaddr,
                    second_end: b.end(),
                });
            }
            if s.end() <= r.end() {
                continue;
            }
        }
        reach = Some(s);
    }
    Ok(())
}

/// The section headers, checked to lie in the file; none for a file
/// without them.
fn section_headers(
    bytes: &[u8],
    shoff: u64,
    shnum: u16,
    shentsize: u16,
) -> Result<Vec<SectionHeader>, LoadError> {
    // No section headers, or more than 0xff00 of them (the count would then
    // be in section 0's sh_size): a program without a symbol table either
    // way, as far as loading is concerned.
    if shoff == 0 || shnum == 0 {
        return Ok(Vec::new());
    }
    if shentsize != SHDR_SIZE {
        return Err(LoadError::BadEntrySize {
            table: "section header",
            field: "e_shentsize",
            found: shentsize,
            expected: SHDR_SIZE,
        });
    }
    let len = u64::from(shnum) * u64::from(SHDR_SIZE);
    let start = in_file(Part::SectionHeaders, shoff, len, bytes)?;
    SectionHeader::parse(bytes, start, usize::from(shnum), CTX).map_err(|e| LoadError::Parse {
        part: Part::SectionHeaders,
        reason: e.to_string(),
    })
}

/// The addresses of e-loader's configuration sections
/// ([`crate::CONFIG_SECTIONS`], the first section of each name, as
/// e-loader's `lookup_sections` takes), named through the section-name
/// table `e_shstrndx`. A file without section headers, or without a
/// section-name table (`SHN_UNDEF`), has none.
fn config_sections(
    bytes: &[u8],
    sections: &[SectionHeader],
    shstrndx: u16,
) -> Result<[Option<u32>; 3], LoadError> {
    let mut out = [None; 3];
    if sections.is_empty() || shstrndx == 0 {
        return Ok(out);
    }
    let index = usize::from(shstrndx);
    let Some(names) = sections.get(index) else {
        return Err(LoadError::BadSectionNames {
            reason: format!(
                "e_shstrndx {index} names no section (there are {})",
                sections.len()
            ),
        });
    };
    let start = in_file(Part::Section(index), names.sh_offset, names.sh_size, bytes)?;
    let names = &bytes[start..start + names.sh_size as usize];
    for s in sections {
        let Some(tail) = names.get(s.sh_name..) else {
            continue;
        };
        let name = tail.split(|&b| b == 0).next().unwrap_or_default();
        for (k, want) in crate::CONFIG_SECTIONS.iter().enumerate() {
            if out[k].is_none() && name == want.as_bytes() {
                out[k] = Some(narrow(s.sh_addr));
            }
        }
    }
    Ok(out)
}

fn symbols(bytes: &[u8], sections: &[SectionHeader]) -> Result<Vec<Symbol>, LoadError> {
    let Some((symtab_index, symtab)) = sections
        .iter()
        .enumerate()
        .find(|(_, s)| s.sh_type == SHT_SYMTAB)
    else {
        return Ok(Vec::new());
    };
    let bad = |reason: String| LoadError::BadSymbolTable {
        section: symtab_index,
        reason,
    };
    if symtab.sh_entsize != SYM_SIZE {
        return Err(bad(format!(
            "sh_entsize is {}, expected {SYM_SIZE}",
            symtab.sh_entsize
        )));
    }
    if symtab.sh_size % SYM_SIZE != 0 {
        return Err(bad(format!(
            "sh_size {:#x} is not a multiple of the entry size {SYM_SIZE}",
            symtab.sh_size
        )));
    }
    let sym_start = in_file(
        Part::Section(symtab_index),
        symtab.sh_offset,
        symtab.sh_size,
        bytes,
    )?;
    let strtab_index = symtab.sh_link as usize;
    let Some(strtab) = sections.get(strtab_index) else {
        return Err(bad(format!(
            "sh_link {strtab_index} names no section (there are {})",
            sections.len()
        )));
    };
    if strtab.sh_type != SHT_STRTAB {
        return Err(bad(format!(
            "sh_link {strtab_index} names a section of type {}, not a string table",
            strtab.sh_type
        )));
    }
    let str_start = in_file(
        Part::Section(strtab_index),
        strtab.sh_offset,
        strtab.sh_size,
        bytes,
    )?;
    let names = &bytes[str_start..str_start + strtab.sh_size as usize];

    let count = (symtab.sh_size / SYM_SIZE) as usize;
    let table = Symtab::parse(bytes, sym_start, count, CTX).map_err(|e| LoadError::Parse {
        part: Part::Section(symtab_index),
        reason: e.to_string(),
    })?;
    let mut out = Vec::new();
    for (i, sym) in table.iter().enumerate() {
        let typ = sym.st_type();
        // Section and file symbols, TLS and the like name no address.
        if !matches!(typ, STT_NOTYPE | STT_OBJECT | STT_FUNC) {
            continue;
        }
        let kind = match sym.st_shndx {
            SHN_UNDEF => continue,
            SHN_ABS => SymbolKind::Absolute,
            // SHN_COMMON and other reserved indices: not in executables.
            shndx if shndx >= SHN_LORESERVE => continue,
            shndx => {
                let Some(section) = sections.get(shndx) else {
                    return Err(bad(format!(
                        "symbol {i} is defined in section {shndx}, which does not exist"
                    )));
                };
                match typ {
                    STT_FUNC => SymbolKind::Func,
                    STT_OBJECT => SymbolKind::Object,
                    _ if section.sh_flags & SHF_EXECINSTR != 0 => SymbolKind::Func,
                    _ if section.sh_flags & SHF_ALLOC != 0 => SymbolKind::Object,
                    // Untyped labels in sections that are not loaded.
                    _ => continue,
                }
            }
        };
        let Some(tail) = names.get(sym.st_name..) else {
            return Err(bad(format!(
                "symbol {i} has name offset {:#x}, past the end of its {:#x}-byte string table",
                sym.st_name,
                names.len()
            )));
        };
        let name = tail.split(|&b| b == 0).next().unwrap_or_default();
        if name.is_empty() {
            continue;
        }
        let binding = match sym.st_bind() {
            STB_LOCAL => Binding::Local,
            STB_WEAK => Binding::Weak,
            // STB_GLOBAL, and GNU_UNIQUE and other global-like bindings.
            _ => Binding::Global,
        };
        out.push(Symbol {
            name: String::from_utf8_lossy(name).into_owned(),
            addr: narrow(sym.st_value),
            size: narrow(sym.st_size),
            kind,
            binding,
        });
    }
    Ok(out)
}

/// Checks that `len` bytes at file offset `start` lie inside the file and
/// returns `start` as an index.
fn in_file(part: Part, start: u64, len: u64, bytes: &[u8]) -> Result<usize, LoadError> {
    match start.checked_add(len) {
        Some(end) if end <= bytes.len() as u64 => Ok(start as usize),
        _ => Err(truncated(part, start, len, bytes)),
    }
}

fn truncated(part: Part, start: u64, len: u64, bytes: &[u8]) -> LoadError {
    LoadError::Truncated {
        part,
        start,
        end: start.saturating_add(len),
        file_len: bytes.len(),
    }
}

/// goblin widens ELF32 fields to 64 bits; they always fit back.
fn narrow(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
