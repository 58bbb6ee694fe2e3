-- The delivery log's retention (YAMEN_WEBHOOK_RETENTION_DAYS): the job queue's sweep deletes the
-- deliveries that succeeded or were given up before it, a bounded batch per sweep, oldest found by
-- this index.  Their attempts go with them (ON DELETE CASCADE).
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished ON webhook_deliveries (finished_at)
    WHERE status <> 'pending';
