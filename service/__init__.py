"""The imperative shell around ``domain/``: HTTP, Postgres, Redis, auth, logging, CLI."""
