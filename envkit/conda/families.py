"""CUDA and PyTorch package names: the one list each command, rule and core asks.

Each constant is one question ("which packages pin the CUDA version?"), so that a new name (a new
PyTorch metapackage, a new CUDA selector) is added once.  Conda and pip names both appear where
both ecosystems use the name (`pytorch` on conda, `torch` on PyPI).
"""

from __future__ import annotations

#: The PyTorch library itself: conda's name, then PyPI's.
TORCH = ("pytorch", "torch")
#: Packages that install a build of PyTorch (conda's CPU/GPU metapackages, the C++ library).
TORCH_BUILDS = ("pytorch", "torch", "pytorch-gpu", "pytorch-cpu", "libtorch")
#: The names a companion's recorded dependencies give torch (conda-forge: pytorch, libtorch; PyPI: torch).
TORCH_DEPS = ("pytorch", "torch", "libtorch")
#: The companion libraries released with each torch (paired versions in the template matrix).
COMPANIONS = ("torchvision", "torchaudio")
#: Conda packages whose every GPU build says so in its build string (see envkit.conda.buildstr).
TORCH_CONDA_FAMILY = frozenset({"pytorch", "torchvision", "torchaudio", "libtorch"})
#: The projects the PyTorch wheel index publishes per variant: a spec naming such an index means them.
PYTORCH_INDEX_FAMILY = frozenset(
    {
        "torch",
        "torchvision",
        "torchaudio",
        "torchtext",
        "torchdata",
        "triton",
        "pytorch-triton",
        "pytorch-triton-rocm",
        "pytorch-triton-xpu",
        "xformers",
    }
)

#: Conda packages a spec pins the CUDA version with (`cuda-version=12.4`, `pytorch-cuda=12.1`).
CUDA_PINS = ("cuda-version", "pytorch-cuda", "cudatoolkit")
#: Conda packages of the CUDA toolkit whose major.minor version is the CUDA version they belong to
#: (the nvidia channel's and conda-forge's split toolkit, conda-forge's older `cudatoolkit-dev`):
#: one of another CUDA than the pins is a second CUDA stack in the environment.
CUDA_COMPONENTS = (
    "cuda-cccl",
    "cuda-cudart",
    "cuda-cudart-dev",
    "cuda-nvcc",
    "cuda-nvrtc",
    "cuda-nvtx",
    "cuda-cupti",
    "cuda-runtime",
    "cuda-libraries",
    "cuda-libraries-dev",
    "cuda-toolkit",
    "cuda-compiler",
    "cuda-command-line-tools",
    "cuda-cuobjdump",
    "cuda-cuxxfilt",
    "cuda-nvdisasm",
    "cuda-nvprune",
    "cuda-profiler-api",
    "cuda-crt",
    "cuda-nvvm",
    "cudatoolkit-dev",
)
#: The components that compile CUDA code: extensions built with them must match torch's CUDA.
CUDA_COMPILERS = ("cuda-nvcc", "cudatoolkit-dev")
#: Conda packages whose version is the CUDA runtime's (the pins, and the runtime packages).
CUDA_RUNTIME = CUDA_PINS + ("cuda-cudart", "cuda-runtime")
#: Dependencies whose pinned version says which CUDA a project was locked for (conda-lock users
#: pass it as `--with-cuda`): the virtual package, the pins, and the toolkit metapackages.
CUDA_PIN_NAMES = ("__cuda", "cuda-version", "pytorch-cuda", "cudatoolkit", "cuda-toolkit", "cuda")
#: The legacy pytorch channel's CPU selector.
CPU_SELECTOR = "cpuonly"
