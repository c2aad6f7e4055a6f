"""`envkit template pytorch` / `template list`: the matrix, the planner, rendering, errors, --detect."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from envkit.errors import UsageError
from envkit.output import cli_hint
from envkit.templates import (
    GpuInfo,
    PytorchOptions,
    detect_gpu,
    load_matrix,
    normalize_cuda,
    parse_nvidia_smi,
    pick_detected_cuda,
    plan_pytorch,
    render,
    render_template,
    templates_dir,
    to_envspec,
)

M = load_matrix()


def every_combination():
    """(style, torch, cuda-or-None) for every matrix row, in every style it supports, every variant."""
    for torch in M.torch_versions():
        for style in M.styles(torch):
            for cuda in (*M.cuda_variants(torch, style), None):
                yield style, torch, cuda


COMBOS = list(every_combination())


# -- the matrix ----------------------------------------------------------------------------------


def test_matrix_is_found_in_the_source_tree_and_every_row_has_sources():
    assert templates_dir() == REPO / "templates"
    data = json.loads((REPO / "templates/pytorch/matrix.json").read_text())
    keys = set(data["sources"])
    rows = data["releases"] + data["conda_forge"]["releases"] + data["pytorch_channel"]["releases"]
    rows += data["drivers"]["rows"]
    assert all(r["sources"] and set(r["sources"]) <= keys for r in rows)
    assert len(COMBOS) == 128  # 66 pip + 36 conda-forge + 26 pytorch-channel


def test_public_api_for_other_modules():
    assert M.companions("2.7.1") == {"torchvision": "0.22", "torchaudio": "2.7"}
    assert M.companions("2.12.1+cu130") == {"torchvision": "0.27", "torchaudio": "2.11"}
    assert M.cuda_variants("2.7") == ("11.8", "12.6", "12.8")
    assert M.cuda_variants("2.7", "pip") == ("11.8", "12.6", "12.8")
    assert M.cuda_variants("2.13", "conda-forge") == ("12.9", "13.0")
    assert M.cuda_variants("2.9", "conda-forge") == ("12.9",)  # 13.0 came to conda-forge with 2.10 (CF477)
    assert M.pythons("2.9", "conda-forge") == ("3.10", "3.11", "3.12", "3.13")
    assert M.pythons("2.9", "pip") == ("3.10", "3.11", "3.12", "3.13", "3.14")
    assert M.cuda_variants("2.5", "pytorch-channel") == ("11.8", "12.1", "12.4")
    assert M.pythons("2.13") == ("3.10", "3.11", "3.12", "3.13", "3.14")
    assert M.default_cuda("2.13", "pip") == "13.0"
    assert M.default_cuda("2.8", "conda-forge") == "12.9"
    assert M.styles("2.5") == ("conda-forge", "pip", "pytorch-channel")
    assert M.styles("2.6") == ("conda-forge", "pip")
    assert M.styles("1.13") == ("pip", "pytorch-channel")
    assert M.newest() == "2.15"
    assert M.newest("conda-forge") == "2.13"
    assert M.newest("pytorch-channel") == "2.5"


@pytest.mark.parametrize(
    "torch,pkg,version,ok",
    [
        ("2.7.1", "torchvision", "0.22.1", True),
        ("2.7.1", "torchvision", "0.21.0", False),
        ("2.7.0", "torchaudio", "2.7.0", True),
        ("2.7.0", "torchaudio", "2.6.0", False),
        ("2.13.0", "torchaudio", "2.11.0", True),  # stable ABI from 2.11
        ("2.12.1", "torchaudio", "2.12.0", True),
        ("2.11.0", "torchaudio", "2.12.0", False),  # older torch than torchaudio
        ("2.13.0", "torchaudio", "2.10.0", False),  # before the stable ABI
        ("9.9", "torchvision", "0.1", None),
        ("2.7", "numpy", "1.0", None),
    ],
)
def test_is_compatible(torch, pkg, version, ok):
    assert M.is_compatible(torch, pkg, version) is ok


@pytest.mark.parametrize(
    "text,out",
    [
        ("12.6", "12.6"),
        ("cu126", "12.6"),
        ("126", "12.6"),
        ("12.6.3", "12.6"),
        ("cu92", "9.2"),
        ("13.0", "13.0"),
        ("CUDA12.8", "12.8"),
    ],
)
def test_normalize_cuda(text, out):
    assert normalize_cuda(text) == out


def test_normalize_cuda_rejects_garbage():
    with pytest.raises(UsageError) as e:
        normalize_cuda("twelve")
    assert e.value.message == "invalid CUDA version 'twelve'; write it as major.minor, e.g. 12.6"


# -- every row, every style ----------------------------------------------------------------------


@pytest.mark.parametrize("style,torch,cuda", COMBOS, ids=[f"{s}-{t}-{c or 'cpu'}" for s, t, c in COMBOS])
def test_every_row_renders_in_every_style(style, torch, cuda):
    from envkit.formats import read_text

    plan = plan_pytorch(M, PytorchOptions(torch=torch, cuda=cuda, cpu=cuda is None, style=style))
    text = render(plan)
    assert text == render(plan)  # byte-stable
    spec = read_text(text, filename="environment.yml")
    assert spec == to_envspec(plan)
    assert text.splitlines()[1] == f"# Regenerate with: {plan.command}"
    names = [d.name for d in spec.conda]
    channels = [c.name for c in spec.channels]
    r = M.release(torch)
    if style == "conda-forge":
        assert channels == ["conda-forge", "nodefaults"]
        assert "channel_priority: strict" in text
        build = "cuda*" if cuda else "cpu*"
        assert f"  - pytorch={torch}.*={build}\n" in text
        assert (f"  - cuda-version={cuda}\n" in text) == bool(cuda)
        assert f"  - torchvision={r.torchvision}\n" in text
    elif style == "pip":
        assert channels == ["conda-forge", "nodefaults"]
        assert names == ["pip", "python"]  # normalized: sorted by name
        tag = "cu" + cuda.replace(".", "") if cuda else "cpu"
        # torchaudio's last release (2.11) is paired only with the torch it was built with
        paired = [f"torchaudio=={r.torchaudio}.*"] if r.torchaudio != "2.11" or torch == "2.11" else []
        assert [p.text for p in spec.pip] == [
            f"--index-url https://download.pytorch.org/whl/{tag}",
            "--extra-index-url https://pypi.org/simple",
            f"torch=={torch}.*",
            *paired,
            f"torchvision=={r.torchvision}.*",
        ]
    else:
        metapkg = M.cuda_package(torch)
        assert channels == (
            ["pytorch", "nvidia", "defaults"]
            if cuda and metapkg == "pytorch-cuda"
            else ["pytorch", "defaults"]
        )
        assert names == sorted(names)  # normalized: sorted by name
        assert {"python", "pytorch", "torchvision", "torchaudio"} <= set(names)
        assert (f"  - {metapkg}={cuda}\n" in text) if cuda else ("  - cpuonly\n" in text)
        assert "  - mkl<2024.1\n" in text
    assert spec.conda_by_name()["python"].version == f"{M.pythons(torch, style)[-1]}.*"


def test_default_is_newest_torch_newest_python_default_cuda_conda_forge():
    text = render(plan_pytorch(M, PytorchOptions()))
    assert text == (
        "# PyTorch 2.13 (CUDA 13.0), Python 3.14, from conda-forge.\n"
        "# Regenerate with: envkit template pytorch --torch 2.13 --cuda 13.0 --python 3.14 "
        "--style conda-forge --with torchvision --name torch-2.13-cu130\n"
        "# Set `channel_priority: strict` (conda config --set channel_priority strict): with flexible\n"
        "# priority a package missing from conda-forge could come from another channel.\n"
        "# Needs an NVIDIA driver >= 580.65.06 (CUDA 13.0).\n"
        "# The CUDA build needs the __cuda virtual package (an NVIDIA driver); on a machine without one,\n"
        "# create it with CONDA_OVERRIDE_CUDA=13.0.\n"
        "# torchaudio is left out: its newest release, 2.11, was built with torch 2.11, not 2.13; add it\n"
        "# yourself if you rely on its stable-ABI promise\n"
        "# (https://docs.pytorch.org/audio/stable/installation.html)\n"
        "name: torch-2.13-cu130\n"
        "channels:\n"
        "  - conda-forge\n"
        "  - nodefaults\n"
        "dependencies:\n"
        "  - cuda-version=13.0\n"
        "  - python=3.14\n"
        "  - pytorch=2.13.*=cuda*\n"
        "  - torchvision=0.28\n"
    )


def test_pip_style_full_text():
    text = render(
        plan_pytorch(
            M,
            PytorchOptions(
                torch="2.7", cuda="cu128", python="3.12", style="pip", with_=("torchvision",), name="train"
            ),
        )
    )
    assert text == (
        "# PyTorch 2.7 (CUDA 12.8), Python 3.12, from the PyTorch wheel index.\n"
        "# Regenerate with: envkit template pytorch --torch 2.7 --cuda 12.8 --python 3.12 --style pip "
        "--with torchvision --name train\n"
        "# Python and pip come from conda-forge; torch, torchvision come from the PyTorch wheel index.\n"
        "# --index-url replaces PyPI for this pip section; --extra-index-url keeps PyPI for the rest.\n"
        "# Needs an NVIDIA driver >= 570.26 (CUDA 12.8).\n"
        "# PyTorch's release notes mark the CUDA 12.8 wheels of torch 2.7 experimental.\n"
        "name: train\n"
        "channels:\n"
        "  - conda-forge\n"
        "  - nodefaults\n"
        "dependencies:\n"
        "  - pip\n"
        "  - python=3.12\n"
        "  - pip:\n"
        "    - --index-url https://download.pytorch.org/whl/cu128\n"
        "    - --extra-index-url https://pypi.org/simple\n"
        "    - torch==2.7.*\n"
        "    - torchvision==0.22.*\n"
    )


def test_pytorch_channel_full_text():
    text = render(
        plan_pytorch(M, PytorchOptions(torch="2.3.1", cuda="12.1", python="3.11", style="pytorch-channel"))
    )
    assert text == (
        "# PyTorch 2.3.1 (CUDA 12.1), Python 3.11, from the pytorch channel.\n"
        "# Regenerate with: envkit template pytorch --torch 2.3.1 --cuda 12.1 --python 3.11 "
        "--style pytorch-channel --with torchvision,torchaudio --name torch-2.3-cu121\n"
        "# The legacy `pytorch` conda channel: its last release is torch 2.5. Keep the channel order.\n"
        "# Needs an NVIDIA driver >= 530.30.02 (CUDA 12.1).\n"
        "# mkl<2024.1: MKL 2024.1 breaks `import torch` with `undefined symbol: iJIT_NotifyEvent`\n"
        "# (pytorch/pytorch#123097).\n"
        "name: torch-2.3-cu121\n"
        "channels:\n"
        "  - pytorch\n"
        "  - nvidia\n"
        "  - defaults\n"
        "dependencies:\n"
        "  - mkl<2024.1\n"
        "  - python=3.11\n"
        "  - pytorch==2.3.1\n"
        "  - pytorch-cuda=12.1\n"
        "  - torchaudio=2.3\n"
        "  - torchvision=0.18\n"
    )


def test_exact_torch_version_pins_exactly():
    cf = plan_pytorch(M, PytorchOptions(torch="2.7.1", cuda="12.6"))
    assert "pytorch=2.7.1=cuda*" in cf.conda
    pip = plan_pytorch(M, PytorchOptions(torch="2.7.1", cpu=True, style="pip"))
    assert "torch==2.7.1" in pip.pip


def test_with_none_and_extra_packages():
    plan = plan_pytorch(M, PytorchOptions(torch="2.13", with_=("none",)))
    assert plan.conda == ("python=3.14", "pytorch=2.13.*=cuda*", "cuda-version=13.0")
    plan = plan_pytorch(M, PytorchOptions(torch="2.13", with_=("torchvision,lightning", "numpy>=2")))
    assert plan.conda[-3:] == ("torchvision=0.28", "lightning", "numpy>=2")
    pip = plan_pytorch(M, PytorchOptions(torch="2.11", style="pip", with_=("torchaudio,lightning",)))
    assert pip.pip[-2:] == ("torchaudio==2.11.*", "lightning")
    assert pip.conda == ("python=3.14", "pip")  # pip extras never go to conda: no duplicates


def test_torchaudio_is_never_paired_with_a_torch_it_was_not_built_with():
    # torchaudio's last release is 2.11 (built with torch 2.11): next to torch 2.13 it is left out
    plan = plan_pytorch(M, PytorchOptions(torch="2.13", style="pip", with_=("torchaudio,lightning",)))
    assert plan.pip[-2:] == ("torch==2.13.*", "lightning")
    assert plan.with_ == ("lightning",)
    assert plan.warnings == (
        "torchaudio is left out: its newest release, 2.11, was built with torch 2.11, not 2.13; add it "
        "yourself if you rely on its stable-ABI promise (https://docs.pytorch.org/audio/stable/installation.html)",
    )
    assert plan.notes[-1] == plan.warnings[0]
    # by default: a note in the file, no warning
    default = plan_pytorch(M, PytorchOptions(torch="2.13", style="pip"))
    assert (default.with_, default.warnings, default.notes[-1]) == (("torchvision",), (), plan.warnings[0])
    assert plan_pytorch(M, PytorchOptions(torch="2.11", style="pip")).with_ == ("torchvision", "torchaudio")


def test_cli_torchaudio_asked_for_by_name_warns(envkit_cli):
    r = envkit_cli("template", "pytorch", "--torch", "2.13", "--with", "torchaudio")
    assert r.exit_code == 0
    assert r.stderr.startswith("warning: torchaudio is left out: its newest release, 2.11, was built with")
    assert "torchaudio=" not in r.stdout


# -- impossible combinations, word for word ------------------------------------------------------


@pytest.mark.parametrize(
    "options,message,hint",
    [
        (
            dict(torch="2.7", cuda="12.1", style="pip"),
            "torch 2.7 has no CUDA 12.1 build; available: 11.8, 12.6, 12.8",
            None,
        ),
        (
            dict(torch="2.7", cuda="12.8"),
            "torch 2.7 has no CUDA 12.8 build on conda-forge; available: 12.6",
            "the official wheels have CUDA 12.8: use --style pip",
        ),
        (
            dict(torch="2.5", cuda="12.6", style="pytorch-channel"),
            "torch 2.5 has no CUDA 12.6 build on the pytorch channel; available: 11.8, 12.1, 12.4",
            None,
        ),
        (
            dict(torch="2.6", style="pytorch-channel"),
            "the pytorch channel stopped at torch 2.5 (pytorch/pytorch#138506); torch 2.6 is not on it",
            "use --style conda-forge or --style pip, or --torch 2.5 or older",
        ),
        (
            dict(torch="2.13", cpu=True, style="pytorch-channel"),
            "the pytorch channel stopped at torch 2.5 (pytorch/pytorch#138506); torch 2.13 is not on it",
            "use --style conda-forge or --style pip, or --torch 2.5 or older",
        ),
        (
            dict(torch="1.13", cpu=True),
            "torch 1.13 is not in envkit's conda-forge table; available: 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, "
            "2.8, 2.9, 2.10, 2.11, 2.12, 2.13",
            "use --style pip (official wheels) for this torch version",
        ),
        (
            dict(torch="3.0"),
            "unknown torch version 3.0; known: 1.12, 1.13, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, "
            "2.10, 2.11, 2.12, 2.13, 2.14, 2.15",
            None,
        ),
        (dict(torch="latest"), "invalid torch version 'latest'; write it as 2.7 or 2.7.1", None),
        (
            dict(torch="2.13", python="3.9"),
            "torch 2.13 does not support Python 3.9; available: 3.10, 3.11, 3.12, 3.13, 3.14",
            None,
        ),
        (
            dict(torch="2.9", python="3.14"),
            "torch 2.9 has no Python 3.14 build on conda-forge; available: 3.10, 3.11, 3.12, 3.13",
            "the official wheels have Python 3.14: use --style pip",
        ),
        (
            dict(torch="2.9", cuda="13.0"),
            "torch 2.9 has no CUDA 13.0 build on conda-forge; available: 12.9",
            "the official wheels have CUDA 13.0: use --style pip",
        ),
        (dict(cuda="12.6", cpu=True), "--cuda and --cpu exclude each other", None),
        (dict(style="mamba"), "unknown style 'mamba'; available: conda-forge, pip, pytorch-channel", None),
    ],
)
def test_impossible_combinations_are_errors_listing_what_is_possible(options, message, hint):
    with pytest.raises(UsageError) as e:
        plan_pytorch(M, PytorchOptions(**options))
    assert e.value.message == message
    # the hint as the CLI words its remedies (tests/cli/test_remedies.py: the library's wording)
    assert cli_hint(e.value) == hint


def test_invalid_with_entries():
    with pytest.raises(UsageError) as e:
        plan_pytorch(M, PytorchOptions(style="pip", with_=("torch vision",)))
    assert e.value.message.startswith("--with: invalid pip requirement 'torch vision'")
    with pytest.raises(UsageError) as e:
        plan_pytorch(M, PytorchOptions(with_=("numpy>=>2",)))
    assert e.value.message.startswith("--with: invalid match spec 'numpy>=>2'")


@pytest.mark.parametrize(
    "style,with_,message",
    [
        ("pip", "torch", "--with: 'torch' names torch itself; choose its version with --torch"),
        (
            "conda-forge",
            "pytorch>=2",
            "--with: 'pytorch>=2' names torch itself; choose its version with --torch",
        ),
        ("conda-forge", "python=3.11", "--with: 'python=3.11': the Python version is set with --python"),
        (
            "conda-forge",
            "cuda-version=12.6",
            "--with: 'cuda-version=12.6': the CUDA variant is set with --cuda or --cpu",
        ),
        ("pytorch-channel", "cpuonly", "--with: 'cpuonly': the CUDA variant is set with --cuda or --cpu"),
        (
            "conda-forge",
            "torchvision=0.21",
            "--with: 'torchvision=0.21': torchvision gets the version made for torch 2.5 (0.20); "
            "write --with torchvision",
        ),
        (
            "pip",
            "torchaudio==2.4",
            "--with: 'torchaudio==2.4': torchaudio gets the version made for torch 2.5 (2.5); "
            "write --with torchaudio",
        ),
    ],
)
def test_with_naming_what_the_template_sets_is_an_error(style, with_, message):
    # Before: written next to the template's own spec (python=3.14 and python=3.11), unsolvable.
    with pytest.raises(UsageError) as e:
        plan_pytorch(M, PytorchOptions(torch="2.5", style=style, with_=(with_,)))
    assert e.value.message == message


def test_with_companion_in_another_case_is_the_companion():
    plan = plan_pytorch(M, PytorchOptions(torch="2.7", style="pip", with_=("TorchVision,numpy",)))
    assert plan.pip[2:] == ("torch==2.7.*", "torchvision==0.22.*", "numpy")


# -- the template engine -------------------------------------------------------------------------


def test_render_template_lists_none_and_quoting():
    text = "a: {{x}}\n  - {{items}}\n# {{c|raw}}\nb: {{gone}}\n"
    out = render_template(text, {"x": "yes", "items": ["p", "q: r"], "c": "{raw} text", "gone": None})
    assert out == 'a: "yes"\n  - p\n  - "q: r"\n# {raw} text\n'
    from envkit.errors import EnvkitError

    with pytest.raises(EnvkitError) as e:
        render_template("x: {{missing}}\n", {}, filename="t.in")
    assert str(e.value) == "t.in:1: template placeholder {{missing}} has no value"


# -- --detect ------------------------------------------------------------------------------------

SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.86.15              Driver Version: 570.86.15      CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
"""


class FakeResult:
    def __init__(self, rc, stdout="", stderr=""):
        self.returncode, self.stdout, self.stderr = rc, stdout, stderr

    @property
    def ok(self):
        return self.returncode == 0


def test_parse_nvidia_smi():
    assert parse_nvidia_smi(SMI) == ("570.86.15", "12.8")
    assert parse_nvidia_smi("No devices were found") == (None, None)


# Two GPUs: one banner line (one driver per machine), then a block per GPU.
SMI_MULTI = """\
Tue Mar  4 10:12:01 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
| N/A   31C    P0             70W /  700W |       1MiB /  81559MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA A100-SXM4-40GB          On  |   00000000:2A:00.0 Off |                    0 |
| N/A   29C    P0             52W /  400W |       1MiB /  40960MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
"""
# nvidia-smi 470 and older: less padding, same keys
SMI_OLD = "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"


def test_parse_nvidia_smi_multi_gpu_and_old_banner():
    assert parse_nvidia_smi(SMI_MULTI) == ("560.35.03", "12.6")
    assert parse_nvidia_smi(SMI_OLD) == ("470.82.01", "11.4")


def test_detect_multi_gpu_picks_by_the_one_driver():
    gpu = detect_gpu(
        environ={},
        which=lambda n: "nvidia-smi",
        run=lambda argv, **kw: FakeResult(0, SMI_MULTI),
        rattler_cuda=lambda: None,
    )
    assert gpu == GpuInfo("12.6", "560.35.03", "nvidia-smi")
    d = pick_detected_cuda(M, "2.7", "pip", gpu)
    assert (d.cuda, d.warnings) == ("12.6", ())


def test_detect_no_devices_found_is_cpu():
    # nvidia-smi with a driver but no GPU prints this and exits 6
    gpu = detect_gpu(
        environ={},
        which=lambda n: "/usr/bin/nvidia-smi",
        run=lambda argv, **kw: FakeResult(6, "No devices were found\n"),
        rattler_cuda=lambda: None,
    )
    assert gpu == GpuInfo(
        None,
        None,
        "none",
        "nvidia-smi failed (exit 6): No devices were found; py-rattler reports no __cuda virtual package",
    )
    d = pick_detected_cuda(M, "2.13", "conda-forge", gpu)
    assert d.cuda is None
    assert d.messages == (
        "no NVIDIA GPU detected (nvidia-smi failed (exit 6): No devices were found; "
        "py-rattler reports no __cuda virtual package); generating a CPU environment",
    )
    # some versions exit 0 after the same line: still no GPU
    gpu = detect_gpu(
        environ={},
        which=lambda n: "nvidia-smi",
        run=lambda argv, **kw: FakeResult(0, "No devices were found\n"),
        rattler_cuda=lambda: None,
    )
    assert (gpu.cuda, gpu.detail) == (
        None,
        "nvidia-smi printed no driver version; py-rattler reports no __cuda virtual package",
    )


def test_detect_rattler_error_is_not_a_crash():
    def boom():
        raise RuntimeError("libcuda.so: cannot open")

    gpu = detect_gpu(environ={}, which=lambda n: None, run=None, rattler_cuda=boom)
    assert gpu == GpuInfo(
        None,
        None,
        "none",
        "nvidia-smi not found; py-rattler could not detect virtual "
        "packages: libcuda.so: cannot open; py-rattler reports no "
        "__cuda virtual package",
    )


def test_detect_with_nvidia_smi():
    calls = []

    def run(argv, **kw):
        calls.append((argv, kw))
        return FakeResult(0, SMI)

    gpu = detect_gpu(
        environ={},
        which=lambda n: "/usr/bin/nvidia-smi",
        run=run,
        rattler_cuda=lambda: pytest.fail("not reached"),
    )
    assert gpu == GpuInfo("12.8", "570.86.15", "nvidia-smi")
    assert calls == [(["/usr/bin/nvidia-smi"], {"timeout": 30, "check": False, "what": "nvidia-smi"})]


def test_detect_driver_only_uses_the_driver_table():
    gpu = detect_gpu(
        environ={},
        which=lambda n: "nvidia-smi",
        run=lambda argv, **kw: FakeResult(0, "Driver Version: 560.35.03"),
        rattler_cuda=lambda: None,
    )
    assert gpu == GpuInfo("12.6", "560.35.03", "nvidia-smi")


def test_detect_falls_back_to_rattler_cuda():
    gpu = detect_gpu(
        environ={},
        which=lambda n: "nvidia-smi",
        run=lambda argv, **kw: FakeResult(
            9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
        ),
        rattler_cuda=lambda: "12.4",
    )
    assert gpu == GpuInfo("12.4", None, "py-rattler __cuda")


def test_detect_nothing():
    gpu = detect_gpu(environ={}, which=lambda n: None, run=None, rattler_cuda=lambda: None)
    assert gpu == GpuInfo(
        None, None, "none", "nvidia-smi not found; py-rattler reports no __cuda virtual package"
    )


def test_detect_conda_override_cuda_wins():
    assert detect_gpu(environ={"CONDA_OVERRIDE_CUDA": "12.9"}) == GpuInfo("12.9", None, "CONDA_OVERRIDE_CUDA")
    assert detect_gpu(environ={"CONDA_OVERRIDE_CUDA": ""}) == GpuInfo(
        None, None, "CONDA_OVERRIDE_CUDA", "CONDA_OVERRIDE_CUDA is set empty"
    )


def test_detect_bad_conda_override_is_a_usage_error():
    with pytest.raises(UsageError) as e:
        detect_gpu(environ={"CONDA_OVERRIDE_CUDA": "yes"})
    assert e.value.message == "CONDA_OVERRIDE_CUDA='yes' is not a CUDA version"


def test_detect_rattler_really_reads_conda_override(monkeypatch):
    from envkit.templates.gpu import _rattler_cuda

    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "12.7")
    assert _rattler_cuda() == "12.7"


def test_pick_detected_highest_that_runs():
    d = pick_detected_cuda(M, "2.7", "pip", GpuInfo("12.8", "570.86.15", "nvidia-smi"))
    assert d.cuda == "12.8" and d.warnings == ()
    assert d.messages == ("detected NVIDIA driver 570.86.15, CUDA 12.8 (nvidia-smi); picked CUDA 12.8",)
    assert pick_detected_cuda(M, "2.7", "pip", GpuInfo("12.7", None, "x")).cuda == "12.6"
    assert pick_detected_cuda(M, "2.13", "conda-forge", GpuInfo("13.1", "590.48.01", "x")).cuda == "13.0"


def test_pick_detected_applies_minor_version_compatibility():
    # driver 550 (CUDA 12.4): torch 2.7's cu118 runs fully, so it is taken over cu126, which runs
    # only through minor-version compatibility (what `check --machine` would note)
    d = pick_detected_cuda(M, "2.7", "pip", GpuInfo("12.4", "550.54.14", "nvidia-smi"))
    assert (d.cuda, d.warnings, d.full) == ("11.8", (), True)
    # torch 2.13 has no variant the driver supports fully: cu126 through minor-version compatibility
    d = pick_detected_cuda(M, "2.13", "pip", GpuInfo("12.4", "550.54.14", "nvidia-smi"))
    assert (d.cuda, d.warnings, d.full) == ("12.6", (), False)
    assert d.messages == (
        "detected NVIDIA driver 550.54.14, CUDA 12.4 (nvidia-smi); picked CUDA 12.6",
        "CUDA 12.6 runs on this driver through NVIDIA's minor-version compatibility (limited feature set); "
        "kernels JIT-compiled from PTX need the full driver (>= 560.28.03)",
    )
    # only __cuda known: the same major runs
    assert (
        pick_detected_cuda(M, "2.13", "conda-forge", GpuInfo("12.2", None, "py-rattler __cuda")).cuda
        == "12.9"
    )


def test_pick_detected_driver_too_old_for_the_major_warns():
    # driver 520 (CUDA 11.8) is below CUDA 12's floor (525.60.13): no 12.x variant runs
    d = pick_detected_cuda(M, "2.13", "pip", GpuInfo("11.8", "520.61.05", "nvidia-smi"))
    assert d.cuda == "12.6"
    assert d.warnings == (
        "CUDA 12.6 needs an NVIDIA driver >= 560.28.03, but this machine's driver "
        "520.61.05 supports CUDA 11.8 (nvidia-smi); update the driver, or use --cpu",
    )
    d = pick_detected_cuda(M, "2.13", "conda-forge", GpuInfo("11.8", None, "py-rattler __cuda"))
    assert d.warnings == (
        "CUDA 12.9 needs an NVIDIA driver >= 575.51.03, but this machine's driver "
        "supports CUDA 11.8 only (py-rattler __cuda); update the driver, or use --cpu",
    )
    # CUDA 13 needs a 580 driver even through minor-version compatibility
    assert pick_detected_cuda(M, "2.15", "pip", GpuInfo("12.9", "575.51.03", "x")).warnings != ()


def test_pick_detected_no_gpu_is_cpu():
    d = pick_detected_cuda(M, "2.13", "conda-forge", GpuInfo(None, None, "none", "nvidia-smi not found"))
    assert d.cuda is None
    assert d.messages == ("no NVIDIA GPU detected (nvidia-smi not found); generating a CPU environment",)


# -- the CLI -------------------------------------------------------------------------------------


def test_cli_default_and_output_file(envkit_cli, tmp_path):
    r = envkit_cli("template", "pytorch")
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout == render(plan_pytorch(M, PytorchOptions()))
    out = tmp_path / "env.yml"
    r = envkit_cli("template", "pytorch", "--cpu", "--style", "pip", "-o", str(out))
    assert r.exit_code == 0 and r.stdout == ""
    assert r.stderr == f"envkit: wrote {out}\n"
    assert out.read_text() == render(plan_pytorch(M, PytorchOptions(cpu=True, style="pip", output=str(out))))
    assert f"--name torch-2.15-cpu -o {out}\n" in out.read_text()  # the newest wheels


def test_cli_header_command_regenerates_the_same_file(envkit_cli, tmp_path):
    import shlex

    r = envkit_cli("template", "pytorch", "--torch", "2.4", "--style", "pytorch-channel", "--cpu")
    cmd = shlex.split(r.stdout.splitlines()[1].removeprefix("# Regenerate with: "))
    assert cmd[:3] == ["envkit", "template", "pytorch"]
    again = envkit_cli(*cmd[1:])
    assert again.stdout == r.stdout


def test_cli_error_word_for_word(envkit_cli):
    r = envkit_cli("template", "pytorch", "--torch", "2.7", "--cuda", "12.1", "--style", "pip")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == "error: torch 2.7 has no CUDA 12.1 build; available: 11.8, 12.6, 12.8\n"
    r = envkit_cli("template", "pytorch", "--torch", "2.6", "--style", "pytorch-channel")
    assert r.exit_code == 2
    assert r.stderr == (
        "error: the pytorch channel stopped at torch 2.5 (pytorch/pytorch#138506); "
        "torch 2.6 is not on it\n"
        "hint: use --style conda-forge or --style pip, or --torch 2.5 or older\n"
    )
    r = envkit_cli("template", "pytorch", "--cpu", "--detect")
    assert (r.exit_code, r.stderr) == (
        2,
        "error: a CUDA version, CPU only and detection exclude each other\n"
        "hint: pass one of --cuda VERSION, --cpu or --detect\n",
    )


def test_cli_detect_without_gpu_picks_cpu(envkit_cli, monkeypatch):
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "")
    r = envkit_cli("template", "pytorch", "--detect", "--torch", "2.9")
    assert r.exit_code == 0
    assert "  - python=3.13\n" in r.stdout  # conda-forge's newest Python for 2.9
    assert r.stderr == (
        "envkit: no NVIDIA GPU detected (CONDA_OVERRIDE_CUDA is set empty); generating a CPU environment\n"
    )
    assert "  - pytorch=2.9.*=cpu*\n" in r.stdout


def test_cli_detect_with_gpu_and_old_driver(envkit_cli, monkeypatch):
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "12.8")
    r = envkit_cli("template", "pytorch", "--detect", "--torch", "2.9", "--style", "pip")
    assert r.exit_code == 0
    assert r.stderr == "envkit: detected NVIDIA CUDA 12.8 (CONDA_OVERRIDE_CUDA); picked CUDA 12.8\n"
    assert "--index-url https://download.pytorch.org/whl/cu128" in r.stdout
    # no --torch: the newest torch with a variant the driver runs, never one it cannot run
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "11.8")
    r = envkit_cli("template", "pytorch", "--detect")
    assert r.exit_code == 0
    assert r.stderr.splitlines() == [
        "envkit: detected NVIDIA CUDA 11.8 (CONDA_OVERRIDE_CUDA); picked CUDA 11.8",
        "envkit: torch 2.4 is the newest release with a CUDA variant this driver runs "
        "(torch 2.13 needs CUDA >= 12.9)",
    ]
    assert "  - cuda-version=11.8\n" in r.stdout and "  - pytorch=2.4.*=cuda*\n" in r.stdout


def test_cli_detect_refuses_an_environment_the_driver_cannot_run(envkit_cli, monkeypatch, tmp_path):
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "11.2")
    out = tmp_path / "env.yml"
    r = envkit_cli("template", "pytorch", "--detect", "--torch", "2.15", "--style", "pip", "-o", str(out))
    assert r.exit_code == 2 and r.stdout == "" and not out.exists()
    assert r.stderr == (
        "error: no CUDA variant of torch 2.15 runs on a driver with CUDA 11.2 (CONDA_OVERRIDE_CUDA): it "
        "has 13.0, 13.2\n"
        "hint: torch 2.7 has CUDA 11.8, which does; update the NVIDIA driver, or write a CPU "
        "environment with --cpu\n"
    )
    # CUDA 11.2 runs torch 2.7's cu118 through minor-version compatibility: that is the newest
    r = envkit_cli("template", "pytorch", "--detect", "--style", "pip")
    assert r.exit_code == 0 and "torch==2.7.*" in r.stdout and "/whl/cu118" in r.stdout
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "10.0")
    r = envkit_cli("template", "pytorch", "--detect")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == (
        "error: no torch release on conda-forge has a CUDA variant that runs on a driver with CUDA 10.0 "
        "(CONDA_OVERRIDE_CUDA)\n"
        "hint: update the NVIDIA driver, or write a CPU environment with --cpu\n"
    )


def fake_nvidia_smi(monkeypatch, tmp_path, output: str) -> None:
    """Put an `nvidia-smi` that prints `output` first on PATH, with no CONDA_OVERRIDE_CUDA set."""
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\ncat <<'EOF'\n" + output + "EOF\n")
    smi.chmod(0o755)
    monkeypatch.delenv("CONDA_OVERRIDE_CUDA", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")


def test_cli_detect_uses_nvidia_smi_through_proc(envkit_cli, monkeypatch, tmp_path):
    fake_nvidia_smi(monkeypatch, tmp_path, SMI)
    r = envkit_cli("template", "pytorch", "--detect", "--torch", "2.7", "--style", "pip")
    assert r.exit_code == 0
    assert r.stderr == (
        "envkit: detected NVIDIA driver 570.86.15, CUDA 12.8 (nvidia-smi); picked CUDA 12.8\n"
    )


def test_cli_detect_multi_gpu_nvidia_smi_with_an_older_driver(envkit_cli, monkeypatch, tmp_path):
    fake_nvidia_smi(monkeypatch, tmp_path, SMI_MULTI)
    r = envkit_cli("template", "pytorch", "--detect", "--torch", "2.13")
    assert r.exit_code == 0
    assert r.stderr == (
        "envkit: detected NVIDIA driver 560.35.03, CUDA 12.6 (nvidia-smi); picked CUDA 12.9\n"
        "envkit: CUDA 12.9 runs on this driver through NVIDIA's minor-version compatibility (limited feature "
        "set); kernels JIT-compiled from PTX need the full driver (>= 575.51.03)\n"
    )
    assert "  - cuda-version=12.9\n" in r.stdout


def test_cli_help(envkit_cli):
    r = envkit_cli("template", "pytorch", "-h")
    assert r.exit_code == 0
    assert "--style [conda-forge|pip|pytorch-channel]" in r.stdout
    r = envkit_cli("template", "--help")
    assert r.exit_code == 0 and "  list " in r.stdout and "  pytorch " in r.stdout


def test_cli_list(envkit_cli):
    from envkit.templates import render_list

    r = envkit_cli("template", "list")
    assert r.exit_code == 0
    assert r.stdout == render_list(M)
    lines = r.stdout.splitlines()
    assert lines[5].split() == [
        "torch",
        "torchvision",
        "torchaudio",
        "python",
        "pip",
        "CUDA",
        "conda-forge",
        "CUDA",
        "pytorch-channel",
        "CUDA",
    ]
    assert (
        lines[6]
        == "2.15   0.30         2.11        3.10-3.14  13.0*, 13.2         -                          -"
    )
    assert (
        lines[8]
        == "2.13   0.28         2.11        3.10-3.14  12.6, 13.0*, 13.2~  12.9, 13.0*                -"
    )
    assert (
        lines[12]
        == "2.9    0.24         2.9         3.10-3.14  12.6, 12.8*, 13.0~  12.9* (py 3.10-3.13)       -"
    )
    # the wheels of 2.5.1 have Python 3.13; the conda channels' builds stop at 3.12
    assert lines[16] == (
        "2.5    0.20         2.5         3.9-3.13   11.8, 12.1, 12.4*   12.0, 12.6* (py 3.9-3.12)"
        "  11.8, 12.1, 12.4*"
    )
    assert lines[-1] == "Defaults: torch 2.13, Python 3.14, CUDA 13.0, style conda-forge."


def test_template_module_stays_light():
    import subprocess
    import sys

    code = (
        "import sys; import envkit.commands.template; "
        "print(sorted(m for m in ('yaml', 'rattler', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_machine_applies_the_same_minor_version_compatibility_as_detect(
    envkit_cli, monkeypatch, tmp_path
):
    """`--machine` and `--detect` ask one CUDA compatibility module: on a 570 driver, torch 2.13 from
    conda-forge (CUDA 12.9 or 13.0) gets 12.9 through minor-version compatibility, not 12.6-era rules."""
    profile = json.loads((REPO / "examples" / "laptop-vs-server" / "gpu-server.json").read_text())
    profile["driver"] = "570.86.15"
    machine = tmp_path / "gpu.json"
    machine.write_text(json.dumps(profile))
    (tmp_path / "bin").mkdir()
    fake_nvidia_smi(monkeypatch, tmp_path / "bin", SMI)
    by_machine = envkit_cli("template", "pytorch", "--machine", str(machine), "--torch", "2.13")
    by_detect = envkit_cli("template", "pytorch", "--detect", "--torch", "2.13")
    assert (by_machine.exit_code, by_detect.exit_code) == (0, 0)
    assert by_machine.stderr == (
        f"envkit: detected NVIDIA driver 570.86.15, CUDA 12.8 (profile {machine}); picked CUDA 12.9\n"
        "envkit: CUDA 12.9 runs on this driver through NVIDIA's minor-version compatibility (limited feature "
        "set); kernels JIT-compiled from PTX need the full driver (>= 575.51.03)\n"
    )
    assert by_detect.stderr == by_machine.stderr.replace(f"profile {machine}", "nvidia-smi")
    assert "  - cuda-version=12.9\n" in by_machine.stdout
    assert by_machine.stdout == by_detect.stdout


@pytest.mark.parametrize("style", ["conda-forge", "pip"])
def test_template_for_a_machine_passes_its_own_machine_check(envkit_cli, tmp_path, style):
    # driver 535 (CUDA 12.2): the newest torch whose CUDA variant this driver supports fully, not
    # a newer CUDA through minor-version compatibility that `check --machine` then notes
    doc = json.loads((REPO / "tests" / "data" / "machine" / "centos7-server.json").read_text())
    doc.update(driver="535.104.05", driver_cuda="12.2", driver_cuda_source="nvidia-smi", glibc="2.28")
    doc.update(gpus=[{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "compute_capability": "8.0"}])
    doc.update(gpu_source="nvidia-smi")
    doc["virtual_packages"] = [v for v in doc["virtual_packages"] if v["name"] != "__glibc"] + [
        {"name": "__glibc", "version": "2.28", "build": "0"},
        {"name": "__cuda", "version": "12.2", "build": "0"},
    ]
    machine = tmp_path / "a100.json"
    machine.write_text(json.dumps(doc))
    out = tmp_path / "environment.yml"
    r = envkit_cli("template", "pytorch", "--style", style, "--machine", str(machine), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert "minor-version compatibility" not in r.stderr
    r = envkit_cli("check", "--machine", str(machine), str(out))
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")
