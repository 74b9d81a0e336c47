"""Where a claims report lives on disk: read the report a run may add to (load_previous()), move
aside one it cannot add to (aside()), hold its lock for the read-merge-write (locked()),
write it atomically (write_atomic(), write()), remove what a write killed half-way left
(sweep()), and keep a run's evidence in a file of its own when the report cannot be written
(keep_unwritten()). Building the report is harness/report.py, its
text harness/rendering.py."""
from __future__ import annotations

import contextlib
import datetime
import glob
import json
import os
import pathlib
import tempfile
from collections.abc import Mapping
from typing import Any

import filelock

from harness.evidence import MERGEABLE_SCHEMAS, Environment

LOCK_TIMEOUT_S = 300  # a run waits this long for another run's read-merge-write of the same report


def load_previous(path: pathlib.Path, environment: Environment) -> tuple[dict | None, str | None]:
    """(the report at `path` if this run may add to it, else None; why not, if it exists).

    A report this run cannot add to — unreadable, of an unknown schema, or of another environment
    — is never overwritten: the caller moves it aside (aside())."""
    if not path.exists():
        return None, None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"it cannot be read as a claims report ({type(exc).__name__}: {str(exc)[:120]})"
    if not isinstance(doc, dict) or doc.get("schema") not in MERGEABLE_SCHEMAS:
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        return None, f"it is a report of schema {found!r}, not {' or '.join(map(str, MERGEABLE_SCHEMAS))}"
    old_env = doc.get("environment") or {}
    if old_env.get("fingerprint") != environment.get("fingerprint"):
        return None, (f"it belongs to another environment (torch {old_env.get('torch')} on "
                      f"{old_env.get('machine')}, {old_env.get('device')})")
    return doc, None


def aside(path: pathlib.Path, now: datetime.datetime | None = None) -> pathlib.Path:
    """Move the report at `path` (and its .md) aside, never over an earlier one; returns the new
    JSON path: claims.json -> claims.2026-11-24T10-00-00.aside.json (the matrix's report globs
    skip *.aside.json)."""
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H-%M-%S")
    for n in range(1000):
        suffix = f".{stamp}{'-' + str(n) if n else ''}.aside"
        target = path.with_name(path.stem + suffix + path.suffix)
        md, md_target = path.with_suffix(".md"), target.with_suffix(".md")
        if not target.exists() and not md_target.exists():
            break
    else:
        raise FileExistsError(f"no free name to move {path} aside")
    os.replace(path, target)
    if md.exists():
        os.replace(md, md_target)
    return target


@contextlib.contextmanager
def locked(path: pathlib.Path, timeout: float = LOCK_TIMEOUT_S):
    """Hold `path`.lock: one process at a time reads, merges and writes the report at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(str(path) + ".lock")
    try:
        lock.acquire(timeout=timeout)
    except filelock.Timeout:
        raise ReportLocked(f"another run has held {path}.lock for {timeout:.0f} s: the report {path} was "
                           "not merged (if no other pytest run is writing it, delete the .lock file)") from None
    try:
        yield
    finally:
        lock.release()


class ReportLocked(RuntimeError):
    pass


def write_atomic(path: pathlib.Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and os.replace: a reader
    (or a run killed while writing) never sees half a file; the previous file stays whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


def write(doc: Mapping[str, Any], path: pathlib.Path, markdown: str) -> None:
    """The JSON report and its Markdown (`markdown`, rendered from `doc`) beside it, each written
    atomically (JSON first: it is the evidence)."""
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    write_atomic(path.with_suffix(".md"), markdown)


def sweep(path: pathlib.Path) -> list[pathlib.Path]:
    """Remove the temporary files that a write of the report at `path` (or of its .md) killed
    before its rename left in the folder (write_atomic()'s `.claims.json.XXXX.tmp`); returns them.
    Called under the report's lock (locked()): no write of this report is under way then."""
    if not path.parent.is_dir():
        return []
    out = []
    for name in (path.name, path.with_suffix(".md").name):
        for tmp in sorted(path.parent.glob(f".{glob.escape(name)}.*.tmp")):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
                out.append(tmp)
    return out


def keep_unwritten(doc: Mapping[str, Any], path: pathlib.Path, now: datetime.datetime | None = None) -> pathlib.Path:
    """Write `doc` (a run's evidence whose report at `path` could not be written) beside the
    report, else in the temporary folder, as claims.2026-11-24T10-00-00.unwritten.aside.json (the
    matrix's report globs skip *.aside.json; name the file to read it); returns where it went.
    Written plainly, not through write_atomic(), which is what may have failed."""
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H-%M-%S")
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    errors = []
    for folder in (path.parent, pathlib.Path(tempfile.gettempdir())):
        target = folder / f"{path.stem}.{stamp}.unwritten.aside.json"
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            return target
        except OSError as exc:
            errors.append(f"{target}: {exc.strerror or exc}")
            if target.exists() and not isinstance(exc, FileExistsError):
                target.unlink(missing_ok=True)
    raise OSError("; ".join(errors))


def check_writable(path: pathlib.Path) -> str | None:
    """Why no report can be written at `path`, or None: a file is created and removed in the
    nearest existing folder above it (a folder that permissions, a read-only file system or a
    pseudo file system such as /proc refuse reads as writable to os.access as root)."""
    folder = next(p for p in path.parents if p.exists())
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if path.exists() and not os.access(path, os.W_OK):
        return f"no write permission on {path}"
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        return f"no file can be created in {folder} ({exc.strerror or exc})"
    os.close(fd)
    pathlib.Path(probe).unlink(missing_ok=True)
    return None


def dump_evidence(doc: Mapping[str, Any]) -> str:
    """A column's committed evidence (docs/matrix/reports/*.json) as its bytes: JSON with one line per
    test (small diffs when a column's evidence changes); a claims report is json.dumps(indent=1)."""
    head = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}" for k, v in doc.items()
            if k != "tests"]
    tests = [f"  {json.dumps(n, ensure_ascii=False)}: {json.dumps(t, ensure_ascii=False, sort_keys=True)}"
             for n, t in doc["tests"].items()]
    return "{\n" + ",\n".join(head + [' "tests": {\n' + ",\n".join(tests) + "\n }"]) + "\n}\n"
