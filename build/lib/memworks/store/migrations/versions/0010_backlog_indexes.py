"""partial indexes of a tenant's unfinished work: episodes received, deletion requests at work

Deciding which lane a tenant's next message takes counts its episodes received and not yet
processed, and its deletion requests pending or open. These indexes hold only those rows, so
the count reads the tenant's unfinished work and nobody else's backlog, however large. They live
here alone (not in the table models): only :mod:`memworks.store.backlog` relies on them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

RECEIVED = sa.text("state = 'received'")
AT_WORK = sa.text("status IN ('pending', 'open')")


def upgrade() -> None:
    op.create_index(
        "ix_episode_tenant_received", "episode", ["tenant_id"], postgresql_where=RECEIVED, sqlite_where=RECEIVED
    )
    op.create_index(
        "ix_deletion_tenant_at_work", "deletion_request", ["tenant_id"], postgresql_where=AT_WORK, sqlite_where=AT_WORK
    )


def downgrade() -> None:
    op.drop_index("ix_deletion_tenant_at_work", table_name="deletion_request")
    op.drop_index("ix_episode_tenant_received", table_name="episode")
