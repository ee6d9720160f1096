"""Verified tool results as keyed records (:mod:`.results`), including results written as a call
and its JSON reply (:mod:`.calls`)."""
