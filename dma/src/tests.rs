//! Unit tests: exact address sequences, states and timing through the
//! public API, as the simulator would drive it.

use crate::regs::*;
use crate::*;

/// 32 KB of local SRAM, word-addressed.
struct Sram {
    words: Vec<u32>,
}

impl Sram {
    fn new() -> Self {
        Sram {
            words: vec![0; 0x8000 / 4],
        }
    }

    fn put(&mut self, addr: u32, d: Descriptor) {
        for (i, w) in d.to_words().into_iter().enumerate() {
            self.words[(addr / 4) as usize + i] = w;
        }
    }
}

impl LocalMem for Sram {
    fn read_word(&self, addr: u32) -> Option<u32> {
        if addr & 3 != 0 {
            return None;
        }
        self.words.get((addr / 4) as usize).copied()
    }
}

const CH1: u32 = CHANNEL_STRIDE;
const BYTE: u32 = 0 << DATASIZE_SHIFT;
const HALF: u32 = 1 << DATASIZE_SHIFT;
const WORD: u32 = 2 << DATASIZE_SHIFT;
const DOUBLE: u32 = 3 << DATASIZE_SHIFT;

fn stride(src: i16, dst: i16) -> u32 {
    (dst as u16 as u32) << 16 | src as u16 as u32
}

fn count(outer: u16, inner: u16) -> u32 {
    u32::from(outer) << 16 | u32::from(inner)
}

/// What a run produced: the moves with their cycle, and every non-empty
/// effect with its cycle.
#[derive(Default)]
struct Trace {
    moves: Vec<(Cycle, Move)>,
    effects: Vec<(Cycle, Effect)>,
}

impl Trace {
    fn addrs(&self) -> Vec<(u32, u32)> {
        self.moves
            .iter()
            .map(|(_, m)| match m.src {
                Source::Mem(s) => (s, m.dst),
                Source::Data(_) => (u32::MAX, m.dst),
            })
            .collect()
    }

    fn cycles(&self) -> Vec<Cycle> {
        self.moves.iter().map(|(t, _)| *t).collect()
    }

    fn dones(&self) -> Vec<(Cycle, Done)> {
        self.effects
            .iter()
            .filter_map(|(t, e)| e.done.map(|d| (*t, d)))
            .collect()
    }

    fn fetches(&self) -> Vec<(Cycle, u32)> {
        self.effects
            .iter()
            .filter_map(|(t, e)| e.fetch.map(|f| (*t, f.addr)))
            .collect()
    }
}

/// Drive the engine from cycle `from` as the simulator would (every move
/// is a local or posted write) until it is no longer busy.
fn run(dma: &mut Dma, mem: &Sram, from: Cycle) -> Trace {
    let mut tr = Trace::default();
    let mut now = from;
    while dma.is_busy() {
        assert!(now < from + 1_000_000, "runaway transfer");
        while let Some(m) = dma.peek(now) {
            let e = dma.commit(now, m.channel as usize, MoveOutcome::Written, mem);
            tr.moves.push((now, m));
            if !e.is_none() {
                tr.effects.push((now, e));
            }
        }
        now += 1;
    }
    tr
}

/// Program channel `ch` through its registers and start it with DMAEN.
#[allow(clippy::too_many_arguments)]
fn start_regs(
    dma: &mut Dma,
    mem: &Sram,
    now: Cycle,
    ch: u32,
    config: u32,
    strd: u32,
    cnt: u32,
    src: u32,
    dst: u32,
) -> Effect {
    let base = ch * CH1;
    for (off, v) in [(STRIDE, strd), (COUNT, cnt), (SRCADDR, src), (DSTADDR, dst)] {
        assert!(dma.write_reg(now, base + off, v, mem).is_none());
    }
    dma.write_reg(now, base + CONFIG, config, mem)
}

#[test]
fn one_d_copy_of_each_datasize() {
    let mem = Sram::new();
    for (code, size) in [(BYTE, 1u32), (HALF, 2), (WORD, 4), (DOUBLE, 8)] {
        let mut dma = Dma::default();
        let s = size as i16;
        let e = start_regs(
            &mut dma,
            &mem,
            10,
            0,
            DMAEN | MASTER | code,
            stride(s, s),
            count(1, 4),
            0x1000,
            0x2000,
        );
        assert!(e.is_none());
        assert_eq!(dma.state(0), DmaState::Active);
        let tr = run(&mut dma, &mem, 10);
        let want: Vec<_> = (0..4)
            .map(|i| (0x1000 + i * size, 0x2000 + i * size))
            .collect();
        assert_eq!(tr.addrs(), want, "size {size}");
        assert_eq!(
            tr.cycles(),
            vec![11, 12, 13, 14],
            "one move per cycle after start-up"
        );
        assert!(tr.moves.iter().all(|(_, m)| m.size as u32 == size));
        let lasts: Vec<bool> = tr.moves.iter().map(|(_, m)| m.last).collect();
        assert_eq!(lasts, vec![false, false, false, true]);
        assert!(tr.moves.iter().all(|(_, m)| !m.message));
        assert_eq!(
            tr.dones(),
            vec![(
                14,
                Done {
                    channel: 0,
                    irq: None
                }
            )]
        );
        // Register-started: outer stride is the reset latch (0), so the
        // addresses stop at the last element; inner count reloaded.
        assert_eq!(dma.read_reg(SRCADDR), 0x1000 + 3 * size);
        assert_eq!(dma.read_reg(DSTADDR), 0x2000 + 3 * size);
        assert_eq!(dma.read_reg(COUNT), count(0, 4));
        assert_eq!(dma.read_reg(STATUS), 0);
        assert_eq!(dma.stats(0).bytes, u64::from(4 * size));
    }
}

#[test]
fn one_d_copy_by_descriptor_of_each_datasize() {
    for (code, size) in [(BYTE, 1u32), (HALF, 2), (WORD, 4), (DOUBLE, 8)] {
        let mut mem = Sram::new();
        let s = size as i16;
        mem.put(
            0x40,
            Descriptor {
                config: DMAEN | MASTER | code,
                inner_stride: stride(s, s),
                count: count(1, 3),
                outer_stride: stride(s, s),
                src: 0x3000,
                dst: 0x80900000,
            },
        );
        let mut dma = Dma::default();
        let e = dma.write_reg(0, CONFIG, 0x40 << 16 | STARTUP, &mem);
        assert_eq!(
            e.fetch,
            Some(Fetch {
                channel: 0,
                addr: 0x40
            })
        );
        let tr = run(&mut dma, &mem, 0);
        let want: Vec<_> = (0..3)
            .map(|i| (0x3000 + i * size, 0x80900000 + i * size))
            .collect();
        assert_eq!(tr.addrs(), want);
        // The outer stride applies after the last element too.
        assert_eq!(dma.read_reg(SRCADDR), 0x3000 + 3 * size);
        assert_eq!(dma.read_reg(DSTADDR), 0x80900000 + 3 * size);
    }
}

#[test]
fn two_d_sub_block_of_a_row_major_matrix() {
    // 8 words per row at 0x1000 (pitch 32 bytes); copy the 4-wide, 3-tall
    // block at row 1, column 2 into a packed 4x3 array at 0x2000.
    let mut mem = Sram::new();
    mem.put(
        0x100,
        Descriptor {
            config: DMAEN | MASTER | WORD,
            inner_stride: stride(4, 4),
            count: count(3, 4),
            outer_stride: stride(32 - 3 * 4, 4),
            src: 0x1000 + 32 + 2 * 4,
            dst: 0x2000,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    let mut want = Vec::new();
    for r in 0..3u32 {
        for c in 0..4u32 {
            want.push((0x1028 + r * 32 + c * 4, 0x2000 + (r * 4 + c) * 4));
        }
    }
    assert_eq!(tr.addrs(), want);
    assert_eq!(tr.moves.iter().filter(|(_, m)| m.last).count(), 1);
    assert!(tr.moves[11].1.last);
    assert_eq!(dma.read_reg(SRCADDR), 0x1074 + 20);
    assert_eq!(dma.read_reg(DSTADDR), 0x2030);
    assert_eq!(dma.read_reg(COUNT), count(0, 4));
    // STRIDE keeps the inner stride (the outer one is internal).
    assert_eq!(dma.read_reg(STRIDE), stride(4, 4));
}

#[test]
fn negative_strides() {
    // Vertical flip of a 4x3 block: rows bottom to top, outer stride
    // -(pitch) - 3*4 = -44; destination packed.
    let mut mem = Sram::new();
    mem.put(
        0x100,
        Descriptor {
            config: DMAEN | MASTER | WORD,
            inner_stride: stride(4, 4),
            count: count(3, 4),
            outer_stride: stride(-44, 4),
            src: 0x1040,
            dst: 0x2000,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    let mut want = Vec::new();
    for r in 0..3u32 {
        for c in 0..4u32 {
            want.push((0x1040 - r * 32 + c * 4, 0x2000 + (r * 4 + c) * 4));
        }
    }
    assert_eq!(tr.addrs(), want);
    assert_eq!(dma.read_reg(SRCADDR), 0x100C - 44);

    // Reverse a half-word array: inner source stride -2, destination +2,
    // and a negative outer destination stride.
    mem.put(
        0x200,
        Descriptor {
            config: DMAEN | MASTER | HALF,
            inner_stride: stride(-2, 2),
            count: count(2, 3),
            outer_stride: stride(-2, -14),
            src: 0x100A,
            dst: 0x2100,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CH1 + CONFIG, 0x200 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    assert_eq!(
        tr.addrs(),
        vec![
            (0x100A, 0x2100),
            (0x1008, 0x2102),
            (0x1006, 0x2104),
            (0x1004, 0x20F6),
            (0x1002, 0x20F8),
            (0x1000, 0x20FA),
        ]
    );
    assert_eq!(dma.read_reg(CH1 + SRCADDR), 0x0FFE);
    assert_eq!(dma.read_reg(CH1 + DSTADDR), 0x20EC);
}

#[test]
fn shift_bits_scale_strides_by_65536() {
    // Inner source stride 1 << 16, inner destination stride 4 (unshifted:
    // SHIFT_SRC_IN must not touch the destination), outer destination
    // stride 0x10 << 16 = next core column, outer source stride -1 << 16.
    let mut mem = Sram::new();
    mem.put(
        0x100,
        Descriptor {
            config: DMAEN | MASTER | WORD | SHIFT_SRC_IN | SHIFT_DST_OUT | SHIFT_SRC_OUT,
            inner_stride: stride(1, 4),
            count: count(3, 2),
            outer_stride: stride(-1, 0x10),
            src: 0x80800000,
            dst: 0x80800100,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    assert_eq!(
        tr.addrs(),
        vec![
            (0x80800000, 0x80800100),
            (0x80810000, 0x80800104),
            (0x80800000, 0x80900104),
            (0x80810000, 0x80900108),
            (0x80800000, 0x80A00108),
            (0x80810000, 0x80A0010C),
        ]
    );
    assert_eq!(dma.read_reg(SRCADDR), 0x80800000);
    assert_eq!(dma.read_reg(DSTADDR), 0x80B0010C);

    // SHIFT_DST_IN with a negative stride.
    mem.put(
        0x200,
        Descriptor {
            config: DMAEN | MASTER | DOUBLE | SHIFT_DST_IN,
            inner_stride: stride(8, -1),
            count: count(1, 3),
            outer_stride: 0,
            src: 0x1000,
            dst: 0x80A00000,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CONFIG, 0x200 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    assert_eq!(
        tr.addrs(),
        vec![
            (0x1000, 0x80A00000),
            (0x1008, 0x809F0000),
            (0x1010, 0x809E0000),
        ]
    );
}

#[test]
fn startup_loads_the_descriptor_like_e_dma_start() {
    let mut mem = Sram::new();
    let d = Descriptor {
        config: DMAEN | MASTER | WORD | IRQEN,
        inner_stride: stride(4, 4),
        count: count(1, 4),
        outer_stride: stride(4, 4),
        src: 0x1000,
        dst: 0x80900000,
    };
    mem.put(0x100, d);
    let mut dma = Dma::default();
    let e = dma.write_reg(100, CH1 + CONFIG, 0x100 << 16 | STARTUP, &mem);
    assert_eq!(
        e.fetch,
        Some(Fetch {
            channel: 1,
            addr: 0x100
        })
    );
    assert!(e.done.is_none() && e.error.is_none());
    let ev: Vec<Event> = e.events().collect();
    assert_eq!(
        ev,
        vec![Event::DescriptorFetch {
            channel: 1,
            addr: 0x100
        }]
    );
    // Descriptor words copied into the registers.
    assert_eq!(dma.read_reg(CH1 + CONFIG), d.config);
    assert_eq!(dma.read_reg(CH1 + STRIDE), d.inner_stride);
    assert_eq!(dma.read_reg(CH1 + COUNT), d.count);
    assert_eq!(dma.read_reg(CH1 + SRCADDR), d.src);
    assert_eq!(dma.read_reg(CH1 + DSTADDR), d.dst);
    assert_eq!(dma.read_reg(CH1 + STATUS), 0x0100_0005);
    assert_eq!(dma.read_reg(STATUS), 0, "DMA0 untouched");
    // Start-up 1 + fetch 4 cycles.
    assert_eq!(dma.next_ready(), Some(105));
    assert_eq!(dma.peek(104), None);
    let tr = run(&mut dma, &mem, 100);
    assert_eq!(tr.cycles(), vec![105, 106, 107, 108]);
    assert_eq!(
        tr.dones(),
        vec![(
            108,
            Done {
                channel: 1,
                irq: Some(7)
            }
        )]
    );
    assert_eq!(tr.effects[0].1.irq(), Some(IRQ_DMA1));
    assert_eq!(dma.read_reg(CH1 + STATUS), 0x0100_0000);
    assert_eq!(dma.stats(1).descriptors, 1);
    assert_eq!(dma.stats(1).completions, 1);
}

#[test]
fn startup_takes_precedence_over_dmaen() {
    let mut mem = Sram::new();
    mem.put(
        0x100,
        Descriptor {
            config: DMAEN | MASTER | BYTE,
            inner_stride: stride(1, 1),
            count: count(1, 1),
            outer_stride: 0,
            src: 0x10,
            dst: 0x20,
        },
    );
    let mut dma = Dma::default();
    // Registers say something else; the descriptor wins.
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        0x100 << 16 | STARTUP | DMAEN | MASTER,
        0,
        count(1, 9),
        0x500,
        0x600,
    );
    let tr = run(&mut dma, &mem, 0);
    assert_eq!(tr.addrs(), vec![(0x10, 0x20)]);
}

/// Three descriptors at 0x100, 0x118, 0x130; each moves two words.
fn chain_memory(n: u32) -> Sram {
    let mut mem = Sram::new();
    for i in 0..n {
        let addr = 0x100 + 24 * i;
        let chain = if i + 1 < n {
            CHAINMODE | (addr + 24) << 16
        } else {
            0
        };
        let irq = if i == 0 { 0 } else { IRQEN };
        mem.put(
            addr,
            Descriptor {
                config: DMAEN | MASTER | WORD | chain | irq,
                inner_stride: stride(4, 4),
                count: count(1, 2),
                outer_stride: stride(4, 4),
                src: 0x1000 * (i + 1),
                dst: 0x4000 + 0x100 * i,
            },
        );
    }
    mem
}

#[test]
fn chaining_two_and_three_descriptors() {
    for n in [2u32, 3] {
        let mem = chain_memory(n);
        let mut dma = Dma::default();
        let e = dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
        assert_eq!(e.fetch.map(|f| f.addr), Some(0x100));
        let tr = run(&mut dma, &mem, 0);
        let mut want = Vec::new();
        for i in 0..n {
            for k in 0..2 {
                want.push((0x1000 * (i + 1) + 4 * k, 0x4000 + 0x100 * i + 4 * k));
            }
        }
        assert_eq!(tr.addrs(), want);
        // Each chained descriptor: done at its last move, fetch of the next
        // in the same effect, first move 1 + 4 cycles later.
        let mut cycles = Vec::new();
        let mut t = 5;
        for _ in 0..n {
            cycles.extend([t, t + 1]);
            t += 1 + 5;
        }
        assert_eq!(tr.cycles(), cycles);
        let fetches: Vec<u32> = tr.fetches().into_iter().map(|(_, a)| a).collect();
        let want_fetch: Vec<u32> = (1..n).map(|i| 0x100 + 24 * i).collect();
        assert_eq!(fetches, want_fetch);
        let dones = tr.dones();
        assert_eq!(dones.len() as u32, n);
        assert_eq!(dones[0].1.irq, None, "first descriptor has no IRQEN");
        assert!(dones[1..].iter().all(|(_, d)| d.irq == Some(IRQ_DMA0)));
        // Done then fetch, in that order, in one effect.
        let ev: Vec<Event> = tr.effects[0].1.events().collect();
        assert_eq!(
            ev,
            vec![
                Event::Done {
                    channel: 0,
                    irq: None
                },
                Event::DescriptorFetch {
                    channel: 0,
                    addr: 0x118
                },
            ]
        );
        assert_eq!(dma.read_reg(STATUS), (0x100 + 24 * (n - 1)) << 16);
        assert_eq!(dma.stats(0).descriptors, u64::from(n));
    }
}

#[test]
fn irqen_raises_the_channels_own_interrupt() {
    for (ch, irq) in [(0u32, 6u8), (1, 7)] {
        let mem = Sram::new();
        let mut dma = Dma::default();
        start_regs(
            &mut dma,
            &mem,
            0,
            ch,
            DMAEN | MASTER | WORD | IRQEN,
            stride(4, 4),
            count(1, 2),
            0x100,
            0x200,
        );
        let tr = run(&mut dma, &mem, 0);
        assert_eq!(
            tr.dones(),
            vec![(
                2,
                Done {
                    channel: ch as u8,
                    irq: Some(irq)
                }
            )]
        );
    }
}

#[test]
fn msgmode_flags_only_the_last_move() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        1,
        DMAEN | MASTER | DOUBLE | MSGMODE,
        stride(8, 8),
        count(2, 3),
        0x1000,
        0x80900000,
    );
    let tr = run(&mut dma, &mem, 0);
    let msg: Vec<bool> = tr.moves.iter().map(|(_, m)| m.message).collect();
    assert_eq!(msg, vec![false, false, false, false, false, true]);
    assert!(tr.moves[5].1.last);
}

#[test]
fn msgmode_remote_read_waits_for_the_last_data() {
    // e_dma_copy-like: remote source, local destination, MSGMODE.
    let mut mem = Sram::new();
    mem.put(
        0x60,
        Descriptor {
            config: DMAEN | MASTER | WORD | MSGMODE | IRQEN,
            inner_stride: 0x10001 << 2,
            count: 0x10000 | 4,
            outer_stride: 0x10001 << 2,
            src: 0x80900000,
            dst: 0x2000,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CH1 + CONFIG, 0x60 << 16 | STARTUP, &mem);
    let mut now = 0;
    let mut issued = 0;
    while issued < 4 {
        if let Some(m) = dma.peek(now) {
            assert_eq!(m.src, Source::Mem(0x80900000 + 4 * issued));
            let e = dma.commit(now, 1, MoveOutcome::ReadIssued, &mem);
            assert!(e.is_none(), "no completion while reads are out");
            issued += 1;
        }
        now += 1;
    }
    assert_eq!(dma.state(1), DmaState::Wait);
    assert_eq!(dma.read_reg(CH1 + STATUS) & 0xF, 0xA);
    assert_eq!(dma.reads_in_flight(1), 4);
    assert_eq!(dma.peek(now), None);
    assert_eq!(dma.next_ready(), None);
    assert!(dma.is_busy());
    for _ in 0..3 {
        assert!(dma.read_returned(now, 1, &mem).is_none());
        assert_eq!(dma.state(1), DmaState::Wait);
        now += 10;
    }
    let e = dma.read_returned(now, 1, &mem);
    assert_eq!(
        e.done,
        Some(Done {
            channel: 1,
            irq: Some(7)
        })
    );
    assert_eq!(dma.state(1), DmaState::Idle);
    // An extra return is harmless.
    assert!(dma.read_returned(now, 1, &mem).is_none());
}

#[test]
fn remote_read_without_msgmode_completes_at_the_last_issue() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 2),
        0x80900000,
        0x2000,
    );
    assert!(dma.commit(1, 0, MoveOutcome::ReadIssued, &mem).is_none());
    let e = dma.commit(2, 0, MoveOutcome::ReadIssued, &mem);
    assert_eq!(
        e.done,
        Some(Done {
            channel: 0,
            irq: None
        })
    );
    assert_eq!(dma.state(0), DmaState::Idle);
    assert_eq!(dma.reads_in_flight(0), 2);
    assert!(dma.read_returned(5, 0, &mem).is_none());
    assert_eq!(dma.reads_in_flight(0), 1);
}

#[test]
fn a_write_to_auto0_is_mirrored_into_auto1() {
    // As Adapteva's cpu/register_test reads both back on the board; a
    // write to AUTO1 changes AUTO1 only.
    let mem = Sram::new();
    let mut dma = Dma::default();
    for ch in [0, CH1] {
        assert!(dma.write_reg(0, ch + AUTO0, 0xffff_ffff, &mem).is_none());
        assert_eq!(
            (dma.read_reg(ch + AUTO0), dma.read_reg(ch + AUTO1)),
            (0xffff_ffff, 0xffff_ffff)
        );
        assert!(dma.write_reg(0, ch + AUTO1, 0x1234, &mem).is_none());
        assert_eq!(
            (dma.read_reg(ch + AUTO0), dma.read_reg(ch + AUTO1)),
            (0xffff_ffff, 0x1234)
        );
        assert!(dma.write_reg(0, ch + AUTO0, 0, &mem).is_none());
        assert_eq!((dma.read_reg(ch + AUTO0), dma.read_reg(ch + AUTO1)), (0, 0));
    }
}

#[test]
fn slave_mode_auto0_writes_make_moves_to_successive_dstaddrs() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | WORD | IRQEN,
        stride(0, 4),
        count(1, 3),
        0xDEAD,
        0x2000,
    );
    assert_eq!(dma.state(0), DmaState::Slave);
    assert_eq!(dma.read_reg(STATUS) & 0xF, 6);
    assert_eq!(dma.peek(10), None, "no data yet");
    assert_eq!(dma.next_ready(), None);
    assert!(dma.accepts_auto(0));
    let mut dsts = Vec::new();
    for (i, v) in [0x11111111u32, 0x22222222, 0x33333333]
        .into_iter()
        .enumerate()
    {
        let now = 10 + 5 * i as Cycle;
        assert!(dma.write_reg(now, AUTO0, v, &mem).is_none());
        assert!(!dma.accepts_auto(0));
        let m = dma.peek(now).unwrap();
        assert_eq!(m.src, Source::Data(u64::from(v)));
        assert_eq!(m.size, 4);
        assert_eq!(m.last, i == 2);
        dsts.push(m.dst);
        let e = dma.commit(now, 0, MoveOutcome::Written, &mem);
        if i < 2 {
            assert!(e.is_none());
            assert_eq!(dma.state(0), DmaState::Slave);
            assert_eq!(dma.peek(now + 1), None, "one move per item");
        } else {
            assert_eq!(
                e.done,
                Some(Done {
                    channel: 0,
                    irq: Some(6)
                })
            );
        }
    }
    assert_eq!(dsts, vec![0x2000, 0x2004, 0x2008]);
    assert_eq!(dma.state(0), DmaState::Idle);
    assert_eq!(
        dma.read_reg(SRCADDR),
        0xDEAD,
        "slave mode ignores the source"
    );
    assert_eq!(dma.read_reg(AUTO0), 0x33333333);
}

#[test]
fn slave_mode_sizes_take_their_bytes_from_auto0_and_auto1() {
    let mem = Sram::new();
    // Byte: low byte of AUTO0.
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        1,
        DMAEN | BYTE,
        stride(0, 1),
        count(1, 2),
        0,
        0x2001,
    );
    dma.write_reg(3, CH1 + AUTO0, 0xAABBCCDD, &mem);
    let m = dma.peek(3).unwrap();
    assert_eq!((m.src, m.dst, m.size), (Source::Data(0xDD), 0x2001, 1));
    // Doubleword: AUTO0 alone is not an item, AUTO1 completes it.
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | DOUBLE,
        stride(0, 8),
        count(1, 1),
        0,
        0x2000,
    );
    dma.write_reg(3, AUTO0, 0x44332211, &mem);
    assert_eq!(dma.peek(3), None);
    dma.write_reg(4, AUTO1, 0x88776655, &mem);
    let m = dma.peek(4).unwrap();
    assert_eq!(m.src, Source::Data(0x8877665544332211));
    assert!(m.last);
    // An AUTO write to an idle channel only stores the value.
    let mut dma = Dma::default();
    assert!(dma.write_reg(0, AUTO0, 7, &mem).is_none());
    assert_eq!(dma.peek(0), None);
    assert_eq!(dma.read_reg(AUTO0), 7);
}

#[test]
fn both_channels_dma0_goes_first() {
    let mem = Sram::new();
    let setup = |dma: &mut Dma| {
        start_regs(
            dma,
            &mem,
            0,
            1,
            DMAEN | MASTER | WORD,
            stride(4, 4),
            count(1, 3),
            0x1100,
            0x2100,
        );
        start_regs(
            dma,
            &mem,
            0,
            0,
            DMAEN | MASTER | WORD,
            stride(4, 4),
            count(1, 3),
            0x1000,
            0x2000,
        );
    };
    let mut dma = Dma::default();
    setup(&mut dma);
    // Both ready at 1; the arbitrated peek picks DMA0, peek_channel can
    // still see DMA1's move.
    assert_eq!(dma.peek(1).unwrap().channel, 0);
    assert_eq!(dma.peek_channel(1, 1).unwrap().dst, 0x2100);
    let tr = run(&mut dma, &mem, 0);
    let order: Vec<(Cycle, u8)> = tr.moves.iter().map(|(t, m)| (*t, m.channel)).collect();
    assert_eq!(
        order,
        vec![(1, 0), (2, 0), (3, 0), (4, 1), (5, 1), (6, 1)],
        "one move per cycle for the engine, DMA0 holds DMA1 off"
    );

    // With a two-move budget both channels move every cycle, DMA0 first.
    let mut dma = Dma::new(Params {
        moves_per_cycle: 2,
        ..Params::DEFAULT
    });
    setup(&mut dma);
    let tr = run(&mut dma, &mem, 0);
    let order: Vec<(Cycle, u8)> = tr.moves.iter().map(|(t, m)| (*t, m.channel)).collect();
    assert_eq!(order, vec![(1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1)]);
}

#[test]
fn a_refused_move_is_offered_again() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 2),
        0x1000,
        0x2000,
    );
    let m = dma.peek(1).unwrap();
    // The simulator's port is busy at 1 and 2.
    assert_eq!(dma.peek(2), Some(m));
    assert_eq!(dma.peek(3), Some(m));
    dma.commit(3, 0, MoveOutcome::Written, &mem);
    assert_eq!(dma.peek(3), None, "budget used");
    assert_eq!(dma.peek(4).unwrap().src, Source::Mem(0x1004));
    // Committing a move that is not ready does nothing.
    assert!(dma.commit(4, 1, MoveOutcome::Written, &mem).is_none());
    assert_eq!(dma.stats(1).moves, 0);
}

#[test]
fn status_through_a_transfer() {
    let mut mem = Sram::new();
    mem.put(
        0x7F0,
        Descriptor {
            config: DMAEN | MASTER | HALF,
            inner_stride: stride(2, 2),
            count: count(1, 2),
            outer_stride: 0,
            src: 0x100,
            dst: 0x200,
        },
    );
    let mut dma = Dma::default();
    assert_eq!(dma.read_reg(STATUS), 0);
    dma.write_reg(0, CONFIG, 0x7F0 << 16 | STARTUP, &mem);
    let mut seen = Vec::new();
    for now in 0..9 {
        if let Some(m) = dma.peek(now) {
            dma.commit(now, m.channel as usize, MoveOutcome::Written, &mem);
        }
        seen.push(dma.read_reg(STATUS));
    }
    let a = 0x07F0_0005;
    let i = 0x07F0_0000;
    assert_eq!(seen, vec![a, a, a, a, a, a, i, i, i]);
}

#[test]
fn register_read_back() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    for ch in 0..2u32 {
        let base = ch * CH1;
        let vals = [
            (CONFIG, 0xABCD_F0F4 & !(DMAEN | STARTUP)),
            (STRIDE, 0x1234_5678),
            (COUNT, 0x9ABC_DEF0),
            (SRCADDR, 0x8080_1234 + ch),
            (DSTADDR, 0x8CB0_5678 + ch),
            (AUTO0, 0x0102_0304),
            (AUTO1, 0x0506_0708),
        ];
        for (off, v) in vals {
            assert!(dma.write_reg(0, base + off, v, &mem).is_none());
        }
        for (off, v) in vals {
            assert_eq!(dma.read_reg(base + off), v, "offset {:#x}", base + off);
        }
        // STATUS: the pointer half is stored, a non-zero state is not.
        dma.write_reg(0, base + STATUS, 0x0120_0005, &mem);
        assert_eq!(dma.read_reg(base + STATUS), 0x0120_0000);
        assert_eq!(dma.state(ch as usize), DmaState::Idle);
    }
    // Outside the window or unaligned: reads 0, writes ignored, no panic.
    for off in [0x40, 0x41, 0x3, 0x1E, 0xFFFF_FFFC, u32::MAX] {
        assert_eq!(dma.read_reg(off), 0);
        assert!(dma.write_reg(0, off, 0xFFFF_FFFF, &mem).is_none());
    }
    assert_eq!(dma.read_reg(STRIDE), 0x1234_5678);
}

#[test]
fn bad_counts_are_configuration_errors() {
    let mem = Sram::new();
    for cnt in [count(1, 0), count(0, 4), 0] {
        let mut dma = Dma::default();
        let e = start_regs(
            &mut dma,
            &mem,
            0,
            0,
            DMAEN | MASTER | WORD,
            stride(4, 4),
            cnt,
            0x100,
            0x200,
        );
        let err = e.error.unwrap();
        assert_eq!(err.kind, ErrorKind::ZeroCount { count: cnt });
        assert_eq!(err.channel, 0);
        assert_eq!(err.descriptor, None);
        assert_eq!(dma.state(0), DmaState::Error);
        assert_eq!(dma.read_reg(STATUS) & 0xF, 0xD);
        assert_eq!(dma.error(0), Some(err));
        assert_eq!(dma.peek(5), None);
        assert!(!dma.is_busy());
    }
    let mut dma = Dma::default();
    let e = start_regs(
        &mut dma,
        &mem,
        0,
        1,
        DMAEN | MASTER | WORD,
        0,
        count(1, 0),
        0,
        0,
    );
    assert_eq!(
        e.error.unwrap().to_string(),
        "DMA1: count 0x00010000 has a zero inner or outer count"
    );
}

#[test]
fn misaligned_addresses_are_configuration_errors() {
    let mem = Sram::new();
    let cases = [
        (
            WORD,
            0x1002,
            0x2000,
            ErrorKind::MisalignedSource {
                addr: 0x1002,
                size: 4,
            },
        ),
        (
            HALF,
            0x1000,
            0x2001,
            ErrorKind::MisalignedDestination {
                addr: 0x2001,
                size: 2,
            },
        ),
        (
            DOUBLE,
            0x1000,
            0x80902004,
            ErrorKind::MisalignedDestination {
                addr: 0x80902004,
                size: 8,
            },
        ),
    ];
    for (size, src, dst, kind) in cases {
        let mut dma = Dma::default();
        let e = start_regs(
            &mut dma,
            &mem,
            0,
            0,
            DMAEN | MASTER | size,
            0,
            count(1, 1),
            src,
            dst,
        );
        assert_eq!(e.error.map(|e| e.kind), Some(kind));
        assert_eq!(dma.state(0), DmaState::Error);
        assert_eq!(dma.peek(1), None);
    }
    // Bytes are never misaligned.
    let mut dma = Dma::default();
    let e = start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | BYTE,
        0,
        count(1, 1),
        0x1003,
        0x2007,
    );
    assert!(e.is_none());

    // A stride that misaligns a later element stops the channel at the
    // commit that produced the bad address, before any bad move.
    let mut mem = Sram::new();
    mem.put(
        0x100,
        Descriptor {
            config: DMAEN | MASTER | WORD,
            inner_stride: stride(2, 4),
            count: count(1, 4),
            outer_stride: 0,
            src: 0x1000,
            dst: 0x2000,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CH1 + CONFIG, 0x100 << 16 | STARTUP, &mem);
    let e = dma.commit(5, 1, MoveOutcome::Written, &mem);
    let err = e.error.unwrap();
    assert_eq!(
        err.kind,
        ErrorKind::MisalignedSource {
            addr: 0x1002,
            size: 4
        }
    );
    assert_eq!(err.descriptor, Some(0x100));
    assert_eq!(err.addr(), Some(0x1002));
    assert_eq!(
        err.to_string(),
        "DMA1 (descriptor at 0x0100): source address 0x00001002 is not aligned to the 4-byte element size"
    );
    assert_eq!(dma.peek(6), None);
    assert_eq!(dma.read_reg(CH1 + STATUS), 0x0100_000D);

    // Writing a misaligned address or a zero count into a running channel.
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 4),
        0x1000,
        0x2000,
    );
    let e = dma.write_reg(1, DSTADDR, 0x2006, &mem);
    assert_eq!(
        e.error.map(|e| e.kind),
        Some(ErrorKind::MisalignedDestination {
            addr: 0x2006,
            size: 4
        })
    );
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 4),
        0x1000,
        0x2000,
    );
    let e = dma.write_reg(1, COUNT, 0, &mem);
    assert_eq!(
        e.error.map(|e| e.kind),
        Some(ErrorKind::ZeroCount { count: 0 })
    );
}

#[test]
fn bad_descriptor_pointers_are_configuration_errors() {
    let mut mem = Sram::new();
    // Not 8-byte aligned.
    let mut dma = Dma::default();
    let e = dma.write_reg(0, CONFIG, 0x104 << 16 | STARTUP, &mem);
    assert_eq!(e.fetch, None);
    let err = e.error.unwrap();
    assert_eq!(err.kind, ErrorKind::DescriptorMisaligned { ptr: 0x104 });
    assert_eq!(err.descriptor, Some(0x104));
    assert_eq!(dma.read_reg(STATUS), 0x0104_000D);
    assert_eq!(
        err.to_string(),
        "DMA0 (descriptor at 0x0104): descriptor pointer 0x0104 is not 8-byte aligned"
    );
    // Outside local memory, wholly and partly (the third word at 0x8000).
    for (ptr, word) in [(0x8000, 0x8000), (0xFFF8, 0xFFF8), (0x7FF8, 0x8000)] {
        let mut dma = Dma::default();
        let e = dma.write_reg(0, CH1 + CONFIG, ptr << 16 | STARTUP, &mem);
        let err = e.error.unwrap();
        assert_eq!(err.kind, ErrorKind::DescriptorOutOfRange { ptr, word });
        assert_eq!(err.addr(), Some(word));
        assert_eq!(dma.state(1), DmaState::Error);
    }
    // A descriptor whose config has DMAEN clear.
    mem.put(
        0x100,
        Descriptor {
            config: MASTER | WORD,
            inner_stride: stride(4, 4),
            count: count(1, 1),
            outer_stride: 0,
            src: 0x1000,
            dst: 0x2000,
        },
    );
    let mut dma = Dma::default();
    let e = dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    assert_eq!(e.fetch.map(|f| f.addr), Some(0x100), "it was read");
    assert_eq!(
        e.error.map(|e| e.kind),
        Some(ErrorKind::DescriptorNotEnabled {
            config: MASTER | WORD
        })
    );
    // A bad chained descriptor: done, fetch, error in one effect.
    let mut mem = chain_memory(2);
    let mut d = Descriptor::from_words([0; 6]);
    d.config = DMAEN | MASTER | WORD;
    d.count = count(1, 1);
    d.src = 0x1001;
    mem.put(0x118, d);
    let mut dma = Dma::default();
    dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    assert_eq!(tr.moves.len(), 2);
    let ev: Vec<Event> = tr.effects[0].1.events().collect();
    assert_eq!(ev.len(), 3);
    assert_eq!(
        ev[0],
        Event::Done {
            channel: 0,
            irq: None
        }
    );
    assert_eq!(
        ev[1],
        Event::DescriptorFetch {
            channel: 0,
            addr: 0x118
        }
    );
    assert!(matches!(
        ev[2],
        Event::Error(DmaError {
            channel: 0,
            descriptor: Some(0x118),
            kind: ErrorKind::MisalignedSource {
                addr: 0x1001,
                size: 4
            },
        })
    ));
}

#[test]
fn config_written_while_busy_is_an_error_until_status_is_cleared() {
    let mem = chain_memory(1);
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 4),
        0x1000,
        0x2000,
    );
    dma.commit(1, 0, MoveOutcome::Written, &mem);
    let e = dma.write_reg(2, CONFIG, 0x100 << 16 | STARTUP, &mem);
    let err = e.error.unwrap();
    assert_eq!(
        err.kind,
        ErrorKind::ConfigWhileBusy {
            value: 0x100 << 16 | STARTUP,
            state: 5
        }
    );
    assert_eq!(e.fetch, None, "nothing was loaded");
    assert_eq!(dma.read_reg(CONFIG), DMAEN | MASTER | WORD, "not stored");
    assert_eq!(dma.read_reg(STATUS) & 0xF, 0xD);
    assert_eq!(dma.peek(3), None);
    // Further CONFIG writes leave the first error in place.
    assert!(dma.write_reg(3, CONFIG, DMAEN | MASTER, &mem).is_none());
    assert_eq!(dma.error(0), Some(err));
    // Writing 0 to STATUS recovers; the channel then works again.
    dma.write_reg(4, STATUS, 0, &mem);
    assert_eq!(dma.state(0), DmaState::Idle);
    assert_eq!(dma.error(0), None);
    let e = dma.write_reg(5, CONFIG, 0x100 << 16 | STARTUP, &mem);
    assert!(e.error.is_none());
    let tr = run(&mut dma, &mem, 5);
    assert_eq!(tr.moves.len(), 2);
}

#[test]
fn access_fault_reported_by_the_simulator() {
    let mem = chain_memory(1);
    let mut dma = Dma::default();
    dma.write_reg(0, CH1 + CONFIG, 0x100 << 16 | STARTUP, &mem);
    let m = dma.peek(5).unwrap();
    let e = dma.fault(m.channel as usize, 0x1000);
    assert_eq!(
        e.error.unwrap().to_string(),
        "DMA1 (descriptor at 0x0100): no memory at address 0x00001000"
    );
    assert_eq!(dma.state(1), DmaState::Error);
    assert!(dma.fault(1, 0).is_none(), "already in error");
    assert!(dma.fault(0, 0).is_none(), "idle channel");
}

#[test]
fn out_of_range_channel_numbers_do_nothing() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    assert!(dma.commit(0, 2, MoveOutcome::Written, &mem).is_none());
    assert!(dma.read_returned(0, 7, &mem).is_none());
    assert!(dma.fault(9, 0).is_none());
    assert_eq!(dma.state(3), DmaState::Idle);
    assert_eq!(dma.error(3), None);
    assert_eq!(dma.peek_channel(0, 2), None);
    assert!(!dma.accepts_auto(2));
    assert_eq!(dma.reads_in_flight(2), 0);
    assert_eq!(dma.stats(2), ChannelStats::default());
}

#[test]
fn pause_holds_moves_and_reads_0xb() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 4),
        0x1000,
        0x2000,
    );
    dma.commit(1, 0, MoveOutcome::Written, &mem);
    dma.set_paused(true);
    assert!(dma.paused());
    assert_eq!(dma.read_reg(STATUS) & 0xF, 0xB);
    assert_eq!(dma.read_reg(CH1 + STATUS) & 0xF, 0, "idle channel stays 0");
    assert_eq!(dma.peek(2), None);
    assert_eq!(dma.next_ready(), None);
    assert!(dma.commit(2, 0, MoveOutcome::Written, &mem).is_none());
    dma.set_paused(false);
    let tr = run(&mut dma, &mem, 10);
    assert_eq!(tr.cycles(), vec![10, 11, 12]);
    assert_eq!(tr.moves[0].1.src, Source::Mem(0x1004));
}

#[test]
fn e_hal_soft_reset_sequence_leaves_both_channels_idle() {
    // ee_soft_reset_dma: pause, zero every DMA register (CONFIG first,
    // STATUS last), unpause, poll STATUS & 7 == 0.
    let mem = chain_memory(3);
    let mut dma = Dma::default();
    dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    start_regs(
        &mut dma,
        &mem,
        0,
        1,
        DMAEN | WORD,
        0,
        count(1, 4),
        0,
        0x2000,
    );
    dma.set_paused(true);
    for ch in 0..2 {
        for off in [CONFIG, STRIDE, COUNT, SRCADDR, DSTADDR, STATUS] {
            dma.write_reg(1, ch * CH1 + off, 0, &mem);
        }
    }
    dma.set_paused(false);
    assert_eq!(dma.read_reg(STATUS) & 7, 0);
    assert_eq!(dma.read_reg(CH1 + STATUS) & 7, 0);
    assert!(!dma.is_busy());
    assert_eq!(dma.peek(10), None);
}

#[test]
fn reset_clears_config_count_status_and_keeps_addresses() {
    let mem = Sram::new();
    let mut dma = Dma::default();
    start_regs(
        &mut dma,
        &mem,
        0,
        0,
        DMAEN | MASTER | WORD,
        stride(4, 4),
        count(1, 4),
        0x1000,
        0x2000,
    );
    dma.write_reg(0, AUTO0, 5, &mem);
    dma.reset();
    assert_eq!(dma.state(0), DmaState::Idle);
    assert_eq!(dma.read_reg(CONFIG), 0);
    assert_eq!(dma.read_reg(COUNT), 0);
    assert_eq!(dma.read_reg(STATUS), 0);
    assert_eq!(dma.read_reg(STRIDE), stride(4, 4));
    assert_eq!(dma.read_reg(SRCADDR), 0x1000);
    assert_eq!(dma.read_reg(DSTADDR), 0x2000);
    assert_eq!(dma.read_reg(AUTO0), 5);
    assert_eq!(dma.peek(5), None);
}

#[test]
fn custom_params_change_the_engine_latencies() {
    let mem = chain_memory(2);
    let mut dma = Dma::new(Params {
        start_cycles: 3,
        desc_fetch_cycles: 10,
        move_interval_cycles: 2,
        moves_per_cycle: 1,
    });
    dma.write_reg(0, CONFIG, 0x100 << 16 | STARTUP, &mem);
    let tr = run(&mut dma, &mem, 0);
    // 0 + 3 + 10 = 13, every 2 cycles; chain: 15 + 3 + 10 = 28.
    assert_eq!(tr.cycles(), vec![13, 15, 28, 30]);
    assert_eq!(Dma::default().params(), &Params::DEFAULT);
}

#[test]
fn long_transfer_completes_with_the_right_final_addresses() {
    let mut mem = Sram::new();
    mem.put(
        0x7000,
        Descriptor {
            config: DMAEN | MASTER | BYTE | IRQEN,
            inner_stride: stride(1, 1),
            count: count(2, 0xFFFF),
            outer_stride: stride(1, 1),
            src: 0x80800000,
            dst: 0x8E000000,
        },
    );
    let mut dma = Dma::default();
    dma.write_reg(0, CH1 + CONFIG, 0x7000 << 16 | STARTUP, &mem);
    let mut now = 0;
    let mut moves = 0u64;
    let mut dones = 0;
    while dma.is_busy() {
        if let Some(m) = dma.peek(now) {
            let e = dma.commit(now, m.channel as usize, MoveOutcome::Written, &mem);
            moves += 1;
            if e.done.is_some() {
                dones += 1;
                assert!(m.last);
                assert_eq!(e.irq(), Some(7));
            }
        }
        now += 1;
    }
    assert_eq!(moves, 2 * 0xFFFF);
    assert_eq!(dones, 1);
    assert_eq!(dma.read_reg(CH1 + SRCADDR), 0x80800000 + 2 * 0xFFFF);
    assert_eq!(dma.read_reg(CH1 + DSTADDR), 0x8E000000 + 2 * 0xFFFF);
    assert_eq!(dma.read_reg(CH1 + COUNT), count(0, 0xFFFF));
    assert_eq!(dma.stats(1).bytes, 2 * 0xFFFF);
    assert_eq!(now, 5 + 2 * 0xFFFF);
}

#[test]
fn stride_step_sign_and_shift() {
    assert_eq!(stride_step(0x0000_FFFC, false, false), (-4i32) as u32);
    assert_eq!(stride_step(0xFFFC_0000, true, false), (-4i32) as u32);
    assert_eq!(stride_step(0x0000_FFFF, false, true), 0xFFFF_0000);
    assert_eq!(stride_step(0x0001_0000, true, true), 0x0001_0000);
    assert_eq!(stride_step(0x7FFF_0000, true, false), 0x7FFF);
    assert_eq!(datasize_bytes(DOUBLE | 0xFFFF_0000), 8);
    assert_eq!(next_ptr(0x1234_0008), 0x1234);
}

#[test]
fn next_ready_skips_a_cycle_whose_moves_are_used_up() {
    // Both channels ready in the same cycle: DMA0 moves, and DMA1 is next
    // ready in the following cycle (not in the spent one, where `peek`
    // offers nothing).
    let mem = Sram::new();
    let mut dma = Dma::new(Params::DEFAULT);
    for (ch, dst) in [(0u32, 0x400u32), (1, 0x600)] {
        let base = ch * 0x20;
        dma.write_reg(0, base + 0x04, stride(8, 8), &mem);
        dma.write_reg(0, base + 0x08, count(1, 16), &mem);
        dma.write_reg(0, base + 0x0c, 0x100, &mem);
        dma.write_reg(0, base + 0x10, dst, &mem);
        dma.write_reg(0, base, 0x3 | 3 << 5, &mem);
    }
    let t = dma.next_ready().expect("busy");
    let mv = dma.peek(t).expect("a move");
    assert_eq!(mv.channel, 0);
    dma.commit(t, 0, MoveOutcome::Written, &mem);
    assert_eq!(dma.peek(t), None);
    assert_eq!(dma.next_ready(), Some(t + 1));
}

#[test]
fn a_stretch_is_the_rows_moves_but_its_last_and_each_changes_only_counters() {
    // Two rows of 5 doublewords from external memory, the source going
    // down: the first 4 moves of the row are plain (no effect, addresses
    // stepped by the inner stride), the 5th ends the row.
    let mem = Sram::new();
    let mut dma = Dma::new(Params::DEFAULT);
    dma.write_reg(0, 0x04, stride(-8, 8), &mem);
    dma.write_reg(0, 0x08, count(2, 5), &mem);
    dma.write_reg(0, 0x0c, 0x8f00_1000, &mem);
    dma.write_reg(0, 0x10, 0x400, &mem);
    dma.write_reg(0, 0x00, 0x3 | 3 << 5, &mem);
    assert_eq!(dma.stretch(1), None, "an idle channel makes no move");
    let s = dma.stretch(0).expect("a transfer under way");
    assert_eq!(s.plain, 4);
    assert_eq!(s.src, (0x8f00_1000 - 3 * 8, 0x8f00_1007));
    assert_eq!(s.dst, (0x400, 0x400 + 3 * 8 + 7));
    let mut t = dma.next_ready().expect("busy");
    assert_eq!(s.ready, t);
    for k in 0..s.plain {
        let mv = dma.peek(t).expect("a move");
        assert_eq!(mv.src, Source::Mem(0x8f00_1000 - 8 * k));
        assert!(!mv.last);
        let e = dma.commit(t, 0, MoveOutcome::ReadIssued, &mem);
        assert!(e.is_none(), "plain move {k}: {e:?}");
        t = dma.next_ready().expect("busy");
    }
    // The row's last: nothing plain before it.
    assert_eq!(dma.stretch(0).map(|s| s.plain), Some(0));
    // A stride that misaligns the next element, or a shifted one, gives
    // no plain move.
    let mut odd = Dma::new(Params::DEFAULT);
    odd.write_reg(0, 0x04, stride(4, 8), &mem);
    odd.write_reg(0, 0x08, count(1, 5), &mem);
    odd.write_reg(0, 0x0c, 0x8f00_1000, &mem);
    odd.write_reg(0, 0x10, 0x400, &mem);
    odd.write_reg(0, 0x00, 0x3 | 3 << 5, &mem);
    assert_eq!(odd.stretch(0).map(|s| s.plain), Some(0));
}
