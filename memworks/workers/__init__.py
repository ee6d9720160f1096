"""dramatiq broker set-up and thin actors. ``dramatiq memworks.workers`` runs them."""

import os

import dramatiq

from memworks.config import get_settings
from memworks.workers.broker import QUEUES, build_broker, use_broker

# Actors bind to the global broker when declared: set it before importing them.
dramatiq.set_broker(build_broker(get_settings()))

from memworks.workers.broker import add_middleware  # noqa: E402
from memworks.workers.common import CheckArguments  # noqa: E402
from memworks.workers.deletion import (  # noqa: E402
    RecordTargetErrors,
    plan_deletion_request,
    purge_target,
    resume_deletions,
    rewrite_erased_files,
    verify_target,
)
from memworks.workers.ingest import extract_memories  # noqa: E402
from memworks.workers.lessons import mine_lessons  # noqa: E402
from memworks.workers.maintenance import (  # noqa: E402
    consolidate,
    fan_out_consolidation,
    record_attention,
    resend_unprocessed,
    sweep_expired,
)
from memworks.workers.runtime import Runtime, get_runtime, set_runtime  # noqa: E402

add_middleware(CheckArguments())
if os.environ.get("PROMETHEUS_MULTIPROC_DIR") and os.environ.get("dramatiq_prom_db"):
    # A `memworks worker --metrics-port` process: queue latency, retries and dead letters per actor.
    from dramatiq.middleware.prometheus import Prometheus

    add_middleware(Prometheus())
add_middleware(RecordTargetErrors())
use_broker(dramatiq.get_broker())

__all__ = [
    # broker
    "QUEUES",
    "build_broker",
    "use_broker",
    # actors
    "consolidate",
    "extract_memories",
    "fan_out_consolidation",
    "record_attention",
    "resend_unprocessed",
    "sweep_expired",
    "mine_lessons",
    "plan_deletion_request",
    "purge_target",
    "resume_deletions",
    "rewrite_erased_files",
    "verify_target",
    # runtime
    "Runtime",
    "get_runtime",
    "set_runtime",
]
