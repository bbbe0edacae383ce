//! `epsim disasm`: the listing `epiphany-elf-objdump -d` (binutils 2.40)
//! prints, byte for byte.
//!
//! objdump works from the ELF's *sections*, not its segments, and needs no
//! memory map: [`objdump`] takes the file's bytes, whatever address the
//! program was linked for (a local one, a core's global one, the external
//! DRAM window, or the toolchain's default of `0x80000000`), and also
//! relocatable objects. The rules reproduced here, each as objdump applies
//! it:
//!
//! * **Which sections**: those with contents (`sh_type != SHT_NOBITS`) that
//!   hold code (`SHF_EXECINSTR`) and are not empty, in section-header
//!   order. The interrupt vector table and crt0's reserved area of the
//!   Epiphany linker scripts are data sections, so they are not listed.
//! * **Which symbols**: every symbol of the symbol table with a name, except
//!   section and file symbols and undefined and common ones. Absolute
//!   symbols and symbols of other sections count.
//! * **Their order** (within one address): symbols of the section being
//!   listed first; names containing `gnu_compiled`/`gcc2_compiled` last,
//!   then names ending `.o`/`.a`; then functions, then objects; global,
//!   then weak, then local; larger `st_size` first; names not starting with
//!   `.` first; then by name. The first in this order wins.
//! * **A label line** `\nADDRESS <name>:` starts each run of the section's
//!   own symbols (at each distinct address of one); before the first one
//!   (or with no symbol in the section at all) the label names the nearest
//!   symbol of the section, with a `-0x` offset when it lies ahead, or the
//!   section itself (`<.text+0x10>`).
//! * **A branch target** `b 40 <start>` names the last symbol at or before
//!   the target in the order above, of *any* section (an absolute symbol
//!   such as `__stack_min_used` can win), preferring among the symbols at
//!   that address one of the section being listed; with no symbol at or
//!   below the target, the lowest symbol, with a `-0x` offset. Targets are
//!   computed in 64 bits, as objdump does (a branch below address 0 lands
//!   above every symbol).
//! * **Zeroes**: 8 or more zero bytes (rounded down to a multiple of 4
//!   unless they run to the next label) and 1 or 2 zero bytes just before a
//!   label print as `\t...`.
//! * **Addresses** are in hex without `0x`, as wide as the section's end
//!   address needs in steps of 4 digits (leading zeroes dropped 4 at a
//!   time, one kept).
//! * **Instructions** are read up to the next label: a 32-bit one cut by a
//!   label, or by the section's end, is read as its first halfword alone.
//!   A word that decodes to nothing prints `*unknown*` and skips 4 bytes.
//! * **Objects in code**: from an `STT_OBJECT` symbol of the section up to
//!   the next label, bytes are dumped 16 a line with their characters.
//!
//! Files that objdump would list with complaints (a section past the end
//! of the file, a broken symbol table) are refused with an error naming
//! the part, rather than listed partially.

use std::cmp::Ordering;
use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use epsim_isa::disasm::UNKNOWN;
use epsim_isa::encoding::EncId;
use epsim_isa::op::Op;
use epsim_isa::{decode, insn_len};
use epsim_loader::{Binding, LoadPlan, SymbolKind, MAX_FILE_BYTES};

/// Why a file cannot be listed.
#[derive(Debug)]
pub enum DisasmError {
    /// Opening or reading the file failed.
    Read(io::Error),
    /// The file does not start with the ELF magic number.
    NotElf,
    /// Not ELF32 little-endian.
    NotElf32 {
        /// `EI_CLASS` (1 is ELF32).
        class: u8,
        /// `EI_DATA` (1 is little-endian).
        data: u8,
    },
    /// `e_machine` is not the Epiphany's.
    NotEpiphany(u16),
    /// A part of the file is malformed or lies past its end.
    Bad {
        /// The part, e.g. "section 3 (.text)".
        part: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file's headers name a part beyond [`MAX_FILE_BYTES`].
    TooLarge {
        /// The end the headers name.
        end: u64,
    },
}

impl fmt::Display for DisasmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisasmError::Read(e) => write!(f, "{e}"),
            DisasmError::NotElf => write!(f, "not an ELF file (no \\x7fELF magic number)"),
            DisasmError::NotElf32 { class, data } => write!(
                f,
                "not a 32-bit little-endian ELF (EI_CLASS {class}, EI_DATA {data}); \
                 Epiphany programs are ELF32 little-endian"
            ),
            DisasmError::NotEpiphany(m) => write!(
                f,
                "e_machine is {m:#x}, not the Epiphany's {:#x}",
                epsim_loader::EM_ADAPTEVA_EPIPHANY
            ),
            DisasmError::Bad { part, reason } => write!(f, "{part}: {reason}"),
            DisasmError::TooLarge { end } => write!(
                f,
                "the headers name bytes up to {end:#x}, past the {MAX_FILE_BYTES:#x} bytes \
                 epsim reads of a file"
            ),
        }
    }
}

impl std::error::Error for DisasmError {}

const EHDR_SIZE: usize = 52;
const SHDR_SIZE: usize = 40;
const SYM_SIZE: usize = 16;
const SHT_NULL: u32 = 0;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
const SHT_DYNSYM: u32 = 11;
const SHT_SYMTAB_SHNDX: u32 = 18;
const SHF_ALLOC: u32 = 2;
const SHF_EXECINSTR: u32 = 4;
const ET_REL: u16 = 1;
const SHN_UNDEF: u16 = 0;
const SHN_LORESERVE: u16 = 0xff00;
const SHN_ABS: u16 = 0xfff1;
const SHN_COMMON: u16 = 0xfff2;
const SHN_XINDEX: u16 = 0xffff;
/// objdump's `DEFAULT_SKIP_ZEROES` and `DEFAULT_SKIP_ZEROES_AT_END`.
const SKIP_ZEROES: u64 = 8;
const SKIP_ZEROES_AT_END: u64 = 3;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Reads the ELF at `path` as far as a listing needs: the ELF header
/// (checked at once, so a device or a pipe that is no ELF is refused after
/// 52 bytes), the section header table, and every section with contents;
/// never past [`MAX_FILE_BYTES`].
pub fn read_elf(path: &Path) -> Result<Vec<u8>, DisasmError> {
    let mut src = std::fs::File::open(path).map_err(DisasmError::Read)?;
    let mut bytes = Vec::new();
    fill(&mut src, &mut bytes, EHDR_SIZE as u64)?;
    check_ident(&bytes)?;
    let h = &bytes;
    let shoff = u64::from(u32_at(h, 32).unwrap_or(0));
    let shentsize = u64::from(u16_at(h, 46).unwrap_or(0));
    let shnum = u64::from(u16_at(h, 48).unwrap_or(0));
    if shoff == 0 || shentsize != SHDR_SIZE as u64 {
        return Ok(bytes);
    }
    // Section 0 first: with extended numbering it holds the count.
    fill(&mut src, &mut bytes, bounded(shoff + SHDR_SIZE as u64)?)?;
    let count = match shnum {
        0 => u64::from(u32_at(&bytes, shoff as usize + 20).unwrap_or(0)),
        n => n,
    };
    let table_end = shoff + count * SHDR_SIZE as u64;
    fill(&mut src, &mut bytes, bounded(table_end)?)?;
    let mut end = table_end;
    for i in 0..count {
        let at = (shoff + i * SHDR_SIZE as u64) as usize;
        let Some(s) = bytes.get(at..at + SHDR_SIZE) else {
            break;
        };
        let (typ, offset, size) = (u32_at(s, 4), u32_at(s, 16), u32_at(s, 20));
        if let (Some(typ), Some(offset), Some(size)) = (typ, offset, size) {
            if typ != SHT_NOBITS && typ != SHT_NULL {
                end = end.max(u64::from(offset) + u64::from(size));
            }
        }
    }
    fill(&mut src, &mut bytes, bounded(end)?)?;
    Ok(bytes)
}

fn bounded(end: u64) -> Result<u64, DisasmError> {
    if end > MAX_FILE_BYTES {
        return Err(DisasmError::TooLarge { end });
    }
    Ok(end)
}

fn fill(src: &mut impl Read, bytes: &mut Vec<u8>, upto: u64) -> Result<(), DisasmError> {
    let have = bytes.len() as u64;
    if upto > have {
        src.take(upto - have)
            .read_to_end(bytes)
            .map_err(DisasmError::Read)?;
    }
    Ok(())
}

fn check_ident(b: &[u8]) -> Result<(), DisasmError> {
    if b.len() < 4 || &b[..4] != b"\x7fELF" {
        return Err(DisasmError::NotElf);
    }
    let (class, data) = (
        b.get(4).copied().unwrap_or(0),
        b.get(5).copied().unwrap_or(0),
    );
    if class != 1 || data != 1 {
        return Err(DisasmError::NotElf32 { class, data });
    }
    if b.len() < EHDR_SIZE {
        return Err(DisasmError::Bad {
            part: "ELF header".into(),
            reason: format!(
                "the file has {} bytes, fewer than the 52 of the header",
                b.len()
            ),
        });
    }
    let machine = u16_at(b, 18).unwrap_or(0);
    if machine != epsim_loader::EM_ADAPTEVA_EPIPHANY {
        return Err(DisasmError::NotEpiphany(machine));
    }
    Ok(())
}

/// A section as objdump sees it.
#[derive(Debug, Clone)]
struct Section {
    index: usize,
    name: Vec<u8>,
    vma: u64,
    /// Bytes (`sh_size`), even for a section without contents.
    size: u64,
    /// Code with contents: listed.
    code: bool,
    data: Vec<u8>,
}

/// Where a symbol is defined: a section's index, or absolute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Section(usize),
    Absolute,
}

/// A symbol as objdump keeps it for labels.
#[derive(Debug, Clone)]
struct Sym {
    name: Vec<u8>,
    value: u64,
    place: Place,
    /// The name of its section (`*ABS*` for absolute ones).
    section_name: Vec<u8>,
    size: u64,
    function: bool,
    object: bool,
    local: bool,
    global: bool,
}

/// What a listing is made from.
#[derive(Debug, Clone, Default)]
struct Image {
    sections: Vec<Section>,
    symbols: Vec<Sym>,
    /// objdump's `HAS_RELOC`: the file has relocation sections.
    has_reloc: bool,
}

/// The text `epiphany-elf-objdump -d NAME` prints for the ELF file `elf`,
/// read from a file called `name` (as given on the command line).
pub fn objdump(name: &[u8], elf: &[u8]) -> Result<Vec<u8>, DisasmError> {
    let image = parse(elf)?;
    let mut out = Vec::new();
    out.extend_from_slice(b"\n");
    out.extend_from_slice(&sanitize(name));
    out.extend_from_slice(b":     file format elf32-epiphany\n\n");
    image.list(&mut out);
    Ok(out)
}

/// The listing of the executable segments of `plan`, each as a section
/// `.seg<N>` (N its program-header index), labelled by the plan's symbols
/// by objdump's rules (see the module). For plans made without a file;
/// `epsim disasm` lists the file's sections with [`objdump`].
pub fn listing(plan: &LoadPlan) -> String {
    let sections: Vec<Section> = plan
        .segments
        .iter()
        .filter(|s| s.flags.exec)
        .map(|s| Section {
            index: s.index + 1,
            name: format!(".seg{}", s.index).into_bytes(),
            vma: u64::from(s.vaddr),
            size: s.data.len() as u64,
            code: true,
            data: s.data.clone(),
        })
        .collect();
    let symbols = plan
        .symbols()
        .iter()
        .map(|s| {
            let place = match s.kind {
                SymbolKind::Absolute => Place::Absolute,
                _ => sections
                    .iter()
                    .find(|sec| (u64::from(s.addr)).wrapping_sub(sec.vma) < sec.size)
                    .map_or(Place::Absolute, |sec| Place::Section(sec.index)),
            };
            let section_name = match place {
                Place::Section(i) => sections
                    .iter()
                    .find(|sec| sec.index == i)
                    .map(|sec| sec.name.clone())
                    .unwrap_or_default(),
                Place::Absolute => b"*ABS*".to_vec(),
            };
            Sym {
                name: s.name.clone().into_bytes(),
                value: u64::from(s.addr),
                place,
                section_name,
                size: u64::from(s.size),
                function: s.kind == SymbolKind::Func,
                object: s.kind == SymbolKind::Object,
                local: s.binding == Binding::Local,
                global: s.binding == Binding::Global,
            }
        })
        .collect();
    let image = Image {
        sections,
        symbols,
        has_reloc: false,
    };
    let mut out = Vec::new();
    image.list(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// objdump's `sanitize_string`: control characters as `^X`.
fn sanitize(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c < 0x20 || c == 0x7f {
            out.push(b'^');
            out.push(c.wrapping_add(0x40));
        } else {
            out.push(c);
        }
    }
    out
}

struct Shdr {
    name: u32,
    typ: u32,
    flags: u32,
    addr: u32,
    offset: u32,
    size: u32,
    link: u32,
    info: u32,
    entsize: u32,
}

fn bad(part: impl Into<String>, reason: impl Into<String>) -> DisasmError {
    DisasmError::Bad {
        part: part.into(),
        reason: reason.into(),
    }
}

/// The NUL-terminated string at `off` of a string table.
fn string_at(table: &[u8], off: u32) -> Option<&[u8]> {
    let tail = table.get(off as usize..)?;
    Some(tail.split(|&b| b == 0).next().unwrap_or_default())
}

fn file_part(
    elf: &[u8],
    offset: u32,
    size: u32,
    part: impl Fn() -> String,
) -> Result<&[u8], DisasmError> {
    let start = offset as usize;
    let end = start + size as usize;
    elf.get(start..end).ok_or_else(|| {
        bad(
            part(),
            format!(
                "bytes {start:#x}..{end:#x} lie past the end of the {:#x}-byte file",
                elf.len()
            ),
        )
    })
}

fn parse(elf: &[u8]) -> Result<Image, DisasmError> {
    check_ident(elf)?;
    let e_type = u16_at(elf, 16).unwrap_or(0);
    let shoff = u32_at(elf, 32).unwrap_or(0);
    let shentsize = u16_at(elf, 46).unwrap_or(0);
    let mut shnum = u32::from(u16_at(elf, 48).unwrap_or(0));
    let mut shstrndx = u32::from(u16_at(elf, 50).unwrap_or(0));
    if shoff == 0 {
        return Ok(Image::default());
    }
    if usize::from(shentsize) != SHDR_SIZE {
        return Err(bad(
            "ELF header",
            format!("e_shentsize is {shentsize}, not the ELF32 section header size {SHDR_SIZE}"),
        ));
    }
    let header = |i: u32| -> Result<Shdr, DisasmError> {
        let at = shoff as usize + i as usize * SHDR_SIZE;
        let s = elf.get(at..at + SHDR_SIZE).ok_or_else(|| {
            bad(
                format!("section header {i}"),
                format!(
                    "bytes {at:#x}..{:#x} lie past the end of the {:#x}-byte file",
                    at + SHDR_SIZE,
                    elf.len()
                ),
            )
        })?;
        let w = |o: usize| u32_at(s, o).unwrap_or(0);
        Ok(Shdr {
            name: w(0),
            typ: w(4),
            flags: w(8),
            addr: w(12),
            offset: w(16),
            size: w(20),
            link: w(24),
            info: w(28),
            entsize: w(36),
        })
    };
    let first = header(0)?;
    if shnum == 0 {
        shnum = first.size;
    }
    if shstrndx == u32::from(SHN_XINDEX) {
        shstrndx = first.link;
    }
    let table_end = u64::from(shoff) + u64::from(shnum) * SHDR_SIZE as u64;
    if table_end > elf.len() as u64 {
        return Err(bad(
            "section header table",
            format!(
                "{shnum} headers at {shoff:#x} end at {table_end:#x}, past the end of the \
                 {:#x}-byte file",
                elf.len()
            ),
        ));
    }
    let headers = (0..shnum).map(header).collect::<Result<Vec<_>, _>>()?;
    let names: &[u8] = match headers.get(shstrndx as usize) {
        Some(h) if shstrndx != 0 && h.typ != SHT_NOBITS => {
            file_part(elf, h.offset, h.size, || {
                format!("section {shstrndx} (the section names)")
            })?
        }
        _ => &[],
    };
    let name_of = |h: &Shdr| string_at(names, h.name).unwrap_or_default().to_vec();
    let symtab = headers.iter().position(|h| h.typ == SHT_SYMTAB);
    let dynsym = headers.iter().position(|h| h.typ == SHT_DYNSYM);

    // Which headers are sections for objdump: not the symbol and string
    // tables it reads itself, nor relocations that apply to a section.
    let mut has_reloc = false;
    let mut is_section = vec![true; headers.len()];
    for (i, h) in headers.iter().enumerate() {
        let strtab_of = |t: Option<usize>| t.is_some_and(|t| headers[t].link as usize == i);
        let reloc_of_section = (h.typ == SHT_REL || h.typ == SHT_RELA)
            && symtab.is_some_and(|t| h.link as usize == t)
            && h.info != 0
            && (h.info as usize) < headers.len()
            && !matches!(headers[h.info as usize].typ, SHT_REL | SHT_RELA)
            && h.flags & SHF_ALLOC == 0;
        has_reloc |= reloc_of_section;
        is_section[i] = i != 0
            && !matches!(h.typ, SHT_NULL | SHT_SYMTAB | SHT_DYNSYM | SHT_SYMTAB_SHNDX)
            && !(h.typ == SHT_STRTAB
                && (i == shstrndx as usize || strtab_of(symtab) || strtab_of(dynsym)))
            && !reloc_of_section;
    }
    let mut sections = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        if !is_section[i] {
            continue;
        }
        let name = name_of(h);
        let code = h.typ != SHT_NOBITS && h.flags & SHF_EXECINSTR != 0 && h.size != 0;
        let data = if code {
            file_part(elf, h.offset, h.size, || {
                format!("section {i} ({})", String::from_utf8_lossy(&name))
            })?
            .to_vec()
        } else {
            Vec::new()
        };
        sections.push(Section {
            index: i,
            name,
            vma: u64::from(h.addr),
            size: u64::from(h.size),
            code,
            data,
        });
    }

    let mut symbols = Vec::new();
    if let Some(t) = symtab {
        let h = &headers[t];
        let part = || format!("section {t} (the symbol table)");
        if h.entsize as usize != SYM_SIZE {
            return Err(bad(
                part(),
                format!("sh_entsize is {}, not {SYM_SIZE}", h.entsize),
            ));
        }
        let table = file_part(elf, h.offset, h.size, part)?;
        let strings: &[u8] = match headers.get(h.link as usize) {
            Some(s) if h.link != 0 && s.typ != SHT_NOBITS => {
                file_part(elf, s.offset, s.size, || {
                    format!("section {} (the symbol names)", h.link)
                })?
            }
            _ => &[],
        };
        for (i, entry) in table.chunks_exact(SYM_SIZE).enumerate().skip(1) {
            let w = |o: usize| u32_at(entry, o).unwrap_or(0);
            let (st_name, st_value, st_size) = (w(0), w(4), w(8));
            let info = entry[12];
            let shndx = u16_at(entry, 14).unwrap_or(0);
            let (bind, typ) = (info >> 4, info & 0xf);
            // Section (3) and file (4) symbols are debugging symbols.
            if typ == 3 || typ == 4 || shndx == SHN_UNDEF || shndx == SHN_COMMON {
                continue;
            }
            let Some(name) = string_at(strings, st_name) else {
                return Err(bad(
                    part(),
                    format!(
                        "symbol {i} has name offset {st_name:#x}, past the end of its \
                         {:#x}-byte string table",
                        strings.len()
                    ),
                ));
            };
            if name.is_empty() {
                continue;
            }
            let section = (shndx != SHN_ABS && shndx < SHN_LORESERVE)
                .then_some(shndx as usize)
                .filter(|&s| s < headers.len() && is_section[s]);
            let (place, section_name, base) = match section {
                Some(s) => (
                    Place::Section(s),
                    name_of(&headers[s]),
                    // In an object file values are offsets into the section.
                    if e_type == ET_REL {
                        u64::from(headers[s].addr)
                    } else {
                        0
                    },
                ),
                None => (Place::Absolute, b"*ABS*".to_vec(), 0),
            };
            symbols.push(Sym {
                name: name.to_vec(),
                value: base + u64::from(st_value),
                place,
                section_name,
                size: u64::from(st_size),
                function: typ == 2,
                object: typ == 1 || typ == 5,
                local: bind == 0,
                global: bind == 1,
            });
        }
    }
    Ok(Image {
        sections,
        symbols,
        has_reloc,
    })
}

/// objdump's `compare_symbols` while `current` is being listed.
fn compare(a: &Sym, b: &Sym, current: &[u8]) -> Ordering {
    let later = |x: bool, y: bool| x.cmp(&y);
    let earlier = |x: bool, y: bool| y.cmp(&x);
    let contains = |s: &[u8], pat: &[u8]| s.windows(pat.len()).any(|w| w == pat);
    let compiled =
        |s: &Sym| contains(&s.name, b"gnu_compiled") || contains(&s.name, b"gcc2_compiled");
    let file = |s: &Sym| {
        let n = &s.name;
        n.len() > 2 && n[n.len() - 2] == b'.' && matches!(n[n.len() - 1], b'o' | b'a')
    };
    let dot = |s: &Sym| s.name.first() == Some(&b'.');
    a.value
        .cmp(&b.value)
        .then_with(|| earlier(a.section_name == current, b.section_name == current))
        .then_with(|| later(compiled(a), compiled(b)))
        .then_with(|| later(file(a), file(b)))
        .then_with(|| earlier(a.function, b.function))
        .then_with(|| earlier(a.object, b.object))
        .then_with(|| later(a.local, b.local))
        .then_with(|| earlier(a.global, b.global))
        .then_with(|| b.size.cmp(&a.size))
        .then_with(|| later(dot(a), dot(b)))
        .then_with(|| a.name.cmp(&b.name))
}

/// `value` as objdump prints an address of a 32-bit file: 8 hex digits,
/// or without leading zeroes (one kept).
fn hex(out: &mut Vec<u8>, value: u64, skip_zeroes: bool) {
    let digits = format!("{:08x}", value & 0xffff_ffff);
    let s = if skip_zeroes {
        let t = digits.trim_start_matches('0');
        if t.is_empty() {
            "0"
        } else {
            t
        }
    } else {
        &digits
    };
    out.extend_from_slice(s.as_bytes());
}

/// One section's listing state.
struct Lister<'a> {
    sec: &'a Section,
    /// The symbols, sorted for this section.
    syms: Vec<&'a Sym>,
    has_reloc: bool,
    /// Characters of an 8-digit address left out (see `skip_addr_chars`).
    skip_addr_chars: usize,
}

impl Image {
    fn list(&self, out: &mut Vec<u8>) {
        // objdump's `bytes_per_chunk` outlives the instruction that set it.
        let mut chunk = 1;
        for sec in self.sections.iter().filter(|s| s.code) {
            let mut syms: Vec<&Sym> = self.symbols.iter().collect();
            syms.sort_by(|a, b| compare(a, b, &sec.name));
            let l = Lister {
                sec,
                syms,
                has_reloc: self.has_reloc,
                skip_addr_chars: skip_addr_chars(sec),
            };
            out.extend_from_slice(b"\nDisassembly of section ");
            out.extend_from_slice(&sanitize(&sec.name));
            out.extend_from_slice(b":\n");
            l.section(out, &mut chunk);
        }
    }
}

/// objdump's `skip_addr_chars`: leading zeroes of the section's end
/// address, dropped 4 at a time with one kept.
fn skip_addr_chars(sec: &Section) -> usize {
    let end = format!("{:08x}", sec.vma.wrapping_add(sec.size) & 0xffff_ffff);
    let mut skip = end.bytes().take_while(|&c| c == b'0').count();
    if skip == end.len() && sec.vma != 0 {
        skip = 0;
    }
    if skip != 0 {
        skip = (skip - 1) & !3;
    }
    skip
}

impl Lister<'_> {
    fn value(&self, i: usize) -> u64 {
        self.syms[i].value
    }

    fn sym_ok(&self, want_section: bool, i: usize) -> bool {
        !want_section || self.syms[i].place == Place::Section(self.sec.index)
    }

    /// objdump's `find_symbol_for_address`: the index of the symbol to
    /// name `vma` by.
    fn find(&self, vma: u64, require_sec: bool) -> Option<usize> {
        let n = self.syms.len();
        if n == 0 {
            return None;
        }
        let (mut min, mut max) = (0usize, n);
        while min + 1 < max {
            let mid = (max + min) / 2;
            match self.value(mid).cmp(&vma) {
                Ordering::Greater => max = mid,
                Ordering::Less => min = mid,
                Ordering::Equal => {
                    min = mid;
                    break;
                }
            }
        }
        let mut place = min;
        while place > 0 && self.value(place) == self.value(place - 1) {
            place -= 1;
        }
        // Prefer a symbol of this section among those at that value.
        let mut i = place;
        while i < max && self.value(i) == self.value(place) {
            if self.sym_ok(true, i) {
                return Some(i);
            }
            i += 1;
        }
        let min = i;
        let want_section = require_sec
            || (self.has_reloc
                && vma >= self.sec.vma
                && vma < self.sec.vma.wrapping_add(self.sec.size));
        if !self.sym_ok(want_section, place) {
            let mut newplace = None;
            for j in (0..min).rev() {
                if self.sym_ok(want_section, j) {
                    match newplace {
                        None => newplace = Some(j),
                        Some(p) if self.value(j) != self.value(p) => break,
                        Some(_) => newplace = Some(j),
                    }
                }
            }
            match newplace {
                Some(p) => place = p,
                None => {
                    if let Some(j) = (place + 1..n).find(|&j| self.sym_ok(want_section, j)) {
                        place = j;
                    }
                }
            }
            if !self.sym_ok(want_section, place) {
                return None;
            }
        }
        Some(place)
    }

    /// objdump's `objdump_print_addr_with_sym`.
    fn addr_with_sym(&self, out: &mut Vec<u8>, sym: Option<usize>, vma: u64, skip_zeroes: bool) {
        hex(out, vma, skip_zeroes);
        out.extend_from_slice(b" <");
        let (name, base) = match sym {
            Some(i) => (&self.syms[i].name, self.value(i)),
            None => (&self.sec.name, self.sec.vma),
        };
        out.extend_from_slice(&sanitize(name));
        match base.cmp(&vma) {
            Ordering::Equal => {}
            Ordering::Greater => {
                out.extend_from_slice(b"-0x");
                hex(out, base - vma, true);
            }
            Ordering::Less => {
                out.extend_from_slice(b"+0x");
                hex(out, vma - base, true);
            }
        }
        out.push(b'>');
    }

    /// objdump's `disassemble_section` after its heading.
    fn section(&self, out: &mut Vec<u8>, chunk: &mut usize) {
        let vma = self.sec.vma;
        let stop = self.sec.size;
        let mut sym = self.find(vma, true);
        let mut place = sym.unwrap_or(0);
        let mut offset = 0u64;
        while offset < stop {
            let addr = vma.wrapping_add(offset);
            out.push(b'\n');
            self.addr_with_sym(out, sym, addr, false);
            out.extend_from_slice(b":\n");
            let next = match sym {
                Some(s) if self.value(s) > addr => Some(s),
                None => None,
                Some(s) => {
                    let from = self.value(s);
                    while place < self.syms.len()
                        && !(self.syms[place].section_name == self.sec.name
                            && self.value(place) > from)
                    {
                        place += 1;
                    }
                    (place < self.syms.len()).then_some(place)
                }
            };
            let mut next_stop = match (sym, next) {
                (Some(s), _) if self.value(s) > addr => self.value(s).wrapping_sub(vma),
                (_, None) => stop,
                (_, Some(n)) => self.value(n).wrapping_sub(vma),
            };
            if next_stop > stop || next_stop <= offset {
                next_stop = stop;
            }
            let insns = match sym {
                None => true,
                Some(s) => {
                    let s2 = self.syms[s];
                    s2.place != Place::Section(self.sec.index)
                        || s2.value > addr
                        || (!s2.object
                            && !contains(&s2.name, b"gnu_compiled")
                            && !contains(&s2.name, b"gcc2_compiled"))
                        || s2.function
                }
            };
            self.bytes(out, insns, offset, next_stop, chunk);
            offset = next_stop;
            sym = next;
        }
    }

    /// The address column of the line for `offset`.
    fn address(&self, out: &mut Vec<u8>, offset: u64) {
        let mut digits = format!("{:08x}", self.sec.vma.wrapping_add(offset) & 0xffff_ffff)
            .into_bytes()
            .split_off(self.skip_addr_chars);
        let zeroes = digits.iter().take_while(|&&c| c == b'0').count();
        digits[..zeroes].fill(b' ');
        if zeroes == digits.len() {
            if let Some(last) = digits.last_mut() {
                *last = b'0';
            }
        }
        out.extend_from_slice(&digits);
        out.extend_from_slice(b":\t");
    }

    /// objdump's `disassemble_bytes` from `start` to `stop` (offsets).
    fn bytes(&self, out: &mut Vec<u8>, insns: bool, start: u64, stop: u64, chunk: &mut usize) {
        let data = &self.sec.data;
        let byte = |o: u64| data.get(o as usize).copied().unwrap_or(0);
        let mut offset = start;
        while offset < stop {
            let zeroes = (offset..stop).take_while(|&o| byte(o) == 0).count() as u64;
            let to_end = offset + zeroes == stop;
            if zeroes >= SKIP_ZEROES || (to_end && zeroes < SKIP_ZEROES_AT_END) {
                out.extend_from_slice(b"\t...\n");
                offset += if to_end { zeroes } else { zeroes & !3 };
                continue;
            }
            self.address(out, offset);
            let (octets, per_line, text) = if insns {
                match self.insn(offset, stop) {
                    Some((len, text)) => {
                        *chunk = 2;
                        (len, 4, text)
                    }
                    None => {
                        // Fewer bytes than a halfword before the label.
                        let at = self.sec.vma.wrapping_add(offset);
                        out.extend_from_slice(
                            format!("Address 0x{at:x} is out of bounds.\n\n").as_bytes(),
                        );
                        return;
                    }
                }
            } else {
                let n = 16.min(stop - offset);
                let text = (offset..offset + n)
                    .map(|o| match byte(o) {
                        c @ 0x20..=0x7e => c,
                        _ => b'.',
                    })
                    .collect();
                (n, 16, text)
            };
            let bpc = if insns { 2 } else { *chunk as u64 };
            let shown = octets.min(per_line);
            let mut j = 0;
            while j < shown {
                if offset + j + bpc <= stop {
                    for k in (0..bpc).rev() {
                        out.extend_from_slice(format!("{:02x}", byte(offset + j + k)).as_bytes());
                    }
                }
                out.push(b' ');
                j += bpc;
            }
            while j < per_line {
                out.extend(std::iter::repeat_n(b' ', 2 * bpc as usize));
                out.push(b' ');
                j += bpc;
            }
            out.extend_from_slice(if insns { b"\t" } else { b"    " });
            out.extend_from_slice(&text);
            out.push(b'\n');
            offset += octets;
        }
    }

    /// The instruction at `offset`, read no further than `stop`: its
    /// length in bytes and its text, or `None` if not even a halfword is
    /// there.
    fn insn(&self, offset: u64, stop: u64) -> Option<(u64, Vec<u8>)> {
        let data = &self.sec.data;
        let half = |o: u64| -> Option<u32> {
            if o + 2 > stop {
                return None;
            }
            let i = o as usize;
            Some(u32::from(u16::from_le_bytes([
                *data.get(i)?,
                *data.get(i + 1)?,
            ])))
        };
        let h0 = half(offset)?;
        let pc = self.sec.vma.wrapping_add(offset);
        let word = match half(offset + 2) {
            Some(h1) => h0 | h1 << 16,
            // The first halfword of a 32-bit instruction, cut off.
            None if insn_len(h0 as u16) == 4 => return Some((4, UNKNOWN.as_bytes().to_vec())),
            None => h0,
        };
        let d = decode(word);
        let len = if d.enc == EncId::NoRow {
            4
        } else {
            u64::from(d.len)
        };
        let mut text = d.disasm(pc as u32, word).into_bytes();
        if let Op::Bcond { disp, .. } = d.op {
            let target = pc.wrapping_add(i64::from(disp) as u64);
            let plain = format!("0x{:x}", target & 0xffff_ffff);
            if !self.syms.is_empty() && text.ends_with(plain.as_bytes()) {
                text.truncate(text.len() - plain.len());
                let sym = self.find(target, false);
                self.addr_with_sym(&mut text, sym, target, true);
            }
        }
        Some((len, text))
    }
}

fn contains(s: &[u8], pat: &[u8]) -> bool {
    s.windows(pat.len()).any(|w| w == pat)
}
