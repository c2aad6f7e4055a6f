"""Every writer and every command, on every issue-22 secret shape: no secret comes out raw,
percent-encoded, JSON-escaped or base64'd (user:password), and `check` reports each file."""

from __future__ import annotations

import base64
import json
import string
from urllib.parse import quote

from conftest import run_envkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envkit.convert import TARGETS

_R = st.text(string.ascii_letters + string.digits, min_size=16, max_size=20)


def _forms(v: str) -> set[str]:
    return {v, quote(v, safe=""), json.dumps(v)[1:-1]}


@settings(
    max_examples=10,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(_R)
def test_every_writer_and_command_redacts_every_shape(tmp_path_factory, r):
    pw = f"p@ss:w/rd{r}"
    s = {
        "pw": pw,
        "tok": f"tk{r}9",
        "t": f"tt-{r}1",
        "q": f"qv{r}3",
        "gh": "ghp_" + (r * 3)[:36],
        "hf": "hf_" + (r * 2)[:34],
        "slack": f"xoxb-1234567890-{r}",
        "api": f"ak{r}5",
        "cred": f"cr{r}7",
    }
    ep = quote(pw, safe="")
    root = tmp_path_factory.mktemp("w")
    md5 = "d41d8cd98f00b204e9800998ecf8427e"
    files = {
        "environment.yml": f"""name: demo
channels:
  - https://conda.anaconda.org/t/{s["t"]}/private
  - https://mirror:{ep}@conda.example.org/conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
    - --index-url https://deploy:{ep}@pypi.example.org/simple
    - --extra-index-url https://{s["tok"]}@pypi.example.org/simple
    - --extra-index-url https://pypi.example.org/simple?token={s["q"]}
    - requests==2.31.0  # {s["hf"]}
variables:
  SERVICE_API_KEY: {s["api"]}
  DB_CREDENTIAL: {s["cred"]}
  NOTIFY: {s["slack"]}
# {s["gh"]}
""",
        "explicit.txt": f"# platform: linux-64\n@EXPLICIT\n"
        f"https://conda.anaconda.org/t/{s['t']}/conda-forge/linux-64/zlib-1.3.1-h4ab18f5_1.conda#{md5}\n"
        f"https://u:{ep}@repo.example.org/c/linux-64/xz-5.4.6-h5eee18b_1.conda#{md5}\n",
        "requirements.txt": f"--index-url https://deploy:{ep}@pypi.example.org/simple\n"
        f"requests==2.31.0  # {s['gh']}\n",
        "pylock.toml": f"""lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.11"

[[packages]]
name = "tool"
version = "2.0"
index = "https://alice:{ep}@pypi.example.org/simple"
[[packages.wheels]]
url = "https://{s["tok"]}@pypi.example.org/packages/tool-2.0-py3-none-any.whl"
hashes = {{sha256 = "0e09be56bfb2ab85b213e5edf9af10df37bda472547395c36baa44bc3926101a"}}
""",
    }
    for name, text in files.items():
        (root / name).write_text(text)
    out = root / "out"
    out.mkdir()
    cmds = []
    for name in files:
        p = str(root / name)
        for t in TARGETS:
            cmds.append(["convert", "--allow-loss", "--to", t, "-o", str(out / f"{name}.{t}"), p])
            cmds.append(["convert", "--allow-loss", "--json", "--to", t, "-o", "-", p])
        cmds += [["normalize", p], ["validate", p]]
        cmds += [["check", "--format", f, p] for f in ("text", "json", "sarif", "github")]
        cmds += [
            ["diff", "--format", f, "--all", p, str(root / "explicit.txt")]
            for f in ("text", "json", "markdown")
        ]
    bad = set().union(*(_forms(v) for v in s.values()))
    bad |= {base64.b64encode(f"{u}:{pw}".encode()).decode() for u in ("mirror", "deploy", "u", "alice")}
    leaks = []
    for args in cmds:
        res = run_envkit(*args, env={"NO_COLOR": "1"}, cwd=root)
        assert res.exit_code in (0, 1, 2), (args, res.stderr)
        leaks += [(args, b) for b in bad if b in res.stdout or b in res.stderr]
    for f in out.iterdir():
        data = f.read_text(errors="replace")
        leaks += [(f.name, b) for b in bad if b in data]
    assert leaks == []
    for name in files:
        res = run_envkit("check", "--format", "json", str(root / name), cwd=root)
        assert "leaked-secret" in res.stdout, name
