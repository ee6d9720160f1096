"""initial schema: episodes, memories, lineage, audit, projections, deletion manifests

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deletion_request",
        sa.Column("request_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("keys_json", sa.Text(), nullable=False),
        sa.Column("memory_ids_json", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("plan_json", sa.Text(), nullable=True),
        sa.Column("requested_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("planned_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("request_id"),
    )
    with op.batch_alter_table("deletion_request", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_deletion_request_status"), ["status"], unique=False)
        batch_op.create_index("ix_deletion_scope", ["tenant_id", "user_id"], unique=False)

    op.create_table(
        "episode",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("episode_id", sa.String(length=200), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("session_id", sa.String(length=200), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=40), nullable=False),
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("content_fingerprint", sa.String(length=64), nullable=False),
        sa.Column("metadata_json", sa.Text(), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(length=40), nullable=False),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("tombstoned_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "episode_id", name="uq_episode_tenant_episode"),
    )
    with op.batch_alter_table("episode", schema=None) as batch_op:
        batch_op.create_index("ix_episode_scope", ["tenant_id", "user_id", "occurred_at"], unique=False)
        batch_op.create_index("ix_episode_state_received", ["state", "received_at"], unique=False)

    op.create_table(
        "gate_decision",
        sa.Column("decision_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=True),
        sa.Column("episode_id", sa.String(length=200), nullable=False),
        sa.Column("extractor", sa.String(length=40), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=True),
        sa.Column("candidate_text", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("outcome", sa.String(length=40), nullable=False),
        sa.Column("reason", sa.String(length=400), nullable=False),
        sa.Column("op", sa.String(length=20), nullable=True),
        sa.Column("memory_id", sa.String(length=32), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("decision_id"),
    )
    with op.batch_alter_table("gate_decision", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_gate_decision_episode_id"), ["episode_id"], unique=False)
        batch_op.create_index("ix_gate_scope", ["tenant_id", "user_id", "decided_at"], unique=False)

    op.create_table(
        "job_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(length=100), nullable=False),
        sa.Column("message_id", sa.String(length=64), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=True),
        sa.Column("scope", sa.String(length=400), nullable=False),
        sa.Column("counts_json", sa.Text(), nullable=False),
        sa.Column("outcome", sa.String(length=20), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("job_run", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_job_run_actor"), ["actor"], unique=False)

    op.create_table(
        "lexical_doc",
        sa.Column("memory_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("memory_id"),
    )
    with op.batch_alter_table("lexical_doc", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lexical_doc_fingerprint"), ["fingerprint"], unique=False)
        batch_op.create_index("ix_lexical_doc_scope", ["tenant_id", "user_id"], unique=False)

    op.create_table(
        "lexical_posting",
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("term", sa.String(length=64), nullable=False),
        sa.Column("memory_id", sa.String(length=32), nullable=False),
        sa.Column("tf", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "user_id", "term", "memory_id"),
    )
    with op.batch_alter_table("lexical_posting", schema=None) as batch_op:
        batch_op.create_index("ix_lexical_posting_memory", ["memory_id"], unique=False)

    op.create_table(
        "lineage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("child_id", sa.String(length=200), nullable=False),
        sa.Column("parent_type", sa.String(length=20), nullable=False),
        sa.Column("parent_id", sa.String(length=200), nullable=False),
        sa.Column("relation", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("child_id", "parent_type", "parent_id", "relation", name="uq_lineage_edge"),
    )
    with op.batch_alter_table("lineage", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lineage_child_id"), ["child_id"], unique=False)
        batch_op.create_index("ix_lineage_parent", ["tenant_id", "parent_type", "parent_id"], unique=False)

    op.create_table(
        "manifest_target",
        sa.Column("request_id", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=40), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("remaining", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("purged", sa.Integer(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("request_id", "target"),
    )
    op.create_table(
        "memory",
        sa.Column("memory_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=True),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("trusted", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=40), nullable=False),
        sa.Column("extractor", sa.String(length=40), nullable=False),
        sa.Column("valid_from", sa.DateTime(timezone=True), nullable=False),
        sa.Column("valid_to", sa.DateTime(timezone=True), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retracted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("superseded_by", sa.String(length=32), nullable=True),
        sa.Column("last_retrieved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("memory_id"),
    )
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.create_index("ix_memory_expires", ["expires_at"], unique=False)
        batch_op.create_index("ix_memory_scope_key", ["tenant_id", "user_id", "key", "status"], unique=False)
        batch_op.create_index("ix_memory_scope_status", ["tenant_id", "user_id", "status"], unique=False)

    op.create_table(
        "rejected_input",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=True),
        sa.Column("reference", sa.String(length=400), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("field", sa.String(length=200), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "scope_version",
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "user_id"),
    )
    op.create_table(
        "vector_entry",
        sa.Column("memory_id", sa.String(length=32), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=True),
        sa.Column("model", sa.String(length=80), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("memory_id"),
    )
    with op.batch_alter_table("vector_entry", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_vector_entry_fingerprint"), ["fingerprint"], unique=False)
        batch_op.create_index("ix_vector_scope", ["tenant_id", "user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("vector_entry", schema=None) as batch_op:
        batch_op.drop_index("ix_vector_scope")
        batch_op.drop_index(batch_op.f("ix_vector_entry_fingerprint"))

    op.drop_table("vector_entry")
    op.drop_table("scope_version")
    op.drop_table("rejected_input")
    with op.batch_alter_table("memory", schema=None) as batch_op:
        batch_op.drop_index("ix_memory_scope_status")
        batch_op.drop_index("ix_memory_scope_key")
        batch_op.drop_index("ix_memory_expires")

    op.drop_table("memory")
    op.drop_table("manifest_target")
    with op.batch_alter_table("lineage", schema=None) as batch_op:
        batch_op.drop_index("ix_lineage_parent")
        batch_op.drop_index(batch_op.f("ix_lineage_child_id"))

    op.drop_table("lineage")
    with op.batch_alter_table("lexical_posting", schema=None) as batch_op:
        batch_op.drop_index("ix_lexical_posting_memory")

    op.drop_table("lexical_posting")
    with op.batch_alter_table("lexical_doc", schema=None) as batch_op:
        batch_op.drop_index("ix_lexical_doc_scope")
        batch_op.drop_index(batch_op.f("ix_lexical_doc_fingerprint"))

    op.drop_table("lexical_doc")
    with op.batch_alter_table("job_run", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_job_run_actor"))

    op.drop_table("job_run")
    with op.batch_alter_table("gate_decision", schema=None) as batch_op:
        batch_op.drop_index("ix_gate_scope")
        batch_op.drop_index(batch_op.f("ix_gate_decision_episode_id"))

    op.drop_table("gate_decision")
    with op.batch_alter_table("episode", schema=None) as batch_op:
        batch_op.drop_index("ix_episode_state_received")
        batch_op.drop_index("ix_episode_scope")

    op.drop_table("episode")
    with op.batch_alter_table("deletion_request", schema=None) as batch_op:
        batch_op.drop_index("ix_deletion_scope")
        batch_op.drop_index(batch_op.f("ix_deletion_request_status"))

    op.drop_table("deletion_request")
