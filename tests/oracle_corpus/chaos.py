#!/usr/bin/env python3
"""A seeded chaos scenario for the oracle corpus (docs/oracle.md): a few hundred random creates,
updates and deletes of pods over 10 s with random server faults between them, every fault kind
of the embedded server (docs/scenarios.md) among them.

Seed N always carries fault kind KINDS[(N // 2) % len(KINDS)] plus four random ones, and even
seeds use watch-list, odd seeds LIST (`mode`), so seeds 1-50 cover every kind with LIST and with
watch-list both. Usage: chaos.py SEED > FILE.yaml, or chaos.py --mode SEED (prints `list` or
`watch-list`), or chaos.py --cases FIRST LAST (prints their tests/oracle_corpus/cases.json entries:
two handlers, one slow; every fifth seed also resyncs, 2 s, with a handler resyncing every 1 s);
scripts/oracle-corpus records each with kinformer demo."""
import json
import random
import sys

# Each fault kind: the steps it arms, as (offset in seconds, fault).
KINDS = {
    "close-watches": [(0.0, "close-watches")],
    "cut-watch": [(0.0, "cut-watch")],
    "malformed-event": [(0.0, "malformed-event")],
    # 410 mid-watch: every resumed watch is expired.
    "expire-all": [(0.0, "expire-all"), (0.0, "close-watches")],
    "trim-history": [(0.0, "trim-history"), (0.0, "close-watches")],
    # 410 mid-list: the relist's pages (--page-size 5) are slowed down and the history expires
    # again while it pages, so a continue token expires.
    "expire-mid-list": [(0.0, "expire-all"), (0.0, "close-watches"),
                        (0.0, "{fault: delay, delayMs: 150, count: 8}"), (1.3, "expire-all")],
    "restart": [(0.0, "restart")],
    "delay": [(0.0, "{fault: delay, delayMs: 300, count: 2}"), (0.0, "close-watches")],
    "401": [(0.0, "{fault: fail-requests, count: 1, status: 401}"), (0.0, "close-watches")],
    "403": [(0.0, "{fault: fail-requests, count: 1, status: 403}"), (0.0, "close-watches")],
    "404": [(0.0, "{fault: fail-requests, count: 1, status: 404}"), (0.0, "close-watches")],
    "429": [(0.0, "{fault: fail-requests, count: 2, status: 429, retryAfterSeconds: 1}"),
            (0.0, "close-watches")],
    "500": [(0.0, "{fault: fail-requests, count: 1, status: 500}"), (0.0, "close-watches")],
    "503": [(0.0, "{fault: fail-requests, count: 1, status: 503, retryAfterSeconds: 1}"),
            (0.0, "close-watches")],
}


def mode(seed):
    """The initial list's strategy for a seed: watch-list for even seeds, LIST for odd ones."""
    return "watch-list" if seed % 2 == 0 else "list"


def scenario(seed):
    rng = random.Random(seed)
    names = sorted(KINDS)
    steps = [(0.0, "create: {count: 30}")]
    for _ in range(45):
        at = round(rng.uniform(0.3, 9.5), 1)
        kind = rng.choice(["create", "update", "update", "update", "delete"])
        steps.append((at, f"{kind}: {{count: {rng.randint(1, 8)}}}"))
    kinds = [names[(seed // 2) % len(names)]] + [rng.choice(names) for _ in range(4)]
    for kind in kinds:
        at = round(rng.uniform(1.0, 8.0), 1)
        steps += [(round(at + offset, 1), f"fault: {fault}") for offset, fault in KINDS[kind]]
    steps.append((12.0, "end: true"))
    lines = [f"description: seeded chaos {seed} for the client-go oracle "
             f"({mode(seed)}, faults {' '.join(kinds)})", "handlers:",
             "  - {name: fast}", "  - {name: slow, delay: 20ms}", "steps:"]
    for at, step in sorted(steps, key=lambda s: s[0]):
        lines += [f"  - at: {at}s", f"    {step}"]
    return "\n".join(lines) + "\n"


def case(seed):
    """The seed's entry in cases.json: the flags both sides replay the recording with."""
    c = {"name": f"chaos/seed-{seed}", "file": f"chaos/seed-{seed}.jsonl.zst", "resync": "0",
         "handlers": ["fast", "slow:delay=20ms"], "watch_list": mode(seed) == "watch-list"}
    if seed % 5 == 0:
        c["resync"] = "2s"
        c["handlers"].append("often:resync=1s")
    return c


if __name__ == "__main__":
    if sys.argv[1] == "--cases":
        first, last = int(sys.argv[2]), int(sys.argv[3])
        print(json.dumps([case(seed) for seed in range(first, last + 1)], indent=1))
    elif sys.argv[1] == "--mode":
        print(mode(int(sys.argv[2])))
    else:
        sys.stdout.write(scenario(int(sys.argv[1])))
