"""File handling for `migrate`: find the inputs, read them faithfully, write outputs atomically.

Bytes in, bytes out: a file is decoded with the encoding Python itself would use (PEP 263
cookie or BOM, default UTF-8) and without newline translation, so a file the migrator leaves
alone can be written back byte for byte, CRLF line endings and BOM included.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

from torchlift.migrator.result import InputError

STDIN = "-"
EMPTY = "empty file"

# Directories never worth walking into (black's defaults, plus caches).
SKIPPED_DIRS = frozenset(
    {"__pycache__", "__pypackages__", "venv", "node_modules", "build", "dist", "buck-out"}
)


@dataclass(frozen=True)
class Source:
    """One Python file to migrate. `root` is the directory PATH it was found under, if any."""

    path: str
    root: str | None = None


class SourceError(Exception):
    """An input that cannot be processed; carries the one-line message for the user."""

    def __init__(self, error: InputError):
        super().__init__(str(error))
        self.error = error


def collect_sources(paths: list[str]) -> tuple[list[Source], list[InputError]]:
    """Expand PATHs (files, directories walked recursively, `-`) in a deterministic order.

    Missing paths and directories without Python files become errors; the rest is still returned.
    """
    sources: list[Source] = []
    errors: list[InputError] = []
    seen: set[str] = set()

    def add(source: Source) -> None:
        key = source.path if source.path == STDIN else os.path.realpath(source.path)
        if key not in seen:
            seen.add(key)
            sources.append(source)

    for path in paths:
        if path == STDIN:
            add(Source(STDIN))
        elif os.path.isdir(path):
            found = list(walk_python_files(path))
            if not found:
                errors.append(InputError(path, 1, "no Python files found in directory"))
            for file in found:
                add(Source(file, root=path))
        elif os.path.exists(path):
            add(Source(path))
        else:
            errors.append(InputError(path, 1, "no such file or directory"))
    return sources, errors


def walk_python_files(directory: str):
    """Yield the .py files under `directory`, sorted, skipping hidden and build directories."""
    for parent, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py") and not name.startswith("."):
                yield os.path.join(parent, name)


def decode_source(data: bytes, path: str) -> tuple[str, str]:
    """Return (text, encoding) for the bytes of a Python file, or raise SourceError."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "invalid or missing encoding declaration" not in str(exc):
            # an unknown codec in the coding cookie, or a BOM with another cookie
            raise SourceError(InputError(path, getattr(exc, "lineno", None) or 1, str(exc)))
        encoding = "utf-8"  # bad bytes in the first two lines: say where, below
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        cause = f"cannot decode byte {data[exc.start:exc.start + 1]!r} as {encoding}"
        raise SourceError(InputError(path, line, cause)) from None
    if not text.strip():
        raise SourceError(InputError(path, 1, EMPTY))
    return text, encoding


def read_source(path: str) -> tuple[str, str]:
    """Read and decode one file; every failure is a SourceError naming the file."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SourceError(InputError(path, 1, f"cannot read ({exc.strerror or exc})")) from None
    return decode_source(data, path)


def encode_source(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def write_atomic(path: str, data: bytes, *, mode_from: str | None = None) -> None:
    """Write `data` to `path` via a temporary file in the same directory and os.replace.

    The file mode is kept (or copied from `mode_from`), symlinks are written through, and on
    any failure the destination is left exactly as it was. Raises SourceError naming `path`.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    tmp = None
    try:
        os.makedirs(directory, exist_ok=True)
        mode = _file_mode(target) or (_file_mode(mode_from) if mode_from else None)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:  # a new file: the usual mode, as open() would give it
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise SourceError(InputError(path, 1, f"cannot write ({exc.strerror or exc})")) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _file_mode(path: str) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def output_path(source: Source, output: str) -> str:
    """Where `-o OUTPUT` puts `source`: mirrored under OUTPUT for a directory input, OUTPUT
    itself for a file (or OUTPUT/<name> when OUTPUT is an existing directory)."""
    if source.root is not None:
        return os.path.join(output, os.path.relpath(source.path, source.root))
    if source.path != STDIN and os.path.isdir(output):
        return os.path.join(output, os.path.basename(source.path))
    return output
