"""The ``open`` extractor: every durable statement of a user turn, with an open slot key.

Deterministic and local: a dependency parse (a :class:`.parse.Parser` passed in,
spaCy's small English pipeline in production) is read by clause frames
(:mod:`.frames`), and each statement is written as a self-contained sentence about
its person with its relative time resolved against the episode time.

It wraps the ``rules`` extractor: the fixed keys (home city and its time zone, employer, job
title, diet, named pets and relatives, answer preferences, ...) stay precise special cases and
the open layer proposes only slots the rules did not fill. Rules' favourite keys are cut at a
time word ("user.favorite.band_these_days" → "user.favorite.band"), so that "these days my
favourite band is X" and "lately my favourite band is Y" meet in one slot.

Key scheme: ``<person>.<attribute>[.<aspect>]``. The person is ``user`` (the scope's user), or
``person.<name>`` for a named speaker of a multi-party conversation (``Turn.speaker``; a
leading "Name: " in the content is dropped), with ``.<relation>`` for someone of theirs
(``user.sister``). The attribute is the object's category or head noun (``phone``,
``instrument``, ``favorite.author``, ``code_editor.theme``), the aspect the activity
(``learning``, ``playing``) or, for past events, the verb's lemma (``support_group.go``).

What the open layer refuses, with the reason in ``refusal()``: turns not by the user, turns
longer than ``max_chars`` (pasted documents), turns with no English prose (other languages,
emoji only, code only). Code blocks, inline code and URLs are removed before parsing; each
line (a list item) is parsed on its own. Questions, conditions, wishes, modals and statements
about the listener yield nothing (see :mod:`.clause`).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

from memworks.models.drafts import Candidate, ForgetRequest, Turn
from memworks.models.enums import CandidateOp, Role, Source
from memworks.pipelines.extraction.base import Extractor
from memworks.pipelines.extraction.open_vocab.clause import Statement, TurnState
from memworks.pipelines.extraction.open_vocab.filters import misread, tidy, unspecific
from memworks.pipelines.extraction.open_vocab.frames import statements_in
from memworks.pipelines.extraction.open_vocab.lexicon import KEY_TIME_WORDS, TRIGGERS
from memworks.pipelines.extraction.open_vocab.parse import Parser, Sentence
from memworks.pipelines.extraction.open_vocab.render import Person, speaker_person
from memworks.pipelines.extraction.standing.fragments import has_fragment
from memworks.pipelines.ingest.slots import value_terms

__all__ = ["OpenVocabularyExtractor", "refusal"]

#: Characters of a turn the open layer reads at most; longer turns are pasted material.
MAX_TURN_CHARS = 2_000
#: Parsed segments kept for reuse (``warm`` parses a batch, the per-turn calls reuse it).
CACHE_SIZE = 8_192

_FENCE = re.compile(r"```[^`]*(?:`(?!``)[^`]*)*(?:```|$)")
_INLINE_CODE = re.compile(r"`[^`\n]{0,200}`")
_URL = re.compile(r"\bhttps?://\S+|\bwww\.\S+")
_BULLET = re.compile(r"^\s*(?:[-*•>+]|\d{1,3}[.)])\s+")
_CODE_CHARS = frozenset("{}[]();=<>$\\|_#")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
#: Words that only English uses among the languages users write in; a turn needs some.
_ENGLISH = frozenset(
    "i i'm i've my the and is are was were to of it it's that this have has had with for on at "
    "be been we our you your not but just so am do did does will can about from what there they "
    "he she his her or if like really got get went love new now all one some very too also "
    "because when just much today yesterday week a an last next ago started since my mine "
    "them their would could should how who which than then always never please give don't won't can't "
    "want need keep use only any every".split()
)


def refusal(content: str, *, max_chars: int = MAX_TURN_CHARS) -> str | None:
    """Why the open layer reads nothing of ``content`` (None when it reads it)."""
    if len(content) > max_chars:
        return f"longer than {max_chars} characters: pasted material, not a statement"
    prose = " ".join(prose_lines(content))
    words = _WORD.findall(prose.lower())
    if not words:
        return "no words: emoji, symbols or code only"
    if sum(1 for w in words if not w.isascii()) > 0.3 * len(words):
        return "not English"
    hits = sum(1 for w in words if w in _ENGLISH)
    if hits < (1 if len(words) < 10 else 0.12 * len(words)):
        return "not English"
    return None


def prose_lines(content: str) -> list[str]:
    """The turn's prose, one entry per line: code blocks, inline code and URLs removed."""
    text = _URL.sub(" ", _INLINE_CODE.sub(" ", _FENCE.sub("\n", content)))
    out = []
    for raw in text.splitlines():
        if raw.startswith(("    ", "\t")):
            continue  # an indented code line
        line = _BULLET.sub("", raw).strip()
        if not line or sum(ch in _CODE_CHARS for ch in line) > 0.08 * len(line) or line.endswith((";", "{", "}")):
            continue
        out.append(line)
    return out


class OpenVocabularyExtractor:
    """Rules for the fixed keys, the parse for everything else (see the module docstring).

    Args:
        parser: the dependency parser (``memworks.adapters.nlp.SpacyParser`` in production).
        rules: the precise special cases; ``None`` runs the open layer alone.
        max_chars: longer turns are left to the rules extractor.
    """

    name = "open"
    #: Earlier turns wanted as context (none: references are resolved within a turn).
    context_turns = 0

    def __init__(self, parser: Parser, *, rules: Extractor | None = None, max_chars: int = MAX_TURN_CHARS) -> None:
        self.parser, self.rules, self.max_chars = parser, rules, max_chars
        self._cache: OrderedDict[str, list[Sentence]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, turn: Turn, *, context: Sequence[Turn] = ()) -> list[Candidate]:
        return self.extract_many([turn])[0]

    def refusal_of(self, turn: Turn) -> str | None:
        """Why the open layer reads nothing of a user's turn (None when it reads it, or when
        the turn is not the user's own words); the caller audits it as a gate reason."""
        return refusal(_content(turn), max_chars=self.max_chars) if _reads(turn) else None

    def warm(self, turns: Sequence[Turn]) -> None:
        """Parse the prose of ``turns`` in one batch, so later per-turn calls find it parsed."""
        self._parsed([line for t in turns if _reads(t) for line in self._lines(t)])

    def extract_many(self, turns: Sequence[Turn]) -> list[list[Candidate]]:
        """Candidates for each turn; the turns' sentences are parsed in one batch."""
        lines = {t.episode_id: self._lines(t) if _reads(t) else [] for t in turns}
        parsed = self._parsed([line for ls in lines.values() for line in ls])
        return [self._extract(t, [parsed[line] for line in lines[t.episode_id]]) for t in turns]

    # -- one turn ----------------------------------------------------------------------------

    def _lines(self, turn: Turn) -> list[str]:
        content = _content(turn)
        if refusal(content, max_chars=self.max_chars):
            return []
        owner = _MY.search(content) is not None
        # A turn asking to forget is read whole: "forget I ever said it" points back at its other sentences.
        forgetting = bool(_FORGET_WORDS.intersection(_TOKEN.findall(content.lower())))
        return [
            part
            for line in prose_lines(content)
            for part in _sentences(line)
            if forgetting or _worth_parsing(part, owner)
        ]

    def _extract(self, turn: Turn, docs: list[list[Sentence]]) -> list[Candidate]:
        if not _reads(turn):
            return []
        person = speaker_person(turn.speaker)
        ruled = self._rules(turn, person)
        state = TurnState(person, turn.occurred_at)
        found: list[Statement] = []
        for s in (s for sentences in docs for s in sentences):
            found += statements_in(s, state)
            state.said.append(s)  # what a later "forget I said it" points back at
        taken = {c.key for c in ruled if c.key}
        # A statement the rules already filed under a fixed key is not filed again under an open
        # one ("my favourite tree on weekends is beech": one fact, not two).
        said = {value_terms(c.value) for c in ruled if c.op is CandidateOp.ASSERT and c.key and c.value.strip()}
        forgot = any(c.forget is not None for c in ruled)
        opened = [
            _candidate(st, turn, person)
            for st in found
            if not (st.forget_terms and forgot)
            and (st.forget_terms or st.key not in taken)
            and not (st.op is CandidateOp.ASSERT and value_terms(st.value) in said)
        ]
        return _dedupe([c for c in [*ruled, *opened] if not unspecific(c)])

    def _rules(self, turn: Turn, person: Person) -> list[Candidate]:
        if self.rules is None:
            return []
        out = []
        for c in self.rules(turn.model_copy(update={"content": _content(turn)})):
            if c.key and c.key.startswith("user.favorite."):
                c = c.model_copy(update={"key": _favorite_key(c.key)})
            if c.op is CandidateOp.RETRACT and c.extra.get("rule", "").startswith("forget."):
                topic = c.text.removeprefix("User asked to forget ").rstrip(".")
                terms = tuple(c.key.split(".")[1:]) if c.key else ()
                c = c.model_copy(update={"forget": ForgetRequest(topic=topic, terms=terms)})
            if (kept := tidy(c)) is not None and not misread(kept, _content(turn)):
                out.append(_as_person(kept, person))
        return out

    def parse(self, texts: Sequence[str]) -> dict[str, list[Sentence]]:
        """Each text's sentences, from the extractor's parse cache where it has them (claims are
        read from the same parse the extraction used)."""
        return self._parsed(texts)

    def _parsed(self, lines: Sequence[str]) -> dict[str, list[Sentence]]:
        with self._lock:
            have = {line: self._cache[line] for line in lines if line in self._cache}
        todo = list(dict.fromkeys(line for line in lines if line not in have))
        if todo:
            fresh = dict(zip(todo, self.parser.parse(todo), strict=True))
            have.update(fresh)
            with self._lock:
                self._cache.update(fresh)
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        return have


_SENTENCE_END = re.compile(r"[.!?]\s+")
_ABBREVIATIONS = frozenset("mr mrs ms dr st prof jr sr vs etc mt ft no e.g i.e".split())


#: The items of a numbered list run into one line: "(1) always use type hints, (2) never push to
#: main directly": each is a statement of its own, as on lines of their own.
_LIST_ITEM = re.compile(r"(?:^|(?<=[\s:;,]))\(?(?:\d{1,2}|[a-h])\)\s+")


def _sentences(line: str) -> list[str]:
    """The line cut at sentence ends, not after initials ("N. K. Jemisin") or "Dr.", and before
    the items of a numbered list."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(line):
        before = line[start : m.start()].rsplit(None, 1)[-1] if line[start : m.start()].strip() else ""
        if m.group().startswith(".") and ((len(before) == 1 and before.isupper()) or before.lower() in _ABBREVIATIONS):
            continue
        out.append(line[start : m.end()].strip())
        start = m.end()
    out.append(line[start:].strip())
    items = [i for s in out for i in _LIST_ITEM.split(s)] if len(_LIST_ITEM.findall(line)) >= 2 else out
    return [s.strip(" ,;") for s in items if s.strip(" ,;")]


# ... or a request to the listener, which speaks of the speaker without naming them ("please
# don't put any calls before 10am")
_FIRST_PERSON_WORD = re.compile(r"\b(?:i|i'm|i've|i'd|im|ive|we|we're|we've|my|our|me|please|pls)\b", re.IGNORECASE)
_MY = re.compile(r"\b(?:my|our)\b", re.IGNORECASE)
_THIRD = re.compile(r"\b(?:he|she|his|her)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z']+")
_FORGET_WORDS = frozenset("forget delete erase remove wipe unlearn purge remembering scrap discard ditch".split())
#: Words before a request to the listener that leave it one: "And could you ...", "@assistant can you ...".
_ASK = re.compile(
    r"\s{0,4}(?:@\S{1,40}\s{1,4})?(?:(?:and|so|oh|also|ok|okay|hey|hi|please|actually)\W{1,3}){0,3}"
    r"(?:can|could|would|will)\s{1,4}you\b",
    re.I,
)


#: Words of what keeps a person safe, said of anyone ("Hana is allergic to sesame").
_KEEPS_SAFE = re.compile(
    r"\b(?:allergic|allerg(?:y|ies)|intolerant|intolerance|coeliac|celiac|diabetic|vegan|vegetarian"
    r"|can't\s+(?:eat|have|drink)|cannot\s+(?:eat|have|drink))\b",
    re.IGNORECASE,
)


def _worth_parsing(sentence: str, owner: bool) -> bool:
    """Could a frame read anything here? The parse is most of the cost, and a statement needs a
    first-person word (or "she"/"he" after "my ...") and one of the frames' trigger words."""
    if sentence.rstrip().endswith("?") and not _ASK.match(sentence):
        return False
    words = set(_TOKEN.findall(sentence.lower()))
    if words & _FORGET_WORDS or has_fragment(sentence) or _KEEPS_SAFE.search(sentence):
        return True
    if not (_FIRST_PERSON_WORD.search(sentence) or (owner and _THIRD.search(sentence))):
        return False
    return bool(words & TRIGGERS) or _MY.search(sentence) is not None


def _reads(turn: Turn) -> bool:
    return turn.role == Role.USER and turn.source == Source.USER


def _content(turn: Turn) -> str:
    """The turn's words without a leading "Speaker: " naming its own speaker."""
    text = turn.content
    if turn.speaker and text.lower().startswith(f"{turn.speaker.lower()}:"):
        text = text[len(turn.speaker) + 1 :].lstrip()
    return text


def _favorite_key(key: str) -> str:
    words = key.removeprefix("user.favorite.").split("_")
    while len(words) > 1 and words[-1] in KEY_TIME_WORDS:
        words.pop()
    return "user.favorite." + "_".join(words)


def _as_person(c: Candidate, person: Person) -> Candidate:
    """A rules candidate about "User" re-attributed to a named speaker."""
    if person.key == "user":
        return c
    key = f"{person.key}.{c.key.removeprefix('user.')}" if c.key else None
    derived = f"{person.key}.{c.derived_from_key.removeprefix('user.')}" if c.derived_from_key else None
    text = re.sub(r"\bUser(?=\b|'s)", person.name, c.text)
    return c.model_copy(
        update={"key": key, "derived_from_key": derived, "text": text, "extra": {**c.extra, "subject": person.key}}
    )


def _candidate(st: Statement, turn: Turn, person: Person) -> Candidate:
    extra = {"rule": st.rule, "subject": st.person.key}
    if st.time is not None:
        extra["time_expression"] = st.time.phrase
    if st.retracted:
        extra["retracted_value"] = st.retracted
    forget = (
        ForgetRequest(topic=st.forget_topic, terms=st.forget_terms, recent=st.forget_recent, told=st.forget_told)
        if st.forget_terms
        else None
    )
    return Candidate(
        op=st.op,
        kind=st.kind,
        key=None if forget else st.key,
        value="" if st.op is CandidateOp.RETRACT else st.value,
        text=st.text,
        confidence=st.confidence,
        valid_from=st.time.when if st.time else None,
        evidence=(turn.episode_id,),
        source=turn.source,
        extractor=OpenVocabularyExtractor.name,
        extra=extra,
        event_at=st.event_at,
        forget=forget,
        key_is_prefix=st.key_is_prefix,
    )


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per (op, key, value); a retraction of a slot the turn also asserts goes
    ("I sold my Prius and bought a Tesla": the new car supersedes the old one)."""
    asserted = [c.key for c in candidates if c.op is CandidateOp.ASSERT and c.key and not c.plan]
    seen: set[tuple[str, str | None, str, str]] = set()
    out: list[Candidate] = []
    for c in candidates:
        ident = (c.op.value, c.key, c.value, c.text if c.key is None else "")
        if ident in seen:
            continue
        if (
            c.op is CandidateOp.RETRACT
            and c.key
            and c.forget is None
            and any(a == c.key or (c.key_is_prefix and a.startswith(c.key + ".")) for a in asserted)
        ):
            continue
        seen.add(ident)
        out.append(c)
    return out
