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
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from envkit.errors import BackendError, EnvironmentNotFound, ParseError, UsageError, Where
from envkit.model import EnvSpec, LiveEnv, Lock

#: The SOURCE (or FILE) that means standard input, and how findings and reports name it.
STDIN = "-"
STDIN_LABEL = "<stdin>"
#: How long one remote scan may take (connection included).
SSH_TIMEOUT = 180.0
#: The line the remote driver prints before its JSON (login scripts may print before it).
_MARK = "--envkit-scan--"
#: The line before the remote machine probe's JSON, printed ahead of the scan when asked for.
_MACHINE_MARK = "--envkit-machine-facts--"


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


@dataclass(frozen=True, slots=True)
class SshTarget:
    """A parsed `ssh://` SOURCE."""

    host: str
    user: str | None = None
    port: int | None = None
    path: str | None = None  # a remote path (`~/...` is the remote home)
    env_name: str | None = None

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.host}" if self.user else self.host


def parse_ssh(text: str) -> SshTarget:
    """Parse `ssh://[user@]host[:port]/PATH` or `ssh://[user@]host[:port]/env:NAME`.

    Raises UsageError for a URL without host or path, or with a bad port.
    """
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(text)
    try:
        port = parts.port
    except ValueError:
        raise UsageError(f"bad port in {text!r}", hint="ssh://[user@]host[:port]/PATH") from None
    host = parts.hostname
    if not host or host.startswith("-"):
        raise UsageError(f"no host in {text!r}", hint="ssh://[user@]host[:port]/PATH or ssh://host/env:NAME")
    path = unquote(parts.path)
    if parts.query:
        path += "?" + parts.query
    if path in ("", "/"):
        raise UsageError(
            f"no environment in {text!r}: give a prefix path or env:NAME",
            hint=f"ssh://{parts.netloc}/env:NAME or ssh://{parts.netloc}/path/to/prefix",
        )
    user = unquote(parts.username) if parts.username else None
    rest = path[1:]
    if rest.startswith("env:"):
        name = rest[4:]
        if not name:
            raise UsageError(f"no environment name in {text!r}")
        return SshTarget(host=host, user=user, port=port, env_name=name)
    if rest.startswith("~"):
        return SshTarget(host=host, user=user, port=port, path=rest)
    return SshTarget(host=host, user=user, port=port, path=path)


def read_stdin(stream=None, *, max_bytes: int | None = None) -> str:
    """All of standard input (or `stream`, a binary or text file object) as text: UTF-8, BOM
    stripped, at most envkit.io.MAX_INPUT_BYTES.  Raises ParseError naming `<stdin>` when it is
    larger or not UTF-8."""
    import sys

    from envkit.io import MAX_INPUT_BYTES

    limit = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    where = Where(file=STDIN_LABEL)
    stream = sys.stdin if stream is None else stream
    raw = getattr(stream, "buffer", stream)
    data = raw.read(limit + 1)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > limit:
        raise ParseError(
            f"standard input is larger than the {limit / 2**20:.0f} MiB envkit reads", where=where
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(
            "not UTF-8 text",
            where=Where(file=STDIN_LABEL, line=data[: exc.start].count(b"\n") + 1),
            hint="pipe the file in as UTF-8",
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def check_stdin_once(sources) -> None:
    """Raise UsageError when `-` (standard input) is given more than once: it can be read once."""
    if sum(1 for s in sources if s == STDIN) > 1:
        raise UsageError(
            "standard input (-) can be read only once", hint="save one of them to a file and pass its path"
        )


def resolve(
    text: str,
    *,
    format: str | None = None,
    environment: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float = SSH_TIMEOUT,
    stdin: str | None = None,
    machine: bool = False,
) -> Source:
    """Resolve one SOURCE string (see the module docstring) into a Source.

    `-` is an environment file read from standard input (`stdin` when given, else read here) and
    labelled `<stdin>`.  With `machine=True` an ssh prefix also runs envkit's machine probe in the
    same ssh session and the Source carries the remote MachineProfile (None when the probe failed,
    or for a remote file).  Raises ParseError (bad file), EnvironmentNotFound (no such file, prefix or
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
    path = Path(text)
    if path.is_dir():
        from envkit.backends import open_env

        if not (path / "conda-meta").is_dir():
            raise EnvironmentNotFound(
                f"{text}: a directory, but not a conda environment (no conda-meta/)",
                hint="pass an environment file, the prefix that holds conda-meta/, or env:NAME",
            )
        return Source(text=text, label=text, model=open_env(prefix=str(path), environ=env), origin="prefix")
    if not path.exists():
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
    import json

    try:
        doc = json.loads(head)
    except ValueError:
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
    from envkit.model import LockedPackage, PipDist

    where = Where(file=filename)
    version = doc.get("envkit_export")
    if version not in EXPORT_JSON_VERSIONS:
        raise ParseError(
            f"envkit export JSON version {version!r} is not supported (envkit reads version "
            f"{', '.join(map(str, EXPORT_JSON_VERSIONS))})",
            where=where,
            hint="export it again with this envkit: envkit export -p PREFIX --format json",
        )

    def field(key: str, kind, default):
        value = doc.get(key, default)
        if value is None:
            return default
        if not isinstance(value, kind):
            raise ParseError(
                f"not an envkit export: `{key}` should be {_what(kind)}, not {type(value).__name__}",
                where=where,
            )
        return value

    def texts(key: str) -> list[str]:
        items = field(key, list, [])
        for i, x in enumerate(items):
            if not isinstance(x, str):
                raise ParseError(f"not an envkit export: `{key}[{i}]` should be a string", where=where)
        return items

    name = field("name", str, None)
    platform = field("platform", str, "")
    channels = tuple(parse_channel(c) for c in texts("channels"))
    variables = tuple((str(k), str(v)) for k, v in field("variables", dict, {}).items())
    pip_entries = tuple(parse_pip_entry(t, Where(file=filename)) for t in texts("pip"))
    if field("from_history", bool, False):
        return EnvSpec(
            name=name,
            channels=channels,
            conda=tuple(parse_spec(t, where=where) for t in texts("dependencies")),
            pip=pip_entries,
            variables=variables,
            has_pip_section=bool(pip_entries),
            source=filename,
        )
    packages: list[LockedPackage] = []
    dists: list[PipDist] = []
    for i, item in enumerate(field("packages", list, [])):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("version"), str)
        ):
            raise ParseError(f"not an envkit export: `packages[{i}]` needs a name and a version", where=where)
        manager = item.get("manager")
        if manager == "conda":
            depends = tuple(_split_dep(d) for d in item.get("depends") or () if isinstance(d, str))
            packages.append(
                LockedPackage(
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
            )
        elif manager == "pip":
            dist = PipDist(
                name=item["name"],
                version=item["version"],
                installer=item.get("installer"),
                url=item.get("url"),
                vcs=item.get("vcs"),
                commit=item.get("commit"),
                editable=bool(item.get("editable")),
                sha256=item.get("sha256"),
            )
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
                f"not an envkit export: `packages[{i}]` has manager {manager!r} (conda or pip)", where=where
            )
    # conda packages first, then pip ones, as a live environment lists them
    packages.sort(key=lambda p: p.manager != "conda")
    return LiveEnv(
        prefix="",
        name=name,
        platform=platform,
        packages=tuple(packages),
        pip_dists=tuple(dists),
        requested=tuple(parse_spec(t, where=where) for t in texts("requested")),
        channels=channels,
        channel_priority=field("channel_priority", str, None),
        variables=variables,
        python_version=field("python_version", str, None),
        warnings=tuple(texts("warnings")),
        backend=EXPORT_JSON_BACKEND,
    )


def _what(kind) -> str:
    return {str: "a string", list: "a list", dict: "a mapping", bool: "true or false"}.get(kind, str(kind))


def _split_dep(text: str) -> tuple[str, str]:
    """`python >=3.11,<3.12.0a0` -> ("python", ">=3.11,<3.12.0a0"), as the prefix reader splits them."""
    head, _, rest = text.strip().partition(" ")
    return head, rest.strip()


# ---------------------------------------------------------------------------------------------
# ssh


def ssh_command(target: SshTarget, environ: Mapping[str, str] | None = None) -> list[str]:
    """The ssh argv (without the remote command) for `target`: `ENVKIT_SSH` (default `ssh`), then
    options that keep it non-interactive (a password prompt would hang), the port and the user."""
    env = os.environ if environ is None else environ
    base = shlex.split(env.get("ENVKIT_SSH") or "ssh")
    if not base:
        base = ["ssh"]
    # Options given first win in ssh, so the user's ENVKIT_SSH/-o settings override these.
    argv = base + ["-o", "BatchMode=yes", "-o", "ConnectTimeout=20"]
    if target.port:
        argv += ["-p", str(target.port)]
    if target.user:
        argv += ["-l", target.user]
    return argv + ["--", target.host]


def remote_program(target: SshTarget, *, machine: bool = False) -> str:
    """The Python program streamed to the remote interpreter: a small stdlib driver (name lookup,
    files) wrapped around envkit's standalone prefix_scan.py, which it runs unchanged.  With
    `machine=True` it first runs envkit/machine/probe.py (stdlib only) and prints its facts."""
    here = Path(__file__).parent
    scan = (here / "backends" / "prefix_scan.py").read_text(encoding="utf-8")
    probe = (here / "machine" / "probe.py").read_text(encoding="utf-8") if machine else None
    import json

    args = {"path": target.path, "name": target.env_name, "mark": _MARK, "machine_mark": _MACHINE_MARK}
    return (
        _DRIVER.replace("@ARGS@", repr(json.dumps(args)))
        .replace("@PROBE@", repr(probe))
        .replace("@SCAN@", repr(scan))
    )


def remote_shell_command(target: SshTarget, environ: Mapping[str, str] | None = None) -> str:
    """The command run on the remote machine: find a Python and run the program from stdin."""
    env = os.environ if environ is None else environ
    py = env.get("ENVKIT_REMOTE_PYTHON")
    if py:
        script = f"exec {shlex.quote(py)} -"
    else:
        fallback = ""
        if target.path and not target.path.startswith("~"):
            fallback = (
                f"[ -x {shlex.quote(target.path + '/bin/python')} ] && "
                f"exec {shlex.quote(target.path + '/bin/python')} -; "
            )
        script = (
            "for p in python3 python; do command -v $p >/dev/null 2>&1 && exec $p -; done; "
            f"{fallback}echo 'envkit: no python3 on the remote machine "
            "(set ENVKIT_REMOTE_PYTHON)' >&2; exit 127"
        )
    return "sh -c " + shlex.quote(script)


def read_remote(
    target: SshTarget,
    *,
    format: str | None = None,
    environment: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float = SSH_TIMEOUT,
    on_machine=None,
) -> EnvSpec | Lock | LiveEnv:
    """Read a prefix, a named env or an environment file on another machine over ssh.

    With `on_machine` (a callable), a prefix's ssh session also runs envkit's machine probe, and
    `on_machine` receives the remote MachineProfile (it is not called when the probe failed, or
    for a remote file).  Raises BackendError when ssh or the remote Python fails,
    EnvironmentNotFound when the remote has no such environment, ParseError for a remote file
    envkit cannot read.
    """
    model, profile = _read_remote(
        target,
        format=format,
        environment=environment,
        environ=environ,
        timeout=timeout,
        machine=on_machine is not None,
    )
    if profile is not None:
        on_machine(profile)
    return model


def _read_remote(
    target: SshTarget,
    *,
    format: str | None = None,
    environment: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float = SSH_TIMEOUT,
    machine: bool = False,
):
    """(model, MachineProfile or None): read_remote, plus the machine probe when `machine`."""
    from envkit._proc import run

    argv = ssh_command(target, environ) + [remote_shell_command(target, environ)]
    url = _url(target)
    result = run(
        argv, input=remote_program(target, machine=machine), timeout=timeout, check=False, what="ssh"
    )
    err = _ssh_stderr(result.stderr)
    if result.timed_out:
        raise BackendError(
            f"{url}: no answer within {timeout:g} s",
            hint=f"check that `{' '.join(ssh_command(target, environ)[:1])} {target.destination}` works",
        )
    if result.returncode == 255:
        raise BackendError(
            f"{url}: ssh could not connect",
            text=err or None,
            hint="envkit runs ssh without prompting: use keys or an agent, "
            "~/.ssh/config, or ENVKIT_SSH for options",
        )
    if result.returncode == 3:
        raise EnvironmentNotFound(f"{url}: {err or 'no such environment'}")
    if result.returncode != 0:
        raise BackendError(
            f"{url}: the remote prefix reader failed (exit code {result.returncode})", text=err or None
        )
    head, sep, body = result.stdout.partition(_MARK + "\n")
    if not sep:
        raise BackendError(
            f"{url}: the remote machine did not answer with a scan",
            text=(result.stdout or err)[-2000:] or None,
        )
    import json

    try:
        data = json.loads(body)
    except ValueError as exc:
        raise BackendError(f"{url}: unreadable answer from the remote prefix reader: {exc}") from None
    if data.get("kind") == "file":
        return _read_remote_file(data, url, format, environment), None
    if not data.get("is_prefix", True):
        raise EnvironmentNotFound(f"{url}: not a conda environment (no conda-meta/ directory)")
    from envkit.backends.native import live_env_from_scan

    live = live_env_from_scan(data, name=target.env_name, strict=False)
    return live, (_remote_profile(head, target) if machine else None)


def _remote_profile(head: str, target: SshTarget):
    """The MachineProfile from the probe facts printed before the scan, or None (an old or failed
    probe is no reason to fail the diff)."""
    import json

    _, sep, rest = head.partition(_MACHINE_MARK + "\n")
    if not sep:
        return None
    try:
        facts = json.loads(rest.splitlines()[0]) if rest.strip() else None
    except ValueError:
        return None
    if not isinstance(facts, dict) or "error" in facts:
        return None
    from envkit.machine.detect import profile_from_facts

    try:
        return profile_from_facts(facts, host=target.host)
    except (TypeError, ValueError, AttributeError, KeyError):
        return None


def _read_remote_file(data: dict, url: str, format: str | None, environment: str | None):
    return read_any_text(data.get("text") or "", filename=url, format=format, environment=environment)


def _url(t: SshTarget) -> str:
    port = f":{t.port}" if t.port else ""
    where = (
        f"/env:{t.env_name}"
        if t.env_name
        else (t.path if t.path and t.path.startswith("/") else f"/{t.path}")
    )
    return f"ssh://{t.destination}{port}{where}"


def _ssh_stderr(text: str) -> str:
    # ssh's own chatter ("Warning: Permanently added ...") is not the error
    kept = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("Warning: Permanently added")]
    return "\n".join(kept[-15:])


# The remote driver: stdlib only, Python 3.6+.  Exit code 3 means "no such environment".
_DRIVER = r'''
import json, os, subprocess, sys
ARGS = json.loads(@ARGS@)
PROBE = @PROBE@
SCAN = @SCAN@


def fail(msg, code=3):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


def is_prefix(p):
    return os.path.isdir(os.path.join(p, "conda-meta"))


def roots():
    home = os.path.expanduser("~")
    out = []
    for var in ("CONDA_ROOT", "MAMBA_ROOT_PREFIX"):
        if os.environ.get(var):
            out.append(os.environ[var])
    if os.environ.get("CONDA_EXE"):
        out.append(os.path.dirname(os.path.dirname(os.environ["CONDA_EXE"])))
    for d in ("miniforge3", "miniconda3", "anaconda3", "mambaforge", "micromamba", "miniconda",
              "anaconda", ".local/share/mamba", "micromamba-root"):
        out.append(os.path.join(home, d))
    out += ["/opt/conda", "/opt/miniforge3", "/opt/miniconda3", "/opt/anaconda3", "/opt/mambaforge",
            "/usr/local/miniconda3", "/usr/local/anaconda3", "/usr/local/conda"]
    return out


def condarc_envs_dirs():
    dirs = []
    for rc in ("~/.condarc", "~/.conda/condarc", "~/.config/conda/condarc"):
        try:
            lines = open(os.path.expanduser(rc)).read().splitlines()
        except OSError:
            continue
        inside = False
        for ln in lines:
            if ln.strip().startswith("envs_dirs:"):
                inside = True
                continue
            if inside:
                s = ln.strip()
                if s.startswith("- "):
                    dirs.append(os.path.expanduser(os.path.expandvars(s[2:].strip().strip("'\""))))
                elif s and not s.startswith("#"):
                    inside = False
    return dirs


def known():
    """name -> prefix, in conda's order of precedence (first wins)."""
    found = {}
    home = os.path.expanduser("~")
    dirs = []
    for var in ("CONDA_ENVS_PATH", "CONDA_ENVS_DIRS"):
        dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    dirs += condarc_envs_dirs()
    rs = roots()
    dirs += [os.path.join(r, "envs") for r in rs] + [os.path.join(home, ".conda", "envs")]
    for r in rs:
        if is_prefix(r):
            found.setdefault("base", r)
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            if is_prefix(os.path.join(d, n)):
                found.setdefault(n, os.path.join(d, n))
    try:
        for ln in open(os.path.join(home, ".conda", "environments.txt")).read().splitlines():
            p = ln.strip()
            if p and is_prefix(p):
                found.setdefault(os.path.basename(p.rstrip("/")), p)
    except OSError:
        pass
    return found


def conda_envs():
    for exe in ("conda", "mamba", "micromamba"):
        try:
            out = subprocess.run([exe, "env", "list", "--json"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, timeout=60).stdout
            return [p for p in json.loads(out.decode("utf-8")).get("envs", []) if is_prefix(p)]
        except Exception:
            continue
    return []


def find(name):
    envs = known()
    if name in envs:
        return envs[name]
    for p in conda_envs():
        if os.path.basename(p.rstrip("/")) == name:
            return p
    names = ", ".join(sorted(envs)) or "none found"
    fail("no environment named %r on this machine (known: %s)" % (name, names))


if ARGS["name"]:
    prefix = find(ARGS["name"])
else:
    prefix = os.path.abspath(os.path.expanduser(ARGS["path"]))
    if os.path.isfile(prefix):
        if os.path.getsize(prefix) > 64 * 1024 * 1024:
            fail("%s: larger than the 64 MiB envkit reads" % prefix, 4)
        with open(prefix, "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
        sys.stdout.write(ARGS["mark"] + "\n")
        json.dump({"kind": "file", "name": os.path.basename(prefix), "text": text}, sys.stdout)
        sys.exit(0)
    if not os.path.exists(prefix):
        fail("no such file or directory: %s" % prefix)
    if not is_prefix(prefix):
        fail("not a conda environment (no conda-meta/ directory): %s" % prefix)
if PROBE:
    # the machine's facts in the same session (a diff header); a failure never stops the scan
    try:
        g = {"__name__": "envkit_machine_probe"}
        exec(compile(PROBE, "machine_probe.py", "exec"), g)
        facts = g["collect"](pythons=False)
    except Exception as exc:
        facts = {"error": "%s: %s" % (exc.__class__.__name__, exc)}
    sys.stdout.write(ARGS["machine_mark"] + "\n" + json.dumps(facts) + "\n")
sys.stdout.write(ARGS["mark"] + "\n")
sys.stdout.flush()
sys.argv = ["prefix_scan.py", prefix]
exec(compile(SCAN, "prefix_scan.py", "exec"), {"__name__": "__main__"})
'''
