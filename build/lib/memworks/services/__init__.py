"""Use cases: each module composes pipelines and store for one job, taking its dependencies explicitly."""

from memworks.services.deps import Deps, utcnow

__all__ = ["Deps", "utcnow"]
