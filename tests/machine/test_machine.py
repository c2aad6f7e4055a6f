"""`envkit machine` and `envkit check --machine`: profiles built from recorded NVML and nvidia-smi
answers (a stand-in `nvidia-smi` on PATH, a stand-in `pynvml` replaying NVML's answers) and from
py-rattler's own detection, checked against real locks from ../shared/corpus."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, REPO, run_envkit

from envkit.machine import MachineProfile, read_profile

DATA = REPO / "tests" / "data" / "machine"
MACHINE_RULES = (
    "machine-platform,machine-virtual-package,machine-cuda-driver,machine-gpu-arch,machine-wheel-tag"
)


def _fake_smi(tmp_path: Path, name: str) -> Path:
    """A bin/ folder whose `nvidia-smi` prints the recorded answers tests/data/machine/<name>*."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    smi = bin_dir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        f"case \"$1\" in --query-gpu=*) cat '{DATA / (name + '.csv')}' ;; "
        f"*) cat '{DATA / (name + '_banner.txt')}' ;; esac\n"
    )
    smi.chmod(0o755)
    return bin_dir


@pytest.fixture
def no_gpu_path(tmp_path, monkeypatch):
    """PATH with this interpreter's folder and the system folders, but no nvidia-smi."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(empty), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    )
    monkeypatch.delenv("CONDA_OVERRIDE_CUDA", raising=False)
    monkeypatch.delenv("ENVKIT_TEST_NVML_ANSWER", raising=False)
    sys.modules.pop("pynvml", None)
    return empty


def _machine(args):
    return run_envkit("machine", *args)


def _profile_with_smi(tmp_path, monkeypatch, name: str, cuda: str) -> Path:
    """`envkit machine -o` on a machine whose nvidia-smi gave the recorded answers `name`;
    CONDA_OVERRIDE_CUDA makes py-rattler's __cuda agree with that (recorded) driver."""
    bin_dir = _fake_smi(tmp_path, name)
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    )
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", cuda)
    sys.modules.pop("pynvml", None)
    out = tmp_path / f"{name}.json"
    res = _machine(["-o", str(out)])
    assert res.exit_code == 0, res.stdout
    return out


def test_profile_from_recorded_nvidia_smi(tmp_path, monkeypatch, no_gpu_path):
    out = _profile_with_smi(tmp_path, monkeypatch, "smi_rtx5090", "12.9")
    p = read_profile(str(out))
    assert (p.driver, p.driver_cuda, p.driver_cuda_source, p.gpu_source) == (
        "575.57.08",
        "12.9",
        "nvidia-smi",
        "nvidia-smi",
    )
    assert [(g.index, g.name, g.compute_capability, g.memory_mib, g.sm) for g in p.gpus] == [
        (0, "NVIDIA GeForce RTX 5090", "12.0", 32607, "sm_120")
    ]
    assert p.virtual_packages_source == "py-rattler"
    assert p.virtual_package("__cuda") == ("12.9", "0")
    assert p.glibc == os.confstr("CS_GNU_LIBC_VERSION").split()[1]
    assert p.virtual_package("__glibc") == (p.glibc, "0")
    assert p.notes == ("pynvml not importable: ModuleNotFoundError",)
    assert p.pythons[0] == (sys.executable, ".".join(map(str, sys.version_info[:3])))


def test_profile_from_recorded_nvml(tmp_path, monkeypatch, no_gpu_path):
    bin_dir = _fake_smi(tmp_path, "smi_v100_old")  # present, but NVML answers first
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ["PATH"])
    monkeypatch.syspath_prepend(str(REPO / "tests" / "support" / "fake_nvml"))
    monkeypatch.setenv("ENVKIT_TEST_NVML_ANSWER", str(DATA / "nvml_a100.json"))
    res = _machine(["--json"])
    sys.modules.pop("pynvml", None)
    assert res.exit_code == 0, res.stdout
    doc = json.loads(res.stdout)
    assert (doc["driver"], doc["driver_cuda"], doc["gpu_source"]) == ("535.104.05", "12.2", "nvml")
    assert doc["gpus"] == [
        {"index": 0, "name": "NVIDIA A100-SXM4-40GB", "compute_capability": "8.0", "memory_mib": 40960}
    ]
    assert doc["notes"] == []


def test_machine_without_gpu_text(no_gpu_path):
    res = _machine([])
    assert res.exit_code == 0, res.stdout
    lines = res.stdout.splitlines()
    assert "NVIDIA driver     none" in lines
    assert "GPUs              none found" in lines
    assert "note              nvidia-smi not found" in lines
    assert lines[1].startswith("platform          linux-64 (linux, ")


def test_profile_json_round_trip(tmp_path, monkeypatch, no_gpu_path):
    out = _profile_with_smi(tmp_path, monkeypatch, "smi_v100_old", "11.4")
    first = out.read_text()
    again = _machine([str(out), "--json"])
    assert again.stdout == first
    p = read_profile(str(out))
    assert MachineProfile.from_dict(json.loads(p.to_json())) == p
    assert [g.compute_capability for g in p.gpus] == ["7.0", "7.0"]
    assert p.driver_cuda == "11.4"


def test_bad_profile_names_the_key(tmp_path):
    doc = json.loads((DATA / "centos7-server.json").read_text())
    doc["gpus"] = [{"index": 0, "name": "X", "compute_capability": 8.6}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    res = run_envkit("machine", str(bad))
    assert res.exit_code == 2
    assert res.stderr.splitlines()[0] == (
        f"error: {bad} (gpus[0].compute_capability): machine profile: should be a string, not float"
    )
    missing = run_envkit(
        "check",
        str(CORPUS / "14_cabrauck__meeting-transcriber__environment-cuda.yml"),
        "--machine",
        str(tmp_path / "nope.json"),
    )
    assert missing.exit_code == 2 and "no such profile file" in missing.stderr


def test_machine_source_errors_name_the_path_and_ssh_failure_is_exit_2(envkit_cli, tmp_path):
    r = envkit_cli("machine", str(tmp_path / "nosuch.json"))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: {tmp_path / 'nosuch.json'}: no such profile file\n"
        "hint: give `host` (this machine), ssh://HOST, or a file written by `envkit machine -o FILE`\n"
    )
    r = envkit_cli("machine", str(tmp_path))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == f"error: {tmp_path}: is a directory, not a machine profile"
    # ssh that cannot connect is input that cannot be read: 2, as everywhere (3 is a bug in envkit)
    r = envkit_cli("machine", "ssh://nohost.invalid")
    assert r.exit_code == 2 and r.stderr.startswith("error: ssh://nohost.invalid: ssh could not connect")


def _check(path: Path, profile: Path | str, *extra):
    res = run_envkit(
        "check", str(path), "--machine", str(profile), "--select", MACHINE_RULES, "--format", "json", *extra
    )
    assert res.exit_code in (0, 1), res.stderr
    doc = json.loads(res.stdout)
    return res.exit_code, [(f["rule"], f["severity"], f["line"], f["message"]) for f in doc["findings"]]


def test_driver_too_old_for_the_locked_cuda(tmp_path, monkeypatch, no_gpu_path):
    old = _profile_with_smi(tmp_path, monkeypatch, "smi_v100_old", "11.4")
    code, found = _check(CORPUS / "53_EthanMarx__ztf-lfi-demo__conda-lock.yml", old)
    assert code == 1
    # conda-forge's CUDA pytorch (3514) has no architecture list: "not checked", never a silent pass
    assert [(r, s, ln) for r, s, ln, _ in found] == [
        ("machine-cuda-driver", "warning", 670),
        ("machine-gpu-arch", "info", 3514),
        ("machine-cuda-driver", "error", 4489),
    ]
    assert "runs through CUDA minor-version compatibility only" in found[0][3]
    assert "not checked against" in found[1][3]
    assert found[2][3].startswith("nvidia-cuda-runtime-cu12==12.1.105 needs CUDA 12.1; the machine (")
    assert (
        "has driver 470.182.03, CUDA 11.4: update the NVIDIA driver to >= 530.30.02, or lock a "
        "CUDA 11.x variant (this driver runs up to CUDA 11.4)" in found[2][3]
    )


def test_everything_fits_on_an_a100_server(tmp_path, monkeypatch, no_gpu_path):
    monkeypatch.syspath_prepend(str(REPO / "tests" / "support" / "fake_nvml"))
    monkeypatch.setenv("ENVKIT_TEST_NVML_ANSWER", str(DATA / "nvml_a100.json"))
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "12.2")
    out = tmp_path / "a100.json"
    assert _machine(["-o", str(out)]).exit_code == 0
    sys.modules.pop("pynvml", None)
    code, found = _check(CORPUS / "53_EthanMarx__ztf-lfi-demo__conda-lock.yml", out)
    # everything fits; conda-forge's CUDA pytorch is said not to be checked against the A100
    assert (code, [(r, s, ln) for r, s, ln, _ in found]) == (0, [("machine-gpu-arch", "info", 3514)])
    assert "not checked against NVIDIA A100-SXM4-40GB (compute capability 8.0)" in found[0][3]


def test_sm120_card_with_a_cu118_torch(tmp_path, monkeypatch, no_gpu_path):
    card = _profile_with_smi(tmp_path, monkeypatch, "smi_rtx5090", "12.9")
    req = tmp_path / "requirements.txt"
    req.write_text("--index-url https://download.pytorch.org/whl/cu118\ntorch==2.1.0+cu118\n")
    code, found = _check(req, card)
    assert code == 1
    assert found == [
        (
            "machine-gpu-arch",
            "error",
            2,
            "torch==2.1.0+cu118 is built for sm_37, sm_50, sm_60, sm_61, sm_70, sm_75, sm_80, "
            "sm_86, sm_90; the machine (vm) has GPU 0 (NVIDIA GeForce RTX 5090), sm_120, compute "
            "capability 12.0: torch 2.1 has no build for sm_120; the first that does is torch 2.7 "
            "with CUDA 12.8 (`envkit template pytorch --torch 2.7 --cuda 12.8 --style pip`)",
        )
    ]
    # a real environment file: torch 1.13.1+cu117 in the pip section
    code, found = _check(CORPUS / "26_WikiGenius__NeRF-SLAM__environment.yml", card)
    assert [(r, s, ln) for r, s, ln, _ in found] == [("machine-gpu-arch", "error", 211)]
    # the cu128 torch of another real file has sm_120 kernels: nothing to report
    assert _check(CORPUS / "14_cabrauck__meeting-transcriber__environment-cuda.yml", card) == (0, [])


def test_glibc_217_against_manylinux_2_28_wheels():
    code, found = _check(CORPUS / "52_CNES__lenapy__conda-lock.yml", DATA / "centos7-server.json")
    assert code == 1
    assert [(r, s, ln) for r, s, ln, _ in found] == [("machine-wheel-tag", "error", 2183)]
    assert found[0][3].startswith(
        "pillow==11.1.0 (and 1 more) needs glibc >= 2.28 (manylinux_2_28 wheel); "
        "the machine (old-cluster) has glibc 2.17: "
    )


def test_explicit_and_pixi_and_export_formats(tmp_path, monkeypatch, no_gpu_path):
    card = _profile_with_smi(tmp_path, monkeypatch, "smi_rtx5090", "12.9")
    # explicit file: pytorch-1.11.0-py3.9_cuda11.3 from the pytorch channel has no sm_120 kernels
    code, found = _check(CORPUS / "42_3dlg-hcvc__paris__spec-file.txt", card)
    assert [(r, s, ln) for r, s, ln, _ in found] == [("machine-gpu-arch", "error", 75)]
    # conda env export: pytorch 2.2.1 py3.12_cuda12.1 likewise
    code, found = _check(CORPUS / "30_edgaremy__bound_v1__conda_env_export.yml", card)
    assert [(r, s, ln) for r, s, ln, _ in found] == [("machine-gpu-arch", "error", 112)]
    # pixi.lock: its records need glibc >= 2.17; fits a CentOS 7 server, not a glibc 2.12 one
    pixi = CORPUS / "57_1235467__SaltMPRIS__pixi.lock"
    assert _check(pixi, DATA / "centos7-server.json") == (0, [])
    doc = json.loads((DATA / "centos7-server.json").read_text())
    doc["glibc"] = "2.12"
    doc["virtual_packages"][2]["version"] = "2.12"
    old = tmp_path / "centos6.json"
    old.write_text(json.dumps(doc))
    code, found = _check(pixi, old)
    assert code == 1
    assert [(r, s) for r, s, _, _ in found] == [("machine-virtual-package", "error")]
    assert (
        " (and 51 more) needs __glibc >=2.17,<3.0.a0; the machine (old-cluster) has __glibc 2.12: "
        in found[0][3]
    )


def test_lock_for_another_platform():
    code, found = _check(
        CORPUS / "45_ctrahey__m1-tensorflow-config__conda-explicit.txt", DATA / "centos7-server.json"
    )
    assert code == 1
    assert [(r, s) for r, s, _, _ in found] == [("machine-platform", "error")]
    assert "needs one of osx-arm64; the machine (old-cluster) has linux-64" in found[0][3]


def test_machine_over_ssh(tmp_path, monkeypatch, no_gpu_path):
    """The stdlib probe streamed to the "remote" python3 through ENVKIT_SSH (a stand-in ssh that
    runs the remote command here, as sshd would)."""
    bin_dir = _fake_smi(tmp_path, "smi_rtx5090")
    ssh = tmp_path / "fake-ssh"
    ssh.write_text(
        '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift 2\n'
        f'PATH=\'{bin_dir}\':"$PATH" exec sh -c "$*"\n'
    )
    ssh.chmod(0o755)
    monkeypatch.setenv("ENVKIT_SSH", str(ssh))
    monkeypatch.setenv("ENVKIT_REMOTE_PYTHON", sys.executable)
    res = _machine(["ssh://gpu-box", "--json"])
    assert res.exit_code == 0, res.stdout
    doc = json.loads(res.stdout)
    assert doc["host"] == "gpu-box"
    assert doc["virtual_packages_source"] == "probe"
    assert [v["name"] for v in doc["virtual_packages"]][:3] == ["__unix", "__linux", "__glibc"]
    assert {"name": "__cuda", "version": "12.9", "build": "0"} in doc["virtual_packages"]
    assert doc["gpus"][0]["compute_capability"] == "12.0"


def test_template_pytorch_for_a_machine_profile():
    res = run_envkit(
        "template",
        "pytorch",
        "--machine",
        "examples/laptop-vs-server/gpu-server.json",
        "--style",
        "pip",
        "--torch",
        "2.7",
        cwd=REPO,
    )
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("# PyTorch 2.7 (CUDA 12.8), ")
    assert res.stderr.splitlines() == [
        "envkit: detected NVIDIA driver 570.133.07, CUDA 12.8 (profile "
        "examples/laptop-vs-server/gpu-server.json); picked CUDA 12.8"
    ]
    old = run_envkit(
        "template",
        "pytorch",
        "--machine",
        "examples/laptop-vs-server/gpu-server.json",
        "--style",
        "pip",
        "--torch",
        "2.6",
        cwd=REPO,
    )
    assert old.stdout.startswith("# PyTorch 2.6 (CUDA 12.6), ")
    assert old.stderr.splitlines()[1] == (
        "warning: torch 2.6 with CUDA 12.6 has no kernels for the NVIDIA GeForce RTX 5090 (sm_120): "
        "torch 2.6 has no build for sm_120; the first that does is torch 2.7 with CUDA 12.8 "
        "(`envkit template pytorch --torch 2.7 --cuda 12.8 --style pip`)"
    )


def test_the_library_runs_the_machine_rules_with_a_profile_given(tmp_path):
    # run_checks(..., machine=profile) is what `check --machine` does: no hidden hand-off
    from conftest import REPO

    import envkit
    from envkit.machine import resolve_machine

    server = REPO / "examples" / "laptop-vs-server" / "server.yml"
    profile = resolve_machine(str(REPO / "examples" / "laptop-vs-server" / "gpu-server.json"))
    config = envkit.Config(select=("machine-gpu-arch",))
    found = envkit.run_checks([str(server)], config, machine=profile)
    assert [(f.rule, f.severity) for f in found] == [("machine-gpu-arch", "error")]
    assert "sm_120" in found[0].message
    assert envkit.run_checks([str(server)], config) == []
