"""The event store's schema: the plain-SQL migrations of ``service/migrations`` and the job queue's
schema, applied in order under one lock, each version recorded in ``schema_migrations``."""

from __future__ import annotations

import importlib.resources

from .datastore import Datastore


def migration_versions() -> list[str]:
    """Every version :meth:`Migrations.migrate` of this build records in ``schema_migrations``, in
    the order it applies them: one per ``service/migrations/*.sql`` file (the name without ``.sql``,
    by name), then the job queue's schema (``service.infra.jobs.SCHEMA_VERSION``)."""
    from .jobs import SCHEMA_VERSION

    files = importlib.resources.files("service.migrations").iterdir()
    names = sorted(f.name for f in files if f.name.endswith(".sql"))
    return [name.removesuffix(".sql") for name in names] + [SCHEMA_VERSION]


class Migrations:
    """Applies and reports the migrations, on the datastore's connections."""

    def __init__(self, datastore: Datastore) -> None:
        self.datastore = datastore

    async def migrate(self) -> list[str]:
        """Apply the plain-SQL migrations not yet applied; returns the versions applied now."""
        from .jobs import SCHEMA_VERSION, procrastinate_schema

        applied_now = []
        async with self.datastore.connection() as conn, conn.transaction():
            # One migrator at a time, even with several replicas starting together.
            await conn.execute("SELECT pg_advisory_xact_lock(727364)")
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            cur = await conn.execute("SELECT version FROM schema_migrations")
            done = {r[0] for r in await cur.fetchall()}
            for version in migration_versions():
                if version in done:
                    continue
                if version != SCHEMA_VERSION:
                    sql = importlib.resources.files("service.migrations") / f"{version}.sql"
                    await conn.execute(sql.read_text())
                else:
                    # The job queue's tables (service.infra.jobs), from the pinned Procrastinate's own file.
                    cur = await conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL")
                    present = await cur.fetchone()
                    if not (present and present[0]):
                        await conn.execute(procrastinate_schema())
                await conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied_now.append(version)
        return applied_now

    async def pending_migrations(self) -> list[str]:
        """The versions of :func:`migration_versions` not in ``schema_migrations`` yet, in the order
        :meth:`migrate` would apply them (all of them when it never ran); applies nothing.  A version
        recorded there that this build does not know (a newer release migrated) is no concern:
        migrations expand, then contract."""
        async with self.datastore.connection() as conn:
            cur = await conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
            present = await cur.fetchone()
            done: set[str] = set()
            if present and present[0]:
                cur = await conn.execute("SELECT version FROM schema_migrations")
                done = {r[0] for r in await cur.fetchall()}
        return [version for version in migration_versions() if version not in done]
