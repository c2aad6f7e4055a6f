"""Write envkit/_recgen/: the methods of every envkit dataclass, compiled ahead of time.

    python scripts/gen_records.py            # rewrite envkit/_recgen/
    python scripts/gen_records.py --check    # exit 1 (naming the files) when it is not current

Every envkit module is imported with envkit._records.USE_GENERATED off, so each record is made by
`dataclasses.dataclass` and its declaration recorded; the methods written for it are the ones
dataclasses writes for that declaration (envkit/_records.py says why, and which methods).
tests/model/test_records.py runs `--check` and compares every record with dataclasses' own.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "envkit" / "_recgen"
# modules that import what envkit does not depend on (conda's own package), or run elsewhere
SKIP = ("envkit.conda_plugin", "envkit.smoke.probe")


def _tuple(obj: str, names: list[str]) -> str:
    # dataclasses' _tuple_str: the same text, so the same comparison
    return f"({','.join(f'{obj}.{n}' for n in names)},)" if names else "()"


def factory(qualname: str, decl: tuple, made: type) -> tuple[str, str]:
    """(function name, source) of the factory for one record."""
    (eq, frozen, _kw_only, _slots), fields, own, has_doc, _has_match = decl
    fn = "_make_" + qualname.replace(".", "_")
    lines = [f"def {fn}(__cls, __defaults, __factories, __setattr, __frozen, __HAS_FACTORY):"]
    plain = [f[0] for f in fields if f[2] == "d"]
    made_by = [f[0] for f in fields if f[2] == "f"]
    if plain:
        lines.append(f"    {', '.join(f'_d_{n}' for n in plain)}, = __defaults")
    if made_by:
        lines.append(f"    {', '.join(f'_f_{n}' for n in made_by)}, = __factories")
    params = []
    for name, _typ, kind, *_rest, kw in [f for f in fields if not f[6]] + [f for f in fields if f[6]]:
        if kw and "*" not in params:
            params.append("*")
        params.append(name + {"r": "", "d": f"=_d_{name}", "f": "=__HAS_FACTORY"}[kind])
    lines.append(f"    def __init__({', '.join(['self', *params])}):")
    body = []
    for name, _typ, kind, *_ in fields:
        value = f"_f_{name}() if {name} is __HAS_FACTORY else {name}" if kind == "f" else name
        body.append(f"__setattr(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if "__post_init__" in own:
        body.append("self.__post_init__()")
    lines += [f"        {b}" for b in body or ["pass"]]
    shown = ", ".join(f"{f[0]}={{self.{f[0]}!r}}" for f in fields if f[3])
    lines += ["    def __repr__(self):", f'        return self.__class__.__qualname__ + f"({shown})"']
    names = ["__init__", "__repr__"]
    if eq:
        compared = [f[0] for f in fields if f[4]]
        lines += [
            "    def __eq__(self, other):",
            "        if other.__class__ is self.__class__:",
            f"            return {_tuple('self', compared)}=={_tuple('other', compared)}",
            "        return NotImplemented",
        ]
        names.append("__eq__")
        if frozen:
            hashed = [f[0] for f in fields if (f[5] is None and f[4]) or f[5]]
            lines += ["    def __hash__(self):", f"        return hash({_tuple('self', hashed)})"]
            names.append("__hash__")
    if frozen:
        all_names = _tuple_names([f[0] for f in fields])
        for method, args, action, call in (
            ("__setattr__", "self, name, value", "assign to", "__setattr__(name, value)"),
            ("__delattr__", "self, name", "delete", "__delattr__(name)"),
        ):
            lines += [
                f"    def {method}({args}):",
                f"        if type(self) is __cls or name in {all_names}:",
                f"            raise __frozen({action!r}, name)",
                f"        super(__cls, self).{call}",
            ]
            names.append(method)
    lines.append(f"    return {', '.join(names)},")
    doc = None if has_doc else made.__doc__
    return fn, "\n".join(lines) + "\n" + f"\n\n#: {qualname}\n" + f"_DOC_{fn} = {doc!r}\n"


def _tuple_names(names: list[str]) -> str:
    return "(" + ",".join(repr(n) for n in names) + ",)" if names else "()"


def generate() -> dict[str, str]:
    """Relative path -> text of every file of envkit/_recgen/."""
    sys.path.insert(0, str(ROOT))
    import envkit._records as records

    records.USE_GENERATED = False
    import envkit

    for info in pkgutil.walk_packages(envkit.__path__, "envkit."):
        if info.name.startswith(SKIP) or info.name.startswith("envkit._recgen"):
            continue
        importlib.import_module(info.name)
    by_module: dict[str, list[tuple[str, tuple, type]]] = {}
    for (module, qualname), (decl, made, _params) in records.DECLARED.items():
        if decl is None or "<locals>" in qualname:
            continue
        by_module.setdefault(module, []).append((qualname, decl, made))
    files = {
        "__init__.py": '"""Generated by scripts/gen_records.py: the methods of envkit\'s dataclasses '
        '(envkit/_records.py).  Do not edit."""\n'
    }
    for module, recs in sorted(by_module.items()):
        parts = [
            f'"""Generated by scripts/gen_records.py from the dataclasses of {module}.  Do not edit."""\n'
        ]
        table = []
        for qualname, decl, made in recs:
            fn, src = factory(qualname, decl, made)
            parts.append("\n\n" + src)
            table.append(f"    {qualname!r}: (\n        {decl!r},\n        {fn},\n        _DOC_{fn},\n    ),")
        parts.append("\n\nRECORDS = {\n" + "\n".join(table) + "\n}\n")
        files[module.replace(".", "__") + ".py"] = "".join(parts)
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file is not current")
    args = ap.parse_args()
    files = generate()
    stale = [n for n, text in files.items() if not (OUT / n).is_file() or (OUT / n).read_text() != text]
    extra = [p.name for p in OUT.glob("*.py") if p.name not in files] if OUT.is_dir() else []
    if args.check:
        if stale or extra:
            print(
                f"envkit/_recgen/ is not current ({', '.join(stale + extra)}): "
                "run python scripts/gen_records.py",
                file=sys.stderr,
            )
            return 1
        return 0
    OUT.mkdir(exist_ok=True)
    for name in extra:
        (OUT / name).unlink()
    for name in stale:
        (OUT / name).write_text(files[name])
    print(f"envkit/_recgen/: {len(stale)} written, {len(extra)} removed, {len(files)} files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
