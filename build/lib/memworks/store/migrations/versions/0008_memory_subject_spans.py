"""memory records carry their subject; long records keep one vector per sentence

``memory.subject`` is who said the statement (a conversation's speaker, else the episode's
role) unless the extractor named whom it is about; empty for records stored before this
revision. ``vector_entry.spans`` holds the float32 vectors of a long record's sentences, in the
record's own row, so purging the row purges them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.add_column(sa.Column("subject", sa.String(length=200), nullable=True))
    with op.batch_alter_table("vector_entry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("spans", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("vector_entry", schema=None) as batch_op:
        batch_op.drop_column("spans")
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.drop_column("subject")
