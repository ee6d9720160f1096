"""memory records carry the time of the event they are about

``event_at`` is when the event a record states happens or happened ("my sister's wedding is in
September" → 2025-09-01), read from a time expression by the extractor; empty for records that
name no time and for every record stored before this revision.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.add_column(sa.Column("event_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.drop_column("event_at")
