//! client-go release profiles: what a shared informer does in each release, as the defaults
//! of client-go's feature gates (`staging/src/k8s.io/client-go/features/known_features.go` at
//! each release tag) decide it.
//!
//! | gate (known_features.go) | 1.32 | 1.33 | 1.34 | 1.35 | 1.36 | 1.37 |
//! |---|---|---|---|---|---|---|
//! | InOrderInformers (RealFIFO) | – | Beta, on | Beta, on | Beta, on | GA, on | GA, on |
//! | InOrderInformersBatchProcess (PopBatch) | – | – | – | Beta, on | Beta, on | Beta, on |
//! | WatchListClient (streaming list) | Beta, off | Beta, off | Beta, off | Beta, on | Beta, on | Beta, on |
//! | AtomicFIFO (ReplacedAll/SyncAll/Bookmark) | – | – | – | – | Beta, on | Beta, on |
//! | UnlockWhileProcessingFIFO | – | – | – | – | Beta, on | Beta, on |
//!
//! 1.37 changed no gate (`features/known_features.go` is byte-identical in v0.36.3 and
//! v0.37.0) and none of the pipeline's code; what an informer does differently is that a
//! handler can be shut down (`cache.ShutDownEventHandler`, shared_informer.go
//! v0.37:1032-1042): removed, then waited for until its in-flight callback has returned.
//! kinformer removes handlers that way under 1.37 (scenario steps, `top`'s `r`), and with
//! `RemoveEventHandler` before.
//!
//! The reflector's backoff has the same ladder in every profile (800 ms doubling to a 30 s cap,
//! jitter 1.0, one delay function shared by the outer loop and the watch retries) but not the
//! same reset (Rule R12): ≤ 1.35's `ExponentialBackoffManager` (reflector.go v0.35:282) starts
//! again at 0.8 s only after 2 min *without a backoff*, so a continuous outage stays at
//! 30–60 s; 1.36's `wait.Backoff.DelayWithReset` (reflector.go v0.36:319-336) starts again
//! every 2 min counted from the last reset, even during an outage.

use super::queue::QueueKind;
use super::real_fifo::RealFifoOptions;
use super::reflector::BackoffReset;

/// One client-go release's informer behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// `1.32` … `1.37`.
    pub version: &'static str,
    /// `InOrderInformers`: RealFIFO instead of DeltaFIFO.
    pub in_order_informers: bool,
    /// `InOrderInformersBatchProcess`: RealFIFO pops batches of distinct keys.
    pub batch_process: bool,
    /// `WatchListClient`: the initial list is streamed (falls back to LIST, Rule R9).
    pub watch_list_client: bool,
    /// `AtomicFIFO`: Replace, Resync and bookmarks are single queue entries.
    pub atomic_fifo: bool,
    /// `UnlockWhileProcessingFIFO`: writes queue while an entry is processed.
    pub unlock_while_processing: bool,
    /// When the reflector's backoff starts again at 0.8 s (Rule R12).
    pub backoff_reset: BackoffReset,
    /// `InOrderInformers` is GA and locked on: DeltaFIFO cannot be chosen (Rule Q2).
    pub in_order_informers_locked: bool,
    /// `ShutDownEventHandler` exists: removing a handler waits for its in-flight callback
    /// (Rule P6).
    pub shut_down_event_handler: bool,
}

/// Every modelled release, oldest first.
pub const PROFILES: [Profile; 6] = [
    Profile {
        version: "1.32",
        in_order_informers: false,
        batch_process: false,
        watch_list_client: false,
        atomic_fifo: false,
        unlock_while_processing: false,
        backoff_reset: BackoffReset::AfterQuietPeriod,
        in_order_informers_locked: false,
        shut_down_event_handler: false,
    },
    Profile {
        version: "1.33",
        in_order_informers: true,
        batch_process: false,
        watch_list_client: false,
        atomic_fifo: false,
        unlock_while_processing: false,
        backoff_reset: BackoffReset::AfterQuietPeriod,
        in_order_informers_locked: false,
        shut_down_event_handler: false,
    },
    Profile {
        version: "1.34",
        in_order_informers: true,
        batch_process: false,
        watch_list_client: false,
        atomic_fifo: false,
        unlock_while_processing: false,
        backoff_reset: BackoffReset::AfterQuietPeriod,
        in_order_informers_locked: false,
        shut_down_event_handler: false,
    },
    Profile {
        version: "1.35",
        in_order_informers: true,
        batch_process: true,
        watch_list_client: true,
        atomic_fifo: false,
        unlock_while_processing: false,
        backoff_reset: BackoffReset::AfterQuietPeriod,
        in_order_informers_locked: false,
        shut_down_event_handler: false,
    },
    Profile {
        version: "1.36",
        in_order_informers: true,
        batch_process: true,
        watch_list_client: true,
        atomic_fifo: true,
        unlock_while_processing: true,
        backoff_reset: BackoffReset::Interval,
        in_order_informers_locked: true,
        shut_down_event_handler: false,
    },
    Profile {
        version: "1.37",
        in_order_informers: true,
        batch_process: true,
        watch_list_client: true,
        atomic_fifo: true,
        unlock_while_processing: true,
        backoff_reset: BackoffReset::Interval,
        in_order_informers_locked: true,
        shut_down_event_handler: true,
    },
];

/// The newest release modelled: the default.
pub const NEWEST: &str = "1.37";

/// A version no profile models.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("client-go {0:?} is not modelled (one of 1.32, 1.33, 1.34, 1.35, 1.36, 1.37)")]
pub struct UnknownVersion(pub String);

impl Profile {
    /// The profile of `version` (`1.35`, `v1.35`, `1.35.2` or `0.35` — client-go's own tag).
    pub fn of(version: &str) -> Result<&'static Profile, UnknownVersion> {
        let v = version.trim_start_matches('v');
        let mut parts = v.split('.');
        let minor = match (parts.next(), parts.next()) {
            (Some("1" | "0"), Some(minor)) => minor,
            _ => return Err(UnknownVersion(version.to_owned())),
        };
        PROFILES
            .iter()
            .find(|p| p.version.strip_prefix("1.") == Some(minor))
            .ok_or_else(|| UnknownVersion(version.to_owned()))
    }

    /// The newest modelled release.
    pub fn newest() -> &'static Profile {
        &PROFILES[PROFILES.len() - 1]
    }

    /// The queue this release's informers use.
    pub fn queue(&self) -> QueueKind {
        if self.in_order_informers {
            QueueKind::RealFifo
        } else {
            QueueKind::DeltaFifo
        }
    }

    /// This release's RealFIFO behaviours.
    pub fn real_fifo(&self) -> RealFifoOptions {
        RealFifoOptions {
            pop_batch: self.batch_process,
            atomic_events: self.atomic_fifo,
            unlock_while_processing: self.unlock_while_processing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_in_every_spelling_and_unknown_ones_are_named() {
        for v in ["1.35", "v1.35", "1.35.2", "0.35", "v0.35.7"] {
            assert_eq!(Profile::of(v).unwrap().version, "1.35", "{v}");
        }
        for v in ["1.37", "v0.37.2"] {
            assert_eq!(Profile::of(v).unwrap().version, "1.37", "{v}");
        }
        for v in ["1.31", "1.38", "2.0", "", "latest"] {
            assert_eq!(Profile::of(v), Err(UnknownVersion(v.to_owned())));
        }
        assert_eq!(Profile::newest().version, NEWEST);
    }
}
