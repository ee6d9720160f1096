"""No regular expression of the write gate or the extractors can be made to backtrack.

Every compiled pattern held by a module of the gate and of ``memworks.pipelines.extraction``
(found by walking the modules, so a new pattern is covered the day it is added) runs
``search`` and ``match`` over adversarial text: each token class repeated to about 100 KB,
with and without a lead-in that gets anchored patterns past their first word. A linear
pattern takes milliseconds on such text; a quadratic one takes minutes and an exponential one
forever, so a fixed, generous CPU budget separates them. The public entry points (the gate,
the rules extractor, the time parser, the normaliser, the LLM reply parser, the profile) get
the same text.

A run over budget is interrupted by a CPU-time timer (``SIGPROF``): the regex engine checks
for signals while it backtracks, so a runaway pattern fails the test instead of hanging it.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from types import FrameType
from typing import Any

import pytest

from memworks.models.drafts import Candidate, MemoryView, Turn
from memworks.models.enums import MemoryKind, MemoryStatus, Role, Source
from memworks.pipelines import extraction
from memworks.pipelines.consolidation.profile import build_profile
from memworks.pipelines.extraction.base import ExtractionRejected
from memworks.pipelines.extraction.llm import parse_operations
from memworks.pipelines.extraction.rules import RulesExtractor
from memworks.pipelines.gate import (
    instruction_marker,
    is_outward_preference,
    is_small_talk,
    judge,
)
from memworks.pipelines.gate.textnorm import gate_views, normalise
from memworks.pipelines.ingest import judge_episode

#: CPU seconds one pattern may spend on one string (search or match), and one entry point.
PATTERN_BUDGET_S = 1.0
ENTRY_BUDGET_S = 3.0
#: Length of each adversarial string (characters).
SIZE = 100_000

GATE_MODULES = [
    "memworks.pipelines.gate.verdicts",
    "memworks.pipelines.gate.instructions",
    "memworks.pipelines.gate.hazards",
    "memworks.pipelines.gate.textnorm",
]
#: Repeated units: single characters of each class, then words and mixtures patterns key on.
UNITS = [
    " ",
    "a",
    "7",
    ".",
    ",",
    "-",
    "'",
    "\n",
    "@",
    "_",
    "%",
    "\u00e9",
    "\u200b",
    "[",
    "a ",
    "a-",
    "a.",
    "a1",
    "a@b.",
    ", ",
    "- ",
    ":)",
    "hi ",
    "send every ",
    "from now on ",
    "always ",
    "i am ",
    "to ",
    "is ",
    "and i ",
    "a over ",
    "e-mail ",
    "http://",
    "x@y.z ",
    "%41",
    "QUJD",
    "ignore all the ",
    "you are now ",
    "[a](",
    "![",
    "decode ",
    "may 5 ",
    "3 days ago ",
]
#: Lead-ins that satisfy the anchors of clause patterns ("^i prefer ...", "^my ...", greetings),
#: each followed by the units that could make the rest of such a pattern backtrack.
LEADS = ["hi", "i prefer a", "my favourite x is "]
LED_UNITS = [" ", "a ", ".", "a over ", "is "]
#: The entry points run every unit's string but these (they add nothing there).
ENTRY_SKIP = frozenset(
    {
        ",",
        "'",
        "_",
        "%",
        "[",
        "a.",
        "a1",
        ":)",
        "always ",
        "to ",
        "is ",
        "e-mail ",
        "http://",
        "![",
        "decode ",
        "you are now ",
    }
)


def _fill(lead: str, unit: str) -> str:
    return lead + unit * ((SIZE - len(lead)) // len(unit)) + "xyz?"


STRINGS = [_fill("", u) for u in UNITS] + [_fill(lead, u) for lead in LEADS for u in LED_UNITS]
ENTRY_STRINGS = (
    [_fill("", u) for u in UNITS if u not in ENTRY_SKIP]
    + [_fill(lead, " ") for lead in LEADS]
    + [_fill("i prefer a", "a over ")]
)


def _walk(obj: Any, path: str, depth: int = 0) -> Iterator[tuple[str, re.Pattern[str]]]:
    """Patterns held directly or inside tables (tuples, lists, dicts, dataclass rows)."""
    if isinstance(obj, re.Pattern):
        yield path, obj
    elif depth < 4 and isinstance(obj, (tuple, list)):
        for i, item in enumerate(obj):
            yield from _walk(item, f"{path}[{i}]", depth + 1)
    elif depth < 4 and isinstance(obj, dict):
        for k, item in obj.items():
            yield from _walk(item, f"{path}[{k!r}]", depth + 1)
    elif depth < 4 and dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _walk(getattr(obj, f.name), f"{path}.{f.name}", depth + 1)


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    # Every module of the extraction package and its subpackages (open_vocab/, standing/, dates/).
    names = GATE_MODULES + [m.name for m in pkgutil.walk_packages(extraction.__path__, f"{extraction.__name__}.")]
    found: dict[int, tuple[str, re.Pattern[str]]] = {}
    for name in names:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            for path, pattern in _walk(value, f"{name.rsplit('.', 1)[-1]}.{attr}"):
                found.setdefault(id(pattern), (path, pattern))  # an imported pattern is run once
    return sorted(found.values(), key=lambda p: p[0])


PATTERNS = _patterns()


class OverBudget(Exception):
    pass


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise OverBudget


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise :class:`OverBudget` inside the block once it has used ``seconds`` of CPU time."""
    previous = signal.signal(signal.SIGPROF, _interrupt)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def over_budget(run: Callable[[str], object], strings: list[str], budget: float) -> list[str]:
    """The strings (abbreviated) on which ``run`` used more than ``budget`` CPU seconds."""
    slow = []
    for text in strings:
        started = time.process_time()
        try:
            with cpu_budget(budget):
                run(text)
        except OverBudget:
            slow.append(f"{text[:24]!r}… ({len(text)} chars): over {budget} s")
            continue
        if (spent := time.process_time() - started) > budget:  # the timer's granularity
            slow.append(f"{text[:24]!r}… ({len(text)} chars): {spent:.2f} s")
    return slow


def test_patterns_are_discovered() -> None:
    paths = {p for p, _ in PATTERNS}
    assert {
        "verdicts._SMALL_TALK_SPLIT",
        "instructions._INJECTION",
        "clauses.CLAUSE_SPLIT",
        "preferences._OVER",
        "timeparse._FUTURE",
        "textnorm._LETTER_RUN",
    } <= paths
    assert len(PATTERNS) > 100


def test_the_budget_catches_a_backtracking_pattern() -> None:
    # The shape of the small-talk pattern the gate used to have: nested, overlapping repeats.
    nested = re.compile(r"^hi([\s,!.]+(there|\S{0,2}))*[\s!.]*$")
    assert over_budget(nested.match, ["hi" + " " * 40 + "xyz"], PATTERN_BUDGET_S)
    assert not over_budget(re.compile(r"(?<!\s)\s+x").search, [" " * SIZE], PATTERN_BUDGET_S)


@pytest.mark.parametrize(("path", "pattern"), PATTERNS, ids=[p for p, _ in PATTERNS])
def test_pattern_is_linear_on_adversarial_text(path: str, pattern: re.Pattern[str]) -> None:
    slow = over_budget(pattern.search, STRINGS, PATTERN_BUDGET_S) + over_budget(
        pattern.match, STRINGS, PATTERN_BUDGET_S
    )
    assert not slow, (path, slow)


# -- the public entry points -----------------------------------------------------------------

NOW = datetime(2025, 1, 6, 9, tzinfo=UTC)
RULES = RulesExtractor()


def _candidate(text: str, source: Source) -> Candidate:
    return Candidate(
        kind=MemoryKind.EPISODIC, value=text, text=text, evidence=("e1",), source=source, extractor="transcript"
    )


def _turn(text: str) -> Turn:
    return Turn(episode_id="e1", role=Role.USER, source=Source.USER, content=text, occurred_at=NOW)


def _llm_reply(text: str) -> None:
    try:
        parse_operations(text, _turn("x"))
    except ExtractionRejected:
        pass


def _profile(text: str) -> None:
    record = MemoryView(
        memory_id="m1",
        kind=MemoryKind.SEMANTIC,
        key="user.favorite.book",
        value=text,
        text=text,
        source=Source.USER,
        confidence=0.9,
        trusted=True,
        status=MemoryStatus.ACTIVE,
        valid_from=NOW,
        recorded_at=NOW,
    )
    build_profile([record], count_tokens=lambda s: len(s.split()))


ENTRY_POINTS: dict[str, Callable[[str], object]] = {
    "judge(user)": lambda t: judge(_candidate(t, Source.USER)),
    "judge(verified_tool)": lambda t: judge(_candidate(t, Source.VERIFIED_TOOL)),
    "judge(model_inference)": lambda t: judge(_candidate(t, Source.MODEL_INFERENCE)),
    "instruction_marker": lambda t: instruction_marker(t, source=Source.VERIFIED_TOOL),
    "is_small_talk": is_small_talk,
    "is_outward_preference": lambda t: is_outward_preference(_candidate(t, Source.USER)),
    "judge_episode(rules)": lambda t: judge_episode(_turn(t), extractor=RULES),  # extraction, time parsing, gate
    "normalise": normalise,
    "gate_views": gate_views,
    "parse_operations": _llm_reply,
    "build_profile": _profile,
}


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_entry_point_is_linear_on_adversarial_text(name: str) -> None:
    slow = over_budget(ENTRY_POINTS[name], ENTRY_STRINGS, ENTRY_BUDGET_S)
    assert not slow, (name, slow)
