"""The latest answer to a question about now (pure): which questions ask about now, which
statements say something changed, and how the latest of rival answers takes the top."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memworks.pipelines.retrieval.latest import now as latest
from memworks.pipelines.retrieval.latest import runs


@pytest.mark.parametrize(
    ("question", "now"),
    [
        ("Which bank am I with?", True),
        ("What phone have I got?", True),
        ("What phone do I have?", True),
        ("Does Rosa have to work on Christmas Day?", True),
        ("What have I read this year?", False),
        ("Where do I live these days?", True),
        ("Where did I live?", False),
        ("When did I move?", False),
        ("What books has Melanie read?", False),
        ("What pets do I have?", False),
        ("What are Melanie's pets' names?", False),
        ("How many cats do I have?", False),
        ("When is the conference?", True),
        ("When's my dentist appointment?", True),
        ("When did the conference start?", False),
        ("When do we usually meet?", False),
    ],
)
def test_asks_now_is_a_question_for_the_one_thing_that_holds_now(question: str, now: bool) -> None:
    assert latest.asks_now(question) is now


def _latest(
    score: list[float],
    sims: list[float],
    days: list[int],
    source: list[int] | None = None,
    changed: list[bool] | None = None,
    covers: list[set[str]] | None = None,
    words: list[set[str]] | None = None,
    anywhere: bool = False,
    definite: list[set[str]] | None = None,
    speakers: list[str | None] | None = None,
    hours: list[int] | None = None,
) -> list[int]:
    said = [
        datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=d, hours=h)
        for d, h in zip(days, hours or [0] * len(days), strict=True)
    ]
    n = len(score)
    out = latest.latest_first(
        np.array(score),
        np.array(sims),
        said,
        [None] * n,
        np.array(source if source is not None else [-1] * n),
        [False] * n,
        [()] * n,
        changed or [],
        [frozenset(c) for c in covers] if covers else [],
        [frozenset(w) for w in words] if words else [],
        [frozenset(d) for d in definite] if definite else [],
        speakers or [],
        anywhere=anywhere,
    )
    return sorted(range(n), key=lambda i: -out[i])


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("Switched banks while I was at it, everything's with Revolut now.", True),
        ("Also I finally left Android behind, I'm on an iPhone 15 now.", True),
        ("Decision made: tidepool is being rewritten in Rust.", True),
        ("I gave up swimming.", True),
        ("I bank with Millennium BCP, if you need that for the form.", False),
        ("My phone is a Pixel 7.", False),
        ("Cancelled the PureGym membership.", True),
        ("User likes light mode in the terminal.", False),  # "terminal" is no form of "terminate"
        ("Bad news, we're pushing the launch to Tuesday 30 June.", True),  # a date moved
        ("The release got delayed again.", True),
    ],
)
def test_says_change_reads_a_verb_or_a_word_of_change(text: str, change: bool) -> None:
    assert latest.says_change(text) is change


def test_a_later_statement_that_says_it_changed_rivals_from_further_below() -> None:
    sims = [0.55, 0.41, 0.2, 0.1, 0.05]  # "My phone is a Pixel 7" / "I'm on an iPhone 15 now"
    assert _latest([0.9, 0.5, 0.3, 0.2, 0.1], sims, [0, 60, 10, 20, 30])[0] == 0
    assert (
        _latest([0.9, 0.5, 0.3, 0.2, 0.1], sims, [0, 60, 10, 20, 30], changed=[False, True, False, False, False])[0]
        == 1
    )


def test_a_statement_that_says_it_changed_rivals_from_anywhere_below_for_a_question_naming_no_one() -> None:
    # "What phone do I use?": "I'm on an iPhone 15 now" (index 4) shares no word with it, so the
    # ranker puts it last, though it means the question about as well as "My phone is a Pixel 7".
    score, sims, days = [0.9, 0.5, 0.3, 0.2, 0.1], [0.55, 0.2, 0.15, 0.1, 0.44], [0, 10, 20, 30, 60]
    changed = [False, False, False, False, True]
    assert _latest(score, sims, days, changed=changed)[0] == 0  # outside the top 3: no rival
    order = _latest(score, sims, days, changed=changed, anywhere=True)
    assert order[0] == 4 and order.index(0) == 3


def test_an_earlier_statement_that_the_best_answer_changes_leaves_the_top() -> None:
    # "When is the conference?": "it's on October 12 now" (index 0, the best) after "on October 5"
    # (index 1), which means the question a little less well
    order = _latest(
        [0.9, 0.7, 0.3, 0.2, 0.1], [0.69, 0.60, 0.3, 0.2, 0.1], [80, 0, 10, 20, 30], changed=[True] + [False] * 4
    )
    assert order[0] == 0 and order.index(1) == 3
    # ... but not without the word of change
    assert _latest([0.9, 0.7, 0.3, 0.2, 0.1], [0.69, 0.60, 0.3, 0.2, 0.1], [80, 0, 10, 20, 30])[:2] == [0, 1]


def test_without_a_word_of_change_a_statement_lacking_a_word_of_the_question_is_no_rival() -> None:
    # "Which mode do I like in the editor?": "dark mode in the editor", then "light mode in the terminal"
    covers = [{"mode", "editor"}, {"mode"}, set(), set(), set()]
    order = _latest([0.9, 0.5, 0.3, 0.2, 0.1], [0.50, 0.46, 0.2, 0.1, 0.05], [0, 2, 10, 20, 30], covers=covers)
    assert order == [0, 1, 2, 3, 4]


def test_the_latest_of_rival_answers_ranks_first_and_the_earlier_leaves_the_top_3() -> None:
    # Given "I bank with Millennium" (day 0, best), "everything's with Revolut now" (day 60,
    # about as like the question) and three other candidates
    order = _latest([0.9, 0.5, 0.3, 0.2, 0.1], [0.50, 0.46, 0.20, 0.10, 0.05], [0, 60, 10, 20, 30])
    # Then the later statement leads and the earlier one drops just out of the top 3
    assert order[0] == 1 and order.index(0) == 3


def test_a_fact_goes_with_its_turn_and_takes_its_time() -> None:
    # Given a fact (index 0) read from an old turn (index 2), and a later rival turn (index 1)
    order = _latest(
        [0.9, 0.5, 0.45, 0.2, 0.1, 0.05],
        [0.50, 0.46, 0.48, 0.1, 0.1, 0.1],
        [90, 60, 0, 5, 6, 7],
        [2, -1, -1, -1, -1, -1],
    )
    # Then the fact is as old as its turn (its own time is the event's), and both leave the top 3
    assert order[0] == 1 and min(order.index(0), order.index(2)) >= 3


@pytest.mark.parametrize(
    ("sims", "days"),
    [
        ([0.50, 0.30, 0.2], [0, 60, 10]),  # the later one answers much less well: another topic
        ([0.30, 0.29, 0.2], [0, 60, 10]),  # nothing answers well enough to judge
        ([0.50, 0.46, 0.2], [60, 0, 10]),  # the best is already the latest
    ],
)
def test_no_rival_no_change_but_the_best_latest_still_outdates_the_earlier(sims: list[float], days: list[int]) -> None:
    order = _latest([0.9, 0.5, 0.3, 0.2, 0.1], [*sims, 0.1, 0.05], [*days, 20, 30])
    assert order[0] == 0
    if days[0] > days[1] and sims[1] >= sims[0] - latest.LATEST_GAP:
        assert order.index(1) == 3
    else:
        assert order == [0, 1, 2, 3, 4]


def test_an_earlier_statement_in_mostly_the_same_words_is_a_restatement_not_outdated() -> None:
    # "I prefer dark mode in the editor" (day 0) and "I really like dark mode in my editor" (day 1)
    words = [{"prefer", "dark", "mode", "editor"}, {"realli", "like", "dark", "mode", "editor"}, {"x"}, {"y"}, {"z"}]
    order = _latest([0.9, 0.5, 0.3, 0.2, 0.1], [0.50, 0.48, 0.2, 0.1, 0.05], [0, 1, 10, 20, 30], words=words)
    assert order.index(0) < 3


def test_a_turn_whose_slot_was_replaced_leaves_the_top_when_the_slots_record_answers() -> None:
    # "Where do I live?": "User lives in Lisbon" (0, keyed), two others, then "I'm Maya, I live in
    # Porto" (3), whose home the move replaced, and a fifth
    score = np.array([0.9, 0.5, 0.4, 0.45, 0.1])
    keys = ["user.home_city", None, "user.timezone", None, None]
    replaced = [frozenset(), frozenset(), frozenset(), frozenset({"user.home_city"}), frozenset()]
    out = latest.below_replaced(score, keys, replaced, [False] * 5)
    order = sorted(range(5), key=lambda i: -out[i])
    assert order[:3] == [0, 1, 2] and order[3] == 3
    # A question the replaced slot does not answer ("What's my name?") leaves it where it was
    keys[0] = "user.name"
    assert list(latest.below_replaced(score, keys, replaced, [False] * 5)) == list(score)


def test_when_the_best_answers_poorly_the_later_change_that_answers_best_takes_its_place() -> None:
    # "What language is tidepool written in?": "It's written in Python" (0) shares its words but
    # means it poorly (0.31); "… being rewritten in Rust" (1, later, a change) means it well; a
    # still later "Started a side project … for now" (2) says "now" but means it less
    sims = [0.31, 0.53, 0.41, 0.2, 0.1]
    order = _latest([0.9, 0.5, 0.45, 0.2, 0.1], sims, [0, 30, 60, 10, 20], changed=[False, True, True, False, False])
    assert order[0] == 1 and order.index(0) >= 3 and order.index(2) < order.index(0)
    # ... and with no such statement, nothing moves
    assert _latest([0.9, 0.5, 0.45, 0.2, 0.1], sims, [0, 30, 60, 10, 20]) == [0, 1, 2, 3, 4]


def test_a_later_change_that_refers_back_to_the_best_ones_thing_is_its_change() -> None:
    # "What date is the Madrid UX conference?": "The Madrid UX conference is on October 5" (0,
    # 0.81) and, months later, "The conference has been pushed back a week, it's on October 12
    # now" (1, 0.53: fewer of the question's words, all of them the first one's)
    score, sims, days = [0.9, 0.5, 0.3, 0.2, 0.1], [0.81, 0.53, 0.2, 0.1, 0.05], [0, 80, 10, 20, 30]
    changed = [False, True, False, False, False]
    covers = [{"madrid", "ux", "confer"}, {"confer"}, set(), set(), set()]
    definite = [set(), {"confer", "ha", "been"}, set(), set(), set()]
    order = _latest(score, sims, days, changed=changed, covers=covers, definite=definite, anywhere=True)
    assert order[0] == 1 and order.index(0) == 3
    # Not when it names the thing anew (no determiner before it) ...
    assert _latest(score, sims, days, changed=changed, covers=covers, anywhere=True)[0] == 0
    # ... nor when someone else said it, nor hours later (one exchange), nor for a question naming someone.
    other = ["Ana", "Ben", None, None, None]
    assert (
        _latest(score, sims, days, changed=changed, covers=covers, definite=definite, speakers=other, anywhere=True)[0]
        == 0
    )
    same_day = [0, 0, 10, 20, 30]
    hours = [0, 2, 0, 0, 0]
    assert (
        _latest(score, sims, same_day, changed=changed, covers=covers, definite=definite, hours=hours, anywhere=True)[0]
        == 0
    )
    assert _latest(score, sims, days, changed=changed, covers=covers, definite=definite)[0] == 0


def test_a_long_turn_of_change_that_refers_back_needs_only_be_relevant() -> None:
    # "What car do I have?": "also bought a car ... second hand skoda octavia estate" (0, 0.45) and,
    # months later, "so we've swapped the car. the estate was drinking petrol, now we've got an
    # MG4, electric, dark blue" (1, 0.29: its other sentences say what it changed to)
    score, sims, days = [0.9, 0.5, 0.3, 0.2, 0.1], [0.45, 0.29, 0.2, 0.1, 0.05], [0, 120, 10, 20, 30]
    changed = [False, True, False, False, False]
    covers = [{"car"}, {"car"}, set(), set(), set()]
    definite = [set(), {"car", "estat"}, set(), set(), set()]
    order = _latest(score, sims, days, changed=changed, covers=covers, definite=definite, anywhere=True)
    assert order[0] == 1 and order.index(0) == 3
    # below the read's floor of relevance it is about something else
    low = [0.45, latest.REFERRED_MIN_SIMILARITY - 0.01, 0.2, 0.1, 0.05]
    assert _latest(score, low, days, changed=changed, covers=covers, definite=definite, anywhere=True)[0] == 0


def test_a_change_also_outdates_an_earlier_statement_that_answers_as_well_as_it() -> None:
    # "What is Tomás's job?": the best by score means it poorly (0, 0.32); "Tomás quit restaurants,
    # he runs a food truck now" (4, later, a change, 0.63) and "Tomás got promoted to head chef"
    # (3, earlier, 0.62) both answer it
    score, sims, days = [0.9, 0.5, 0.4, 0.3, 0.1], [0.32, 0.2, 0.1, 0.62, 0.63], [10, 5, 6, 0, 60]
    changed = [False, False, False, True, True]
    order = _latest(score, sims, days, changed=changed, anywhere=True)
    assert order[0] == 4 and order.index(3) >= 3


def test_the_turn_an_outdated_fact_was_read_from_leaves_the_top_too() -> None:
    # Given a fact (0) read from a turn (2) that means the question poorly itself, and a later
    # rival (1): the turn goes with its fact
    order = _latest([0.9, 0.5, 0.45, 0.2, 0.1], [0.50, 0.46, 0.2, 0.1, 0.1], [0, 60, 0, 5, 6], [2, -1, -1, -1, -1])
    assert order[0] == 1 and min(order.index(0), order.index(2)) >= 3


@pytest.mark.parametrize(
    ("question", "newest"),
    [
        ("What was the result of the most recent full pytest run?", True),
        ("How many tests passed in the last pytest run?", True),
        ("What's the latest on my refund?", True),
        ("What did I do last weekend?", False),
        ("What did Melanie paint recently?", False),
        ("When did I last see my sister?", False),
    ],
)
def test_asks_latest_is_a_question_for_the_newest_of_something_said_more_than_once(question: str, newest: bool) -> None:
    assert latest.asks_latest(question) is newest


def test_the_latest_run_of_a_tool_results_series_answers_a_question_for_the_latest() -> None:
    # Given three CI runs on main, each keyed by its own run number, when the best answer to "did
    # the last CI run on main pass?" is an earlier run, then the latest run takes the top and the
    # earlier runs of the series leave the top 3; another pipeline's run keeps its place.
    texts = [
        "CI · ledger-pipe · main · #418 · failed (unit)",
        "CI · ledger-pipe · main · #431 · passed",
        "CI · billing · main · #77 · passed",
        "CI · ledger-pipe · main · #425 · failed (lint)",
        "I pushed the rewrite.",
    ]
    keys = ["tool.418", "tool.431", "tool.77", "tool.425", None]
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    said = [t0, t0 + timedelta(days=20), t0 + timedelta(days=30), t0 + timedelta(days=5), t0]
    score = np.array([0.16, 0.13, 0.05, 0.12, 0.04])
    out = runs.latest_of_series(score, keys, texts, said, [False] * 5)
    order = list(np.argsort(-out))
    assert order[0] == 1 and set(order[:3]) == {1, 2, 4}
    assert runs.series(texts[0]) == "ci ledger pipe main"
    assert runs.series('ticket.get("TCK-1")') == ""  # an id in its first word: no series to join


def test_the_lexical_query_reads_a_living_as_work_and_drops_now_in_a_present_read() -> None:
    assert latest.lexical_query("What does Rosa do for a living?", present=False) == "What does Rosa do for work?"
    assert "now" not in latest.lexical_query("Where do I exercise now?").split()
    assert latest.lexical_query("Where do I exercise now?", present=False) == "Where do I exercise now?"
    assert latest.lexical_query("now?") == "now?"  # nothing left: the question as it was


def test_the_latest_run_of_a_kind_answers_a_question_naming_no_tool() -> None:
    # Given a test suite run by jest, then by vitest (the runner replaced), and a deploy,
    texts = [
        "$ npx jest\nTests: 3 failed, 211 passed",
        "$ pnpm vitest run\nTests 251 passed (251)",
        "fly deploy: release v27 created",
        "I pushed the rewrite.",
    ]
    keys = ["tool.npx_jest", "tool.pnpm_vitest_run", "tool.fly_deploy", None]
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    said = [t0, t0 + timedelta(days=3), t0 + timedelta(days=4), t0 + timedelta(days=2)]
    score = np.array([0.2, 0.15, 0.05, 0.1])
    # "What was the result of the latest test run?": the latest run of a test suite, whatever ran it,
    out = runs.latest_of_series(score, keys, texts, said, [False] * 4, "What was the result of the latest test run?")
    assert int(np.argmax(out)) == 1 and list(np.argsort(-out))[-1] == 0
    # while a question naming the tool asks for its own runs only,
    named = runs.latest_of_series(score, keys, texts, said, [False] * 4, "Did the latest Jest run pass?")
    assert int(np.argmax(named)) == 0
    mine = runs.latest_of_series(score, keys, texts, said, [False] * 4, "Did my latest test run pass, as I hoped?")
    assert int(np.argmax(mine)) == 1  # "I" names no tool
    assert [runs.run_kind(t) for t in texts] == ["tests", "tests", "deploy", ""]


def test_a_tools_output_with_no_command_line_is_a_run_too() -> None:
    # Given a test run keyed by its command, then a runner's output no command heads (a tool's
    # transcript: its tally says it is a test run), and two deploys' outputs of the same shape,
    texts = [
        "$ yarn jest\nTests: 3 failed, 63 passed",
        " RUN  v1.6.0 /home/mira/code/walkies-api\n\n Tests  66 passed (66)",
        "==> Building image with Docker\nrelease v14 failed, rolling back",
        "==> Building image with Docker\nrelease v15 created",
    ]
    keys = ["tool.yarn_jest", None, None, None]
    t0 = datetime(2025, 5, 1, tzinfo=UTC)
    said = [t0, t0 + timedelta(days=3), t0 + timedelta(days=4), t0 + timedelta(days=6)]
    score = np.array([0.4, 0.1, 0.3, 0.05])
    reported = [True, True, True, True]
    # then the latest test run answers for the tests, and the latest deploy for the deploy,
    tests = runs.latest_of_series(score, keys, texts, said, [False] * 4, "Did the most recent test run pass?", reported)
    assert int(np.argmax(tests)) == 1 and runs.run_kind(texts[1]) == "tests"
    deploy = score.copy()
    deploy[0] = 0.0
    out = runs.latest_of_series(
        deploy, keys, texts, said, [False] * 4, "Did the latest Fly deploy go through?", reported
    )
    assert int(np.argmax(out)) == 3
    # but not when the store did not say they came from a tool: a user may paste anything.
    unsaid = runs.latest_of_series(deploy, keys, texts, said, [False] * 4, "Did the latest Fly deploy go through?")
    assert int(np.argmax(unsaid)) == 2


def test_a_run_named_by_a_command_inside_an_output_answers_for_that_tool() -> None:
    # Given two pytest runs, a cargo run and a later output whose second command ran pytest,
    texts = [
        "$ pytest -q\n3 failed, 139 passed in 48.21s",
        "$ pytest -q\n171 passed in 39.02s",
        "cargo test: test result: ok. 59 passed; 0 failed",
        "$ uv pip show fastapi\nVersion: 0.121.0\n$ uv run pytest -q\n188 passed, 1 skipped in 41.87s",
    ]
    keys = ["tool.pytest", "tool.pytest", "tool.cargo_test", "tool.uv_pip_show"]
    t0 = datetime(2026, 1, 13, tzinfo=UTC)
    said = [t0, t0 + timedelta(days=99), t0 + timedelta(days=150), t0 + timedelta(days=239)]
    score = np.array([0.05, 0.09, 0.2, 0.01])
    # then the question naming pytest gets the latest output that ran it, and the earlier pytest
    # runs fall below the cargo run, which keeps its place.
    out = runs.latest_of_series(score, keys, texts, said, [False] * 4, "What did the most recent pytest run show?")
    assert list(np.argsort(-out))[:2] == [3, 2]
    assert runs.commanded(texts[3]) >= {"uv", "pip", "show", "fastapi", "run", "pytest"}


def test_the_kind_of_run_a_question_names_picks_its_runs() -> None:
    # Given a team's own deploy script run twice (its outcome, not its first line, says it deployed)
    # and a later command about something else, the best match,
    texts = [
        "$ ./scripts/ship staging\n→ target: fly\nstatus: deployed  version: 0.15.1",
        "$ python --version\nPython 3.12.2",
        "$ ./scripts/ship prod\n→ target: fly\nstatus: deployed  version: 0.16.0",
    ]
    keys = [None, "tool.python", None]
    t0 = datetime(2026, 3, 16, tzinfo=UTC)
    said = [t0, t0 + timedelta(days=9), t0 + timedelta(days=7)]
    score = np.array([0.04, 0.05, 0.03])
    # then "the last deploy" is the latest run of a deploy, whatever its command,
    out = runs.latest_of_series(
        score, keys, texts, said, [False] * 3, "What version did the last deploy put out?", [True] * 3
    )
    assert int(np.argmax(out)) == 2
    assert [runs.run_kind(t) for t in texts] == ["deploy", "", "deploy"]
    assert runs.asked_kind("Did the latest test run pass?") == "tests" and runs.asked_kind("What's new?") == ""
    assert "version" not in runs.naming_words("What version did the last deploy put out?")


def test_a_question_naming_a_tools_call_is_answered_by_that_call_first() -> None:
    # Given a flight's booking and a rail and a restaurant booking by the same tool (the flight
    # scored lowest), and a user's turn,
    texts = [
        "bookings.rail :: status: CONFIRMED\nroute: Lisbon -> Porto",
        "bookings.restaurant :: status: CONFIRMED",
        "bookings.flight :: status: CONFIRMED\noutbound: TP1357 LHR -> LIS",
        "I need to sort out a trip to Lisbon",
    ]
    keys = ["tool.cp-1", "tool.tl-2", "tool.q7xk2m", None]
    score = np.array([0.8, 0.6, 0.2, 0.4])
    # then "Which flight ...?" has the flight first; "bookings", in every call, names none of them,
    out = runs.named_first(score, "Which flight are we booked on to Lisbon?", keys, texts)
    assert int(np.argmax(out)) == 2
    same = runs.named_first(score, "Are all my bookings confirmed?", keys, texts)
    assert list(same) == list(score)
    # and a test's file named in a failed run's line is no call of the run's tool.
    assert runs.called("CI · main · #418 · failed · FAILED tests/test_retry.py::test_retry_backoff") == set()
    assert runs.called('payments.list(subscription="SUB-1")') == {"payments", "list"}
