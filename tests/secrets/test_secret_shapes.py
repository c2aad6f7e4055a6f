"""The secret shapes of issue 22, through the CLI: what envkit redacts, leaked-secret reports."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from conftest import CORPUS, run_envkit

GH = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
HF = "hf_" + "Qw3rTy5uIo7pAs9dFg1hJk3lZx5cVb7nM9"
SLACK = "xoxb-" + "1234567890-0987654321-aBcDeFgHiJkLmN"

PYLOCK = """lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.11"

[[packages]]
name = "tool"
version = "2.0"
index = "https://alice:hunter2x@pypi.example.org/simple"
[[packages.wheels]]
url = "https://s3cr3ttoken9@pypi.example.org/packages/tool-2.0-py3-none-any.whl"
hashes = {sha256 = "0e09be56bfb2ab85b213e5edf9af10df37bda472547395c36baa44bc3926101a"}
"""


def _secret_lines(path) -> list[str]:
    r = run_envkit("check", str(path))
    assert r.exit_code == 1, r.stderr
    return [ln for ln in r.stdout.splitlines() if " leaked-secret: " in ln]


def _env(tmp_path: Path) -> Path:
    base = (CORPUS / "09_CompVis__stable-diffusion__environment.yaml").read_text()
    path = tmp_path / "environment.yml"
    path.write_text(
        base.replace("    - -e .\n", "    - git+https://s3cr3ttok@github.com/org/repo.git\n    - -e .\n")
        + "variables:\n"
        "  OPENAI_API_KEY: sk-abc123def456\n"
        "  MY_SECRET_THING: topsecretvalue\n"
        "  GH_TOKEN_X: tokval99\n"
        "  DB_PASSWORD_MAIN: pwval42\n"
        "  GCP_CREDENTIALS: credval7\n"
        "  GOOGLE_APPLICATION_CREDENTIALS: ~/.config/gcloud/key.json\n"
        f"  NOTIFY: {SLACK}\n"
        f"# old token: {GH}\n"
        f"  OMP_NUM_THREADS: 4  # {HF}\n"
    )
    return path


def test_check_reports_every_secret_normalize_redacts(tmp_path):
    env = _env(tmp_path)
    lines = _secret_lines(env)
    assert [ln.split(": error leaked-secret: ", 1)[1] for ln in lines] == [
        "an access token in a URL: git+https://<TOKEN>@github.com/org/repo.git",
        "a credential in a variable: OPENAI_API_KEY: <TOKEN>",
        "a credential in a variable: MY_SECRET_THING: <TOKEN>",
        "a credential in a variable: GH_TOKEN_X: <TOKEN>",
        "a credential in a variable: DB_PASSWORD_MAIN: <TOKEN>",
        "a credential in a variable: GCP_CREDENTIALS: <TOKEN>",
        "a Slack token in the text (xoxb-...)",
        "a GitHub token in a comment (ghp_...)",
        "a Hugging Face token in a comment (hf_...)",
    ]
    assert [int(ln.split(":")[1]) for ln in lines] == [31, 34, 35, 36, 37, 38, 40, 41, 42]
    run_envkit("check", "--fix", str(env))
    assert all(s not in env.read_text() for s in (GH, HF, SLACK, "s3cr3ttok", "topsecretvalue", "credval7"))
    assert "leaked-secret" not in run_envkit("check", str(env)).stdout


def test_convert_to_env_redacts_secret_named_variables(tmp_path):
    r = run_envkit("convert", str(_env(tmp_path)), "--to", "env")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split("variables:\n", 1)[1] == (
        "  OPENAI_API_KEY: <TOKEN>\n"
        "  MY_SECRET_THING: <TOKEN>\n"
        "  GH_TOKEN_X: <TOKEN>\n"
        "  DB_PASSWORD_MAIN: <TOKEN>\n"
        "  GCP_CREDENTIALS: <TOKEN>\n"
        "  GOOGLE_APPLICATION_CREDENTIALS: ~/.config/gcloud/key.json\n"
        "  NOTIFY: <TOKEN>\n"
        '  OMP_NUM_THREADS: "4"\n'
    )
    assert "git+https://<TOKEN>@github.com/org/repo.git" in r.stdout


def test_a_token_only_user_part_is_reported_and_redacted_in_pylock(tmp_path):
    lock = tmp_path / "pylock.toml"
    lock.write_text(PYLOCK)
    assert _secret_lines(lock) == [
        f"{lock}:8: error leaked-secret: a user name and password in a URL: "
        "https://<USER>:<PASSWORD>@pypi.example.org/simple",
        f"{lock}:10: error leaked-secret: an access token in a URL: "
        "https://<TOKEN>@pypi.example.org/packages/tool-2.0-py3-none-any.whl",
    ]
    out = tmp_path / "out.pylock.toml"
    r = run_envkit("convert", str(lock), "--platform", "linux-64", "--to", "pylock", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert 'url = "https://<TOKEN>@pypi.example.org/packages/tool-2.0-py3-none-any.whl"' in out.read_text()


def test_the_sbom_carries_no_credential_in_any_encoding(tmp_path):
    lock = tmp_path / "pylock.toml"
    lock.write_text(PYLOCK)
    sbom = tmp_path / "sbom.cdx.json"
    run_envkit("convert", str(lock), "--platform", "linux-64", "-o", str(sbom))
    text = sbom.read_text()
    for secret in ("hunter2x", "s3cr3ttoken9"):
        for form in (secret, quote(secret, safe=""), quote(f"alice:{secret}", safe="")):
            assert form not in text
    (tool,) = json.loads(text)["components"]
    assert tool["purl"] == (
        "pkg:pypi/tool@2.0?file_name=tool-2.0-py3-none-any.whl"
        "&repository_url=https%3A%2F%2Fpypi.example.org%2Fsimple"
    )
    assert tool["externalReferences"] == [
        {"type": "distribution", "url": "https://<TOKEN>@pypi.example.org/packages/tool-2.0-py3-none-any.whl"}
    ]


def test_a_percent_encoded_credential_is_reported_and_redacted(tmp_path):
    req = tmp_path / "requirements.txt"
    enc = "https%3A%2F%2Falice%3Ahunter2x%40pypi.example.org%2Fsimple"
    req.write_text(f"# sbom: pkg:pypi/tool@2.0?repository_url={enc}\ntool==2.0\n")
    assert _secret_lines(req) == [
        f"{req}:1: error leaked-secret: a user name and password in a percent-encoded URL: "
        "https%3A%2F%2F%3CUSER%3E%3A%3CPASSWORD%3E%40pypi.example.org%2Fsimple"
    ]
    n = run_envkit("normalize", str(req))
    assert "hunter2x" not in n.stdout and "%3CUSER%3E%3A%3CPASSWORD%3E%40pypi.example.org" in n.stdout
