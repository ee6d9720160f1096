"""outcomes and lessons

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "lesson",
        sa.Column("lesson_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("task_type", sa.String(length=200), nullable=False),
        sa.Column("pattern_json", sa.Text(), nullable=False),
        sa.Column("action", sa.String(length=200), nullable=False),
        sa.Column("guidance", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("origin", sa.String(length=20), nullable=False),
        sa.Column("report", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("activated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("lesson_id"),
    )
    with op.batch_alter_table("lesson", schema=None) as batch_op:
        batch_op.create_index("ix_lesson_task", ["tenant_id", "task_type", "status"], unique=False)

    op.create_table(
        "outcome",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("outcome_id", sa.String(length=200), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=True),
        sa.Column("task_id", sa.String(length=200), nullable=True),
        sa.Column("task_type", sa.String(length=200), nullable=False),
        sa.Column("features_json", sa.Text(), nullable=False),
        sa.Column("features_raw", sa.Text(), nullable=False),
        sa.Column("action_taken", sa.String(length=200), nullable=False),
        sa.Column("verified_action", sa.String(length=200), nullable=True),
        sa.Column("success", sa.Boolean(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tombstoned_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "outcome_id", name="uq_outcome_tenant_outcome"),
    )
    with op.batch_alter_table("outcome", schema=None) as batch_op:
        batch_op.create_index("ix_outcome_task_type", ["tenant_id", "task_type", "occurred_at"], unique=False)
        batch_op.create_index("ix_outcome_user", ["tenant_id", "user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outcome", schema=None) as batch_op:
        batch_op.drop_index("ix_outcome_user")
        batch_op.drop_index("ix_outcome_task_type")

    op.drop_table("outcome")
    with op.batch_alter_table("lesson", schema=None) as batch_op:
        batch_op.drop_index("ix_lesson_task")

    op.drop_table("lesson")
