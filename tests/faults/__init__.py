"""The fault suite: real disposable Postgres, Redis and ``yamen serve`` processes, bounded load, and
one injected fault per test (docs/reliability.md describes the method and the bounds)."""
