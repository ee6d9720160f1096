"""One user's rows, as ingestion would have written them: episodes, their transcript records and
facts (with supersession in a simplified form: a single-valued slot's previous record superseded,
a value already held reinforced, multi-valued slots collecting values, a derived time zone linked
to its city), lineage edges and, on request, the gate's decisions.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memworks.models.enums import EpisodeState, MemoryKind, MemoryStatus, Relation, Role, Source
from memworks.pipelines.consolidation import EvictionPolicy, expires_at_for
from memworks.pipelines.ingest.slots import index_text
from memworks.pipelines.ingest.supersession import MULTI_VALUED, memory_id_for, scope_key, transcript_id
from memworks.store.episodes import fingerprint
from memworks_tools.bench.data.pool import Pool

__all__ = ["EPISODE_GAP_MIN", "SESSION_TURNS", "Rows", "UserSpec", "user_rows"]

#: Minutes between a user's consecutive episodes.
EPISODE_GAP_MIN = 10
#: Turns per session (summaries are per session).
SESSION_TURNS = 10


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


_EVICTION = EvictionPolicy()


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
        "expires_at": expires_at_for(kind, now, _EVICTION),
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
