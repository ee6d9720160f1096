"""Verified tool results as keyed records: a later result about the same object supersedes.

A tool result ("order_lookup 88213: status=handed to carrier; ...") reports the state of one
*object* at the time it ran. Kept only as a transcript, every result about the object stays
current beside the newer ones; filed under ``tool.<object>`` (a single-valued slot) the usual
supersession closes the older claim at the newer one's time, keeps it for ``as_of`` reads, and
retires its transcript from present reads.

The object is what the result is about, read from its head (the words before the first ``": "``
and the first clause after it):

* the first id-like token there: a token of letters, digits and ``-_./#`` with a digit in it
  ("88213", "SUP-5521", "HB-771", "#4411"), that is not a date, a time, a version or decimal
  ("3.12", "6.2s"), an amount ("EUR 312"), a count ("41 passed", "3 failed") or the tool's own
  name ("s3_get");
* else the command the head names ("pytest", "cargo build": one to :data:`MAX_COMMAND_WORDS`
  plain words before the colon, or after a shell prompt: "$ pnpm vitest run", "$ pnpm tsc
  --noEmit"), so the latest run of a command supersedes the previous one.

Different tools about the same object share the slot (``booking_create`` / ``booking_lookup`` /
``booking_modify HB-771`` are all ``tool.hb-771``): the object, not the tool, is what changed.
A result whose head names neither yields nothing (its transcript is still kept); nor does a
snake_case API tool with no id ("search_web: ..."), whose calls are about their arguments.
The record's value is the result verbatim; its text names the tool in words ("order lookup
88213: ..."), so a question about "order 88213" meets it word for word.

A later result about an object supersedes the earlier one, and what the earlier one said that
the later one does not restate still holds: the hotel's name in ``booking_create`` is not
repeated by ``booking_modify``, nor the carrier by the delivery. :func:`still_holds` reads those
fields so the new record's text carries them ("... (still: Hotel Marqués de Dos Aguas,
Valencia)"); its value stays the result verbatim, and ``as_of`` reads the earlier record whole.
A command's run ("pytest: 44 passed") is a state of its own: nothing of the previous run carries.

Only episodes from ``Source.VERIFIED_TOOL`` count: a user's turn naming the id is a mention,
not a newer state, and a model's or a retrieved document's is not authority. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from memworks.models.drafts import Candidate, Turn
from memworks.models.enums import MemoryKind, Role, Source
from memworks.pipelines.extraction.dates.timeparse import find_time
from memworks.pipelines.extraction.tools.calls import call_fields, call_object, call_readable, is_call
from memworks.pipelines.extraction.tools.field_names import STAMP_NAMES, STATE_NAMES, shares_a_word

__all__ = [
    "ASKED",
    "EXTRACTOR",
    "KEY_PREFIX",
    "STILL",
    "about",
    "is_run",
    "object_of",
    "own_words",
    "readable",
    "still_holds",
    "tool_result_candidates",
]

#: ``Candidate.extractor`` of the records made here, for the audit trail.
EXTRACTOR = "tool"
#: The slot family of tool results.
KEY_PREFIX = "tool."
#: Confidence of a verified tool's own report.
CONFIDENCE = 0.95
#: Most words a command may have ("cargo build", "git status", "npm run test").
MAX_COMMAND_WORDS = 3
#: Characters of the first line read for the head (a result's object is named early).
HEAD_CHARS = 200
#: Words of a result without a head colon in which its id is looked for.
HEAD_WORDS = 8
#: Tokens after the colon in which an id may still be found ("ticket_create: SUP-5521 opened").
BODY_TOKENS = 4

# The head ends at the first colon followed by a space or the end (not "10:02", not "https:").
_HEAD_END = re.compile(r":(?=\s|$)")
# The first clause of the body ends at a separator.
_CLAUSE_END = re.compile(r"[;:(\[=]|,(?!\d)|\.(?=\s|$)")
_TOKEN_EDGE = "\"'`()[]{}<>,;:.!?*"
_ID = re.compile(r"#?[A-Za-z0-9](?:[A-Za-z0-9._/#-]*[A-Za-z0-9])?")
_DIGIT = re.compile(r"\d")
_DATE = re.compile(r"(?<!\d)(?:\d{4}-\d{1,2}(?:-\d{1,2})?|\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?)")
_DECIMAL_OR_VERSION = re.compile(
    r"(?<![\dv])(?:v?\d+(?:\.\d+)+[a-z]{0,3}|v\d+|\d+(?:\.\d+)?[a-z%]{1,3})", re.IGNORECASE
)
_ORDINAL = re.compile(r"(?<!\d)\d+(?:st|nd|rd|th)", re.IGNORECASE)
_CURRENCY = frozenset("eur usd gbp jpy chf cad aud inr $ € £ ¥".split())
# A command word: lowercase letters, digits and -./ ("cargo", "npm", "py.test"). A snake_case
# name is an API tool whose object is an argument ("search_web"): without an id, no object.
_COMMAND_WORD = re.compile(r"[a-z][a-z0-9./-]*")
#: Labels that head a result without naming what ran ("error: ...", "note: ...").
_LABELS = frozenset(
    "error errors warning warnings note info debug result results output status success failure".split()
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d")
#: Fewest digits of a bare number taken as an id ("ticket 812"; "#7" is one whatever its length).
MIN_ID_DIGITS = 3
_COUNTED = re.compile(r"[a-z]+")
_SNAKE = re.compile(r"(?<=[A-Za-z])_(?=[A-Za-z])")
_SLUG = re.compile(r"[^a-z0-9-]+")
# A shell prompt before the command a transcript of its output starts with ("$ npx jest").
_PROMPT = re.compile(r"[$>%]\s+(?P<command>\S.*)")


def tool_result_candidates(turn: Turn, context: Sequence[Turn] = ()) -> list[Candidate]:
    """The keyed record of a verified tool result, or nothing.

    Args:
        turn: one episode; only ``Source.VERIFIED_TOOL`` episodes not spoken by the user count.
        context: earlier turns of its session. The user's turn the result answers (the latest
            that names its id, else the latest of the user's) is quoted in the record's text, so
            a question in the user's words ("Have my headphones arrived?") meets the result
            ("order_lookup 88213: status=delivered") that names no headphones.

    Returns:
        One semantic candidate keyed ``tool.<object>`` whose value and text are the result, or
        ``[]`` when the episode is not a verified tool result or its head names no object.
    """
    if turn.source is not Source.VERIFIED_TOOL or turn.role is Role.USER:
        return []
    text = turn.content.strip()
    obj = object_of(text)
    if obj is None:
        return []
    asked = _asking(obj, context)
    return [
        Candidate(
            kind=MemoryKind.SEMANTIC,
            key=KEY_PREFIX + obj,
            value=text,
            text=readable(text) + (f"{ASKED}{_quoted(asked)})" if asked else ""),
            confidence=CONFIDENCE,
            evidence=(turn.episode_id,),
            source=turn.source,
            extractor=EXTRACTOR,
            extra={"rule": "tool.result", "object": obj},
            event_at=_dated(text, turn),
        )
    ]


def _dated(result: str, turn: Turn) -> datetime | None:
    """The day a result states with its year ("status=completed 2026-05-29", "check-in
    2026-06-21"): when what it reports happens or happened. A tool writes dates in full; one
    without a year ("renews 19 May") is left to the reading of the turn. A result that states
    no day reports what it did or saw when it ran ("Successfully applied 1 migration", "44
    passed"): that is its time."""
    found = find_time(result, turn.occurred_at)
    if found is None:
        return turn.occurred_at
    return found.when if _YEAR.search(found.phrase) else None


#: Fewest words of a user's turn that asks for what a result answers.
ASKED_WORDS = 3
#: Characters of the user's turn quoted in a result's text.
ASKED_CHARS = 240
#: What opens the quote of the user's turn a result answers, in its record's text.
ASKED = " (asked: "


def about(obj: str, context: Sequence[Turn]) -> str:
    """The user's turn of ``context`` a result about ``obj`` answers (:func:`_asking`), quoted;
    "" when there is none."""
    asked = _asking(obj, context)
    return _quoted(asked) if asked else ""


def own_words(text: str) -> str:
    """A record's text without the user's turn it quotes (:data:`ASKED`): a tool result's own
    words, for what matches or shows it (that turn's words are the user's, not the result's)."""
    return text.split(ASKED, 1)[0]


def _asking(obj: str, context: Sequence[Turn]) -> Turn | None:
    """The latest user turn of ``context`` that names the id, else the latest user turn (the
    request the tool ran for)."""
    said = [t for t in context if t.role is Role.USER and t.source is Source.USER]
    # A word or two said back ("Lindesnes", a PIN) is no request, nor copied into a record that outlives it.
    said = [t for t in said if len(t.content.split()) >= ASKED_WORDS]
    pattern = re.compile(rf"(?<![\w-]){re.escape(obj)}(?![\w-])", re.IGNORECASE)
    naming = [t for t in said if pattern.search(t.content)]
    return (naming or said)[-1] if said else None


def _quoted(turn: Turn) -> str:
    return " ".join(turn.content.split())[:ASKED_CHARS]


def readable(result: str) -> str:
    """``result`` with the snake_case tool name of its head in words ("order_lookup 88213: ..."
    → "order lookup 88213: ..."), so a question about "order 88213" meets it word for word."""
    if (words := call_readable(result)) is not None:
        return words
    end = _HEAD_END.search(result[:HEAD_CHARS])
    cut = end.start() if end else 0
    return _SNAKE.sub(" ", result[:cut]) + result[cut:]


def object_of(result: str) -> str | None:
    """The slug of what ``result`` is about: its first id in the head, else its command."""
    if found := call_object(result):  # 'ticket.get("TCK-1")' and its JSON reply: what the reply names
        return _slug(found)
    if is_call(result) and not result.lstrip().startswith("{"):
        return None  # a call about no id ("search.web(query=...)"): about its arguments
    line = result.strip().split("\n", 1)[0][:HEAD_CHARS]
    if prompt := _PROMPT.match(line):  # "$ pnpm vitest run": the command run is what it is about
        words = prompt["command"].split()
        command = next((words[:i] for i, w in enumerate(words) if not _COMMAND_WORD.fullmatch(w)), words)
        return _slug("_".join(command[:MAX_COMMAND_WORDS])) if command else None
    end = _HEAD_END.search(line)
    head = line[: end.start()] if end else line
    body = line[end.end() :] if end else ""
    # Without a colon the whole line is the head: only its first words are "near the start".
    head_words = head.split()[: None if end else HEAD_WORDS]
    # A lowercase first word is the tool's name when more follow ("ec2_describe i-0abc12").
    named = len(head_words) > 1 and head_words[0][:1].islower()
    found = _first_id(head_words[1:] if named else head_words)
    if found is None and end is not None:
        clause = _CLAUSE_END.split(body.strip(), maxsplit=1)[0]
        found = _first_id(clause.split()[:BODY_TOKENS])
    if found is not None:
        return _slug(found)
    if end is not None and _is_command(head_words):
        return _slug("_".join(head_words))
    return None


def _first_id(words: list[str]) -> str | None:
    for i, raw in enumerate(words):
        token = raw.strip(_TOKEN_EDGE)
        if not token or not _ID.fullmatch(token) or not _DIGIT.search(token):
            continue
        before = words[i - 1].strip(_TOKEN_EDGE).lower() if i else ""
        after = words[i + 1] if i + 1 < len(words) else ""
        if _not_an_id(token, before, after, raw):
            continue
        return token.lstrip("#")
    return None


def _not_an_id(token: str, before: str, after: str, raw: str) -> bool:
    """A date, time, version, decimal, ordinal, amount or count: a number, not a name."""
    if _DATE.fullmatch(token) or _DECIMAL_OR_VERSION.fullmatch(token) or _ORDINAL.fullmatch(token):
        return True
    if not token.lstrip("#").isdigit():
        return False  # letters and digits together ("SUP-5521", "E0382") name something
    if token.startswith("#"):
        return False  # "#4411" is a reference
    if len(token) < MIN_ID_DIGITS or _YEAR.fullmatch(token):
        return True
    if raw.rstrip().endswith(":"):
        return False  # "order 88213:" names what follows
    if before in _CURRENCY:
        return True
    # "41 passed", "3 items": a bare number before a plain word counts something.
    return _COUNTED.fullmatch(after.rstrip(_TOKEN_EDGE)) is not None


def _is_command(words: list[str]) -> bool:
    return (
        0 < len(words) <= MAX_COMMAND_WORDS
        and words[0] not in _LABELS
        and all(_COMMAND_WORD.fullmatch(w) for w in words)
    )


def _slug(token: str) -> str:
    return _SLUG.sub("_", token.lower()).strip("_-") or "_"


#: What marks the carried fields in a record's text.
STILL = " (still: "
#: Most characters of carried fields.
STILL_CHARS = 300


def _fields(result: str) -> list[str]:
    """The fields of a result's body ("status=confirmed", "Hotel Marqués de Dos Aguas"): split
    at ";" and "," outside parentheses ("category=hardware fault (earbuds, case)" is one)."""
    if (fields := call_fields(result)) is not None:
        return fields
    end = _HEAD_END.search(result[:HEAD_CHARS])
    body = result[end.end() :] if end else result
    out: list[str] = []
    start, depth, joined = 0, 0, False
    for i, ch in enumerate([*body, ""]):  # "" ends the last field, inside a parenthesis or not
        depth += (ch == "(") - (ch == ")" and depth > 0)
        if (ch in ";," and depth == 0) or not ch:
            piece = body[start:i]
            # "status=payment verified, packing": words after a comma with no name of their own
            # go on the named value before them.
            if joined and out and "=" in out[-1] and "=" not in piece:
                out[-1] += "," + piece
            else:
                out.append(piece)
            start, joined = i + 1, ch == ","
    return [p.strip(" .") for f in out for p in _SPACED_FIELD.split(f) if p.strip(" .")]


#: Where a line of fields set apart by spaces alone is cut: before each "name=" after the first
#: ("sim_swap request_id=SW-30417 status=completed" is three fields).
_SPACED_FIELD = re.compile(r"(?<!\s)\s++(?=[\w.-]++=)")


def _name(field: str) -> str:
    """A field's name: before "=", else its first word ("check-in 2026-06-20" → "check-in"), or
    "date" for a field that is a date ("2026-05-29 at 15:30")."""
    name = (field.split("=", 1)[0] if "=" in field else field.split()[0]).strip().casefold()
    return "date" if _DATE.fullmatch(name) else name


def is_run(key: str) -> bool:
    """``key`` is a command's run ("tool.pytest", "tool.fly_deploy"): its object names no id."""
    return key.startswith(KEY_PREFIX) and not _DIGIT.search(key.removeprefix(KEY_PREFIX))


def still_holds(key: str, new_value: str, old_value: str, old_text: str) -> str:
    """The fields of the earlier result about ``key``'s object (and those it carried) that the
    new result does not restate, joined; "" for a command's run or when nothing is left.

    A field that names the object itself ("SUP-5521 opened") is a state of it, not a detail, and
    never carries; nor does one whose name the new result uses ("status=...").

    When the object's status changed ("pending_engineer" → "resolved"), what the earlier result
    said beside the old status described that status ("last_update=engineer visit required",
    "return_label=sent_by_email", "note=engineer unable to access building") and does not carry
    (:func:`_about_old_state`); names, numbers and short names of what the object is do ("hotel=
    Alfama Patio Hotel", "carrier=SEUR", "2026-05-29 at 15:30", "bike tune-up"), and so does
    what it carried from an older result: that was not said of the status that ended."""
    obj = key.removeprefix(KEY_PREFIX)
    if is_run(key):
        return ""
    carried = old_text[old_text.rfind(STILL) + len(STILL) : -1] if STILL in old_text else ""
    new_fields = _fields(new_value)
    taken = {_name(f) for f in new_fields}
    new_names = set(taken)
    named = _names_in(new_value)
    was, now = _status(_fields(old_value)), _status(new_fields)
    moved = was is not None and now is not None and was != now
    out: list[str] = []
    beside = _fields(old_value)
    for f in [*beside, *(x.strip() for x in carried.split("; ") if x.strip())]:
        name = _name(f)
        if name in taken or _slug(name) == obj or f in out or f in new_value:
            continue
        if STAMP_NAMES.search(name):
            continue  # when the earlier result was updated: the new one is a later update
        if (
            moved
            and f in beside
            and name not in _KIND_NAMES
            and (STATE_NAMES.search(name) or _about_old_state(f.split("=", 1)[-1]))
        ):
            continue
        if moved and shares_a_word(name, new_names):
            continue  # "price_usd=15900" beside "sold_price_usd=15200": the new result's word for it
        taken.add(name)  # the newest field of a name is its state: an older one of it is not
        # An older field naming what a newer one names ("membership=Trailhead Basic" behind
        # "plan=Trailhead Plus"), under another field name, is that thing's old state.
        if _names_in(f) & named:
            continue
        out.append(f)
        named |= _names_in(f)
    return "; ".join(out)[:STILL_CHARS]


#: The field names of an object's state.
_STATUS_NAMES = frozenset({"status", "state"})
#: The field names of what kind of thing the object is ("category=broadband_fault"): a
#: description of the object whatever its status.
_KIND_NAMES = frozenset({"category", "type", "kind", "service", "product", "tool"})
#: Fewest words of a field's value read as words about a state, not the name of a thing.
PROSE_WORDS = 4
#: A name (capitalised: "Alfama", "SEUR") or a number (a day, an amount) in a field's value.
_NAME_OR_NUMBER = re.compile(r"\b[A-Z][A-Za-z]|\d")


def _about_old_state(value: str) -> bool:
    """Words about a state rather than a thing: a phrase of :data:`PROSE_WORDS` words or more,
    or a code ("sent_by_email"), naming nothing and counting nothing. A short phrase ("bike
    tune-up") names what the object is."""
    if _NAME_OR_NUMBER.search(value):
        return False
    return len(value.split()) >= PROSE_WORDS or "_" in value


def _status(fields: list[str]) -> str | None:
    """The value of a result's status field, folded; None when it states none."""
    return next((f.split("=", 1)[1].strip().casefold() for f in fields if "=" in f and _name(f) in _STATUS_NAMES), None)


def _names_in(text: str) -> frozenset[str]:
    """The capitalised words of ``text``'s values (names of things: "Trailhead", "Toronto")."""
    values = " ".join(f.split("=", 1)[1] for f in _fields(text) if "=" in f)
    return frozenset(w for w in re.findall(r"\b[A-Z][a-z]{2,}\b", values))
