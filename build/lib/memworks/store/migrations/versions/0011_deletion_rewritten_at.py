"""deletion_request.rewritten_at: when the database files were rewritten after a completed deletion

PostgreSQL keeps the bytes of erased tuples in its files until a table is rewritten; the
rewrite job marks each completed request once the files no longer hold them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("deletion_request") as batch:
        batch.add_column(sa.Column("rewritten_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deletion_request") as batch:
        batch.drop_column("rewritten_at")
