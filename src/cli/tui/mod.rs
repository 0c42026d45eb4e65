//! The terminal view of `kinformer top` and `replay --top`: a live picture of the informer's
//! pipeline; `top --attach` draws a Go tap's informers ([`attach`]).
//!
//! The informer's trace events (every stage) feed a [`model::Model`]; every 100 ms the clock
//! ticks the model (with the Indexer's contents read from the informer's cache) and
//! [`render::render`] draws it. Keys: `q`/Esc quit, Ctrl-C quits as SIGINT does (exit 130),
//! `p` freezes the view while the pipeline keeps running, `a` adds a simulated handler to the
//! running informer (client-go's AddEventHandler after start), `r` removes the most recently
//! added one (RemoveEventHandler), `e` shows the last events, ↑/↓ scroll collapsed lanes.
//!
//! Raw mode and the alternate screen are left on every way out: quit, error, signal
//! and panic (a [`screen::Screen`] guard restores them when dropped, its panic hook before a
//! panic message prints).

mod attach;
mod fit;
#[cfg(test)]
mod fixtures;
mod model;
mod render;
mod screen;
mod view;
mod window;

pub(in crate::cli) use attach::attach;
pub(in crate::cli) use view::view;
