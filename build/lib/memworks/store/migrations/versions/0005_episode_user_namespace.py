"""episode ids are unique per (tenant, user), not per tenant

An end user's episode ids no longer share a namespace with the other users of the tenant: one
user can neither learn that another's id exists (a conflict) nor take it first.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("episode", schema=None) as batch_op:
        batch_op.drop_constraint("uq_episode_tenant_episode", type_="unique")
        batch_op.create_unique_constraint("uq_episode_tenant_user_episode", ["tenant_id", "user_id", "episode_id"])


def downgrade() -> None:
    # Fails while two users of one tenant hold the same episode id: there is no lossless way back.
    with op.batch_alter_table("episode", schema=None) as batch_op:
        batch_op.drop_constraint("uq_episode_tenant_user_episode", type_="unique")
        batch_op.create_unique_constraint("uq_episode_tenant_episode", ["tenant_id", "episode_id"])
