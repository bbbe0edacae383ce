//! `epsim-tui`: a live terminal view of a simulated Epiphany chip.
//!
//! The [`app::App`] owns the `Machine` and steps it in batches between
//! frames; [`view::render`] draws a frame from the app without changing
//! it; [`input::action`] maps keys to the controls.

pub mod app;
pub mod input;
pub mod remote;
pub mod view;

pub use app::{Action, App, Driver, GridMode, Pane, UiState};
