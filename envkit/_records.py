"""envkit's dataclasses, with their methods compiled ahead of time.

`dataclasses.dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__` and `__delattr__` and compiles it when the class is created: about 0.5 ms
a class, and `import dataclasses` imports `inspect` (4-5 ms).  A 30-line `envkit check` creates
26 records, a quarter of its run.  Here the same methods are ordinary functions in
envkit/_recgen/ (written by `python scripts/gen_records.py`, from what `dataclasses` itself builds
for each class), so they come from the bytecode cache like any module.

`dataclass` and `field` take the arguments of their `dataclasses` namesakes; a type checker sees
those (the names are re-exported under TYPE_CHECKING), so records type-check as dataclasses.  What
a record is at run time is what `dataclasses.dataclass` makes of the same class body: the same
`__init__` signature, repr, equality, hash, frozenness, `__slots__`, `__match_args__`, pickling and
docstring (tests/model/test_records.py compares every record with it), and `dataclasses.fields`,
`replace`, `asdict` and `is_dataclass` work on it: `__dataclass_fields__` and
`__dataclass_params__` are built by `dataclasses` itself on first use.  A class whose declaration
no longer matches its generated methods (an edited record, a stale envkit/_recgen/) is made by
`dataclasses.dataclass` itself: slower, never wrong; a test keeps envkit/_recgen/ current.
"""

from __future__ import annotations

import sys

# typing is not imported at run time (its import is 5 ms of a small file's check); type checkers
# take any `TYPE_CHECKING` as typing's
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from dataclasses import dataclass as dataclass
    from dataclasses import field as field
    from dataclasses import replace as replace
    from typing import Any
    from typing import NamedTuple as NamedTuple

__all__ = ["dataclass", "field", "replace", "init_fields", "FALLBACKS", "NamedTuple"]

#: `module.qualname` of each record made by `dataclasses.dataclass` because its generated methods
#: were missing or stale (tests assert it stays empty)
FALLBACKS: list[str] = []

#: False while scripts/gen_records.py collects the declarations: every record is then made by
#: `dataclasses.dataclass` and its declaration recorded in DECLARED
USE_GENERATED = True
DECLARED: dict[tuple[str, str], tuple[Any, type, dict[str, Any]]] = {}


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


class _Factory:
    """The default of a parameter whose field has a default_factory (shown as `<factory>`, as
    `dataclasses` shows it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


MISSING: Any = _Missing()
HAS_FACTORY: Any = _Factory()


class FieldSpec:
    """What `field(...)` declares (turned into a `dataclasses.Field` when one is asked for)."""

    __slots__ = ("default", "default_factory", "init", "repr", "hash", "compare", "metadata", "kw_only")

    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):  # noqa: A002
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = metadata
        self.kw_only = kw_only

    def to_field(self) -> Any:
        import dataclasses

        kw: dict[str, Any] = {"init": self.init, "repr": self.repr, "hash": self.hash}
        kw.update(compare=self.compare, metadata=self.metadata)
        if self.default is not MISSING:
            kw["default"] = self.default
        if self.default_factory is not MISSING:
            kw["default_factory"] = self.default_factory
        if self.kw_only is not MISSING:
            kw["kw_only"] = self.kw_only
        return dataclasses.field(**kw)


if not TYPE_CHECKING:

    def field(
        *,
        default=MISSING,
        default_factory=MISSING,
        init=True,
        repr=True,  # noqa: A002
        hash=None,  # noqa: A002
        compare=True,
        metadata=None,
        kw_only=MISSING,
    ):
        """`dataclasses.field`."""
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        return FieldSpec(default, default_factory, init, repr, hash, compare, metadata, kw_only)

    def dataclass(cls=None, /, **params):
        """`dataclasses.dataclass`, its methods taken from envkit/_recgen/ when they match."""

        def wrap(cls):
            return _process(cls, params)

        return wrap if cls is None else wrap(cls)

    def replace(obj, /, **changes):
        """`dataclasses.replace`, without importing dataclasses for a record made here."""
        names = getattr(type(obj), "__record_init__", None)
        if names is None:
            import dataclasses

            return dataclasses.replace(obj, **changes)
        for name in names:
            if name not in changes:
                changes[name] = getattr(obj, name)
        return obj.__class__(**changes)


def init_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """(name, default) of each `__init__` field of the dataclass `cls`, in order; the default is
    MISSING for a field with none or with a default_factory (a record made here answers without
    importing dataclasses)."""
    declared = cls.__dict__.get("__record_defaults__")
    if declared is not None:
        return tuple(declared)
    import dataclasses

    return tuple(
        (f.name, MISSING if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(cls)
        if f.init
    )


# the parameters the generated methods cover; any other value goes to dataclasses.dataclass
_DEFAULTS = {
    "init": True,
    "repr": True,
    "eq": True,
    "order": False,
    "unsafe_hash": False,
    "frozen": False,
    "match_args": True,
    "kw_only": False,
    "slots": False,
    "weakref_slot": False,
}
_GENERATED: dict[str, Any] = {}
_CLASSVAR_PREFIXES = ("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar", "KW_ONLY")


def declaration(cls: type, params: dict[str, Any]) -> tuple | None:
    """What a class's generated methods depend on: its parameters, its fields (name, annotation,
    default kind, repr, compare, hash, kw_only) and the methods it defines itself; None for a
    class the generated methods cannot cover (dataclass bases, ClassVar/InitVar fields, a field
    with init=False, parameters other than eq/frozen/kw_only/slots)."""
    for k, v in params.items():
        if k not in _DEFAULTS:
            return None
        if k not in ("eq", "frozen", "kw_only", "slots") and v != _DEFAULTS[k]:
            return None
    if any("__dataclass_fields__" in b.__dict__ or "__record_init__" in b.__dict__ for b in cls.__mro__[1:]):
        return None
    ns = cls.__dict__
    kw_only = params.get("kw_only", False)
    fields = []
    for name, typ in ns.get("__annotations__", {}).items():
        if not isinstance(typ, str) or typ.startswith(_CLASSVAR_PREFIXES):
            return None
        value = ns.get(name, MISSING)
        if isinstance(value, FieldSpec):
            if not value.init:
                return None
            kind = "r" if value.default is MISSING and value.default_factory is MISSING else "d"
            if value.default_factory is not MISSING:
                kind = "f"
            fk = kw_only if value.kw_only is MISSING else value.kw_only
            fields.append((name, typ, kind, value.repr, value.compare, value.hash, fk))
        else:
            kind = "r" if value is MISSING else "d"
            fields.append((name, typ, kind, True, True, None, kw_only))
    if "self" in ns.get("__annotations__", {}) or any(
        n in ns for n in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
    ):
        return None  # dataclasses keeps a class's own methods: not worth generating around
    own = ("__post_init__",) if "__post_init__" in ns else ()
    flags = tuple(params.get(k, _DEFAULTS[k]) for k in ("eq", "frozen", "kw_only", "slots"))
    return (flags, tuple(fields), own, bool(ns.get("__doc__")), "__match_args__" in ns)


def _process(cls: type, params: dict[str, Any]) -> type:
    decl = declaration(cls, params)
    module = cls.__module__
    entry = None
    if USE_GENERATED and decl is not None:
        gen = _GENERATED.get(module)
        if gen is None:
            gen = _GENERATED[module] = _load_generated(module)
        entry = gen.get(cls.__qualname__)
        if entry is not None and entry[0] != decl:
            entry = None
    if entry is None:
        return _fallback(cls, params, decl)
    return _build(cls, params, decl, entry)


def _load_generated(module: str) -> dict[str, Any]:
    name = "envkit._recgen." + module.replace(".", "__")
    try:
        __import__(name)
    except ImportError:
        return {}
    return sys.modules[name].RECORDS


def _fallback(cls: type, params: dict[str, Any], decl: tuple | None) -> type:
    import dataclasses

    ns = cls.__dict__
    for name in ns.get("__annotations__", {}):
        value = ns.get(name)
        if isinstance(value, FieldSpec):
            setattr(cls, name, value.to_field())
    made: Any = dataclasses.dataclass(cls, **params)
    if USE_GENERATED:
        FALLBACKS.append(f"{cls.__module__}.{cls.__qualname__}")
    else:
        DECLARED[(cls.__module__, cls.__qualname__)] = (decl, made, params)
    return made


def _build(cls: type, params: dict[str, Any], decl: Any, entry: tuple) -> type:
    (eq, frozen, kw_only, slots), fields, _own, _has_doc, _has_match = decl
    _key, make, doc = entry
    ns = cls.__dict__
    names = tuple(f[0] for f in fields)
    declared = {name: ns[name] for name in names if name in ns}
    defaults = []  # the plain defaults, in field order
    factories = []  # the default factories, in field order
    record_defaults = []
    for name, _typ, kind, *_ in fields:
        value = ns.get(name, MISSING)
        if isinstance(value, FieldSpec):
            if kind == "f":
                factories.append(value.default_factory)
                record_defaults.append((name, MISSING))
                continue
            value = value.default
        if kind == "d":
            defaults.append(value)
        record_defaults.append((name, value))
    made: Any
    if slots:
        body = {k: v for k, v in ns.items() if k not in names and k not in ("__dict__", "__weakref__")}
        body["__slots__"] = names
        made = type(cls)(cls.__name__, cls.__bases__, body)
        made.__qualname__ = cls.__qualname__
    else:
        made = cls
        for name in names:
            value = ns.get(name, MISSING)
            if isinstance(value, FieldSpec):
                if value.default is MISSING:
                    delattr(made, name)
                else:
                    setattr(made, name, value.default)
    methods = make(made, tuple(defaults), tuple(factories), object.__setattr__, _frozen, HAS_FACTORY)
    annotations = {f[0]: f[1] for f in fields}
    annotations["return"] = None
    qualname = made.__qualname__
    for fn in methods:
        if fn is None:
            continue
        fn.__qualname__ = f"{qualname}.{fn.__name__}"
        if fn.__name__ == "__init__":
            fn.__annotations__ = annotations
        elif fn.__name__ == "__repr__":
            fn = _recursive_repr(fn)
        if fn.__name__ not in ns:
            setattr(made, fn.__name__, fn)
    if eq and not frozen and "__hash__" not in ns:
        made.__hash__ = None
    if doc is not None and not ns.get("__doc__"):
        made.__doc__ = doc
    if "__match_args__" not in ns:
        setattr(made, "__match_args__", tuple(f[0] for f in fields if not f[6]))  # noqa: B010 (mypy refuses the assignment)
    if slots and frozen:
        if "__getstate__" not in ns:
            made.__getstate__ = _getstate
        if "__setstate__" not in ns:
            made.__setstate__ = _setstate
    made.__record_init__ = names
    made.__record_defaults__ = tuple(record_defaults)
    made.__record_params__ = params
    made.__record_declared__ = declared
    made.__dataclass_fields__ = _Reference("__dataclass_fields__")
    made.__dataclass_params__ = _Reference("__dataclass_params__")
    return made


def _frozen(action: str, name: str) -> Any:
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot {action} field {name!r}")


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, name) for name in type(self).__record_init__]


def _setstate(self: Any, state: list[Any]) -> None:
    for name, value in zip(type(self).__record_init__, state):  # noqa: B905 (as dataclasses' own)
        object.__setattr__(self, name, value)


def _recursive_repr(fn: Any) -> Any:
    # what dataclasses does for __repr__: a record that contains itself shows `...`
    import functools
    from _thread import get_ident

    running: set[tuple[int, int]] = set()

    @functools.wraps(fn)
    def wrapper(self: Any) -> str:
        key = id(self), get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return fn(self)
        finally:
            running.discard(key)

    return wrapper


class _Reference:
    """`__dataclass_fields__` / `__dataclass_params__` of a record made here: on first use, the
    ones `dataclasses.dataclass` makes from the same declaration (then kept on the class)."""

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __get__(self, obj: object, owner: type) -> Any:
        import dataclasses

        ns: dict[str, Any] = {
            "__module__": owner.__module__,
            "__qualname__": owner.__qualname__,
            "__annotations__": owner.__dict__.get("__annotations__", {}),
        }
        for name, value in owner.__dict__["__record_declared__"].items():
            ns[name] = value.to_field() if isinstance(value, FieldSpec) else value
        params = owner.__dict__["__record_params__"]
        twin: Any = dataclasses.dataclass(type(owner.__name__, (), ns), **params)
        type.__setattr__(owner, "__dataclass_fields__", twin.__dataclass_fields__)
        type.__setattr__(owner, "__dataclass_params__", twin.__dataclass_params__)
        return getattr(owner, self.attr)


if not TYPE_CHECKING:

    class _NamedTupleMeta(type):
        """What `typing.NamedTuple` makes of a class body, without importing typing: the
        `collections.namedtuple` of its annotated fields (those with a value are defaults), with
        the body's methods, docstring and qualname (tests/model/test_records.py compares)."""

        def __new__(mcls, typename, bases, ns):
            if not bases:  # NamedTuple itself
                return super().__new__(mcls, typename, bases, ns)
            if bases != (NamedTuple,):
                raise TypeError("can only inherit from a NamedTuple type")
            import collections

            types = ns.get("__annotations__", {})
            defaults = [name for name in types if name in ns]
            if defaults and list(types)[-len(defaults) :] != defaults:
                raise TypeError(f"{typename}: a field without a default follows one with a default")
            made = collections.namedtuple(
                typename, list(types), defaults=[ns[n] for n in defaults], module=ns["__module__"]
            )
            made.__annotations__ = made.__new__.__annotations__ = dict(types)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
        | {"_make", "_replace", "_asdict", "_source"}
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class NamedTuple(metaclass=_NamedTupleMeta):
        """`typing.NamedTuple` for a class statement (`class Hit(NamedTuple): ...`)."""
