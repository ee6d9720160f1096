"""The probe suite's scenarios: five users, ten months of conversations, and the answer key.

The key was written first, as data beside each question; the conversations were then written to
make those answers true, using only statement forms the ``rules`` extractor understands
(``memworks/pipelines/extraction/rules.py``) or, for the questions whose answer lives only in a
transcript, plain sentences that no pattern reads.

Users (every one talks to the agent once a week, 2024-09-02 to 2025-06-30):

* ``acme/maya`` — moves Lisbon → Berlin (said with a relative time: "two weeks ago"), changes job
  and diet, has a dog and later a kitten, reminisces about Lisbon after the move.
* ``acme/omar`` — moves Porto → Valencia, then asks to be forgotten in conversation ("forget where I
  work", "please forget about my hamster"); talks hypothetically about Madrid; the assistant once
  guesses his airline.
* ``acme/lena`` — a few facts and a transcript-only one; erased as a whole subject at the end.
* ``acme/theo`` — never says where he lives, only where he *would* live.
* ``globex/maya`` — same user id as acme's Maya in another tenant, with same-shaped facts.

Filler (task requests with the assistant's replies, chit-chat, thanks) is generated from fixed
pools with a seeded ``random.Random`` per user, so every run builds the same histories. Filler
never states a fact about the user and names no place, pet or employer.

Answers (``Question.expect``): ``None`` means the right answer is to abstain; a string is one
answer, ``|`` separating accepted spellings; a tuple is a set answer (every item, nothing else).

Reader cues: a deterministic reader needs to know which words in a line answer a question. The
cues below are the naive patterns a keyword matcher would use (``a`` is the answer group); the
``transcript_only`` design runs them over the whole history, and the ``memworks`` design runs them
over its hits when a question has no memory key (``slots``) to read.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

__all__ = [
    "CHECKPOINTS",
    "DELETIONS",
    "QUESTIONS",
    "SLICES",
    "USERS",
    "Deletion",
    "Line",
    "Question",
    "Session",
    "conversation",
]

#: LongMemEval's five abilities, then the two governance ones.
SLICES = (
    "information_extraction",
    "multi_session_reasoning",
    "knowledge_update",
    "temporal_reasoning",
    "abstention",
    "isolation",
    "deletion",
)
#: (tenant, user) of every conversation, and the weekday (0 = Monday) of its weekly session.
USERS: dict[tuple[str, str], int] = {
    ("acme", "maya"): 0,
    ("acme", "omar"): 1,
    ("acme", "lena"): 2,
    ("acme", "theo"): 3,
    ("globex", "maya"): 4,
}
FIRST_WEEK, LAST_WEEK = date(2024, 9, 2), date(2025, 6, 30)
#: Transaction-time checkpoints: the wall clock once every week before this day is stored.
CHECKPOINTS = {"before_move_reported": "2025-03-17"}


@dataclass(frozen=True)
class Line:
    """One turn: what a role said."""

    role: str
    text: str


@dataclass(frozen=True)
class Session:
    day: str
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Question:
    """One probe and its answer key."""

    qid: str
    slice: str
    tenant: str
    user: str
    text: str
    #: None: abstain. "a|b": one answer, either spelling. A tuple: exactly this set.
    expect: str | tuple[str, ...] | None
    #: Memory keys the memworks design reads the answer from; a trailing "." is a key prefix.
    slots: tuple[str, ...] = ()
    #: Reader cues (regexes with an ``a`` group) that find the answer in a line of text.
    cues: tuple[str, ...] = ()
    #: Valid time the question is about (ISO day), for "where did I live in March" questions.
    as_of: str | None = None
    #: A CHECKPOINTS name: what the memory believed at that transaction time.
    known_at: str | None = None
    #: The answer is a slot's history, not its current value.
    history: bool = False
    #: Asked after the deletion requests have completed.
    after_deletion: bool = False
    #: Isolation: another scope's values that must never reach this one.
    not_values: tuple[str, ...] = ()
    why: str = ""

    @property
    def many(self) -> bool:
        """The question asks for a set of things."""
        return isinstance(self.expect, tuple)


@dataclass(frozen=True)
class Deletion:
    """A deletion probe: after it completes, none of ``values`` may remain in any projection."""

    qid: str
    tenant: str
    user: str
    values: tuple[str, ...]
    #: Topic deletion of these keys (a request), or the keys the user's own retraction names.
    keys: tuple[str, ...] = ()
    #: Delete the current record of this key by its id.
    memory_of: str | None = None
    #: Opened by the user's own words on this day ("please forget where I work").
    said_on: str | None = None
    whole_subject: bool = False
    why: str = ""

    slice: str = "deletion"


# --- reader cues --------------------------------------------------------------------------

_NAME = r"[A-Z][a-z]+"
HOME = (
    rf"\b(?:live|lives|living|lived|based|moved|relocated|relocating|moving)\s+(?:in|to)\s+(?P<a>{_NAME}(?:\s{_NAME})?)"
)
EMPLOYER = (
    r"\b(?:(?:work|works|working|worked)\s+(?:at|for)|joined|started\s+at|job\s+at)\s+"
    r"(?P<a>[A-Z]\w*(?:\s[A-Z]\w*)*)"
)
TITLE = r"\b(?:as|I'm|I am)\s+an?\s+(?P<a>[a-z]+\s(?:engineer|manager|analyst|designer|developer))\b"
DIET = r"\b(?:I'm|I am|went|now)\s+(?P<a>vegetarian|vegan|pescatarian|lactose intolerant)\b"
ALLERGY = r"\ballergic\s+to\s+(?P<a>[a-z]+)"
SEAT = r"\b(?P<a>aisle|window)\s+seats?\b"
TIMEZONE = r"\btime\s?zone\s+is\s+(?P<a>[\w/]+)"
_SPECIES = r"(?:dog|puppy|cat|kitten|hamster)"
PET = rf"\b{_SPECIES}(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{_NAME})"
DOG = rf"\b(?:dog|puppy)(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{_NAME})"
CAT = rf"\b(?:cat|kitten)(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{_NAME})"
HAMSTER = rf"\bhamster(?:'s\s+name)?\s+(?:is\s+)?(?:called|named|is)\s+(?P<a>{_NAME})"
_RELATIVE = r"(?:sister|brother|mum|mom|mother|dad|father)"
FAMILY = rf"\b{_RELATIVE}(?:'s\s+name)?\s+(?:is\s+)?(?:called\s+)?(?P<a>{_NAME})"
SISTER = rf"\bsister(?:'s\s+name)?\s+(?:is\s+)?(?P<a>{_NAME})"
BROTHER = rf"\bbrother(?:'s\s+name)?\s+(?:is\s+)?(?P<a>{_NAME})"


# --- the answer key -----------------------------------------------------------------------

_M, _O, _L, _T, _G = ("acme", "maya"), ("acme", "omar"), ("acme", "lena"), ("acme", "theo"), ("globex", "maya")


def _q(
    qid: str, slice_: str, who: tuple[str, str], text: str, expect: str | tuple[str, ...] | None, **kw: Any
) -> Question:
    return Question(qid, slice_, who[0], who[1], text, expect, **kw)


_IE, _MS, _KU, _TR, _AB, _IS = SLICES[:6]
QUESTIONS: tuple[Question, ...] = (
    # information extraction: one fact, said once
    _q("ie-maya-dog", _IE, _M, "What's my dog called?", "Pixel", slots=("user.pet.dog",), cues=(DOG,)),
    _q("ie-maya-allergy", _IE, _M, "What food am I allergic to?", "peanuts", slots=("user.allergy",), cues=(ALLERGY,)),
    _q(
        "ie-maya-seat",
        _IE,
        _M,
        "Window or aisle: which seat should you book for me?",
        "aisle",
        slots=("user.pref.seat",),
        cues=(SEAT,),
    ),
    _q(
        "ie-maya-restaurant",
        _IE,
        _M,
        "Which restaurant did we book for the anniversary dinner?",
        "Casa Lumo",
        cues=(rf"\bdinner\s+at\s+(?P<a>{_NAME}(?:\s{_NAME})*)",),
        why="only in a transcript",
    ),
    _q("ie-omar-sister", _IE, _O, "What's my sister's name?", "Leila", slots=("user.family.sister",), cues=(SISTER,)),
    _q(
        "ie-omar-flight",
        _IE,
        _O,
        "What's my flight number to Montreal?",
        "AC 837|AC837",
        cues=(r"\bflight\b[^.]*?\b(?P<a>[A-Z]{2}\s?\d{2,4})\b",),
        why="only in a transcript",
    ),
    _q("ie-lena-cat", _IE, _L, "What's my cat's name?", "Juniper", slots=("user.pet.cat",), cues=(CAT,)),
    _q(
        "ie-lena-locksmith",
        _IE,
        _L,
        "What was the locksmith's name?",
        "Bruno Varga",
        cues=(rf"\blocksmith\b[^.]*?\bname\s+is\s+(?P<a>{_NAME}(?:\s{_NAME})?)",),
        why="only in a transcript",
    ),
    _q(
        "ie-theo-brother",
        _IE,
        _T,
        "What's my brother's name?",
        "Jonas",
        slots=("user.family.brother",),
        cues=(BROTHER,),
    ),
    _q(
        "ie-theo-wifi",
        _IE,
        _T,
        "What's the wifi password at the cabin?",
        "saltmarsh42",
        cues=(r"\bwifi\s+password\b[^.]*?\bis\s+(?P<a>\w+)",),
        why="only in a transcript",
    ),
    # multi-session reasoning: the answer is spread over several sessions
    _q("ms-maya-pets", _MS, _M, "Which pets do I have?", ("Pixel", "Miso"), slots=("user.pet.",), cues=(PET,)),
    _q(
        "ms-maya-food",
        _MS,
        _M,
        "What do I need to avoid when you suggest recipes?",
        ("vegetarian", "peanuts"),
        slots=("user.diet", "user.allergy"),
        cues=(DIET, ALLERGY),
        why="diet and allergy from different sessions; the diet changed once",
    ),
    _q(
        "ms-maya-cities",
        _MS,
        _M,
        "Which cities have I lived in since we started talking?",
        ("Lisbon", "Berlin"),
        slots=("user.home_city",),
        cues=(HOME,),
        history=True,
    ),
    _q(
        "ms-omar-family",
        _MS,
        _O,
        "Which of my siblings have I told you about?",
        ("Leila", "Karim"),
        slots=("user.family.",),
        cues=(FAMILY,),
    ),
    _q(
        "ms-theo-family",
        _MS,
        _T,
        "Which family members have I mentioned to you?",
        ("Jonas", "Ingrid"),
        slots=("user.family.",),
        cues=(FAMILY,),
    ),
    _q(
        "ms-lena-allergies",
        _MS,
        _L,
        "What am I allergic to?",
        ("shellfish", "cats"),
        slots=("user.allergy",),
        cues=(ALLERGY,),
        why="two allergies, four months apart",
    ),
    # knowledge update: the latest value wins
    _q(
        "ku-maya-home",
        _KU,
        _M,
        "Where do I live?",
        "Berlin",
        slots=("user.home_city",),
        cues=(HOME,),
        why="moved; later reminisces 'I used to live in Lisbon'",
    ),
    _q("ku-maya-employer", _KU, _M, "Who do I work for?", "Helix Labs", slots=("user.employer",), cues=(EMPLOYER,)),
    _q("ku-maya-title", _KU, _M, "What's my job title?", "Staff Engineer", slots=("user.job_title",), cues=(TITLE,)),
    _q("ku-maya-diet", _KU, _M, "What's my diet these days?", "vegetarian", slots=("user.diet",), cues=(DIET,)),
    _q(
        "ku-maya-timezone",
        _KU,
        _M,
        "What time zone should you schedule my meetings in?",
        "Europe/Berlin",
        slots=("user.timezone",),
        cues=(TIMEZONE,),
        why="derived from the new home city; never said",
    ),
    _q(
        "ku-omar-home",
        _KU,
        _O,
        "Which city do I live in?",
        "Valencia",
        slots=("user.home_city",),
        cues=(HOME,),
        why="moved; later talks hypothetically about Madrid",
    ),
    _q(
        "ku-gmaya-employer",
        _KU,
        _G,
        "Where do I work now?",
        "Skyhook Analytics",
        slots=("user.employer",),
        cues=(EMPLOYER,),
    ),
    # temporal reasoning: valid time (as_of) and belief time (known_at)
    _q(
        "tr-maya-home-jan",
        _TR,
        _M,
        "Where was I living in mid-January 2025?",
        "Lisbon",
        slots=("user.home_city",),
        cues=(HOME,),
        as_of="2025-01-15",
    ),
    _q(
        "tr-maya-home-mar5",
        _TR,
        _M,
        "Where was I living on March 5th, 2025?",
        "Berlin",
        slots=("user.home_city",),
        cues=(HOME,),
        as_of="2025-03-05",
        why="'moved two weeks ago', said on March 17",
    ),
    _q(
        "tr-maya-employer-feb",
        _TR,
        _M,
        "Who was I working for in February 2025?",
        "Northwind",
        slots=("user.employer",),
        cues=(EMPLOYER,),
        as_of="2025-02-15",
    ),
    _q(
        "tr-maya-employer-mar12",
        _TR,
        _M,
        "Where was I working on March 12th, 2025?",
        "Helix Labs",
        slots=("user.employer",),
        cues=(EMPLOYER,),
        as_of="2025-03-12",
        why="'started last Monday', said March 17",
    ),
    _q(
        "tr-maya-diet-dec",
        _TR,
        _M,
        "What was my diet at the start of December 2024?",
        "pescatarian",
        slots=("user.diet",),
        cues=(DIET,),
        as_of="2024-12-01",
    ),
    _q(
        "tr-omar-home-oct",
        _TR,
        _O,
        "Where did I live in October 2024?",
        "Porto",
        slots=("user.home_city",),
        cues=(HOME,),
        as_of="2024-10-15",
    ),
    _q(
        "tr-maya-home-believed",
        _TR,
        _M,
        "Before I told you about the move, where did you have me living?",
        "Lisbon",
        slots=("user.home_city",),
        cues=(HOME,),
        known_at="before_move_reported",
    ),
    _q(
        "tr-maya-employer-believed",
        _TR,
        _M,
        "Before my March update, who did you have down as my employer?",
        "Northwind",
        slots=("user.employer",),
        cues=(EMPLOYER,),
        known_at="before_move_reported",
    ),
    # abstention: the right answer is "I don't know"
    _q(
        "ab-omar-hamster",
        _AB,
        _O,
        "What's my hamster's name?",
        None,
        slots=("user.pet.hamster",),
        cues=(HAMSTER,),
        why="'please forget about my hamster'",
    ),
    _q(
        "ab-omar-employer",
        _AB,
        _O,
        "Who do I work for?",
        None,
        slots=("user.employer",),
        cues=(EMPLOYER,),
        why="'please forget where I work'",
    ),
    _q(
        "ab-omar-title",
        _AB,
        _O,
        "What's my job title?",
        None,
        slots=("user.job_title",),
        cues=(TITLE,),
        why="'please forget where I work'",
    ),
    _q(
        "ab-omar-airline",
        _AB,
        _O,
        "Which airline do I usually fly with?",
        None,
        cues=(rf"\busual\s+airline\s+(?:is|seems\s+to\s+be)\s+(?P<a>{_NAME}(?:\s{_NAME})?)",),
        why="only the assistant guessed it",
    ),
    _q(
        "ab-theo-home",
        _AB,
        _T,
        "Where do I live?",
        None,
        slots=("user.home_city",),
        cues=(HOME,),
        why="only hypotheticals and a brother's city",
    ),
    _q(
        "ab-maya-blood",
        _AB,
        _M,
        "What's my blood type?",
        None,
        cues=(r"\bblood\s+type\s+is\s+(?P<a>\S+)",),
        why="never mentioned",
    ),
    _q(
        "ab-maya-brother",
        _AB,
        _M,
        "What's my brother's name?",
        None,
        slots=("user.family.brother",),
        cues=(BROTHER,),
        why="never mentioned",
    ),
    # isolation: same-shaped facts in another scope never leak
    _q(
        "is-maya-home",
        _IS,
        _M,
        "What city am I in these days?",
        "Berlin",
        slots=("user.home_city",),
        cues=(HOME,),
        not_values=("Oslo",),
    ),
    _q(
        "is-gmaya-home",
        _IS,
        _G,
        "Where do I live?",
        "Oslo",
        slots=("user.home_city",),
        cues=(HOME,),
        not_values=("Berlin", "Lisbon"),
    ),
    _q(
        "is-gmaya-dog",
        _IS,
        _G,
        "What's my dog called?",
        "Pepper",
        slots=("user.pet.dog",),
        cues=(DOG,),
        not_values=("Pixel",),
    ),
    _q(
        "is-gmaya-cat",
        _IS,
        _G,
        "What's my cat's name?",
        None,
        slots=("user.pet.cat",),
        cues=(CAT,),
        not_values=("Miso",),
        why="only acme's Maya has a cat",
    ),
    _q(
        "is-gmaya-allergy",
        _IS,
        _G,
        "What am I allergic to?",
        "penicillin",
        slots=("user.allergy",),
        cues=(ALLERGY,),
        not_values=("peanuts",),
    ),
    _q(
        "is-omar-dog",
        _IS,
        _O,
        "What's my dog's name?",
        None,
        slots=("user.pet.dog",),
        cues=(DOG,),
        not_values=("Pixel", "Pepper"),
        why="another user of the same tenant has a dog",
    ),
    _q(
        "is-gmaya-allergy-after",
        _IS,
        _G,
        "Remind me what I'm allergic to.",
        "penicillin",
        slots=("user.allergy",),
        cues=(ALLERGY,),
        not_values=("peanuts",),
        after_deletion=True,
        why="acme's Maya (same user id) had her allergies erased: globex's must survive",
    ),
)

DELETIONS: tuple[Deletion, ...] = (
    Deletion(
        "del-omar-employer",
        "acme",
        "omar",
        ("Tidewater Freight", "Logistics Analyst"),
        keys=("user.employer", "user.job_title"),
        said_on="2025-02-04",
        why="the user's own 'please forget where I work'; the assistant had echoed the employer",
    ),
    Deletion(
        "del-omar-hamster",
        "acme",
        "omar",
        ("Noodle",),
        keys=("user.pet.hamster",),
        said_on="2025-01-21",
        why="'please forget about my hamster'",
    ),
    Deletion(
        "del-omar-home",
        "acme",
        "omar",
        ("Porto", "Valencia", "Europe/Lisbon", "Europe/Madrid"),
        keys=("user.home_city",),
        why="topic request: both cities and the time zones they reveal",
    ),
    Deletion(
        "del-maya-dog",
        "acme",
        "maya",
        ("Pixel",),
        memory_of="user.pet.dog",
        why="one record by id; chit-chat and the assistant also named the dog",
    ),
    Deletion(
        "del-maya-allergy",
        "acme",
        "maya",
        ("peanuts",),
        keys=("user.allergy",),
        why="topic request; the assistant had echoed it",
    ),
    Deletion(
        "del-lena-all",
        "acme",
        "lena",
        ("Hamburg", "Brightline Studio", "Juniper", "shellfish", "Bruno Varga"),
        whole_subject=True,
        why="whole subject",
    ),
)


# --- the conversations --------------------------------------------------------------------


def _u(text: str) -> Line:
    return Line("user", text)


def _a(text: str) -> Line:
    return Line("assistant", text)


STORY: dict[tuple[str, str], tuple[Session, ...]] = {
    _M: (
        Session(
            "2024-09-02",
            (
                _u("Hi! I'm Maya. I live in Lisbon and I work at Northwind as a product manager."),
                _a("Nice to meet you, Maya! Happy to help with planning, writing or research."),
            ),
        ),
        Session(
            "2024-09-16",
            (
                _u("My dog is called Pixel, he's a very dramatic beagle."),
                _a("Beagles are famously dramatic. Pixel sounds like quite the character."),
            ),
        ),
        Session(
            "2024-09-30",
            (
                _u("Pixel chewed through my laptop charger again."),
                _a("Oh no! A cable protector, or keeping chargers up high, might save the next one."),
            ),
        ),
        Session(
            "2024-10-07",
            (
                _u("Quick note: I'm allergic to peanuts, so keep that in mind for recipes."),
                _a("Got it, I'll leave peanuts out of any recipe I suggest."),
            ),
        ),
        Session(
            "2024-10-14", (_u("I'm pescatarian, fish is fine but no meat."), _a("Noted: fish and vegetables, no meat."))
        ),
        Session("2024-10-21", (_u("I prefer aisle seats on long flights."), _a("Noted for future bookings."))),
        Session(
            "2024-11-04",
            (
                _u("We booked the anniversary dinner at Casa Lumo for the 14th."),
                _a("Lovely! Do you want help picking a gift as well?"),
            ),
        ),
        Session(
            "2025-01-13",
            (
                _u("I'm vegetarian now, I stopped eating fish over the holidays."),
                _a("Thanks for the update, I'll keep suggestions meat- and fish-free."),
            ),
        ),
        Session(
            "2025-02-10",
            (
                _u("I'm leaving Northwind at the end of the month."),
                _a("Big change! Want help drafting a goodbye note to the team?"),
            ),
        ),
        Session(
            "2025-02-24",
            (
                _u("I'm relocating to Berlin next month."),
                _a("Exciting! I can put together a moving checklist whenever you like."),
            ),
        ),
        Session(
            "2025-03-17",
            (
                _u("Big news: I moved to Berlin two weeks ago."),
                _a("Welcome to Berlin! How is the new place?"),
                _u("I started at Helix Labs last Monday as a staff engineer."),
                _a("Congratulations on the new role! Let me know how the first weeks go."),
            ),
        ),
        Session(
            "2025-04-07",
            (
                _u("I used to live in Lisbon and honestly I miss the light there."),
                _a("That light is hard to beat. Summer evenings here have their moments too."),
            ),
        ),
        Session(
            "2025-04-14",
            (_u("We adopted a kitten named Miso."), _a("Congratulations! How is Pixel taking the newcomer?")),
        ),
        Session(
            "2025-05-12",
            (
                _u("Miso knocked a plant off the shelf this morning."),
                _a("Kittens and shelves never mix. Maybe move the plants up for a few months."),
            ),
        ),
    ),
    _O: (
        Session(
            "2024-09-10",
            (
                _u("I'm Omar. I'm based in Porto and I work for Tidewater Freight as a logistics analyst."),
                _a("Welcome, Omar! Freight logistics sounds like a lot of spreadsheets."),
            ),
        ),
        Session("2024-09-24", (_u("I have a hamster named Noodle."), _a("Noodle is a great name for a hamster."))),
        Session(
            "2024-10-01",
            (
                _u("My sister is Leila and my brother is Karim."),
                _a("Thanks, good to know who's who when they come up."),
            ),
        ),
        Session("2024-10-15", (_u("I'm lactose intolerant."), _a("Noted, I'll suggest lactose-free options."))),
        Session(
            "2024-12-03", (_u("We relocated to Valencia in November."), _a("How are you finding Valencia so far?"))
        ),
        Session(
            "2024-12-17",
            (
                _u("Quarter-end is brutal this year."),
                _a("Hang in there, quarter-end at Tidewater Freight always sounds intense."),
            ),
        ),
        Session(
            "2025-01-21",
            (
                _u("Noodle passed away last week, please forget about my hamster."),
                _a("I'm so sorry. It sounds like Noodle had a good home."),
            ),
        ),
        Session("2025-02-04", (_u("Please forget where I work."), _a("Done, I won't keep that."))),
        Session(
            "2025-02-18",
            (
                _u("My flight to Montreal is AC 837, it leaves at 6:40."),
                _a("Thanks. Do you want a reminder the evening before?"),
                _u("Can you check which terminal my Montreal flight leaves from?"),
                _a(
                    "I can't see your booking, but your usual airline seems to be Air Canada, so it "
                    "is most likely Terminal 1."
                ),
            ),
        ),
        Session(
            "2025-03-04",
            (_u("If I lived in Madrid I'd never cook at home."), _a("With that many tapas bars, who could blame you.")),
        ),
    ),
    _L: (
        Session(
            "2024-09-04",
            (_u("I live in Hamburg and I work at Brightline Studio."), _a("Great, thanks for the context.")),
        ),
        Session("2024-09-18", (_u("My cat's name is Juniper."), _a("Juniper is a lovely name."))),
        Session("2024-10-02", (_u("I'm allergic to shellfish."), _a("Noted, no shellfish in my suggestions."))),
        Session(
            "2024-11-13",
            (
                _u("The locksmith is coming Thursday, his name is Bruno Varga."),
                _a("I'll remind you on Thursday morning."),
            ),
        ),
        Session(
            "2025-01-15",
            (
                _u("I'm also allergic to cats, ironically."),
                _a("That must make cuddles complicated. Antihistamines and a cat-free bedroom help."),
            ),
        ),
    ),
    _T: (
        Session(
            "2024-09-05",
            (_u("If I lived in Oslo I'd bike to work every day."), _a("The bike lanes there are famously good.")),
        ),
        Session(
            "2024-09-19", (_u("My brother Jonas lives in Copenhagen."), _a("Nice, a good excuse for weekend trips."))
        ),
        Session("2024-10-17", (_u("The wifi password at the cabin is saltmarsh42."), _a("Got it."))),
        Session("2025-01-09", (_u("My mum is called Ingrid."), _a("Thanks, I'll remember that."))),
        Session(
            "2025-03-13",
            (
                _u("If I moved to Lisbon I'd finally learn to surf."),
                _a("The beaches nearby have good beginner breaks."),
            ),
        ),
    ),
    _G: (
        Session("2024-09-06", (_u("I live in Oslo. My dog is called Pepper."), _a("Hello! Pepper is a great name."))),
        Session(
            "2024-09-20",
            (_u("I work at Fjordline as a data engineer."), _a("Nice, lots of pipelines to keep running then.")),
        ),
        Session("2024-10-04", (_u("I'm allergic to penicillin."), _a("Important to know, thanks for telling me."))),
        Session("2025-02-14", (_u("I joined Skyhook Analytics last month."), _a("Congratulations on the move!"))),
    ),
}

# --- filler -------------------------------------------------------------------------------

_COLLEAGUES = ("Priya", "Marcus", "Ines", "Tobias", "Hannah", "Rafael", "Yuki", "Dmitri")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_TOPICS = (
    "onboarding",
    "quarterly planning",
    "incident reviews",
    "the design system",
    "customer interviews",
    "the data pipeline",
    "accessibility",
    "release notes",
)
_TASKS: tuple[tuple[str, str], ...] = (
    (
        "Can you draft a short note to {name} asking to shift our sync to {day}?",
        "Sure. Here's a draft: \"Hi {name}, would it work to shift our weekly sync to {day}? The usual slot clashes "
        'with a planning session. Same time, same link. Thanks!" Want it more formal, or with an agenda?',
    ),
    (
        "Summarise these retro notes in five bullets: the release slipped two days, QA found the regression late, "
        "the on-call handover was smooth, the new dashboards helped, and there is still no rollback checklist.",
        "Here's the summary:\n- The release slipped by two days.\n- A regression was caught late in QA.\n- On-call "
        "handover went smoothly.\n- The new dashboards made triage faster.\n- Action item: write a rollback "
        "checklist before the next release.",
    ),
    (
        "Give me three title ideas for a blog post about {topic}.",
        'Three options: 1) "What We Learned Rethinking {topic}" 2) "{topic}, One Small Step at a Time" '
        '3) "The Unglamorous Guide to {topic}". The first works best for an internal audience.',
    ),
    (
        "What's the difference between a mutex and a semaphore?",
        "A mutex gives one thread exclusive ownership of a resource and must be released by the thread that took it. "
        "A semaphore is a counter: it lets up to N holders in at once and can be signalled by any thread. Use a mutex "
        "to protect shared state and a semaphore to limit concurrency.",
    ),
    (
        "How do I turn a pandas column of strings into dates?",
        'Use pd.to_datetime: df["col"] = pd.to_datetime(df["col"], format="%Y-%m-%d", errors="coerce"). '
        'Passing the format makes it faster and stricter; errors="coerce" turns unparseable values into NaT so you '
        "can inspect them.",
    ),
    (
        "Rewrite this so it sounds friendlier: 'Per my last message, the report is overdue.'",
        'Try: "Just circling back on the report, could you send it over when you get a moment? Happy to help if '
        'anything is blocking it."',
    ),
    (
        "Suggest an agenda for a 30-minute kickoff about {topic}.",
        "Here's a 30-minute agenda: 5 minutes of goals and context, 10 on the current state and open questions, 10 on "
        "owners and first milestones, and 5 to wrap up and set the next check-in. Share the doc a day ahead so people "
        "come prepared.",
    ),
    (
        "What's a quick weeknight pasta that takes under 20 minutes?",
        "Pasta aglio e olio: spaghetti, garlic, chili flakes, olive oil and parsley. Start the garlic in cold oil, "
        "toast it gently, then toss with the pasta and a splash of cooking water. Lemon zest or toasted breadcrumbs "
        "add texture.",
    ),
    (
        "Explain what a p-value is in two sentences.",
        "A p-value is the probability of seeing data at least as extreme as yours if the null hypothesis were true. "
        "A small p-value says the data would be surprising under the null, not that your hypothesis is proven.",
    ),
    (
        "Help me write a polite decline for a meeting invite from {name}.",
        "\"Hi {name}, thanks for the invite! I can't make this one, but I'd love to catch up on the notes afterwards, "
        'so feel free to send them my way."',
    ),
    (
        "Make a packing checklist for a three-day work trip.",
        "Checklist: laptop and charger, phone charger, plug adapter, a shirt per day plus a spare, comfortable shoes, "
        "toiletries, any medication, headphones, a notebook and your ID. Keep the chargers in one pouch so nothing "
        "gets left behind.",
    ),
    (
        "What are good questions for a one-on-one with {name}?",
        "A few: What's taking more energy than it should? What would you like more feedback on? Is anything blocking "
        "you that I could help clear? What are you proud of from the last few weeks? Rotate them so it never feels "
        "like a checklist.",
    ),
    (
        "Turn these numbers into one sentence: revenue up 12%, churn down 3 points, NPS flat.",
        '"Revenue grew 12% this quarter while churn fell by three points, and NPS held steady."',
    ),
    (
        "Write a regex that matches ISO dates like 2024-05-01.",
        "Use ^\\d{{4}}-\\d{{2}}-\\d{{2}}$ for the shape, or ^\\d{{4}}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$ to "
        "also reject impossible months and days.",
    ),
    (
        "Give me a quick stretching routine for after sitting all day.",
        "Thirty seconds each: neck rolls, a chest opener against a doorway, a standing hamstring stretch, a hip "
        "flexor lunge on each side and a gentle spinal twist in your chair. Repeat twice if you have time.",
    ),
    (
        "How should a design doc about {topic} be structured?",
        "A simple structure: context and problem, goals and non-goals, the proposal, alternatives considered, risks "
        "and open questions, and the rollout plan. Keep the first page readable on its own for people who stop "
        "there.",
    ),
    (
        "Proofread this: 'Their going to review the the proposal tomorow.'",
        "Corrected: \"They're going to review the proposal tomorrow.\" Three fixes: they're, the doubled 'the', and "
        "the spelling of tomorrow.",
    ),
    (
        "What's a fair way to split a dinner bill when some people didn't drink?",
        "Split the food evenly and let the drinkers cover the drinks, or use an app that itemises. Either way, say "
        "it up front so nobody feels awkward at the end.",
    ),
    (
        "Can you explain OAuth refresh tokens simply?",
        "An access token is a short-lived pass; a refresh token is a longer-lived ticket you trade for a new pass when "
        "the old one expires, without asking the person to log in again. Keep refresh tokens server-side and revoke "
        "them on logout.",
    ),
    (
        "Suggest a name for our team newsletter about {topic}.",
        'A few ideas: "The Changelog", "Small Batch", "Signal and Noise", "Worth Knowing". Short names work '
        "best as email subjects.",
    ),
)
_CHATTER: tuple[tuple[str, str], ...] = (
    ("Rainy morning here, second coffee already.", "A good day for focused work. Anything you want to tackle first?"),
    (
        "Watched a documentary about octopuses last night, wild animals.",
        "They really are: they solve puzzles and change colour in a fraction of a second.",
    ),
    ("Long week. Glad it's almost over.", "You've earned a slow evening. Want a short list of what's left for later?"),
    (
        "New running route this morning, my legs are not happy.",
        "Hills will do that. A short walk and some stretching later should help.",
    ),
    (
        "The new season of that baking show is surprisingly good.",
        "Nice, the technical challenges are always the most fun to watch.",
    ),
    ("Finally cleared the inbox, zero unread.", "Impressive! A quick daily sweep helps keep it there."),
    (
        "The renovation next door has been drilling since 8am.",
        "That's rough. Noise-cancelling headphones and a focus playlist might save the morning.",
    ),
    (
        "Spent the weekend repotting plants, the balcony looks like a jungle.",
        "That sounds lovely. Repotting gives them room to grow.",
    ),
    ("Today's standup ran 40 minutes, again.", "Ouch. A parking lot for side topics keeps standups short."),
    ("Just finished a really good mystery novel.", "Great feeling! Want a few recommendations in the same vein?"),
    ("Made banana bread with the overripe bananas.", "Perfect use for them. Toasted the next day it's even better."),
    ("The train was late again this morning.", "Frustrating. A podcast queue helps with those delays."),
)
_THANKS = ("thanks!", "great, thank you", "perfect, thanks so much", "ok cool")


class _Filler:
    """Task talk and chit-chat for one user: a shuffled deck, so repeats are spread out."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.deck: list[tuple[str, str]] = []

    def __call__(self, n: int) -> list[Line]:
        out: list[Line] = []
        for _ in range(n):
            if not self.deck:
                self.deck = list(_TASKS + _CHATTER)
                self.rng.shuffle(self.deck)
            ask, reply = self.deck.pop()
            fill = {
                "name": self.rng.choice(_COLLEAGUES),
                "day": self.rng.choice(_DAYS),
                "topic": self.rng.choice(_TOPICS),
            }
            out += [_u(ask.format(**fill)), _a(reply.format(**fill))]
            if self.rng.random() < 0.3:
                out += [_u(self.rng.choice(_THANKS)), _a("You're welcome!")]
        return out


def conversation(tenant: str, user: str, *, weeks: int | None = None) -> list[Session]:
    """Every session of one user in order: story sessions with a little filler, and filler weeks.

    ``weeks`` keeps only the first N weeks' filler sessions (story sessions are always kept); the
    default is the whole ten months.
    """
    filler = _Filler(f"probes/{tenant}/{user}")
    story = {s.day: s for s in STORY[(tenant, user)]}
    out: list[Session] = []
    week, n = FIRST_WEEK, 0
    while week <= LAST_WEEK:
        days = sorted(d for d in story if week <= date.fromisoformat(d) < week + timedelta(days=7))
        for d in days:
            out.append(Session(d, story[d].lines + tuple(filler(1))))
        if not days and (weeks is None or n < weeks):
            day = week + timedelta(days=USERS[(tenant, user)])
            out.append(Session(day.isoformat(), tuple(filler(filler.rng.randint(1, 3)))))
        week, n = week + timedelta(days=7), n + 1
    return out
