"""Grade one check against a store, through the public facade alone.

Every kind reads what an agent could read: ``retrieve`` hits, ``memories`` records (with their
evidence episode ids and snippets) and the ``profile`` text. Strings match case-insensitively as
substrings, whitespace folded. A *transcript* record is the verbatim copy of a single turn (its
value is that turn's content and its only evidence is that turn); ``restated`` looks past those
to the records that hold the fact itself: exactly one present record holds the value and rests on
every turn that said it, and no other present record holds it resting only on some of those turns
(a second copy). A record that also rests on turns about other things (a session's summary) is
neither the fact's record nor a copy of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from memworks.models.schemas import HitOut, MemoryOut, RetrieveResult, Scope
from memworks_tools.evaluation.conversations.cases import Check, Conversation

#: Results read per question: the most any check looks at.
K = 5
#: How far (days) a record's event date may be from the expected day (time zones, "the night of").
DATE_SLACK_DAYS = 1


class Store(Protocol):
    """The part of the ``Memworks`` facade the grader uses."""

    def retrieve(
        self,
        scope: Scope,
        query: str,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        k: int = 5,
        asked_at: datetime | str | None = None,
    ) -> RetrieveResult: ...

    def memories(self, scope: Scope, *, include_history: bool = False) -> list[MemoryOut]: ...

    def profile(self, scope: Scope) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Verdict:
    ok: bool
    #: Why it failed, in one line (empty when it passed).
    reason: str = ""
    #: What was looked at: the hits or records, shortened.
    got: list[str] = field(default_factory=list)


def _fold(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").split()).casefold()


def _holds(texts: Iterable[str | None], wanted: Sequence[str]) -> bool:
    hay = [_fold(t) for t in texts if t]
    return any(_fold(w) in h for w in wanted for h in hay)


#: A read's hit or a listed record: both carry value, text, key, status, evidence and event_at.
Item = HitOut | MemoryOut


def _texts(item: Item, where: str = "any") -> list[str | None]:
    if where == "value":
        return [item.value]
    return [item.value, item.text]


def _show(item: Item) -> str:
    status = getattr(item.status, "value", item.status)
    text = item.value if len(item.value) <= 70 else item.value[:69] + "…"
    return f"{item.key or '-'}={text!r} ({status}, evidence {len(item.evidence)})"


def _shown(items: Sequence[Item]) -> list[str]:
    return [_show(i) for i in items]


def _first(r: RetrieveResult) -> str:
    return f" (top-1: {_show(r.hits[0])})" if r.hits else ""


class Grader:
    """Grades the checks of one conversation against ``store``."""

    def __init__(self, store: Store, conversation: Conversation) -> None:
        self.store, self.conv = store, conversation
        self.scope = Scope(tenant_id=conversation.tenant, user_id=conversation.user)
        turns = conversation.turn_map()
        self.by_episode = {conversation.episode_id(tid): t for tid, t in turns.items()}

    def grade(self, check: Check) -> Verdict:
        """The verdict on ``check`` as the store stands now."""
        graders: dict[str, Callable[[Check], Verdict]] = {
            "current": self._current,
            "not_stale": self._not_stale,
            "as_of": self._as_of,
            "forget": self._forget,
            "restated": self._restated,
            "date": self._date,
            "tool": self._tool,
            "abstain": self._abstain,
            "attribution": self._attribution,
            "profile": self._profile,
        }
        return graders[check.kind](check)

    def _ask(self, check: Check, query: str | None = None, **kw: Any) -> RetrieveResult:
        return self.store.retrieve(self.scope, query or check.query, k=K, asked_at=self.conv.question_time(check), **kw)

    # -- kinds ------------------------------------------------------------------------------

    def _current(self, check: Check) -> Verdict:
        r = self._ask(check)
        top = r.hits[: check.top]
        if any(_holds(_texts(h, check.field), check.expect) for h in top):
            return Verdict(True, got=_shown(top))
        why = "abstained" if r.abstained else f"top-{check.top} lacks {' / '.join(check.expect)}{_first(r)}"
        return Verdict(False, why, _shown(r.hits[:3]))

    def _not_stale(self, check: Check) -> Verdict:
        r = self._ask(check)
        bad = [i for i, h in enumerate(r.hits[:3], start=1) if _holds(_texts(h), check.stale)]
        if not bad:
            return Verdict(True, got=_shown(r.hits[:3]))
        return Verdict(
            False, f"old value {' / '.join(check.stale)} at rank {bad[0]} of the present read", _shown(r.hits[:3])
        )

    def _as_of(self, check: Check) -> Verdict:
        r = self._ask(check, as_of=check.as_of)
        if any(_holds(_texts(h), check.expect) for h in r.hits[:3]):
            return Verdict(True, got=_shown(r.hits[:3]))
        why = "abstained" if r.abstained else f"top 3 as of {check.as_of:%Y-%m-%d} lacks {' / '.join(check.expect)}"
        return Verdict(False, why, _shown(r.hits[:3]))

    def _forget(self, check: Check) -> Verdict:
        records = self.store.memories(self.scope, include_history=True)
        left = [
            m for m in records if _holds([m.value, m.text, *(e.snippet for e in m.evidence_detail)], check.forgotten)
        ]
        hits = [h for h in self._ask(check, check.probe).hits[:K] if _holds(_texts(h), check.forgotten)]
        request = self.conv.episode_id(check.request)
        kept = [m for m in records if getattr(m.status, "value", m.status) == "active" and request in m.evidence]
        found: list[Item] = [*left, *hits, *kept]
        if not found:
            return Verdict(True)
        why = []
        if left:
            why.append(f"{len(left)} record(s) still hold it")
        if hits:
            why.append(f"{len(hits)} hit(s) of the probe hold it")
        if kept:
            why.append("the request itself is an active record")
        return Verdict(False, "; ".join(why), _shown(found[:6]))

    def _restated(self, check: Check) -> Verdict:
        said = {self.conv.episode_id(t) for t in check.turns}
        present = [m for m in self.store.memories(self.scope) if not m.stale and not self._transcript(m)]
        holders = [m for m in present if _holds([m.value], check.expect)]
        whole = [m for m in holders if said <= set(m.evidence)]
        # A record resting only on some of these turns is a second copy of the fact; one that
        # also rests on turns about other things (a session's summary) is neither.
        copies = [m for m in holders if m not in whole and set(m.evidence) <= said]
        if len(whole) == 1 and not copies:
            return Verdict(True, got=_shown(whole))
        if len(whole) > 1:
            why = f"{len(whole)} current records hold it, each on every turn that said it"
        elif whole or len(copies) > 1:
            why = f"{len(whole) + len(copies)} current records hold it, not one"
        elif copies:
            rest = len(said & set(copies[0].evidence))
            why = f"its record rests on {rest} of the {len(said)} turns that said it"
        else:
            why = "no current record (besides the turns' transcripts) holds it"
        return Verdict(False, why, _shown([*whole, *copies][:6]))

    def _transcript(self, m: MemoryOut) -> bool:
        if len(m.evidence) != 1 or m.evidence[0] not in self.by_episode:
            return False
        return _fold(m.value) == _fold(self.by_episode[m.evidence[0]].content)

    def _date(self, check: Check) -> Verdict:
        hits = [h for h in self._ask(check).hits[:3] if _holds(_texts(h), check.about)]
        records = [m for m in self.store.memories(self.scope) if not m.stale and _holds(_texts(m), check.about)]
        want = date.fromisoformat(check.date)
        about: list[Item] = [*hits, *records]
        dated = [i for i in about if i.event_at is not None]
        if any(abs((i.event_at.date() - want).days) <= DATE_SLACK_DAYS for i in dated if i.event_at):
            return Verdict(True, got=[f"event_at {i.event_at:%Y-%m-%d}: {_show(i)}" for i in dated[:3] if i.event_at])
        if not about:
            return Verdict(False, f"no current record or hit mentions {' / '.join(check.about)}")
        if not dated:
            return Verdict(False, "no record about the event carries event_at", _shown(about[:4]))
        days = sorted({f"{i.event_at:%Y-%m-%d}" for i in dated if i.event_at})
        return Verdict(False, f"event_at {', '.join(days)}, not {check.date}", _shown(dated[:4]))

    def _tool(self, check: Check) -> Verdict:
        r = self._ask(check)
        top3 = r.hits[:3]
        latest = bool(top3) and _holds(_texts(top3[0]), check.expect)
        older = [i for i, h in enumerate(top3, start=1) if _holds(_texts(h), check.earlier)]
        if latest and not older:
            return Verdict(True, got=_shown(top3))
        why = []
        if not latest:
            why.append("abstained" if r.abstained else f"the latest result is not top-1{_first(r)}")
        if older:
            why.append(f"an earlier result at rank {older[0]}")
        return Verdict(False, "; ".join(why), _shown(top3))

    def _abstain(self, check: Check) -> Verdict:
        r = self._ask(check)
        # Every hit flagged as about someone else offers nothing as the person's: not answered,
        # as ``eval locomo`` counts it ("What instrument does Nadia play?": only Omar's piano).
        if r.abstained or r.subject_mismatch:
            return Verdict(True, got=_shown(r.hits[:3]) if r.subject_mismatch else [])
        return Verdict(False, f"answered: top-1 {_show(r.hits[0]) if r.hits else 'none'}", _shown(r.hits[:3]))

    def _attribution(self, check: Check) -> Verdict:
        r = self._ask(check)
        if r.abstained or not r.hits:
            return Verdict(False, "abstained")
        top = r.hits[0]
        speakers = {self.by_episode[e].speaker for e in top.evidence if e in self.by_episode}
        said_by = speakers == {check.speaker}
        right = not check.expect or _holds(_texts(top), check.expect)
        if said_by and right:
            return Verdict(True, got=_shown([top]))
        who = ", ".join(sorted(s or "nobody named" for s in speakers)) or "no known episode"
        why = [] if said_by else [f"top-1 was said by {who}"]
        if not right:
            why.append(f"top-1 lacks {' / '.join(check.expect)}{_first(r)}")
        return Verdict(False, "; ".join(why), _shown(r.hits[:3]))

    def _profile(self, check: Check) -> Verdict:
        text = str(self.store.profile(self.scope).get("text") or "")
        if _holds([text], check.expect):
            return Verdict(True)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()][:8]
        return Verdict(False, f"the profile lacks {' / '.join(check.expect)}", lines)
