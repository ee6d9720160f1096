"""Train the learned ranker on LoCoMo conversations, cross-validated by conversation.

``python -m memworks_tools.evaluation.train_ranker --data locomo_dev.json`` replays each conversation
into a store of its own (as ``memworks eval locomo`` does), asks every question through the
read path's own measurement (:func:`memworks.store.retrieval.search.measure`, all stages on) and
labels each candidate by whether it traces back to a gold evidence turn. A logistic regression
(scikit-learn) over :data:`~memworks.pipelines.retrieval.ranker.FEATURES` is fitted on the answerable
categories; then, per query type, the relevance floor, and the margin that marks evidence as
someone else's, are calibrated:

* floors: the highest top-probability threshold that leaves at most ``--floor-budget`` of the
  answerable questions of that type unanswered, so that questions asked of another
  conversation's store (no evidence there) abstain as often as possible;
* margin: the smallest content-score lead of another person's statement over the named
  person's own that flags at most ``--mismatch-budget`` of the answerable questions.

Leave-one-conversation-out: each conversation is scored by a model (and thresholds) fitted on
the others; those held-out figures are written into the model file beside the final model,
fitted on every conversation given.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memworks.pipelines.retrieval.facts import lift_facts
from memworks.pipelines.retrieval.ranker import (
    FEATURES,
    MODEL_FILE,
    QUERY_TYPES,
    SUBJECT_FEATURES,
    RankerModel,
    features,
    sigmoid,
)
from memworks.pipelines.retrieval.ranking import (
    PERIOD_BOOST,
    RESIDUE_MIN_SIMILARITY,
    RESIDUE_STEP,
    WORD_MIN_SIMILARITY,
)
from memworks_tools.evaluation import locomo

#: Questions of other conversations asked of each store (no evidence there: they should abstain).
CROSS_QUESTIONS = 120
#: Share of answerable questions a floor, and the subject check, may leave unanswered.
FLOOR_BUDGET, MISMATCH_BUDGET = 0.0075, 0.025
ANSWERABLE = (1, 2, 3, 4)
#: Fewest answerable questions of a type to calibrate its own floor on.
MIN_PER_TYPE = 50


@dataclass
class Asked:
    """One question asked of one store, with its candidates' features and labels."""

    conv: str
    store: str
    category: int  # 0: a question of another conversation
    kind: str
    named: bool
    period: bool
    x: npt.NDArray[np.float64]
    label: npt.NDArray[np.bool_]
    prior: npt.NDArray[np.float64]
    theirs: npt.NDArray[np.bool_]
    others: npt.NDArray[np.bool_]
    #: dialogue ids each candidate traces back to, and the gold ones
    traced: list[list[str]]
    gold: tuple[str, ...]
    #: A short question asks about nothing unheard of (see ``ranking.WORD_MIN_SIMILARITY``).
    short_ok: bool = True
    #: Per candidate: the position of the turn a fact was read from (-1: none).
    source: npt.NDArray[np.int64] | None = None


def collect(
    path: Path,
    workdir: Path,
    *,
    limit: int | None = None,
    cross: int = CROSS_QUESTIONS,
    say: Callable[[str], None] = print,
) -> list[Asked]:
    """Every question of every conversation (and ``cross`` others per store) as feature rows."""
    from memworks.client import Memworks
    from memworks.config import Settings

    conversations = locomo.load(path, limit=limit)
    workdir.mkdir(parents=True, exist_ok=True)
    out: list[Asked] = []
    rng = random.Random(7)
    for conv in conversations:
        db = workdir / f"{conv.sample_id}.db"
        fresh = not db.exists()
        with Memworks(Settings(database_url=f"sqlite:///{db}", broker_url="stub://", cache_url="memory")) as mw:
            if fresh:
                locomo._replay(mw, conv)
            foreign = [
                (c.sample_id, q)
                for c in conversations
                if c is not conv
                for q in c.questions
                if q.category in ANSWERABLE
            ]
            asked = [(conv.sample_id, q) for q in conv.questions] + rng.sample(foreign, min(cross, len(foreign)))
            out += _ask(mw, conv, asked)
        say(f"  {conv.sample_id}: {len(asked)} questions measured ({'replayed' if fresh else 'store reused'})")
    return out


def _ask(mw: Any, conv: locomo.Conversation, asked: Sequence[tuple[str, locomo.Question]]) -> list[Asked]:
    from memworks.models.schemas import Scope
    from memworks.pipelines.retrieval.ranker import about
    from memworks.pipelines.retrieval.ranking import RankPolicy, _prior
    from memworks.pipelines.retrieval.unheard import unknown_words
    from memworks.store import memories, versions
    from memworks.store.retrieval.filters import visible
    from memworks.store.retrieval.search import measure
    from memworks.store.sql.db import session_scope

    scope = Scope(tenant_id=locomo.TENANT, user_id=conv.sample_id)
    back = {t.episode_id: t.dia_id for t in conv.turns}
    asked_at = conv.turns[-1].occurred_at + timedelta(days=1)
    policy = RankPolicy()
    rt = mw.runtime
    now = datetime.now(UTC)
    out = []
    vecs = rt.embedder.embed([q.question for _, q in asked])
    with session_scope(rt.engine, write=False) as s:
        version = versions.read(s, tenant_id=scope.tenant_id, user_id=scope.user_id)
        where = visible(scope, now=now, as_of=None, known_at=None)
        for (owner, q), qvec in zip(asked, vecs, strict=True):
            question, sig, fields = measure(
                s,
                scope,
                q.question,
                qvec,
                where=where,
                version=version,
                policy=policy,
                asked_at=asked_at,
                present=True,
                embedder=rt.embedder,
            )
            who = about(sig)
            ev = memories.evidence_of(s, tenant_id=scope.tenant_id, ids=sig.ids)
            traced = [locomo.traced([ev.get(m, [])], back) for m in sig.ids]
            mine = owner == conv.sample_id
            gold = set(q.evidence) if mine else set()
            named = question.named
            out.append(
                Asked(
                    conv=owner,
                    store=conv.sample_id,
                    category=q.category if mine else 0,
                    kind=question.kind,
                    named=named is not None,
                    period=question.period is not None,
                    x=features(question, sig, who=who),
                    label=np.array([bool(gold & set(t)) for t in traced], dtype=np.bool_),
                    prior=np.array([_prior(fields[m]) for m in sig.ids]),
                    theirs=np.array([named is not None and w == named for w in who], dtype=np.bool_),
                    others=np.array([named is not None and w is not None and w != named for w in who], dtype=np.bool_),
                    traced=traced,
                    gold=q.evidence if mine else (),
                    short_ok=not unknown_words(
                        question,
                        sig,
                        min_similarity=WORD_MIN_SIMILARITY,
                        min_residue=RESIDUE_MIN_SIMILARITY,
                        residue_step=RESIDUE_STEP,
                    ),
                    source=sig.source,
                )
            )
    return out


# -- fitting and deciding -----------------------------------------------------------------


def fit(rows: Sequence[Asked], c: float = 1.0) -> RankerModel:
    """A logistic model on the answerable questions' candidates (floors and margin not yet set)."""
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    train = [r for r in rows if r.category in ANSWERABLE and len(r.x)]
    x = np.vstack([r.x for r in train])
    y = np.concatenate([r.label for r in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    lr = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    return RankerModel(lr.coef_[0].astype(np.float64), float(lr.intercept_[0]), mean, scale, {}, 0.0)


@dataclass
class Decided:
    order: list[int]
    top: float
    margin: float  # content lead of someone else's statement; -inf when not applicable
    #: A short question asks about nothing unheard of.
    short_ok: bool = True


def decide(model: RankerModel, r: Asked) -> Decided:
    if not len(r.x):
        return Decided([], 0.0, -np.inf, False)
    z = model.logits(r.x)
    if r.period:
        z = z + PERIOD_BOOST * np.maximum(
            r.x[:, FEATURES.index("period_event")], r.x[:, FEATURES.index("period_session")]
        )
    source = r.source if r.source is not None else np.zeros(0, dtype=np.int64)
    p = lift_facts(sigmoid(z), source, r.x[:, FEATURES.index("span")])
    short_ok = r.short_ok
    order = sorted(range(len(p)), key=lambda i: -p[i] * r.prior[i])
    margin = -np.inf
    if r.named and r.others.any():
        content = model.logits(r.x, content_only=True)
        mine = content[r.theirs].max() if r.theirs.any() else -np.inf
        margin = float(content[r.others].max() - mine)
    return Decided(order, float(p.max()), margin, short_ok)


def calibrate(
    model: RankerModel,
    rows: Sequence[Asked],
    floor_budget: float = FLOOR_BUDGET,
    mismatch_budget: float = MISMATCH_BUDGET,
) -> RankerModel:
    """``model`` with floors per query type and the subject margin set on ``rows`` (see the module doc)."""
    decided = [(r, decide(model, r)) for r in rows]

    def floor(tops: list[float]) -> float:
        # Just below the top score of the answerable question at the budget's quantile.
        tops = sorted(tops)
        return round(float(tops[int(floor_budget * len(tops))]) * 0.999, 6) if tops else 0.0

    every = floor([d.top for r, d in decided if r.category in ANSWERABLE])
    floors = {}
    for kind in QUERY_TYPES:
        tops = [d.top for r, d in decided if r.category in ANSWERABLE and r.kind == kind]
        # A type with too few answerable questions to calibrate on takes the floor of them all.
        floors[kind] = floor(tops) if len(tops) >= MIN_PER_TYPE else every
    margins = sorted((d.margin for r, d in decided if r.category in ANSWERABLE), reverse=True)
    cut = int(mismatch_budget * len(margins))
    margin = float(margins[cut]) + 1e-6 if margins and np.isfinite(margins[cut]) else float("inf")
    return RankerModel(model.coef, model.intercept, model.mean, model.scale, floors, round(margin, 6), model.info)


def score(model: RankerModel, rows: Sequence[Asked]) -> dict[str, Any]:
    """Per category: recall@1/5/10 of the answered ordering (0 when not answered), the share not
    answered; and the share of other conversations' questions abstained."""
    out: dict[str, Any] = {}
    for cat in (*ANSWERABLE, 5, 0):
        sub = [r for r in rows if r.category == cat]
        if not sub:
            continue
        rec = {k: 0.0 for k in (1, 5, 10)}
        scored = not_answered = 0
        for r in sub:
            d = decide(model, r)
            abstain = not d.short_ok if r.kind == "short" else d.top < model.floor(r.kind)
            flagged = not abstain and d.margin >= model.mismatch_margin
            not_answered += abstain or flagged
            if r.gold and not abstain:
                scored += 1
                order = [i for i in d.order if r.others[i]] if flagged else d.order
                for k in rec:
                    rec[k] += locomo.recall_at(r.gold, [r.traced[i] for i in order], k)
            elif r.gold:
                scored += 1
        name = "cross" if cat == 0 else locomo.CATEGORIES[cat]
        out[name] = {f"recall@{k}": round(v / (scored or 1), 4) for k, v in rec.items()}
        out[name]["not_answered"] = round(not_answered / len(sub), 4)
        out[name]["n"] = len(sub)
    return out


def cross_validate(rows: Sequence[Asked], c: float = 1.0) -> dict[str, Any]:
    """Leave one conversation out: fit and calibrate on the others, score on it; pooled."""
    convs = sorted({r.store for r in rows})
    held: list[tuple[RankerModel, list[Asked]]] = []
    for h in convs:
        train = [r for r in rows if r.store != h and r.conv != h]
        model = calibrate(fit(train, c), train)
        held.append((model, [r for r in rows if r.store == h]))
    pooled: dict[str, Any] = {}
    for model, test in held:
        for name, v in score(model, test).items():
            acc = pooled.setdefault(name, {"n": 0})
            for key, val in v.items():
                if key != "n":
                    acc[key] = acc.get(key, 0.0) + val * v["n"]
            acc["n"] += v["n"]
    return {
        name: {k: (round(val / v["n"], 4) if k != "n" else val) for k, val in v.items()} for name, v in pooled.items()
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m memworks_tools.evaluation.train_ranker", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--data", type=Path, required=True, help="the LoCoMo JSON (e.g. ../shared/data/locomo_dev.json)")
    ap.add_argument("--workdir", type=Path, default=Path("ranker-work"), help="replayed stores, kept between runs")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(str(resources.files("memworks.pipelines.retrieval").joinpath(MODEL_FILE))),
        help="where the model goes (default: the file the read path loads)",
    )
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    args = ap.parse_args(argv)
    rows = collect(args.data, args.workdir, limit=args.limit)
    cv = cross_validate(rows, args.c)
    for name, v in cv.items():
        print(f"held-out {name:<12} " + "  ".join(f"{k} {val}" for k, val in v.items()))
    model = calibrate(fit(rows, args.c), rows)
    model.info.update(
        {
            "trained_on": sorted({r.store for r in rows}),
            "questions": sum(1 for r in rows if r.category),
            "candidates": int(sum(len(r.x) for r in rows if r.category in ANSWERABLE)),
            "c": args.c,
            "floor_budget": FLOOR_BUDGET,
            "mismatch_budget": MISMATCH_BUDGET,
            "cross_validated": cv,
            "in_sample": score(model, rows),
            "subject_features": list(SUBJECT_FEATURES),
            "features": list(FEATURES),
        }
    )
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"model written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
