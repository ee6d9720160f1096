"""outcomes in free text, who vouched for them, lesson versions per pattern

Outcomes gain the task as the agent described it (``task_text``), a person's ``feedback`` and
``reporter`` (``tenant`` or ``user``: whose word the outcome is, from the caller's key). Rows
stored before this revision came from a tenant-level caller when they name no user (an
end-user key always names its user); the others are counted as their user's word.

Features are now stemmed (Snowball) with bigrams from text: stored features and lesson
patterns are normalised again by the rule of this version, so lessons keep matching.
A lesson remembers the version of its pattern it replaced (``previous_id``), so rolling it
back restores that one.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outcome", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reporter", sa.String(length=20), nullable=False, server_default="user"))
        batch_op.add_column(sa.Column("task_text", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("feedback", sa.Text(), nullable=True))
    with op.batch_alter_table("lesson", schema=None) as batch_op:
        batch_op.add_column(sa.Column("previous_id", sa.String(length=32), nullable=True))
    op.execute("UPDATE outcome SET reporter = 'tenant' WHERE user_id IS NULL")
    _renormalise()


def _renormalise() -> None:
    from memworks.pipelines.lessons.features import normalize_features, outcome_features

    conn = op.get_bind()
    outcome = sa.table(
        "outcome", sa.column("id", sa.Integer), sa.column("features_raw", sa.Text), sa.column("features_json", sa.Text)
    )
    for row_id, raw in conn.execute(sa.select(outcome.c.id, outcome.c.features_raw)).all():
        if not raw:  # erased
            continue
        feats = json.dumps(list(outcome_features(json.loads(raw))))
        conn.execute(outcome.update().where(outcome.c.id == row_id).values(features_json=feats))
    lesson = sa.table("lesson", sa.column("lesson_id", sa.String), sa.column("pattern_json", sa.Text))
    for lesson_id, pattern in conn.execute(sa.select(lesson.c.lesson_id, lesson.c.pattern_json)).all():
        new = json.dumps(list(normalize_features(json.loads(pattern))))
        conn.execute(lesson.update().where(lesson.c.lesson_id == lesson_id).values(pattern_json=new))


def downgrade() -> None:
    # Features and patterns stay in the stemmed form: the older rule cannot be recovered from it.
    with op.batch_alter_table("lesson", schema=None) as batch_op:
        batch_op.drop_column("previous_id")
    with op.batch_alter_table("outcome", schema=None) as batch_op:
        batch_op.drop_column("feedback")
        batch_op.drop_column("task_text")
        batch_op.drop_column("reporter")
