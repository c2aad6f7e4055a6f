"""Refresh templates/pytorch/matrix.json from published data: the PyTorch wheel index's file lists.

`python templates/gen_compatibility.py --refresh` calls `refresh()`: with a network, it reads
https://download.pytorch.org/whl/torch/ (every torch wheel of every variant: `torch-2.14.1+cu130-
cp312-cp312-manylinux_2_28_x86_64.whl`) and the torchvision list, and
- adds a row for each torch minor release the matrix lacks (its CUDA variants and CPython versions
  from the wheel names, torchvision from the wheel index's pairing by release order, torchaudio the
  stable-ABI one), sourced `PYTORCH_INDEX`;
- adds the CPython versions an existing row lacks but the index has wheels for (2.5.1 has cp313).
Nothing is removed: a hand-checked row keeps what its sources say.  Offline (any fetch error) the
matrix stays as committed and the reason is returned.  `fetch(url) -> str` is passed in, so the
logic is tested without a network.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

INDEX = "https://download.pytorch.org/whl/"
_WHEEL = re.compile(
    r"(?P<project>torch|torchvision)-(?P<version>\d+\.\d+)\.\d+(?:\+(?P<variant>cu\d+|cpu))?"
    r"-cp(?P<py>3\d+)-cp3\d+-(?:manylinux|linux)"
)
SOURCE = {
    "title": "download.pytorch.org/whl/torch/ and /whl/torchvision/ file lists (wheel names: release, "
    "variant, CPython tag), read by templates/gen_compatibility.py --refresh",
    "url": "https://download.pytorch.org/whl/torch/",
}


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def _cuda(variant: str) -> str:
    digits = variant[2:]
    return f"{digits[:-1]}.{digits[-1]}"


def wheel_table(html: str, project: str) -> dict[str, dict[str, set[str]]]:
    """minor release -> {"cuda": {"12.6", ...}, "python": {"3.12", ...}} from an index page."""
    out: dict[str, dict[str, set[str]]] = {}
    for m in _WHEEL.finditer(html):
        if m.group("project") != project:
            continue
        row = out.setdefault(m.group("version"), {"cuda": set(), "python": set()})
        py = m.group("py")
        row["python"].add(f"{py[0]}.{py[1:]}")
        if (m.group("variant") or "").startswith("cu"):
            row["cuda"].add(_cuda(m.group("variant")))
    return out


def refresh(matrix: dict, fetch: Callable[[str], str]) -> tuple[dict, list[str]]:
    """(the refreshed matrix, what changed, one line each); on a fetch error the same matrix and
    the single line `offline: ...`."""
    try:
        torch = wheel_table(fetch(INDEX + "torch/"), "torch")
        vision = wheel_table(fetch(INDEX + "torchvision/"), "torchvision")
    except Exception as exc:  # any network failure: keep the committed data
        return matrix, [f"offline: {type(exc).__name__}: {exc}; the committed matrix is kept"]
    m = json.loads(json.dumps(matrix))
    rows = m["releases"]
    known = {r["torch"]: r for r in rows}
    changes: list[str] = []
    for minor, row in sorted(known.items(), key=lambda kv: _vkey(kv[0])):
        extra = sorted(torch.get(minor, {}).get("python", set()) - set(row["python"]), key=_vkey)
        if extra:
            row["python"] = sorted(set(row["python"]) | set(extra), key=_vkey)
            row["sources"] = list(dict.fromkeys([*row["sources"], "PYTORCH_INDEX"]))
            changes.append(f"torch {minor}: Python {', '.join(extra)} added (wheels on the index)")
    visions = sorted(vision, key=_vkey)
    last = rows[-1]
    for minor in sorted(set(torch) - set(known), key=_vkey):
        if _vkey(minor) < _vkey(last["torch"]) or not torch[minor]["cuda"]:
            continue
        # torchvision minor releases follow torch's one for one: the next one after the last row's
        step = (
            _vkey(minor)[1] - _vkey(last["torch"])[1] if _vkey(minor)[0] == _vkey(last["torch"])[0] else None
        )
        tv = None
        if step is not None:
            want = f"0.{_vkey(last['torchvision'])[1] + step}"
            tv = want if want in visions else None
        if tv is None:
            changes.append(f"torch {minor}: skipped (no torchvision release found for it)")
            continue
        cuda = sorted(torch[minor]["cuda"], key=_vkey)
        default = last["default_cuda"] if last["default_cuda"] in cuda else cuda[-1]
        audio = (
            last["torchaudio"] if _vkey(minor) >= _vkey(m.get("torchaudio_stable_abi_from", "99")) else minor
        )
        new = {
            "torch": minor,
            "torchvision": tv,
            "torchaudio": audio,
            "python": sorted(torch[minor]["python"], key=_vkey),
            "cuda": cuda,
            "experimental_cuda": [],
            "default_cuda": default,
            "default_cuda_source": "envkit: the previous release's default, still built",
            "note": "Added by gen_compatibility.py --refresh from the wheel index; review before release.",
            "sources": ["PYTORCH_INDEX"],
        }
        rows.append(new)
        last = new
        changes.append(f"torch {minor}: added (CUDA {', '.join(cuda)}; Python {', '.join(new['python'])})")
    if changes:
        m["sources"].setdefault("PYTORCH_INDEX", SOURCE)
    return m, changes


def dump_matrix(m: dict) -> str:
    """matrix.json's text in its committed layout: one line per source and per row."""

    def dump(v, depth: int, key: str) -> str:
        pad = "  " * (depth + 1)
        if isinstance(v, dict) and depth < 2:
            items = [f"{pad}{json.dumps(k)}: {dump(x, depth + 1, k)}" for k, x in v.items()]
            return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
        if isinstance(v, list) and v and (depth < 2 or key in ("releases", "rows")):
            items = [pad + json.dumps(x, ensure_ascii=False) for x in v]
            return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
        return json.dumps(v, ensure_ascii=False)

    return dump(m, 0, "") + "\n"
