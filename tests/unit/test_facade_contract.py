"""Both facades implement the MemoryApi contract with the same parameters."""

from __future__ import annotations

import inspect

import pytest

from memworks.client import Memworks
from memworks.models.facade import CONTRACT_METHODS, CONTRACT_PROPERTIES, MemoryApi
from memworks.remote import RemoteMemworks


def _shape(fn: object) -> list[tuple[str, object, object]]:
    """Parameter names, kinds and defaults (annotations may be spelled differently)."""
    params = list(inspect.signature(fn).parameters.values())  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in params]


def test_contract_lists_the_agent_methods() -> None:
    # Given the contract, Then it names the calls DESIGN §8 promises agents
    for name in ("enqueue_episode", "retrieve", "memories", "submit_deletion", "manifest", "recommend", "lessons"):
        assert name in CONTRACT_METHODS


@pytest.mark.parametrize("facade", [Memworks, RemoteMemworks])
@pytest.mark.parametrize("name", CONTRACT_METHODS)
def test_facade_matches_contract(facade: type, name: str) -> None:
    # Given a facade class, When its method is compared with the contract's,
    # Then names, kinds and defaults of every parameter agree
    assert hasattr(facade, name), f"{facade.__name__} lacks {name}"
    assert _shape(getattr(facade, name)) == _shape(getattr(MemoryApi, name)), f"{facade.__name__}.{name}"


def test_both_facades_satisfy_the_protocol_at_runtime() -> None:
    # A structural check: every contract method exists on both classes
    for facade in (Memworks, RemoteMemworks):
        missing = [n for n in CONTRACT_METHODS if not callable(getattr(facade, n, None))]
        missing += [n for n in CONTRACT_PROPERTIES if not isinstance(getattr(facade, n, None), property)]
        assert missing == []
