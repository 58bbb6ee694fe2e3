"""Yamen's performance benchmark: ``python -m bench`` (see docs/performance.md).

It starts the real service with its production ASGI server against a fresh Postgres database and
Redis, drives it over loopback from a separate load-generator process, measures the ceilings
(echo endpoint, raw inserts) in the same run, and prints one table of medians and target ratios.
"""
