//! The server's history for the side-by-side test (`oracle_side_by_side`): a plain watch of
//! pods run by the test next to the two informers, from the resourceVersion the server had
//! before the scenario's first write, recording per object each stored state (`S:rv`) and each
//! deletion (`D`) in the server's order.
//!
//! The watch meets the scenario's faults like any client. A clean end or a broken connection
//! (close-watches, restart, cut-watch, an injected failure of its request) is re-watched at
//! once from the last resourceVersion it saw: the server's kept history (10 000 events) still
//! has every event. A 410 (expire-all, trim-history) cannot be resumed: the watch lists at
//! once, records each object's listed state and each missing object's deletion, and notes the
//! gap `(last rv, list rv]`, whose intermediate states it never saw. An informer can be handed
//! one of them (its own relist or watch fell inside the gap: seed 1 showed it, the one-shot
//! delays of expire-mid-list holding the history watch's requests back), so the side-by-side
//! check treats a state inside a gap as unknown, not as wrong.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams, WatchParams};
use kube::core::WatchEvent;
use tokio::sync::watch;

/// Per `namespace/name`: `S:rv` per stored state, `D` per deletion, in the server's order.
pub type History = BTreeMap<String, Vec<String>>;

/// What the watch saw: the history and the gaps a 410 left, as `(after rv, up to rv)`.
#[derive(Default, Debug, Clone)]
pub struct Seen {
    pub history: History,
    pub gaps: Vec<(u64, u64)>,
}

impl Seen {
    fn state(&mut self, key: String, token: String) {
        let states = self.history.entry(key).or_default();
        if states.last() != Some(&token) {
            states.push(token);
        }
    }

    /// The gap a resourceVersion falls in, if any.
    pub fn gap_of(&self, rv: u64) -> Option<(u64, u64)> {
        self.gaps
            .iter()
            .copied()
            .find(|(after, upto)| *after < rv && rv <= *upto)
    }
}

/// The running history watch; [`HistoryWatch::stop`] ends it and returns what it saw.
pub struct HistoryWatch {
    seen: Arc<Mutex<Seen>>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl HistoryWatch {
    /// Starts watching pods from resourceVersion `from` (the server's before any write).
    pub fn start(client: kube::Client, from: u64) -> Self {
        let gvk = GroupVersionKind::gvk("", "v1", "Pod");
        let api: Api<DynamicObject> =
            Api::all_with(client, &ApiResource::from_gvk_with_plural(&gvk, "pods"));
        let seen = Arc::new(Mutex::new(Seen::default()));
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(follow(api, from.to_string(), seen.clone(), stopped));
        Self { seen, stop, task }
    }

    pub async fn stop(self) -> Seen {
        self.stop.send_replace(true);
        self.task.await.expect("the history watch panicked");
        self.seen.lock().unwrap().clone()
    }
}

/// Watches until stopped, resuming and relisting as the module doc says.
async fn follow(
    api: Api<DynamicObject>,
    mut rv: String,
    seen: Arc<Mutex<Seen>>,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let round = async {
            match watch_once(&api, &mut rv, &seen).await {
                Ended::Expired => relist(&api, &mut rv, &seen).await,
                Ended::Resumable => {}
            }
        };
        tokio::select! {
            _ = stopped.wait_for(|s| *s) => return,
            () = round => {}
        }
    }
}

enum Ended {
    Resumable,
    Expired,
}

fn key_rv(o: &DynamicObject) -> (String, String) {
    let ns = o.metadata.namespace.clone().unwrap_or_default();
    let name = o.metadata.name.clone().unwrap_or_default();
    let rv = o.metadata.resource_version.clone().unwrap_or_default();
    (format!("{ns}/{name}"), rv)
}

async fn watch_once(api: &Api<DynamicObject>, rv: &mut String, seen: &Mutex<Seen>) -> Ended {
    let params = WatchParams::default().timeout(290);
    let stream = match api.watch(&params, rv).await {
        Ok(stream) => stream,
        Err(kube::Error::Api(s)) if s.code == 410 => return Ended::Expired,
        Err(_) => return Ended::Resumable,
    };
    let mut stream = stream.boxed();
    while let Ok(Some(event)) = stream.try_next().await {
        let (key, token, at) = match event {
            WatchEvent::Added(o) | WatchEvent::Modified(o) => {
                let (key, at) = key_rv(&o);
                (key, format!("S:{at}"), at)
            }
            WatchEvent::Deleted(o) => {
                let (key, at) = key_rv(&o);
                (key, "D".to_owned(), at)
            }
            WatchEvent::Bookmark(b) => {
                *rv = b.metadata.resource_version;
                continue;
            }
            WatchEvent::Error(s) if s.code == 410 => return Ended::Expired,
            WatchEvent::Error(_) => return Ended::Resumable,
        };
        seen.lock().unwrap().state(key, token);
        *rv = at;
    }
    Ended::Resumable
}

/// After a 410: lists until a LIST succeeds, records the gap and the listed states.
async fn relist(api: &Api<DynamicObject>, rv: &mut String, seen: &Mutex<Seen>) {
    let list = loop {
        match api.list(&ListParams::default()).await {
            Ok(list) => break list,
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    let at = list.metadata.resource_version.clone().unwrap_or_default();
    let mut seen = seen.lock().unwrap();
    let listed: BTreeMap<String, String> = list.items.iter().map(key_rv).collect();
    let gone: Vec<String> = seen
        .history
        .iter()
        .filter(|(key, states)| {
            !listed.contains_key(*key) && states.last().is_some_and(|s| s != "D")
        })
        .map(|(key, _)| key.clone())
        .collect();
    for key in gone {
        seen.state(key, "D".to_owned());
    }
    for (key, state) in listed {
        seen.state(key, format!("S:{state}"));
    }
    if let (Ok(after), Ok(upto)) = (rv.parse(), at.parse()) {
        seen.gaps.push((after, upto));
    }
    *rv = at;
}
