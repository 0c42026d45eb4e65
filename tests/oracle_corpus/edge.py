#!/usr/bin/env python3
"""The hand-made edge cases of the oracle corpus (docs/oracle.md), written as kinformer record
files into the directory given (scripts/oracle-corpus: tests/oracle_corpus/edge). Requests are
recorded as client-go asks them where known; where a replay asks otherwise, both kinformer and
the oracle note it, and the notes are compared too. A relist comes after a jittered backoff whose
draw differs between kinformer and client-go, so cases with a relist end well after it (a quiet
tail), for the end not to cut a handler's backlog at different points."""
import json
import sys

HEADER = {"kinformer-record": 1, "created": "2026-11-22T10:00:00Z", "server_version": "v1.36.0",
          "client_go": "1.36", "resources": ["pods"]}


def pod(name, rv, ns="default"):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "resourceVersion": str(rv)}}


def managed_pod(name, rv, manager):
    """A pod with managedFields, which --transform strip-managed-fields (SetTransform) drops."""
    p = pod(name, rv)
    p["metadata"]["managedFields"] = [{"manager": manager, "operation": "Update", "apiVersion": "v1",
                                       "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {}}}]
    return p


def meta(name, rv, ns="default"):
    """A metadata-only object, as a metadata informer's LIST and WATCH carry it."""
    return {"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
            "metadata": {"name": name, "namespace": ns, "resourceVersion": str(rv),
                         "labels": {"app": "demo"}}}


def lst(t, rv, limit=500, cont=None):
    d = {"rv": rv}
    if limit:
        d["limit"] = limit
    if cont:
        d["continue"] = cont
    return {"t": t, "r": "pods", "list": d}


def page(t, rv, items, cont=None):
    return {"t": t, "r": "pods", "page": {"rv": rv, "continue": cont, "items": items}}


def watch(t, rv, initial_events=False):
    return {"t": t, "r": "pods", "watch": {"rv": rv, "timeout_s": 300, "initial_events": initial_events}}


def frame(t, kind, obj):
    return {"t": t, "r": "pods", "frame": {"type": kind, "object": obj}}


def bookmark(t, rv, end=False):
    return {"t": t, "r": "pods", "frame": {"type": "BOOKMARK", "rv": str(rv), "initial_events_end": end}}


def expired(t, as_frame=True):
    status = {"kind": "api", "code": 410, "reason": "Expired", "message": "too old resource version"}
    return {"t": t, "r": "pods", ("frame" if as_frame else "error"):
            ({"type": "ERROR", "status": status} if as_frame else status)}


def stream_error(t, kind):
    return {"t": t, "r": "pods", "stream_error": {"kind": kind, "message": f"stream {kind}"}}


def refused(t):
    return {"t": t, "r": "pods", "error": {"kind": "refused", "message": "connection refused"}}


def end(t):
    return {"t": t, "r": "pods", "end": True}


def stopped(t):
    return {"t": t, "stopped": True}


CASES = {
    # resync ticks with equal RVs (sync updates), one real update between them
    "resync-equal-rv": [
        lst(0, "0"), page(5, "10", [pod("a", 5), pod("b", 7), pod("c", 9)]), watch(6, "10"),
        frame(2500, "MODIFIED", pod("b", 11)), stopped(7500)],
    # a 410 on the watch, the relist lacks b: b's delete is a tombstone
    "tombstone-on-relist": [
        lst(0, "0"), page(5, "10", [pod("a", 5), pod("b", 7)]), watch(6, "10"),
        frame(500, "MODIFIED", pod("a", 11)), expired(1000), lst(1000, "11", 0),
        page(1010, "20", [pod("a", 15), pod("c", 18)]), watch(1011, "20"),
        frame(1500, "DELETED", pod("c", 21)), stopped(6000)],
    # a relist while a slow handler is far behind
    "relist-while-behind": [
        lst(0, "0"), page(5, "10", [pod(f"p{i}", i + 1) for i in range(8)]), watch(6, "10")]
    + [frame(100 + 50 * i, "MODIFIED", pod(f"p{i}", 20 + i)) for i in range(8)]
    + [expired(600), lst(600, "27", 0),
       page(610, "40", [pod(f"p{i}", 30 + i) for i in range(0, 8, 2)] + [pod("q", 39)]),
       watch(611, "40"), frame(900, "ADDED", pod("r", 41)), stopped(8000)],
    # a watch of bookmarks only, ended and reopened from the last bookmark
    "bookmarks-only": [
        lst(0, "0"), page(5, "10", [pod("a", 5)]), watch(6, "10"), bookmark(1000, 12),
        bookmark(2000, 15), bookmark(3000, 19), end(3500), watch(3500, "19"), bookmark(4000, 22),
        stopped(5000)],
    # watch-list with the initial-events-end bookmark
    "watch-list-with-end-bookmark": [
        watch(0, "", True), frame(10, "ADDED", pod("a", 5)), frame(11, "ADDED", pod("b", 7)),
        bookmark(12, 10, True), frame(800, "MODIFIED", pod("a", 12)),
        frame(1200, "DELETED", pod("b", 13)), stopped(3000)],
    # watch-list whose initial-events-end bookmark never comes
    "watch-list-without-end-bookmark": [
        watch(0, "", True), frame(10, "ADDED", pod("a", 5)), frame(11, "ADDED", pod("b", 7)),
        frame(800, "MODIFIED", pod("a", 12)), stopped(3000)],
    # a LIST answered at resourceVersion "": the watch from "" starts with synthetic ADDEDs
    # (client-go 1.36+ propagateRVFromStart), then a real MODIFIED moves the RV
    "list-at-rv-empty": [
        lst(0, "0"), page(5, "", [pod("a", 5)]), watch(6, ""), frame(10, "ADDED", pod("a", 5)),
        frame(11, "ADDED", pod("b", 7)), frame(500, "MODIFIED", pod("b", 9)),
        frame(600, "ADDED", pod("c", 10)), end(1000), watch(1000, "10"),
        frame(1500, "MODIFIED", pod("a", 12)), stopped(3000)],
    # the same with ADDEDs only before the watch ends: 1.36+ rewatches from "", older from "7"
    "list-at-rv-empty-added-only": [
        lst(0, "0"), page(5, "", [pod("a", 5)]), watch(6, ""), frame(10, "ADDED", pod("a", 5)),
        frame(11, "ADDED", pod("b", 7)), end(1000), watch(1000, "7"),
        frame(1500, "MODIFIED", pod("a", 12)), stopped(3000)],
    # a paged LIST (continue tokens)
    "paging-with-continue": [
        lst(0, "0"), page(5, "10", [pod("a", 5), pod("b", 6)], "tok1"), lst(6, "", 500, "tok1"),
        page(10, "10", [pod("c", 7)], "tok2"), lst(11, "", 500, "tok2"), page(15, "10", [pod("d", 8)]),
        watch(16, "10"), frame(500, "MODIFIED", pod("c", 11)), stopped(2000)],
    # a 410 on a continue: the pager lists again in full
    "expired-continue": [
        lst(0, "0"), page(5, "10", [pod("a", 5), pod("b", 6)], "tok1"), lst(6, "", 500, "tok1"),
        expired(10, as_frame=False), lst(10, "0", 0),
        page(15, "12", [pod("a", 5), pod("b", 6), pod("c", 11)]), watch(16, "12"),
        frame(500, "MODIFIED", pod("c", 13)), stopped(2000)],
    # a watch-list whose stream breaks before the initial-events-end bookmark: retried from
    # the last synced RV (still ""), not from the ADDEDs seen
    "watch-list-broken-before-end": [
        watch(0, "", True), frame(10, "ADDED", pod("a", 5)), frame(11, "ADDED", pod("b", 7)),
        stream_error(500, "eof"), watch(500, "", True), frame(510, "ADDED", pod("a", 5)),
        frame(511, "ADDED", pod("b", 7)), frame(512, "ADDED", pod("c", 8)), bookmark(513, 9, True),
        frame(900, "MODIFIED", pod("c", 10)), stopped(4000)],
    # a 410 on the watch, then the relist at the last RV answered 410 too: retried at once at ""
    "relist-expired-then-consistent": [
        lst(0, "0"), page(5, "10", [pod("a", 5), pod("b", 7)]), watch(6, "10"),
        frame(300, "MODIFIED", pod("a", 11)), expired(600), lst(600, "11", 0),
        expired(605, as_frame=False), lst(605, "", 500), page(610, "30", [pod("a", 25), pod("c", 28)]),
        watch(611, "30"), frame(1500, "MODIFIED", pod("c", 31)), stopped(6000)],
    # a broken stream (not EOF): StreamWatcher's InternalError event, then a relist
    "broken-stream-relists": [
        lst(0, "0"), page(5, "10", [pod("a", 5)]), watch(6, "10"), frame(300, "MODIFIED", pod("a", 11)),
        stream_error(600, "transport"), lst(600, "11", 0), page(605, "12", [pod("a", 12)]),
        watch(606, "12"), stopped(6000)],
    # an EOF mid-stream: a normal close, re-watched at once from the last RV
    "eof-rewatches": [
        lst(0, "0"), page(5, "10", [pod("a", 5)]), watch(6, "10"), frame(300, "MODIFIED", pod("a", 11)),
        stream_error(1600, "eof"), watch(1600, "11"), frame(2000, "MODIFIED", pod("a", 13)), stopped(4000)],
    # a WATCH open refused: retried in place from the same RV (R8)
    "refused-watch-retried-in-place": [
        lst(0, "0"), page(5, "10", [pod("a", 5)]), watch(6, "10"), frame(300, "MODIFIED", pod("a", 11)),
        end(1500), watch(1500, "11"), refused(1501), watch(1501, "11"),
        frame(2000, "MODIFIED", pod("a", 13)), stopped(6000)],
    # a watch closed at once with no events: "very short watch", a relist after a backoff
    "very-short-watch": [
        lst(0, "0"), page(5, "10", [pod("a", 5)]), watch(6, "10"), end(10), lst(10, "10", 0),
        page(15, "12", [pod("a", 12)]), watch(16, "12"), stopped(6000)],
    # a transform (kinformer's --transform strip-managed-fields, client-go's SetTransform) on
    # every object: pages, watch events, a resync and a relist's tombstone
    "transform-strip-managed-fields": [
        lst(0, "0"), page(5, "10", [managed_pod("a", 5, "kubectl"), managed_pod("b", 7, "kubelet")]),
        watch(6, "10"), frame(500, "MODIFIED", managed_pod("a", 11, "kubectl")),
        frame(700, "ADDED", managed_pod("c", 12, "kube-scheduler")), expired(1000), lst(1000, "12", 0),
        page(1010, "20", [managed_pod("a", 11, "kubectl"), managed_pod("c", 15, "kubelet")]),
        watch(1011, "20"), frame(2500, "DELETED", managed_pod("c", 21, "kubelet")), stopped(7000)],
    # a metadata informer: PartialObjectMetadata pages and events, a 410, a relist with a
    # tombstone, and a watch-list restart
    "metadata-only": [
        lst(0, "0"), page(5, "10", [meta("a", 5), meta("b", 7), meta("c", 9)]), watch(6, "10"),
        frame(300, "MODIFIED", meta("a", 11)), bookmark(400, 12), frame(500, "DELETED", meta("c", 13)),
        expired(1000), lst(1000, "13", 0), page(1010, "20", [meta("a", 11), meta("d", 18)]),
        watch(1011, "20"), frame(2000, "MODIFIED", meta("d", 21)), stopped(7000)],
}


def main(out_dir):
    for name, entries in CASES.items():
        with open(f"{out_dir}/{name}.jsonl", "w") as f:
            for line in [HEADER] + entries:
                f.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
