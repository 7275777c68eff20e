"""Vectorized conversion of one Arrow column to the studio's numpy types, with a per-row validity mask."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_FLOAT_RE = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"
_IN = {"in", "incoming", "+1", "1", "received", "mt"}
_OUT = {"out", "outgoing", "-1", "sent", "mo"}


def as_plain(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A dictionary-decoded, single-chunk array."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    return values


def to_float(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """float64 values and whether each row held a finite number (blank, NaN and text are not)."""
    values = as_plain(values)
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        try:
            values = pc.cast(values, pa.float64())
        except pa.ArrowInvalid:
            numeric = pc.fill_null(pc.match_substring_regex(values, _FLOAT_RE), False)
            values = pc.cast(pc.if_else(numeric, pc.utf8_trim_whitespace(values), None), pa.float64())
    elif not pa.types.is_floating(values.type):
        values = pc.cast(values, pa.float64())
    out = values.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    return out, np.isfinite(out)


def to_ids(values: pa.Array) -> tuple[pa.DictionaryArray, np.ndarray]:
    """Ids as a string dictionary array holding only the entries its rows use, and whether each row has a
    non-blank id."""
    if pa.types.is_dictionary(values.type) and len(values.dictionary) > len(values):
        values = used_entries(values)
    if not pa.types.is_dictionary(values.type):
        if not pa.types.is_string(values.type):
            values = pc.cast(values, pa.string())
        values = pc.dictionary_encode(values)
    if not pa.types.is_string(values.dictionary.type):
        values = pa.DictionaryArray.from_arrays(values.indices, pc.cast(values.dictionary, pa.string()))
    blank = pc.equal(pc.utf8_trim_whitespace(values.dictionary), "").to_numpy(zero_copy_only=False)
    idx = values.indices.to_numpy(zero_copy_only=False)
    ok = values.is_valid().to_numpy(zero_copy_only=False)
    if blank.any():
        ok &= ~blank[np.where(ok, idx, 0).astype(np.int64)]
    return values, ok


def used_entries(values: pa.DictionaryArray) -> pa.DictionaryArray:
    """The same ids with a dictionary of the entries the rows use. A Parquet reader gives each batch of a row
    group the group's whole dictionary (which grows once a column falls back to plain pages): kept per
    batch, those copies grow as batches × group size and could overflow one string array when joined."""
    indices = values.indices
    used = np.zeros(len(values.dictionary), dtype=bool)
    used[pc.drop_null(indices).to_numpy(zero_copy_only=False)] = True
    position = (np.cumsum(used, dtype=np.int64) - 1).astype(np.int32)
    return pa.DictionaryArray.from_arrays(
        pc.take(pa.array(position), indices), values.dictionary.filter(pa.array(used))
    )


def dictionary_codes(
    values: pa.DictionaryArray, keys: pa.Array, codes: np.ndarray, missing: int = -1
) -> np.ndarray:
    """int32 ``codes[i]`` for each row whose id is ``keys[i]``; ``missing`` for null or unknown ids."""
    pos = pc.fill_null(pc.index_in(values.dictionary, value_set=keys), -1).to_numpy(zero_copy_only=False)
    per_entry = np.where(pos >= 0, np.asarray(codes)[np.maximum(pos, 0)] if len(codes) else missing, missing)
    idx = values.indices.to_numpy(zero_copy_only=False)
    valid = values.is_valid().to_numpy(zero_copy_only=False)
    if len(per_entry) == 0:
        return np.full(len(values), missing, dtype=np.int32)
    return np.where(valid, per_entry[np.where(valid, idx, 0).astype(np.int64)], missing).astype(np.int32)


def to_direction(values: pa.Array) -> np.ndarray:
    """int8 +1 incoming, -1 outgoing, 0 unknown / blank."""
    ids, _ = to_ids(values)
    lowered = pa.DictionaryArray.from_arrays(
        ids.indices, pc.utf8_lower(pc.utf8_trim_whitespace(ids.dictionary))
    )
    keys = pa.array([*_IN, *_OUT])
    return dictionary_codes(lowered, keys, np.asarray([1] * len(_IN) + [-1] * len(_OUT)), 0).astype(np.int8)
