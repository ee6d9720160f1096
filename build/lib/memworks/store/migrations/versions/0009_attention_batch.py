"""attention batches: retrieval attention is recorded off the read path, once per batch

``attention_batch`` holds the id of every batch of retrievals whose attention (``memory.attention``,
``memory.last_retrieved_at``) was recorded, so a batch delivered twice counts once. Rows older
than the retention of :mod:`memworks.store.memories` are pruned as new batches arrive.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "attention_batch",
        sa.Column("batch_id", sa.String(length=32), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("batch_id"),
    )
    with op.batch_alter_table("attention_batch", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_attention_batch_applied_at"), ["applied_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("attention_batch", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_attention_batch_applied_at"))
    op.drop_table("attention_batch")
