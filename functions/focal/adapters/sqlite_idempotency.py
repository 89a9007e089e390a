"""A Powertools idempotency persistence layer on the local SQLite file (the DynamoDB layer's semantics).

`_put_record` succeeds only when the key is absent, its record has expired, or it is INPROGRESS
past its in-progress expiry — the same condition `DynamoDBPersistenceLayer` puts on its PutItem —
checked and written in one statement under the database lock.
"""

from __future__ import annotations

import datetime as dt

from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

from focal.adapters.sqlite_store import SqliteDatabase

_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    id                     TEXT PRIMARY KEY,
    status                 TEXT NOT NULL,
    expiration             INTEGER,
    in_progress_expiration INTEGER,
    data                   TEXT,
    validation             TEXT
);
"""


class SqliteIdempotencyLayer(BasePersistenceLayer):
    def __init__(self, db: SqliteDatabase) -> None:
        super().__init__()
        self._db = db
        with self._db.connection() as conn:
            conn.executescript(_SCHEMA)

    def _get_record(self, idempotency_key: str) -> DataRecord:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT status, expiration, in_progress_expiration, data, validation FROM idempotency WHERE id=?",
                (idempotency_key,),
            ).fetchone()
        if row is None:
            raise IdempotencyItemNotFoundError
        return DataRecord(idempotency_key=idempotency_key, status=row[0], expiry_timestamp=row[1],
                          in_progress_expiry_timestamp=row[2], response_data=row[3], payload_hash=row[4])

    def _put_record(self, data_record: DataRecord) -> None:
        now = dt.datetime.now().timestamp()
        with self._db.connection() as conn:
            cursor = conn.execute(
                "INSERT INTO idempotency (id, status, expiration, in_progress_expiration, data, validation) "
                "VALUES (:id, :status, :expiration, :in_progress, NULL, :validation) "
                "ON CONFLICT (id) DO UPDATE SET status=excluded.status, expiration=excluded.expiration, "
                "in_progress_expiration=excluded.in_progress_expiration, data=NULL, validation=excluded.validation "
                "WHERE idempotency.expiration < :now OR (idempotency.status = :inprogress "
                "AND idempotency.in_progress_expiration IS NOT NULL AND idempotency.in_progress_expiration < :now_ms)",
                {"id": data_record.idempotency_key, "status": data_record.status,
                 "expiration": data_record.expiry_timestamp, "in_progress": data_record.in_progress_expiry_timestamp,
                 "validation": data_record.payload_hash, "now": int(now), "now_ms": int(now * 1000),
                 "inprogress": STATUS_CONSTANTS["INPROGRESS"]},
            )
        if cursor.rowcount != 1:
            raise IdempotencyItemAlreadyExistsError

    def _update_record(self, data_record: DataRecord) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO idempotency (id, status, expiration, in_progress_expiration, data, validation) "
                "VALUES (?, ?, ?, NULL, ?, ?) ON CONFLICT (id) DO UPDATE SET status=excluded.status, "
                "expiration=excluded.expiration, data=excluded.data, validation=excluded.validation",
                (data_record.idempotency_key, data_record.status, data_record.expiry_timestamp,
                 data_record.response_data, data_record.payload_hash),
            )

    def _delete_record(self, data_record: DataRecord) -> None:
        with self._db.connection() as conn:
            conn.execute("DELETE FROM idempotency WHERE id=?", (data_record.idempotency_key,))
