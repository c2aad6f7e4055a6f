"""`envkit diff` end to end: real corpus pairs, the laptop-vs-server example, output formats, exit
codes, colour."""

from __future__ import annotations

import json
import re

import pytest
from conftest import CORPUS, REPO, corpus_files, known_wrong

EXAMPLE = REPO / "examples" / "laptop-vs-server"
LAPTOP = str(EXAMPLE / "laptop.yml")
SERVER = str(EXAMPLE / "server.yml")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


#: Corpus files envkit cannot diff with themselves today (strict xfail; drop the entry once fixed).
KNOWN_WRONG: dict[str, str] = {}


@pytest.mark.parametrize("path", known_wrong(corpus_files(), KNOWN_WRONG), ids=lambda p: p.name[:2])
def test_every_corpus_file_diffed_against_itself_is_empty(envkit_cli, path):
    r = envkit_cli("diff", str(path), str(path), "--format", "json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["same"] is True and data["changes"] == []
    assert data["summary"]["changes"] == 0


def test_laptop_vs_server_text(envkit_cli):
    r = envkit_cli("diff", LAPTOP, SERVER)
    assert r.exit_code == 1
    out = r.stdout
    assert "(export, osx-arm64, 67 packages)" in out and "(export, linux-64, 96 packages)" in out
    # the issue's example line, decoded build strings on both sides
    assert re.search(
        r"\n  pytorch +2\.2\.2 py3\.11_0 \(cpu\) → 2\.2\.2 py3\.11_cuda12\.1_cudnn8\.9\.2_0 "
        r"\(CUDA 12\.1, cuDNN 8\.9\.2\)\n",
        out,
    )
    assert "PyTorch cpu build → CUDA 12.1 build: GPU support, kernels and numerics differ" in out
    assert "different BLAS (Accelerate → MKL): numerical results and speed may differ" in out
    assert "Python patch release 3.11.9 → 3.11.8" in out
    # ranked: likely to matter first, then platform, then the rest
    assert out.index("Likely to matter") < out.index("Platform differences: osx-arm64 → linux-64")
    assert out.index("Platform differences") < out.index("Other changes")
    assert re.search(r"only on A \(osx-arm64\): +libcxx 16\.0\.6, libgfortran 5\.0\.0\n", out)
    assert "_libgcc_mutex 0.1" in out.split("Platform differences")[1]
    assert re.search(r"scikit-learn +1\.4\.2 py311hbfb48bc_0 \(py3\.11\) \[conda\] → 1\.4\.2 \[pip\]", out)
    assert "pillow (conda) + pillow (pip)" in out
    assert "only on B: nvidia" in out
    assert out.rstrip().endswith(
        "Different: 77 packages differ (29 likely to matter, 43 platform, 5 other); channels differ."
    )
    assert "'pillow' is installed by both conda ('pillow') and pip" in r.stderr
    assert not ANSI.search(out)


def test_laptop_vs_server_json_schema(envkit_cli):
    jsonschema = pytest.importorskip("jsonschema")
    r = envkit_cli("diff", LAPTOP, SERVER, "--format", "json")
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    jsonschema.validate(data, DIFF_SCHEMA)
    assert data["schema"] == "envkit-diff/1" and data["same"] is False
    assert (data["a"]["platform"], data["b"]["platform"]) == ("osx-arm64", "linux-64")
    first = data["changes"][0]
    assert first == {
        "name": "pytorch",
        "kind": "variant",
        "a": {
            "name": "pytorch",
            "version": "2.2.2",
            "build": "py3.11_0",
            "channel": None,
            "manager": "conda",
            "labels": ["cpu", "py3.11"],
            "url": None,
            "editable": False,
        },
        "b": {
            "name": "pytorch",
            "version": "2.2.2",
            "build": "py3.11_cuda12.1_cudnn8.9.2_0",
            "channel": None,
            "manager": "conda",
            "labels": ["CUDA 12.1", "cuDNN 8.9.2", "py3.11"],
            "url": None,
            "editable": False,
        },
        "tags": ["variant", "torch"],
        "impact": "high",
        "reason": "PyTorch cpu build → CUDA 12.1 build: GPU support, kernels and numerics differ",
        "group": "matter",
    }
    kinds = data["summary"]["kinds"]
    assert kinds["manager"] == 4 and kinds["duplicate"] == 1 and kinds["variant"] == 6
    assert data["channels"]["added"] == ["nvidia"]
    assert data["duplicates"]["b"] == [{"conda": "pillow", "pip": "pillow", "project": "pillow"}]
    assert "unchanged" not in data
    full = json.loads(envkit_cli("diff", LAPTOP, SERVER, "--format", "json", "--all").stdout)
    assert [u["name"] for u in full["unchanged"]][:3] == ["certifi", "charset-normalizer", "einops"]


def test_output_is_deterministic(envkit_cli):
    outs = {envkit_cli("diff", LAPTOP, SERVER, "--format", fmt).stdout for fmt in ("json",) * 2}
    assert len(outs) == 1


def test_markdown_pr_comment(envkit_cli):
    r = envkit_cli("diff", LAPTOP, SERVER, "--format", "markdown")
    assert r.exit_code == 1
    md = r.stdout
    assert md.startswith("### envkit diff\n")
    assert "| package | change | A | B | impact | why |" in md
    assert (
        "| `pytorch` | build variant changed | 2.2.2 py3.11_0 (cpu) | 2.2.2 py3.11_cuda12.1_cudnn8.9.2_0 "
        "(CUDA 12.1, cuDNN 8.9.2) | **high** | PyTorch cpu build → CUDA 12.1 build"
    ) in md
    assert "<details><summary>Platform differences: osx-arm64 → linux-64 (43)</summary>" in md
    assert "| Python ⚠ | 3.11.9 | 3.11.8 |" in md
    assert (
        "**Different**: 77 packages differ (29 likely to matter, 43 platform, 5 other); channels differ.\n"
        in md
    )
    # the likely-to-matter table folds the 14 CUDA libraries into one row, as the text does, and
    # keeps the short run (cuda-cudart, cuda-runtime) row by row
    matter = md.split("#### Likely to matter (29)")[1].split("<details>")[0]
    rows = [ln for ln in matter.splitlines() if ln.startswith("| ") and not ln.startswith("| package")]
    assert len(rows) == 16
    assert (
        "| 14 packages | added | — | cuda-cupti 12.1.105, cuda-libraries 12.1.0, cuda-nvrtc 12.1.105, "
        "cuda-nvtx 12.1.105, cuda-opencl 12.4.127, libcublas 12.1.0.26,"
    ) in matter
    assert "| `cuda-cudart` | added |" in matter and "| `cuda-runtime` | added |" in matter
    # platform differences: three lines by name, not 43 rows of rebuilt hashes
    assert (
        "- **only on A (osx-arm64)** (2): `libcxx` 16.0.6, `libgfortran` 5.0.0\n"
        "- **only on B (linux-64)** (9): `_libgcc_mutex` 0.1, `_openmp_mutex` 4.5,"
    ) in md
    assert "- **same version, built per platform** (32): `brotli-python`, `bzip2`," in md
    assert "| `libgfortran5` | rebuilt |" not in md
    # other changes by kind: added before manager changed
    other = md.split("<summary>Other changes (5)</summary>")[1]
    assert other.index("| `tbb` | added |") < other.index("| `joblib` | manager changed |")


def test_json_example_has_the_issues_schema(envkit_cli):
    """The docs' JSON example (examples/laptop-vs-server/cpu.yml vs cuda.yml): the keys the issue
    names, the change exactly."""
    r = envkit_cli("diff", str(EXAMPLE / "cpu.yml"), str(EXAMPLE / "cuda.yml"), "--format", "json")
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    assert {"a", "b", "changes", "channels", "summary"} <= set(data)
    (c,) = data["changes"]
    assert {k: c[k] for k in ("name", "kind", "tags", "impact", "reason")} == {
        "name": "pytorch",
        "kind": "variant",
        "tags": ["variant", "torch"],
        "impact": "high",
        "reason": "PyTorch cpu build → CUDA 12.1 build: GPU support, kernels and numerics differ",
    }
    assert {k: c["a"][k] for k in ("version", "build", "channel", "manager")} == {
        "version": "2.2.2",
        "build": "py3.11_cpu_0",
        "channel": None,
        "manager": "conda",
    }
    assert c["b"]["build"] == "py3.11_cuda12.1_cudnn8.9.2_0"
    assert data["channels"]["added"] == ["nvidia"] and data["summary"]["kinds"]["variant"] == 1


def test_colour_only_when_asked_or_on_a_tty(envkit_cli):
    plain = envkit_cli("diff", LAPTOP, SERVER)
    coloured = envkit_cli("diff", LAPTOP, SERVER, "--color", "always")
    assert not ANSI.search(plain.stdout) and ANSI.search(coloured.stdout)
    assert ANSI.sub("", coloured.stdout) == plain.stdout
    # NO_COLOR (and a pipe) keep auto plain
    assert not ANSI.search(envkit_cli("diff", LAPTOP, SERVER, env={"NO_COLOR": "1"}).stdout)


def test_colour_auto_on_a_tty_and_no_color(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    def run(extra_env):
        master, slave = pty.openpty()
        env = {**os.environ, "COLUMNS": "100", **extra_env}
        env.pop("NO_COLOR", None) if "NO_COLOR" not in extra_env else None
        proc = subprocess.Popen(
            [sys.executable, "-m", "envkit", "diff", LAPTOP, SERVER],
            stdout=slave,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        proc.wait()
        os.close(master)
        return b"".join(chunks).decode()

    assert ANSI.search(run({"TERM": "xterm"}))
    assert not ANSI.search(run({"TERM": "xterm", "NO_COLOR": "1"}))


def test_output_file(envkit_cli, tmp_path):
    out = tmp_path / "diff.json"
    r = envkit_cli("diff", LAPTOP, SERVER, "--format", "json", "-o", str(out))
    assert r.exit_code == 1 and r.stdout == ""
    assert json.loads(out.read_text())["b"]["source"] == SERVER


def test_exit_code_2_on_errors(envkit_cli, tmp_path):
    r = envkit_cli("diff", LAPTOP, str(tmp_path / "nope.yml"))
    assert r.exit_code == 2 and "no such file or directory" in r.stderr
    r = envkit_cli("diff", LAPTOP, "research")
    assert r.exit_code == 2 and "hint: for a named environment write env:research" in r.stderr
    (tmp_path / "notaprefix").mkdir()
    r = envkit_cli("diff", LAPTOP, str(tmp_path / "notaprefix"))
    assert r.exit_code == 2 and "not a conda environment (no conda-meta/)" in r.stderr
    bad = tmp_path / "bad.yml"
    bad.write_text("dependencies:\n  - numpy\ndependencies:\n  - scipy\n")
    r = envkit_cli("diff", LAPTOP, str(bad))
    assert r.exit_code == 2 and "duplicate key 'dependencies'" in r.stderr
    assert "Traceback" not in r.stderr


def test_unreadable_format_hint_names_input_format(envkit_cli):
    r = envkit_cli("diff", str(CORPUS / "README.md"), LAPTOP)
    assert r.exit_code == 2
    assert "--input-format" in r.stderr


def test_multi_platform_lock_platform_option(envkit_cli):
    lock = str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml")
    r = envkit_cli("diff", lock, lock, "--platform", "osx-arm64", "--format", "json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["a"]["platform"] == "osx-arm64"
    r = envkit_cli("diff", lock, lock, "--platform", "linux-aarch64")
    assert r.exit_code == 2 and "has no platform linux-aarch64" in r.stderr
    # linux-64 against osx-arm64 of the same lock: platform differences, grouped
    explicit = str(CORPUS / "48_Cecca__repro-course-ci__conda-linux-64.lock")
    r = envkit_cli("diff", explicit, lock, "--format", "json")
    data = json.loads(r.stdout)
    assert data["b"]["platform"] == "linux-64"  # the other side's platform


def test_windows_export_against_a_multi_platform_lock_uses_win_64(envkit_cli):
    # corpus 37 names only its OS family (vc, vs2015_runtime: "win"); the lock has win-64
    export = str(CORPUS / "37_Fury1__DeepRL-Tennis__environment.yml")
    lock = str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml")
    for args, side in (((export, lock), "b"), ((lock, export), "a")):
        data = json.loads(envkit_cli("diff", *args, "--format", "json").stdout)
        assert data[side]["platform"] == "win-64" and data[side]["packages"] == 37
        other = data["a" if side == "b" else "b"]
        assert (other["platform"], other["platform_guessed"]) == ("win-64", True)
        assert data["cross_platform"] is False
    r = envkit_cli("diff", export, lock)
    assert r.stdout.startswith(
        f"A  {export}  (export, win-64, 19 packages)\nB  {lock}  (conda-lock, win-64, 37 packages)\n"
    )
    assert "Platform differences" not in r.stdout


def test_pixi_environment_option(envkit_cli):
    pixi = str(CORPUS / "58_16bit-ykiko__about-me__pixi.lock")
    r = envkit_cli("diff", pixi, pixi, "--env", "format", "--platform", "osx-64")
    assert r.exit_code == 0 and "Same: no differences" in r.stdout


def test_spec_vs_lock_real_pair(envkit_cli):
    spec = str(CORPUS / "02_EthanMarx__ztf-lfi-demo__environment.yaml")
    lock = str(CORPUS / "53_EthanMarx__ztf-lfi-demo__conda-lock.yml")
    r = envkit_cli("diff", spec, lock)
    # conda's pytorch 1.13.1 matches `pytorch>=1.10,<2.0`, but the lock also installs pip's torch
    # 2.3.1 over it, and that is the torch Python imports: the entry is not satisfied
    assert r.exit_code == 1
    assert re.search(
        r"NOT SATISFIED +pytorch>=1\.10,<2\.0 +1\.13\.1 cuda112py39hb0b7ed5_200 +"
        r"\(pip's torch 2\.3\.1 is installed over it\)",
        r.stdout,
    )
    assert re.search(r"ok +python=3\.9 +3\.9\.19 h0755675_0_cpython", r.stdout)
    assert re.search(
        r"PyTorch +pytorch>=1\.10,<2\.0 +2\.3\.1 \[pip\] \(CUDA 12\.1\) over conda's 1\.13\.1", r.stdout
    )
    assert "in B, not in the spec (306):" in r.stdout  # pip's torch is accounted for by pytorch
    assert "Different: 1 spec entry not satisfied, 0 missing." in r.stdout
    # and the other direction, spec on the right
    r2 = envkit_cli("diff", lock, spec, "--format", "json")
    data = json.loads(r2.stdout)
    assert data["spec"]["side"] == "b" and len(data["spec"]["unmentioned"]) == 306
    entry = next(e for e in data["spec"]["entries"] if e["name"] == "pytorch")
    assert entry["status"] == "not-satisfied" and entry["found"]["version"] == "1.13.1"


def test_spec_not_satisfied(envkit_cli, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "channels: [pytorch, conda-forge]\ndependencies:\n  - python=3.10\n  - pytorch>=2.3\n"
        "  - cudatoolkit\n  - pip:\n    - einops>=0.7\n"
    )
    r = envkit_cli("diff", str(spec), SERVER)
    assert r.exit_code == 1
    assert re.search(r"NOT SATISFIED +python=3\.10 +3\.11\.8 hab00c5b_0_cpython", r.stdout)
    assert re.search(r"NOT SATISFIED +pytorch>=2\.3 +2\.2\.2 py3\.11_cuda12\.1_cudnn8\.9\.2_0", r.stdout)
    assert re.search(r"MISSING +cudatoolkit\n", r.stdout)
    assert re.search(r"ok +einops>=0\.7 +0\.7\.0 \[pip\]", r.stdout)
    assert "2 spec entries not satisfied, 1 missing" in r.stdout


def export(tmp_path, name, lines, channels=("conda-forge",), pip=()):
    text = "name: x\nchannels:\n" + "".join(f"  - {c}\n" for c in channels) + "dependencies:\n"
    text += "".join(f"  - {x}\n" for x in lines)
    if pip:
        text += "  - pip:\n" + "".join(f"      - {x}\n" for x in pip)
    p = tmp_path / name
    p.write_text(text)
    return str(p)


BASE = ["_libgcc_mutex=0.1=conda_forge", "python=3.11.8=hab00c5b_0_cpython", "numpy=1.26.4=py311h64a7726_0"]


def test_cpu_vs_cuda_exports(envkit_cli, tmp_path):
    a = export(tmp_path, "cpu.yml", BASE + ["pytorch=2.3.1=cpu_generic_py311_h1a2b3c4_0"])
    b = export(
        tmp_path,
        "cuda.yml",
        BASE + ["pytorch=2.3.1=cuda120_py311h0e5b2d4_301", "cuda-version=12.0=hffde075_3"],
    )
    r = envkit_cli("diff", a, b)
    assert r.exit_code == 1
    assert (
        "pytorch       2.3.1 cpu_generic_py311_h1a2b3c4_0 (cpu, generic BLAS) → 2.3.1 "
        "cuda120_py311h0e5b2d4_301 (CUDA 12.0)"
    ) in r.stdout
    assert re.search(r"PyTorch +2\.3\.1 \(cpu, generic BLAS\) +2\.3\.1 \(CUDA 12\.0\) \*", r.stdout)


def test_channel_reordering(envkit_cli, tmp_path):
    a = export(tmp_path, "a.yml", BASE, channels=("pytorch", "conda-forge"))
    b = export(tmp_path, "b.yml", BASE, channels=("conda-forge", "pytorch"))
    r = envkit_cli("diff", a, b)
    assert r.exit_code == 1
    assert "the shared channels are in a different order (priority)" in r.stdout
    assert "conda env export` does not write channels in priority order (conda#7884)" in r.stdout
    assert r.stdout.rstrip().endswith("Different: channels differ.")


def test_pip_index_options_differ(envkit_cli, tmp_path):
    a = export(
        tmp_path, "a.yml", BASE, pip=["--index-url https://download.pytorch.org/whl/cu121", "torch==2.2.2"]
    )
    b = export(
        tmp_path, "b.yml", BASE, pip=["--index-url https://download.pytorch.org/whl/cpu", "torch==2.2.2"]
    )
    r = envkit_cli("diff", a, b)
    assert r.exit_code == 1
    assert "pip index options (differ)\n  A: --index-url https://download.pytorch.org/whl/cu121\n" in r.stdout
    assert "  B: --index-url https://download.pytorch.org/whl/cpu\n" in r.stdout


def test_export_variables_are_compared(envkit_cli, tmp_path):
    # `conda env export` writes `variables:` (conda env config vars); they were dropped with the
    # export read as a lock, and two exports differing only there were "Same" (exit 0)
    def with_vars(name, body):
        p = tmp_path / name
        p.write_text((EXAMPLE / "cpu.yml").read_text() + "variables:\n" + body)
        return str(p)

    a = with_vars("a.yml", "  OMP_NUM_THREADS: '4'\n  HF_TOKEN: hf_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n")
    b = with_vars("b.yml", "  OMP_NUM_THREADS: '8'\n  HF_TOKEN: hf_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n")
    r = envkit_cli("diff", a, b)
    assert r.exit_code == 1
    assert (
        "Environment variables (differ)\n  A: OMP_NUM_THREADS=4\n     HF_TOKEN=<TOKEN>\n"
        "  B: OMP_NUM_THREADS=8\n     HF_TOKEN=<TOKEN>\n"
        "  value changed (a credential, not shown): HF_TOKEN\n"
    ) in r.stdout
    assert "hf_a" not in r.stdout and "hf_b" not in r.stdout
    assert r.stdout.endswith("Different: environment variables differ.\n")
    assert envkit_cli("diff", a, a).exit_code == 0
    # an export without variables: has none; a conda-lock file does not record them (not a difference)
    data = json.loads(envkit_cli("diff", a, str(EXAMPLE / "cpu.yml"), "--format", "json").stdout)
    assert data["variables"]["b"] == [] and data["variables"]["changed"] is True


def test_a_placeholder_credential_is_unknown_not_a_change(envkit_cli, tmp_path):
    # `envkit export` writes a secret as <TOKEN>: against the real value it cannot be compared
    def with_vars(name, body):
        p = tmp_path / name
        p.write_text((EXAMPLE / "cpu.yml").read_text() + "variables:\n" + body)
        return str(p)

    real = with_vars(
        "real.yml",
        "  OMP_NUM_THREADS: '4'\n  API_KEY: sekret-value-123\n"
        "  PIP_INDEX_URL: https://me:pw@pypi.example.org/simple\n",
    )
    redacted = with_vars(
        "redacted.yml",
        "  OMP_NUM_THREADS: '4'\n  API_KEY: <TOKEN>\n"
        "  PIP_INDEX_URL: https://<USER>:<PASSWORD>@pypi.example.org/simple\n",
    )
    for a, b in ((real, redacted), (redacted, real), (redacted, redacted)):
        r = envkit_cli("diff", a, b)
        assert r.exit_code == 0, r.stdout
        assert (
            "note: 2 credential values could not be compared (written as a placeholder such as "
            "<TOKEN> on one side): API_KEY, PIP_INDEX_URL.\n"
        ) in r.stdout
        assert r.stdout.count("could not be compared") == 1 and "value changed" not in r.stdout
        assert r.stdout.endswith("Same: no differences (3 packages compared).\n")
    data = json.loads(envkit_cli("diff", real, redacted, "--format", "json").stdout)
    assert data["same"] is True and data["variables"]["secrets_unknown"] == ["API_KEY", "PIP_INDEX_URL"]
    assert data["variables"]["secrets_changed"] == [] and len(data["notes"]) == 1
    md = envkit_cli("diff", real, redacted, "--format", "markdown").stdout
    assert (
        "_2 credential values could not be compared (written as a placeholder such as &lt;TOKEN> on one side)"
        in md
    )
    # a real value against another real value is still compared
    other = with_vars(
        "other.yml",
        "  OMP_NUM_THREADS: '4'\n  API_KEY: another-value-456\n"
        "  PIP_INDEX_URL: https://me:pw@pypi.example.org/simple\n",
    )
    r = envkit_cli("diff", real, other)
    assert r.exit_code == 1 and "value changed (a credential, not shown): API_KEY\n" in r.stdout


def test_all_shows_unchanged(envkit_cli, tmp_path):
    a = export(tmp_path, "a.yml", BASE)
    r = envkit_cli("diff", a, a, "--all")
    assert r.exit_code == 0
    assert "Unchanged (3)\n  _libgcc_mutex  0.1 conda_forge\n" in r.stdout
    assert "Channels\n  A: conda-forge\n  B: conda-forge\n" in r.stdout


DIFF_SCHEMA = {
    "type": "object",
    "required": [
        "schema",
        "same",
        "a",
        "b",
        "changes",
        "channels",
        "pip_options",
        "duplicates",
        "spec",
        "summary",
        "highlights",
    ],
    "properties": {
        "schema": {"const": "envkit-diff/1"},
        "same": {"type": "boolean"},
        "a": {"$ref": "#/$defs/side"},
        "b": {"$ref": "#/$defs/side"},
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "kind", "a", "b", "tags", "impact", "reason", "group"],
                "properties": {
                    "name": {"type": "string"},
                    "kind": {
                        "enum": [
                            "added",
                            "removed",
                            "upgraded",
                            "downgraded",
                            "changed",
                            "variant",
                            "rebuilt",
                            "source",
                            "channel",
                            "manager",
                            "duplicate",
                        ]
                    },
                    "a": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/pkg"}]},
                    "b": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/pkg"}]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "impact": {"enum": ["high", "medium", "low"]},
                    "reason": {"type": "string"},
                    "group": {"enum": ["matter", "platform", "other"]},
                },
            },
        },
        "channels": {
            "type": "object",
            "required": ["a", "b", "added", "removed", "order_changed", "priority"],
        },
        "summary": {"type": "object", "required": ["same", "changes", "kinds", "groups", "impacts"]},
    },
    "$defs": {
        "side": {"type": "object", "required": ["source", "kind", "concrete", "platform", "packages"]},
        "pkg": {
            "type": "object",
            "required": ["name", "version", "build", "channel", "manager", "labels"],
            "properties": {"manager": {"enum": ["conda", "pip"]}},
        },
    },
}


def test_stdin_as_one_source(envkit_cli):
    r = envkit_cli("diff", "-", SERVER, input=open(LAPTOP).read())
    assert r.exit_code == 1
    assert r.stdout.startswith("A  <stdin>  (export, osx-arm64, 67 packages)\n")
    assert r.stdout == envkit_cli("diff", LAPTOP, SERVER).stdout.replace(LAPTOP, "<stdin>", 1)
    r = envkit_cli("diff", SERVER, "-", "--format", "json", input=open(SERVER).read())
    assert r.exit_code == 0 and json.loads(r.stdout)["b"]["source"] == "<stdin>"
    r = envkit_cli("diff", "-", "-", input="")
    assert r.exit_code == 2 and "standard input (-) can be read only once" in r.stderr
    assert "env:-" not in r.stderr


def test_warnings_name_each_source_once_as_given(envkit_cli, monkeypatch):
    from envkit import sources
    from envkit.formats import read_file

    lock = str(CORPUS / "52_CNES__lenapy__conda-lock.yml")
    r = envkit_cli("diff", lock, lock)
    assert r.stderr == (
        f"warning: {lock}: 'numpy' is installed by both conda ('numpy') and pip; pip's "
        "copy shadows conda's and the solver cannot see it\n"
    )
    # a remote prefix is named by its ssh:// source, not by the path on the remote machine
    model = read_file(lock)
    monkeypatch.setattr(
        sources,
        "read_remote",
        lambda target, **kw: model.__class__(
            **{**{f: getattr(model, f) for f in model.__dataclass_fields__}, "source": "/srv/conda/envs/x"}
        ),
    )
    r = envkit_cli("diff", "ssh://gpu/srv/conda/envs/x", lock)
    assert r.exit_code == 0
    assert r.stderr.splitlines() == [
        "warning: ssh://gpu/srv/conda/envs/x: 'numpy' is installed by both conda ('numpy') and pip; pip's "
        "copy shadows conda's and the solver cannot see it",
        f"warning: {lock}: 'numpy' is installed by both conda ('numpy') and pip; pip's "
        "copy shadows conda's and the solver cannot see it",
    ]


def test_explicit_file_cannot_record_pip_packages_so_they_are_not_removed(envkit_cli):
    export = str(CORPUS / "26_WikiGenius__NeRF-SLAM__environment.yml")
    explicit = str(CORPUS / "43_WikiGenius__NeRF-SLAM__spec-file.txt")
    r = envkit_cli("diff", export, explicit)
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[2] == (
        "note: B is an explicit file, which cannot record pip packages: "
        "A's 147 pip packages are not compared."
    )
    assert "[pip]" not in r.stdout.split("\n\n", 2)[2]  # no pip package listed as removed
    assert "  PyTorch  1.13.1 [pip] (CUDA 11.7)  (pip not recorded)" in lines
    assert r.stdout.endswith(
        "Other changes (1)\n  added (1): tzdata 2025b\n\nDifferent: 1 package differs (1 other).\n"
    )
    data = json.loads(envkit_cli("diff", explicit, export, "--format", "json").stdout)
    assert data["pip_not_recorded"] == {"side": "a", "kind": "explicit", "skipped": 147}
    assert (data["a"]["records_pip"], data["b"]["records_pip"]) == (False, True)
    assert data["summary"]["pip_not_compared"] == 147
    assert [c["name"] for c in data["changes"]] == ["tzdata"]
    md = envkit_cli("diff", explicit, export, "--format", "markdown").stdout
    assert (
        "_A is an explicit file, which cannot record pip packages: B's 147 pip packages are not compared._"
        in md
    )
