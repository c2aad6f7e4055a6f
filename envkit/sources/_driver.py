"""The program streamed to a remote host's Python by an `ssh://` SOURCE (envkit.sources.ssh): it finds
the environment, optionally runs the machine probe, then runs the standalone prefix reader."""

# stdlib only, Python 3.6+.  Exit code 3 means "no such environment".
DRIVER = r'''
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
