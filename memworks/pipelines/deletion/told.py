"""When a forget request says its thing was told ("what I said last week", "the therapy stuff I
told you about a couple of weeks back"): the days it names, and the bars of the match among what
was told in them. Pure."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from memworks.pipelines.deletion.forget_match import Thresholds
from memworks.pipelines.extraction.dates.timeparse import resolve_time

__all__ = ["TOLD_SLACK", "told_then", "told_within"]

#: The least a window a request dates its telling by reaches either side of the day it names.
TOLD_SLACK = timedelta(days=2)


def told_within(told: str, at: datetime) -> tuple[datetime, datetime] | None:
    """When a request said at ``at`` says its thing was told (``told``: "last week", "a couple of
    weeks back"): around the day that names, by half its distance back either way (people
    round: "last week" of eight days ago, "last month" of five weeks ago), two days at least."""
    when = resolve_time(told, at, future=False) if told else None
    if when is None or when > at:
        return None
    half = max(TOLD_SLACK, (at - when) / 2)
    return when - half, when + half


def told_then(t: Thresholds) -> Thresholds:
    """The bars among what was told when the request says: the few statements of those days
    need less to tell which one it means."""
    return replace(t, some_words=t.all_words, lead=t.lead / 2)
