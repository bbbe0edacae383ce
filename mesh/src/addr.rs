//! Mesh coordinates, the chip's geometry and address classification.
//!
//! Model decisions owned here:
//! * which addresses are on the chip, which leave it through the eLink and
//!   which leave through an edge with nothing attached (isa.md §4.2, §4.4);
//! * the XY route (isa.md §7.2): column first, then row; rows grow south,
//!   columns east; a destination outside the chip leaves at the edge in the
//!   routing direction;
//! * where the eLink meets the mesh: every router on the eLink's side has a
//!   port into it, and traffic coming in enters at the edge router in the
//!   destination's row (East/West link) or column (North/South link).
//!
//! Whether an address is *local* (top 12 bits zero, isa.md §4.1) is the
//! caller's business: [`Geometry::classify`] treats every address as global.

use std::fmt;

/// Mesh coordinates of a node: `row` and `col` are 6-bit absolute mesh
/// coordinates, as in address bits `[31:26]` and `[25:20]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    pub row: u32,
    pub col: u32,
}

impl NodeId {
    pub const fn new(row: u32, col: u32) -> NodeId {
        NodeId { row, col }
    }

    /// The node a global address names: `row = addr[31:26]`,
    /// `col = addr[25:20]`.
    pub const fn from_addr(addr: u32) -> NodeId {
        NodeId {
            row: addr >> 26,
            col: (addr >> 20) & 0x3f,
        }
    }

    /// The node with this 12-bit core id (`row << 6 | col`).
    pub const fn from_bits(coreid: u32) -> NodeId {
        NodeId {
            row: (coreid >> 6) & 0x3f,
            col: coreid & 0x3f,
        }
    }

    /// The 12-bit core id, `row << 6 | col` (the top 12 bits of the node's
    /// global addresses).
    pub const fn bits(self) -> u32 {
        ((self.row & 0x3f) << 6) | (self.col & 0x3f)
    }

    /// The global address of `offset` (low 20 bits) in this node.
    pub const fn addr(self, offset: u32) -> u32 {
        (self.bits() << 20) | (offset & 0xf_ffff)
    }

    /// Manhattan distance: the number of router-to-router hops of the XY
    /// route between two nodes.
    pub const fn hops(self, other: NodeId) -> u32 {
        self.row.abs_diff(other.row) + self.col.abs_diff(other.col)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{}) {:#05x}", self.row, self.col, self.bits())
    }
}

/// An edge of the chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    North,
    East,
    South,
    West,
}

impl Side {
    /// The router port that faces this edge.
    pub const fn dir(self) -> Dir {
        match self {
            Side::North => Dir::North,
            Side::East => Dir::East,
            Side::South => Dir::South,
            Side::West => Dir::West,
        }
    }
}

/// A router port: the four neighbour links and the node's own port.
/// As an output, `Local` is the ejection into the node; as an input, the
/// injection from the node's network interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    North,
    East,
    South,
    West,
    Local,
}

impl Dir {
    /// All ports, in the order round-robin arbiters scan them.
    pub const ALL: [Dir; 5] = [Dir::North, Dir::East, Dir::South, Dir::West, Dir::Local];

    pub const fn index(self) -> usize {
        self as usize
    }

    /// The port a packet leaving through `self` enters the neighbour by.
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::East => Dir::West,
            Dir::South => Dir::North,
            Dir::West => Dir::East,
            Dir::Local => Dir::Local,
        }
    }
}

/// Whether `addr` is local to the core that issues it (top 12 bits zero,
/// isa.md §4.1). Such an address never reaches the mesh.
pub const fn is_local(addr: u32) -> bool {
    addr >> 20 == 0
}

/// Where a global address goes, relative to a chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A node of this chip, and the offset inside its 1 MB window.
    Core { node: NodeId, offset: u32 },
    /// Off the chip through the eLink (e.g. the Parallella's DRAM at
    /// 0x8E000000).
    External(u32),
    /// Off the chip through an edge with no eLink: nothing would answer
    /// (isa.md §4.4). The mesh refuses such packets.
    Unroutable { addr: u32, exit: Side },
}

impl Target {
    /// Whether a packet to this target can be delivered.
    pub const fn is_routable(&self) -> bool {
        !matches!(self, Target::Unroutable { .. })
    }
}

/// One output link used by a route: the packet leaves `node` through
/// `dir` (`Dir::Local`: it is delivered to `node`; the eLink side's
/// direction at the edge: into the eLink).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    pub node: NodeId,
    pub dir: Dir,
}

/// The chip: a `rows` × `cols` block of the 64 × 64 mesh coordinate space
/// whose north-west node is (`first_row`, `first_col`), and the edge its
/// off-chip link is wired on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    pub first_row: u32,
    pub first_col: u32,
    pub rows: u32,
    pub cols: u32,
    /// The edge whose eLink is connected (on a Parallella: East, to the
    /// FPGA and DRAM). `None`: nothing is connected, every off-chip
    /// address is unroutable.
    pub elink: Option<Side>,
}

/// Why a geometry cannot be simulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryError {
    /// No rows or no columns.
    Empty,
    /// The chip does not fit in the 64 × 64 coordinate space.
    OutsideGrid {
        first_row: u32,
        first_col: u32,
        rows: u32,
        cols: u32,
    },
}

impl fmt::Display for GeometryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GeometryError::Empty => write!(f, "the chip has no nodes"),
            GeometryError::OutsideGrid {
                first_row,
                first_col,
                rows,
                cols,
            } => write!(
                f,
                "a {rows}x{cols} chip at row {first_row}, column {first_col} \
                 does not fit in the 64x64 mesh"
            ),
        }
    }
}

impl std::error::Error for GeometryError {}

impl Default for Geometry {
    fn default() -> Geometry {
        Geometry::E16G301
    }
}

impl Geometry {
    /// The Parallella-16's E16G301: rows 32-35, columns 8-11, east eLink
    /// to the FPGA (isa.md §4.3).
    pub const E16G301: Geometry = Geometry {
        first_row: 32,
        first_col: 8,
        rows: 4,
        cols: 4,
        elink: Some(Side::East),
    };

    /// The Parallella-64's E64G401: rows 32-39, columns 8-15, east eLink.
    pub const E64G401: Geometry = Geometry {
        first_row: 32,
        first_col: 8,
        rows: 8,
        cols: 8,
        elink: Some(Side::East),
    };

    pub const fn new(
        first_row: u32,
        first_col: u32,
        rows: u32,
        cols: u32,
        elink: Option<Side>,
    ) -> Geometry {
        Geometry {
            first_row,
            first_col,
            rows,
            cols,
            elink,
        }
    }

    /// Checks that the chip is non-empty and fits in the 64 × 64 grid.
    pub fn validate(&self) -> Result<(), GeometryError> {
        if self.rows == 0 || self.cols == 0 {
            return Err(GeometryError::Empty);
        }
        let fits = |first: u32, n: u32| first.checked_add(n).is_some_and(|end| end <= 64);
        if !fits(self.first_row, self.rows) || !fits(self.first_col, self.cols) {
            return Err(GeometryError::OutsideGrid {
                first_row: self.first_row,
                first_col: self.first_col,
                rows: self.rows,
                cols: self.cols,
            });
        }
        Ok(())
    }

    /// Number of nodes.
    pub const fn len(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    pub const fn is_empty(&self) -> bool {
        self.rows == 0 || self.cols == 0
    }

    pub const fn last_row(&self) -> u32 {
        self.first_row + self.rows - 1
    }

    pub const fn last_col(&self) -> u32 {
        self.first_col + self.cols - 1
    }

    /// Whether `node` is one of the chip's nodes.
    pub const fn contains(&self, node: NodeId) -> bool {
        node.row >= self.first_row
            && node.row - self.first_row < self.rows
            && node.col >= self.first_col
            && node.col - self.first_col < self.cols
    }

    /// The node's index in row-major order (0 = north-west), if it is on
    /// the chip. Statistics and tie orders use this order.
    pub const fn index(&self, node: NodeId) -> Option<usize> {
        if self.contains(node) {
            Some(
                (node.row - self.first_row) as usize * self.cols as usize
                    + (node.col - self.first_col) as usize,
            )
        } else {
            None
        }
    }

    /// The node with row-major index `i`, if there is one.
    pub const fn node(&self, i: usize) -> Option<NodeId> {
        if i < self.len() {
            Some(NodeId {
                row: self.first_row + (i / self.cols as usize) as u32,
                col: self.first_col + (i % self.cols as usize) as u32,
            })
        } else {
            None
        }
    }

    /// Every node, in row-major order.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.len()).filter_map(|i| self.node(i))
    }

    /// The edge an address leaves the chip through, or `None` if it names
    /// a node of the chip. XY routing decides: a column outside the chip
    /// leaves east or west whatever the row; a column inside the chip with
    /// a row outside leaves north or south. Independent of the source.
    pub const fn exit_side(&self, addr: u32) -> Option<Side> {
        let n = NodeId::from_addr(addr);
        if n.col > self.last_col() {
            Some(Side::East)
        } else if n.col < self.first_col {
            Some(Side::West)
        } else if n.row < self.first_row {
            Some(Side::North)
        } else if n.row > self.last_row() {
            Some(Side::South)
        } else {
            None
        }
    }

    /// Classifies a global address (isa.md §4.2, §4.4).
    pub const fn classify(&self, addr: u32) -> Target {
        match self.exit_side(addr) {
            None => Target::Core {
                node: NodeId::from_addr(addr),
                offset: addr & 0xf_ffff,
            },
            Some(exit) => match self.elink {
                Some(side) if side as u8 == exit as u8 => Target::External(addr),
                _ => Target::Unroutable { addr, exit },
            },
        }
    }

    /// The position of an edge router along the eLink's edge: its row
    /// offset for an East/West link, its column offset for North/South.
    pub(crate) const fn lane(&self, side: Side, node: NodeId) -> u32 {
        match side {
            Side::East | Side::West => node.row - self.first_row,
            Side::North | Side::South => node.col - self.first_col,
        }
    }

    /// Number of edge routers along an edge.
    pub(crate) const fn lanes(&self, side: Side) -> u32 {
        match side {
            Side::East | Side::West => self.rows,
            Side::North | Side::South => self.cols,
        }
    }

    /// The edge router on `side` in `node`'s row (East/West) or column
    /// (North/South).
    pub const fn edge_router(&self, side: Side, node: NodeId) -> NodeId {
        match side {
            Side::East => NodeId::new(node.row, self.last_col()),
            Side::West => NodeId::new(node.row, self.first_col),
            Side::North => NodeId::new(self.first_row, node.col),
            Side::South => NodeId::new(self.last_row(), node.col),
        }
    }

    /// Where packets coming in from the eLink for `dst` enter the mesh:
    /// the eLink-side edge router in `dst`'s row (or column). `None` if
    /// `dst` is not on the chip or there is no eLink.
    pub fn elink_entry(&self, dst: NodeId) -> Option<NodeId> {
        match self.elink {
            Some(side) if self.contains(dst) => Some(self.edge_router(side, dst)),
            _ => None,
        }
    }

    /// The on-chip router at which a packet at `at` for off-chip `addr`
    /// leaves the chip: XY routing goes to the destination column first
    /// (clamped to the chip), then to the destination row (clamped).
    pub const fn exit_router(&self, at: NodeId, addr: u32) -> NodeId {
        let d = NodeId::from_addr(addr);
        let col = clamp(d.col, self.first_col, self.last_col());
        if col != d.col {
            // Leaves east or west along the current row.
            NodeId::new(at.row, col)
        } else {
            NodeId::new(clamp(d.row, self.first_row, self.last_row()), col)
        }
    }

    /// The XY route (isa.md §7.2) of a packet injected at `src` for `addr`:
    /// the output link taken at every router, column moves first, ending
    /// with `Dir::Local` at the destination, or with the eLink side's
    /// direction at the edge router for an external address.
    pub fn route(&self, src: NodeId, addr: u32) -> Result<Vec<Link>, Target> {
        let target = self.classify(addr);
        if !self.contains(src) || !target.is_routable() {
            return Err(target);
        }
        let d = NodeId::from_addr(addr);
        let mut at = src;
        let mut links = Vec::new();
        loop {
            let dir = xy_step(at, d);
            links.push(Link { node: at, dir });
            let next = match dir {
                Dir::Local => return Ok(links),
                Dir::East => NodeId::new(at.row, at.col + 1),
                Dir::West => NodeId::new(at.row, at.col.wrapping_sub(1)),
                Dir::North => NodeId::new(at.row.wrapping_sub(1), at.col),
                Dir::South => NodeId::new(at.row + 1, at.col),
            };
            if !self.contains(next) {
                // Into the eLink (the classification says it is wired).
                return Ok(links);
            }
            at = next;
        }
    }
}

/// The address remap of the FPGA's eLink receiver on a Parallella: the
/// "static" remap mode of `erx_remap.v` (aolofsson/oh), which replaces the
/// address bits `[31:20]` selected by `sel` with those of `pattern` and
/// keeps the rest. The kernel driver (`elink_reset` in
/// `drivers/misc/epiphany.c`, since ESDK 2016.11) sets `sel` 0xfe0 and
/// `pattern` 0x3e0 in the FPGA's host-physical terms, so every address
/// arriving from the chip lands in the 32 MB at host 0x3e000000, which the
/// chip calls 0x8e000000: bits `[31:25]` replaced, `[24:0]` kept. In the
/// chip's terms that is `sel` 0xfe0, `pattern` 0x8e0 ([`RxRemap::PARALLELLA`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RxRemap {
    /// The address bits `[31:20]` replaced (12 bits).
    pub sel: u32,
    /// The bits put in their place (12 bits).
    pub pattern: u32,
}

impl RxRemap {
    /// No remapping (remap mode 0).
    pub const NONE: RxRemap = RxRemap { sel: 0, pattern: 0 };

    /// The Parallella's configuration, in the chip's addresses: everything
    /// the eLink receives folds onto the DRAM window 0x8e000000-0x8fffffff.
    pub const PARALLELLA: RxRemap = RxRemap {
        sel: 0xfe0,
        pattern: 0x8e0,
    };

    /// The remap for an external memory of `size` bytes at `base`: the
    /// driver's, whatever the memory (bits `[24:0]` kept), with bits
    /// `[31:25]` those of `base`, so that everything folds onto the 32 MB
    /// block holding the memory; for the Parallella's 32 MB at 0x8e000000,
    /// [`RxRemap::PARALLELLA`]. What folds outside a smaller memory finds
    /// nothing. `NONE` when there is no memory.
    pub const fn onto(base: u32, size: u32) -> RxRemap {
        if size == 0 {
            return RxRemap::NONE;
        }
        RxRemap {
            sel: RxRemap::PARALLELLA.sel,
            pattern: (base >> 20) & RxRemap::PARALLELLA.sel,
        }
    }

    /// The address after the remap.
    pub const fn apply(self, addr: u32) -> u32 {
        let sel = (self.sel & 0xfff) << 20;
        (addr & !sel) | ((self.pattern << 20) & sel)
    }
}

impl Geometry {
    /// The node that holds the registers of the chip's eLink on `side`
    /// (E_REG_LINKCFG ... E_REG_LINKDEBUG at 0xF0300-0xF0328): the kernel
    /// driver's `elink_coreid` for the E16G301 and the E64G401, the node
    /// at column 2 of the first (north) and last (south) rows and at row 2
    /// of the first (west) and last (east) columns. `None` on a chip with
    /// fewer than 3 rows or columns (no such chip was made).
    pub const fn elink_node(&self, side: Side) -> Option<NodeId> {
        if self.rows < 3 || self.cols < 3 {
            return None;
        }
        let (r, c) = match side {
            Side::North => (0, 2),
            Side::East => (2, self.cols - 1),
            Side::South => (self.rows - 1, 2),
            Side::West => (2, 0),
        };
        Some(NodeId::new(self.first_row + r, self.first_col + c))
    }

    /// The offset inside external memory (`size` bytes at `base`, reached
    /// through the eLink) at which an access to global `addr` lands when
    /// `addr` is not in that window itself: an address that leaves the
    /// chip through the eLink reaches the FPGA, whose receiver folds it
    /// onto the window ([`RxRemap::onto`]). `None` if `addr` names a node
    /// of the chip, leaves through an edge with nothing attached (nothing
    /// answers, isa.md §4.4) or folds outside the memory.
    pub const fn elink_fold(&self, addr: u32, base: u32, size: u32) -> Option<u32> {
        match self.classify(addr) {
            Target::External(_) => {
                let off = RxRemap::onto(base, size).apply(addr).wrapping_sub(base);
                if off < size {
                    Some(off)
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}

/// An address leaving the chip through a link in loopback mode, and
/// where it comes back in ([`Geometry::looped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Looped {
    /// The edge it leaves and re-enters through.
    pub side: Side,
    /// The global address it lands at: a node of the chip.
    pub addr: u32,
}

impl Looped {
    /// The node it lands in.
    pub const fn node(&self) -> NodeId {
        NodeId::from_addr(self.addr)
    }
}

impl Geometry {
    /// For an address that leaves the chip through an edge other than the
    /// wired eLink's (where nothing is attached: `Target::Unroutable`):
    /// the edge, and the address it comes back in at if that edge's link
    /// loops its transmitter back into its receiver (LINKDEBUG bit 14,
    /// mesh/MESH.md "Loopback"). The chip's receiver takes every
    /// transaction it receives for its own chip: the address's chip part
    /// (the row and column bits above the node's place in the chip, which
    /// the ROWID/COLID pins give) is replaced by the chip's own, so the
    /// transaction lands in the node at the same place of the chip:
    /// `first + (x - first) mod n` for the row and the column (on the
    /// E16G301 at (32,8), 0x40804000 and 0x90804000 land at 0x80804000,
    /// as Adapteva's `test/e-loopback-test` expects). The offset is kept.
    /// `None` for an address of the chip, or one through the wired eLink.
    pub const fn looped(&self, addr: u32) -> Option<Looped> {
        let side = match self.classify(addr) {
            Target::Unroutable { exit, .. } => exit,
            _ => return None,
        };
        let n = NodeId::from_addr(addr);
        let row = self.first_row + (n.row + 64 * self.rows - self.first_row) % self.rows;
        let col = self.first_col + (n.col + 64 * self.cols - self.first_col) % self.cols;
        Some(Looped {
            side,
            addr: NodeId::new(row, col).addr(addr & 0xf_ffff),
        })
    }
}

const fn clamp(v: u32, lo: u32, hi: u32) -> u32 {
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// The XY routing rule of isa.md §7.2 at router `at` for destination `d`.
#[inline(always)]
pub(crate) const fn xy_step(at: NodeId, d: NodeId) -> Dir {
    if d.col > at.col {
        Dir::East
    } else if d.col < at.col {
        Dir::West
    } else if d.row < at.row {
        Dir::North
    } else if d.row > at.row {
        Dir::South
    } else {
        Dir::Local
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_and_addresses() {
        let n = NodeId::from_addr(0x8CB0_1234);
        assert_eq!(n, NodeId::new(35, 11));
        assert_eq!(n.bits(), 0x8CB);
        assert_eq!(n.addr(0x1234), 0x8CB0_1234);
        assert_eq!(NodeId::from_bits(0x808), NodeId::new(32, 8));
        assert_eq!(NodeId::new(32, 8).hops(NodeId::new(35, 11)), 6);
    }

    #[test]
    fn classification_on_the_parallella() {
        let g = Geometry::E16G301;
        assert_eq!(
            g.classify(0x8090_7000),
            Target::Core {
                node: NodeId::new(32, 9),
                offset: 0x7000
            }
        );
        assert_eq!(g.classify(0x8E00_0000), Target::External(0x8E00_0000));
        assert_eq!(g.classify(0x8F00_0010), Target::External(0x8F00_0010));
        // Column 0: west edge, not wired.
        assert_eq!(
            g.classify(0x8000_0000),
            Target::Unroutable {
                addr: 0x8000_0000,
                exit: Side::West
            }
        );
        // Column 8 (inside), row 36 (south of the chip).
        assert_eq!(
            g.classify(0x9080_0000),
            Target::Unroutable {
                addr: 0x9080_0000,
                exit: Side::South
            }
        );
        assert!(is_local(0x7ff0));
        assert!(!is_local(0x8080_0000));
    }

    #[test]
    fn elink_receiver_remap() {
        // The Parallella's driver: 0x3e0 in host terms is 0x8e0 in the
        // chip's.
        let r = RxRemap::onto(0x8e00_0000, 32 << 20);
        assert_eq!(r, RxRemap::PARALLELLA);
        assert_eq!(r.apply(0x7e0f_0000), 0x8e0f_0000);
        assert_eq!(r.apply(0x8f12_3456), 0x8f12_3456);
        assert_eq!(r.apply(0xffff_fff8), 0x8fff_fff8);
        assert_eq!(RxRemap::NONE.apply(0x7e0f_0000), 0x7e0f_0000);
        // The driver's own values in host-physical terms, for comparison.
        let host = RxRemap {
            sel: 0xfe0,
            pattern: 0x3e0,
        };
        assert_eq!(host.apply(0x7e0f_0000), 0x3e0f_0000);
        // Other memories: the same bits kept, onto the 32 MB block that
        // holds the memory.
        assert_eq!(RxRemap::onto(0x8e00_0000, 1 << 20), RxRemap::PARALLELLA);
        assert_eq!(RxRemap::onto(0x8f00_0000, 16 << 20), RxRemap::PARALLELLA);
        assert_eq!(RxRemap::onto(0x4000_0000, 64 << 20).pattern, 0x400);
        assert_eq!(RxRemap::onto(0x8e00_0000, 0), RxRemap::NONE);

        let g = Geometry::E16G301;
        let (base, size) = (0x8e00_0000, 32 << 20);
        assert_eq!(g.elink_fold(0x7e0f_0000, base, size), Some(0xf_0000));
        assert_eq!(g.elink_fold(0x8e0f_0000, base, size), Some(0xf_0000));
        assert_eq!(g.elink_fold(0x0ff0_0004, base, size), Some(0x1f0_0004));
        // On the chip, or out through the west or south edge: no answer.
        assert_eq!(g.elink_fold(0x8090_7000, base, size), None);
        assert_eq!(g.elink_fold(0x8000_0000, base, size), None);
        assert_eq!(g.elink_fold(0x9080_0000, base, size), None);
        // Folded past a memory smaller than 32 MB, or below one that
        // starts inside its block: no answer.
        assert_eq!(g.elink_fold(0x7f80_0000, base, 24 << 20), None);
        assert_eq!(g.elink_fold(0x7e0f_0000, base, 24 << 20), Some(0xf_0000));
        assert_eq!(g.elink_fold(0x7f00_0000, base, 1 << 20), None);
        assert_eq!(g.elink_fold(0x7f00_0010, 0x8f00_0000, 16 << 20), Some(0x10));
        assert_eq!(g.elink_fold(0x7e0f_0000, 0x8f00_0000, 16 << 20), None);
        // No memory, or no eLink.
        assert_eq!(g.elink_fold(0x7e0f_0000, base, 0), None);
        let no_link = Geometry { elink: None, ..g };
        assert_eq!(no_link.elink_fold(0x7e0f_0000, base, size), None);
    }

    #[test]
    fn elink_register_nodes() {
        let g = Geometry::E16G301;
        // e-loopback-test's north and south link registers: 0x80af0328
        // and 0x8caf0328.
        assert_eq!(g.elink_node(Side::North), Some(NodeId::from_bits(0x80a)));
        assert_eq!(g.elink_node(Side::South), Some(NodeId::from_bits(0x8ca)));
        assert_eq!(g.elink_node(Side::East), Some(NodeId::new(34, 11)));
        assert_eq!(g.elink_node(Side::West), Some(NodeId::new(34, 8)));
        assert_eq!(
            Geometry::E64G401.elink_node(Side::East),
            Some(NodeId::new(34, 15))
        );
        assert_eq!(
            Geometry::E64G401.elink_node(Side::South),
            Some(NodeId::new(39, 10))
        );
        assert_eq!(
            Geometry::new(32, 8, 2, 2, None).elink_node(Side::North),
            None
        );
    }

    #[test]
    fn looped_addresses_land_at_the_same_place_of_the_chip() {
        let g = Geometry::E16G301;
        // e-loopback-test on a Parallella: north and south of core (32,8).
        let north = g.looped(0x4080_4000).expect("north");
        assert_eq!((north.side, north.addr), (Side::North, 0x8080_4000));
        let south = g.looped(0x9080_4000).expect("south");
        assert_eq!((south.side, south.addr), (Side::South, 0x8080_4000));
        assert_eq!(south.node(), NodeId::new(32, 8));
        // The archived chip test, for a chip at (32,36): north (16,36),
        // south (36,36), east (32,52) all land at (32,36).
        let old = Geometry::new(32, 36, 4, 4, None);
        for a in [0x4240_4000, 0x9240_4000, 0x8340_4000] {
            assert_eq!(old.looped(a).map(|l| l.addr), Some(0x8240_4000), "{a:#x}");
        }
        assert_eq!(old.looped(0x8340_4000).map(|l| l.side), Some(Side::East));
        // Each node at its own place: (33,11) + 4 rows north, west.
        assert_eq!(g.looped(0x74b0_0010).map(|l| l.addr), Some(0x84b0_0010));
        assert_eq!(g.looped(0x84f0_0010), None, "east: the wired eLink");
        assert_eq!(g.looped(0x8470_0010).map(|l| l.addr), Some(0x84b0_0010));
        assert_eq!(g.looped(0x8430_0010).map(|l| l.side), Some(Side::West));
        // The E64G401: 8 rows and columns.
        let e64 = Geometry::E64G401;
        assert_eq!(e64.looped(0x4090_0000).map(|l| l.addr), Some(0x8090_0000));
        assert_eq!(e64.looped(0xa490_0000).map(|l| l.addr), Some(0x8490_0000));
        // On the chip, or through the wired eLink (DRAM): not looped.
        assert_eq!(g.looped(0x8090_7000), None);
        assert_eq!(g.looped(0x8e00_0000), None);
    }

    #[test]
    fn validation() {
        assert!(Geometry::E16G301.validate().is_ok());
        assert!(Geometry::new(0, 0, 64, 64, None).validate().is_ok());
        assert_eq!(
            Geometry::new(0, 0, 0, 4, None).validate(),
            Err(GeometryError::Empty)
        );
        assert!(Geometry::new(60, 0, 5, 4, None).validate().is_err());
        assert!(Geometry::new(u32::MAX, 0, 5, 4, None).validate().is_err());
    }

    #[test]
    fn index_order_is_row_major() {
        let g = Geometry::E16G301;
        let nodes: Vec<_> = g.nodes().collect();
        assert_eq!(nodes.len(), 16);
        assert_eq!(nodes[1], NodeId::new(32, 9));
        assert_eq!(nodes[4], NodeId::new(33, 8));
        for (i, n) in nodes.iter().enumerate() {
            assert_eq!(g.index(*n), Some(i));
        }
        assert_eq!(g.index(NodeId::new(36, 8)), None);
    }
}
