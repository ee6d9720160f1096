"""The dependencies every service takes explicitly: settings, engine, embedder, extractor, cache, clock.

Services never reach for a process-wide getter; workers and the facade build one ``Deps`` and pass it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property

from sqlalchemy import Engine

from memworks.adapters.embedder import get_embedder
from memworks.config import Settings
from memworks.errors import InvalidInput
from memworks.pipelines.consolidation import EvictionPolicy
from memworks.pipelines.extraction.base import Extractor
from memworks.pipelines.lessons import LessonPolicy
from memworks.pipelines.protocols import Embedder
from memworks.pipelines.retrieval.ranker import load_model
from memworks.pipelines.retrieval.ranking import RankPolicy
from memworks.store.consolidation import Knobs
from memworks.store.projections.cache import MemoryCache, ReadCache, RedisCache
from memworks.store.projections.scope_cache import SCOPES
from memworks.store.sql.db import get_engine, upgrade


def utcnow() -> datetime:
    """The clock services use unless a caller passes its own."""
    return datetime.now(UTC)


#: Replies asked of the model per turn when one is malformed (the reason goes back with the
#: request); after the last, the turn's extraction is refused and recorded with the reason.
LLM_ATTEMPTS = 2

_open_lock = threading.Lock()
_open: list[Extractor] = []


def open_extractor() -> Extractor:
    """The ``open`` extractor, built on first use and shared by the process (loading and
    checking the parser's weights takes about half a second; its parse cache is shared too)."""
    with _open_lock:
        if not _open:
            from memworks.adapters.nlp import SpacyParser
            from memworks.pipelines.extraction.open_vocab.extractor import OpenVocabularyExtractor
            from memworks.pipelines.extraction.rules import RulesExtractor

            _open.append(OpenVocabularyExtractor(SpacyParser(), rules=RulesExtractor()))
        return _open[0]


@dataclass
class Deps:
    settings: Settings

    @cached_property
    def engine(self) -> Engine:
        return get_engine(self.settings.database_url)

    @cached_property
    def embedder(self) -> Embedder:
        return get_embedder(self.settings.embedder)

    @cached_property
    def extractor(self) -> Extractor:
        if self.settings.extractor == "llm":
            from memworks.adapters.llm import ChatCompletionsClient
            from memworks.pipelines.extraction.llm import LLMExtractor, reply_schema

            if not (self.settings.llm_base_url and self.settings.llm_model):
                raise InvalidInput("MEMWORKS_EXTRACTOR=llm needs MEMWORKS_LLM_BASE_URL and MEMWORKS_LLM_MODEL")
            client = ChatCompletionsClient(
                self.settings.llm_base_url,
                self.settings.llm_model,
                api_key=self.settings.llm_api_key or None,
                json_schema=reply_schema(),
            )
            return LLMExtractor(client, attempts=LLM_ATTEMPTS)
        if self.settings.extractor == "open":
            return open_extractor()
        from memworks.pipelines.extraction.rules import RulesExtractor

        return RulesExtractor()

    @cached_property
    def cache(self) -> ReadCache:
        url = self.settings.cache_url or ("" if self.settings.is_embedded_broker else self.settings.broker_url)
        return RedisCache(url) if url.startswith("redis") else MemoryCache()

    @property
    def policy(self) -> RankPolicy:
        st = self.settings
        return RankPolicy(
            min_similarity=st.retrieve_min_similarity,
            min_similarity_lexical=st.retrieve_min_similarity_lexical,
            ranker=st.retrieve_ranker,
            spans=st.retrieve_spans,
            neighbors=st.retrieve_neighbors,
            time=st.retrieve_time,
            subjects=st.retrieve_subjects,
            latest=st.retrieve_latest,
            model=load_model() if st.retrieve_ranker == "learned" else None,
        )

    @property
    def lesson_policy(self) -> LessonPolicy:
        return LessonPolicy(
            min_support=self.settings.lesson_min_support,
            max_pattern_size=self.settings.lesson_max_pattern_size,
            max_promotions_per_run=self.settings.lesson_promotions_per_run,
            min_reporters=self.settings.lesson_min_reporters,
            guard_min_cases=self.settings.lesson_guard_min_cases,
            max_unfixed_share=self.settings.lesson_max_unfixed_share,
            declared_actions=tuple(self.settings.lesson_actions),
        )

    @property
    def eviction_policy(self) -> EvictionPolicy:
        return EvictionPolicy(max_records=self.settings.max_records_per_user)

    @property
    def consolidation_knobs(self) -> Knobs:
        return Knobs(
            eviction=self.eviction_policy,
            dedup_threshold=self.settings.dedup_min_similarity,
            profile_max_tokens=self.settings.profile_max_tokens,
            embedder=self.embedder,
            count_tokens=self.count_tokens,
        )

    def count_tokens(self, text: str) -> int:
        """Tokens of the embedding model's tokenizer (the profile cap's unit)."""
        counter = getattr(self.embedder, "count_tokens", None)
        return int(counter(text)) if counter else len(text.split())

    def upgrade_schema(self) -> None:
        upgrade(self.settings.database_url)

    def close(self) -> None:
        """Release the engine's connections and what this process cached of its database."""
        if "engine" in self.__dict__:  # never built: nothing to release
            SCOPES.drop_database(self.engine.url.render_as_string(hide_password=True))
            self.engine.dispose()
