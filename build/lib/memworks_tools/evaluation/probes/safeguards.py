"""The answer key of ``memworks eval probes``, part two: the probes a memory passes by restraint —
abstaining when it was never told, keeping another scope's facts out, and keeping nothing of
what a deletion erased.
"""

from __future__ import annotations

from memworks_tools.evaluation.probes.cues import ALLERGY, BROTHER, CAT, DOG, EMPLOYER, HAMSTER, HOME, TITLE
from memworks_tools.evaluation.probes.cues import NAME as _NAME
from memworks_tools.evaluation.probes.model import (
    ACME_MAYA,
    ACME_OMAR,
    ACME_THEO,
    GLOBEX_MAYA,
    SLICES,
    Deletion,
    Question,
)
from memworks_tools.evaluation.probes.model import question as _q

__all__ = ["SAFEGUARD_QUESTIONS", "DELETIONS"]

_M, _O, _T, _G = ACME_MAYA, ACME_OMAR, ACME_THEO, GLOBEX_MAYA
_AB, _IS = SLICES[4:6]

SAFEGUARD_QUESTIONS: tuple[Question, ...] = (
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
