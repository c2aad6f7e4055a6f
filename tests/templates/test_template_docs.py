"""What is generated from templates/: docs/compatibility.md, examples/pytorch/, and every template
passing `envkit check`; and the matrix reaching an installed wheel."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO
from test_template import COMBOS, M

from envkit.templates import PytorchOptions, plan_pytorch, render, to_envspec


def _gen():
    spec = importlib.util.spec_from_file_location(
        "gen_compatibility", REPO / "templates" / "gen_compatibility.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_compatibility_doc_and_examples_are_current(capsys):
    rc = _gen().main(["--check"])
    out = capsys.readouterr().out
    assert rc == 0, f"stale, run `python templates/gen_compatibility.py`:\n{out}"
    assert out == ""


def test_compatibility_doc_lists_every_row_with_sources():
    text = (REPO / "docs" / "compatibility.md").read_text()
    for r in M.releases:
        assert f"| {r.torch} | {r.torchvision} | {r.torchaudio} | " in text
    assert "| 2.13 | 12.9, 13.0* | as the wheels | [CF] |" in text
    assert "| 2.9 | 12.9* | 3.10, 3.11, 3.12, 3.13 | [CF], [CF477] |" in text
    assert "| 2.5 | 11.8, 12.1, 12.4* | `pytorch-cuda` | [PV], [R], [PCH] |" in text
    assert "| 12.6 | 560.28.03 | [NV] |" in text
    assert (
        "- [PCH] pytorch/pytorch#138506: 2.5 is the last release published to the pytorch conda channel."
        in text
    )


@pytest.mark.parametrize(
    "fname,options",
    [
        (
            "environment-cuda.yml",
            PytorchOptions(torch="2.13", cuda="13.0", output="examples/pytorch/environment-cuda.yml"),
        ),
        (
            "environment-cpu.yml",
            PytorchOptions(torch="2.13", cpu=True, output="examples/pytorch/environment-cpu.yml"),
        ),
        (
            "environment-pip-cu128.yml",
            PytorchOptions(
                torch="2.9", cuda="12.8", style="pip", output="examples/pytorch/environment-pip-cu128.yml"
            ),
        ),
    ],
)
def test_examples_carry_their_command_and_read_back(fname, options):
    from envkit.formats import read_file

    path = REPO / "examples" / "pytorch" / fname
    plan = plan_pytorch(M, options)
    assert path.read_text() == render(plan)
    assert path.read_text().splitlines()[1].endswith(f" -o examples/pytorch/{fname}")
    assert read_file(path) == to_envspec(plan)


def test_every_template_has_no_check_finding_engine():
    from envkit.checks import Target, run_checks
    from envkit.config import Config
    from envkit.formats import read_text

    findings = {}
    for style, torch, cuda in COMBOS:
        text = render(plan_pytorch(M, PytorchOptions(torch=torch, cuda=cuda, cpu=cuda is None, style=style)))
        target = Target(
            path="environment.yml", kind="spec", model=read_text(text, filename="environment.yml"), text=text
        )
        got = run_checks([target], Config())
        if got:
            findings[(style, torch, cuda)] = [(f.rule, f.line, f.message) for f in got]
    assert findings == {}


def test_every_template_passes_envkit_check(envkit_cli, tmp_path):
    from envkit.checks import all_rules

    rules = sorted(all_rules())
    failures = []
    for style, torch, cuda in COMBOS:
        path = tmp_path / f"{style}-{torch}-{cuda or 'cpu'}.yml"
        path.write_text(
            render(plan_pytorch(M, PytorchOptions(torch=torch, cuda=cuda, cpu=cuda is None, style=style)))
        )
        r = envkit_cli("check", str(path))
        named = [rule for rule in rules if rule in r.stdout or rule in r.stderr]
        if r.exit_code != 0 or named:
            failures.append((path.name, r.exit_code, named, r.stdout[-500:], r.stderr[-500:]))
    assert failures == []


def test_every_template_passes_normalize_check(envkit_cli, tmp_path):
    # The files are meant to sit under a pre-commit `envkit normalize --check`: the generator and
    # normalize must agree byte for byte, comments included.
    extra = [
        ("conda-forge", "2.13", None, ("torchvision,lightning,numpy>=2",)),
        ("pip", "2.9", "12.8", ("torchaudio,lightning",)),
    ]
    stale = []
    for style, torch, cuda, with_ in [(s, t, c, None) for s, t, c in COMBOS] + extra:
        path = tmp_path / f"{style}-{torch}-{cuda or 'cpu'}.yml"
        path.write_text(
            render(
                plan_pytorch(
                    M, PytorchOptions(torch=torch, cuda=cuda, cpu=cuda is None, style=style, with_=with_)
                )
            )
        )
        r = envkit_cli("normalize", "--check", str(path))
        if (r.exit_code, r.stdout) != (0, ""):
            stale.append((path.name, r.exit_code, r.stdout[-300:], r.stderr[-300:]))
    assert stale == []


@pytest.mark.slow
def test_an_installed_wheel_carries_the_matrix(tmp_path):
    """`pip install` of the built wheel into a fresh venv; `envkit template list` run from outside
    the repository finds the matrix as package data (envkit/_templates/), not the source tree."""
    import sysconfig

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    wheel = next((tmp_path / "dist").glob("envkit-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    assert "envkit/py.typed" in names  # PEP 561: type checkers read envkit's annotations
    assert {
        "envkit/_templates/pytorch/matrix.json",
        "envkit/_templates/pytorch/conda-forge.yml.in",
        "envkit/_templates/pytorch/pip.yml.in",
        "envkit/_templates/pytorch/pytorch-channel.yml.in",
    } <= names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    vpy = venv / "bin" / "python"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(vpy),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    # click & co. from this interpreter's site-packages, listed after the venv's own (a .pth line
    # adds the path without running that directory's .pth files, so the editable envkit stays out)
    purelib = subprocess.run(
        [str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    r = subprocess.run(
        [str(venv / "bin" / "envkit"), "template", "list"],
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
        timeout=120,
    )
    assert (r.returncode, r.stderr) == (0, "")
    from envkit.templates import render_list

    assert r.stdout == render_list(M)
    where = subprocess.run(
        [str(vpy), "-c", "import envkit.templates as t; print(t.templates_dir())"],
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
        check=True,
    ).stdout.strip()
    assert where == str(Path(purelib) / "envkit" / "_templates")
    r = subprocess.run(
        [str(venv / "bin" / "envkit"), "template", "pytorch", "--cpu"],
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
        timeout=120,
    )
    assert (
        r.returncode == 0
        and r.stdout.splitlines()[0] == "# PyTorch 2.13 (CPU), Python 3.14, from conda-forge."
    )
