"""Adapters to the outside world: the Postgres event store, the Redis snapshot cache and notice
board, metrics and logging.  Driver errors stop here: nothing above imports psycopg or redis."""
