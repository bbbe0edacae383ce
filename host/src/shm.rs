//! The e-hal shared-memory table (`e_shmtable_t`, stack.md §2.2 and §2.5)
//! that both the host's `e_shm_*` and the device's e-lib `e_shm_attach`
//! read: at external-memory offset 0x01000000 (device 0x8f000000), packed,
//! 19 000 bytes, magic 0xabcdef00, 64 regions of 296 bytes.
//!
//! Model decision owned here: where regions go. e-hal keeps a first-fit
//! heap after the table; here the table is the only record: a region is
//! placed, 64-byte aligned, in the first gap between the valid regions of
//! the 4 MB pool after the table. Region `offset`s count from the table's
//! start, `paddr` is the device address (`paddr_epi + offset`), `addr` the
//! host address.
//!
//! Layout (byte offsets):
//! ```text
//! 0      u32 magic          4     u32 initialized
//! 8      regions[64], each 296 bytes:
//!          +0 u64 addr  +8 char name[256]  +264 u64 size  +272 u64 paddr
//!          +280 u64 offset  +288 u32 refcnt  +292 u32 valid
//! 18952  u64 free_space     18960 u64 next_free_offset
//! 18968  u64 paddr_epi      18976 u64 paddr_cpu
//! 18984  u64 heap           18992 u64 lock          (19000 bytes)
//! ```

/// Offset of the table in external memory.
pub const SHM_OFFSET: u32 = 0x0100_0000;
/// Bytes of the shared-memory pool, table included (`GLOBAL_SHM_SIZE`).
pub const SHM_SIZE: u32 = 4 << 20;
pub const MAGIC: u32 = 0xabcd_ef00;
pub const MAX_REGIONS: usize = 64;
pub const REGION_SIZE: usize = 296;
pub const TABLE_SIZE: usize = 19000;
pub const NAME_LEN: usize = 256;
const REGIONS_AT: usize = 8;
const FREE_SPACE_AT: usize = REGIONS_AT + MAX_REGIONS * REGION_SIZE;
const NEXT_FREE_AT: usize = FREE_SPACE_AT + 8;
const PADDR_EPI_AT: usize = FREE_SPACE_AT + 16;
const PADDR_CPU_AT: usize = FREE_SPACE_AT + 24;
const HEAP_AT: usize = FREE_SPACE_AT + 32;
/// Where regions start (the table's end, 64-byte aligned).
pub const HEAP_START: u32 = (TABLE_SIZE as u32).next_multiple_of(64);

/// A region of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub slot: usize,
    /// From the table's start.
    pub offset: u32,
    pub size: u32,
    pub refcnt: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShmError {
    #[error("a region with that name exists")]
    Exists,
    #[error("no room for the region (64 regions, 4 MB pool)")]
    NoSpace,
    #[error("no region with that name")]
    NotFound,
    #[error("the name must be 1 to 255 bytes and the size 1 byte to 4 MB")]
    Invalid,
}

impl ShmError {
    /// The errno e-hal sets.
    pub fn errno(self) -> i32 {
        match self {
            ShmError::Exists => 17,  // EEXIST
            ShmError::NoSpace => 12, // ENOMEM
            ShmError::NotFound => 2, // ENOENT
            ShmError::Invalid => 22, // EINVAL
        }
    }
}

fn u32_at(t: &[u8], at: usize) -> u32 {
    let mut w = [0; 4];
    w.copy_from_slice(&t[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(t: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&t[at..at + 8]);
    u64::from_le_bytes(w)
}

fn put32(t: &mut [u8], at: usize, v: u32) {
    t[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put64(t: &mut [u8], at: usize, v: u64) {
    t[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn slot_at(slot: usize) -> usize {
    REGIONS_AT + slot * REGION_SIZE
}

/// Resets the table (`t`, [`TABLE_SIZE`] bytes) if its magic is wrong:
/// e-hal's lazy `e_shm_get_shmtable`. True if it was reset.
pub fn init_if_needed(t: &mut [u8], paddr_epi: u64, paddr_cpu: u64) -> bool {
    if u32_at(t, 0) == MAGIC {
        return false;
    }
    t[..TABLE_SIZE].fill(0);
    put32(t, 0, MAGIC);
    put32(t, 4, 1);
    put64(t, FREE_SPACE_AT, u64::from(SHM_SIZE - HEAP_START));
    put64(t, NEXT_FREE_AT, u64::from(HEAP_START));
    put64(t, PADDR_EPI_AT, paddr_epi);
    put64(t, PADDR_CPU_AT, paddr_cpu);
    put64(t, HEAP_AT, u64::from(HEAP_START));
    true
}

fn valid(t: &[u8], slot: usize) -> bool {
    u32_at(t, slot_at(slot) + 292) == 1
}

fn region(t: &[u8], slot: usize) -> Region {
    let at = slot_at(slot);
    Region {
        slot,
        offset: u64_at(t, at + 280) as u32,
        size: u64_at(t, at + 264) as u32,
        refcnt: u32_at(t, at + 288),
    }
}

fn name_ok(name: &[u8]) -> bool {
    !name.is_empty() && name.len() < NAME_LEN && !name.contains(&0)
}

/// The valid region called `name`.
pub fn find(t: &[u8], name: &[u8]) -> Option<Region> {
    (0..MAX_REGIONS).find_map(|slot| {
        let at = slot_at(slot) + 8;
        let stored = &t[at..at + NAME_LEN];
        let len = stored.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
        (valid(t, slot) && &stored[..len] == name).then(|| region(t, slot))
    })
}

/// Creates region `name` of `size` bytes; `host_table` is the host
/// address of the table (for the `addr` field).
pub fn alloc(t: &mut [u8], name: &[u8], size: u32, host_table: u64) -> Result<Region, ShmError> {
    if !name_ok(name) || size == 0 || size > SHM_SIZE - HEAP_START {
        return Err(ShmError::Invalid);
    }
    if find(t, name).is_some() {
        return Err(ShmError::Exists);
    }
    let slot = (0..MAX_REGIONS)
        .find(|&s| !valid(t, s))
        .ok_or(ShmError::NoSpace)?;
    let mut used: Vec<(u32, u32)> = (0..MAX_REGIONS)
        .filter(|&s| valid(t, s))
        .map(|s| {
            let r = region(t, s);
            (r.offset, r.offset + r.size)
        })
        .collect();
    used.sort_unstable();
    let mut at = HEAP_START;
    for (start, end) in used {
        if u64::from(at) + u64::from(size) <= u64::from(start) {
            break;
        }
        at = at.max(end.next_multiple_of(64));
    }
    if u64::from(at) + u64::from(size) > u64::from(SHM_SIZE) {
        return Err(ShmError::NoSpace);
    }
    let paddr_epi = u64_at(t, PADDR_EPI_AT);
    let base = slot_at(slot);
    t[base..base + REGION_SIZE].fill(0);
    put64(t, base, host_table + u64::from(at));
    t[base + 8..base + 8 + name.len()].copy_from_slice(name);
    put64(t, base + 264, size.into());
    put64(t, base + 272, paddr_epi + u64::from(at));
    put64(t, base + 280, at.into());
    put32(t, base + 288, 1);
    put32(t, base + 292, 1);
    let free = u64_at(t, FREE_SPACE_AT).saturating_sub(size.into());
    put64(t, FREE_SPACE_AT, free);
    Ok(region(t, slot))
}

/// Attaches to region `name` (one more reference).
pub fn attach(t: &mut [u8], name: &[u8]) -> Result<Region, ShmError> {
    if !name_ok(name) {
        return Err(ShmError::Invalid);
    }
    let r = find(t, name).ok_or(ShmError::NotFound)?;
    put32(t, slot_at(r.slot) + 288, r.refcnt + 1);
    Ok(region(t, r.slot))
}

/// Drops a reference to region `name`; the region is freed at zero.
pub fn release(t: &mut [u8], name: &[u8]) -> Result<(), ShmError> {
    if !name_ok(name) {
        return Err(ShmError::Invalid);
    }
    let r = find(t, name).ok_or(ShmError::NotFound)?;
    let at = slot_at(r.slot);
    let left = r.refcnt.saturating_sub(1);
    put32(t, at + 288, left);
    if left == 0 {
        put32(t, at + 292, 0);
        let free = u64_at(t, FREE_SPACE_AT) + u64::from(r.size);
        put64(t, FREE_SPACE_AT, free);
    }
    Ok(())
}

/// The device address of a region.
pub fn paddr(t: &[u8], r: &Region) -> u64 {
    u64_at(t, slot_at(r.slot) + 272)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<u8> {
        let mut t = vec![0xa5; TABLE_SIZE];
        assert!(init_if_needed(&mut t, 0x8f00_0000, 0x8f00_0000));
        assert!(!init_if_needed(&mut t, 0, 0), "a valid table is kept");
        t
    }

    #[test]
    fn layout_matches_the_documented_offsets() {
        assert_eq!(FREE_SPACE_AT, 18952);
        assert_eq!(HEAP_AT + 16, TABLE_SIZE);
        let mut t = table();
        let r = alloc(&mut t, b"buf", 100, 0x1000).unwrap();
        let at = 8;
        assert_eq!(u32_at(&t, 0), 0xabcd_ef00);
        assert_eq!(&t[at + 8..at + 12], b"buf\0");
        assert_eq!(u64_at(&t, at + 264), 100);
        assert_eq!(u64_at(&t, at + 272), 0x8f00_0000 + u64::from(HEAP_START));
        assert_eq!(u64_at(&t, at + 280), u64::from(HEAP_START));
        assert_eq!(u64_at(&t, at), 0x1000 + u64::from(HEAP_START));
        assert_eq!((u32_at(&t, at + 288), u32_at(&t, at + 292)), (1, 1));
        assert_eq!(r.offset, HEAP_START);
    }

    #[test]
    fn regions_are_placed_first_fit_and_freed_at_the_last_release() {
        let mut t = table();
        let a = alloc(&mut t, b"a", 100, 0).unwrap();
        let b = alloc(&mut t, b"b", 64, 0).unwrap();
        assert_eq!(b.offset, a.offset + 128);
        assert_eq!(alloc(&mut t, b"a", 8, 0), Err(ShmError::Exists));
        assert_eq!(attach(&mut t, b"a").unwrap().refcnt, 2);
        release(&mut t, b"a").unwrap();
        assert!(find(&t, b"a").is_some());
        release(&mut t, b"a").unwrap();
        assert!(find(&t, b"a").is_none());
        assert_eq!(release(&mut t, b"a"), Err(ShmError::NotFound));
        // The gap a left takes a region that fits.
        assert_eq!(alloc(&mut t, b"c", 128, 0).unwrap().offset, a.offset);
        assert_eq!(alloc(&mut t, b"d", SHM_SIZE, 0), Err(ShmError::Invalid));
        assert_eq!(alloc(&mut t, b"", 8, 0), Err(ShmError::Invalid));
        assert_eq!(
            alloc(&mut t, b"e", SHM_SIZE - HEAP_START, 0),
            Err(ShmError::NoSpace)
        );
    }

    #[test]
    fn the_table_holds_64_regions() {
        let mut t = table();
        for i in 0..MAX_REGIONS {
            alloc(&mut t, format!("r{i}").as_bytes(), 8, 0).unwrap();
        }
        assert_eq!(alloc(&mut t, b"one more", 8, 0), Err(ShmError::NoSpace));
    }
}
