"""Build-string decoding on real build strings from the pytorch, nvidia, conda-forge and defaults
channels (and the corpus), and pip local versions."""

import pytest

from envkit.conda.buildstr import BuildInfo, cuda_from_digits, decode


@pytest.mark.parametrize(
    "build, version, name, expected",
    [
        # pytorch channel
        (
            "py3.11_cuda12.1_cudnn8.9.2_0",
            "2.2.2",
            "pytorch",
            BuildInfo(python="3.11", cuda="12.1", cudnn="8.9.2"),
        ),
        ("py3.11_cpu_0", "2.2.2", "pytorch", BuildInfo(python="3.11", cpu=True)),
        ("py3.11_0", "2.2.2", "pytorch", BuildInfo(python="3.11", cpu=True)),  # osx-arm64: CPU/MPS
        (
            "py3.8_cuda11.3_cudnn8.2.0_0",
            "1.11.0",
            "pytorch",
            BuildInfo(python="3.8", cuda="11.3", cudnn="8.2.0"),
        ),
        (
            "py36_cuda90_cudnn7he774522_1",
            "0.4.1",
            "pytorch",  # corpus 37, windows
            BuildInfo(python="3.6", cuda="9.0", cudnn="7"),
        ),
        ("py311_cu121", "0.17.2", "torchvision", BuildInfo(python="3.11", cuda="12.1")),
        ("py311_cpu", "2.2.2", "torchaudio", BuildInfo(python="3.11", cpu=True)),
        ("cuda", "1.0", "pytorch-mutex", BuildInfo(gpu=True)),
        ("cpu", "1.0", "pytorch-mutex", BuildInfo(cpu=True)),
        ("0", "1.0", "cpuonly", BuildInfo(cpu=True)),
        # conda-forge pytorch-cpu-feedstock
        (
            "cuda126_mkl_py312_h30b5a27_302",
            "2.6.0",
            "pytorch",
            BuildInfo(python="3.12", cuda="12.6", blas="MKL"),
        ),
        ("cuda118_py310h0e5b2d4_301", "2.1.2", "pytorch", BuildInfo(python="3.10", cuda="11.8")),
        (
            "cpu_generic_py311_h1a2b3c4_0",
            "2.5.1",
            "pytorch",
            BuildInfo(python="3.11", cpu=True, blas="generic BLAS"),
        ),
        ("cpu_mkl_py312_h0_100", "2.5.1", "pytorch", BuildInfo(python="3.12", cpu=True, blas="MKL")),
        ("cuda112py39h2f1b3e4_1", "1.10.2", "pytorch", BuildInfo(python="3.9", cuda="11.2")),
        ("cpu_py39hfa7516b_0", "1.10.2", "pytorch", BuildInfo(python="3.9", cpu=True)),
        (
            "py39cuda112hc5182df_0_cuda",
            "0.9.0",
            "torchvision",  # CUDA glued after the Python tag
            BuildInfo(python="3.9", cuda="11.2", gpu=True),
        ),
        ("cuda112py310he87a039_0", "2.11.0", "tensorflow", BuildInfo(python="3.10", cuda="11.2")),
        ("cuda120py311h9f2b5c1_200", "0.4.23", "jaxlib", BuildInfo(python="3.11", cuda="12.0")),
        ("cuda112h5bea7ad_8_cuda", "1.7.0", "libfaiss", BuildInfo(cuda="11.2", gpu=True)),
        ("cuda118_py311h5f2a1b3_0", "2.0.3", "py-xgboost", BuildInfo(python="3.11", cuda="11.8")),
        ("py39_cu113_pyt1110", "0.7.4", "pytorch3d", BuildInfo(python="3.9", cuda="11.3")),  # corpus 42
        ("cuda11.8_py310_1", "2.0.1", "pytorch", BuildInfo(python="3.10", cuda="11.8")),  # open-ce, 55
        (
            "gpu_cuda113py39h19ae3d8_1",
            "1.12.1",
            "pytorch",  # defaults
            BuildInfo(python="3.9", cuda="11.3", gpu=True),
        ),
        # the CUDA major version alone: `_0` is a build number, not a minor version (never "1.1")
        ("cuda11_0", "8.9.2.26", "cudnn", BuildInfo(cuda="11")),  # defaults
        ("cuda12_0", "8.9.2.26", "cudnn", BuildInfo(cuda="12")),
        ("cuda11_1", "8.9.2.26", "cudnn", BuildInfo(cuda="11")),  # build number 1, not CUDA 11.1
        ("cuda11_py39_ga9bca9036_0", "22.12.00", "cuml", BuildInfo(python="3.9", cuda="11")),  # RAPIDS
        ("cuda_11_py39_gf700408e68_0", "22.12.01", "cudf", BuildInfo(python="3.9", cuda="11", gpu=True)),
        ("cuda11_g8aae42d1_0", "22.12.00", "librmm", BuildInfo(cuda="11")),
        ("cuda12_py310_231208_gf53ae8e04_0", "23.12.01", "cudf", BuildInfo(python="3.10", cuda="12")),
        # CUDA libraries whose build string says nothing about CUDA (a hash and a build number)
        ("hbc23b4c_3", "8.9.7.29", "cudnn", BuildInfo()),  # conda-forge, corpus 53
        ("h86fa8c9_0", "8.2.1.32", "cudnn", BuildInfo()),
        ("h3a97aeb_0", "2.21.5.1", "nccl", BuildInfo()),
        ("py311h9a2b3c4_0", "13.0.0", "cupy", BuildInfo(python="3.11")),
        ("cuda", "1.0.0", "faiss-proc", BuildInfo(gpu=True)),
        ("py39hd3ccb9b_2_cpu", "9.0.0", "arrow-cpp", BuildInfo(python="3.9", cpu=True)),
        # defaults
        ("gpu_py38h8a7d6ce_0", "2.4.1", "tensorflow", BuildInfo(python="3.8", gpu=True)),
        ("mkl", "1.0", "blas", BuildInfo(blas="MKL")),
        ("openblas", "1.0", "blas", BuildInfo(blas="OpenBLAS")),
        ("cpu_0", "0.1", "_pytorch_select", BuildInfo(cpu=True)),  # corpus 31
        # BLAS selectors (conda-forge)
        ("20_linux64_openblas", "3.9.0", "libblas", BuildInfo(blas="OpenBLAS")),
        ("22_osxarm64_accelerate", "3.9.0", "libblas", BuildInfo(blas="Accelerate")),
        ("16_linux64_mkl", "3.9.0", "liblapack", BuildInfo(blas="MKL")),
        ("8_mkl", "3.8.0", "libcblas", BuildInfo(blas="MKL")),
        # Python itself and Python ABI tags
        ("h932a869_0_cpython", "3.11.8", "python", BuildInfo(implementation="CPython")),
        ("py311h64a7726_0", "1.26.4", "numpy", BuildInfo(python="3.11")),
        ("py39h6a678d5_0", "1.21.5", "numpy", BuildInfo(python="3.9")),
        ("py310hd8f1fbe_0", "2.1.0", "scipy", BuildInfo(python="3.10")),
        ("py27_0", "1.0", "six", BuildInfo(python="2.7")),
        ("cp311", "1.0", "x", BuildInfo(python="3.11")),
        ("np113py36_0", "0.19.1", "scipy", BuildInfo(python="3.6", numpy="1.13")),  # corpus 29
        ("pyhd8ed1ab_0", "4.66.2", "tqdm", BuildInfo()),  # noarch: python, no ABI
        ("py_0", "1.0", "x", BuildInfo()),
        # MPI
        ("nompi_h2d575fe_108", "1.14.3", "hdf5", BuildInfo(mpi="nompi")),
        ("mpi_openmpi_h4f84152_100", "1.14.3", "hdf5", BuildInfo(mpi="openmpi")),
        ("mpi_mpich_py311h0_0", "3.1.5", "mpi4py", BuildInfo(mpi="mpich", python="3.11")),
        # nothing to say
        ("h7f98852_4", "1.2.13", "zlib", BuildInfo()),
        ("0", "3.6.2", "python", BuildInfo()),
        (None, "1.0", "x", BuildInfo()),
        ("", "1.0", "x", BuildInfo()),
    ],
)
def test_decode_conda_builds(build, version, name, expected):
    assert decode(build, version, name) == expected


@pytest.mark.parametrize(
    "version, expected",
    [
        ("2.3.1+cu121", BuildInfo(cuda="12.1")),
        ("2.1.0+cu118", BuildInfo(cuda="11.8")),
        ("2.10.0+cu128", BuildInfo(cuda="12.8")),
        ("2.2.2+cpu", BuildInfo(cpu=True)),
        ("2.1.2+cpu.cxx11.abi", BuildInfo(cpu=True)),
        ("2.3.0+rocm6.0", BuildInfo(rocm="6.0")),
        ("1.13.1+cu117.with.pypi.cudnn", BuildInfo(cuda="11.7")),
        ("1.7.1+cu92", BuildInfo(cuda="9.2")),
        ("1.7.1+cu101", BuildInfo(cuda="10.1")),
        ("2.2.2", BuildInfo()),  # a plain PyPI version says nothing about the variant
    ],
)
def test_decode_pip_local_versions(version, expected):
    assert decode(None, version, "torch") == expected


def test_labels_most_important_first():
    info = decode("py3.11_cuda12.1_cudnn8.9.2_0", "2.2.2", "pytorch")
    assert info.labels() == ["CUDA 12.1", "cuDNN 8.9.2", "py3.11"]
    assert decode("cuda126_mkl_py312_h0_302").labels() == ["CUDA 12.6", "MKL", "py3.12"]
    assert decode("nompi_h0_1").labels() == ["no MPI"]
    assert decode("gpu_py38h0_0").labels() == ["GPU", "py3.8"]
    assert decode(None, "2.3.0+rocm6.0").labels() == ["ROCm 6.0"]
    assert decode("h0_0_cpython").labels() == ["CPython"]


def test_accelerator():
    assert decode("py3.11_cuda12.1_cudnn8.9.2_0", name="pytorch").accelerator == "CUDA 12.1"
    assert decode("py3.11_0", name="pytorch").accelerator == "cpu"
    assert decode("py3.11_0", name="numpy").accelerator is None  # only the torch family infers
    assert decode("cuda", name="pytorch-mutex").accelerator == "GPU"


def test_a_decoded_build_ignores_hash_and_build_number():
    a = decode("py311h64a7726_0", "1.26.4", "numpy")
    b = decode("py311h7125741_3", "1.26.4", "numpy")
    assert a == b == BuildInfo(python="3.11")
    assert decode("py3.11_cpu_0") != decode("py3.11_cuda12.1_cudnn8.9.2_0")


def test_case_insensitive_and_cached():
    assert decode("PY3.11_CUDA12.1_0") == BuildInfo(python="3.11", cuda="12.1")
    assert decode("py311_0") is decode("py311_0")


@pytest.mark.parametrize(
    "digits, expected",
    [
        ("121", "12.1"),
        ("100", "10.0"),
        ("130", "13.0"),
        ("92", "9.2"),
        ("80", "8.0"),
        ("11", "11"),
        ("12", "12"),
        ("10", "10"),
        ("11.8", "11.8"),
    ],
)
def test_cuda_from_digits(digits, expected):
    assert cuda_from_digits(digits) == expected


def test_major_only_cuda_labels():
    assert decode("cuda11_0", "8.9.2.26", "cudnn").labels() == ["CUDA 11"]
    assert decode("cuda11_0", "8.9.2.26", "cudnn").accelerator == "CUDA 11"


@pytest.mark.parametrize(
    "build, labels",
    [
        ("cuda126*", ["CUDA 12.6"]),
        ("*cuda126*", ["CUDA 12.6"]),
        ("py3.11_cuda12.1*", ["CUDA 12.1", "py3.11"]),
        ("cuda*", ["GPU"]),
        ("cpu*", ["cpu"]),
        ("*mkl*", ["MKL"]),
        ("py3.11*", ["py3.11"]),  # a glob may still match a CUDA build: not taken for a CPU one
    ],
)
def test_build_globs_of_a_spec_decode_as_far_as_written(build, labels):
    assert decode(build, "2.5.1", "pytorch").labels() == labels


@pytest.mark.parametrize(
    "build, python, prefix, fits",
    [
        # a Python tag cut short by `*` is a prefix: py31* is py31, py310 ... py319
        ("py31*", None, "3.1", {"3.1": True, "3.11": True, "3.10.4": True, "3.9": False, "3.2": False}),
        ("*py31*", None, "3.1", {"3.12": True, "3.2": False, "3.21": False}),
        ("py3.1*", None, "3.1", {"3.11": True, "3.1": True}),
        ("cp31*", None, "3.1", {"3.13": True}),
        ("py39*", None, "3.9", {"3.9": True, "3.11": False}),
        ("np1*py31*", None, "3.1", {"3.11": True}),
        # two minor digits are a whole tag, and a tag ended by `_` is a version
        ("py311*", "3.11", None, {"3.11": True, "3.1": False, "3.110": False}),
        ("py3.11*", "3.11", None, {"3.11.9": True, "3.12": False}),
        ("py31_*", "3.1", None, {"3.1": True, "3.11": False}),
        # not a glob: the tag is the version
        ("py31h0_0", "3.1", None, {"3.11": False}),
        ("py311h0_0", "3.11", None, {"3.11": True, "3.1": False}),
        # no Python at all
        ("py3*", None, None, {"3.11": None}),
        ("h0_0", None, None, {"3.11": None}),
    ],
)
def test_python_tag_of_a_glob_is_a_prefix(build, python, prefix, fits):
    info = decode(build, None, "numpy")
    assert (info.python, info.python_prefix) == (python, prefix)
    assert {v: info.python_fits(v) for v in fits} == fits


def test_python_prefix_label_and_equality():
    assert decode("py31*", None, "numpy").labels() == ["py3.1*"]
    assert decode("py31*", None, "numpy") != decode("py311*", None, "numpy")
    assert decode("py311h0_0", None, "numpy").python_fits("3.x") is None


def test_variant_cuda_is_one_rule_for_index_urls_and_local_versions():
    from envkit.conda.buildstr import decode, option_variant, variant_cuda

    assert [variant_cuda(t) for t in ("cu121", "cu92", "cu130", "cpu", "rocm6.2", "xpu", "cu1")] == [
        "12.1",
        "9.2",
        "13.0",
        None,
        None,
        None,
        None,
    ]
    assert decode(None, "2.1.0+cu121.with.pypi.cudnn", None).cuda == "12.1"
    assert option_variant("-f https://download.pytorch.org/whl/cu111/torch_stable.html") == "cu111"
    assert option_variant("--index-url https://download-r2.pytorch.org/whl/test/cu126") == "cu126"
    assert option_variant("--extra-index-url https://mirror.example.org/whl/cu124") is None
