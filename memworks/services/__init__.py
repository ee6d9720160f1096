"""Use cases: each module composes pipelines and store for one job, taking its dependencies explicitly."""

from memworks.services.deps import Deps, Runtime, utcnow

__all__ = ["Deps", "Runtime", "utcnow"]
