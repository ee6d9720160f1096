"""memworks' own counters and the queue depth, beside dramatiq's Prometheus middleware.

dramatiq's middleware (added to ``memworks worker`` processes) counts messages, errors,
retries and dead letters per actor, and times them. These counters say what the work did:
gate verdicts by reason, memory ops by type, deletion manifests, lesson decisions. In a worker
process they are written to the multiprocess directory dramatiq's exposition server reads;
in the embedded default they live in this process and the API's ``/metrics`` serves them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import dramatiq
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from memworks.workers.lanes import depth

#: Where memworks' counters are registered (the API adds it to its ``/metrics``).
REGISTRY = CollectorRegistry()

GATE = Counter(
    "memworks_gate_decisions_total",
    "Candidates judged by the write gate, by outcome and reason.",
    ["outcome", "reason"],
    registry=REGISTRY,
)
OPS = Counter("memworks_memory_ops_total", "Writes decided for accepted candidates, by op.", ["op"], registry=REGISTRY)
MANIFESTS = Counter(
    "memworks_manifests_total", "Deletion manifests opened and completed.", ["status"], registry=REGISTRY
)
DELETION_FAILED = Counter(
    "memworks_deletion_failed",
    "Deletion manifest targets marked FAILED, by target and cause: residue after every "
    "purge-and-verify round, or a job that used its retries.",
    ["target", "cause"],
    registry=REGISTRY,
)
LESSONS = Counter(
    "memworks_lessons_total", "Lesson decisions: promoted, blocked, rolled back.", ["decision"], registry=REGISTRY
)


def count_gate(verdicts: Mapping[tuple[str, str], int]) -> None:
    for (outcome, reason), n in verdicts.items():
        GATE.labels(outcome, reason).inc(n)


def count_ops(counts: Mapping[str, int]) -> None:
    for k, n in counts.items():
        if k.startswith("op_") and n:
            OPS.labels(k[3:]).inc(n)


def count_lessons(counts: Mapping[str, int]) -> None:
    for decision in ("promoted", "blocked", "rolled_back"):
        if counts.get(decision):
            LESSONS.labels(decision).inc(counts[decision])


class QueueDepth(Collector):
    """``memworks_queue_depth{queue}``: messages waiting (and delayed) per queue, bulk lanes
    included, read at scrape."""

    def __init__(self, broker: dramatiq.Broker, queues: Iterable[str]) -> None:
        self.broker, self.queues = broker, tuple(queues)

    def collect(self) -> Iterable[Any]:
        g = GaugeMetricFamily(
            "memworks_queue_depth", "Messages waiting per queue (delayed ones included).", labels=["queue"]
        )
        for q in self.queues:
            g.add_metric([q], float(depth(self.broker, q)))
        yield g
