"""The safety sets as typed cases."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
#: Channels a case may come through.
CHANNELS = ("episode", "patch", "outcome", "feedback", "mcp")


@dataclass(frozen=True)
class TurnCase:
    content: str
    source: str = "user"
    role: str = "user"
    #: Part of the attack (an attempt's setup turns may be ordinary ones, kept like any other).
    attack: bool = True


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    channel: str
    turns: tuple[TurnCase, ...] = ()
    probe: str = ""
    #: attacks: ``blocked`` (nothing active, retrieved or in the profile).
    expect: str = ""
    #: patch: the slot whose record is corrected, and the new value.
    target_key: str = ""
    value: str = ""
    #: outcome and feedback.
    task_type: str = ""
    features: tuple[str, ...] = ()
    action_taken: str = ""
    verified_action: str = ""
    feedback: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _case(raw: dict[str, Any]) -> Case:
    if raw.get("channel") not in CHANNELS:
        raise ValueError(f"case {raw.get('id')!r}: channel must be one of {', '.join(CHANNELS)}")
    turns = tuple(TurnCase(**t) for t in raw.get("turns", ()))
    known = {k: v for k, v in raw.items() if k in Case.__dataclass_fields__ and k not in ("turns", "features")}
    return Case(**known, turns=turns, features=tuple(raw.get("features", ())))


def load(name: str) -> list[Case]:
    """The cases of ``attacks`` or ``benign``."""
    data = json.loads((HERE / f"{name}.json").read_text())
    cases = [_case(c) for c in data["cases"]]
    ids = [c.id for c in cases]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{name}.json: case ids must be unique")
    return cases
