"""The replay warehouse: Arrow tables → Parquet files per import batch, a manifest, DuckDB views.

See ``docs/warehouse.md`` for every table and column, :mod:`pipeline.warehouse.tables` for
the column definition, the schemas and the row buffer (no game), ``rows_big2`` /
``rows_doudizhu`` for each game's row filling (``tables.ROWS``), and
:mod:`pipeline.warehouse.store` for batches, the manifest, the DuckDB connection and
:meth:`Warehouse.verify`.
"""

from pipeline.warehouse.store import (
    Added,
    Batch,
    BatchEntry,
    BatchSummary,
    ManifestFile,
    Problem,
    Warehouse,
    WarehouseError,
    is_disk_full,
    resolve_dir,
)
from pipeline.warehouse.tables import (
    GRAIN,
    SCHEMAS,
    RejectLike,
    ReplayedGameLike,
    RowBuffer,
    Table,
    game_tables,
)

__all__ = [
    "GRAIN",
    "SCHEMAS",
    "Added",
    "Batch",
    "BatchEntry",
    "BatchSummary",
    "ManifestFile",
    "Problem",
    "RejectLike",
    "ReplayedGameLike",
    "RowBuffer",
    "Table",
    "Warehouse",
    "WarehouseError",
    "game_tables",
    "is_disk_full",
    "resolve_dir",
]
