"""consolidation: profile, evictions, runs, attention

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "consolidation_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("message_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("counts_json", sa.Text(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("consolidation_run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_consolidation_run_tenant_id"), ["tenant_id"], unique=False)

    op.create_table(
        "eviction",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("memory_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=True),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("eviction", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_eviction_memory_id"), ["memory_id"], unique=False)
        batch_op.create_index("ix_eviction_scope", ["tenant_id", "user_id"], unique=False)

    op.create_table(
        "profile",
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("lines_json", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("built_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "user_id"),
    )
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.add_column(sa.Column("attention", sa.Float(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("hold", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.drop_column("hold")
        batch_op.drop_column("attention")

    op.drop_table("profile")
    with op.batch_alter_table("eviction", schema=None) as batch_op:
        batch_op.drop_index("ix_eviction_scope")
        batch_op.drop_index(batch_op.f("ix_eviction_memory_id"))

    op.drop_table("eviction")
    with op.batch_alter_table("consolidation_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_consolidation_run_tenant_id"))

    op.drop_table("consolidation_run")
