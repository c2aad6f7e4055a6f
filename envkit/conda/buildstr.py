"""Decode conda build strings (and pip local versions) into what they mean.

`py3.11_cuda12.1_cudnn8.9.2_0` -> Python 3.11, CUDA 12.1, cuDNN 8.9.2;
`cuda129_mkl_py312_h1234_302` -> CUDA 12.9, MKL, Python 3.12; `cpu_generic_py311_h0_0` -> CPU;
`20_linux64_openblas` -> OpenBLAS; `np113py36_0` -> numpy 1.13, Python 3.6; `h0_cpython` -> CPython;
pip `2.3.1+cu121` -> CUDA 12.1, `+cpu` -> CPU.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_PY = re.compile(r"(?:^|_|(?<=np\d\d\d)|(?<=np\d\d)|(?<=np\d))(?:py|cp)(?P<ver>3\.\d{1,2}|2\.7|3\d{1,2}|27)(?=_|$|h|np|[a-z])")
_CUDA = re.compile(r"(?:^|_)cuda(?P<ver>\d{1,2}\.\d(?:\.\d+)?|\d{2,3})(?=_|$|[a-z])")
_CU_LOCAL = re.compile(r"^cu(?P<ver>\d{2,3})$")
_CUDNN = re.compile(r"(?:^|_)cudnn(?P<ver>\d+(?:\.\d+)*)")
_NP = re.compile(r"(?:^|_)np(?P<ver>\d{1,3})(?=py|_|$)")
_BLAS = (("mkl", "MKL"), ("openblas", "OpenBLAS"), ("accelerate", "Accelerate"), ("blis", "BLIS"),
         ("netlib", "netlib"), ("generic", "generic BLAS"))
_MPI = re.compile(r"(?:^|_)(?:mpi_(?P<mpi>openmpi|mpich|impi|msmpi)|(?P<nompi>nompi))(?=_|$)")


def _cuda_version(digits: str) -> str:
    if "." in digits:
        return digits
    if len(digits) == 2:
        return f"{digits[0]}.{digits[1]}"
    return f"{digits[:2]}.{digits[2:]}"


def _py_version(text: str) -> str:
    if "." in text:
        return text
    return f"{text[0]}.{text[1:]}"


@dataclass(frozen=True, slots=True)
class BuildInfo:
    """What a build string says.  Every field is None when the build string does not say."""

    python: str | None = None  # "3.11"
    cuda: str | None = None  # "12.1"
    cpu: bool = False  # an explicit CPU variant
    cudnn: str | None = None
    blas: str | None = None  # "MKL", "OpenBLAS", ...
    mpi: str | None = None  # "openmpi", "mpich", "nompi"
    numpy: str | None = None  # "1.13" (old np113 tags)
    implementation: str | None = None  # "CPython", "PyPy"

    def labels(self) -> list[str]:
        """Short human labels, most important first: ['CUDA 12.1', 'cuDNN 8.9.2', 'MKL', 'py3.11']."""
        out: list[str] = []
        if self.cuda:
            out.append(f"CUDA {self.cuda}")
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
        if self.numpy:
            out.append(f"numpy {self.numpy}")
        if self.implementation:
            out.append(self.implementation)
        return out

    @property
    def variant(self) -> tuple:
        """The parts that make a different build variant (not the hash or build number)."""
        return (self.python, self.cuda, self.cpu, self.cudnn, self.blas, self.mpi, self.numpy,
                self.implementation)


def decode(build: str | None, version: str | None = None, name: str | None = None) -> BuildInfo:
    """Decode a conda build string, or for pip packages the local version (`+cu121`, `+cpu`)."""
    python = cuda = cudnn = blas = mpi = numpy = impl = None
    cpu = False
    if version and "+" in version:
        local = version.split("+", 1)[1].lower()
        m = _CU_LOCAL.match(local)
        if m:
            cuda = _cuda_version(m.group("ver"))
        elif local.startswith("cpu"):
            cpu = True
        elif local.startswith("rocm"):
            cuda = None
    if build:
        b = build.lower()
        m = _CUDA.search(b)
        if m:
            cuda = _cuda_version(m.group("ver"))
        if re.search(r"(?:^|_)cpu(?:only)?(?=_|$)", b) or b.startswith("cpu"):
            cpu = True
        m = _CUDNN.search(b)
        if m:
            cudnn = m.group("ver")
        m = _PY.search(b)
        if m:
            python = _py_version(m.group("ver"))
        m = _NP.search(b)
        if m:
            digits = m.group("ver")
            numpy = digits if len(digits) == 1 else f"{digits[0]}.{digits[1:]}"
        tokens = set(re.split(r"[_]", b))
        for token, label in _BLAS:
            if token in tokens:
                blas = label
                break
        m = _MPI.search(b)
        if m:
            mpi = m.group("mpi") or "nompi"
        if b.endswith("_cpython"):
            impl = "CPython"
        elif b.endswith("_pypy") or "_pypy" in b:
            impl = "PyPy"
    if name and name.lower() == "cpuonly":
        cpu = True
    if name and name.lower() in ("blas", "libblas", "libcblas", "liblapack", "liblapacke") and build:
        # blas=1.0=mkl (defaults), libblas=3.9.0=20_linux64_openblas (conda-forge)
        for token, label in _BLAS:
            if build.lower().endswith(token) or f"_{token}" in build.lower():
                blas = label
                break
    return BuildInfo(python=python, cuda=cuda, cpu=cpu, cudnn=cudnn, blas=blas, mpi=mpi,
                     numpy=numpy, implementation=impl)
