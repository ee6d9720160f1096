"""The deletion property search of :mod:`tests.workers.test_deletion_property`, on PostgreSQL."""

from __future__ import annotations

import pytest

from tests.workers.test_deletion_property import (
    store,
    test_every_deletion_finishes_and_leaves_none_of_the_deleted_words,
)

__all__ = ["store", "test_every_deletion_finishes_and_leaves_none_of_the_deleted_words"]

pytestmark = pytest.mark.integration


@pytest.fixture
def database_url(pg_url: str) -> str:
    return pg_url
