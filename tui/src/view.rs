//! Drawing one frame from an [`App`]: the core grid (or a network's link
//! loads), the pane beside it, the status line and the help. Pure: the
//! same app gives the same frame, which the snapshot tests rely on.

use epsim_isa::state::status;
use epsim_mesh::Dir;
use epsim_sim::timing::Stall;
use epsim_sim::view::{Activity, CoreView, Load};
use epsim_sim::Mode;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::app::{App, GridMode, Pane};
use crate::input::HELP;

/// Columns of one grid cell, the gap included.
const CELL_W: u16 = 11;
/// Lines of one grid cell.
const CELL_H: u16 = 2;

/// Draws the whole screen.
pub fn render(frame: &mut Frame, app: &App) {
    let [main, status] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(frame.area());
    // The grid takes what its cells need, up to 60 % of the width; the
    // pane the rest (at least 40 columns when there is room).
    let need = app.view.cols as u16 * CELL_W + 2;
    let grid_w = need.min(main.width.saturating_sub(40).max(main.width * 3 / 5));
    let [grid, pane] =
        Layout::horizontal([Constraint::Length(grid_w), Constraint::Min(0)]).areas(main);
    render_grid(frame, grid, app);
    match app.ui.pane {
        Pane::Detail => render_detail(frame, pane, app),
        Pane::Dma => render_dma(frame, pane, app),
        Pane::Output => render_output(frame, pane, app),
    }
    render_status(frame, status, app);
    if app.ui.help {
        render_help(frame, frame.area());
    }
}

/// Recent instructions per cycle of a core: since the previous frame, or
/// since reset when no cycle has passed since.
fn recent_ipc(now: &CoreView, prev: Option<&CoreView>) -> f64 {
    let (di, dc) = match prev {
        Some(p) if now.cycles > p.cycles => (now.instret - p.instret, now.cycles - p.cycles),
        _ => (now.instret, now.cycles),
    };
    if dc == 0 {
        0.0
    } else {
        di as f64 / dc as f64
    }
}

/// The reason most of a core's recent cycles stalled for, if most did.
fn recent_stall(now: &CoreView, prev: Option<&CoreView>) -> Option<Stall> {
    let p = prev?;
    let dc = now.cycles.checked_sub(p.cycles).filter(|&d| d > 0)?;
    let (i, most) = now
        .stalls
        .iter()
        .zip(p.stalls)
        .map(|(a, b)| a - b)
        .enumerate()
        .max_by_key(|&(i, d)| (d, std::cmp::Reverse(i)))?;
    let total: u64 = now.stalls.iter().zip(p.stalls).map(|(a, b)| a - b).sum();
    (total * 2 > dc && most > 0).then(|| Stall::ALL[i])
}

/// What a core is doing, for its colour and the detail pane.
fn state(now: &CoreView, prev: Option<&CoreView>) -> (String, Color) {
    match now.activity {
        Activity::Running => match recent_stall(now, prev) {
            Some(s) => (format!("stalled ({})", s.name()), Color::Yellow),
            None => ("running".into(), Color::Green),
        },
        Activity::Interrupt => ("in interrupt".into(), Color::Cyan),
        Activity::RemoteWait => ("waiting on remote read".into(), Color::Magenta),
        Activity::Idle => ("idle".into(), Color::Blue),
        Activity::Halted => ("halted".into(), Color::Red),
        Activity::Exited(s) => (format!("exited ({s})"), Color::DarkGray),
        Activity::Unused => ("unused".into(), Color::DarkGray),
    }
}

/// A word for a core's state that fits a grid cell beside its PC (the
/// colour says it too, but not to everyone).
fn tag(now: &CoreView, prev: Option<&CoreView>) -> String {
    match now.activity {
        Activity::Running if recent_stall(now, prev).is_some() => "stall".into(),
        Activity::Running => "run".into(),
        Activity::Interrupt => "irq".into(),
        Activity::RemoteWait => "wait".into(),
        Activity::Idle => "idle".into(),
        Activity::Halted => "halt".into(),
        Activity::Exited(s) => format!("x{s}"),
        Activity::Unused => "-".into(),
    }
}

/// The first of `n` visible items that keeps `sel` in view.
fn scroll(sel: u32, visible: u32, total: u32) -> u32 {
    if visible == 0 || total <= visible {
        0
    } else {
        sel.saturating_sub(visible - 1).min(total - visible)
    }
}

/// Busy fraction of a link between two snapshots of its load.
fn busy(now: Load, prev: Load, cycles: u64) -> f64 {
    if cycles == 0 {
        return 0.0;
    }
    let d = now.busy_half_cycles.saturating_sub(prev.busy_half_cycles);
    (d as f64 / (2.0 * cycles as f64)).min(1.0)
}

/// The busiest outgoing link of node `n` on the grid's network: its
/// direction and busy fraction since the previous frame (since reset when
/// no cycle passed).
fn node_load(app: &App, n: usize) -> Option<(Dir, f64)> {
    let net = match app.ui.grid {
        GridMode::Cores => return None,
        GridMode::CMesh => epsim_mesh::Net::CMesh,
        GridMode::RMesh => epsim_mesh::Net::RMesh,
        GridMode::XMesh | GridMode::ELink => epsim_mesh::Net::XMesh,
    };
    let now = app.view.mesh.as_ref()?.net(net);
    let dc = app.view.cycle.saturating_sub(app.prev.cycle);
    let prev = app
        .prev
        .mesh
        .as_ref()
        .map(|m| m.net(net))
        .filter(|_| dc > 0);
    let cycles = if dc > 0 { dc } else { app.view.cycle };
    Dir::ALL
        .iter()
        .filter(|&&d| d != Dir::Local)
        .map(|&d| {
            let k = n * 5 + d.index();
            let p = prev.map_or(Load::default(), |p| p[k]);
            (d, busy(now[k], p, cycles))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The eLink's busy share out and in since the previous frame (since reset
/// when no cycle passed), with the mesh's loads.
fn elink_load(app: &App) -> Option<(f64, f64, &epsim_sim::view::MeshLoad)> {
    let m = app.view.mesh.as_ref()?;
    let dc = app.view.cycle.saturating_sub(app.prev.cycle);
    let (ptx, prx, cycles) = match &app.prev.mesh {
        Some(p) if dc > 0 => (p.elink_tx, p.elink_rx, dc),
        _ => (Load::default(), Load::default(), app.view.cycle),
    };
    Some((
        busy(m.elink_tx, ptx, cycles),
        busy(m.elink_rx, prx, cycles),
        m,
    ))
}

fn load_color(f: f64) -> Color {
    if f < 0.01 {
        Color::DarkGray
    } else if f < 0.25 {
        Color::Green
    } else if f < 0.5 {
        Color::Yellow
    } else if f < 0.75 {
        Color::LightRed
    } else {
        Color::Red
    }
}

fn dir_name(d: Dir) -> &'static str {
    match d {
        Dir::North => "N",
        Dir::East => "E",
        Dir::South => "S",
        Dir::West => "W",
        Dir::Local => "L",
    }
}

fn render_grid(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.view;
    let title = match (app.ui.grid, elink_load(app)) {
        (GridMode::ELink, Some((out, inn, _))) => format!(
            " eLink out {:.0}% in {:.0}% · xMesh · {}x{} ",
            out * 100.0,
            inn * 100.0,
            v.rows,
            v.cols
        ),
        _ => format!(" {} · {}x{} ", app.ui.grid.title(), v.rows, v.cols),
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let vis_cols = (inner.width / CELL_W) as u32;
    let vis_rows = (inner.height / CELL_H) as u32;
    let (sel_r, sel_c) = app.ui.selected;
    let top = scroll(sel_r, vis_rows, v.rows);
    let left = scroll(sel_c, vis_cols, v.cols);
    let mut lines = Vec::new();
    for r in top..(top + vis_rows).min(v.rows) {
        let mut l1 = Vec::new();
        let mut l2 = Vec::new();
        for c in left..(left + vis_cols).min(v.cols) {
            let n = (r * v.cols + c) as usize;
            let core = &v.cores[n];
            let prev = app.prev.cores.get(n);
            let coords = format!("{},{}", core.id.row, core.id.col);
            let (top_text, bottom, color) = match node_load(app, n) {
                Some((d, f)) => (
                    coords,
                    format!("{} {:>3.0}%", dir_name(d), f * 100.0),
                    load_color(f),
                ),
                None if app.ui.grid != GridMode::Cores => {
                    (coords, "no mesh".to_string(), Color::DarkGray)
                }
                None => {
                    let (_, color) = state(core, prev);
                    let ipc = recent_ipc(core, prev);
                    let tag = tag(core, prev);
                    let pc = if core.pc <= 0xFFFF {
                        format!("{:04x} {tag}", core.pc)
                    } else {
                        format!("{:08x}{}", core.pc, &tag[..1])
                    };
                    (format!("{coords:<6}{ipc:>4.2}"), pc, color)
                }
            };
            let mut style = Style::new().fg(Color::Black).bg(color);
            if (r, c) == (sel_r, sel_c) {
                style = style.add_modifier(Modifier::BOLD | Modifier::REVERSED);
            }
            l1.push(Span::styled(format!("{top_text:<10.10}"), style));
            l1.push(Span::raw(" "));
            l2.push(Span::styled(format!("{bottom:<10.10}"), style));
            l2.push(Span::raw(" "));
        }
        lines.push(Line::from(l1));
        lines.push(Line::from(l2));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn flag(on: bool, name: &'static str) -> Span<'static> {
    if on {
        Span::styled(name, Style::new().add_modifier(Modifier::BOLD))
    } else {
        Span::styled(name, Style::new().fg(Color::DarkGray))
    }
}

fn render_detail(frame: &mut Frame, area: Rect, app: &App) {
    let id = app.selected_id();
    let block = Block::bordered().title(format!(" core ({},{}) ", id.row, id.col));
    let Some(d) = &app.detail else {
        frame.render_widget(Paragraph::new("not on the chip").block(block), area);
        return;
    };
    let Some(core) = app.view.core(id) else {
        frame.render_widget(Paragraph::new("not on the chip").block(block), area);
        return;
    };
    let prev = app.prev.core(id);
    let s = &d.regs;
    let (what, color) = state(core, prev);
    let mut lines = vec![
        Line::from(vec![
            Span::styled(what, Style::new().fg(color).add_modifier(Modifier::BOLD)),
            Span::raw(format!(
                "  pc {:08x}  ipc {:.2}",
                s.pc,
                recent_ipc(core, prev)
            )),
        ]),
        Line::raw(format!(
            "instret {}  cycles {}  dual {}",
            core.instret, core.cycles, core.dual
        )),
    ];
    // Four registers a line, sixteen a page; two and eight in a narrow
    // pane.
    let narrow = area.width < 54;
    let (per_line, per_page) = if narrow { (2, 8) } else { (4, 16) };
    let page = app.ui.reg_page as usize % (64 / per_page) * per_page;
    for row in 0..per_page / per_line {
        let mut text = String::new();
        for col in 0..per_line {
            let r = page + row * per_line + col;
            let name = match r {
                13 => "sp".to_string(),
                14 => "lr".to_string(),
                11 => "fp".to_string(),
                _ => format!("r{r}"),
            };
            text.push_str(&format!("{name:>3} {:08x} ", s.r[r]));
        }
        lines.push(Line::raw(text.trim_end().to_string()));
    }
    let flags = [
        (status::AN, "AN"),
        (status::AZ, "AZ"),
        (status::AC, "AC"),
        (status::AV, "AV"),
        (status::AVS, "AVS"),
        (status::BN, "BN"),
        (status::BZ, "BZ"),
        (status::BV, "BV"),
        (status::BVS, "BVS"),
        (status::BUS, "BUS"),
        (status::BIS, "BIS"),
    ]
    .map(|(bit, name)| (s.status & bit != 0, name));
    if narrow {
        // Only the flags that are set.
        let set: Vec<&str> = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
        lines.push(Line::raw(format!("flags {}", set.join(" "))));
        lines.push(Line::raw(format!(
            "ILAT {:03x} IMASK {:03x} IPEND {:03x}",
            s.ilat, s.imask, s.ipend
        )));
        lines.push(Line::raw(format!(
            "STATUS {:08x} CONFIG {:08x}",
            s.status, s.config
        )));
        lines.push(Line::raw(format!(
            "CTIMER {:08x} {:08x}",
            s.ctimer0, s.ctimer1
        )));
    } else {
        let mut spans = vec![Span::raw("flags")];
        for (on, name) in flags {
            spans.push(Span::raw(" "));
            spans.push(flag(on, name));
        }
        lines.push(Line::from(spans));
        lines.push(Line::raw(format!(
            "ILAT {:03x} IMASK {:03x} IPEND {:03x} STATUS {:08x}",
            s.ilat, s.imask, s.ipend, s.status
        )));
        lines.push(Line::raw(format!(
            "CTIMER0 {:08x} CTIMER1 {:08x} CONFIG {:08x}",
            s.ctimer0, s.ctimer1, s.config
        )));
    }
    lines.push(Line::raw(format!(
        "LC {:x} LS {:x} LE {:x} IRET {:x}",
        s.lc, s.ls, s.le, s.iret
    )));
    for c in &d.code {
        let here = c.addr == s.pc;
        let text = format!(
            "{} {:08x}  {}",
            if here { ">" } else { " " },
            c.addr,
            c.text
        );
        lines.push(if here {
            Line::styled(text, Style::new().add_modifier(Modifier::BOLD))
        } else {
            Line::raw(text)
        });
    }
    if app.view.mode == Mode::Timed {
        let stalls: Vec<String> = Stall::ALL
            .iter()
            .zip(core.stalls)
            .filter(|&(_, n)| n > 0)
            .map(|(s, n)| format!("{} {n}", s.name()))
            .collect();
        lines.push(Line::raw(format!(
            "stalls: {}",
            if stalls.is_empty() {
                "none".to_string()
            } else {
                stalls.join(", ")
            }
        )));
    }
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}

fn render_dma(frame: &mut Frame, area: Rect, app: &App) {
    let id = app.selected_id();
    let block = Block::bordered().title(format!(" DMA ({},{}) · queues ", id.row, id.col));
    let mut lines = Vec::new();
    if let Some(d) = &app.detail {
        for (i, ch) in d.dma.iter().enumerate() {
            lines.push(Line::from(vec![
                Span::styled(
                    format!("DMA{i} {:<6}", ch.state_name()),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::raw(format!(
                    " config {:08x} descriptor {:04x}",
                    ch.config,
                    ch.descriptor()
                )),
            ]));
            lines.push(Line::raw(format!(
                "  left {} x {}  src {:08x}  dst {:08x}",
                ch.count >> 16,
                ch.count & 0xFFFF,
                ch.src,
                ch.dst
            )));
        }
    }
    lines.push(Line::raw(""));
    match elink_load(app) {
        Some((out, inn, m)) => lines.push(Line::raw(format!(
            "eLink  out {:>3.0}%  in {:>3.0}%  ({} / {} packets)",
            out * 100.0,
            inn * 100.0,
            m.elink_tx.packets,
            m.elink_rx.packets
        ))),
        None => lines.push(Line::raw("eLink  (timed mode only)")),
    }
    lines.push(Line::raw(""));
    lines.push(Line::raw(
        "host queues: no host program drives this run (kernel launches queue here)",
    ));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}

fn render_output(frame: &mut Frame, area: Rect, app: &App) {
    let block = Block::bordered().title(" output ");
    let inner_h = area.height.saturating_sub(2) as usize;
    let out = app
        .output
        .as_deref()
        .unwrap_or("(output: on the host program's terminal)");
    let lines: Vec<Line> = out
        .lines()
        .rev()
        .take(inner_h)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|l| Line::raw(l.to_string()))
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn render_status(frame: &mut Frame, area: Rect, app: &App) {
    let v = &app.view;
    let mode = match v.mode {
        Mode::Timed => "timed",
        Mode::Functional => "functional",
    };
    let run = if app.stop.is_some() {
        "ended".to_string()
    } else if app.ui.running {
        format!("running {}/frame", app.ui.speed)
    } else {
        "paused".to_string()
    };
    let id = app.selected_id();
    let mut text = format!(
        " cycle {} · {:.3} µs · {mode} · {run} · N={} · ({},{}) · ? help",
        v.cycle,
        v.ns as f64 / 1000.0,
        app.ui.step_n,
        id.row,
        id.col
    );
    if let Some(note) = &app.ui.note {
        text.push_str(" · ");
        text.push_str(note);
    }
    frame.render_widget(
        Paragraph::new(text).style(Style::new().add_modifier(Modifier::REVERSED)),
        area,
    );
}

fn render_help(frame: &mut Frame, area: Rect) {
    let w = 62.min(area.width);
    let h = (HELP.len() as u16 + 2).min(area.height);
    let popup = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    let lines: Vec<Line> = HELP
        .iter()
        .map(|(k, what)| Line::raw(format!("{k:>12}  {what}")))
        .collect();
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" keys ")),
        popup,
    );
}
