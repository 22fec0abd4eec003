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

from torchlift.migrator.result import InputError

STDIN = "-"
EMPTY = "empty file"

# Directories never worth walking into (black's defaults, plus caches and installed packages).
SKIPPED_DIRS = frozenset(
    {
        "__pycache__",
        "__pypackages__",
        "venv",
        "node_modules",
        "build",
        "dist",
        "buck-out",
        "site-packages",
        "dist-packages",
    }
)
NOT_REGULAR = "not a regular file"
READ_ONLY = "cannot write (read-only file)"


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


def collect_sources(
    paths: list[str], skip_dir: str | None = None
) -> tuple[list[Source], list[InputError]]:
    """Expand PATHs (files, directories walked recursively, `-`) in a deterministic order.

    Missing paths and directories without Python files become errors; the rest is still returned.
    `skip_dir`: a directory the walks leave out (the `-o` folder, when it is inside an input).
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
            found = list(walk_python_files(path, skip_dir))
            if not found:
                errors.append(InputError(path, 1, "no Python files found in directory"))
            for file in found:
                add(Source(file, root=path))
        elif os.path.exists(path):
            add(Source(path))
        else:
            errors.append(InputError(path, 1, "no such file or directory"))
    return sources, errors


def walk_python_files(directory: str, skip_dir: str | None = None):
    """Yield the .py files under `directory`, sorted, as black finds them: hidden, build and
    virtualenv directories are left out, and so is anything that is not a regular file.

    Symlinks are never followed (os.walk does not enter linked directories either): one that
    leaves the tree points at a file that is not ours to rewrite, one inside it at a file the
    walk meets itself. FIFOs and devices would block or never end a read.
    """
    skipped = os.path.realpath(skip_dir) if skip_dir else None
    for parent, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if _walkable_dir(os.path.join(parent, d), skipped))
        for name in sorted(filenames):
            path = os.path.join(parent, name)
            if name.endswith(".py") and not name.startswith(".") and _is_regular(path):
                yield path


def _walkable_dir(path: str, skipped: str | None) -> bool:
    name = os.path.basename(path)
    if name.startswith(".") or name in SKIPPED_DIRS:
        return False
    if os.path.exists(os.path.join(path, "pyvenv.cfg")):  # a virtualenv, whatever its name
        return False
    return skipped is None or os.path.realpath(path) != skipped


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


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
    return decode_source(read_bytes(path), path)


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file. Opened non-blocking and checked before reading: a FIFO
    given as an input would otherwise wait for a writer forever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SourceError(InputError(path, 1, f"cannot read ({exc.strerror or exc})")) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SourceError(InputError(path, 1, NOT_REGULAR))
        try:
            return handle.read()
        except OSError as exc:
            cause = f"cannot read ({exc.strerror or exc})"
            raise SourceError(InputError(path, 1, cause)) from None


def encode_source(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def write_atomic(path: str, data: bytes, *, mode_from: str | None = None) -> None:
    """Write `data` to `path` via a temporary file in the same directory and os.replace.

    The file keeps what it is: its mode (or `mode_from`'s, for a new file), its owner, its
    hard links (a linked file is written in place, as black does: replacing would split the
    link), and symlinks are written through. A read-only file is refused, as black does. On any
    failure the destination is left exactly as it was. Raises SourceError naming `path`.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    existing = _stat(target)
    if existing is not None and not (
        existing.st_mode & 0o222 and os.access(target, os.W_OK)
    ):  # root may write anything: the mode bits say what the owner wants
        raise SourceError(InputError(path, 1, READ_ONLY))
    if existing is not None and existing.st_nlink > 1:
        _write_in_place(path, target, data)
        return
    tmp = None
    try:
        os.makedirs(directory, exist_ok=True)
        mode = stat.S_IMODE(existing.st_mode) if existing else _new_file_mode(mode_from)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if existing is not None and not _same_owner(tmp, existing):
            os.unlink(tmp)
            tmp = None
            _write_in_place(path, target, data)  # we may write the file but not give it away
            return
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


def _write_in_place(path: str, target: str, data: bytes) -> None:
    try:
        with open(target, "r+b") as handle:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise SourceError(InputError(path, 1, f"cannot write ({exc.strerror or exc})")) from None


def _same_owner(tmp: str, existing: os.stat_result) -> bool:
    """Give `tmp` the owner and group of the file it replaces; False if that is not allowed."""
    info = os.stat(tmp)
    if (info.st_uid, info.st_gid) == (existing.st_uid, existing.st_gid):
        return True
    try:
        os.chown(tmp, existing.st_uid, existing.st_gid)
    except PermissionError:
        return False
    return True


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _new_file_mode(mode_from: str | None) -> int:
    info = _stat(mode_from) if mode_from else None
    if info is not None:
        return stat.S_IMODE(info.st_mode)
    umask = os.umask(0)  # the usual mode, as open() would give it
    os.umask(umask)
    return 0o666 & ~umask


def output_path(source: Source, output: str) -> str:
    """Where `-o OUTPUT` puts `source`: mirrored under OUTPUT for a directory input, OUTPUT
    itself for a file (or OUTPUT/<name> when OUTPUT is a directory: an existing one, or one
    named with a trailing slash)."""
    if source.root is not None:
        return os.path.join(output, os.path.relpath(source.path, source.root))
    names_a_directory = output.endswith(("/", os.sep)) or os.path.isdir(output)
    if source.path != STDIN and names_a_directory:
        return os.path.join(output, os.path.basename(source.path))
    return output
