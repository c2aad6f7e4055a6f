"""The machine profile record and its JSON round trip (`envkit machine --json`, `-o FILE`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any

from envkit.errors import ParseError, Where

#: The profile document's schema version (`"envkit_machine": 1`).
SCHEMA = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Gpu:
    """One NVIDIA GPU: its index, name, compute capability (`8.6`) and memory in MiB when known."""

    index: int
    name: str
    compute_capability: str | None = None
    memory_mib: int | None = None

    @property
    def sm(self) -> str | None:
        """`sm_86` for compute capability 8.6, None when unknown."""
        if not self.compute_capability:
            return None
        return "sm_" + self.compute_capability.replace(".", "")


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineProfile:
    """What a machine offers an environment.

    `platform` is the conda subdir (`linux-64`, `osx-arm64`); `glibc` / `macos` the C library and
    macOS versions (None where they do not apply); `archspec` the `__archspec` build (the CPU
    microarchitecture name the solver sees) and `cpu_level` the x86-64 psABI level (`x86_64_v3`)
    from the CPU flags.  `driver` is the NVIDIA driver version and `driver_cuda` the newest CUDA
    it supports, as NVML or nvidia-smi report it (`driver_cuda_source`; "table" when it was
    looked up from the driver version).  `virtual_packages` are (name, version, build) as
    `virtual_packages_source` found them: "py-rattler" (VirtualPackage.detect(), exactly what a
    rattler solve sees) or "probe" (derived from the facts above, on a machine without py-rattler).
    `pythons` are (path, version).  `notes` say what could not be found and why.
    """

    host: str
    os: str
    platform: str
    machine: str = ""
    kernel: str | None = None
    distro: str | None = None
    glibc: str | None = None
    macos: str | None = None
    cpu: str | None = None
    archspec: str | None = None
    cpu_level: str | None = None
    driver: str | None = None
    driver_cuda: str | None = None
    driver_cuda_source: str = ""
    gpus: tuple[Gpu, ...] = ()
    gpu_source: str = ""
    virtual_packages: tuple[tuple[str, str, str], ...] = ()
    virtual_packages_source: str = ""
    pythons: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    def virtual_package(self, name: str) -> tuple[str, str] | None:
        """(version, build) of virtual package `name` (`__glibc`), or None when the machine has none."""
        return next(((v, b) for n, v, b in self.virtual_packages if n == name), None)

    def to_dict(self) -> dict:
        """The profile as its JSON document (keys in a fixed order)."""
        doc = {"envkit_machine": SCHEMA, **asdict(self)}  # the fields' order is the document's
        doc["gpus"] = list(doc["gpus"])
        doc["virtual_packages"] = [{"name": n, "version": v, "build": b} for n, v, b in self.virtual_packages]
        doc["pythons"] = [{"path": p, "version": v} for p, v in self.pythons]
        doc["notes"] = list(self.notes)
        return doc

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_dict(cls, doc: dict, *, filename: str | None = None) -> MachineProfile:
        """Read a profile document back; raises ParseError naming the key that is wrong."""
        where = Where(file=filename)
        if not isinstance(doc, dict) or "envkit_machine" not in doc:
            raise ParseError(
                "not an envkit machine profile (no `envkit_machine` key)",
                where=where,
                hint="write one with `envkit machine -o machine.json` on that machine",
            )
        if doc["envkit_machine"] != SCHEMA:
            raise ParseError(
                f"machine profile version {doc['envkit_machine']!r} is not supported "
                f"(envkit reads version {SCHEMA})",
                where=where,
                hint="write it again with this envkit: envkit machine -o machine.json",
            )
        r = _Reader(doc, where)
        gpus = tuple(
            Gpu(
                index=r.item_int(g, f"gpus[{i}]", "index", i),
                name=r.string("name", g, f"gpus[{i}]") or "",
                compute_capability=r.string("compute_capability", g, f"gpus[{i}]"),
                memory_mib=r.item_int(g, f"gpus[{i}]", "memory_mib", None),
            )
            for i, g in enumerate(r.dicts("gpus"))
        )
        vps = tuple(
            (
                r.string("name", v, f"virtual_packages[{i}]") or "",
                r.string("version", v, f"virtual_packages[{i}]") or "0",
                r.string("build", v, f"virtual_packages[{i}]") or "0",
            )
            for i, v in enumerate(r.dicts("virtual_packages"))
        )
        pythons = tuple(
            (r.string("path", p, f"pythons[{i}]") or "", r.string("version", p, f"pythons[{i}]") or "")
            for i, p in enumerate(r.dicts("pythons"))
        )
        # the text fields, in the document's order: None stays None where the field allows it
        texts: dict[str, Any] = {
            f.name: r.string(f.name) if f.type == "str | None" else r.string(f.name) or ""
            for f in fields(cls)
            if f.type in ("str", "str | None")
        }
        return cls(**texts, gpus=gpus, virtual_packages=vps, pythons=pythons, notes=tuple(r.strs("notes")))


class _Reader:
    """Typed access to a profile document; every mistake names its key."""

    def __init__(self, doc: dict, where: Where):
        self.doc, self.where = doc, where

    def _bad(self, key: str, want: str, value) -> ParseError:
        return ParseError(
            f"machine profile: should be {want}, not {type(value).__name__}",
            where=Where(file=self.where.file, key=key),
        )

    def strs(self, key: str) -> list[str]:
        v = self.doc.get(key) or []
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self._bad(key, "a list of strings", v)
        return v

    def dicts(self, key: str) -> list[dict]:
        v = self.doc.get(key) or []
        if not isinstance(v, list):
            raise self._bad(key, "a list", v)
        for i, x in enumerate(v):
            if not isinstance(x, dict):
                raise self._bad(f"{key}[{i}]", "a mapping", x)
        return v

    def string(self, key: str, item: dict | None = None, path: str = "") -> str | None:
        """The document's `key` (or that of `item`, the document's `path`), a string or None."""
        v = (self.doc if item is None else item).get(key)
        if v is not None and not isinstance(v, str):
            raise self._bad(f"{path}.{key}" if path else key, "a string", v)
        return v

    def item_int(self, item: dict, path: str, key: str, default):
        v = item.get(key, default)
        if v is None:
            return default
        if not isinstance(v, int) or isinstance(v, bool):
            raise self._bad(f"{path}.{key}", "an integer", v)
        return v


def read_profile(path: str) -> MachineProfile:
    """Read a profile file written by `envkit machine -o FILE` (or `--json`).  Raises ParseError for
    a file that is not JSON or not a profile, EnvironmentNotFound when there is no such file."""
    from envkit.formats._json import load_json
    from envkit.io import read_text

    hint = "a machine profile is the JSON `envkit machine --json` prints"
    doc = load_json(read_text(path), path, hint=hint)
    return MachineProfile.from_dict(doc, filename=path)
