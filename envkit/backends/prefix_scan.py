#!/usr/bin/env python3
"""Scan a conda prefix and print one JSON object: a standalone, stdlib-only script.

This file never imports envkit (or anything outside the standard library), so that it can be run
by any Python 3.6+ - locally, or streamed over ssh to a remote interpreter
(`ssh host python3 - PREFIX < prefix_scan.py`).  envkit maps its output to a LiveEnv with
`envkit.backends.native.live_env_from_scan`; the native backend uses the same function, so both
paths agree.

    python3 prefix_scan.py PREFIX [--files] [--home DIR]

Output (`scan_version` 1):

    {"scan_version": 1, "prefix": "/abs/prefix", "platform": "linux-64",
     "records": [{"name", "version", "build", "build_number", "channel", "subdir", "fn", "url",
                  "md5", "sha256", "depends", "constrains", "noarch", "requested_spec",
                  "requested_specs", "file": "conda-meta/<fn>.json", "dist_infos": [...],
                  "dist_installers": {dist: {"listed": bool, "sha256": str | null}}}],
     "errors": [{"path": "...", "message": "...", "key": field (a wrong-typed one; optional)}],
     "history": "conda-meta/history's text" | "",  # replayed by envkit.conda.history
     "pip": [{"name", "version", "installer", "direct_url": {...} | null, "path", "format",
              "over_conda": conda name (only for a dist-info a conda record ships that pip
              installed again over conda's: INSTALLER rewritten)}],
     "owned": {conda name: [dist-info dir names it ships]},
     "missing": [{"name": conda name, "dist": dist-info it owns that is gone}],
     "condarc": [{"path": "...", "text": "..."}],   # the .condarc search path, lowest priority first
     "environ": {"CONDA_CHANNEL_PRIORITY": ..., ...},
     "state": {"VAR": "value"},                    # conda-meta/state env_vars
     "python_version": "3.11.8" | null, "site_packages": ["lib/python3.11/site-packages"],
     "incomplete": bool}                           # an `envkit create` did not finish it (INCOMPLETE)

Errors are data, not exceptions: an unreadable record goes to `errors` with its path, and the
caller decides.  With `--files`, each record also carries its full `files` list.
"""

import json
import os
import platform as _platform
import sys

SCAN_VERSION = 1
#: the mark `envkit create` leaves in a prefix until its last step is done (relative to the prefix)
INCOMPLETE = "conda-meta/.envkit-incomplete"

# The .condarc search path, lowest priority first (conda/base/constants.py SEARCH_PATH): each
# directory's `.condarc`, `condarc` and `condarc.d/*.yml`, with `~/.condarc` before the prefix's own.
_CONDARC_NAMES = (".condarc", "condarc", "condarc.d/")
_SEARCH_PATH = (
    tuple(
        d + n
        for d in ("/etc/conda/", "/var/lib/conda/", "$CONDA_ROOT/", "$XDG_CONFIG_HOME/conda/")
        + ("~/.config/conda/", "~/.conda/")
        for n in _CONDARC_NAMES
    )
    + ("~/.condarc",)
    + tuple("$CONDA_PREFIX/" + n for n in _CONDARC_NAMES)
    + ("$CONDARC",)
)

#: Environment variables that override .condarc keys envkit reads.
_ENV_KEYS = tuple(
    "CONDA_CHANNEL_PRIORITY CONDA_CHANNELS CONDA_ENVS_PATH CONDA_ENVS_DIRS "
    "CONDA_ROOT CONDA_EXE MAMBA_ROOT_PREFIX CONDARC CONDA_PKGS_DIRS".split()
)

_RECORD_KEYS = tuple(
    "name version build build_number channel subdir fn url md5 "
    "sha256 depends constrains noarch requested_spec requested_specs license timestamp size".split()
)


def host_platform(system=None, machine=None):
    # type: (str | None, str | None) -> str
    """The conda subdir (`linux-64`, `osx-arm64`, `win-64`, ...) of a machine from what
    platform.system() and platform.machine() (text) say there (this machine's when None), from the
    standard library: envkit's one answer, here because this script also runs on remote hosts.
    (A type comment, not annotations: `str | None` is evaluated at definition before 3.10, and
    remote hosts may run 3.6.)"""
    system = _platform.system() if system is None else system
    machine = (_platform.machine() if machine is None else machine).lower()
    arch = {
        "x86_64": "64",
        "amd64": "64",
        "aarch64": "aarch64",
        "arm64": "arm64",
        "ppc64le": "ppc64le",
        "s390x": "s390x",
        "i686": "32",
        "i386": "32",
        "x86": "32",
    }.get(machine, machine)
    if system == "Linux":
        return "linux-" + arch
    if system == "Darwin":
        return "osx-" + ("arm64" if arch in ("arm64", "aarch64") else "64")
    if system == "Windows":
        return "win-" + ("arm64" if arch in ("arm64", "aarch64") else arch)
    return system.lower() + "-" + arch


def _dist_dir(path):
    """`lib/python3.11/site-packages/x-1.dist-info/RECORD` -> `lib/.../x-1.dist-info`, else None."""
    i = path.find(".dist-info/")
    if i < 0:
        i = path.find(".egg-info")
        if i < 0:
            return None
        return path[: i + 9]
    return path[: i + 10]


def read_records(prefix, with_files=False):
    """(records, errors): every conda-meta/*.json of `prefix`, reduced to the keys envkit uses."""
    meta = os.path.join(prefix, "conda-meta")
    records, errors = [], []
    try:
        names = sorted(n for n in os.listdir(meta) if n.endswith(".json"))
    except OSError as exc:
        return records, [{"path": meta, "message": exc.strerror or str(exc)}]
    for fname in names:
        path = os.path.join(meta, fname)
        try:
            with open(path, "rb") as fh:
                data = json.loads(fh.read().decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # json's answer to a hostile nesting
            errors.append({"path": path, "message": _json_message(exc)})
            continue
        if not isinstance(data, dict) or not data.get("name") or not data.get("version"):
            errors.append({"path": path, "message": "not a conda package record (no name/version)"})
            continue
        bad = _wrong_type(data)
        if bad is not None:
            errors.append({"path": path, "key": bad[0], "message": bad[1]})
            continue
        rec = {k: data.get(k) for k in _RECORD_KEYS if k in data}
        for k in _LENIENT_KEYS:
            if k in rec and not isinstance(rec[k], _LENIENT_KEYS[k]):
                del rec[k]  # informational only: a wrong type there is dropped, not an error
        rec["file"] = "conda-meta/" + fname
        files = data.get("files") or []
        dists = []
        for f in files:
            if "-info" in f:
                d = _dist_dir(f)
                if d and d not in dists:
                    dists.append(d)
        rec["dist_infos"] = dists
        if dists:
            rec["dist_installers"] = _dist_installers(data, files, dists)
        if with_files:
            rec["files"] = list(files)
        records.append(rec)
    return records, errors


_STR = (str,)
_OPT_STR = (str, type(None))
#: key -> (allowed types, what to call them, type of each list item or None); a record whose field
#: has another type is refused by key (a hand-edited or truncated record), never crashes the reader
_FIELD_TYPES = {
    "name": (_STR, "a string", None),
    "version": (_STR, "a string", None),
    "build": (_OPT_STR, "a string", None),
    "build_number": ((int, str, type(None)), "an integer", None),
    "channel": (_OPT_STR, "a string", None),
    "subdir": (_OPT_STR, "a string", None),
    "fn": (_OPT_STR, "a string", None),
    "url": (_OPT_STR, "a string", None),
    "md5": (_OPT_STR, "a string", None),
    "sha256": (_OPT_STR, "a string", None),
    "noarch": ((str, bool, type(None)), "a string", None),
    "requested_spec": (_OPT_STR, "a string", None),
    "depends": ((list, type(None)), "a list of strings", str),
    "constrains": ((list, type(None)), "a list of strings", str),
    "requested_specs": ((list, type(None)), "a list of strings", str),
    "files": ((list, type(None)), "a list of strings", str),
    "paths_data": ((dict, type(None)), "an object", None),
}
#: informational keys a scan passes on only when they have the expected type
_LENIENT_KEYS = {"license": (str,), "timestamp": (int, float), "size": (int,)}


def _type_name(value):
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _wrong_type(data):
    """(key, message) for the first field of a record whose JSON type is not the one conda writes,
    else None."""
    for key, (types, what, item) in _FIELD_TYPES.items():
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return key, f"{key} must be {what}, not {_type_name(value)}"
        # the types of a list's items, gathered in C: a record's `files` lists thousands
        if item is not None and value and not set(map(type, value)) <= {item}:
            for i, x in enumerate(value):
                if not isinstance(x, item):
                    return f"{key}[{i}]", f"{key}[{i}] must be a string, not {_type_name(x)}"
    return None


def _dist_installers(data, files, dists):
    """{dist-info dir: {"listed": whether the record ships its INSTALLER file, "sha256": the hash
    the record gives that file (`sha256_in_prefix`, else `sha256`), or None}}."""
    wanted = {d + "/INSTALLER": d for d in dists}
    out = {d: {"listed": False, "sha256": None} for d in dists}
    for f in files:
        if f in wanted:
            out[wanted[f]]["listed"] = True
    paths = (data.get("paths_data") or {}).get("paths") if isinstance(data.get("paths_data"), dict) else None
    for entry in paths or ():
        if isinstance(entry, dict) and entry.get("_path") in wanted:
            out[wanted[entry["_path"]]]["sha256"] = entry.get("sha256_in_prefix") or entry.get("sha256")
    return out


def reinstalled_over_conda(prefix, dist, info):
    """True when the dist-info `dist` (prefix-relative) that a conda record ships was installed again
    by pip (or uv) over conda's files: pip rewrites INSTALLER, so it now says another installer than
    conda and is not the file the record lists (another sha256 than the record's, or not listed at
    all).  A record without the file's hash is judged by the installer's name alone."""
    try:
        with open(os.path.join(prefix, dist, "INSTALLER"), "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    if data.decode("utf-8", "replace").strip().lower() in ("", "conda"):
        return False
    if info.get("listed") and info.get("sha256"):
        import hashlib  # here: most scans compare no INSTALLER file

        return hashlib.sha256(data).hexdigest() != str(info["sha256"]).lower()
    return True


def _json_message(exc):
    if isinstance(exc, OSError):
        return "cannot read: " + (exc.strerror or str(exc))
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deep to read"
    return "invalid JSON: " + str(exc)


def _read_metadata(path):
    """(name, version) from a METADATA / PKG-INFO file (the first header of each)."""
    name = version = None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break
                if name is None and line.startswith("Name:"):
                    name = line[5:].strip()
                elif version is None and line.startswith("Version:"):
                    version = line[8:].strip()
                if name and version:
                    break
    except OSError:
        pass
    return name, version


def _read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def site_packages_dirs(prefix):
    """Prefix-relative site-packages directories (`lib/python3.11/site-packages`, Windows' `Lib/...`)."""
    out = []
    lib = os.path.join(prefix, "lib")
    try:
        for n in sorted(os.listdir(lib)):
            if n.startswith("python") and os.path.isdir(os.path.join(lib, n, "site-packages")):
                out.append("lib/" + n + "/site-packages")
    except OSError:
        pass
    if os.path.isdir(os.path.join(prefix, "Lib", "site-packages")):
        out.append("Lib/site-packages")
    return out


def scan_pip(prefix, site_dirs, owned_dirs):
    """Python distributions in site-packages that no conda record owns (pip's, uv's, ...)."""
    found = []
    for site in site_dirs:
        base = os.path.join(prefix, site)
        try:
            entries = sorted(os.listdir(base))
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".dist-info"):
                fmt = "dist-info"
            elif entry.endswith(".egg-info"):
                fmt = "egg-info"
            else:
                continue
            rel = site + "/" + entry
            if rel in owned_dirs:
                continue
            found.append(pip_item(prefix, rel, fmt))
    return found


def pip_item(prefix, rel, fmt="dist-info"):
    """One Python distribution of site-packages (`rel`: its prefix-relative .dist-info/.egg-info):
    {"name", "version", "installer", "direct_url", "path", "format"}."""
    full = os.path.join(prefix, rel)
    entry = rel.rsplit("/", 1)[-1]
    if fmt == "dist-info":
        name, version = _read_metadata(os.path.join(full, "METADATA"))
    elif os.path.isdir(full):
        name, version = _read_metadata(os.path.join(full, "PKG-INFO"))
    else:
        name, version = _read_metadata(full)
    if not name:
        stem = entry.rsplit(".", 1)[0]
        parts = stem.split("-")
        name, version = parts[0], (parts[1] if len(parts) > 1 else version)
    installer = None
    direct = None
    if os.path.isdir(full):
        text = _read_text(os.path.join(full, "INSTALLER"))
        installer = text.strip() if text else None
        text = _read_text(os.path.join(full, "direct_url.json"))
        if text:
            try:
                direct = json.loads(text)
            except (ValueError, RecursionError):
                direct = None
    return {
        "name": name,
        "version": version or "",
        "installer": installer,
        "direct_url": direct,
        "path": rel,
        "format": fmt,
    }


def condarc_files(prefix, environ=None, home=None):
    """The .condarc search path as (path, text) pairs, lowest priority first.

    `$CONDA_PREFIX` is the scanned prefix (its own .condarc), `$CONDA_ROOT` comes from the
    environment or from CONDA_EXE's install root.
    """
    env = dict(os.environ if environ is None else environ)
    home = home or env.get("HOME") or os.path.expanduser("~")
    root = env.get("CONDA_ROOT")
    if not root and env.get("CONDA_EXE"):
        root = os.path.dirname(os.path.dirname(env["CONDA_EXE"]))
    values = {
        "CONDA_ROOT": root,
        "XDG_CONFIG_HOME": env.get("XDG_CONFIG_HOME"),
        "CONDA_PREFIX": prefix,
        "CONDARC": env.get("CONDARC"),
    }
    out = []
    seen = set()
    for entry in _SEARCH_PATH:
        if entry.startswith("~"):
            path = home + entry[1:]
        elif entry.startswith("$"):
            var, _, rest = entry[1:].partition("/")
            if not values.get(var):
                continue
            path = values[var] + ("/" + rest if rest else "")
        else:
            path = entry
        if path.endswith("/"):
            try:
                names = sorted(n for n in os.listdir(path) if n.endswith((".yml", ".yaml")))
            except OSError:
                continue
            paths = [os.path.join(path, n) for n in names]
        else:
            paths = [path]
        for p in paths:
            real = os.path.realpath(p)
            if real in seen or not os.path.isfile(p):
                continue
            seen.add(real)
            text = _read_text(p)
            if text is not None:
                out.append({"path": p, "text": text})
    return out


def read_state(prefix):
    """conda-meta/state's env_vars (`conda env config vars set`), {} when absent."""
    text = _read_text(os.path.join(prefix, "conda-meta", "state"))
    if not text:
        return {}
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    vars_ = data.get("env_vars") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in vars_.items()} if isinstance(vars_, dict) else {}


def scan(prefix, with_files=False, environ=None, home=None):
    """Everything envkit reads from a prefix, as one JSON-serializable dict (see the module doc)."""
    prefix = os.path.abspath(prefix)
    records, errors = read_records(prefix, with_files)
    owned = {}
    owned_dirs = set()
    missing = []
    platform = None
    python_version = None
    over = []
    for rec in records:
        sub = rec.get("subdir")
        if platform is None and sub and sub != "noarch":
            platform = sub
        if rec["name"] == "python":
            python_version = rec["version"]
        dists = rec.get("dist_infos") or []
        if dists:
            owned[rec["name"]] = [d.rsplit("/", 1)[-1] for d in dists]
            installers = rec.get("dist_installers") or {}
            for d in dists:
                owned_dirs.add(d)
                if not os.path.exists(os.path.join(prefix, d)):
                    missing.append({"name": rec["name"], "dist": d})
                elif d.endswith(".dist-info") and reinstalled_over_conda(prefix, d, installers.get(d) or {}):
                    # pip reinstalled the same dist-info over conda's: pip's now, the record stays
                    item = pip_item(prefix, d)
                    item["over_conda"] = rec["name"]
                    over.append(item)
    site_dirs = site_packages_dirs(prefix)
    env = os.environ if environ is None else environ
    return {
        "scan_version": SCAN_VERSION,
        "prefix": prefix,
        "platform": platform or host_platform(),
        "records": records,
        "errors": errors,
        "history": _read_text(os.path.join(prefix, "conda-meta", "history")) or "",
        "pip": scan_pip(prefix, site_dirs, owned_dirs) + over,
        "owned": owned,
        "missing": missing,
        "condarc": condarc_files(prefix, environ, home),
        "environ": {k: env[k] for k in _ENV_KEYS if env.get(k)},
        "state": read_state(prefix),
        "python_version": python_version,
        "site_packages": site_dirs,
        "is_prefix": os.path.isdir(os.path.join(prefix, "conda-meta")),
        "incomplete": os.path.exists(os.path.join(prefix, INCOMPLETE)),
    }


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    with_files = "--files" in argv
    home = None
    if "--home" in argv:
        i = argv.index("--home")
        home = argv[i + 1]
        del argv[i : i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        sys.stderr.write("usage: prefix_scan.py PREFIX [--files] [--home DIR]\n")
        return 2
    json.dump(scan(args[0], with_files=with_files, home=home), sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
