"""The game record: the hash chain over stored events, the NDJSON export, offline verification and
narration.  Needs neither a server nor a database (``yamen verify``, ``yamen replay``)."""
