"""envkit normalize / validate: canonical form, idempotence, comments kept, CLI behaviour."""

from __future__ import annotations

import shutil

import pytest
from conftest import CORPUS, DATA, corpus_files, corpus_text

from envkit.formats import detect_format, read_text
from envkit.formats.canonical import (
    normalize_lock,
    normalize_spec,
    normalize_text,
    split_inline_comment,
    text_selectors,
)
from envkit.model import EnvSpec

MESSY = DATA / "normalize" / "messy-environment.yml"
BAD = DATA / "normalize" / "bad-spec.yml"

MESSY_NORMALIZED = """\
# Laptop environment for the training code.
name: train
channels:
  - conda-forge
  - https://conda.anaconda.org/t/<TOKEN>/private-chan
  - defaults
dependencies:
  # numerics
  - numpy>=1.26,<2
  - pip
  - python=3.11
  - conda-forge::scipy
  - pip:
    - --extra-index-url https://<USER>:<PASSWORD>@pypi.example.com/simple
    - Pillow>=9
    - requests
    - torch==2.3.1  # matches the server
variables:
  OMP_NUM_THREADS: "4"
"""


def test_normalized_form():
    assert normalize_text(MESSY.read_text(), filename=str(MESSY)) == MESSY_NORMALIZED


#: envkit rewrites neither pixi.lock nor uv.lock (pixi and uv own them)
REWRITABLE = [p for p in corpus_files() if not p.name.endswith(("pixi.lock", "uv.lock"))]


@pytest.mark.parametrize("path", REWRITABLE, ids=lambda p: p.name[:12])
def test_corpus_idempotent_and_reparses_to_the_normalized_model(path):
    text = corpus_text(path)
    fmt = detect_format(text, path.name)
    once = normalize_text(text, filename=path.name)
    assert normalize_text(once, filename=path.name) == once
    original = read_text(text, filename=path.name)
    again = read_text(once, filename=path.name, format=fmt)
    if isinstance(original, EnvSpec):
        assert again == normalize_spec(original, selectors=text_selectors(text, fmt))
        # the machine's path goes, except where it is what makes a --no-builds export one
        assert again.kind == original.kind
        assert again.prefix is None or (original.kind == "export" and again.prefix == original.prefix)
    else:
        assert normalize_lock(again) == normalize_lock(original)


def test_every_comment_survives_on_the_corpus():
    for path in corpus_files():
        text = corpus_text(path)
        if detect_format(text, path.name) != "env":
            continue
        out = normalize_text(text, filename=path.name)
        comments = [
            split_inline_comment(ln)[1] or ln.strip()
            for ln in text.splitlines()
            if "#" in ln and (ln.strip().startswith("#") or split_inline_comment(ln)[1])
        ]
        for c in comments:
            assert c.rstrip() in out, (path.name, c)


def test_entries_under_different_selectors_are_not_duplicates():
    # conda-lock binds the LAST `[...]` of a comment: merging `# [linux]` and `# [win]` onto one line
    # would make it `[win]` only and the linux-64 lock would lose pytorch-cuda
    out = normalize_text((CORPUS / "01_FSadrieh__BERTchen__environment.yml").read_text())
    assert out.count("pytorch::pytorch-cuda=11.8") == 2
    assert (
        "  # CUDA only on linux and windows\n"
        "  - pytorch::pytorch-cuda=11.8  # [linux]\n"
        "  - pytorch::pytorch-cuda=11.8  # [win]\n"
        "  - ruff\n"
    ) in out
    assert normalize_text(out) == out


def test_duplicate_specs_merge_their_comments_under_one_selector():
    text = (
        "dependencies:\n  - numpy  # fast\n  - numpy  # arrays\n"
        "  - cudatoolkit  # [linux]\n  - cudatoolkit  # needed  [linux]\n  - cudatoolkit\n"
    )
    out = normalize_text(text)
    # file order among equal entries (a stable sort)
    assert out == (
        "dependencies:\n  - cudatoolkit  # [linux]  # needed  [linux]\n  - cudatoolkit\n"
        "  - numpy  # fast  # arrays\n"
    )
    assert normalize_text(out) == out


def test_entries_of_a_repeated_name_sort_by_their_text_and_others_by_name():
    # sorted by name; only a repeated name's entries are ordered by their canonical text, and a
    # name under a selector keeps its file order
    text = (
        "dependencies:\n  - zlib\n  - c>=2\n  - b=2  # [win]\n  - c=1\n  - b=1  # [linux]\n"
        "  - a\n  - c>=2\n  - C=1\n  - b=1\n"
    )
    out = normalize_text(text)
    assert out == (
        "dependencies:\n  - a\n  - b=2  # [win]\n  - b=1  # [linux]\n  - b=1\n  - c=1\n  - c>=2\n  - zlib\n"
    )
    assert normalize_text(out) == out


def test_byte_identical_for_equal_input():
    a = "dependencies:\n  - numpy\n  - python=3.11\nname: x\n"
    b = "name:   x\ndependencies: [python=3.11, numpy]\n"
    assert normalize_text(a) == normalize_text(b) == "name: x\ndependencies:\n  - numpy\n  - python=3.11\n"


def test_crlf_and_bom_are_normalized():
    text = "\ufeffname: x\r\ndependencies:\r\n  - numpy  # n\r\n"
    assert normalize_text(text) == "name: x\ndependencies:\n  - numpy  # n\n"


def test_requirements_normalized_with_comments():
    text = "# top\nzlib-ng\n-r base.txt\nAnyio>=4  # async\n# tests\npytest\nanyio>=4\npytest\n"
    assert normalize_text(text, filename="requirements.txt") == (
        "# top\n-r base.txt\nAnyio>=4  # async\nanyio>=4\n# tests\npytest\nzlib-ng\n"
    )


# --- CLI -----------------------------------------------------------------------------------


def test_cli_prints_normalized(envkit_cli):
    r = envkit_cli("normalize", str(MESSY))
    assert (r.exit_code, r.stdout, r.stderr) == (0, MESSY_NORMALIZED, "")


def test_cli_check(envkit_cli, tmp_path):
    f = tmp_path / "environment.yml"
    f.write_text("name: x\ndependencies:\n  - python=3.11\n  - numpy\n")
    r = envkit_cli("--help")
    r = envkit_cli("normalize", "--check", str(f))
    assert r.exit_code == 1
    assert r.stdout == (
        f"--- {f}\n+++ {f} (normalized)\n@@ -1,4 +1,4 @@\n name: x\n dependencies:\n"
        "+  - numpy\n   - python=3.11\n-  - numpy\n"
    )
    f.write_text("name: x\ndependencies:\n  - numpy\n  - python=3.11\n")
    r = envkit_cli("normalize", "--check", str(f))
    assert (r.exit_code, r.stdout) == (0, "")


def test_cli_write_keeps_comments_and_is_atomic(envkit_cli, tmp_path):
    f = tmp_path / "environment.yml"
    shutil.copy(MESSY, f)
    f.chmod(0o640)
    r = envkit_cli("normalize", "--write", str(f))
    assert (r.exit_code, r.stdout) == (0, f"normalized {f}\n")
    assert f.read_text() == MESSY_NORMALIZED
    assert f.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["environment.yml"]  # no temporary file left
    r = envkit_cli("normalize", "--write", str(f))
    assert (r.exit_code, r.stdout) == (0, f"{f} is already normalized\n")


def test_cli_output_file(envkit_cli, tmp_path):
    out = tmp_path / "out.yml"
    r = envkit_cli("normalize", str(MESSY), "-o", str(out))
    assert (r.exit_code, r.stdout) == (0, "")
    assert out.read_text() == MESSY_NORMALIZED


def test_cli_bad_spec_exit_2_no_traceback(envkit_cli):
    r = envkit_cli("normalize", str(BAD))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == (
        f"error: {BAD}:7: invalid match spec 'numpy>=1.2,,<2': unable to parse version spec: >=1.2,,<2\n"
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["--write", "--check", "x.yml"],
            "error: --write and --check do not go together: --check changes nothing\n",
        ),
        (["-o", "o.yml", "--write", "x.yml"], "error: -o/--output does not go with --write or --check\n"),
        (
            ["a.yml", "b.yml"],
            "error: several FILEs need --write or --check\nhint: normalize one file at a time to stdout\n",
        ),
    ],
)
def test_cli_usage_errors(envkit_cli, args, message):
    r = envkit_cli("normalize", *args)
    assert (r.exit_code, r.stderr) == (2, message)


def test_cli_pixi_is_not_rewritten(envkit_cli):
    r = envkit_cli("normalize", str(CORPUS / "57_1235467__SaltMPRIS__pixi.lock"))
    assert r.exit_code == 2
    assert r.stderr == (
        "error: envkit reads pixi.lock but does not rewrite it (pixi owns that file)\n"
        "hint: `envkit validate pixi.lock` checks it; `pixi lock` rewrites it\n"
    )


def test_cli_warns_about_duplicates_naming_the_file(envkit_cli):
    path = str(CORPUS / "04_Kennethborup__SeqSleepNet__environment.yml")
    r = envkit_cli("normalize", path)
    assert r.exit_code == 0
    assert r.stderr.startswith(f"warning: {path}: 'matplotlib' is installed by both conda")


def test_cli_stdin(envkit_cli):
    r = envkit_cli("normalize", "-", input="dependencies: [b, a]\n")
    assert (r.exit_code, r.stdout) == (0, "dependencies:\n  - a\n  - b\n")


def test_cli_stdin_is_read_as_every_command_reads_it(envkit_cli):
    # normalize and validate read standard input as check and diff do (envkit.stdin)
    r = envkit_cli("normalize", "-", input="dependencies: [b, a]\n".encode("utf-16"))
    assert (r.exit_code, r.stdout) == (0, "dependencies:\n  - a\n  - b\n")
    assert r.stderr == "note: <stdin>: read as UTF-16LE (it starts with a UTF-16LE byte-order mark)\n"
    r = envkit_cli("validate", "-", input=b"dependencies: [caf\xe9]\n")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[:2] == [
        "error: <stdin>:1: not UTF-8 text",
        "hint: pipe the file in as UTF-8",
    ]


def test_validate(envkit_cli):
    r = envkit_cli("validate", str(MESSY), str(BAD), str(CORPUS / "58_16bit-ykiko__about-me__pixi.lock"))
    assert r.exit_code == 2
    assert r.stdout.splitlines() == [
        f"ok: {MESSY}: environment spec, 5 conda, 4 pip (1 pip option)",
        f"ok: {CORPUS / '58_16bit-ykiko__about-me__pixi.lock'}: pixi.lock, 2 environments: default (0 "
        "packages, "
        "0 platforms), format (120 packages, 3 platforms (linux-64, osx-64, osx-arm64))",
    ]
    assert r.stderr.splitlines() == [  # errors on stderr, as every command's
        f"error: {BAD}:7: invalid match spec 'numpy>=1.2,,<2': unable to parse version spec: >=1.2,,<2"
    ]


def test_validate_ok_and_missing_file(envkit_cli, tmp_path):
    r = envkit_cli("validate", str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"))
    assert (r.exit_code, r.stdout) == (
        0,
        f"ok: {CORPUS / '51_Cecca__repro-course-ci__conda-lock.yml'}: "
        "conda-lock, 146 packages, 4 platforms (linux-64, osx-64, osx-arm64, win-64)\n",
    )
    r = envkit_cli("validate", str(tmp_path / "nope.yml"))
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"error: {tmp_path / 'nope.yml'}: no such file\n")


CREDENTIAL_CHANNELS = """\
channels:
  - https://bob:s3cret@mirror.example/conda-forge/linux-64/
  - https://conda.anaconda.org/t/tk-1234abcd/private-chan
  - https://anaconda.org/t/tk-99/other-chan/noarch
  - https://deploy-tok@host.example/internal
  - https://host.example/api/t/tk-42/team
  - https://host.example/q?token=abc123
  - https://conda.anaconda.org/t/${ANACONDA_TOKEN}/env-chan
  - https://${MIRROR_USER}:${MIRROR_PASS}@mirror.example/bio
dependencies:
  - python
"""

CREDENTIAL_CHANNELS_NORMALIZED = """\
channels:
  - https://<USER>:<PASSWORD>@mirror.example/conda-forge
  - https://conda.anaconda.org/t/<TOKEN>/private-chan
  - https://conda.anaconda.org/t/<TOKEN>/other-chan
  - https://<TOKEN>@host.example/internal
  - https://host.example/api/t/<TOKEN>/team
  - https://host.example/q?token=<TOKEN>
  - "https://conda.anaconda.org/t/${ANACONDA_TOKEN}/env-chan"
  - "https://${MIRROR_USER}:${MIRROR_PASS}@mirror.example/bio"
dependencies:
  - python
"""


def test_channel_credentials_keep_their_kind_and_place():
    # basic auth stays user:password, an anaconda.org token stays a /t/ path segment, an
    # environment-variable reference (what conda-lock writes) is no secret and is kept
    once = normalize_text(CREDENTIAL_CHANNELS, filename="environment.yml")
    assert once == CREDENTIAL_CHANNELS_NORMALIZED
    assert normalize_text(once, filename="environment.yml") == once
    for secret in ("bob", "s3cret", "tk-", "deploy-tok", "abc123"):
        assert secret not in once
    spec = read_text(once, filename="environment.yml")
    assert [c.name for c in spec.channels][:3] == [
        "https://mirror.example/conda-forge",
        "private-chan",
        "other-chan",
    ]
    assert [c.had_credentials for c in spec.channels] == [True] * 6 + [False] * 2


def test_conda_lock_channels_keep_credentials_and_env_vars(tmp_path):
    parse = pytest.importorskip("conda_lock.lockfile").parse_conda_lock_file
    text = (
        "version: 1\nmetadata:\n  content_hash: {}\n  channels:\n"
        "  - url: https://conda.anaconda.org/t/${MY_TOKEN}/priv\n    used_env_vars:\n    - MY_TOKEN\n"
        "  - url: https://bob:s3cret@mirror.example/conda-forge\n    used_env_vars: []\n"
        "  platforms:\n  - linux-64\n  sources: []\npackage: []\n"
    )
    once = normalize_text(text, filename="conda-lock.yml")
    assert once.splitlines()[3:13] == [
        "version: 1",
        "metadata:",
        "  content_hash: {}",
        "  channels:",
        '  - url: "https://conda.anaconda.org/t/${MY_TOKEN}/priv"',
        "    used_env_vars:",
        "    - MY_TOKEN",
        "  - url: https://<USER>:<PASSWORD>@mirror.example/conda-forge",
        "    used_env_vars: []",
        "  platforms:",
    ]
    assert normalize_text(once, filename="conda-lock.yml") == once
    (tmp_path / "conda-lock.yml").write_text(once)
    theirs = parse(tmp_path / "conda-lock.yml").metadata.channels
    assert [(c.url, c.used_env_vars) for c in theirs] == [
        ("https://conda.anaconda.org/t/${MY_TOKEN}/priv", ("MY_TOKEN",)),
        ("https://<USER>:<PASSWORD>@mirror.example/conda-forge", ()),
    ]


def test_cli_a_byte_order_mark_or_crlf_is_not_normalized(envkit_cli, tmp_path):
    # a BOM or CR LF line ends are not canonical: --check fails and --write rewrites the file
    from envkit.formats.canonical import normalize_text

    bom = tmp_path / "bom.yml"
    bom.write_bytes(b"\xef\xbb\xbfname: x\ndependencies:\n  - numpy\n")
    r = envkit_cli("normalize", "--check", str(bom))
    assert r.exit_code == 1
    assert r.stdout == (
        f"--- {bom}\n+++ {bom} (normalized)\n@@ -1,3 +1,3 @@\n-\ufeffname: x\n+name: x\n"
        " dependencies:\n   - numpy\n"
    )
    assert r.stderr == f"note: {bom}: the byte-order mark is removed\n"
    r = envkit_cli("normalize", "--write", str(bom))
    assert (r.exit_code, r.stdout, bom.read_bytes()) == (
        0,
        f"normalized {bom}\n",
        b"name: x\ndependencies:\n  - numpy\n",
    )
    crlf = tmp_path / "crlf.yml"
    crlf.write_bytes(b"name: x\r\ndependencies:\r\n  - numpy\r\n")
    r = envkit_cli("normalize", "--check", str(crlf))
    assert (r.exit_code, r.stderr) == (1, f"note: {crlf}: CR LF line endings become LF\n")
    text = "name: x\ndependencies:\n  - numpy\n"
    assert normalize_text(text) == text
    for other in ("\ufeff" + text, text.replace("\n", "\r\n")):
        assert normalize_text(other) == text


def test_cli_several_files_name_the_file_in_their_warnings(envkit_cli, tmp_path):
    for n in ("a.yml", "b.yml"):
        shutil.copy(CORPUS / "04_Kennethborup__SeqSleepNet__environment.yml", tmp_path / n)
    r = envkit_cli("normalize", "--check", str(tmp_path / "a.yml"), str(tmp_path / "b.yml"))
    assert r.exit_code == 1
    assert [ln.split(": '")[0] for ln in r.stderr.splitlines()] == [
        f"warning: {tmp_path / 'a.yml'}",
        f"warning: {tmp_path / 'b.yml'}",
    ]


# --- secrets in `variables:` -----------------------------------------------------------------

LEAKY = (
    "name: s\ndependencies:\n  - python=3.11\n"
    'variables: {HF_TOKEN: hf_abcdefghijk, DB_URL: "postgres://u:dbpass42@host/db", '
    'TOKENIZERS_PARALLELISM: "false", HF_TOKEN_PATH: /run/hf, PIP_TOKEN: "${PIP_TOKEN}"}\n'
)
LEAKY_NORMALIZED = """\
name: s
dependencies:
  - python=3.11
variables:
  HF_TOKEN: <TOKEN>
  DB_URL: postgres://<USER>:<PASSWORD>@host/db
  TOKENIZERS_PARALLELISM: "false"
  HF_TOKEN_PATH: /run/hf
  PIP_TOKEN: "${PIP_TOKEN}"
"""


def test_secret_variables_are_redacted_idempotently():
    once = normalize_text(LEAKY, filename="s.yml")
    assert once == LEAKY_NORMALIZED
    assert normalize_text(once, filename="s.yml") == once
    spec = normalize_spec(read_text(LEAKY, filename="s.yml"))
    assert spec.variables == (
        ("HF_TOKEN", "<TOKEN>"),
        ("DB_URL", "postgres://<USER>:<PASSWORD>@host/db"),
        ("TOKENIZERS_PARALLELISM", "false"),
        ("HF_TOKEN_PATH", "/run/hf"),
        ("PIP_TOKEN", "${PIP_TOKEN}"),
    )
    assert normalize_spec(spec) == spec


def test_redacted_variable_keeps_its_comment():
    text = "name: s\ndependencies: []\nvariables:\n  # from the vault\n  WANDB_API_KEY: 0123abcd  # rotate\n"
    assert normalize_text(text, filename="s.yml") == (
        "name: s\ndependencies: []\nvariables:\n  # from the vault\n  WANDB_API_KEY: <TOKEN>  # rotate\n"
    )


def test_cli_check_fails_on_a_leaked_variable_and_normalized_file_passes_check(envkit_cli, tmp_path):
    f = tmp_path / "s.yml"
    f.write_text(LEAKY)
    r = envkit_cli("normalize", "--check", str(f))
    assert r.exit_code == 1
    assert "+  HF_TOKEN: <TOKEN>\n" in r.stdout and "hf_abcdefghijk" not in "".join(
        ln for ln in r.stdout.splitlines(keepends=True) if ln.startswith("+")
    )
    assert envkit_cli("check", "--select", "leaked-secret", str(f)).exit_code == 1
    r = envkit_cli("normalize", "--write", str(f))
    assert (r.exit_code, f.read_text()) == (0, LEAKY_NORMALIZED)
    r = envkit_cli("check", "--select", "leaked-secret", str(f))
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")
    assert envkit_cli("normalize", "--check", str(f)).exit_code == 0


def test_credentials_in_comments_are_redacted_as_check_finds_them(envkit_cli, tmp_path):
    text = (
        "# mirror: https://alice:s3cret@pypi.example.com/simple\nname: c\nchannels:\n"
        "  - conda-forge  # was https://conda.anaconda.org/t/tk-1234abcd/private-chan\n"
        "dependencies:\n  # forum: https://discourse.example.org/t/topic-name/123\n  - python=3.11\n"
    )
    once = normalize_text(text, filename="c.yml")
    assert once == (
        "# mirror: https://<USER>:<PASSWORD>@pypi.example.com/simple\nname: c\nchannels:\n"
        "  - conda-forge  # was https://conda.anaconda.org/t/<TOKEN>/private-chan\n"
        "dependencies:\n  # forum: https://discourse.example.org/t/topic-name/123\n  - python=3.11\n"
    )
    assert normalize_text(once, filename="c.yml") == once
    req = "# index https://u:pw@host/simple\nnumpy  # https://conda.anaconda.org/t/abc-123/x\n"
    assert normalize_text(req, format="requirements") == (
        "# index https://<USER>:<PASSWORD>@host/simple\nnumpy  # https://conda.anaconda.org/t/<TOKEN>/x\n"
    )
    f = tmp_path / "c.yml"
    f.write_text(text)
    assert envkit_cli("normalize", "--check", str(f)).exit_code == 1
    assert envkit_cli("check", "--select", "leaked-secret", str(f)).exit_code == 1
    assert envkit_cli("normalize", "--write", str(f)).exit_code == 0
    r = envkit_cli("check", "--select", "leaked-secret", str(f))
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")


def test_credentials_in_a_lock_files_header_are_redacted():
    text = (
        "# made from https://conda.anaconda.org/t/abc-123/chan\n# platform: linux-64\n@EXPLICIT\n"
        "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_0.conda#" + "0" * 32 + "\n"
    )
    assert normalize_text(text).splitlines()[0] == "# made from https://conda.anaconda.org/t/<TOKEN>/chan"


def test_credentials_in_other_top_level_keys_are_redacted():
    text = (
        "name: x\ndependencies:\n  - python\nmirror:\n  url: https://u:pw@host/simple\n"
        "  list: [https://conda.anaconda.org/t/abc-123/ch, 3]\n"
    )
    once = normalize_text(text, filename="x.yml")
    assert once == (
        "name: x\ndependencies:\n  - python\nmirror:\n  url: https://<USER>:<PASSWORD>@host/simple\n"
        "  list:\n    - https://conda.anaconda.org/t/<TOKEN>/ch\n    - 3\n"
    )
    assert normalize_text(once, filename="x.yml") == once
    spec = normalize_spec(read_text(text, filename="x.yml"))
    assert spec.extra == (
        (
            "mirror",
            '{"url":"https://<USER>:<PASSWORD>@host/simple",'
            '"list":["https://conda.anaconda.org/t/<TOKEN>/ch",3]}',
        ),
    )


def _written(path, tmp_path, envkit_cli):
    """`envkit normalize PATH -o OUT`'s OUT, or None where it refuses (pixi.lock, uv.lock: not ours)."""
    out = tmp_path / f"normalized-{path.name}"
    r = envkit_cli("normalize", str(path), "-o", str(out))
    return out if r.exit_code == 0 else None


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:2])
def test_corpus_normalize_means_the_same_and_is_idempotent(path, tmp_path, envkit_cli):
    import json

    out = _written(path, tmp_path, envkit_cli)
    if out is None:
        r = envkit_cli("normalize", str(path))
        assert r.exit_code == 2
        assert r.stderr.startswith("error: envkit reads ") and " owns that file)\n" in r.stderr
        return
    r = envkit_cli("diff", str(path), str(out), "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["same"] is True
    again = envkit_cli("normalize", str(out))
    assert (again.exit_code, again.stdout) == (0, out.read_text(encoding="utf-8"))


def test_normalize_keeps_a_build_only_spec_and_selector_alternatives(envkit_cli, tmp_path):
    f = tmp_path / "environment.yml"
    f.write_text(
        "channels:\n  - conda-forge\ndependencies:\n  - pytorch~=2.1.0 *cuda12*  # [linux]\n"
        "  - h5py[build=*openmpi*]\n  - pytorch~=2.1.0  # [osx]\n  - numpy *\n"
    )
    r = envkit_cli("normalize", str(f))
    assert r.stdout == (
        "channels:\n  - conda-forge\ndependencies:\n  - h5py=*=*openmpi*\n  - numpy\n"
        "  - pytorch ~=2.1.0 *cuda12*  # [linux]\n  - pytorch~=2.1.0  # [osx]\n"
    )
    out = tmp_path / "normalized.yml"
    out.write_text(r.stdout)
    r = envkit_cli("diff", str(f), str(out))
    assert r.exit_code == 0 and "Same" in r.stdout, r.stdout
