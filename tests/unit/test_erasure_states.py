"""A manifest target's next state after a verification, and when residue is purged again."""

from __future__ import annotations

import pytest

from memworks.models.enums import DeletionStatus, TargetState
from memworks.services.deletion import MAX_ATTEMPTS, REPURGE_DELAY_MS, Verified, next_state


@pytest.mark.parametrize(
    ("absent", "attempts", "state"),
    [
        (True, 1, TargetState.CLOSED),
        (True, MAX_ATTEMPTS, TargetState.CLOSED),  # the last round may still close it
        (False, 1, TargetState.OPEN),
        (False, MAX_ATTEMPTS - 1, TargetState.OPEN),
        (False, MAX_ATTEMPTS, TargetState.FAILED),
    ],
)
def test_a_target_closes_only_on_confirmed_absence(absent: bool, attempts: int, state: TargetState) -> None:
    assert next_state(absent=absent, attempts=attempts) is state


def test_residue_is_purged_again_later_each_round_and_never_after_closing_or_failing() -> None:
    delays = [Verified(TargetState.OPEN, 1, n, DeletionStatus.OPEN).repurge_after_ms for n in (1, 2, 3)]
    assert delays == [REPURGE_DELAY_MS, 2 * REPURGE_DELAY_MS, 4 * REPURGE_DELAY_MS]
    assert Verified(TargetState.CLOSED, 0, 1, DeletionStatus.COMPLETE).repurge_after_ms is None
    assert Verified(TargetState.FAILED, 1, MAX_ATTEMPTS, DeletionStatus.FAILED).repurge_after_ms is None


def test_states_keep_the_strings_stored_and_shown_in_manifests() -> None:
    assert [s.value for s in TargetState] == ["OPEN", "CLOSED", "FAILED"]
    assert [s.value for s in DeletionStatus] == ["pending", "open", "complete", "failed", "nothing_matched"]
