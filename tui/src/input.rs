//! Keys to actions.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::{Action, Pane};

/// The action of a key press, if it has one.
pub fn action(key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    Some(match key.code {
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        KeyCode::Char(' ') => Action::Toggle,
        KeyCode::Char('.') => Action::StepCycle,
        KeyCode::Char('s') => Action::StepInstruction,
        KeyCode::Char('n') => Action::StepN,
        KeyCode::Char('>') => Action::MoreN,
        KeyCode::Char('<') => Action::LessN,
        KeyCode::Char('+') | KeyCode::Char('=') => Action::Faster,
        KeyCode::Char('-') => Action::Slower,
        KeyCode::Up | KeyCode::Char('k') => Action::Select(-1, 0),
        KeyCode::Down | KeyCode::Char('j') => Action::Select(1, 0),
        KeyCode::Left | KeyCode::Char('h') => Action::Select(0, -1),
        KeyCode::Right | KeyCode::Char('l') => Action::Select(0, 1),
        KeyCode::Char('m') => Action::NextGrid,
        KeyCode::Char('1') => Action::Show(Pane::Detail),
        KeyCode::Char('2') => Action::Show(Pane::Dma),
        KeyCode::Char('3') => Action::Show(Pane::Output),
        KeyCode::Char('r') => Action::NextRegs,
        KeyCode::Char('?') => Action::Help,
        _ => return None,
    })
}

/// The help text: key, what it does.
pub const HELP: &[(&str, &str)] = &[
    ("space", "run / pause"),
    (".", "step one cycle"),
    ("s", "step one instruction of the selected core"),
    ("n", "step N cycles"),
    ("< >", "N / 10, N x 10"),
    ("- +", "speed (cycles per frame) / 10, x 10"),
    ("arrows hjkl", "select a core"),
    ("m", "grid: cores, cMesh, rMesh, xMesh, eLink"),
    ("1 2 3", "pane: core detail, DMA and queues, output"),
    ("r", "next page of registers"),
    ("?", "this help"),
    ("q Esc", "quit"),
];
