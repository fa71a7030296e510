"""Real file-system faults for tests: a small disk that fills up, a read-only file or folder.

A full disk is a tmpfs of a few hundred KB mounted for the test (filled to the last byte by
`fill`), so every write fails with ENOSPC as on a real full disk. A read-only file or folder
is a read-only bind mount of it onto itself: root, who runs the suite here, ignores file
modes, but not a read-only mount. Both need root (CAP_SYS_ADMIN); for another user a
read-only path falls back to the file modes 0444/0555, which bind that user. Every mount is
undone when the block ends, even when the test fails.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = os.geteuid() == 0


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"mount {' '.join(args)} failed ({done.stderr.strip()}): these tests need root "
            "to mount a small file system"
        )


def _umount(path: Path) -> None:
    done = subprocess.run(["umount", str(path)], capture_output=True, check=False)
    if done.returncode != 0:  # something still holds a file open: detach it anyway
        subprocess.run(["umount", "-l", str(path)], capture_output=True, check=True)


@contextmanager
def small_disk(folder: Path, *, size_kb: int = 4096) -> Iterator[Path]:
    """`folder` as a file system of `size_kb` KB of its own (created if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        _umount(folder)


def fill(folder: Path) -> Path:
    """Take every free byte of the file system holding `folder`; delete the file returned to
    free them again."""
    filler = folder / "filler.bin"
    chunk = b"\0" * 65536
    with open(filler, "ab", buffering=0) as handle:
        for size in (65536, 4096, 512, 1):
            while True:
                try:
                    handle.write(chunk[:size])
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    return filler


@contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """`path` (a file or a folder) cannot be written, even by root, until the block ends."""
    if ROOT:
        _mount("--bind", str(path), str(path))
        try:
            _mount("-o", "remount,ro,bind", str(path))
            yield path
        finally:
            _umount(path)
        return
    mode = path.stat().st_mode
    path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield path
    finally:
        path.chmod(mode)


@contextmanager
def immutable(path: Path) -> Iterator[Path]:
    """`path` with the immutable attribute (`chattr +i`): nobody, root included, may write it.
    Needs root and a file system that keeps the attribute (ext4 here)."""
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"chattr +i {path} failed ({done.stderr.strip()}): this test needs root")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=True)
