"""The SQL underneath every store module: the engine and its sessions (:mod:`.db`), the schema's
state against the migrations (:mod:`.health`), scope and task locks (:mod:`.locks`) and
idempotent inserts (:mod:`.idempotent`)."""
