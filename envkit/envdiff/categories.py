"""Package categories: which packages are likely to matter (Python, PyTorch, CUDA, BLAS, ...), which
exist on one platform family only, and which BLAS an environment uses."""

from __future__ import annotations

import re
from collections.abc import Iterable

from envkit.conda.buildstr import decode
from envkit.model import LockedPackage

_TORCH = frozenset(
    {
        "pytorch",
        "torch",
        "torchvision",
        "torchaudio",
        "libtorch",
        "pytorch-cuda",
        "pytorch-base",
        "torchvision-base",  # Open-CE's names
        "pytorch-cpu",
        "pytorch-gpu",
        "cpuonly",
        "pytorch-mutex",
        "_pytorch_select",
        "torchtriton",
    }
)


_CUDA_CORE = frozenset(
    {
        "cudatoolkit",
        "cuda-toolkit",
        "cuda-version",
        "cuda-runtime",
        "cuda-cudart",
        "nvidia-cuda-runtime-cu11",
        "nvidia-cuda-runtime-cu12",
        "nvidia-cuda-runtime",
        "cuda",
    }
)


_CUDA_LIBS = frozenset(
    {
        "libcublas",
        "libcufft",
        "libcurand",
        "libcusolver",
        "libcusparse",
        "libnvjitlink",
        "libnpp",
        "libnvjpeg",
        "libcufile",
        "libcusparselt",
        "libnvfatbin",
        "libnvjitlink-dev",
        "cupti",
        "magma",
    }
)


_BLAS = frozenset(
    {
        "mkl",
        "mkl-service",
        "mkl_fft",
        "mkl_random",
        "mkl-include",
        "mkl-devel",
        "blas",
        "libblas",
        "libcblas",
        "liblapack",
        "liblapacke",
        "blas-devel",
        "openblas",
        "libopenblas",
        "blis",
        "libflame",
        "mkl-fft",
        "mkl-random",
    }
)


_RUNTIME = frozenset(
    {
        "libstdcxx-ng",
        "libstdcxx",
        "libgcc-ng",
        "libgcc",
        "libgomp",
        "libcxx",
        "libcxxabi",
        "llvm-openmp",
        "_openmp_mutex",
        "intel-openmp",
        "libgfortran",
        "libgfortran-ng",
        "libgfortran5",
        "vc",
        "vs2015_runtime",
        "vc14_runtime",
        "ucrt",
    }
)


_NUMPY = frozenset({"numpy", "numpy-base"})  # defaults splits numpy: the code is in numpy-base


#: The order of the "likely to matter" section.
CATEGORY_ORDER = ("python", "torch", "cuda", "cudnn", "nccl", "blas", "compiler-runtime", "numpy")


_CAT_RANK = {c: i for i, c in enumerate(CATEGORY_ORDER)}


#: Packages that exist on one platform family only: with two different platforms, their presence on
#: one side only is expected and grouped as a platform difference rather than mixed into the noise.
PLATFORM_ONLY = frozenset(
    {
        # linux
        "_libgcc_mutex",
        "_openmp_mutex",
        "libgcc-ng",
        "libgcc",
        "libgomp",
        "libstdcxx-ng",
        "libstdcxx",
        "libgfortran-ng",
        "libgfortran",
        "ld_impl_linux-64",
        "ld_impl_linux-aarch64",
        "ld_impl_linux-ppc64le",
        "sysroot_linux-64",
        "sysroot_linux-aarch64",
        "kernel-headers_linux-64",
        "kernel-headers_linux-aarch64",
        "libnsl",
        "libuuid",
        "libxcrypt",
        "libsanitizer",
        "libcap",
        "libudev1",
        "libsystemd0",
        "libdrm",
        "libglvnd",
        "libegl",
        "libgl",
        "libopengl",
        "libglx",
        "libpciaccess",
        "libnuma",
        "attr",
        "keyutils",
        "libselinux",
        "pthread-stubs",
        "alsa-lib",
        "pulseaudio-client",
        "libxcb",
        "libxkbcommon",
        "libxshmfence",
        "libnl",
        "rdma-core",
        "libgcc-devel_linux-64",
        "libstdcxx-devel_linux-64",
        "triton",
        "libasprintf",
        "libcap-ng",
        "libevent",
        "dbus",
        "libglib",
        "nspr",
        "nss",
        "libsqlite",
        "gcc_impl_linux-64",
        # macOS
        "libcxx",
        "libcxxabi",
        "llvm-openmp",
        "tapi",
        "cctools",
        "cctools_osx-64",
        "cctools_osx-arm64",
        "ld64",
        "ld64_osx-64",
        "ld64_osx-arm64",
        "libcxx-devel",
        "appnope",
        "libgfortran5",
        "pyobjc-core",
        "pyobjc-framework-cocoa",
        "libllvm14",
        "libllvm15",
        "libllvm16",
        "libllvm17",
        # Windows
        "vc",
        "vs2015_runtime",
        "vc14_runtime",
        "ucrt",
        "intel-openmp",
        "wincertstore",
        "pywin32",
        "pywin32-ctypes",
        "pywinpty",
        "win_inet_pton",
        "winpty",
        "libwinpthread",
        "menuinst",
        "m2w64-gcc-libs",
        "m2w64-gcc-libs-core",
        "m2w64-gmp",
        "m2w64-libwinpthread-git",
        "msys2-conda-epoch",
        "pyreadline",
        "pyreadline3",
        "colorama_win",
    }
)


_PLATFORM_ONLY_RE = re.compile(
    r"^(?:xorg-|xcb-util|m2w64-|msys2-|pyobjc-|api-ms-win-|libgcc-devel_|"
    r"libstdcxx-devel_|gcc_impl_|gxx_impl_|gfortran_impl_|sysroot_|"
    r"kernel-headers_|ld_impl_|clang_osx|clangxx_osx)|_(?:linux|osx|win)-"
)


def category_of(name: str) -> str | None:
    """The "likely to matter" category of a package name (conda or pip), or None."""
    n = name.lower()
    if n == "python":
        return "python"
    if n in _TORCH:
        return "torch"
    if n == "cudnn" or n.startswith("nvidia-cudnn-"):
        return "cudnn"
    if n == "nccl" or n.startswith("nvidia-nccl-"):
        return "nccl"
    if n in _CUDA_CORE or n in _CUDA_LIBS or n.startswith("cuda-") or n.startswith("nvidia-"):
        return "cuda"
    if n in _BLAS:
        return "blas"
    if n in _RUNTIME:
        return "compiler-runtime"
    if n in _NUMPY:
        return "numpy"
    return None


def is_platform_only(name: str) -> bool:
    """Whether `name` is a package that exists on one platform family only (see PLATFORM_ONLY)."""
    n = name.lower()
    return n in PLATFORM_ONLY or _PLATFORM_ONLY_RE.search(n) is not None


#: the conda names blas_of looks at
_BLAS_HINTS = frozenset(("libblas", "blas", "mkl", "libopenblas", "openblas", "blis", "numpy"))


def blas_of(packages: Iterable[LockedPackage]) -> str | None:
    """The BLAS implementation an environment uses ('MKL', 'OpenBLAS', 'Accelerate', ...), from its
    BLAS selector packages (`blas`, `libblas`), else from which implementation is installed."""
    found = None
    names = set()  # only those asked about below: a set of every name is most of the cost
    pip_numpy = False
    for p in packages:
        if p.manager != "conda":
            pip_numpy = pip_numpy or p.name.lower() == "numpy"
            continue
        n = p.name
        if n not in _BLAS_HINTS:
            continue
        names.add(n)
        if n in ("libblas", "blas") and p.build:
            info = decode(p.build, p.version, n)
            if info.blas:
                found = found or info.blas
    if found:
        return found
    if "mkl" in names:
        return "MKL"
    if "libopenblas" in names or "openblas" in names:
        return "OpenBLAS"
    if "blis" in names:
        return "BLIS"
    if pip_numpy and "numpy" not in names:
        return "OpenBLAS (numpy wheel)"
    return None
