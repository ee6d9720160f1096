"""``memworks chaos``: every episode processed exactly once through worker kills and a Redis restart.

The harness stores a deterministic stream of episodes through the facade while ``memworks worker``
processes serve the Redis queue. Between batches it SIGKILLs a random worker process group (mid
message, as often as not) and starts a fresh one; once, halfway, it empties the queue as a Redis
restart without persistence does. A scheduler would run the outbox sweeper; the harness sends it
itself, every few seconds. At the end it compares the store with a clean run of the same stream
(embedded, no faults):

- ``lost``: episodes still unprocessed when the run ends;
- ``duplicated``: episodes whose gate decisions, memories or lineage edges appear more often than
  in the clean run;
- ``processed_once``: episodes processed with exactly the clean run's decisions;
- ``identical_state``: the memory table (everything but generated ids and wall-clock times)
  equals the clean run's.

It works in a scratch database it creates on ``MEMWORKS_DATABASE_URL``'s server (a temporary
file for SQLite) and in a scratch queue namespace on ``MEMWORKS_BROKER_URL``'s Redis, so a
deployment's own data and workers are never touched, and it refuses any host but loopback.
With ``own_redis`` it starts a private ``redis-server`` on a free loopback port and restarts it
for real (SIGKILL, then a fresh empty server); otherwise it deletes the scratch namespace's
queue keys, which is what such a restart leaves behind, without stopping a shared server.
"""

from __future__ import annotations

from memworks_tools.chaos.loopback import LOOPBACK, PrivateRedis, free_port, require_loopback, scratch_database
from memworks_tools.chaos.scenario import ChaosConfig, clean_run, run
from memworks_tools.chaos.snapshot import Snapshot, compare, snapshot
from memworks_tools.chaos.stream import CITIES, EMPLOYERS, FOODS, JOBS, PETS, agent_episode, stream
from memworks_tools.chaos.workers import Workers

__all__ = [
    # the scenario
    "ChaosConfig",
    "clean_run",
    "run",
    # the stream
    "CITIES",
    "EMPLOYERS",
    "FOODS",
    "JOBS",
    "PETS",
    "agent_episode",
    "stream",
    # the report
    "Snapshot",
    "compare",
    "snapshot",
    # services and processes
    "LOOPBACK",
    "PrivateRedis",
    "Workers",
    "free_port",
    "require_loopback",
    "scratch_database",
]
