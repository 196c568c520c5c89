"""One data layer (SQLAlchemy 2 + Alembic) for SQLite (default) and PostgreSQL."""
