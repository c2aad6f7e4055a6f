"""`import torch` and the environment facts (platform, torch build, CUDA, pins, /dev/shm)."""

from __future__ import annotations

import os
import platform
import re
import sys
import time
import traceback
import warnings
from typing import Any

from .events import Fail, Warn
from .host import conda_meta_records, cuda_driver_api_version, gpu_presence, pip_dist_names, usable_cores
from .state import ProbeState
from .verdicts import cuda_api_text, cuda_pins_from_dists, cuda_pins_from_records, nccl_text


class EnvironmentChecks(ProbeState):
    """Checks of the probe (mixed into `Probe`, whose state they use)."""

    # -- imports and environment ------------------------------------------------------------

    def check_import_torch(self) -> str:
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                import torch  # noqa: F401
            except ImportError as e:
                raise Fail(f"torch is not importable: {type(e).__name__}: {e}") from None
        self.import_warnings = [str(w.message).strip().splitlines()[0] for w in caught][:5]
        self.torch = torch
        extra = f"; warnings: {'; '.join(self.import_warnings)}" if self.import_warnings else ""
        where = os.path.dirname(torch.__file__)
        return f"torch {torch.__version__} from {where} in {time.perf_counter() - t0:.1f} s{extra}"

    def check_origin(self) -> str:
        """Warn when the torch imported is not the environment's own: a user site, PYTHONPATH or
        the caller's venv can shadow it, and the smoke test would then vouch for another torch."""
        prefix = self.config.get("prefix") or sys.prefix
        where = os.path.dirname(os.path.abspath(self.torch.__file__))
        records = [r for r in conda_meta_records(prefix) if r.get("name") == "pytorch"]
        imported = self.torch.__version__.split("+", 1)[0]
        # inside as written or as resolved: a prefix reached through a symlink is still the prefix
        inside = any(
            os.path.commonpath([f(where), f(prefix)]) == f(prefix)
            for f in (os.path.abspath, os.path.realpath)
        )
        if not inside:
            raise Warn(f"torch imported from {where}, not from the environment ({prefix}){_origin(where)}")
        if records and records[0].get("version") and records[0]["version"] != imported:
            raise Warn(
                f"the environment's records say pytorch {records[0]['version']} "
                f"({records[0].get('build')}), but torch {self.torch.__version__} was imported from "
                f"{where}: pip or a copy over the conda package"
            )
        return f"torch from the environment ({where})"

    def apply_patch_file(self, path: str) -> None:
        """Test knob: run the Python file `path` with `torch`, `probe` (this package: patch a
        function in the module that calls it, `probe.environment.X`) and `config` in its globals,
        after torch was imported and before anything reads it, so that tests can monkeypatch
        torch.cuda (a fake GPU) inside the probe's own process."""
        import runpy

        runpy.run_path(
            path, init_globals={"torch": self.torch, "probe": sys.modules[__package__], "config": self.config}
        )

    def collect_environment(self) -> None:
        """Fill self.environment.  Each part is guarded: a broken CUDA or BLAS query is recorded
        under environment["errors"] and the checks still run (they report what is missing)."""
        env = self.environment
        env["errors"] = []
        env["python"] = {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
            "prefix": sys.prefix,
        }
        cuda = getattr(self.torch.version, "cuda", None)
        hip = getattr(self.torch.version, "hip", None)
        env["torch"] = {
            "version": self.torch.__version__,
            "local": None,
            "build": "cuda" if cuda else "rocm" if hip else "cpu",
            "cuda": cuda,
            "hip": hip,
            "cudnn": None,
            "nccl": None,
            "config": {},
        }
        env["cuda"] = {
            "gpu_present": {},
            "visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "arch_list": [],
            "available": False,
            "device_count": 0,
            "devices": [],
            "driver_version": None,
        }
        env["shm"] = None
        env["cuda_pins"] = []
        for part in (
            self._collect_platform,
            self._collect_torch,
            self._collect_cuda,
            self._collect_misc,
            self._collect_pins,
        ):
            try:
                part()
            except Exception as e:
                env["errors"].append(f"{part.__name__.lstrip('_')}: {type(e).__name__}: {e}")
                sys.stderr.write(traceback.format_exc(limit=3))

    def _collect_platform(self) -> None:
        env = self.environment
        libc = platform.libc_ver()
        env["platform"] = {
            "system": platform.system(),
            "machine": platform.machine(),
            "release": platform.release(),
            "libc": "-".join(x for x in libc if x) or None,
            "cpu_count": os.cpu_count(),
            "usable_cores": usable_cores(),
        }

    def _collect_torch(self) -> None:
        torch = self.torch
        tinfo = self.environment["torch"]  # the build collect_environment read, filled in here
        tinfo.update(
            local=torch.__version__.split("+", 1)[1] if "+" in torch.__version__ else None,
            debug=bool(getattr(torch.version, "debug", False)),
            git_version=getattr(torch.version, "git_version", None),
            file=torch.__file__,
        )
        # cuDNN / NCCL are reported from the build even without a GPU (None on CPU builds).
        try:
            tinfo["cudnn"] = self._cudnn_versions()
        except Exception as e:
            tinfo["cudnn"] = {"error": str(e)}
        try:
            # torch.cuda.nccl is a submodule: import it rather than rely on another import having
            # done so.  version() is a tuple, with a suffix string as a 4th item in some builds.
            if tinfo["cuda"]:
                from torch.cuda import nccl

                tinfo["nccl"] = nccl_text(nccl.version())
        except Exception as e:
            tinfo["nccl_error"] = f"{type(e).__name__}: {e}"
        tinfo["config"] = self._torch_config()

    def _collect_cuda(self) -> None:
        torch = self.torch
        env = self.environment
        cuda = env["torch"]["cuda"]
        self.gpu = gpu_presence(
            self.config["dev_glob"], self.config["nvidia_smi"], self.config["proc_driver"]
        )
        cinfo = env["cuda"]
        cinfo.update(
            gpu_present=self.gpu,
            driver_version=self.gpu.get("driver_version"),
            driver_source=self.gpu.get("driver_source"),
        )
        if cuda:
            try:
                cinfo["arch_list"] = [str(a) for a in torch.cuda.get_arch_list()]
            except Exception as e:
                env["errors"].append(f"torch.cuda.get_arch_list(): {type(e).__name__}: {e}")
            cinfo["cuda_driver_api"] = cuda_api_text(cuda_driver_api_version())

    def _collect_misc(self) -> None:
        env = self.environment
        try:
            import numpy

            self.np = numpy
            env["numpy"] = numpy.__version__
        except Exception:
            env["numpy"] = None
        env["multiprocessing"] = {"default_start_method": self.default_start_method()}
        try:
            import torch.multiprocessing as tmp

            env["multiprocessing"]["sharing_strategy"] = tmp.get_sharing_strategy()
        except Exception:
            pass
        env["shm"] = self._shm_info()

    def _collect_pins(self) -> None:
        env = self.environment
        records = conda_meta_records(self.config.get("prefix") or sys.prefix)
        env["conda_prefix"] = bool(records) or os.path.isdir(
            os.path.join(self.config.get("prefix") or sys.prefix, "conda-meta")
        )
        self.pins = sorted(
            set(cuda_pins_from_records(records))
            | set(cuda_pins_from_dists(pip_dist_names()))
            | set(self.config.get("cuda_pins") or [])
        )
        env["cuda_pins"] = self.pins

    def _cudnn_versions(self) -> dict | None:
        torch = self.torch
        if not getattr(torch.version, "cuda", None):
            return None
        from torch.backends import cudnn

        out: dict[str, Any] = {"available": bool(cudnn.is_available()), "enabled": bool(cudnn.enabled)}
        try:
            # (major, minor, patch) tuples; torch.backends.cudnn.version() is only the runtime's int
            from torch._C import _cudnn

            rt, ct = tuple(_cudnn.getRuntimeVersion()), tuple(_cudnn.getCompileVersion())
            out.update(
                runtime=".".join(map(str, rt)),
                compile=".".join(map(str, ct)),
                runtime_tuple=list(rt),
                compile_tuple=list(ct),
                is_cuda=bool(getattr(_cudnn, "is_cuda", True)),
            )
        except Exception as e:
            out["error"] = f"{type(e).__name__}: {e}"
        try:
            # torch's own compatibility check runs here (a RuntimeError when it refuses the pair)
            out["version_int"] = cudnn.version()
        except Exception as e:
            out["torch_error"] = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return out

    def _torch_config(self) -> dict:
        torch = self.torch
        out: dict = {}
        try:
            show = torch.__config__.show()
        except Exception:
            show = ""
        for key in (
            "BLAS_INFO",
            "LAPACK_INFO",
            "USE_CUDA",
            "USE_CUDNN",
            "USE_NCCL",
            "USE_MKL",
            "USE_MKLDNN",
            "USE_OPENMP",
            "USE_GLOO",
            "USE_MPI",
            "TORCH_VERSION",
            "CUDA_VERSION",
            "CUDNN_VERSION",
        ):
            m = re.search(rf"\b{key}=([^,\s]*)", show)
            if m:
                out[key.lower()] = m.group(1)
        m = re.search(r"^\s*- (Intel\(R\) (?:oneAPI )?Math Kernel Library[^\n]*)", show, re.M)
        out["mkl"] = m.group(1).strip() if m else None
        m = re.search(r"^\s*- (OpenMP [^\n]*)", show, re.M)
        out["openmp"] = m.group(1).strip() if m else None
        m = re.search(r"CPU capability usage: (\S+)", show)
        out["cpu_capability"] = m.group(1) if m else None
        out["mkl_available"] = bool(
            getattr(torch.backends, "mkl", None) and torch.backends.mkl.is_available()
        )
        out["openmp_available"] = bool(torch.backends.openmp.is_available())
        out["mkldnn_available"] = bool(torch.backends.mkldnn.is_available())
        out["threads"] = torch.get_num_threads()
        out["interop_threads"] = torch.get_num_interop_threads()
        return out

    def _shm_info(self) -> dict | None:
        path = self.config.get("shm_path")
        if not path or not os.path.isdir(path):
            return None
        try:
            st = os.statvfs(path)
        except OSError:
            return None
        return {"path": path, "total": st.f_blocks * st.f_frsize, "free": st.f_bavail * st.f_frsize}


def _origin(where: str) -> str:
    """Why `where` is on sys.path, where that can be told."""
    import site

    def under(path: str) -> bool:
        path = os.path.realpath(path)
        return bool(path) and os.path.commonpath([where, path]) == path

    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and under(entry):
            return f": PYTHONPATH holds {entry}"
    try:
        user_site = site.getusersitepackages()
    except Exception:  # a restricted interpreter without a user site
        user_site = ""
    if user_site and under(user_site):
        return f": it is the user site ({user_site}); PYTHONNOUSERSITE=1 leaves it out"
    return ": another path on sys.path"
