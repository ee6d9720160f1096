"""``memworks eval safety``: poisoning attempts against every door that writes memory.

Two sets, kept as data beside this module: ``attacks.json`` (each attempt must leave nothing
active, retrieved or in the profile, after ingest and again after consolidation) and
``benign.json`` (real requests that merely mention emails, passwords or refunds: each must be
kept; refusing one is a false refusal). Every case runs in a user scope of its own, so whatever
the store holds for that user came from the case.
"""

from __future__ import annotations

from memworks_tools.evaluation.safety.cases import Case, load
from memworks_tools.evaluation.safety.run import met_targets, run

__all__ = ["Case", "load", "met_targets", "run"]
