"""Decode conda build strings (and pip local versions) into what they mean.

`py3.11_cuda12.1_cudnn8.9.2_0` -> Python 3.11, CUDA 12.1, cuDNN 8.9.2;
`cuda129_mkl_py312_h1234_302` -> CUDA 12.9, MKL, Python 3.12; `cpu_generic_py311_h0_0` -> CPU;
`20_linux64_openblas` -> OpenBLAS; `np113py36_0` -> numpy 1.13, Python 3.6; `h0_cpython` -> CPython;
`cuda112py39h2f1b3e4_1` -> CUDA 11.2, Python 3.9; torchvision `py311_cu121` -> CUDA 12.1;
`py39cuda112hc5182df_0_cuda` -> CUDA 11.2, Python 3.9; defaults' cudnn `cuda11_0` and RAPIDS'
`cuda11_py39_ga9bca9036_0` -> CUDA 11 (the major version only: `_0` is the build number);
`gpu_py38h1234_0` (defaults) and pytorch-mutex `cuda` -> a GPU build of unnamed CUDA;
pip `2.3.1+cu121` -> CUDA 12.1, `+cpu` -> CPU, `+rocm6.0` -> ROCm 6.0.  A spec's build glob decodes
as far as it is written (`cuda126*` -> CUDA 12.6, `cpu*` -> CPU, `*cuda*` -> a GPU build); a Python
tag cut short by `*` is a prefix, not a version: `py31*` matches `py31`, `py310` ... `py319`, so it
decodes to `python_prefix="3.1"` (no `python`), and `BuildInfo.python_fits("3.11")` is True.

Build strings are conventions, not a schema: each pattern below is one the big channels use
(pytorch, nvidia, conda-forge, defaults).  A build string that says nothing decodes to an empty
BuildInfo; nothing is ever guessed from a hash.  The one inference made is for the PyTorch family
(`pytorch`, `torchvision`, `torchaudio`, `libtorch`): every CUDA build of those says so in its build
string on every channel, so a build with a Python tag and no CUDA/GPU/ROCm tag is a CPU build (the
pytorch channel's macOS builds are plain `py3.11_0`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from envkit.conda.families import TORCH_CONDA_FAMILY

# `py311`, `py3.11`, `cp311`, `py27` anywhere a new token starts: after `_`, at the start, or glued
# to a preceding tag (`np113py36`, `cuda112py39`) - never inside a word (`pyhd8ed1ab` is noarch).
_PY = r"(?<![a-z])(?:py|cp)(?P<ver>3\.\d{1,2}|2\.7|3\d{1,2}|27)(?=_|$|h|np|[a-z])"
# `cuda` then the version: `cuda12.1`, `cuda11.8_py310`, `cuda126_mkl`, `cuda112py39h..`, RAPIDS'
# `cuda11_py39`/`cuda_11_py39`, defaults' `cuda11_0`; also glued after a Python tag (conda-forge's
# torchvision `py39cuda112hc5182df_0_cuda`).  Never inside a word: a hash is hex, so has no `u`.
# `cu121` (torchvision, pytorch3d `py39_cu113_pyt1110`) only as a whole token.
_CUDA = (
    r"(?:(?<![a-z])cuda_?(?P<ver>\d{1,2}\.\d(?:\.\d+)?|\d{2,3})(?=_|$|[a-z])"
    r"|(?:^|_)cu(?P<cu>\d{2,3})(?=_|$))"
)
_ROCM_LOCAL = r"^rocm(?P<ver>\d+(?:\.\d+)*)"
_CUDNN = r"(?:^|_)cudnn(?P<ver>\d+(?:\.\d+)*)"
_NP = r"(?:^|_)np(?P<ver>\d{1,3})(?=py|_|$)"
_BLAS = (
    ("mkl", "MKL"),
    ("openblas", "OpenBLAS"),
    ("accelerate", "Accelerate"),
    ("blis", "BLIS"),
    ("netlib", "netlib"),
    ("generic", "generic BLAS"),
)
_MPI = r"(?:^|_)(?:mpi_(?P<mpi>openmpi|mpich|impi|msmpi)|(?P<nompi>nompi))(?=_|$)"
_CPU = r"(?:^|_)cpu(?:only)?(?=_|$)"
_GPU = r"(?:^|_)(?:gpu|cuda)(?=_|$)"
_ROCM = r"(?:^|_)rocm(?P<ver>\d+(?:\.\d+)*)?(?=_|$|[a-z])"

#: A PyTorch wheel index (`https://download.pytorch.org/whl/cu126`, `.../whl/cpu`, `.../whl/rocm6.2`,
#: `.../whl/nightly/cu128`) followed by `/`, or an artifact below one; artifacts may be served from a
#: mirror host such as download-r2.
_PYTORCH = re.compile(
    r"^https?://download(?:-r2)?\.pytorch\.org/whl/(?:nightly/|test/)?"
    r"(?P<variant>cu\d+|cpu|rocm[\d.]+|xpu)/"
)

#: The BLAS selector packages: their build string names the implementation (`blas=1.0=mkl`,
#: `libblas=3.9.0=20_linux64_openblas`).
BLAS_SELECTORS = frozenset({"blas", "libblas", "libcblas", "liblapack", "liblapacke", "blas-devel"})


def cuda_from_digits(digits: str) -> str:
    """The CUDA version a build tag's digits name: `121` -> "12.1", `100` -> "10.0", `92` -> "9.2",
    `12.1` -> "12.1"; two digits starting with 1 are a major version alone (`11` -> "11": defaults'
    `cudnn=8.9.2.26=cuda11_0`, RAPIDS' `cuda11_py39_...`), since no CUDA 1.x was ever packaged."""
    if "." in digits:
        return digits
    if len(digits) == 2:
        return digits if digits[0] == "1" else f"{digits[0]}.{digits[1]}"
    return f"{digits[:2]}.{digits[2:]}"


def variant_cuda(tag: str) -> str | None:
    """The CUDA version of a PyTorch variant tag, the one naming of a wheel index
    (`download.pytorch.org/whl/cu121`) and a local version (`2.3.1+cu121`): `cu121` -> "12.1",
    `cu92` -> "9.2"; None for `cpu`, `rocm6.2`, `xpu` and anything else."""
    m = re.fullmatch(r"cu(\d{2,4})", tag)
    return cuda_from_digits(m.group(1)) if m else None


def pytorch_variant(url: str | None) -> str | None:
    """The variant (`cu126`, `cpu`, `rocm6.2`) of a PyTorch wheel index URL or artifact URL, else None."""
    if not url:
        return None
    m = _PYTORCH.match(url.rstrip("/") + "/")
    return m.group("variant") if m else None


def option_variant(text: str) -> str | None:
    """The PyTorch variant of the URL a pip option line names (`--extra-index-url URL`, or `-f
    URL` below a variant: `.../whl/cu111/torch_stable.html`), else None."""
    m = re.search(r"https?://\S+", text)
    return pytorch_variant(m.group()) if m else None


def _py_version(text: str) -> str:
    if "." in text:
        return text
    return f"{text[0]}.{text[1:]}"


@dataclass(frozen=True, slots=True)
class BuildInfo:
    """What a build string says.  Every field is None (False) when the build string does not say.
    The hash and build number are not kept: two builds of one variant decode equal."""

    python: str | None = None  # "3.11"
    cuda: str | None = None  # "12.1"; the major alone ("11") when that is all the build says
    cpu: bool = False  # an explicit (or, for the PyTorch family, certain) CPU variant
    cudnn: str | None = None
    blas: str | None = None  # "MKL", "OpenBLAS", ...
    mpi: str | None = None  # "openmpi", "mpich", "nompi"
    numpy: str | None = None  # "1.13" (old np113 tags)
    implementation: str | None = None  # "CPython", "PyPy"
    gpu: bool = False  # a GPU build that does not say which CUDA (defaults' `gpu_py38h..._0`)
    rocm: str | None = None  # "6.0" (pip `+rocm6.0`), "" when a ROCm build names no version
    #: a glob's Python tag cut short by `*` (`py31*`, `py3.1*`): "3.1" = Python 3.1 or 3.10-3.19
    python_prefix: str | None = None

    def labels(self) -> list[str]:
        """Short human labels, most important first: ['CUDA 12.1', 'cuDNN 8.9.2', 'MKL', 'py3.11']."""
        out: list[str] = []
        if self.cuda:
            out.append(f"CUDA {self.cuda}")
        if self.rocm is not None:
            out.append(f"ROCm {self.rocm}" if self.rocm else "ROCm")
        if self.gpu and not self.cuda:
            out.append("GPU")
        if self.cpu:
            out.append("cpu")
        if self.cudnn:
            out.append(f"cuDNN {self.cudnn}")
        if self.blas:
            out.append(self.blas)
        if self.mpi:
            out.append("no MPI" if self.mpi == "nompi" else self.mpi)
        if self.python:
            out.append(f"py{self.python}")
        elif self.python_prefix:
            out.append(f"py{self.python_prefix}*")
        if self.numpy:
            out.append(f"numpy {self.numpy}")
        if self.implementation:
            out.append(self.implementation)
        return out

    @property
    def accelerator(self) -> str | None:
        """'CUDA 12.1', 'ROCm 6.0', 'GPU', 'cpu', or None when the build string does not say."""
        if self.cuda:
            return f"CUDA {self.cuda}"
        if self.rocm is not None:
            return f"ROCm {self.rocm}" if self.rocm else "ROCm"
        if self.gpu:
            return "GPU"
        if self.cpu:
            return "cpu"
        return None

    def python_fits(self, version: str) -> bool | None:
        """Whether a build with this Python tag can go with Python `version` ("3.11", "3.11.9"):
        the same minor version, or for a glob's prefix (`py31*`) a minor version the tag could
        continue into (3.1, 3.10-3.19).  None when the build names no Python (or `version` is not
        `major.minor...`)."""
        parts = version.split(".")
        if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
            return None
        major, minor = parts[0], parts[1]
        if self.python:
            return self.python.split(".")[:2] == [major, minor]
        if self.python_prefix:
            pmajor, _, pminor = self.python_prefix.partition(".")
            # one more digit at most: Python tags carry one or two minor digits
            return pmajor == major and minor.startswith(pminor) and len(minor) <= len(pminor) + 1
        return None


def decode(build: str | None, version: str | None = None, name: str | None = None) -> BuildInfo:
    """Decode a conda build string, or for pip packages the local version (`+cu121`, `+cpu`).

    `name` enables the per-package rules (BLAS selectors, `cpuonly`, the PyTorch family).  Returns a
    BuildInfo; never raises (an unknown build string decodes to an empty BuildInfo).
    """
    return _decode(build or None, version or None, name.lower() if name else None)


@lru_cache(maxsize=16384)
def _decode(build: str | None, version: str | None, name: str | None) -> BuildInfo:
    cuda, cpu, rocm = _decode_local(version)
    python = cudnn = blas = mpi = numpy = impl = py_prefix = None
    gpu = False
    glob = bool(build and "*" in build)
    if build:
        # a build glob of a spec (`pytorch=2.5.1=cuda126*`, `*cuda*`): `*` ends a token like `_`
        b = build.lower().replace("*", "_") if glob else build.lower()
        cuda, cpu, gpu, rocm, cudnn = _accelerator(b, cuda, cpu, rocm)
        python, py_prefix, numpy = _python_numpy(b, build, glob)
        blas, mpi, impl = _libraries(b)
    if name == "cpuonly" or name == "pytorch-cpu":
        cpu = True
    if name in BLAS_SELECTORS and build:
        # blas=1.0=mkl (defaults), libblas=3.9.0=20_linux64_openblas (conda-forge)
        low = build.lower()
        blas = next((label for token, label in _BLAS if low.endswith(token) or f"_{token}" in low), blas)
    if (
        name in TORCH_CONDA_FAMILY
        and build
        and python
        and not cpu
        and not cuda
        and not gpu
        and rocm is None
        and not glob
    ):  # `py3.11*` may still match a CUDA build
        cpu = True
    return BuildInfo(
        python=python,
        cuda=cuda,
        cpu=cpu,
        cudnn=cudnn,
        blas=blas,
        mpi=mpi,
        numpy=numpy,
        implementation=impl,
        gpu=gpu,
        rocm=rocm,
        python_prefix=py_prefix,
    )


def _decode_local(version: str | None) -> tuple[str | None, bool, str | None]:
    """(cuda, cpu, rocm) from a pip local version: `+cu121`, `+cpu`, `+rocm6.0`."""
    if not version or "+" not in version:
        return None, False, None
    local = version.split("+", 1)[1].lower()
    cuda = variant_cuda(local.split(".")[0])  # `cu121.with.pypi.cudnn`
    if cuda:
        return cuda, False, None
    if local.startswith("cpu"):
        return None, True, None
    m = re.match(_ROCM_LOCAL, local)
    return None, False, (m.group("ver") if m else None)


def _accelerator(
    b: str, cuda: str | None, cpu: bool, rocm: str | None
) -> tuple[str | None, bool, bool, str | None, str | None]:
    """(cuda, cpu, gpu, rocm, cudnn) of the lowercased build `b`: its tags replace the local
    version's (`cuda`, `cpu`, `rocm`) where it has them."""
    m = re.search(_CUDA, b)
    if m:
        cuda = cuda_from_digits(m.group("ver") or m.group("cu"))
    if re.search(_CPU, b) or b.startswith("cpu"):
        cpu = True
    gpu = bool(re.search(_GPU, b))
    m = re.search(_ROCM, b)
    if m:
        rocm = m.group("ver") or ""
    m = re.search(_CUDNN, b)
    return cuda, cpu, gpu, rocm, (m.group("ver") if m else None)


def _python_numpy(b: str, build: str, glob: bool) -> tuple[str | None, str | None, str | None]:
    """(python, python_prefix, numpy) of the lowercased build `b` (`build` as written)."""
    python = py_prefix = numpy = None
    m = re.search(_PY, b)
    if m:
        python = _py_version(m.group("ver"))
        # `py31*`: the glob may go on with another digit (py311), so 3.1 is only a prefix; a
        # tag with two minor digits (`py311*`, `py3.11*`) is complete
        if glob and build[m.end("ver") : m.end("ver") + 1] == "*" and len(python.split(".")[1]) == 1:
            python, py_prefix = None, python
    m = re.search(_NP, b)
    if m:
        digits = m.group("ver")
        numpy = digits if len(digits) == 1 else f"{digits[0]}.{digits[1:]}"
    return python, py_prefix, numpy


def _libraries(b: str) -> tuple[str | None, str | None, str | None]:
    """(blas, mpi, implementation) of the lowercased build `b`."""
    tokens = set(b.split("_"))
    blas = next((label for token, label in _BLAS if token in tokens), None)
    m = re.search(_MPI, b)
    mpi = (m.group("mpi") or "nompi") if m else None
    impl = None
    if b.endswith("_cpython"):
        impl = "CPython"
    elif "_pypy" in b:
        impl = "PyPy"
    return blas, mpi, impl
