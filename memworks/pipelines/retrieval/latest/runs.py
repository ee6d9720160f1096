"""The latest run of a tool's results: "Did the last CI run on main pass?", "How many tests
passed in the last pytest run?".

Each run of a pipeline or a test suite is a result of its own, under a number or an id of its own,
so no key joins them; a question asking for the latest of them names the series (its tool,
pipeline or branch) or the kind of run, and the newest result of it answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np
import numpy.typing as npt

from memworks.pipelines.retrieval.latest.now import BELOW, LATEST_TOP, out_of_top

__all__ = ["asked_kind", "commanded", "latest_of_series", "named_first", "naming_words", "run_kind", "series"]

#: A tool result's series: the words of its first line before the first one with a digit in it
#: ("CI · ledger-pipe · main · #418 ..." → "ci ledger pipe main").
_SERIES_WORD = re.compile(r"[^\W\d_]+")


def series(text: str) -> str:
    """The run a tool result is one of: its first line's words before its first number or id."""
    words = []
    for token in text.strip().split("\n", 1)[0].split():
        if any(c.isdigit() for c in token):
            break
        words += _SERIES_WORD.findall(token.casefold())
    return " ".join(words)


#: Runs of one kind whatever runs them, by their first line: a test suite's (a runner replaced by
#: another: "npx jest", then "pnpm vitest run") and a deploy's (one platform left for another).
_RUN_KINDS = (
    ("tests", re.compile(r"\b(?:pytest|jest|vitest|nextest|(?:cargo|go|npm|pnpm|yarn|mvn|gradle)\s+test)\b", re.I)),
    ("deploy", re.compile(r"\bdeploy(?:s|ed|ing|ment)?\b", re.I)),
)
#: A question word naming the run's tool or place ("the Rust test suite", "the latest Fly deploy"):
#: a capitalised word after its first, not "I".
_NAMED = re.compile(r"(?<=\s)(?!I\b|I')[A-Z]")
#: Words of a question about a run that name no tool, pipeline or branch of it.
_NOT_NAMING = frozenset(
    "the a an of on in to for and or with what which how many much did does do was were is are has have had "
    "go went through show showed say said it its my our we test tests testing run runs ran result results build "
    "builds deploy deploys deployed deployment check checks suite pass passed fail failed status latest last "
    "recent most newest version versions put out".split()
)


def commanded(text: str) -> set[str]:
    """The words of a tool result's series and of each command line in it ("$ uv run pytest -q"
    after "$ uv pip show fastapi"): what ran."""
    lines = [ln for ln in text.strip().split("\n")[1:] if ln.startswith("$ ")]
    return {w for ln in (text, *lines) for w in series(ln).split()}


def naming_words(question: str) -> set[str]:
    """The words of ``question`` that may name a run's tool, pipeline or branch ("pytest", "ci", "main")."""
    return {w for w in _SERIES_WORD.findall(question.casefold()) if len(w) > 1 and w not in _NOT_NAMING}


#: A test run's tally, wherever in its output ("Tests  66 passed (66)", "test result: ok. 59
#: passed; 0 failed"): a runner that does not print its name first ("RUN  v1.6.0 /home/...").
_TALLY = re.compile(r"\b\d+\s+(?:passed|failed)\b", re.I)


#: A deploy's outcome, wherever in its output ("status: deployed  version: 0.16.0", "Watch your
#: deployment at ..."): a deploy run by a script of the team's own ("$ ./scripts/ship prod").
_DEPLOYED = re.compile(r"\bdeploy(?:ed|ing|ment)\b", re.I)
#: The kind of run a question names ("the last deploy", "the latest test run").
_ASKED_KINDS = (
    ("tests", re.compile(r"\btest(?:s|ing)?\b|\bsuite\b", re.I)),
    ("deploy", re.compile(r"\bdeploy(?:s|ed|ing|ment)?\b", re.I)),
)


def run_kind(text: str) -> str:
    """``tests`` or ``deploy`` for a test suite's or a deploy's run, by its first line, else by a
    test run's tally or a deploy's outcome anywhere in it; else ""."""
    first = text.strip().split("\n", 1)[0]
    kind = next((kind for kind, rx in _RUN_KINDS if rx.search(first)), "")
    return kind or ("tests" if _TALLY.search(text) else "deploy" if _DEPLOYED.search(text) else "")


def asked_kind(question: str) -> str:
    """The kind of run ``question`` names (``tests`` or ``deploy``), or ""."""
    return next((kind for kind, rx in _ASKED_KINDS if rx.search(question)), "")


def latest_of_series(
    score: npt.NDArray[np.float64],
    keys: Sequence[str | None],
    texts: Sequence[str],
    said: Sequence[datetime],
    summary: Sequence[bool],
    question: str = "",
    reported: Sequence[bool] = (),
) -> npt.NDArray[np.float64]:
    """For a question asking for the latest of something ("Did the last CI run on main pass?"):
    the best tool result's series (its tool, pipeline and branch, each run under a number of its
    own, so no key joins them) answers with its latest run, and its earlier runs leave the top.
    A tool's result is a keyed one or, where ``reported`` says so, the transcript of an output
    no command line heads ("==> Building image with Docker").

    A question naming no tool or place ("How did the latest deploy go?") asks for the latest run
    of the best one's kind (:func:`run_kind`), whatever ran it."""
    n = len(score)
    if n < 2 or not len(keys) == len(texts) == len(said) == len(summary) == n:
        return score
    told = list(reported) if len(reported) == n else [False] * n
    tools = [i for i in range(n) if (keys[i] or "").startswith("tool.") or told[i]]
    # "the last pytest run": the runs whose commands name what the question names, however far
    # down; a name no run's command holds ("the Rust test suite") names none.
    asked = naming_words(question)
    runs = [i for i in tools if asked & commanded(texts[i])]
    if not runs and question and not _NAMED.search(question):
        # "What version did the last deploy put out?": the runs of the kind the question names.
        kind = asked_kind(question)
        runs = [i for i in tools if kind and run_kind(texts[i]) == kind]
    if not runs:
        top = [i for i in sorted(range(n), key=lambda i: -score[i]) if not summary[i]][:LATEST_TOP]
        best = next((i for i in top if i in tools), None)
        if best is None or not (name := series(texts[best])):
            return score
        kind = run_kind(texts[best]) if question and not _NAMED.search(question) else ""
        runs = [i for i in tools if series(texts[i]) == name or (kind and run_kind(texts[i]) == kind)]
    latest = max(runs, key=lambda i: (said[i], keys[i] is not None))  # a keyed result before its turn
    old = {i for i in runs if said[i] < said[latest]}
    if not old and not asked & commanded(texts[latest]):
        return score
    out = score.copy()
    out[latest] = max(score[latest], float(score.max()) / BELOW)
    return out_of_top(out, old, summary)


#: A tool's call name in a result's first line: words joined by dots or underscores ("flight.get",
#: "order_lookup", "payments.list").
_CALL = re.compile(r"\b[a-z]+(?:[._][a-z]+)+\b")


def called(text: str) -> set[str]:
    """The words of the call names in the head of ``text``'s first line, before its first number
    or argument ("booking-tool :: flight.get" → flight, get; not the file of a failing test)."""
    first = text.strip().split("\n", 1)[0]
    head = []
    for token in first.split():
        if any(c.isdigit() or c in "({=" for c in token):
            head.append(re.split(r"[({=]", token, maxsplit=1)[0])
            break
        head.append(token)
    return {w for name in _CALL.findall(" ".join(head).casefold()) for w in re.split(r"[._]", name)}


def named_first(
    score: npt.NDArray[np.float64],
    question: str,
    keys: Sequence[str | None],
    texts: Sequence[str],
    reported: Sequence[bool] = (),
    values: Sequence[str] = (),
) -> npt.NDArray[np.float64]:
    """A question naming what a tool's call does ("Which flight are we booked on?" of
    "booking-tool :: flight.get") answered first by the best of the results that name it. A word
    every result's call holds ("booking") tells none of them apart: it names none."""
    n = len(score)
    if n < 2 or not len(keys) == len(texts) == n:
        return score
    told = list(reported) if len(reported) == n else [False] * n
    tools = [i for i in range(n) if (keys[i] or "").startswith("tool.") or told[i]]
    # A keyed result's text has its call in words ("booking modify"): its value keeps the call.
    said = {i: called(values[i] if len(values) == n and keys[i] else texts[i]) for i in tools}
    asked = {w for w in naming_words(question) if 0 < sum(w in c for c in said.values()) < len(said)}
    named = [i for i in tools if asked & said[i]]
    if not named:
        return score
    best = max(named, key=lambda i: score[i])
    out = score.copy()
    out[best] = max(score[best], float(score.max()) / BELOW)
    return out
