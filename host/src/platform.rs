//! The platform description e-hal works from: the built-in Parallella-16
//! (PARALLELLA1601) or a "simple HDF" file (stack.md §2.1).
//!
//! Model decisions owned here: which HDF tags are accepted (the ones
//! e-hal's parser accepts; `ESYS_REGS_BASE` is ignored, anything else is an
//! error), that one chip is simulated (`NUM_CHIPS` must be 1), that the
//! first external memory is the one the machine's DRAM models, and how a
//! platform becomes a machine [`Config`].

use std::path::Path;

use epsim_sim::Config;

/// The chips e-hal knows (`e_chiptype_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChipKind {
    /// 4 x 4 cores, arch 3.
    E16G301,
    /// 8 x 8 cores, arch 4.
    E64G401,
}

impl ChipKind {
    /// The `e_chiptype_t` value.
    pub fn code(self) -> u32 {
        match self {
            ChipKind::E16G301 => 0,
            ChipKind::E64G401 => 1,
        }
    }
    /// Rows and columns of cores.
    pub fn size(self) -> (u32, u32) {
        match self {
            ChipKind::E16G301 => (4, 4),
            ChipKind::E64G401 => (8, 8),
        }
    }
    /// The `arch` field of `e_chip_t`.
    pub fn arch(self) -> u32 {
        match self {
            ChipKind::E16G301 => 3,
            ChipKind::E64G401 => 4,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            ChipKind::E16G301 => "E16G301",
            ChipKind::E64G401 => "E64G401",
        }
    }
}

/// One external memory segment (`e_memseg_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emem {
    pub name: String,
    /// Host-side base (`EMEM_BASE_ADDRESS`).
    pub phy_base: u64,
    /// Device-side base (`EMEM_EPI_BASE`).
    pub ephy_base: u32,
    pub size: u32,
    /// `e_memtype_t`: 1 RD, 2 WR, 3 RDWR.
    pub kind: u32,
}

/// What `e_init` learns about the system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// `PLATFORM_VERSION`, e.g. "PARALLELLA1601".
    pub version: String,
    pub chip: ChipKind,
    /// Mesh row and column of the chip's first core.
    pub chip_row: u32,
    pub chip_col: u32,
    pub emem: Emem,
}

impl Default for Platform {
    fn default() -> Self {
        Platform::parallella16()
    }
}

impl Platform {
    /// The Parallella-16 of ESDK 2016.11 (`parallella_E16G3_1GB.hdf`): one
    /// E16G301 at row 32, column 8; 32 MB of external memory at 0x8e000000
    /// on both sides.
    pub fn parallella16() -> Platform {
        Platform {
            version: "PARALLELLA1601".into(),
            chip: ChipKind::E16G301,
            chip_row: 32,
            chip_col: 8,
            emem: Emem {
                name: "ext0".into(),
                phy_base: 0x8e00_0000,
                ephy_base: 0x8e00_0000,
                size: 0x0200_0000,
                kind: 3,
            },
        }
    }

    /// The platform e-hal's `e_init(hdf)` would use: the file `hdf` if
    /// given, else the one `$EPIPHANY_HDF` names, else
    /// `$EPIPHANY_HOME/bsps/current/platform.hdf` if that exists, else the
    /// built-in Parallella-16.
    pub fn from_env(hdf: Option<&Path>) -> Result<Platform, String> {
        let from_env = std::env::var_os("EPIPHANY_HDF").filter(|v| !v.is_empty());
        let from_home = std::env::var_os("EPIPHANY_HOME")
            .filter(|v| !v.is_empty())
            .map(|home| Path::new(&home).join("bsps/current/platform.hdf"))
            .filter(|p| p.is_file());
        let path = hdf
            .map(Path::to_path_buf)
            .or(from_env.map(Into::into))
            .or(from_home);
        match path {
            Some(path) => {
                let text = read_hdf(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                Platform::parse_hdf(&text).map_err(|e| format!("{}: {e}", path.display()))
            }
            None => Ok(Platform::parallella16()),
        }
    }

    /// Parses a simple HDF file (`TAG value` per line, `//` comments).
    pub fn parse_hdf(text: &str) -> Result<Platform, String> {
        let mut version = None;
        let mut chip = None;
        let (mut row, mut col) = (None, None);
        let mut emems: Vec<Emem> = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            let at = |e: String| format!("line {}: {e}", n + 1);
            let mut parts = line.split_whitespace();
            let tag = parts.next().unwrap_or_default();
            let value = parts
                .next()
                .ok_or_else(|| at(format!("{tag} has no value")))?;
            let num =
                |v: &str| parse_num(v).ok_or_else(|| at(format!("bad number {v:?} for {tag}")));
            let last = |emems: &mut Vec<Emem>| -> Result<usize, String> {
                if emems.is_empty() {
                    Err(at(format!("{tag} before EMEM")))
                } else {
                    Ok(emems.len() - 1)
                }
            };
            match tag {
                "PLATFORM_VERSION" => version = Some(value.to_string()),
                "NUM_CHIPS" => {
                    if num(value)? != 1 {
                        return Err(at(format!("epsim simulates one chip, not {value}")));
                    }
                }
                "CHIP" => {
                    chip = Some(match value {
                        "E16G301" => ChipKind::E16G301,
                        "E64G401" => ChipKind::E64G401,
                        _ => return Err(at(format!("unknown chip {value:?}"))),
                    })
                }
                "CHIP_ROW" => row = Some(num(value)?),
                "CHIP_COL" => col = Some(num(value)?),
                "NUM_EXT_MEMS" => {
                    if num(value)? == 0 {
                        return Err(at("no external memory".into()));
                    }
                }
                "EMEM" => emems.push(Emem {
                    name: value.to_string(),
                    phy_base: 0,
                    ephy_base: 0,
                    size: 0,
                    kind: 3,
                }),
                "EMEM_BASE_ADDRESS" => {
                    let i = last(&mut emems)?;
                    emems[i].phy_base = num(value)?;
                }
                "EMEM_EPI_BASE" => {
                    let i = last(&mut emems)?;
                    emems[i].ephy_base = u32::try_from(num(value)?)
                        .map_err(|_| at(format!("EMEM_EPI_BASE {value} is not 32-bit")))?;
                }
                "EMEM_SIZE" => {
                    let i = last(&mut emems)?;
                    emems[i].size = u32::try_from(num(value)?)
                        .map_err(|_| at(format!("EMEM_SIZE {value} is too large")))?;
                }
                "EMEM_TYPE" => {
                    let i = last(&mut emems)?;
                    emems[i].kind = match value {
                        "RD" => 1,
                        "WR" => 2,
                        "RDWR" => 3,
                        _ => return Err(at(format!("unknown memory type {value:?}"))),
                    };
                }
                "ESYS_REGS_BASE" => {}
                _ => return Err(at(format!("unknown tag {tag:?}"))),
            }
        }
        let chip = chip.ok_or("no CHIP")?;
        let too_big = |v: u64| u32::try_from(v).ok().filter(|&v| v < 64);
        let chip_row = too_big(row.ok_or("no CHIP_ROW")?).ok_or("CHIP_ROW out of range")?;
        let chip_col = too_big(col.ok_or("no CHIP_COL")?).ok_or("CHIP_COL out of range")?;
        let emem = emems.into_iter().next().ok_or("no EMEM")?;
        if emem.size == 0 {
            return Err(format!("external memory {} has no EMEM_SIZE", emem.name));
        }
        let platform = Platform {
            version: version.unwrap_or_else(|| "GENERIC".into()),
            chip,
            chip_row,
            chip_col,
            emem,
        };
        platform.config().validate()?;
        Ok(platform)
    }

    /// The machine configuration for this platform.
    pub fn config(&self) -> Config {
        let (rows, cols) = self.chip.size();
        Config {
            first_row: self.chip_row,
            first_col: self.chip_col,
            rows,
            cols,
            ext_base: self.emem.ephy_base,
            ext_size: self.emem.size,
            ..Config::parallella16()
        }
    }

    /// The `e_platformtype_t` value for the version string.
    pub fn type_code(&self) -> u32 {
        match self.version.as_str() {
            "EMEK301" => 1,
            "EMEK401" => 2,
            "ZEDBOARD1601" => 3,
            "ZEDBOARD6401" => 4,
            "PARALLELLA1601" => 5,
            "PARALLELLA6401" => 6,
            "PARALLELLASIM" => 7,
            _ => 0,
        }
    }
}

/// The most an HDF file may hold: a real one is a few hundred bytes.
pub const HDF_MAX_BYTES: u64 = 64 * 1024;

/// Reads an HDF file, at most [`HDF_MAX_BYTES`] of it (`/dev/zero` or a
/// stream that never ends is refused, not read for ever).
fn read_hdf(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(HDF_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > HDF_MAX_BYTES {
        return Err(format!(
            "more than {HDF_MAX_BYTES} bytes: not a hardware description (HDF) file"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "not a text (UTF-8) file: not an HDF file".into())
}

fn parse_num(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARALLELLA: &str = "\
// Parallella-16 as shipped with ESDK 2016.11
PLATFORM_VERSION PARALLELLA1601
NUM_CHIPS 1
CHIP E16G301
CHIP_ROW 32
CHIP_COL 8
NUM_EXT_MEMS 1
EMEM ext0
EMEM_BASE_ADDRESS 0x8e000000
EMEM_EPI_BASE 0x8e000000
EMEM_SIZE 0x02000000
EMEM_TYPE RDWR
";

    #[test]
    fn the_shipped_hdf_is_the_built_in_platform() {
        assert_eq!(
            Platform::parse_hdf(PARALLELLA).unwrap(),
            Platform::parallella16()
        );
    }

    #[test]
    fn an_e64_hdf_gives_an_8x8_chip_and_its_memory() {
        let text = PARALLELLA
            .replace("E16G301", "E64G401")
            .replace("0x02000000", "0x01000000")
            .replace("PARALLELLA1601", "PARALLELLA6401");
        let p = Platform::parse_hdf(&text).unwrap();
        assert_eq!(p.chip, ChipKind::E64G401);
        assert_eq!(p.type_code(), 6);
        let c = p.config();
        assert_eq!((c.rows, c.cols, c.ext_size), (8, 8, 0x0100_0000));
    }

    #[test]
    fn bad_hdf_files_are_refused_with_the_line() {
        let unknown = format!("{PARALLELLA}BOGUS 1\n");
        let e = Platform::parse_hdf(&unknown).unwrap_err();
        assert!(e.contains("line 13") && e.contains("BOGUS"), "{e}");
        let two = PARALLELLA.replace("NUM_CHIPS 1", "NUM_CHIPS 2");
        assert!(Platform::parse_hdf(&two).unwrap_err().contains("one chip"));
        let no_chip = PARALLELLA.replace("CHIP E16G301\n", "");
        assert_eq!(Platform::parse_hdf(&no_chip).unwrap_err(), "no CHIP");
        // An 8x8 chip from row 32, column 30 covers core (35,32), id 0x8e0:
        // the DRAM window's addresses.
        let covering = PARALLELLA
            .replace("CHIP_COL 8", "CHIP_COL 30")
            .replace("CHIP E16G301", "CHIP E64G401");
        assert!(Platform::parse_hdf(&covering).is_err());
    }

    #[test]
    fn an_endless_or_binary_hdf_is_refused_after_a_bounded_read() {
        let e = Platform::from_env(Some(Path::new("/dev/zero"))).unwrap_err();
        assert!(
            e.starts_with("/dev/zero: more than 65536 bytes: not a hardware description"),
            "{e}"
        );
        let dir = std::env::temp_dir().join(format!("epsim-hdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("binary.hdf");
        std::fs::write(&bin, [0xff, 0xfe, 0]).unwrap();
        let e = Platform::from_env(Some(&bin)).unwrap_err();
        assert!(
            e.ends_with("not a text (UTF-8) file: not an HDF file"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
