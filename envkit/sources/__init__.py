"""Turn a SOURCE string into an environment model: a file, a prefix, `env:NAME`, or the same on another
machine over ssh.

    environment.yml, conda-lock.yml, pixi.lock, spec-file.txt, requirements.txt, conda-list.json
                                   any file format envkit reads (envkit.formats.read_file)
    export.json                    envkit's own `envkit export --format json` document: read into
                                   the LiveEnv it was made from (read_envkit_export)
    -                              the same, read from stdin (labelled `<stdin>`)
    /path/to/prefix                a directory holding conda-meta/ (envkit.backends.open_env)
    env:NAME                       a named environment of this machine
    ssh://[user@]host[:port]/PATH  a prefix (or an environment file) on another machine
    ssh://[user@]host[:port]/env:NAME

Remote sources run the system `ssh` (so ~/.ssh/config, agents and jump hosts work as usual) and
stream envkit's standalone prefix reader (`envkit/backends/prefix_scan.py`, stdlib only) to the remote
`python3` on stdin: nothing is installed or written there.  `ENVKIT_SSH` replaces the ssh command
(`ENVKIT_SSH="ssh -F ~/.ssh/work_config -i ~/.ssh/id_work"`); `ENVKIT_REMOTE_PYTHON` names the remote
interpreter when `python3` is not on its PATH.  A `~` at the start of a remote path is the remote home
(`ssh://gpu/~/miniforge3/envs/research`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.errors import EnvironmentNotFound, ParseError, UsageError, Where
from envkit.model import EnvSpec, LiveEnv, Lock, LockedPackage, PipDist
from envkit.stdin import STDIN, STDIN_LABEL, read_stdin

if TYPE_CHECKING:
    from typing import Any

    from envkit.machine.profile import MachineProfile
    from envkit.sources.ssh import SshTarget


@dataclass(frozen=True, slots=True)
class Source:
    """A resolved SOURCE: the text given, a short label, the model, and where it came from
    ("file", "stdin", "prefix", "env", "ssh")."""

    text: str
    label: str
    model: EnvSpec | Lock | LiveEnv
    origin: str
    #: the remote machine's MachineProfile, for an ssh prefix resolved with `machine=True`
    machine: object = None


def resolve(
    text: str,
    *,
    format: str | None = None,
    environment: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float | None = None,
    stdin: str | None = None,
    machine: bool = False,
) -> Source:
    """Resolve one SOURCE string (see the module docstring) into a Source.

    `-` is an environment file read from standard input (`stdin` when given, else read here) and
    labelled `<stdin>`.  With `machine=True` an ssh prefix also runs envkit's machine probe in the
    same ssh session and the Source carries the remote MachineProfile (None when the probe failed,
    or for a remote file); `timeout` (seconds) bounds the ssh session, envkit.sources.ssh.SSH_TIMEOUT
    when None.  Raises ParseError (bad file), EnvironmentNotFound (no such file, prefix or
    env), BackendError (ssh failed), UsageError (a malformed `ssh://` URL).
    """
    env = os.environ if environ is None else environ
    if text == STDIN:
        body = read_stdin() if stdin is None else stdin
        return Source(
            text=text,
            label=STDIN_LABEL,
            model=read_any_text(body, filename=STDIN_LABEL, format=format, environment=environment),
            origin="stdin",
        )
    if text.startswith("ssh://"):
        from envkit.sources.ssh import parse_ssh

        target = parse_ssh(text)
        found: list = []
        model = read_remote(
            target,
            format=format,
            environment=environment,
            environ=env,
            timeout=timeout,
            on_machine=found.append if machine else None,
        )
        return Source(text=text, label=text, model=model, origin="ssh", machine=found[0] if found else None)
    if text.startswith("env:"):
        from envkit.backends import open_env

        name = text[4:]
        if not name:
            raise UsageError("env: needs a name, e.g. env:research")
        return Source(text=text, label=text, model=open_env(name=name, environ=env), origin="env")
    return _local_path(text, format=format, environment=environment, environ=env)


def _local_path(
    text: str, *, format: str | None, environment: str | None, environ: Mapping[str, str]
) -> Source:
    """`resolve` of a SOURCE on this machine: a prefix (a folder holding conda-meta/) or a file."""
    # os.path, not pathlib: a plain file's check starts faster without it (Path("") is ".")
    path = text or "."
    if os.path.isdir(path):
        from envkit.backends import open_env

        if not os.path.isdir(os.path.join(path, "conda-meta")):
            raise EnvironmentNotFound(
                f"{text}: a directory, but not a conda environment (no conda-meta/)",
                hint="pass an environment file, the prefix that holds conda-meta/, or env:NAME",
            )
        model = open_env(prefix=path, environ=environ)  # read_prefix makes it absolute
        return Source(text=text, label=text, model=model, origin="prefix")
    if not os.path.exists(path):
        hint = None
        if "/" not in text and "." not in text and not text.startswith("-"):
            hint = f"for a named environment write env:{text}"
        raise EnvironmentNotFound(f"{text}: no such file or directory", hint=hint)
    from envkit.io import read_text as read_file_text

    return Source(
        text=text,
        label=text,
        model=read_any_text(read_file_text(text), filename=text, format=format, environment=environment),
        origin="file",
    )


def read_any_text(
    text: str, *, filename: str, format: str | None = None, environment: str | None = None
) -> EnvSpec | Lock | LiveEnv:
    """The model of an environment file's text: envkit's JSON export (when no `format` is forced)
    through read_envkit_export, every other format through envkit.formats.read_text.  Raises the
    readers' ParseError family."""
    if format is None:
        doc = _envkit_export_doc(text)
        if doc is not None:
            return read_envkit_export(doc, filename=filename)
    from envkit.formats import read_text

    return read_text(text, filename=filename, format=format, environment=environment)


# ---------------------------------------------------------------------------------------------
# envkit's own JSON export

#: The `envkit_export` schema versions read here (docs/commands/export.md).
EXPORT_JSON_VERSIONS = (1,)


def _envkit_export_doc(text: str) -> dict | None:
    """The parsed document when `text` is a JSON object with an `envkit_export` key, else None
    (cheap for every other format: only text starting with `{` is parsed)."""
    head = text.lstrip("\ufeff \t\r\n")
    if not head.startswith("{") or '"envkit_export"' not in text:
        return None
    from envkit.formats._json import load_json

    try:
        doc = load_json(head, None)
    except ParseError:
        return None
    return doc if isinstance(doc, dict) and "envkit_export" in doc else None


def read_envkit_export(doc: Mapping, *, filename: str | None = None) -> EnvSpec | LiveEnv:
    """An `envkit export --format json` document as the model of the environment it describes.

    A full export becomes the LiveEnv it was made from (conda packages, pip packages with their
    URL, VCS commit and editable flag, the channels packages came from, channel_priority,
    variables, requested specs), with `backend` set to EXPORT_JSON_BACKEND so that consumers know
    it was read from a file.  A `--from-history` export (no conda packages) becomes an EnvSpec of
    its requested specs and pip entries.  Raises ParseError for another schema version or a
    document that does not follow the schema.
    """
    from envkit.conda.channels import parse_channel
    from envkit.conda.matchspec import parse_spec
    from envkit.envdiff import EXPORT_JSON_BACKEND
    from envkit.formats.pipreq import parse_pip_entry

    where = Where(file=filename)
    version = doc.get("envkit_export")
    if version not in EXPORT_JSON_VERSIONS:
        raise ParseError(
            f"envkit export JSON version {version!r} is not supported (envkit reads version "
            f"{', '.join(map(str, EXPORT_JSON_VERSIONS))})",
            where=where,
            hint="export it again with this envkit: envkit export -p PREFIX --format json",
        )
    d = _ExportDoc(doc, where)
    name = d.field("name", str, None)
    platform = d.field("platform", str, "")
    channels = tuple(parse_channel(c) for c in d.texts("channels"))
    variables = tuple((str(k), str(v)) for k, v in d.field("variables", dict, {}).items())
    pip_entries = tuple(parse_pip_entry(t, Where(file=filename)) for t in d.texts("pip"))
    if d.field("from_history", bool, False):
        return EnvSpec(
            name=name,
            channels=channels,
            conda=tuple(parse_spec(t, where=where) for t in d.texts("dependencies")),
            pip=pip_entries,
            variables=variables,
            has_pip_section=bool(pip_entries),
            source=filename,
        )
    packages, dists = _export_packages(d, platform)
    return LiveEnv(
        prefix="",
        name=name,
        platform=platform,
        packages=tuple(packages),
        pip_dists=tuple(dists),
        requested=tuple(parse_spec(t, where=where) for t in d.texts("requested")),
        channels=channels,
        channel_priority=d.field("channel_priority", str, None),
        variables=variables,
        python_version=d.field("python_version", str, None),
        warnings=tuple(d.texts("warnings")),
        backend=EXPORT_JSON_BACKEND,
    )


class _ExportDoc:
    """An export document's fields, each checked against the schema (ParseError at `where`)."""

    def __init__(self, doc: Mapping, where: Where) -> None:
        self.doc = doc
        self.where = where

    def field(self, key: str, kind: type, default: Any) -> Any:
        value = self.doc.get(key, default)
        if value is None:
            return default
        if not isinstance(value, kind):
            raise ParseError(
                f"not an envkit export: `{key}` should be {_what(kind)}, not {type(value).__name__}",
                where=self.where,
            )
        return value

    def texts(self, key: str) -> list[str]:
        items = self.field(key, list, [])
        for i, x in enumerate(items):
            if not isinstance(x, str):
                raise ParseError(f"not an envkit export: `{key}[{i}]` should be a string", where=self.where)
        return items


def _export_packages(d: _ExportDoc, platform: str) -> tuple[list[LockedPackage], list[PipDist]]:
    """The document's packages (conda ones first, then pip ones, as a live environment lists them)
    and its pip distributions."""
    packages: list[LockedPackage] = []
    dists: list[PipDist] = []
    for i, item in enumerate(d.field("packages", list, [])):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("version"), str)
        ):
            raise ParseError(
                f"not an envkit export: `packages[{i}]` needs a name and a version", where=d.where
            )
        manager = item.get("manager")
        if manager == "conda":
            packages.append(_export_conda_package(item, platform))
        elif manager == "pip":
            dist = _export_pip_dist(item)
            dists.append(dist)
            packages.append(
                LockedPackage(
                    manager="pip",
                    name=dist.name,
                    version=dist.version,
                    platform=platform,
                    url=dist.url,
                    sha256=dist.sha256,
                    editable=dist.editable,
                )
            )
        else:
            raise ParseError(
                f"not an envkit export: `packages[{i}]` has manager {manager!r} (conda or pip)", where=d.where
            )
    packages.sort(key=lambda p: p.manager != "conda")
    return packages, dists


def _export_conda_package(item: Mapping[str, Any], platform: str) -> LockedPackage:
    from envkit.model import split_depend

    depends = tuple(split_depend(d) for d in item.get("depends") or () if isinstance(d, str))
    return LockedPackage(
        manager="conda",
        name=item["name"],
        version=item["version"],
        build=item.get("build"),
        build_number=item.get("build_number"),
        channel=item.get("channel"),
        platform=platform,
        subdir=item.get("subdir"),
        url=item.get("url"),
        md5=item.get("md5"),
        sha256=item.get("sha256"),
        depends=depends,
        requested=bool(item.get("requested")),
    )


def _export_pip_dist(item: Mapping[str, Any]) -> PipDist:
    return PipDist(
        name=item["name"],
        version=item["version"],
        installer=item.get("installer"),
        url=item.get("url"),
        vcs=item.get("vcs"),
        commit=item.get("commit"),
        editable=bool(item.get("editable")),
        sha256=item.get("sha256"),
    )


def _what(kind: type) -> str:
    return {str: "a string", list: "a list", dict: "a mapping", bool: "true or false"}.get(kind, str(kind))


def read_remote(
    target: SshTarget,
    *,
    format: str | None = None,
    environment: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float | None = None,
    on_machine: Callable[[MachineProfile], object] | None = None,
) -> EnvSpec | Lock | LiveEnv:
    """Read a prefix, a named env or an environment file on another machine over ssh.

    With `on_machine` (a callable), a prefix's ssh session also runs envkit's machine probe, and
    `on_machine` receives the remote MachineProfile (it is not called when the probe failed, or
    for a remote file).  Raises BackendError when ssh or the remote Python fails,
    EnvironmentNotFound when the remote has no such environment, ParseError for a remote file
    envkit cannot read.  `timeout` (seconds) defaults to envkit.sources.ssh.SSH_TIMEOUT.
    """
    from envkit.sources.ssh import SSH_TIMEOUT, remote_scan

    if timeout is None:
        timeout = SSH_TIMEOUT
    data, head = remote_scan(target, environ=environ, timeout=timeout, machine=on_machine is not None)
    return model_from_answer(
        target, data, head, format=format, environment=environment, on_machine=on_machine
    )


def model_from_answer(
    target: SshTarget,
    data: dict,
    head: str,
    *,
    format: str | None = None,
    environment: str | None = None,
    on_machine: Callable[[MachineProfile], object] | None = None,
) -> EnvSpec | Lock | LiveEnv:
    """The model of the remote driver's answer (envkit.sources.ssh.read_answer), as read_remote
    returns it; `on_machine` receives the machine profile printed before the answer, if any."""
    from envkit.machine.detect import remote_profile
    from envkit.sources.ssh import remote_url

    if data.get("kind") == "file":
        text = data.get("text") or ""
        return read_any_text(text, filename=remote_url(target), format=format, environment=environment)
    from envkit.backends.native import live_env_from_scan

    # strict as a local prefix is read: a corrupt record is refused, never skipped
    live = live_env_from_scan(data, name=target.env_name)
    profile = remote_profile(head, target) if on_machine is not None else None
    if profile is not None and on_machine is not None:
        on_machine(profile)
    return live
