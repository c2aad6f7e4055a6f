"""The conda-forge template, locked by `envkit lock -f` against a local channel named like conda-forge.

The channel mimics conda-forge's pytorch feedstock: CUDA builds `cuda126_mkl_py312_h…_301` that depend
on `__cuda` and `cuda-version >=12.6,<13`, CPU builds `cpu_mkl_py312_h…_101` (lower build number, so
a solver prefers CUDA where it can), and a `cuda-version` metapackage constraining `__cuda`.
"""

from __future__ import annotations

import pytest
from support.condafactory import ChannelBuilder, Pkg, python_interpreter_pkg, python_pkg
from support.specchannel import localize

from envkit.templates import PytorchOptions, load_matrix, plan_pytorch, render

M = load_matrix()


@pytest.fixture(scope="module")
def forge(tmp_path_factory) -> ChannelBuilder:
    chan = ChannelBuilder(tmp_path_factory.mktemp("cf") / "conda-forge", name="conda-forge")
    py = ["python >=3.12,<3.13.0a0"]
    chan.add(
        Pkg(name="zlib", version="1.3.1", build="hb9d3cd8_2", build_number=2),
        Pkg(name="openssl", version="3.4.0", build="h7b32b05_1", build_number=1),
        python_interpreter_pkg("3.12.8", build="h9e4cc4f_1_cpython"),
        python_interpreter_pkg("3.13.1", build="ha99a958_102_cp313"),
        # cuda-version pins the CUDA major.minor and constrains the driver (__cuda), as on conda-forge
        Pkg(
            name="cuda-version",
            version="12.6",
            build="h7480c83_3",
            build_number=3,
            noarch="generic",
            constrains=["__cuda >=12", "cudatoolkit 12.6|12.6.*"],
        ),
        Pkg(
            name="cuda-version",
            version="12.8",
            build="h5d125a7_3",
            build_number=3,
            noarch="generic",
            constrains=["__cuda >=12", "cudatoolkit 12.8|12.8.*"],
        ),
        Pkg(
            name="libcublas",
            version="12.6.4.1",
            build="h5888daf_1",
            build_number=1,
            depends=["cuda-version >=12.6,<12.7.0a0"],
        ),
        python_pkg(
            "pytorch",
            "2.7.1",
            build="cuda126_mkl_py312_h30b5a27_301",
            build_number=301,
            py="3.12",
            pypi_name="torch",
            depends=py + ["__cuda", "cuda-version >=12.6,<13", "libcublas >=12.6.4.1,<13.0a0"],
        ),
        python_pkg(
            "pytorch",
            "2.7.1",
            build="cpu_mkl_py312_h6a7998d_101",
            build_number=101,
            py="3.12",
            pypi_name="torch",
            depends=py,
        ),
        python_pkg(
            "pytorch",
            "2.7.1",
            build="cpu_mkl_py313_h58dab0e_101",
            build_number=101,
            py="3.13",
            pypi_name="torch",
            depends=["python >=3.13,<3.14.0a0"],
        ),
        python_pkg(
            "torchvision",
            "0.22.0",
            build="cuda126_py312_h0_1",
            build_number=1,
            py="3.12",
            depends=py + ["pytorch 2.7.* cuda*", "__cuda"],
        ),
        python_pkg(
            "torchvision",
            "0.22.0",
            build="cpu_py312_h0_1",
            build_number=1,
            py="3.12",
            depends=py + ["pytorch 2.7.* cpu*"],
        ),
        python_pkg("torchaudio", "2.7.1", build="py312_h0_0", py="3.12", depends=py + ["pytorch 2.7.*"]),
    )
    return chan.index()


def specs_of(text: str) -> list[str]:
    from envkit.formats import read_text

    return [d.raw for d in read_text(text, filename="environment.yml").conda]


def lock(tmp_path, forge, text: str, cuda: str | None = None):
    """`envkit lock -f` of `text` (channel conda-forge = the local `forge`) for linux-64 with the
    driver `cuda` (__cuda; none when None): (exit code, stderr, {name: package})."""
    from conftest import run_envkit

    from envkit.formats.condalock import read_conda_lock

    env = tmp_path / "environment.yml"
    env.write_text(localize(text, {"conda-forge": forge}))
    out = tmp_path / "conda-lock.yml"
    out.unlink(missing_ok=True)
    vp = ["--virtual-package", f"linux-64:__cuda={cuda}"] if cuda else []
    r = run_envkit("lock", "-f", str(env), "--platform", "linux-64", *vp, "-o", str(out))
    got = {}
    if r.exit_code == 0:
        got = {p.name: p for p in read_conda_lock(out.read_text(), str(out)).packages}
    return r.exit_code, r.stderr, got


def spec_file(*specs: str) -> str:
    return "channels:\n  - conda-forge\ndependencies:\n" + "".join(f"  - {s}\n" for s in specs)


def template(**kw) -> str:
    return render(plan_pytorch(M, PytorchOptions(torch="2.7", python="3.12", **kw)))


def test_cuda_template_selects_the_cuda_build_when_cuda_is_present(forge, tmp_path):
    text = template(cuda="12.6")
    assert specs_of(text) == [
        "cuda-version=12.6",
        "python=3.12",
        "pytorch=2.7.*=cuda*",
        "torchaudio=2.7",
        "torchvision=0.22",
    ]
    code, err, got = lock(tmp_path, forge, text, cuda="12.8")
    assert code == 0, err
    assert got["pytorch"].build == "cuda126_mkl_py312_h30b5a27_301"
    assert got["cuda-version"].version == "12.6"
    assert got["torchvision"].build == "cuda126_py312_h0_1"
    assert got["python"].version == "3.12.8"


def test_cuda_template_fails_clearly_without_a_driver(forge, tmp_path):
    for with_ in (None, ("none",)):
        code, err, _ = lock(tmp_path, forge, template(cuda="12.6", with_=with_))
        assert code == 2
        assert "linux-64: cannot solve " in err
        assert "__cuda *, for which no candidates were found" in " ".join(err.split())
        assert "network" not in err
    # and the template's own header says what to do about it
    assert "create it with CONDA_OVERRIDE_CUDA=12.6" in template(cuda="12.6").replace("\n# ", " ")


def test_cuda_template_with_an_old_driver_fails_on_cuda_version(forge, tmp_path):
    code, err, _ = lock(tmp_path, forge, template(cuda="12.6"), cuda="11.8")
    err = " ".join(err.split())
    assert code == 2
    # the solver's explanation names the driver it had and the cuda-version the template pins
    assert "__cuda 11.8" in err and "cuda-version 12.6.* cannot be install" in err


def test_cpu_template_gets_the_cpu_build_with_or_without_a_gpu(forge, tmp_path):
    text = template(cpu=True)
    assert specs_of(text)[1] == "pytorch=2.7.*=cpu*"
    for cuda in (None, "12.8"):
        code, err, got = lock(tmp_path, forge, text, cuda=cuda)
        assert code == 0, err
        assert got["pytorch"].build == "cpu_mkl_py312_h6a7998d_101"
        assert got["torchvision"].build == "cpu_py312_h0_1"
        assert "cuda-version" not in got


def test_bare_pytorch_prefers_cuda_which_is_why_templates_say_the_build(forge, tmp_path):
    # Without a build selector the solver takes the higher build number (CUDA) when __cuda exists:
    # a CPU template must say `=cpu*`.
    code, err, got = lock(tmp_path, forge, spec_file("python=3.12", "pytorch=2.7"), cuda="12.8")
    assert code == 0, err
    assert got["pytorch"].build.startswith("cuda126_")


def test_single_equals_with_a_build_would_pin_x_y_0(forge, tmp_path):
    # `pytorch=2.7=cuda*` means version ==2.7 (2.7.0) to conda; the channel only has 2.7.1, so the
    # template writes `pytorch=2.7.*=cuda*`.
    code, err, _ = lock(tmp_path, forge, spec_file("python=3.12", "pytorch=2.7=cuda*"), cuda="12.8")
    assert code == 2 and "No candidates were found for pytorch ==2.7 cuda*" in err
    code, err, got = lock(tmp_path, forge, spec_file("python=3.12", "pytorch=2.7.*=cuda*"), cuda="12.8")
    assert code == 0, err
    assert got["pytorch"].version == "2.7.1"
