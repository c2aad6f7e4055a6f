"""The one download of `envkit audit`: OSV's PyPI dump, into a directory, only when asked.

`fetch_db(directory)` writes `DIRECTORY/PyPI/all.zip` (the layout osv-scanner's
`--local-db-path` reads as well) atomically and returns its path; audits then read it offline.
"""

from __future__ import annotations

import os
from urllib.request import urlopen

from envkit.audit.index import AuditDbError

#: OSV's bulk dump of the PyPI ecosystem (https://google.github.io/osv.dev/data/)
PYPI_DUMP = "https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip"
TIMEOUT = 60.0


def fetch_db(directory: str) -> str:
    """Download OSV's PyPI dump into `directory`/PyPI/all.zip and return that path.  Raises
    AuditDbError when the download fails or is not a zip (the previous dump, if any, is kept)."""
    import zipfile

    target_dir = os.path.join(directory, "PyPI")
    target = os.path.join(target_dir, "all.zip")
    part = target + ".part"
    try:
        os.makedirs(target_dir, exist_ok=True)
        with urlopen(PYPI_DUMP, timeout=TIMEOUT) as response, open(part, "wb") as out:  # noqa: S310 (https)
            while chunk := response.read(1 << 20):
                out.write(chunk)
        if not zipfile.is_zipfile(part):
            raise AuditDbError(f"{PYPI_DUMP}: the download is not a zip")
        os.replace(part, target)
    except OSError as exc:
        raise AuditDbError(
            f"cannot download the advisory database from {PYPI_DUMP}: {exc}",
            hint="on a machine without network, copy an all.zip from one that has it",
        ) from None
    finally:
        if os.path.exists(part):
            os.unlink(part)
    return target
