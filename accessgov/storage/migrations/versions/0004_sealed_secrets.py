"""Signing secrets sealed at rest: listener HMAC secrets (with a previous secret valid for a grace period) and
the page-token key are AES-GCM ciphertexts under the keyring (`accessgov.keys`), never plaintext.

The data step runs here, in Python: plaintext rows of an older database are sealed under the process's keyring
(`ACCESSGOV_SECRET_KEY` or the key file), which is loaded only when there is something to seal.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("listeners") as batch:
        batch.alter_column("hmac_secret", new_column_name="hmac_secret_sealed", existing_type=sa.String(512))
        batch.add_column(sa.Column("previous_hmac_secret_sealed", sa.String(512), nullable=True))
        batch.add_column(sa.Column("previous_secret_expires_at", sa.DateTime(timezone=True), nullable=True))
    from accessgov.storage.sealing import seal_plaintext_secrets

    seal_plaintext_secrets(op.get_bind())


def downgrade() -> None:
    from accessgov.storage.sealing import unseal_secrets

    unseal_secrets(op.get_bind())
    with op.batch_alter_table("listeners") as batch:
        batch.drop_column("previous_secret_expires_at")
        batch.drop_column("previous_hmac_secret_sealed")
        batch.alter_column("hmac_secret_sealed", new_column_name="hmac_secret", existing_type=sa.String(512))
