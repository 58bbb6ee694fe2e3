"""Development conveniences: the embedded Postgres of the quick start."""
