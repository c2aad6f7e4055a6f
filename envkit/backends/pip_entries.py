"""How an installed pip distribution is written back: the URL pip installs it again from, and the
requirements line (`name==version`, `name @ URL`, `-e TARGET`) as a PipDep.

One home for both the export (`envkit.backends.live_models.pip_entry`) and the exact environment file
of a live lock (`envkit.lock.live`); each chooses the URL and editable target it writes.
"""

from __future__ import annotations

from envkit.model import PipDep, PipDist


def pip_install_url(dist: PipDist) -> str | None:
    """The URL pip installs `dist` again from, exactly: a VCS install's `git+URL@commit` (PEP 610's
    `vcs_info`: direct_url.json records the plain repository URL and the commit apart), else the
    URL direct_url.json records (archive, local directory), None for an index install."""
    if dist.url and dist.vcs:
        url = dist.url if dist.url.startswith(f"{dist.vcs}+") else f"{dist.vcs}+{dist.url}"
        return f"{url}@{dist.commit}" if dist.commit else url
    return dist.url


def pip_requirement(
    name: str, version: str, *, url: str | None = None, editable: str | None = None
) -> PipDep:
    """The pip entry of package `name` at `version`: `-e EDITABLE` when an editable target is given
    (written as given), else `name @ URL` for a URL install, else `name==version`.

    The entry is what reading the line back gives (`parse_pip_entry`); a version PEP 440 no longer
    accepts is kept as text, never dropped.
    """
    from envkit.errors import InvalidSpecError
    from envkit.formats.pipreq import parse_pip_entry

    if editable:
        text = f"-e {editable}"
    elif url:
        text = f"{name} @ {url}"
    else:
        text = f"{name}=={version}"
    try:
        return parse_pip_entry(text)
    except InvalidSpecError:
        return PipDep(kind="requirement", text=text, name=name, specifier=f"=={version}")
