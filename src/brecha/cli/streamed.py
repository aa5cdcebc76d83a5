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

With ``--suppress`` or ``--round`` the table is protected without being held whole
(:class:`brecha.publication_pieces.ProtectedPieces`: what is hidden is decided one period at a time, since
secondary suppression balances each total against its members within a period, then applied to the pieces
in the table's order; the totals' rows come last, as in the whole table): the same bytes as the whole
protected table. A ``.json`` output is one JSON document written record by record (:func:`write_json`, the
bytes of ``brecha.io``'s whole-table writer); without ``-o`` the first and last 30 rows are printed as
pandas prints the whole table, only those rows being kept (:func:`print_pieces`).

An ``.xlsx`` output is written whole: a sheet holds at most 1,048,576 rows, so a table with more is refused
before it is computed (:func:`check_sheet_rows`; use a ``.csv`` or ``.parquet``). Splitting it over several
sheets was not chosen: a table cut across sheets cannot be sorted, filtered or summed as one in Excel, and
writing millions of cells to a workbook takes minutes and gigabytes; the error says what to do instead.
"""
from __future__ import annotations

from ..i18n import Catalog
from .common import MSG as COMMON_MSG  # "Saved: PATH (N rows)", as for a table written whole

STREAMED = (".csv", ".parquet", ".json")  # the output formats written piece by piece (and no -o: printed)
EXCEL_ROWS = 1_048_576  # rows of an Excel sheet, the header's included
JSON_RECORDS = 20_000  # records made and written at a time (.json)
PRINTED_ROWS = 60  # without -o: the first and last 30 rows (pandas' display of a longer table)

MSG = Catalog({
    "too_many_rows": ("{rows:,} filas no caben en una hoja de Excel (máximo {limit:,} bajo el encabezado)",
                      "{rows:,} rows do not fit in an Excel sheet (at most {limit:,} below the header)"),
    "too_many_rows_hint": ("escriba un .csv o un .parquet (-o {stem}.csv), o acote la tabla con --years, --region "
                           "o --pool",
                           "write a .csv or a .parquet instead (-o {stem}.csv), or narrow the table with --years, "
                           "--region or --pool"),
})


def order(table, first):
    """The contract columns first, then the others in their order."""
    return table[[c for c in first if c in table.columns] + [c for c in table.columns if c not in first]]


def can_stream(args) -> bool:
    """True when the command's table is written piece by piece: ``-o`` a ``.csv``, ``.parquet`` or
    ``.json``, or no ``-o`` (printed), with or without ``--suppress``/``--round``."""
    out = str(getattr(args, "output", None) or "")
    return not out or out.lower().endswith(STREAMED)


def check_sheet_rows(rows: int, args) -> None:
    """An ``.xlsx`` ``-o`` for more rows than a sheet holds: an InputError naming the file and what to do,
    raised before the table is computed (``rows``: the table's rows, from its plan)."""
    out = str(getattr(args, "output", None) or "")
    if out.lower().endswith(".xlsx") and rows > EXCEL_ROWS - 1:
        from pathlib import Path

        from ..errors import InputError

        raise InputError(MSG("too_many_rows", rows=rows, limit=EXCEL_ROWS - 1), file=out,
                         hint=MSG("too_many_rows_hint", stem=Path(out).stem), argument="output")


def write_streamed(parts, args, first, block_rows: int, before=None) -> int:
    """Compute and write (or print) the command's table piece by piece (module docstring); ``parts``: the
    table's parts (``rates.RateParts``, ``disparity_parts.DisparityParts``); ``before``: called before
    anything is printed, every input error having been raised. Returns the rows written."""
    import itertools

    from .common import print_notes
    from .publish import MSG as PUBLISH_MSG
    from .publish import policy

    rule = policy(args)
    if rule is not None and rule.active:
        from ..publication_pieces import ProtectedPieces

        protected = ProtectedPieces(parts, rule, getattr(args, "publication_panel", None), block_rows)
        if before:
            before()
        if rule.suppress is not None:
            print(PUBLISH_MSG("hidden", k=rule.suppress, primary=protected.primary, secondary=protected.secondary))
        notes, pieces = protected.notes, iter(protected)
    else:
        pieces = (table for table, _ in parts.blocks(block_rows))
        head = next(pieces)  # every input error before anything is printed
        if before:
            before()
        notes, pieces = notes_of(head), itertools.chain([head], pieces)
    print_notes(notes)
    out = getattr(args, "output", None)
    if not out:
        return print_pieces(pieces, first)
    if str(out).lower().endswith(".json"):
        return write_json(pieces, out, first)
    return write_pieces(pieces, out, first)


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

    ``.csv``: each piece as pandas' ``to_csv`` writes it (:func:`brecha.csv_text.write_piece`), the header
    once: the bytes of the whole table's file.
    ``.parquet``: one row group (or more) per piece through ``pyarrow.parquet.ParquetWriter``, the schema of
    the first piece; text columns as plain text, as a whole table is written (``cli.rates.write_result``). Read
    back, the same table as the whole table's file (not the same bytes: that file has one row group per
    million rows).
    """
    from pathlib import Path

    from ..csv_text import write_piece
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
                    write_piece(piece, handle, header=i == 0)
                rows += len(piece)
                del piece
            complete = True
        finally:
            if writer is not None:
                writer.close(complete)  # after a failure: closed without writing more (the file is removed)
    print(COMMON_MSG("saved", path=Path(path), rows=rows))
    return rows


def _text(piece):
    """Categorical columns as plain text (as a whole table is written to a .parquet or .json)."""
    import pandas as pd

    categorical = [c for c in piece.columns if isinstance(piece[c].dtype, pd.CategoricalDtype)]
    return piece.astype({c: "str" for c in categorical}) if categorical else piece


def write_json(pieces, path, first) -> int:
    """The pieces as one JSON document of records, written record by record into a temporary file that
    replaces ``path`` at the end: the bytes of ``brecha.io``'s whole-table ``.json`` (a list of records with
    ``indent=1``: ``[``, the records separated by ``,`` and a new line, ``]``; ``[]`` for none)."""
    import json
    from pathlib import Path

    from ..io import JSON_FORMAT, json_records
    from ..outputs import open_atomic

    rows = 0
    with open_atomic(path, "w", encoding="utf-8") as handle:
        for piece in pieces:
            piece = _text(published_piece(piece, first))
            # a record is a dict of Python objects (about 2 kB): a few thousand at a time
            for start in range(0, len(piece), JSON_RECORDS):
                part = piece.iloc[start:start + JSON_RECORDS]
                text = json.dumps(json_records(part), **JSON_FORMAT)  # "[\n {...},\n {...}\n]"
                handle.write(("[\n" if rows == 0 else ",\n") + text[2:-2])
                rows += len(part)
                del part, text
            del piece
        handle.write("\n]" if rows else "[]")
    print(COMMON_MSG("saved", path=Path(path), rows=rows))
    return rows


def print_pieces(pieces, first) -> int:
    """Print the table as ``cli.common.write_output`` prints a whole one (pandas' ``to_string`` with at most
    60 rows: the first and last 30), keeping only those rows: the pieces go by, the first 30 rows and the
    last 30 stay. A longer table is printed from its first 30 rows, one row of the middle (never shown:
    pandas drops it to fit the 60) and its last 30."""
    import pandas as pd

    half = PRINTED_ROWS // 2
    head, tail, rows = [], [], 0
    for piece in pieces:
        piece = published_piece(piece, first)
        if sum(map(len, head)) < PRINTED_ROWS + 1:
            head.append(piece.iloc[:PRINTED_ROWS + 1 - sum(map(len, head))])
        tail = [*tail, piece.iloc[-half:]]
        while len(tail) > 1 and sum(map(len, tail[1:])) >= half:
            tail.pop(0)
        rows += len(piece)
    if rows <= PRINTED_ROWS + 1:
        shown = pd.concat(head, ignore_index=True)
    else:
        shown = pd.concat([*head, *tail], ignore_index=True)
        shown = pd.concat([shown.iloc[:half + 1], shown.iloc[-half:]], ignore_index=True)
    with pd.option_context("display.max_rows", 60, "display.width", 160, "display.max_columns", 20):
        print(shown.to_string(index=False, max_rows=60))
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
