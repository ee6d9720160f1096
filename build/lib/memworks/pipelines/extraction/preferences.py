"""Preference statements of the ``rules`` extractor: answer format and length, reply language,
seats, "X over Y", favourites, likes, and standing outward instructions ("always cc my
manager"), which the gate holds for confirmation.
"""

from __future__ import annotations

import re

from memworks.models.enums import MemoryKind
from memworks.pipelines.extraction.clauses import STANDING_TAIL, Clause
from memworks.pipelines.extraction.facts import ADV, FMT_ALT, LANG_ALT, PREFER, Fact, ci, norm
from memworks.pipelines.extraction.phrases import action_slug, short_text, slug
from memworks.pipelines.extraction.vocabulary import FORMATS

__all__ = ["preferences_for"]

_FMT_END = r"(?:\s+(?:please|always|by\s+default|when(?:ever)?\s+possible|if\s+possible))*$"
_ANSWERS = r"(?:your\s+|the\s+|my\s+)?(?:answers|replies|responses)"
_FORMAT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "format.reply_in",
        ci(
            rf"^(?:always\s+)?(?:answer|reply|respond|write|format\s+{_ANSWERS})(?:\s+(?:to\s+)?me)?\s+"
            rf"(?:in|with|using|as)\s+(?P<fmt>{FMT_ALT}){_FMT_END}"
        ),
    ),
    (
        "format.use",
        ci(rf"^(?:always\s+)?(?:use|give\s+me)\s+(?:{_ANSWERS}\s+(?:in|as)\s+)?(?P<fmt>{FMT_ALT}){_FMT_END}"),
    ),
    (
        "format.prefer",
        ci(rf"{PREFER}(?:{_ANSWERS}\s+(?:in|as|with)\s+|(?:it\s+)?(?:in|as)\s+)?(?P<fmt>{FMT_ALT}){_FMT_END}"),
    ),
    (
        "format.length",
        ci(
            rf"{PREFER}(?P<len>short|shorter|brief|briefer|concise|long|longer|detailed|in-depth|succinct)"
            r"\s+(?:answers|replies|responses|explanations)$"
        ),
    ),
    (
        "format.keep",
        ci(
            r"^(?:always\s+)?keep\s+(?:your\s+|the\s+)?(?:answers|replies|responses|it|them|things)\s+"
            r"(?P<len>short|brief|concise|(?:under|below|to|within)\s+\d+\s+"
            r"(?:sentences|words|lines|paragraphs))$"
        ),
    ),
    ("format.be", ci(r"^(?:always\s+)?be\s+(?:more\s+)?(?P<len>brief|concise|succinct)$")),
)
_LANGUAGE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "language.reply_in",
        ci(
            r"^(?:always\s+)?(?:answer|reply|respond|write|talk|speak|communicate|chat)"
            r"(?:\s+(?:(?:to|with)\s+)?me)?"
            rf"\s+(?:only\s+)?in\s+(?P<lang>{LANG_ALT})(?:\s+(?:only|please))*$"
        ),
    ),
    ("language.speak", ci(rf"^(?:always\s+)?(?:speak|use)\s+(?P<lang>{LANG_ALT})(?:\s+(?:to|with)\s+me)?$")),
    (
        "language.prefer",
        ci(
            rf"{PREFER}(?:(?:to\s+(?:talk|chat|speak|communicate)|{_ANSWERS})\s+)?(?:in\s+)?(?P<lang>{LANG_ALT})"
            r"(?:\s+(?:over|to)\s+\w+)?$"
        ),
    ),
    ("language.preferred", ci(rf"^my\s+preferred\s+language\s+is\s+(?P<lang>{LANG_ALT})$")),
)
_SEAT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "seat.prefer",
        ci(
            rf"^i(?:'d|\s+would)?\s+{ADV}(?:prefer|like|want|need|choose|pick|take|book|get)\s+"
            r"(?:an?\s+|the\s+)?(?P<seat>aisle|window)(?:\s+seats?)?\b"
        ),
    ),
    (
        "seat.book",
        ci(
            r"^(?:always\s+)?(?:book|get|reserve|give|find|choose|pick)\s+(?:me\s+)?(?:an?\s+|the\s+)?"
            r"(?P<seat>aisle|window)\s+seats?\b"
        ),
    ),
    ("seat.sit", ci(rf"^i\s+{ADV}sit\s+(?:in|on|by|at)\s+the\s+(?P<seat>aisle|window)\b")),
)
_OVER = ci(
    rf"^i(?:\s+would)?\s+{ADV}(?:much\s+)?(?:prefer|like|rather(?:\s+have)?)\s+"
    r"(?P<x>(?!to\s)[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+"
    r"(?:over|to|more\s+than|better\s+than|rather\s+than|than)\s+(?P<y>[\w'-]+(?:\s+[\w'-]+){0,3})$"
)
_FAVORITE = ci(
    r"^my\s+(?:all[\s-]time\s+|absolute\s+)?fav(?:ou?rite|e)\s+(?P<x>[a-z][a-z\s-]{0,30}?)\s+"
    r"(?:is|are|would\s+be|has\s+to\s+be)\s+(?P<y>.+)$"
)
_LIKES = ci(rf"^i(?:\s+would)?\s+{ADV}(?:prefer|like|love|enjoy)\s+(?P<x>(?!to\s|it\b|that\b|this\b)[\w'\s-]+?)$")
_OUTWARD = ci(
    r"^(?P<always>always\s+|automatically\s+|auto-?\s*)?(?P<verb>send|forward|share|e-?mail|mail|cc|bcc"
    r"|copy|pay|post|publish|tweet|text|message|transfer|wire|notify|invite|order|buy|purchase|book"
    r"|reply\s+to|respond\s+to|sign\s+(?:me\s+)?up)\s+(?P<rest>.+)$"
)
_OUTWARD_TAIL = ci(
    r"\b(?:automatically|always|every\s+time|each\s+time|whenever"
    r"|every\s+(?:day|week|month|morning|evening|friday))\b"
)


_LENGTH_WORDS = {"shorter": "short", "briefer": "brief", "longer": "long", "in depth": "in-depth"}


def _pref(rule: str, key: str, value: str, text: str, kind: MemoryKind) -> Fact:
    return Fact(rule, key, value, text, kind=kind)


def preferences_for(c: Clause) -> list[Fact]:
    """The preference the clause states: answer format, language, seat, X over Y, a favourite,
    a like, or a standing outward instruction (first match wins)."""
    proc, sem = MemoryKind.PROCEDURAL, MemoryKind.SEMANTIC
    for rule, rx in _FORMAT_RULES:
        if m := rx.match(c.text):
            if m.groupdict().get("fmt"):
                value = FORMATS[" ".join(m["fmt"].lower().split()).replace("-", " ")]
            else:
                spec = re.sub(r"^(?:below|within)\b", "under", re.sub(r"^to\b", "at most", norm(m["len"])))
                spec = _LENGTH_WORDS.get(spec, spec)
                value = spec if spec[0].isdigit() or " " in spec else f"{spec} answers"
            if value.endswith("answers"):
                text = f"User prefers {value}."
            elif value.startswith(("under", "at most")):
                text = f"User prefers answers {value}."
            else:
                text = f"User wants answers formatted as {value}."
            return [_pref(rule, "user.pref.answer_format", value, text, proc)]
    for rule, rx in _LANGUAGE_RULES:
        if m := rx.match(c.text):
            lang = m["lang"].capitalize()
            return [_pref(rule, "user.pref.language", lang, f"User prefers replies in {lang}.", proc)]
    for rule, rx in _SEAT_RULES:
        if m := rx.match(c.text):
            seat = m["seat"].lower()
            return [_pref(rule, "user.pref.seat", seat, f"User prefers {seat} seats.", sem)]
    if (m := _OVER.match(c.text)) and max(len(m["x"].split()), len(m["y"].split())) <= 4:
        x, y = " ".join(m["x"].split()), " ".join(m["y"].split())
        a, b = sorted((slug(x), slug(y)))
        if a and b and a != b:
            return [_pref("pref.over", f"user.pref.{a}_vs_{b}", x, f"User prefers {x} over {y}.", sem)]
    if (m := _FAVORITE.match(c.text)) and (y := short_text(m["y"])):
        x = norm(m["x"])
        return [_pref("favorite", f"user.favorite.{slug(x)}", y, f"User's favorite {x} is {y}.", sem)]
    if (m := _LIKES.match(c.text)) and 1 <= len(m["x"].split()) <= 8 and not _OUTWARD.match(m["x"]):
        x = " ".join(m["x"].split())
        return [_pref("likes", "user.likes", x, f"User likes {x}.", sem)]
    if (m := _OUTWARD.match(c.text)) and (c.standing or m["always"] or _OUTWARD_TAIL.search(m["rest"])):
        verb = norm(m["verb"]).replace("e mail", "email")
        rest = STANDING_TAIL.sub("", m["rest"]).strip(" ,")
        instruction = f"{verb} {rest}"
        return [
            Fact(
                "outward",
                f"user.pref.outward.{action_slug(verb.split()[0], rest)}",
                instruction,
                f"User wants the assistant to {instruction} (standing instruction).",
                kind=proc,
                outward=True,
            )
        ]
    return []
