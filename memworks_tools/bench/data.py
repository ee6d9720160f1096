"""Synthetic stores, fast: realistic rows bulk-loaded straight into the tables.

The rows mirror what ingestion writes (``services/ingest.py`` → ``memories.apply_plan`` →
``indexing.index_memories`` → the lexical and vector projections) without running the
embedder per row:

* a **pool** of utterances in the rules extractor's vocabulary is run through the real
  extractor and gate (:func:`judge_episode`), and every distinct sentence (the utterances and
  the index texts of their facts, :func:`index_text`) is embedded once with the real model;
* a user's store is a stream of episodes drawn from the pool. Each episode gives its
  transcript record and its facts, with the supersession rules of ``pipelines/supersession.py``
  in a simplified form: a single-valued slot's previous record is superseded (``valid_to``,
  ``superseded_by``, a ``supersedes`` edge), a value already held is reinforced (a
  ``reinforced_by`` edge, no new row), multi-valued slots collect values, and a derived time
  zone gets a ``derived_from`` edge to its city;
* every text carries a numeric suffix (``"… #1234"``), so documents are distinct and the
  postings realistic; values are left as the extractor wrote them;
* vectors are the pool vector of the sentence plus small Gaussian noise, re-normalised
  (clusters, as real stores have); lexical documents and postings are
  ``term_counts(index_text(key, text))`` exactly as ``lexical.apply`` writes them.

Rows go in with ``executemany`` on SQLite and ``COPY`` on PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Boolean, Table
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

from memworks.models.drafts import Turn
from memworks.models.enums import EpisodeState, MemoryKind, MemoryStatus, Relation, Role, Source
from memworks.models.tables import (
    Episode,
    GateDecision,
    LexicalDoc,
    LexicalPosting,
    Lineage,
    Memory,
    ScopeVersion,
    VectorEntry,
)
from memworks.models.types import UTCDateTime
from memworks.pipelines.consolidation import ForgettingPolicy, expires_at_for
from memworks.pipelines.ingest import judge_episode
from memworks.pipelines.slots import index_text
from memworks.pipelines.supersession import MULTI_VALUED, memory_id_for, scope_key, transcript_id
from memworks.pipelines.terms import term_counts
from memworks.store.episodes import fingerprint
from memworks_tools.chaos import agent_episode

#: Gaussian noise per dimension added to a pool vector (cosine to it ≈ 0.98 at 384 dims, ≈ 0.96
#: between two copies: a value restated stays a near-duplicate for consolidation's 0.9).
NOISE = 0.01
#: Minutes between a user's consecutive episodes.
EPISODE_GAP_MIN = 10
#: Turns per session (summaries are per session).
SESSION_TURNS = 10
#: Fewest memory rows of one user of another tenant.
MIN_FOREIGN_ROWS = 20
#: Rows per INSERT batch / COPY.
CHUNK = 20_000

CITIES = (
    "Lisbon",
    "Berlin",
    "Tokyo",
    "Oslo",
    "Madrid",
    "Toronto",
    "Nairobi",
    "Lima",
    "Paris",
    "Rome",
    "Seattle",
    "Boston",
    "Chicago",
    "Sydney",
    "Dublin",
    "Vienna",
    "Prague",
    "Warsaw",
    "Athens",
    "Cairo",
    "Seoul",
    "Bangkok",
    "Denver",
    "Helsinki",
    "Stockholm",
    "Copenhagen",
    "Amsterdam",
    "Brussels",
    "Zurich",
    "Montreal",
)
EMPLOYERS = (
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Acme",
    "Stark Industries",
    "Wayne Enterprises",
    "Soylent",
    "Vandelay Industries",
    "Wonka",
    "Cyberdyne",
    "Tyrell",
    "Monarch",
    "Aperture",
    "Pied Piper",
)
JOBS = (
    "nurse",
    "data engineer",
    "teacher",
    "pilot",
    "chef",
    "architect",
    "accountant",
    "lawyer",
    "designer",
    "pharmacist",
    "journalist",
    "electrician",
    "librarian",
    "physicist",
    "translator",
)
THINGS = (
    "sushi",
    "ramen",
    "pizza",
    "tacos",
    "olives",
    "jazz",
    "hiking",
    "chess",
    "tennis",
    "sci-fi novels",
    "board games",
    "gardening",
    "dark chocolate",
    "green tea",
    "cold brew",
    "podcasts",
    "cycling",
    "yoga",
    "indie films",
    "street food",
    "baking bread",
    "bird watching",
    "photography",
    "opera",
    "camping",
    "salsa dancing",
    "crossword puzzles",
    "vinyl records",
    "museums",
    "poetry",
    "dumplings",
    "curry",
    "espresso",
    "red wine",
    "craft beer",
    "marathons",
    "swimming",
    "skiing",
    "surfing",
    "knitting",
    "woodworking",
    "pottery",
    "anime",
    "true crime podcasts",
    "stand-up comedy",
    "karaoke",
    "video games",
    "rock climbing",
    "sailing",
    "fishing",
    "birdsong",
    "thunderstorms",
    "old maps",
    "fountain pens",
    "mechanical keyboards",
    "houseplants",
    "farmers markets",
    "road trips",
    "tapas",
    "pho",
)
QUALIFIERS = ("", "", "spicy", "fresh", "homemade", "late-night", "weekend", "good", "local", "classic")
ALLERGENS = ("peanuts", "shellfish", "penicillin", "pollen", "cats", "gluten", "latex", "bee stings")
PETS = (
    ("dog", "Pixel"),
    ("dog", "Biscuit"),
    ("cat", "Luna"),
    ("cat", "Mochi"),
    ("dog", "Rex"),
    ("parrot", "Kiwi"),
    ("cat", "Tofu"),
    ("dog", "Bruno"),
)
FAMILY = (
    ("sister", "Anna"),
    ("brother", "Tom"),
    ("wife", "Maria"),
    ("husband", "Sam"),
    ("son", "Leo"),
    ("daughter", "Mia"),
    ("mother", "Helen"),
    ("father", "Omar"),
)
FAVOURITES = (
    ("colour", "blue"),
    ("colour", "green"),
    ("colour", "red"),
    ("season", "autumn"),
    ("season", "spring"),
    ("book", "Dune"),
    ("band", "Radiohead"),
    ("film", "Alien"),
)
DIETS = ("vegetarian", "vegan", "pescatarian", "gluten-free")
FORMATS = (
    "Please answer in bullet points.",
    "Be concise, please.",
    "Give me answers as tables.",
    "Keep replies under 3 sentences.",
)
SMALL_TALK = (
    "thanks!",
    "ok",
    "sounds good, thank you",
    "Can you draft a note for the team meeting?",
    "What should I pack for the trip?",
    "Remind me what we discussed about the budget.",
    "Could you summarise the report for me?",
    "Let's pick this up tomorrow.",
    "How long does the train to the airport take?",
    "Write a short birthday message for my colleague.",
)


@dataclass(frozen=True)
class Fact:
    """One accepted candidate of a pool utterance, as the extractor and gate produced it."""

    kind: MemoryKind
    key: str
    value: str
    text: str
    confidence: float
    derived_from_key: str | None


@dataclass(frozen=True)
class Utterance:
    content: str
    facts: tuple[Fact, ...]


@dataclass
class Pool:
    """Utterances, their facts, and one real embedding per distinct sentence."""

    utterances: list[Utterance]
    texts: list[str]
    vectors: npt.NDArray[np.float32]
    model: str
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {t: i for i, t in enumerate(self.texts)}


def _utterances(rng: random.Random) -> list[str]:
    out = [f"I live in {c}." for c in CITIES] + [f"I moved to {c} last week." for c in CITIES]
    out += [f"I work in {c}." for c in CITIES] + [f"I grew up in {c}." for c in CITIES]
    out += [f"I work at {e} as a {j}." for e in EMPLOYERS for j in JOBS]
    out += [f"I love {q + ' ' if q else ''}{t}." for t in THINGS for q in QUALIFIERS]
    out += [f"I really enjoy {t}." for t in THINGS] + [f"I'm based in {c}." for c in CITIES]
    out += [f"I'm a {j}." for j in JOBS] + [f"I got a job at {e}." for e in EMPLOYERS]
    out += [f"I have a {a} allergy." for a in ALLERGENS]
    out += [f"I'm allergic to {a}." for a in ALLERGENS]
    out += [f"My {s} is called {n}." for s, n in PETS] + [f"I have a {s} named {n}." for s, n in PETS]
    out += [f"My {r} is {n}." for r, n in FAMILY] + [f"My favourite {k} is {v}." for k, v in FAVOURITES]
    out += [f"I'm {d}." for d in DIETS] + list(FORMATS) + list(SMALL_TALK)
    out += ["I prefer tea over coffee.", "I prefer coffee over tea.", "I prefer aisle seats.", "I prefer window seats."]
    return list(dict.fromkeys(out))


@lru_cache(maxsize=4)
def build_pool(seed: int = 7, limit: int | None = None) -> Pool:
    """The utterance pool, extracted and embedded once per process (~1,800 sentences, a few seconds).

    ``limit`` keeps a random sample of that many utterances (tests use a small pool).
    """
    from memworks.adapters.embedder import get_embedder
    from memworks.pipelines.extraction.rules import RulesExtractor

    extractor = RulesExtractor()
    when = datetime(2025, 1, 1, tzinfo=UTC)
    utterances = []
    contents = _utterances(random.Random(seed))
    if limit is not None and limit < len(contents):
        contents = random.Random(seed).sample(contents, limit)
    for content in contents:
        turn = Turn(episode_id="pool", role=Role.USER, source=Source.USER, content=content, occurred_at=when)
        judged = judge_episode(turn, extractor=extractor)
        facts = tuple(
            Fact(
                a.candidate.kind,
                a.candidate.key,
                a.candidate.value,
                a.candidate.text,
                a.candidate.confidence,
                a.candidate.derived_from_key,
            )
            for a in judged.accepted()
            if a.candidate.key is not None
            and a.candidate.extractor != "transcript"
            and not a.candidate.plan
            and a.verdict.outcome.value == "accepted"
        )
        utterances.append(Utterance(content, facts))
    texts = list(
        dict.fromkeys(
            [u.content for u in utterances] + [index_text(f.key, f.text) for u in utterances for f in u.facts]
        )
    )
    embedder = get_embedder("minilm")
    return Pool(utterances, texts, embedder.embed(texts), embedder.name)


# -- rows of one user -------------------------------------------------------------------------


@dataclass
class Rows:
    """Rows for the tables, as dicts keyed by column name (see :func:`write`)."""

    memory: list[dict[str, Any]] = field(default_factory=list)
    lineage: list[dict[str, Any]] = field(default_factory=list)
    episode: list[dict[str, Any]] = field(default_factory=list)
    gate_decision: list[dict[str, Any]] = field(default_factory=list)
    scope_version: list[dict[str, Any]] = field(default_factory=list)
    #: (memory id, tenant, user, index text, pool row, fingerprint) of every indexed record.
    indexed: list[tuple[str, str, str, str, int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.memory)


@dataclass(frozen=True)
class UserSpec:
    tenant_id: str
    user_id: str
    #: Memory rows to generate (reached or exceeded by at most one episode's rows).
    memories: int
    with_gate: bool = False


_FORGETTING = ForgettingPolicy()


def user_rows(spec: UserSpec, pool: Pool, *, rng: random.Random, now: datetime, serial: Iterator[int]) -> Rows:
    """One user's episodes, records (with supersession), lineage and index entries."""
    rows = Rows()
    key = scope_key(spec.tenant_id, spec.user_id)
    start = now - timedelta(minutes=EPISODE_GAP_MIN * (spec.memories // 2 + 2))
    current: dict[str, dict[str, Any]] = {}  # single-valued slot → its active row
    held: dict[tuple[str, str], dict[str, Any]] = {}  # (multi-valued slot, value) → its row
    turn = 0
    while len(rows.memory) < spec.memories:
        utt = pool.utterances[rng.randrange(len(pool.utterances))]
        n = next(serial)
        eid = f"{spec.tenant_id}-{spec.user_id}-{turn}"
        when = start + timedelta(minutes=EPISODE_GAP_MIN * turn)
        content = f"{utt.content} #{n}"
        session = f"s{turn // SESSION_TURNS}"
        rows.episode.append(_episode(spec, eid, session, turn, content, when, now))
        turn += 1
        made = [
            _memory(
                rows,
                spec,
                transcript_id(key, eid),
                MemoryKind.EPISODIC,
                None,
                content,
                content,
                1.0,
                "transcript",
                when,
                now,
                pool.index[utt.content],
                rng,
            )
        ]
        _edge(rows, spec.tenant_id, made[0]["memory_id"], "episode", eid, Relation.EXTRACTED_FROM, now)
        by_key: dict[str, dict[str, Any]] = {}
        for f in utt.facts:
            multi = f.key in MULTI_VALUED
            old = held.get((f.key, f.value)) if multi else current.get(f.key)
            if old is not None and old["value"] == f.value:
                _edge(rows, spec.tenant_id, old["memory_id"], "episode", eid, Relation.REINFORCED_BY, now)
                by_key[f.key] = old
                continue
            text = f"{f.text} #{n}"
            row = _memory(
                rows,
                spec,
                memory_id_for(key, f.key, f.value, eid),
                f.kind,
                f.key,
                f.value,
                text,
                f.confidence,
                "rules",
                when,
                now,
                pool.index[index_text(f.key, f.text)],
                rng,
            )
            made.append(row)
            by_key[f.key] = row
            _edge(rows, spec.tenant_id, row["memory_id"], "episode", eid, Relation.EXTRACTED_FROM, now)
            if f.derived_from_key and f.derived_from_key in by_key:
                _edge(
                    rows,
                    spec.tenant_id,
                    row["memory_id"],
                    "memory",
                    by_key[f.derived_from_key]["memory_id"],
                    Relation.DERIVED_FROM,
                    now,
                )
            if multi:
                held[(f.key, f.value)] = row
            else:
                if old is not None:
                    old.update(
                        status=MemoryStatus.SUPERSEDED.value,
                        valid_to=when,
                        superseded_at=now,
                        superseded_by=row["memory_id"],
                    )
                    _edge(rows, spec.tenant_id, row["memory_id"], "memory", old["memory_id"], Relation.SUPERSEDES, now)
                current[f.key] = row
        if spec.with_gate:
            rows.gate_decision += [_decision(spec, eid, r, now) for r in made]
    rows.scope_version.append({"tenant_id": spec.tenant_id, "user_id": spec.user_id, "version": 1})
    return rows


def _episode(
    spec: UserSpec, eid: str, session: str, turn: int, content: str, when: datetime, now: datetime
) -> dict[str, Any]:
    body = json.dumps([spec.user_id, session, turn, "user", "user", content, when.isoformat()], ensure_ascii=False)
    return {
        "episode_id": eid,
        "tenant_id": spec.tenant_id,
        "user_id": spec.user_id,
        "session_id": session,
        "turn": turn,
        "role": Role.USER.value,
        "source": Source.USER.value,
        "content": content,
        "content_hash": hashlib.sha256(body.encode()).hexdigest(),
        "content_fingerprint": fingerprint(content),
        "metadata_json": "{}",
        "occurred_at": when,
        "received_at": now,
        "state": EpisodeState.PROCESSED.value,
        "processed_at": now,
        "tombstoned_at": None,
    }


def _memory(
    rows: Rows,
    spec: UserSpec,
    mid: str,
    kind: MemoryKind,
    key: str | None,
    value: str,
    text: str,
    confidence: float,
    extractor: str,
    when: datetime,
    now: datetime,
    pool_row: int,
    rng: random.Random,
) -> dict[str, Any]:
    fp = fingerprint(text)
    row = {
        "memory_id": mid,
        "tenant_id": spec.tenant_id,
        "user_id": spec.user_id,
        "kind": kind.value,
        "key": key,
        "value": value,
        "text": text,
        "fingerprint": fp,
        "source": Source.USER.value,
        "confidence": confidence,
        "trusted": True,
        "status": MemoryStatus.ACTIVE.value,
        "extractor": extractor,
        "valid_from": when,
        "valid_to": None,
        "recorded_at": now,
        "retracted_at": None,
        "superseded_at": None,
        "superseded_by": None,
        "last_retrieved_at": None,
        "last_verified_at": None,
        "expires_at": expires_at_for(kind, now, _FORGETTING),
        "attention": 0.0,
        "hold": False,
        "event_at": None,
    }
    rows.memory.append(row)
    rows.indexed.append((mid, spec.tenant_id, spec.user_id, index_text(key, text), pool_row, fp))
    return row


def _edge(rows: Rows, tenant: str, child: str, ptype: str, parent: str, rel: Relation, now: datetime) -> None:
    rows.lineage.append(
        {
            "tenant_id": tenant,
            "child_id": child,
            "parent_type": ptype,
            "parent_id": parent,
            "relation": rel.value,
            "created_at": now,
        }
    )


def _decision(spec: UserSpec, eid: str, row: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The gate's record of an accepted candidate (the id only needs to be unique: one per record)."""
    return {
        "decision_id": hashlib.md5(row["memory_id"].encode()).hexdigest(),
        "tenant_id": spec.tenant_id,
        "user_id": spec.user_id,
        "episode_id": eid,
        "extractor": row["extractor"],
        "kind": row["kind"],
        "key": row["key"],
        "candidate_text": row["text"],
        "source": Source.USER.value,
        "outcome": "accepted",
        "reason": "accepted",
        "op": "add",
        "memory_id": row["memory_id"],
        "decided_at": now,
    }


# -- index entries ----------------------------------------------------------------------------


@lru_cache(maxsize=20_000)
def _base_counts(text: str) -> Counter[str]:
    return term_counts(text)


Indexed = Sequence[tuple[str, str, str, str, int, str]]


def lexical_rows(indexed: Indexed) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(lexical_doc rows, lexical_posting rows) exactly as ``lexical.apply`` writes them."""
    docs, postings = [], []
    for mid, tenant, user, text, _, fp in indexed:
        counts = term_counts(text) if "#" not in text else _suffixed_counts(text)
        docs.append((mid, tenant, user or "", sum(counts.values()), fp))
        postings += [(tenant, user or "", t, mid, n) for t, n in counts.items()]
    return docs, postings


def _suffixed_counts(text: str) -> Counter[str]:
    # "<pool sentence> #<n>< (slot words)>": the pool part's counts are cached; the number is one more term.
    head, _, tail = text.partition(" #")
    number, _, words = tail.partition(" ")
    counts = Counter(_base_counts(f"{head} {words}".strip()))
    if number.isdigit() and len(number) > 1:
        counts[number] += 1  # the stemmer leaves digits as they are; one digit is no term
    else:
        counts.update(term_counts(number))
    return counts


def vector_rows(
    indexed: Indexed, pool: Pool, *, rng: np.random.Generator
) -> tuple[list[tuple[Any, ...]], npt.NDArray[np.float32]]:
    """vector_entry rows (pool vector + noise, unit length) and the vectors themselves."""
    idx = np.fromiter((r[4] for r in indexed), dtype=np.int64, count=len(indexed))
    vecs = pool.vectors[idx] + rng.standard_normal((len(indexed), pool.vectors.shape[1]), dtype=np.float32) * NOISE
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs.astype(np.float32)
    rows = [
        (mid, tenant, user, pool.model, vecs[i].tobytes(), fp)
        for i, (mid, tenant, user, _, _, fp) in enumerate(indexed)
    ]
    return rows, vecs


# -- writing ----------------------------------------------------------------------------------

_TABLES: dict[str, Table] = {
    str(t.__tablename__): SQLModel.metadata.tables[str(t.__tablename__)]
    for t in (Memory, Lineage, Episode, GateDecision, ScopeVersion, VectorEntry, LexicalDoc, LexicalPosting)
}
_AUTO = {"lineage": "id", "episode": "id"}


def _columns(table: str) -> list[str]:
    return [c.name for c in _TABLES[table].columns if c.name != _AUTO.get(table)]


class BulkWriter:
    """Rows into a memworks database in large batches: ``executemany`` (SQLite) or ``COPY`` (PostgreSQL).

    The schema must exist (``store.db.upgrade``). Datetimes are written the way the
    ``UTCDateTime`` column type writes them (naive UTC text on SQLite, ``timestamptz`` on
    PostgreSQL), enums by value, booleans as the column expects.
    """

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.dialect = "sqlite" if url.startswith("sqlite") else "postgresql"
        self.rows_written: Counter[str] = Counter()
        self._conn: Any = None

    def __enter__(self) -> BulkWriter:
        if self.dialect == "sqlite":
            conn = sqlite3.connect(self.url.database or "", isolation_level=None, timeout=60)
            for pragma in ("synchronous=OFF", "cache_size=-400000", "temp_store=MEMORY"):
                conn.execute(f"PRAGMA {pragma}")
            self._conn = conn
        else:
            import psycopg

            url = self.url.set(drivername="postgresql").render_as_string(hide_password=False)
            self._conn = psycopg.connect(url, autocommit=False)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None:
            if exc and exc[0] is not None:
                self._conn.rollback()
                self._conn.close()
                self._conn = None
                return
            if self.dialect == "sqlite":
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            else:
                self._conn.commit()
                self._conn.autocommit = True
                for t in _TABLES:
                    self._conn.execute(f"ANALYZE {t}")  # autovacuum would, sooner or later
            self._conn.close()
            self._conn = None

    def dicts(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        cols = _columns(table)
        self.tuples(table, cols, [tuple(r.get(c) for c in cols) for r in rows])  # a newer nullable column: NULL

    def tuples(self, table: str, cols: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
        if not rows:
            return
        if self.dialect == "sqlite":
            sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
            convert = _sqlite_converter(table, cols)
            for i in range(0, len(rows), CHUNK):
                batch = rows[i : i + CHUNK] if convert is None else [convert(r) for r in rows[i : i + CHUNK]]
                self._conn.execute("BEGIN")
                self._conn.executemany(sql, batch)
                self._conn.execute("COMMIT")
        else:
            with self._conn.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN") as cp:
                for r in rows:
                    cp.write_row(r)
            self._conn.commit()
        self.rows_written[table] += len(rows)

    def rows(self, rows: Rows, pool: Pool, *, rng: np.random.Generator) -> npt.NDArray[np.float32]:
        """Write every table of ``rows`` with its index entries; returns the vectors written."""
        for table in ("episode", "memory", "lineage", "gate_decision", "scope_version"):
            self.dicts(table, getattr(rows, table))
        docs, postings = lexical_rows(rows.indexed)
        self.tuples("lexical_doc", ["memory_id", "tenant_id", "user_id", "length", "fingerprint"], docs)
        self.tuples("lexical_posting", ["tenant_id", "user_id", "term", "memory_id", "tf"], postings)
        vrows, vecs = vector_rows(rows.indexed, pool, rng=rng)
        self.tuples("vector_entry", ["memory_id", "tenant_id", "user_id", "model", "vector", "fingerprint"], vrows)
        return vecs


@lru_cache(maxsize=100_000)
def _sqlite_time(v: datetime) -> str:
    # What UTCDateTime + SQLAlchemy's SQLite DateTime store: naive UTC, microseconds always shown.
    return v.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def _sqlite_converter(table: str, cols: Sequence[str]) -> Any:
    """A row converter for the datetime and boolean columns of ``table`` (None when there are none)."""
    types = {c.name: c.type for c in _TABLES[table].columns}
    times = [i for i, c in enumerate(cols) if isinstance(types.get(c), UTCDateTime)]
    bools = [i for i, c in enumerate(cols) if isinstance(types.get(c), Boolean)]
    if not times and not bools:
        return None

    def convert(r: tuple[Any, ...]) -> tuple[Any, ...]:
        out = list(r)
        for i in times:
            if out[i] is not None:
                out[i] = _sqlite_time(out[i])
        for i in bools:
            out[i] = int(out[i])
        return tuple(out)

    return convert


# -- whole stores -----------------------------------------------------------------------------


@dataclass
class Loaded:
    """What :func:`load_users` wrote, and for the scopes asked to keep: how many records a read
    may see, and the exact top-k neighbours of given query vectors among them."""

    memories: int = 0
    rows: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    visible: dict[tuple[str, str], int] = field(default_factory=dict)
    #: Per kept scope: the ids of the k most similar active records, per query (brute force).
    exact: dict[tuple[str, str], list[list[str]]] = field(default_factory=dict)


def load_users(
    url: str,
    specs: Sequence[UserSpec],
    pool: Pool,
    *,
    seed: int,
    now: datetime | None = None,
    keep: Sequence[tuple[str, str]] = (),
    queries: npt.NDArray[np.float32] | None = None,
    k: int = 10,
) -> Loaded:
    """Generate and bulk-load ``specs`` into the database at ``url`` (user by user, small users
    batched together)."""
    t0 = time.perf_counter()
    now = now or datetime.now(UTC)
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    serial = iter(range(seed * 10_000_000, 2**62))
    out = Loaded()
    keep_set = set(keep)
    batch = Rows()
    with BulkWriter(url) as w:
        for spec in specs:
            r = user_rows(spec, pool, rng=rng, now=now, serial=serial)
            out.memories += len(r)
            if (spec.tenant_id, spec.user_id) in keep_set:
                vecs = w.rows(r, pool, rng=nrng)  # rows.indexed follows rows.memory: one vector per record
                live = np.array([m["status"] == MemoryStatus.ACTIVE.value for m in r.memory], dtype=bool)
                ids = [m["memory_id"] for m in r.memory if m["status"] == MemoryStatus.ACTIVE.value]
                key = (spec.tenant_id, spec.user_id)
                out.visible[key] = len(ids)
                if queries is not None:
                    sims = queries @ vecs[live].T
                    out.exact[key] = [[ids[i] for i in np.argsort(-row)[:k]] for row in sims]
            else:
                _extend(batch, r)
                if len(batch) >= CHUNK:
                    w.rows(batch, pool, rng=nrng)
                    batch = Rows()
        if len(batch):
            w.rows(batch, pool, rng=nrng)
        out.rows = w.rows_written
    # A store this size has been through nightly runs: the planner's statistics are current.
    from memworks.store.db import analyze, make_engine

    engine = make_engine(url)
    analyze(engine)
    engine.dispose()
    out.seconds = round(time.perf_counter() - t0, 2)
    return out


def load_isolated(
    url: str,
    specs: Sequence[UserSpec],
    pool: Pool,
    *,
    seed: int,
    keep: Sequence[tuple[str, str]] = (),
    queries: npt.NDArray[np.float32] | None = None,
) -> Loaded:
    """:func:`load_users` in a child process, so the rows it builds never count in this
    process's memory (the benchmarks report this process's peak RSS as the worker's).

    The child is a fresh interpreter given its arguments in a pickle file (not multiprocessing's
    spawn, which would re-run an unguarded ``__main__`` such as ``python -m memworks.cli``).
    """
    import pickle
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="memworks-bench-load-") as tmp:
        args, result = Path(tmp) / "args.pickle", Path(tmp) / "result.pickle"
        args.write_bytes(pickle.dumps((url, list(specs), pool, seed, list(keep), queries)))
        subprocess.run(
            [sys.executable, "-c", f"from memworks_tools.bench.data import _child; _child({str(tmp)!r})"], check=True
        )
        loaded: Loaded = pickle.loads(result.read_bytes())
        return loaded


def _child(tmp: str) -> None:
    """The child of :func:`load_isolated`: load, then hand the result back in a pickle file."""
    import pickle
    from pathlib import Path

    url, specs, pool, seed, keep, queries = pickle.loads((Path(tmp) / "args.pickle").read_bytes())
    loaded = load_users(url, specs, pool, seed=seed, keep=keep, queries=queries)
    (Path(tmp) / "result.pickle").write_bytes(pickle.dumps(loaded))


def _extend(into: Rows, r: Rows) -> None:
    for name in ("memory", "lineage", "episode", "gate_decision", "scope_version", "indexed"):
        getattr(into, name).extend(getattr(r, name))


def foreign_specs(
    total: int, *, tenants: int = 10, users_per_tenant: int = 100, prefix: str = "other", with_gate: bool = False
) -> list[UserSpec]:
    """About ``total`` memory rows of other tenants, spread evenly over up to ``tenants`` ×
    ``users_per_tenant`` users of at least :data:`MIN_FOREIGN_ROWS` rows each (a user may go
    over by the rows of one episode)."""
    if total <= 0:
        return []
    n_users = max(min(tenants * users_per_tenant, total // MIN_FOREIGN_ROWS), 1)
    base, extra = divmod(total, n_users)
    return [
        UserSpec(f"{prefix}-{i // users_per_tenant:03d}", f"u{i % users_per_tenant:05d}", base + (i < extra), with_gate)
        for i in range(n_users)
    ]


def episode_stream(n: int, pool: Pool, *, users: int, seed: int, tenant: str = "bench") -> list[dict[str, Any]]:
    """``n`` episodes as agents send them, like ``chaos.stream`` but with the pool's utterances:
    facts, changes, requests and small talk, 5% retrieved documents carrying an injection."""
    rng = random.Random(seed)
    start = datetime.now(UTC) - timedelta(minutes=n + 60)
    turns: Counter[str] = Counter()
    out = []
    for i in range(n):
        user = f"u{rng.randrange(users):03d}"
        tenant_id = f"{tenant}-a" if rng.random() < 0.5 else f"{tenant}-b"
        turn = turns[tenant_id + user]
        turns[tenant_id + user] += 1
        content = pool.utterances[rng.randrange(len(pool.utterances))].content
        out.append(
            agent_episode(
                rng, tenant=tenant_id, user=user, turn=turn, content=content, when=start + timedelta(minutes=i)
            )
        )
    return out
