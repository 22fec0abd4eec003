"""Copy-on-write for the run folders of `migrate --verify` (installed by sitecustomize.py).

A run folder links every entry of the script's folder (workspace.py), so reads see the user's
files; writes must not reach them. An audit hook (PEP 578) sees every file-system change the
script makes from Python (open for writing, mkdir, remove, rename, rmtree, chmod...) before
it happens, and first gives the run its own copy of what is about to change:
  - a linked folder on the way to the path becomes a real folder of links, one level at a time;
  - a linked file about to be written becomes a copy (unless the write truncates it anyway);
  - a linked folder about to be removed becomes a real folder of links, so only links go.
A change that would still land in the script's folder (a path made absolute through a link,
`Path.resolve()`) is refused with PermissionError, so the run fails with a clear reason
instead of touching the user's files. Hidden entries (caches, VCS) are not guarded: tools
write there whatever folder they run from.

Environment: TORCHLIFT_RUN_DIR (the run folder), TORCHLIFT_USER_DIR (the script's folder).
"""

import errno
import os
import shutil
import sys
import threading

REFUSED = "migrate --verify runs may not write into the script's folder"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
# event -> (index of the path argument, what the change does to the path itself). In each of
# these events the last argument is the dir_fd the path is relative to (PEP 578's table).
_CHANGES = {
    "os.mkdir": (0, None),
    "os.remove": (0, None),
    "os.rmdir": (0, "folder"),
    "shutil.rmtree": (0, "folder"),
    "os.chmod": (0, "file"),
    "os.chown": (0, "file"),
    "os.utime": (0, "file"),
    "os.symlink": (1, None),
    "os.link": (1, None),
}


class _Guard:
    def __init__(self, run_dir, user_dir):
        self.run_dir = os.path.realpath(run_dir)
        self.user_dir = os.path.realpath(user_dir)
        # With the temporary folder inside the script's folder (a script in /tmp) every
        # library temp file would be refused: then only copy-on-write applies.
        self.refuse = not _within(self.run_dir, self.user_dir)
        self.busy = threading.local()  # our own copies raise audit events too

    def __call__(self, event, args):
        if event not in _CHANGES and event not in ("open", "os.rename", "os.truncate"):
            return
        if getattr(self.busy, "on", False):
            return
        self.busy.on = True
        try:
            if event == "open":  # (path, mode or None, flags)
                path, mode, flags = args
                flags = flags if isinstance(flags, int) else 0
                mode = mode if isinstance(mode, str) else ""
                if flags & _WRITE_FLAGS or any(c in mode for c in "wax+"):
                    truncating = bool(flags & os.O_TRUNC) or "w" in mode
                    self.prepare(path, "file", truncating=truncating)
            elif event == "os.rename":  # (src, dst, src_dir_fd, dst_dir_fd)
                self.prepare(args[0], dir_fd=args[2])
                self.prepare(args[1], dir_fd=args[3])
            elif event == "os.truncate":  # (path or fd, length)
                self.prepare(args[0], "file")
            else:
                index, last = _CHANGES[event]
                self.prepare(args[index], last, dir_fd=args[-1])
        finally:
            self.busy.on = False

    def prepare(self, path, last=None, truncating=False, dir_fd=None):
        if isinstance(path, int):
            return  # a file descriptor: its file was opened (and prepared) before
        path = os.fsdecode(path)
        if dir_fd not in (None, -1) and not os.path.isabs(path):
            return
        path = os.path.abspath(path)
        if _within(path, self.run_dir):
            self.own_parents(path)
            if last == "file":
                self.own_file(path, truncating)
            elif last == "folder" and _is_linked_dir(path):
                self.own_folder(path)
        if not self.refuse:
            return
        if last is None:  # removing, renaming or creating a name changes the folder holding it
            resolved = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        else:
            resolved = os.path.realpath(path)
        if self.reaches_user_files(resolved):
            raise PermissionError(errno.EACCES, REFUSED, path)

    def before_torch_save(self, name):
        """torch.save opens its file in C++, where no audit event is raised."""
        if getattr(self.busy, "on", False):
            return
        self.busy.on = True
        try:
            self.prepare(name, last="file", truncating=True)
        finally:
            self.busy.on = False

    def reaches_user_files(self, resolved):
        if not _within(resolved, self.user_dir) or _within(resolved, self.run_dir):
            return False
        first = os.path.relpath(resolved, self.user_dir).split(os.sep)[0]
        return not first.startswith(".")

    def own_parents(self, path):
        current = self.run_dir
        for part in os.path.relpath(path, self.run_dir).split(os.sep)[:-1]:
            current = os.path.join(current, part)
            if _is_linked_dir(current):
                self.own_folder(current)

    @staticmethod
    def own_folder(link):
        """Replace a link to a folder by a real folder of links to its entries."""
        target = os.path.realpath(link)
        os.unlink(link)
        os.mkdir(link)
        for name in sorted(os.listdir(target)):
            if name != "__pycache__":
                os.symlink(os.path.join(target, name), os.path.join(link, name))

    @staticmethod
    def own_file(link, truncating):
        """Replace a link to a file by a copy (an empty file when the write truncates)."""
        if not os.path.islink(link) or not os.path.isfile(link):
            return
        target = os.path.realpath(link)
        os.unlink(link)
        if truncating:
            open(link, "wb").close()
        else:
            shutil.copy2(target, link)


def _within(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _is_linked_dir(path):
    return os.path.islink(path) and os.path.isdir(path)


class _GuardTorchSave:
    """A meta path finder that lets torch.serialization load, then guards its file writer."""

    def __init__(self, guard):
        self.guard = guard

    def find_spec(self, name, path=None, target=None):
        if name != "torch.serialization":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module
        guard = self.guard

        def exec_then_guard(module):
            exec_module(module)
            writer = module._open_zipfile_writer_file
            init = writer.__init__

            def guarded_init(self, name, *args, **kwargs):
                guard.before_torch_save(name)
                init(self, name, *args, **kwargs)

            writer.__init__ = guarded_init

        spec.loader.exec_module = exec_then_guard
        return spec


def install():
    run_dir = os.environ.get("TORCHLIFT_RUN_DIR")
    user_dir = os.environ.get("TORCHLIFT_USER_DIR")
    if run_dir and user_dir:
        guard = _Guard(run_dir, user_dir)
        sys.addaudithook(guard)
        sys.meta_path.insert(0, _GuardTorchSave(guard))
