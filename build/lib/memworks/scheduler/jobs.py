"""Scheduled jobs. Each callable only sends an actor message: the work happens in workers.

Messages carry no options: their retries and time limits are the deployment's, set once in
the broker (:func:`memworks.workers.broker.delivery_policy`).
"""

from __future__ import annotations

from memworks.workers import (
    fan_out_consolidation,
    resend_unprocessed,
    resume_deletions,
    rewrite_erased_files,
    sweep_expired,
)

#: Re-drive deletions older than this (s): younger ones are still in their first run.
DELETION_GRACE_S = 60
#: Re-send episodes received but unprocessed for longer than this (s) and named by no message the
#: broker holds: long enough for the message sent after the rows' commit to reach Redis.
OUTBOX_GRACE_S = 10


def consolidate_every_tenant() -> None:
    fan_out_consolidation.send()


def expire_memories() -> None:
    sweep_expired.send()


def resume_unfinished_deletions() -> None:
    resume_deletions.send(DELETION_GRACE_S)


def resend_lost_episodes() -> None:
    resend_unprocessed.send(OUTBOX_GRACE_S)


def rewrite_files_after_deletions() -> None:
    rewrite_erased_files.send()
