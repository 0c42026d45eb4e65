#!/usr/bin/env python3
"""A seeded chaos scenario for the oracle corpus (docs/oracle.md): random creates, updates and
deletes of pods over 10 s with random server faults between them (closed watches, a forgotten
history, every watch expired, a watch cut mid-event, a malformed event, 429 with Retry-After).
Faults that fail LISTs with a 5xx are left out: client-go's request layer (R11) is not in the
oracle. Usage: chaos.py SEED > FILE.yaml (scripts/oracle-corpus records it with kinformer demo)."""
import random
import sys

FAULTS = ["close-watches", "cut-watch", "malformed-event", "expire-all", "trim-history",
          "{fault: fail-requests, count: 1, status: 429, retryAfterSeconds: 1}"]


def scenario(seed):
    rng = random.Random(seed)
    steps = [(0.0, "create: {count: 8}")]
    for _ in range(18):
        at = round(rng.uniform(0.5, 9.5), 1)
        kind = rng.choice(["create", "update", "update", "delete"])
        steps.append((at, f"{kind}: {{count: {rng.randint(1, 3)}}}"))
    for _ in range(4):
        at = round(rng.uniform(1.0, 9.0), 1)
        fault = rng.choice(FAULTS)
        steps.append((at, f"fault: {fault}"))
        if fault in ("expire-all", "trim-history"):
            steps.append((at, "fault: close-watches"))
    steps.append((12.0, "end: true"))
    lines = [f"description: seeded chaos {seed} for the client-go oracle", "handlers:",
             "  - {name: fast}", "  - {name: slow, delay: 50ms}", "steps:"]
    for at, step in sorted(steps, key=lambda s: s[0]):
        lines += [f"  - at: {at}s", f"    {step}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(scenario(int(sys.argv[1])))
