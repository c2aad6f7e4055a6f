"""Redaction as a property: files seeded with credentials of every shape envkit detects, run through
every command and every --format; no byte that comes out (stdout, stderr, a written file) holds
one of them.

The shapes: an anaconda.org `/t/<token>/` channel and package URL, `user:password@` in an index and
a channel URL, a `?token=` parameter (in a URL, and in a bare request path as pip's warnings print
it), a token user part (`https://ghp_...@github.com`), a PyPI API token as `__token__`'s password,
secret `variables:` values (`HF_TOKEN`, `TWINE_PASSWORD`) and a token in a comment.  Each is
written into a well-formed file and into a malformed one (so that the parse error quotes it).
Bounded for CI: derandomized, a few examples.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

from conftest import run_envkit
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support.secretfiles import Secrets, conda_lock_text

_ALNUM = string.ascii_letters + string.digits
# long enough never to occur by chance in envkit's output; no placeholder-like `xxx`
_RAND = st.text(_ALNUM, min_size=14, max_size=24).filter(lambda s: "xxx" not in s.lower())


@st.composite
def secrets(draw) -> Secrets:
    r = [draw(_RAND) for _ in range(7)]
    return Secrets(
        t_token=f"tk-{r[0]}1",
        password=f"pw{r[1]}7",
        query=f"qv{r[2]}3",
        gh=f"ghp_{r[3]}{r[3]}"[:40],
        pypi=f"pypi-AgE{r[4]}{r[4]}",
        hf=f"hf_{r[5]}{r[5]}",
        twine=f"tw{r[6]}5",
    )


def _env_yml(s: Secrets) -> str:
    return f"""name: demo
channels:
  - https://conda.anaconda.org/t/{s.t_token}/private
  - https://mirror:{s.password}@conda.example.org/conda-forge
  - conda-forge
dependencies:
  - python=3.11
  - numpy>=1.26
  - pip
  - pip:
    - --index-url https://deploy:{s.password}@pypi.example.org/simple
    - --extra-index-url https://pypi.example.org/simple?token={s.query}
    - --extra-index-url https://__token__:{s.pypi}@upload.example.org/simple
    - git+https://{s.gh}@github.com/org/repo.git
    - internal-tool==1.0
    # pip warned: connection broken by NewConnectionError: /simple?token={s.query}/internal-tool/
variables:
  HF_TOKEN: {s.hf}
  TWINE_PASSWORD: {s.twine}
# old channel: https://conda.anaconda.org/t/{s.t_token}/legacy
"""


def _env_yml_clean() -> str:
    return "name: demo\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n"


def _broken_env_ymls(s: Secrets) -> list[str]:
    """Environment files a reader refuses, each quoting a credential in its error."""
    return [
        f'channels: [conda-forge]\ndependencies:\n  - "https://conda.anaconda.org/t/{s.t_token}/private::numpy[[["\n',
        f'dependencies:\n  - pip:\n    - "--index-url https://deploy:{s.password}@h.example.org/simple  '
        'extra"\n'
        f'    - "x @ https://h.example.org/x.whl?token={s.query} ;; bad"\n',
        f"dependencies:\n  - python=3.11\ndependencies:\n  - https://{s.gh}@github.com/x\n",
        f'dependencies: ["numpy=>1 https://__token__:{s.pypi}@h.example.org/"]\nvariables: '
        f"{{HF_TOKEN: {s.hf}\n",
        f"variables:\n  TWINE_PASSWORD: [{s.twine}\n",
    ]


_MD5 = "d41d8cd98f00b204e9800998ecf8427e"


def _explicit(s: Secrets) -> str:
    return (
        f"# platform: linux-64\n@EXPLICIT\n"
        f"https://conda.anaconda.org/t/{s.t_token}/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda#{_MD5}\n"
        f"https://user:{s.password}@repo.example.org/conda-forge/linux-64/zlib-1.3.1-h4ab18f5_1.conda#{_MD5}\n"
    )


def _broken_explicits(s: Secrets) -> list[str]:
    return [
        f"@EXPLICIT\nhttps://repo.example.org/pkg.conda?token={s.query}\n",
        f"@EXPLICIT\nhttps://user:{s.password}@repo.example.org/linux-64/zlib-1.3.1-h_1.conda#nothex\n",
        f"@EXPLICIT\nhttps://conda.anaconda.org/t/{s.t_token}/c/linux-64/not-a-package.txt\n",
    ]


def _requirements(s: Secrets) -> str:
    return (
        f"--index-url https://deploy:{s.password}@pypi.example.org/simple\n"
        f"--extra-index-url https://pypi.example.org/simple?token={s.query}\n"
        f"git+https://{s.gh}@github.com/org/repo.git#egg=repo\n"
        f"requests==2.31.0  # via https://__token__:{s.pypi}@upload.example.org/simple\n"
    )


def _broken_requirements(s: Secrets) -> list[str]:
    return [
        f"requests @ https://deploy:{s.password}@h.example.org/r.whl ;;; bad\n",
        f"--index-url\nnumpy[[https://pypi.example.org/simple?token={s.query}\n",
        f"-e https://{s.gh}@github.com/org/repo.git[[\n",
    ]


def _broken_conda_lock(s: Secrets) -> str:
    return conda_lock_text(s).replace(
        "  version: 1.26.4\n", '  version: [1.26.4, "https://u:' + s.password + '@x/"]\n'
    )


def _prefix(root: Path, s: Secrets) -> Path:
    prefix = root / "env"
    meta = prefix / "conda-meta"
    meta.mkdir(parents=True)
    (meta / "history").write_text(
        "==> 2024-01-01 00:00:00 <==\n# cmd: conda create -p env numpy\n"
        f"+https://conda.anaconda.org/t/{s.t_token}/private/linux-64::numpy-1.26.4-py311_0\n"
        f'# update specs: ["https://conda.anaconda.org/t/{s.t_token}/private::numpy"]\n'
    )
    (meta / "numpy-1.26.4-py311_0.json").write_text(
        json.dumps(
            {
                "name": "numpy",
                "version": "1.26.4",
                "build": "py311_0",
                "build_number": 0,
                "channel": f"https://conda.anaconda.org/t/{s.t_token}/private/linux-64",
                "subdir": "linux-64",
                "url": f"https://conda.anaconda.org/t/{s.t_token}/private/linux-64/numpy-1.26.4-py311_0.conda",
                "md5": _MD5,
                "depends": [],
                "files": [],
            }
        )
    )
    (meta / "zlib-1.3.1-h_1.json").write_text(
        json.dumps(
            {
                "name": "zlib",
                "version": "1.3.1",
                "build": "h_1",
                "build_number": 1,
                "channel": f"https://user:{s.password}@repo.example.org/conda-forge/linux-64",
                "subdir": "linux-64",
                "url": f"https://user:{s.password}@repo.example.org/conda-forge/linux-64/zlib-1.3.1-h_1.conda",
                "depends": [],
                "files": [],
            }
        )
    )
    (meta / "state").write_text(json.dumps({"env_vars": {"HF_TOKEN": s.hf, "TWINE_PASSWORD": s.twine}}))
    return prefix


def _files(root: Path, s: Secrets) -> dict[str, Path]:
    files = {
        "env": ("environment.yml", _env_yml(s)),
        "clean": ("clean.yml", _env_yml_clean()),
        "explicit": ("explicit.txt", _explicit(s)),
        "requirements": ("requirements.txt", _requirements(s)),
        "lock": ("conda-lock.yml", conda_lock_text(s)),
        "badlock": ("bad-conda-lock.yml", _broken_conda_lock(s)),
    }
    for i, text in enumerate(_broken_env_ymls(s)):
        files[f"badenv{i}"] = (f"bad{i}.yml", text)
    for i, text in enumerate(_broken_explicits(s)):
        files[f"badexplicit{i}"] = (f"bad{i}-explicit.txt", text)
    for i, text in enumerate(_broken_requirements(s)):
        files[f"badreq{i}"] = (f"bad{i}-requirements.txt", text)
    out = {}
    for key, (name, text) in files.items():
        (root / name).write_text(text)
        out[key] = root / name
    return out


def _commands(f: dict[str, Path], prefix: Path, out: Path) -> list[list[str]]:
    cmds: list[list[str]] = []
    inputs = [p for k, p in f.items() if k != "clean"]
    for p in inputs:
        cmds += [
            ["validate", str(p)],
            ["normalize", str(p)],
            ["normalize", "--check", str(p)],
            ["normalize", "-o", str(out / f"{p.name}.normalized"), str(p)],
        ]
        for fmt in ("text", "json", "github", "sarif"):
            cmds.append(["check", "--format", fmt, str(p)])
        cmds.append(["check", "-o", str(out / f"{p.name}.check.sarif"), "--format", "sarif", str(p)])
        for fmt in ("text", "json", "markdown"):
            cmds.append(["diff", "--format", fmt, "--all", str(p), str(f["clean"])])
    cmds.append(["validate", *map(str, inputs)])
    cmds.append(["check", "--format", "json", *map(str, inputs)])
    for fmt in ("yaml", "explicit", "conda-lock", "json"):
        cmds.append(["export", "-p", str(prefix), "--format", fmt])
    cmds.append(["export", "-p", str(prefix), "--from-history"])
    cmds.append(["export", "-p", str(prefix), "-o", str(out / "exported.yml")])
    for fmt in ("text", "json", "github", "sarif"):
        cmds.append(["check", "-p", str(prefix), "--format", fmt, str(f["env"])])
    for fmt in ("text", "json", "markdown"):
        cmds.append(["diff", "--format", fmt, "--all", str(prefix), str(f["env"])])
        cmds.append(["diff", "--format", fmt, "--all", str(f["lock"]), str(f["explicit"])])
    cmds.append(["lock", "--check", "-f", str(f["env"]), "--lock", str(f["lock"])])
    cmds.append(["lock", "--check", "-f", str(f["env"]), "--lock", str(f["badlock"])])
    cmds.append(["lock", "-p", str(prefix), "-o", str(out / "locked.yml")])
    return cmds


def _writes(f: dict[str, Path], out: Path) -> list[list[str]]:
    """Commands that rewrite their input in place (run on copies)."""
    cmds = []
    for key in ("env", "explicit", "requirements", "lock"):
        for how in (["normalize", "--write"], ["check", "--fix"]):
            copy = out / f"{'-'.join(how)}-{f[key].name}"
            copy.write_bytes(f[key].read_bytes())
            cmds.append([*how, str(copy)])
    return cmds


def _leaks(data: bytes, s: Secrets) -> list[str]:
    return [v for v in s if v.encode() in data]


@settings(
    max_examples=2,
    derandomize=True,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(secrets())
def test_no_command_prints_or_writes_a_secret(tmp_path_factory, s):
    root = tmp_path_factory.mktemp("secrets")
    home = root / "home"
    home.mkdir()
    out = root / "out"
    out.mkdir()
    f = _files(root, s)
    prefix = _prefix(root, s)
    env = {"HOME": str(home), "CONDARC": None, "NO_COLOR": "1", "ENVKIT_DEBUG": None}
    leaks, internal = [], []
    for args in _commands(f, prefix, out) + _writes(f, out):
        r = run_envkit(*args, env=env, cwd=root)
        if r.exit_code == 3:
            internal.append((args, r.stderr))
        for stream, text in (("stdout", r.stdout), ("stderr", r.stderr)):
            found = _leaks(text.encode(), s)
            if found:
                leaks.append((args, stream, found))
    for written in sorted(out.iterdir()):
        found = _leaks(written.read_bytes(), s)
        if found:
            leaks.append((["(file)"], written.name, found))
    assert internal == []
    assert leaks == []
