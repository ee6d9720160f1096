"""dramatiq broker set-up and thin actors. ``dramatiq memworks.workers`` runs them."""

import os
import sys

import dramatiq

from memworks.config import get_settings
from memworks.logging import configure_logging
from memworks.workers.broker import QUEUES, build_broker, use_broker

# A process the `dramatiq` command started is a worker of its own: it logs as a service does
# (inside an application, the facade's broker leaves logging to the application).
if os.path.basename(sys.argv[0]) == "dramatiq":
    configure_logging()
# Actors bind to the global broker when declared: set it before importing them.
dramatiq.set_broker(build_broker(get_settings()))

from memworks.workers.broker import add_middleware  # noqa: E402
from memworks.workers.common import CheckArguments  # noqa: E402
from memworks.workers.consolidation import consolidate, fan_out_consolidation  # noqa: E402
from memworks.workers.deletion import (  # noqa: E402
    RecordTargetErrors,
    plan_deletion_request,
    purge_target,
    resume_deletions,
    rewrite_erased_files,
    verify_target,
)
from memworks.workers.ingest import extract_memories  # noqa: E402
from memworks.workers.jobs import RecordJobRuns  # noqa: E402
from memworks.workers.lessons import mine_lessons  # noqa: E402
from memworks.workers.maintenance import record_attention, resend_unprocessed, sweep_expired  # noqa: E402
from memworks.workers.runtime import Deps, get_runtime, set_runtime  # noqa: E402

add_middleware(CheckArguments())
if os.environ.get("PROMETHEUS_MULTIPROC_DIR") and os.environ.get("dramatiq_prom_db"):
    # A `memworks worker --metrics-port` process: queue latency, retries and dead letters per actor.
    from dramatiq.middleware.prometheus import Prometheus

    add_middleware(Prometheus())
add_middleware(RecordTargetErrors())
add_middleware(RecordJobRuns())
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
    "Deps",
    "get_runtime",
    "set_runtime",
]
