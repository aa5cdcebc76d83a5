"""Writing a big result table to a ``.csv`` or ``.parquet`` output piece by piece, so that it is never held
whole (issue 19).

``brecha disparity`` at 173,000 units x 20 years makes 13.8 million rows (1.7 GB as a DataFrame, more than
twice that while pandas formats it); ``brecha rates`` 3.5 million. When the output is a ``.csv`` or a
``.parquet`` and nothing is suppressed or rounded, the command computes its table in pieces
(``disparity_blocks``, ``rates_blocks``) and :func:`write_pieces` appends each one to the output as soon as
it is made:

- every piece gets the reliability column exactly as the whole table would (``publication_tables``
  ``add_reliability``, which works row by row), the contract columns first (:func:`order`), and the header
  only once: a ``.csv`` is byte for byte the file of the whole table; a ``.parquet`` reads back as the same
  table (its row groups differ);
- the pieces go into one temporary file beside the output (:func:`brecha.outputs.open_atomic`) that
  replaces it only when the last piece is written: an error, a full disk or Ctrl-C in the middle leaves the
  earlier file (or none) and no partial one;
- the notes are printed before the file is written, as for a whole table, and "Saved: PATH (N rows)"
  counts every row.

What does not stream, and why (docs/performance.md): ``--suppress`` and ``--round`` (the totals a protected
table is published with sum every unit of a period, and the secondary suppression looks at the whole tree of
cells, so the table is protected whole), ``.xlsx`` and ``.json`` (written whole; a sheet holds at most
1,048,576 rows anyway) and no ``-o`` (the first and last rows are printed).
"""
from __future__ import annotations

from .common import MSG as COMMON_MSG  # "Saved: PATH (N rows)", as for a table written whole

STREAMED = (".csv", ".parquet")  # the output formats written piece by piece


def order(table, first):
    """The contract columns first, then the others in their order."""
    return table[[c for c in first if c in table.columns] + [c for c in table.columns if c not in first]]


def can_stream(args) -> bool:
    """True when the command's table may be written piece by piece: a ``.csv`` or ``.parquet`` ``-o``
    without ``--suppress`` or ``--round``."""
    from .publish import policy

    out = str(getattr(args, "output", None) or "")
    rule = policy(args)
    return out.lower().endswith(STREAMED) and not (rule is not None and rule.active)


def published_piece(piece, first):
    """A piece as the whole table would be written: the reliability column, the contract columns first,
    marked published (``cli.publish``; the attributes a ``.parquet`` keeps)."""
    from ..publication_tables import add_reliability

    piece = order(add_reliability(piece), first)
    piece.attrs["published"] = True
    return piece


def notes_of(piece) -> list[str]:
    """The notes printed before the table (the table's own, then the reliability column's)."""
    return list(dict.fromkeys(published_piece(piece.iloc[0:0], []).attrs.get("notes", ())))


def write_pieces(pieces, path, first) -> int:
    """Write the pieces (DataFrames with the same columns) one after another into the ``.csv`` or
    ``.parquet`` ``path``, atomically, each as :func:`published_piece` makes it; print "Saved: PATH (N rows)"
    and return N.

    ``.csv``: pandas' ``to_csv`` of each piece, the header once: the bytes of the whole table's file.
    ``.parquet``: one row group (or more) per piece through ``pyarrow.parquet.ParquetWriter``, the schema of
    the first piece; text columns as plain text, as a whole table is written (``cli.rates.write_result``). Read
    back, the same table as the whole table's file (not the same bytes: that file has one row group per
    million rows).
    """
    from pathlib import Path

    from ..outputs import open_atomic

    rows = 0
    parquet = str(path).lower().endswith(".parquet")
    with open_atomic(path, "wb" if parquet else "w", **({} if parquet else dict(encoding="utf-8", newline=""))) \
            as handle:
        writer = _ParquetPieces(handle) if parquet else None
        complete = False
        try:
            for i, piece in enumerate(pieces):
                piece = published_piece(piece, first)
                if parquet:
                    writer.add(piece)
                else:
                    piece.to_csv(handle, index=False, header=i == 0)
                rows += len(piece)
                del piece
            complete = True
        finally:
            if writer is not None:
                writer.close(complete)  # after a failure: closed without writing more (the file is removed)
    print(COMMON_MSG("saved", path=Path(path), rows=rows))
    return rows


class _ParquetPieces:
    """Pieces appended to one Parquet file as pandas' ``to_parquet`` writes a whole table (text columns as
    plain text, the table's ``attrs`` in the schema as ``PANDAS_ATTRS``, snappy), one row group per piece.

    A table of one piece is the whole table's file byte for byte. A bigger one reads back as the same
    table, but its bytes differ: the whole table's file has row groups of 1,048,576 rows, and gathering a
    piece's rows into row groups that big costs more memory than the bar allows (2.6 GB at 34,600 units x
    20 years: a disparity row holds the reference's label, about 300 characters, as plain text)."""

    def __init__(self, handle):
        self.handle, self.writer = handle, None

    def add(self, piece) -> None:
        import json

        import pandas as pd
        import pyarrow as pa

        categorical = [c for c in piece.columns if isinstance(piece[c].dtype, pd.CategoricalDtype)]
        if categorical:
            piece = piece.astype({c: "str" for c in categorical})
        table = pa.Table.from_pandas(piece, preserve_index=False)
        if self.writer is None:
            import pyarrow.parquet as pq

            if piece.attrs:  # as pandas' to_parquet keeps them
                table = table.replace_schema_metadata({**table.schema.metadata,
                                                       "PANDAS_ATTRS": json.dumps(piece.attrs)})
            self.writer = pq.ParquetWriter(self.handle, table.schema, compression="snappy")
        elif not table.schema.equals(self.writer.schema, check_metadata=False):
            table = table.cast(self.writer.schema)  # e.g. a column without a value in this piece
        self.writer.write_table(table)

    def close(self, complete: bool = True) -> None:
        if self.writer is not None:
            self.writer.close()
