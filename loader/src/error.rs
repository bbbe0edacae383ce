//! Why a file cannot be loaded.
//!
//! Every message is one line that names the cause with the values that
//! matter (offsets, addresses, header fields). [`load_file`](crate::load_file)
//! wraps the cause in [`LoadError::File`], whose message starts with the
//! path. The cause is part of the message, so it is deliberately not also
//! exposed as [`std::error::Error::source`] (reporters would print it twice);
//! use [`LoadError::cause`] to match on it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::target::Unmapped;

/// A file that cannot be turned into a [`LoadPlan`](crate::LoadPlan).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// `error` happened while loading the file at `path`.
    #[error("{}: {error}", path.display())]
    File {
        /// The file as given to [`load_file`](crate::load_file).
        path: PathBuf,
        /// What is wrong with it (never another `File`).
        error: Box<LoadError>,
    },
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Read(std::io::Error),
    /// The first bytes are not the ELF magic `7f 45 4c 46`.
    #[error("not an ELF file: {}", Magic(found))]
    NotElf {
        /// The first (up to four) bytes of the file.
        found: Vec<u8>,
    },
    /// `EI_CLASS` is not `ELFCLASS32`.
    #[error("not a 32-bit ELF file: EI_CLASS is {class} ({}); Epiphany programs are ELF32", class_name(*class))]
    NotElf32 {
        /// `e_ident[EI_CLASS]`.
        class: u8,
    },
    /// `EI_DATA` is not `ELFDATA2LSB`.
    #[error("not a little-endian ELF file: EI_DATA is {data} ({}); Epiphany programs are little-endian", data_name(*data))]
    NotLittleEndian {
        /// `e_ident[EI_DATA]`.
        data: u8,
    },
    /// `e_machine` is not `EM_ADAPTEVA_EPIPHANY` (0x1223).
    #[error(
        "not an Epiphany program: e_machine is {machine:#x} ({}), expected 0x1223 (Adapteva Epiphany)",
        machine_name(*machine)
    )]
    WrongMachine {
        /// `e_machine`.
        machine: u16,
    },
    /// `e_type` is not `ET_EXEC` (e-hal loads only executables).
    #[error(
        "not an executable: e_type is {e_type} ({}), expected 2 (ET_EXEC); link the program first",
        type_name(*e_type)
    )]
    NotExecutable {
        /// `e_type`.
        e_type: u16,
    },
    /// A header, table or segment extends past the end of the file.
    #[error("truncated: {part} occupies file bytes {start:#x}..{end:#x} but the file is only {file_len:#x} bytes long")]
    Truncated {
        /// What is cut off.
        part: Part,
        /// Its first file offset.
        start: u64,
        /// One past its last file offset.
        end: u64,
        /// The file's length.
        file_len: usize,
    },
    /// A table's entry size is not the ELF32 one.
    #[error("bad {table} entry size: {field} is {found}, expected {expected}")]
    BadEntrySize {
        /// "program header" or "section header".
        table: &'static str,
        /// The ELF header field holding the size.
        field: &'static str,
        /// Its value.
        found: u16,
        /// The ELF32 size.
        expected: u16,
    },
    /// A segment has more file bytes than memory bytes.
    #[error("segment {index} has p_filesz {file_size:#x} larger than p_memsz {mem_size:#x}")]
    FileSizeExceedsMemSize {
        /// Program header index.
        index: usize,
        /// `p_filesz`.
        file_size: u32,
        /// `p_memsz`.
        mem_size: u32,
    },
    /// A segment's address range is not inside one loadable memory.
    #[error("segment {index} at {start:#010x}..{end:#010x} is outside any memory: {reason}")]
    OutsideMemory {
        /// Program header index.
        index: usize,
        /// `p_vaddr`.
        start: u32,
        /// `p_vaddr + p_memsz`.
        end: u64,
        /// Why it does not fit.
        reason: Unmapped,
    },
    /// Two segments would be loaded into the same bytes.
    #[error("segment {second} at {second_start:#010x}..{second_end:#010x} overlaps segment {first} at {first_start:#010x}..{first_end:#010x}")]
    Overlap {
        /// Program header index of the earlier segment.
        first: usize,
        /// Its `p_vaddr`.
        first_start: u32,
        /// Its `p_vaddr + p_memsz`.
        first_end: u64,
        /// Program header index of the later segment.
        second: usize,
        /// Its `p_vaddr`.
        second_start: u32,
        /// Its `p_vaddr + p_memsz`.
        second_end: u64,
    },
    /// The headers place the data the loader needs past
    /// [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES); nothing past the header
    /// tables was read.
    #[error("its headers place data up to file offset {end:#x}, past the {} MiB any Epiphany program needs; not read", limit >> 20)]
    TooLarge {
        /// One past the last file offset the headers name.
        end: u64,
        /// The limit, [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES).
        limit: u64,
    },
    /// Nothing to load.
    #[error("no loadable segments: no PT_LOAD program header has p_memsz > 0")]
    NoLoadableSegments,
    /// The symbol table or its string table is inconsistent.
    #[error("bad symbol table (section {section}): {reason}")]
    BadSymbolTable {
        /// Section index of the symbol table.
        section: usize,
        /// What is wrong, with the values.
        reason: String,
    },
    /// One of e-loader's configuration sections is where its words cannot
    /// be written ([`LoadPlan::config_places`](crate::LoadPlan::config_places)).
    #[error("section {section} at {addr:#x} ({size} bytes) cannot hold e-loader's configuration words: {reason}")]
    ConfigSection {
        /// The section's name.
        section: &'static str,
        /// Its address.
        addr: u32,
        /// The object's size in bytes.
        size: u32,
        /// Why the words cannot go there.
        reason: String,
    },
    /// The section-name table cannot be used.
    #[error("bad section-name table: {reason}")]
    BadSectionNames {
        /// What is wrong, with the values.
        reason: String,
    },
    /// goblin rejected a part that had already passed our range checks.
    #[error("cannot parse {part}: {reason}")]
    Parse {
        /// The part being parsed.
        part: Part,
        /// goblin's message.
        reason: String,
    },
}

impl LoadError {
    /// The cause, without the [`LoadError::File`] wrapper.
    pub fn cause(&self) -> &LoadError {
        match self {
            LoadError::File { error, .. } => error.cause(),
            other => other,
        }
    }

    /// The file the error is about, if it came from
    /// [`load_file`](crate::load_file).
    pub fn path(&self) -> Option<&Path> {
        match self {
            LoadError::File { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// A part of an ELF file, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The 52-byte ELF32 header.
    Header,
    /// The program header table.
    ProgramHeaders,
    /// The file bytes of the segment with this program header index.
    Segment(usize),
    /// The section header table.
    SectionHeaders,
    /// The section with this index.
    Section(usize),
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Header => f.write_str("the ELF header"),
            Part::ProgramHeaders => f.write_str("the program header table"),
            Part::Segment(i) => write!(f, "segment {i}"),
            Part::SectionHeaders => f.write_str("the section header table"),
            Part::Section(i) => write!(f, "section {i}"),
        }
    }
}

/// Formats the bytes found where the ELF magic should be.
struct Magic<'a>(&'a [u8]);

impl fmt::Display for Magic<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("the file is empty");
        }
        f.write_str("it starts with")?;
        for b in self.0 {
            write!(f, " {b:02x}")?;
        }
        f.write_str(", not the ELF magic 7f 45 4c 46")
    }
}

fn class_name(class: u8) -> &'static str {
    match class {
        1 => "ELF32",
        2 => "ELF64",
        _ => "invalid",
    }
}

fn data_name(data: u8) -> &'static str {
    match data {
        1 => "little-endian",
        2 => "big-endian",
        _ => "invalid",
    }
}

fn type_name(e_type: u16) -> &'static str {
    match e_type {
        0 => "ET_NONE, no file type",
        1 => "ET_REL, relocatable object",
        2 => "ET_EXEC, executable",
        3 => "ET_DYN, shared object",
        4 => "ET_CORE, core dump",
        _ => "unknown",
    }
}

fn machine_name(machine: u16) -> String {
    match machine {
        0x1223 => "Adapteva Epiphany".into(),
        0 => "none".into(),
        _ => match goblin::elf::header::machine_to_str(machine) {
            "EM_UNKNOWN" => "unknown".into(),
            name => format!("EM_{name}"),
        },
    }
}
