"""Settings from the environment (``MEMWORKS_*``) and ``.env``."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

#: Seconds an episode may wait in state ``received`` before ``memworks doctor`` calls it stuck: a
#: healthy worker takes a second or two per message, a deep but moving backlog minutes.
STUCK_AFTER_S = 900


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMWORKS_", env_file=".env", extra="ignore")

    #: SQLAlchemy URL. SQLite file by default; ``postgresql+psycopg://…`` in production.
    database_url: str = "sqlite:///memworks.db"
    #: ``stub://`` runs the queue in-process; ``redis://host:port/db`` for distributed workers.
    broker_url: str = "stub://"
    #: Key prefix of the Redis queues; deployments sharing one Redis keep their queues apart by it.
    queue_namespace: str = Field("dramatiq", pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    #: Where read-cache entries live: ``memory`` (in-process) or a ``redis://`` URL.
    #: Empty means: the broker's Redis when the broker is Redis, else in-process.
    cache_url: str = ""
    #: Seconds a cached read may be served (index versions invalidate it sooner).
    cache_ttl_s: int = Field(300, ge=0)
    #: The sentence embedder (all-MiniLM-L6-v2, int8 ONNX); the only one shipped for real use.
    embedder: Literal["minilm"] = "minilm"
    #: Who reads facts out of turns: ``open`` (the default: open-vocabulary keys from a local
    #: dependency parse, the fixed keys from rules; no LLM), ``rules`` (fixed keys only, no
    #: parser) or ``llm`` (an OpenAI-compatible endpoint, ``llm_*`` below).
    extractor: Literal["open", "rules", "llm"] = "open"
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    #: Most episodes per extraction message (a larger batch is cut into equal parts): one
    #: embedding batch and one write transaction per message.
    #: 256 rather than 64 makes a bulk import of many users' turns about 1.5× faster (fewer,
    #: fuller writes per user; `memworks bench ingest`) at about a second per message.
    ingest_batch_size: int = Field(256, ge=1, le=1000)
    #: Retries of a failed message before it becomes a dead letter (backoff grows from 1 s).
    max_retries: int = Field(5, ge=0, le=50)
    #: First retry's delay (ms); it doubles with each retry, up to ``retry_max_backoff_ms``.
    retry_min_backoff_ms: int = Field(1_000, ge=10, le=3_600_000)
    #: Longest delay between two retries of a message (ms).
    retry_max_backoff_ms: int = Field(60_000, ge=10, le=604_800_000)
    #: Longest a message may run before its worker interrupts it (ms); consolidation has its own.
    time_limit_ms: int = Field(600_000, ge=1_000, le=86_400_000)
    #: Longest an idle queue of ``memworks worker`` waits before it looks at Redis again (ms):
    #: the most a new message waits for an idle worker. dramatiq's own 1,000 ms was up to a
    #: second of every quiet spell; 200 ms costs an idle worker about 2% of a core, not 0.7%.
    worker_idle_poll_ms: int = Field(200, ge=10, le=10_000)
    #: OS niceness ``memworks worker`` runs at (0-19; 0: as started). Background work then yields
    #: the CPU to an API on the same host, so one tenant's backlog cannot slow another's reads;
    #: on a host of its own a worker is as fast (niceness only orders processes of a host). 19, the
    #: lowest: at 10 a worker still took a tenth of a core the API wanted under a flood.
    worker_nice: int = Field(19, ge=0, le=19)
    #: Worker threads of the in-process worker in embedded mode.
    embedded_worker_threads: int = Field(2, ge=1, le=32)
    #: ``debug`` | ``info`` | ``warning`` | ``error``. Unset: ``info`` for the services (worker,
    #: scheduler, api, mcp) and in-process use, ``warning`` for the other commands (demo, ingest, …).
    log_level: Literal["debug", "info", "warning", "error", "critical"] | None = None
    #: ``auto``: readable lines when stderr is a terminal, JSON lines otherwise; ``json`` or ``console`` to force.
    log_format: Literal["auto", "json", "console"] = "auto"
    #: Minimum cosine similarity for a hit to count as an answer.
    retrieve_min_similarity: float = Field(0.25, ge=-1, le=1)
    #: Cosine floor for a hit that also matched lexically.
    retrieve_min_similarity_lexical: float = Field(0.15, ge=-1, le=1)
    #: Ranking: ``learned`` (the shipped model with its per-type relevance floors) or ``fusion``
    #: (reciprocal rank fusion with the similarity floors above).
    retrieve_ranker: Literal["learned", "fusion"] = "learned"
    #: Score long records by their best sentence too (sentence vectors are stored either way).
    retrieve_spans: bool = True
    #: Let a turn's neighbours in its session speak for it.
    retrieve_neighbors: bool = True
    #: Match the period a question names ("in May 2023", "last year") against event times.
    retrieve_time: bool = True
    #: Check that the evidence is about the person a question names (else say it is not).
    retrieve_subjects: bool = True
    #: A question about what holds now gets the latest of its answers first, the ones it outdates
    #: out of the top 3.
    retrieve_latest: bool = True

    #: Distinct held-out cases a lesson must fix (with no misfire) before it is promoted; raise
    #: it for a stricter gate. 1 learns from the seed shape: one held-out case per exception.
    lesson_min_support: int = Field(1, ge=1, le=1000)
    #: Most features in a mined lesson pattern.
    lesson_max_pattern_size: int = Field(3, ge=1, le=8)
    #: Promotions per learning round (the governance batch).
    lesson_promotions_per_run: int = Field(1, ge=1, le=100)
    #: Distinct end users whose outcomes must back a promotion when no tenant-level report does.
    lesson_min_reporters: int = Field(2, ge=1, le=1000)
    #: Actions every tenant may learn without a tenant-level outcome verifying them first
    #: (comma-separated in the environment: ``MEMWORKS_LESSON_ACTIONS=route_billing,route_fraud``).
    lesson_actions: Annotated[list[str], NoDecode] = Field(default_factory=list)
    #: Share of a candidate's held-out cases it may leave wrong (they fail today and want a third
    #: action); a case it would break always blocks it. 0 for the strictest gate.
    lesson_max_unfixed_share: float = Field(0.25, ge=0, le=1)
    #: Live cases where a lesson fired before the online guard compares it with the base policy.
    lesson_guard_min_cases: int = Field(5, ge=1, le=100_000)

    #: When nightly consolidation runs (crontab, UTC).
    consolidation_cron: str = "0 2 * * *"
    #: How often the scheduler re-drives unfinished deletions (s).
    deletion_sweep_s: int = Field(60, ge=5)
    #: How often the scheduler looks for episodes whose message was lost, and resends them (s).
    outbox_sweep_s: int = Field(10, ge=1)
    #: How often the scheduler rewrites PostgreSQL's files when a deletion has completed since
    #: the last rewrite (s): the bound on how long erased bytes stay on disk.
    disk_rewrite_s: int = Field(3600, ge=60)
    #: Profile size cap, in tokens of the embedding model's tokenizer.
    profile_max_tokens: int = Field(300, ge=20, le=4000)
    #: Most active records per user scope before capacity eviction.
    max_records_per_user: int = Field(5000, ge=10)
    #: Cosine similarity at or above which two records of a slot are duplicates.
    dedup_min_similarity: float = Field(0.9, ge=0, le=1)

    # Rate limits of the HTTP API and its /mcp endpoint. Each budget is a token bucket holding
    # ``rate_burst_s`` seconds of it and refilling continuously, shared through Redis when the
    # cache or the broker is Redis (else per API process); a request over it answers 429 with
    # Retry-After. 0 = no limit.
    #: Episodes and outcomes one API key may send a minute (a batch of 256 spends 256; a
    #: correction, a confirmation or a consolidation spends 1).
    rate_writes_per_min: int = Field(600, ge=0)
    #: Deletion requests one key may send a minute (``POST /v1/deletions``, ``DELETE /v1/memories/…``).
    rate_deletions_per_min: int = Field(60, ge=0)
    #: Other requests one key may send a minute (retrieve, memories, profile, lessons, manifests, MCP
    #: reads); a read spends one for each started 160 bytes of its body and query string.
    rate_reads_per_min: int = Field(1200, ge=0)
    #: Episodes and outcomes all the keys of one tenant may send a minute.
    rate_tenant_writes_per_min: int = Field(6000, ge=0)
    #: Deletion requests all the keys of one tenant may send a minute.
    rate_tenant_deletions_per_min: int = Field(600, ge=0)
    #: Other requests all the keys of one tenant may send a minute.
    rate_tenant_reads_per_min: int = Field(12000, ge=0)
    #: Bytes of request bodies one key may send a minute to the write routes and ``/mcp``, paid
    #: from ``Content-Length`` before the body is read: what a write costs grows with its length.
    #: 1 MB is about 2,000 chat turns, three times the write budget's; one 1 MB body empties it.
    rate_write_bytes_per_min: int = Field(1_000_000, ge=0)
    #: The same for all the keys of one tenant together (4 MB: the tenant write budget's 6,000
    #: turns of ~650 bytes).
    rate_tenant_write_bytes_per_min: int = Field(4_000_000, ge=0)
    #: Seconds of each budget a bucket holds when full: the largest burst a key or tenant may send
    #: at once before the rate applies (at least one request's worth). A minute's worth let one
    #: key spend a whole minute of reads or deletions in its first seconds, while others waited.
    rate_burst_s: float = Field(10.0, gt=0, le=60)
    #: Seconds a refused request waits before its 429 is sent (at most its Retry-After; 0: at
    #: once). The wait holds no thread, only the connection: a client that ignores Retry-After
    #: and asks again at once costs the API a refusal every this long per connection, not
    #: hundreds a second that share the process with other tenants' reads.
    rate_refusal_delay_s: float = Field(0.5, ge=0, le=10)
    #: Requests of one tenant running at once in one API process, so another tenant's request
    #: waits behind at most this many of its requests (sync routes share one thread pool and GIL).
    rate_tenant_concurrency: int = Field(4, ge=0)
    #: Requests of one tenant that may wait, holding no thread, for one of those places (up to
    #: 10 s each); one more, or a longer wait, answers 429 with Retry-After: 1. 0: refused at once.
    rate_tenant_queue: int = Field(32, ge=0)

    # What one episode may cost, and which tenants' work waits in the bulk lanes.
    #: Characters of an episode its extractor reads (the transcript keeps the whole text). At
    #: least 2,000: the open extractor refuses longer turns whole, and must not read their head.
    episode_max_chars: int = Field(8_000, ge=2_000, le=100_000)
    #: Candidates kept from one episode; the rest are refused together (one audited decision).
    episode_max_candidates: int = Field(32, ge=1, le=10_000)
    #: Every statement governed: each new trusted turn meets its nearest statements, said before or
    #: after it, and the claim-pair model closes, absorbs or keeps them, to the same end whatever
    #: order redelivered turns arrive in (``memworks chaos``). Off: only keyed records supersede.
    claims: bool = True
    #: Most characters of episode text per extraction message (storing and indexing a transcript
    #: costs by its length): a batch of long episodes is cut into more, shorter messages.
    ingest_batch_chars: int = Field(200_000, ge=1_000, le=100_000_000)
    #: Most candidates one extraction message judges, embeds and writes; its later episodes (in
    #: arrival order) go to a message of their own, at the back of the lane.
    ingest_batch_candidates: int = Field(512, ge=1, le=1_000_000)
    #: A tenant with more episodes than this received and not yet processed, or more characters
    #: of them than ``bulk_extraction_backlog_chars``, sends its next extraction messages to the
    #: bulk lane (``extraction.bulk``): every other tenant's work goes ahead of them. Other
    #: tenants wait behind at most this much of one tenant's work (8 dense episodes: 256
    #: candidates, a second or two of a worker). Without a flood the bulk lane is as fast.
    bulk_extraction_backlog: int = Field(8, ge=0, le=10_000_000)
    #: The same in characters of text (storing and indexing a long transcript costs by its length).
    bulk_extraction_backlog_chars: int = Field(16_000, ge=0, le=1_000_000_000)
    #: A tenant with more deletion requests than this at work (pending or open) sends its next
    #: requests to the bulk lane (``deletion.bulk``); a request's jobs stay in its lane.
    bulk_deletion_backlog: int = Field(1, ge=0, le=1_000_000)

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _log_word(cls, v: object, info: ValidationInfo) -> object:
        if not isinstance(v, str):
            return v
        # Case-insensitive; empty means the default.
        return v.strip().lower() or ("auto" if info.field_name == "log_format" else None)

    @field_validator("lesson_actions", mode="before")
    @classmethod
    def _action_list(cls, v: object) -> object:
        if isinstance(v, str):
            return [a.strip() for a in v.split(",") if a.strip()]
        return v

    @field_validator("consolidation_cron")
    @classmethod
    def _valid_cron(cls, v: str) -> str:
        from apscheduler.triggers.cron import CronTrigger

        try:
            CronTrigger.from_crontab(v)
        except ValueError as exc:
            raise ValueError(f"MEMWORKS_CONSOLIDATION_CRON {v!r} is not a crontab expression: {exc}") from None
        return v

    @field_validator("broker_url")
    @classmethod
    def _known_broker(cls, v: str) -> str:
        if not (v.startswith("stub://") or v.startswith("redis://") or v.startswith("rediss://")):
            raise ValueError("MEMWORKS_BROKER_URL must be stub:// or redis://host:port/db")
        return v

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, v: str) -> str:
        if not (v.startswith("sqlite") or v.startswith("postgresql")):
            raise ValueError("MEMWORKS_DATABASE_URL must be a sqlite:/// or postgresql+psycopg:// URL")
        return v

    @property
    def is_embedded_broker(self) -> bool:
        return self.broker_url.startswith("stub://")


@lru_cache
def get_settings() -> Settings:
    return Settings()
