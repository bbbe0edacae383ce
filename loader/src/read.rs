//! Reading an ELF file from disk without reading more than it can hold.
//!
//! A path may name something that never ends (`/dev/zero`, a pipe) or a
//! huge file that only starts like an ELF. So the file is read in three
//! bounded steps, each looking at what the previous one read:
//! 1. the 52-byte ELF header, checked at once (a foreign file is refused
//!    after at most 52 bytes);
//! 2. up to the end of the program and section header tables it names;
//! 3. up to the end of the furthest part the loader uses: the `PT_LOAD`
//!    segments' file bytes, the symbol table and its string table, the
//!    section-name table.
//!
//! Nothing past that end is read, and no end past [`MAX_FILE_BYTES`] is
//! accepted. A file shorter than its headers say is read to its end, and
//! [`crate::plan`] then reports what is cut off, with the real length.

use std::io::Read;
use std::path::Path;

use crate::elf::{check_ident, EHDR_SIZE};
use crate::error::LoadError;

/// The most bytes of a file the loader reads: far more than any Epiphany
/// program holds (the memories of a 64x64 chip of 32 KB cores and 32 MB of
/// DRAM total 160 MB), so that a header with absurd offsets cannot make the
/// loader read gigabytes.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

const PT_LOAD: u64 = 1;
const SHT_SYMTAB: u64 = 2;
const PHDR_SIZE: u64 = 32;
const SHDR_SIZE: u64 = 40;

fn u16_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 2)
        .map_or(0, |s| u64::from(u16::from_le_bytes([s[0], s[1]])))
}

fn u32_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 4).map_or(0, |s| {
        u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    })
}

/// Reads the file at `path` as far as an ELF needs (see the module).
pub fn read_elf(path: &Path) -> Result<Vec<u8>, LoadError> {
    let mut src = std::fs::File::open(path).map_err(LoadError::Read)?;
    // A regular file ends where its length says (reading stops there
    // anyway, and `plan` reports what is cut off); anything else is taken
    // at its headers' word, within the limit.
    let len = src
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map_or(u64::MAX, |m| m.len());
    let bounded = |end: u64| bounded(end.min(len));
    let mut bytes = Vec::new();
    fill(&mut src, &mut bytes, EHDR_SIZE as u64)?;
    check_ident(&bytes)?;

    // Step 2: the header tables (each only if its entry size is the ELF32
    // one; otherwise `plan` reports the bad size without reading it).
    let h = &bytes;
    let (phoff, phentsize, phnum) = (u32_at(h, 28), u16_at(h, 42), u16_at(h, 44));
    let (shoff, shentsize, shnum) = (u32_at(h, 32), u16_at(h, 46), u16_at(h, 48));
    let shstrndx = u16_at(h, 50);
    let ph = (phentsize == PHDR_SIZE && phnum > 0).then_some((phoff, phnum * PHDR_SIZE));
    let sh =
        (shentsize == SHDR_SIZE && shoff != 0 && shnum > 0).then_some((shoff, shnum * SHDR_SIZE));
    let tables_end = [ph, sh]
        .iter()
        .flatten()
        .map(|&(off, len)| off + len)
        .max()
        .unwrap_or(0);
    fill(&mut src, &mut bytes, bounded(tables_end)?)?;

    // Step 3: what the tables point at.
    let mut end = tables_end;
    if let Some((off, len)) = ph {
        for i in (0..len).step_by(PHDR_SIZE as usize) {
            let at = (off + i) as usize;
            let Some(p) = bytes.get(at..at + PHDR_SIZE as usize) else {
                break;
            };
            let (typ, offset, filesz, memsz) =
                (u32_at(p, 0), u32_at(p, 4), u32_at(p, 16), u32_at(p, 20));
            if typ == PT_LOAD && memsz != 0 && filesz != 0 && filesz <= memsz {
                end = end.max(offset + filesz);
            }
        }
    }
    if let Some((off, len)) = sh {
        let section = |i: u64| -> Option<&[u8]> {
            let at = (off + i * SHDR_SIZE) as usize;
            bytes.get(at..at + SHDR_SIZE as usize)
        };
        let symtab = (0..len / SHDR_SIZE)
            .filter_map(section)
            .find(|s| u32_at(s, 4) == SHT_SYMTAB);
        if let Some(s) = symtab {
            end = end.max(u32_at(s, 16) + u32_at(s, 20));
            if let Some(strtab) = section(u32_at(s, 24)) {
                end = end.max(u32_at(strtab, 16) + u32_at(strtab, 20));
            }
        }
        // The section names (for e-loader's configuration sections).
        if let Some(names) = section(shstrndx).filter(|_| shstrndx != 0) {
            end = end.max(u32_at(names, 16) + u32_at(names, 20));
        }
    }
    fill(&mut src, &mut bytes, bounded(end)?)?;
    Ok(bytes)
}

/// `end`, if it is within [`MAX_FILE_BYTES`].
fn bounded(end: u64) -> Result<u64, LoadError> {
    if end > MAX_FILE_BYTES {
        return Err(LoadError::TooLarge {
            end,
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(end)
}

/// Reads from `src` until `bytes` holds `upto` bytes or the file ends.
fn fill(src: &mut impl Read, bytes: &mut Vec<u8>, upto: u64) -> Result<(), LoadError> {
    let have = bytes.len() as u64;
    if upto <= have {
        return Ok(());
    }
    src.take(upto - have)
        .read_to_end(bytes)
        .map_err(LoadError::Read)?;
    Ok(())
}
