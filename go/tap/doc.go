// Package tap shows a Go controller's own informers in kinformer's views: every LIST and WATCH
// its clients make, every object entering an informer's queue, every notification each handler
// gets — queued, started, finished, and the handler's backlog at that moment — and diagnoses
// (an informer not synced after N seconds and the request that keeps failing; a handler whose
// backlog keeps growing). It writes kinformer's JSONL trace vocabulary (docs/jsonl.md) to a
// bounded file or streams it from a loopback HTTP endpoint; `kinformer report`, `explain` and
// `top --attach` read it.
//
// Two lines adopt it:
//
//	config = tap.Config(config)                 // the REST traffic, in process
//	informer = tap.Informer(informer, "pods")   // its queue and handlers, named by resource
//
// Where it writes comes from Start, or from the environment on first use:
// KINFORMER_TAP=file:/tmp/tap.jsonl or KINFORMER_TAP=listen:127.0.0.1:7070. Without either the
// tap is off and both calls return what they were given. The tap never blocks the controller:
// lines go through a bounded buffer, and lines that do not fit are dropped and counted.
package tap
