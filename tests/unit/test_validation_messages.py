"""A bad value's error names its first wrong field and says what is wrong with every field, so
one try shows all the fixes a line needs (the CLI's ingest used to show only the first)."""

from __future__ import annotations

import pytest

from memworks.errors import InvalidInput
from memworks.models.schemas import EpisodeIn
from memworks.models.validation import MAX_ERRORS, parse_model

GOOD = {
    "tenant_id": "t",
    "user_id": "u",
    "session_id": "s",
    "turn": 1,
    "episode_id": "e1",
    "role": "user",
    "source": "user",
    "content": "I live in Lisbon.",
    "occurred_at": "2025-01-01T00:00:00Z",
}


def test_every_wrong_field_of_a_value_is_reported_the_first_is_named() -> None:
    bad = {k: v for k, v in GOOD.items() if k not in ("session_id", "source")} | {"turn": "first"}
    with pytest.raises(InvalidInput) as err:
        parse_model(EpisodeIn, bad, "line 3")
    msg = str(err.value)
    assert msg.startswith("line 3: field ")
    assert all(f"field {f!r}" in msg for f in ("session_id", "turn", "source"))
    assert err.value.field == "session_id"


def test_one_wrong_field_reads_as_before() -> None:
    with pytest.raises(InvalidInput) as err:
        parse_model(EpisodeIn, GOOD | {"role": "robot"}, "episode 0")
    assert str(err.value).count("field ") == 1 and err.value.field == "role"


def test_a_value_wrong_everywhere_lists_a_bounded_number_of_errors() -> None:
    from pydantic import BaseModel

    class Wide(BaseModel):
        a0: int
        a1: int
        a2: int
        a3: int
        a4: int
        a5: int
        a6: int
        a7: int
        a8: int
        a9: int
        b0: int
        b1: int

    with pytest.raises(InvalidInput) as err:
        parse_model(Wide, {}, "row")
    assert str(err.value).count("field ") == MAX_ERRORS and str(err.value).endswith("; and 2 more")
