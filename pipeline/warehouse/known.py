"""The games a warehouse already holds, in 24 bytes a game: what an import checks every game id
against (duplicate or conflict) without holding every id and hash as Python strings; and the
rejects it holds, in 24 bytes a reject (:class:`KnownRejects`).

A game id is kept as its 128-bit BLAKE2b digest (two ``uint64``; two ids colliding is beyond
reach, about 10^-25 for ten million games) and its content hash as its first 64 bits, the 16
hex digits a conflict message quotes. Keys live in two sorted levels of NumPy arrays: a
large one and a small one that takes each import chunk's new games and is merged into the
large one when it passes a sixteenth of it (its keys inserted where they sort), so a chunk
costs O(chunk · log n). The large level is cut into buckets by the top bits of the id's
digest (uniform: BLAKE2b), and a merge rewrites one bucket at a time: memory stays near 24 B
a game, a merge adding a bucket's worth, not a column of the whole index (a dict of id and
hash strings takes about 200). Lookups and additions take a chunk of ids at once.

>>> known = KnownGames(["g1"], ["ab" * 32])
>>> known.lookup(["g1", "g2"]), len(known)
(['abababababababab', None], 1)
>>> known.add(["g2"], ["cd" * 32])
>>> known.lookup(["g2"])
['cdcdcdcdcdcdcdcd']
>>> verdicts, stored = known.judge(game_keys(["g1", "g2", "g3"], ["ab" * 32, "ef" * 32, "00" * 32]))
>>> verdicts.tolist(), f"{int(stored[1]):016x}"
([1, 2, 0], 'cdcdcdcdcdcdcdcd')
>>> seen = KnownRejects()
>>> seen.add([reject_key("a.jsonl", 3, "E_JSON", "invalid JSON")])
>>> reject_key("a.jsonl", 3, "E_JSON", "invalid JSON") in seen, len(seen)
(True, 1)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

#: What :meth:`KnownGames.judge` says of a game: a new id, an id known with the same content
#: hash (a duplicate), an id known with another (a conflict).
NEW, SAME, OTHER = 0, 1, 2

#: The small level is merged into the large one past this size or a sixteenth of the large one.
MERGE_AT = 65_536

#: The large level is held as ``2 ** BUCKET_BITS`` buckets by the top bits of the id digest's
#: high word: a merge's extra memory is one bucket's columns (1/64 of the index).
BUCKET_BITS = 6
_SHIFT = np.uint64(64 - BUCKET_BITS)
_EDGES = np.arange(1, 1 << BUCKET_BITS, dtype=np.uint64) << _SHIFT  # each bucket's first high word

U64 = npt.NDArray[np.uint64]


def _id_keys(game_ids: Sequence[str]) -> tuple[U64, U64]:
    digests = b"".join(
        hashlib.blake2b(g.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        for g in game_ids
    )
    pairs = np.frombuffer(digests, dtype="<u8").reshape(-1, 2).astype(np.uint64)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


def _prefixes(content_hashes: Sequence[str]) -> U64:
    raw = b"".join(bytes.fromhex(h[:16]) for h in content_hashes)
    return np.frombuffer(raw, dtype=">u8").astype(np.uint64)


def game_keys(game_ids: Sequence[str], content_hashes: Sequence[str]) -> U64:
    """The keys of games, one row each: the two words of the id's digest and the content
    hash's first 64 bits (a ``(n, 3)`` array, 24 bytes a game: what an import worker hands
    back for the games it wrote, instead of their ids and hashes).

    >>> game_keys(["g1"], ["ab" * 32]).shape
    (1, 3)
    """
    hi, lo = _id_keys(game_ids)
    return np.stack([hi, lo, _prefixes(content_hashes)], axis=1)


def hex_prefix(prefix: int | np.uint64) -> str:
    """A content hash's first 64 bits as the 16 hex digits a conflict message quotes.

    >>> hex_prefix(0xAB)
    '00000000000000ab'
    """
    return f"{int(prefix):016x}"


class _Level:
    """Keys sorted by their high word, with the low word and the content prefix alongside."""

    def __init__(self, hi: U64, lo: U64, prefix: U64, *, ordered: bool = False) -> None:
        if ordered:  # sorted already (a saved level)
            self.hi, self.lo, self.prefix = hi, lo, prefix
            return
        order = np.argsort(hi, kind="stable")
        self.hi, self.lo, self.prefix = hi[order], lo[order], prefix[order]

    def __len__(self) -> int:
        return len(self.hi)

    def buckets(self) -> list[_Level]:
        """This level's keys by bucket (views, in order: each bucket's high words are above the
        last one's)."""
        bounds = [0, *np.searchsorted(self.hi, _EDGES).tolist(), len(self.hi)]
        return [
            _Level(self.hi[a:b], self.lo[a:b], self.prefix[a:b], ordered=True)
            for a, b in pairwise(bounds)
        ]

    def merged(self, other: _Level) -> _Level:
        """Both levels' keys in a new level (``other``'s inserted where they sort)."""
        out = _Level(self.hi, self.lo, self.prefix, ordered=True)
        out.absorb(other)
        return out

    def absorb(self, other: _Level) -> None:
        """Insert ``other``'s keys where they sort, one column at a time (each old column is
        freed as its new one is made)."""
        if not len(other):
            return
        at = np.searchsorted(self.hi, other.hi, side="right")
        self.hi = np.insert(self.hi, at, other.hi)
        self.lo = np.insert(self.lo, at, other.lo)
        self.prefix = np.insert(self.prefix, at, other.prefix)

    def find(self, hi: U64, lo: U64, out: U64, found: npt.NDArray[np.bool_]) -> None:
        """Fill ``out``/``found`` for the keys found here (rows already found are left alone)."""
        if not len(self.hi):
            return
        at = np.minimum(np.searchsorted(self.hi, hi), len(self.hi) - 1)
        same_hi = self.hi[at] == hi
        hit = same_hi & (self.lo[at] == lo) & ~found
        out[hit] = self.prefix[at[hit]]
        found |= hit
        # two ids sharing a high word (about 10^-7 for a million games): look along the run
        for row in np.flatnonzero(same_hi & ~found):
            i = int(at[row])
            while i < len(self.hi) and self.hi[i] == hi[row]:
                if self.lo[i] == lo[row]:
                    out[row], found[row] = self.prefix[i], True
                    break
                i += 1


class _Buckets:
    """The large level: its keys as one :class:`_Level` per bucket (:data:`BUCKET_BITS`)."""

    def __init__(self, level: _Level) -> None:
        self.parts = level.buckets()

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def absorb(self, other: _Level) -> None:
        """Insert ``other``'s keys, one bucket at a time."""
        for part, more in zip(self.parts, other.buckets(), strict=True):
            part.absorb(more)

    def find(self, hi: U64, lo: U64, out: U64, found: npt.NDArray[np.bool_]) -> None:
        """:meth:`_Level.find`, each key looked for in its own bucket."""
        which = (hi >> _SHIFT).astype(np.intp)
        order = np.argsort(which, kind="stable")
        bounds = np.searchsorted(which[order], np.arange(len(self.parts) + 1))
        for b in np.flatnonzero(np.diff(bounds)).tolist():
            if not len(self.parts[b]):
                continue
            rows = order[bounds[b] : bounds[b + 1]]
            part_out, part_found = out[rows], found[rows]
            self.parts[b].find(hi[rows], lo[rows], part_out, part_found)
            out[rows], found[rows] = part_out, part_found

    def write(self, fh: _Digesting) -> None:
        """The keys as one sorted ``(3, n)`` ``uint64`` array in NumPy's ``.npy`` format,
        written a bucket at a time (no copy of the index)."""
        header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.uint64))}
        np.lib.format.write_array_header_1_0(
            fh, {**header, "fortran_order": False, "shape": (3, len(self))}
        )
        for column in ("hi", "lo", "prefix"):
            for part in self.parts:
                fh.write(np.ascontiguousarray(getattr(part, column), np.uint64).data)


class KnownGames:
    """Game id → the first 64 bits of its content hash, for every game stored or being stored."""

    def __init__(self, game_ids: Sequence[str] = (), content_hashes: Sequence[str] = ()) -> None:
        empty = np.empty(0, np.uint64)
        self._large = _Buckets(_Level(empty, empty, empty))
        self._small = _Level(empty, empty, empty)
        self.add(game_ids, content_hashes)

    def __len__(self) -> int:
        return len(self._large) + len(self._small)

    def _find(self, hi: U64, lo: U64) -> tuple[U64, npt.NDArray[np.bool_]]:
        out = np.zeros(len(hi), np.uint64)
        found = np.zeros(len(hi), np.bool_)
        self._large.find(hi, lo, out, found)
        self._small.find(hi, lo, out, found)
        return out, found

    def lookup(self, game_ids: Sequence[str]) -> list[str | None]:
        """Per id: the first 16 hex digits of its stored content hash, or None for a new id."""
        out, found = self._find(*_id_keys(game_ids))
        return [hex_prefix(v) if f else None for v, f in zip(out, found, strict=True)]

    def judge(self, keys: U64) -> tuple[npt.NDArray[np.int8], U64]:
        """The one rule for games (:func:`game_keys` rows): per game ``NEW``, ``SAME`` (its id
        is known with this content hash: a duplicate) or ``OTHER`` (known with another: a
        conflict), and the known content prefix (0 for a new id). Vectorised: an import's
        workers judge their chunks against the warehouse's games, its batch each chunk's
        new games against those of the batch (:class:`pipeline.warehouse.store.Batch`)."""
        keys = keys.reshape(-1, 3)
        known, found = self._find(keys[:, 0], keys[:, 1])
        verdicts = np.where(found, np.where(known == keys[:, 2], SAME, OTHER), NEW)
        return verdicts.astype(np.int8), known

    def add(self, game_ids: Sequence[str], content_hashes: Sequence[str]) -> None:
        """Remember new games (ids not known yet: the caller checked with :meth:`lookup`)."""
        if game_ids:
            self.add_keys(game_keys(game_ids, content_hashes))

    def add_keys(self, keys: U64) -> None:
        """:meth:`add` for :func:`game_keys` rows."""
        keys = keys.reshape(-1, 3)
        if not len(keys):
            return
        self._small = self._small.merged(_Level(keys[:, 0], keys[:, 1], keys[:, 2]))
        if len(self._small) >= max(MERGE_AT, len(self._large) // 16):
            self._merge()

    def _merge(self) -> None:
        self._large.absorb(self._small)  # in place: the large level is this index's own
        empty = np.empty(0, np.uint64)
        self._small = _Level(empty, empty, empty)

    def save(self, path: Path) -> str:
        """Write the index to ``path`` (one sorted ``(3, n)`` array, NumPy's ``.npy``): what
        :meth:`load` maps read-only in another process; the BLAKE2b of the file's bytes
        (:func:`file_digest` of it). Not fsynced: the caller's to do when it is to last."""
        self._merge()
        with path.open("wb") as raw:
            fh = _Digesting(raw)
            self._large.write(fh)
        return fh.digest.hexdigest()

    @classmethod
    def load(cls, path: Path) -> KnownGames:
        """An index :meth:`save` wrote, memory-mapped read-only (processes share its pages).

        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "known.npy"
        >>> _ = KnownGames(["g1"], ["ab" * 32]).save(path)
        >>> KnownGames.load(path).lookup(["g1", "g2"])
        ['abababababababab', None]
        """
        data = np.load(path, mmap_mode="r")
        out = cls()
        out._large = _Buckets(_Level(data[0], data[1], data[2], ordered=True))
        return out


class _Digesting:
    """A file written through, its bytes digested on the way (BLAKE2b)."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.digest = hashlib.blake2b()

    def write(self, data: bytes | memoryview) -> int:
        self.digest.update(data)
        return self.fh.write(data)


def file_digest(path: Path) -> str:
    """The BLAKE2b of a file's bytes, as :meth:`KnownGames.save` answers it.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "known.npy"
    >>> KnownGames(["g1"], ["ab" * 32]).save(path) == file_digest(path)
    True
    """
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, hashlib.blake2b).hexdigest()


def reject_key(file: str | None, line: int | None, code: str, message: str) -> bytes:
    """The 128-bit BLAKE2b digest of a reject's (file, line, code, message): what tells a
    reject stored already from a new one. Each field is length-prefixed, so no two keys
    share a digest input.

    >>> len(reject_key(None, None, "E_CONFLICT", "game 'g1' is already stored"))
    16
    >>> reject_key("a", 1, "E_X", "m") == reject_key("a", 1, "E_X", "m ")
    False
    """
    parts = ("" if file is None else f"f{file}", "" if line is None else str(line), code, message)
    text = "".join(f"{len(p)}:{p}" for p in parts)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _split(keys: Sequence[bytes]) -> tuple[U64, U64]:
    pairs = np.frombuffer(b"".join(keys), dtype="<u8").reshape(-1, 2).astype(np.uint64)
    return pairs[:, 0].copy(), pairs[:, 1].copy()


class KnownRejects:
    """A set of :func:`reject_key` digests: 24 bytes a key in sorted NumPy arrays, the newest
    ones in a small Python set (merged in past ``MERGE_AT``), so that adding one key at a
    time stays cheap. A set of (file, line, code, message) tuples took about 400 bytes a
    reject (1.3 GB for 2 million)."""

    def __init__(self, keys: Iterable[bytes] = ()) -> None:
        empty = np.empty(0, np.uint64)
        self._large = _Level(empty, empty, empty)
        self._recent: set[bytes] = set()
        self.add(keys)

    def __len__(self) -> int:
        return len(self._large) + len(self._recent)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, bytes):
            return False
        return key in self._recent or self.contains([key])[0]

    def contains(self, keys: Sequence[bytes]) -> list[bool]:
        """Per key: whether it is in the set (one vectorised look-up for many keys)."""
        if not keys:
            return []
        hi, lo = _split(keys)
        out = np.zeros(len(keys), np.uint64)
        found = np.zeros(len(keys), np.bool_)
        self._large.find(hi, lo, out, found)
        return [bool(f) or k in self._recent for k, f in zip(keys, found, strict=True)]

    def add(self, keys: Iterable[bytes]) -> None:
        """Remember keys (adding a known key again is harmless but costs 24 bytes)."""
        self._recent.update(keys)
        if len(self._recent) >= max(MERGE_AT, len(self._large) // 8):
            recent = sorted(self._recent)
            hi, lo = _split(recent)
            self._large = self._large.merged(_Level(hi, lo, np.zeros(len(recent), np.uint64)))
            self._recent = set()
