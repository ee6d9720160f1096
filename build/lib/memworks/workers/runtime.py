"""The process's one ``Deps`` (the runtime): built from the environment on first use, swapped by the facade."""

from __future__ import annotations

import threading

from memworks.config import get_settings
from memworks.services.deps import Deps, utcnow

__all__ = ["Deps", "get_runtime", "set_runtime", "utcnow"]

_runtime: Deps | None = None
_lock = threading.Lock()


def get_runtime() -> Deps:
    """The process's runtime, built from the environment on first use."""
    global _runtime
    with _lock:
        if _runtime is None:
            _runtime = Deps(get_settings())
        return _runtime


def set_runtime(runtime: Deps | None) -> None:
    """Swap the process's runtime (the facade and tests use this)."""
    global _runtime
    with _lock:
        _runtime = runtime
