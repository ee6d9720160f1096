"""Standing constraints said without a verb, as chat says them: "no dairy for me from now on",
"nothing with milk in for me", "no phone calls to me, ever", "written contact only", "ALWAYS
aisle seats on flights", "never any emojis in them".

Read from the words of each part of the sentence (between commas, colons and semicolons), not
from the parse: a parser reads such fragments poorly ("no phone calls to me" came out with
"calls" as a verb). A part counts only when it says whose constraint it is ("for me", "to me")
or how it stands ("only", "always", "never"); set phrases ("no worries", "no idea for me") and
questions are left alone. The slot is the constraint's thing under its domain, as for the
parsed statements (:mod:`.preferences`), so "I eat dairy again" later meets "no dairy for me".
"""

from __future__ import annotations

import re

from memworks.models.enums import MemoryKind
from memworks.pipelines.extraction.open_vocab.clause import Statement, TurnState
from memworks.pipelines.extraction.open_vocab.parse import Sentence
from memworks.pipelines.extraction.open_vocab.render import slug
from memworks.pipelines.extraction.standing import lexicon as W

__all__ = ["fragments_in", "has_fragment"]

_CONFIDENCE = 0.8
_WHAT = r"(?P<what>[a-z][a-z0-9'&/+ -]{1,40}?)"
_LEAD = re.compile(
    r"^(?:(?:so|and|but|also|oh|remember|please|pls|plz|ok|okay|just|reminder|again|obviously)\b[\s,:!.]*)+", re.I
)
#: (rule, lean, pattern) over one part of the sentence, lowercased.
_FORMS: tuple[tuple[str, int, re.Pattern[str]], ...] = (
    # "no more gluten for me": from now on, none
    ("no", -1, re.compile(rf"^(?:absolutely\s+|strictly\s+)?(?:no|zero)\s+(?:more\s+)?{_WHAT}\s+(?:for|to)\s+me\b")),
    ("no", -1, re.compile(rf"^nothing\s+(?:with|containing)\s+{_WHAT}(?:\s+in(?:\s+it)?)?\s+for\s+me\b")),
    # "no default exports anywhere": said to hold everywhere, at all times
    ("no", -1, re.compile(rf"^(?:absolutely\s+)?no\s+{_WHAT}\s+(?:ever|anywhere|at\s+all|whatsoever)$")),
    ("only", 1, re.compile(rf"^{_WHAT}\s+only$")),
    ("always", 1, re.compile(rf"^always\s+{_WHAT}$")),
    ("never", -1, re.compile(rf"^never\s+(?:any\s+)?{_WHAT}$")),
)
#: Set phrases that state no constraint ("no worries for me", "no idea", "just one thing only").
_SET = frozenset(
    "worries worry problem problems idea clue way rush thanks thank pressure luck chance time need reason "
    "wonder kidding offense offence comment doubt one thing things exceptions exception more big deal".split()
)
_NOT_THING = frozenset("the a an any my your our some this that these those it them".split())
#: Words with no thing of their own: a part made only of them states nothing.
_EMPTY = frozenset("me you i we us him her them it that this thing things stuff".split())
_THING_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})
_PART = re.compile(r"[,;:.][ \t\n]|[ \t]-[ \t]")  # bounded: a run of blanks must not make the scan quadratic
# "commit messages: conventional commits please": a topic, a colon, and what is wanted for it. A
# bare "the bill please" is a request of the moment; under a topic's label it is how that topic
# is to be done.
_LABELLED = re.compile(
    rf"(?:^|[.!;]\s|\b(?:and|also|so|oh)\s)\s{{0,3}}(?P<label>[a-z][a-z ]{{2,30}}?):"
    rf"\s{{1,3}}{_WHAT}\s(?:please|pls|plz)\b"
)
_FOR_ME = re.compile(rf"^(?:an?\s+)?{_WHAT}\s+for\s+me$")
#: A rule for every one of a kind of thing: "all user-facing copy has to be British English",
#: "UI text must always be UK spelling" (a quantifier or "always" makes it stand).
_ALL_MUST = re.compile(
    r"^(?:(?P<all>all|every|any)\s+)?(?P<topic>[a-z][a-z0-9' -]{1,30}?)\s+(?:(?:has|have|needs?|got)\s+to|must)\s+"
    r"(?P<always>always\s+)?be\s+(?P<what>[a-z][a-z0-9'&/+ -]{1,40}?)$"
)
#: A part that labels the next as a rule of the speaker's ("my one rule", "only rule", "house rule").
_RULE_LABEL = re.compile(r"\brules?(?:\s+(?:for|of|about|on)\b[^,;:]{0,40})?\s*$")
_NO_THING = re.compile(rf"^(?:absolutely\s+|strictly\s+)?no\s+{_WHAT}(?:\s+(?:ever|anywhere|at\s+all|whatsoever))?$")
_ALWAYS_AFTER = re.compile(r"(?:always|every\s+time|without\s+fail)\b")
#: A "no" said to stand, past a comma: "no default exports, ever".
_EVER_AFTER = re.compile(r"(?:ever|at\s+all|whatsoever|under\s+any\s+circumstances)\b")
_ASIDE = re.compile(r"\s?\([^()]{0,80}\)")


def has_fragment(text: str) -> bool:
    """Whether ``text`` holds a part of one of the forms (worth parsing for them)."""
    return any(_things(text))


def fragments_in(s: Sentence, state: TurnState) -> list[Statement]:
    """The verbless standing constraints of the sentence ``s`` (see the module docstring). After
    "always" or "never" the part must name a thing, not a doing or a place ("Never give up!",
    "Always here to help"): its first word a noun, an adjective or a number in the parse."""
    pos = {t.lower: t.pos for t in s.tokens}
    return [
        st
        for rule, lean, thing, topic in _things(s.text)
        if (rule not in ("always", "never") or pos.get(thing.split()[0]) in _THING_POS)
        and (st := _statement(rule, lean, thing, state, topic)) is not None
    ]


def _things(text: str) -> list[tuple[str, int, str, str]]:
    """(rule, lean, thing, the topic it is for) of each part of ``text`` in one of the forms."""
    if text.rstrip().endswith("?"):
        return []
    out: list[tuple[str, int, str, str]] = []
    for lab in _LABELLED.finditer(_ASIDE.sub("", " ".join(text.split())).lower()):
        words = [w for w in lab["what"].split() if w not in _NOT_THING]
        if words and not set(words) <= _EMPTY and len(words) <= 5:
            out.append(("as", 1, " ".join(words), _LEAD.sub("", " ".join(lab["label"].split()))))
    parts = _PART.split(text)
    for i, part in enumerate(parts):
        said = _LEAD.sub("", " ".join(part.split()).strip(" .!")).lower()
        # "Aisle seat for me, always": the rule said after the thing, past a comma
        after = parts[i + 1].strip().lower() if i + 1 < len(parts) else ""
        if _ALWAYS_AFTER.match(after) and (mine := _FOR_ME.match(said)):
            said = f"always {mine['what']}"
        # "my one rule: no cilantro", "no default exports, ever": a rule's label, or "ever" after
        # it, says it stands, as "for me" does
        before = parts[i - 1].lower() if i else ""
        if (_RULE_LABEL.search(before) or _EVER_AFTER.match(after)) and (ruled := _NO_THING.match(said)):
            said = f"no {ruled['what']} for me"
        if (ruled_all := _ALL_MUST.match(said)) and (ruled_all["all"] or ruled_all["always"]):
            words = [w for w in ruled_all["what"].split() if w not in _NOT_THING]
            if words and len(words) <= 5 and ruled_all["topic"].split()[-1] not in _EMPTY:
                out.append(("as", 1, " ".join(words), " ".join(ruled_all["topic"].split())))
            continue
        m = next(((rule, lean, found) for rule, lean, rx in _FORMS if (found := rx.match(said))), None)
        if m is None:
            continue
        words = [w for w in m[2]["what"].split() if w not in _NOT_THING]
        if words and words[0] not in _SET and not set(words) <= _EMPTY and len(words) <= 5:
            out.append((m[0], m[1], " ".join(words), ""))
    return out


def _statement(rule: str, lean: int, thing: str, state: TurnState, topic: str = "") -> Statement | None:
    slot = slug(" ".join(w.rstrip("s") if len(w) > 3 else w for w in thing.split()))[:48].strip("_")
    if not slot:
        return None
    name = W.domain_of(set(thing.split()) | {w.rstrip("s") for w in thing.split()})
    value = f"{'avoids' if lean < 0 else 'prefers'} {thing}{' only' if rule == 'only' else ''}"
    said = {
        "no": f"no {thing}",
        "only": f"{thing} only",
        "always": f"always {thing}",
        "never": f"never {thing}",
        "as": f"{thing} for {topic}",
    }
    # What is kept from one's food is kept from what one eats and drinks: said so, a question in
    # those words ("anything I can't eat?") meets it.
    meal = " to eat or drink" if name == "food" and lean < 0 else ""
    text = f"{state.speaker.name} wants {said[rule]}{meal}."
    return Statement(
        f"standing.fragment_{rule}",
        state.speaker,
        ("pref", name, slot),
        value,
        text,
        kind=MemoryKind.SEMANTIC,
        confidence=_CONFIDENCE,
    )
