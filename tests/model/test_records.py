"""envkit's dataclasses (envkit._records) are what `dataclasses.dataclass` makes of the same class
bodies: every record is compared with the dataclass built from its declaration, and
envkit/_recgen/ (their methods, compiled ahead of time) is current."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import envkit
from envkit import _records

ROOT = Path(__file__).resolve().parents[2]
SKIP = ("envkit.conda_plugin", "envkit.smoke.probe", "envkit._recgen")
GENERATED = {
    "__init__",
    "__repr__",
    "__eq__",
    "__hash__",
    "__setattr__",
    "__delattr__",
    "__getstate__",
    "__setstate__",
    "__match_args__",
    "__slots__",
    "__doc__",
    "__dict__",
    "__weakref__",
}


def _records_of_envkit() -> list[type]:
    out = []
    for info in pkgutil.walk_packages(envkit.__path__, "envkit."):
        if info.name.startswith(SKIP):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == info.name
                and "__record_init__" in value.__dict__
            ):
                out.append(value)
    return out


RECORDS = _records_of_envkit()


def _twin(cls: type) -> type:
    """The class `dataclasses.dataclass` makes from `cls`'s declaration (its fields, defaults,
    parameters, docstring and other members)."""
    ns = {
        k: v
        for k, v in cls.__dict__.items()
        if k not in GENERATED and not k.startswith(("__record", "__dataclass"))
    }
    for name in cls.__record_init__:
        ns.pop(name, None)  # the slot descriptors
    for name, value in cls.__record_declared__.items():
        ns[name] = value.to_field() if isinstance(value, _records.FieldSpec) else value
    table = sys.modules["envkit._recgen." + cls.__module__.replace(".", "__")].RECORDS
    has_doc = table[cls.__qualname__][0][3]
    ns["__doc__"] = cls.__doc__ if has_doc else None
    return dataclasses.dataclass(type(cls.__name__, (), ns), **cls.__record_params__)


def _values(cls: type, tag: str) -> dict[str, object]:
    return {name: f"<{tag}:{name}>" for name, default in _records.init_fields(cls)}


def test_generated_methods_are_current():
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_records.py"), "--check"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


def test_every_envkit_dataclass_is_a_record_with_generated_methods():
    assert len(RECORDS) >= 90
    assert _records.FALLBACKS == []
    for info in pkgutil.walk_packages(envkit.__path__, "envkit."):
        if info.name.startswith(SKIP):
            continue
        for value in vars(sys.modules[info.name]).values():
            if isinstance(value, type) and value.__module__ == info.name and dataclasses.is_dataclass(value):
                assert "__record_init__" in value.__dict__, value


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_record_is_what_dataclasses_makes_of_it(cls):
    twin = _twin(cls)
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))
    assert cls.__doc__ == twin.__doc__
    assert cls.__match_args__ == twin.__match_args__
    assert getattr(cls, "__slots__", None) == getattr(twin, "__slots__", None)
    assert (cls.__hash__ is None) == (twin.__hash__ is None)
    assert (cls.__hash__ is object.__hash__) == (twin.__hash__ is object.__hash__)
    assert [repr(f) for f in dataclasses.fields(cls)] == [repr(f) for f in dataclasses.fields(twin)]
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)

    kw = _values(cls, "a")
    try:
        expected = twin(**kw)
    except Exception as exc:  # a __post_init__ that checks its values refuses them alike
        with pytest.raises(type(exc), match=None) as got:
            cls(**kw)
        assert str(got.value) == str(exc)
        return
    a, b = cls(**kw), cls(**kw)
    assert repr(a) == repr(expected)
    assert (a == b) == (twin(**kw) == twin(**kw)) == cls.__dataclass_params__.eq
    assert (a != b) is not (a == b)
    assert (a == expected) is False  # another class, as between two dataclasses
    params = cls.__dataclass_params__
    if params.eq and params.frozen:
        assert hash(a) == hash(b) == hash(expected)
    for f in dataclasses.fields(cls):
        changed = cls(**{**kw, f.name: "<other>"})
        assert (changed == a) == (twin(**{**kw, f.name: "<other>"}) == expected)
        ours, theirs = (
            _records.replace(a, **{f.name: "<other>"}),
            dataclasses.replace(a, **{f.name: "<other>"}),
        )
        assert repr(ours) == repr(changed) == repr(theirs)
    if params.frozen:
        name = dataclasses.fields(cls)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(a, name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(a, name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(expected, name, 1)
    same = (lambda x, y: x == y) if params.eq else (lambda x, y: repr(x) == repr(y))
    assert same(pickle.loads(pickle.dumps(a)), a)
    assert same(copy.deepcopy(a), a)
    assert dataclasses.asdict(a) == dataclasses.asdict(expected)


def test_defaults_and_factories_are_fresh_per_instance():
    from envkit.config import Config
    from envkit.fleet.report import Grouper

    g1, g2 = Grouper(), Grouper()
    fields = [f for f in dataclasses.fields(Grouper) if f.default_factory is not dataclasses.MISSING]
    assert fields, "Grouper has a default_factory field"
    for f in fields:
        assert getattr(g1, f.name) == getattr(g2, f.name)
        if isinstance(getattr(g1, f.name), (list, dict, set)):
            assert getattr(g1, f.name) is not getattr(g2, f.name)
    assert Config() == Config()


def test_replace_takes_unknown_fields_as_dataclasses_does():
    from envkit.model import CondaDep

    dep = CondaDep(name="numpy", version="1.26")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        _records.replace(dep, nope=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        dataclasses.replace(dep, nope=1)
    assert _records.replace(dep, version="2.0") == CondaDep(name="numpy", version="2.0")


def test_a_declaration_its_generated_methods_do_not_match_is_made_by_dataclasses():
    # a record edited without regenerating envkit/_recgen/: slower, never wrong
    ns = {
        "__module__": "envkit.model",
        "__qualname__": "Channel",
        "__annotations__": {"name": "str", "url": "str | None", "mirror": "str"},
        "url": None,
        "mirror": _records.field(default="m", compare=False),
    }
    before = list(_records.FALLBACKS)
    try:
        cls = _records.dataclass(frozen=True, slots=True, kw_only=True)(type("Channel", (), ns))
        assert _records.FALLBACKS == [*before, "envkit.model.Channel"]
    finally:
        _records.FALLBACKS[:] = before
    assert "__record_init__" not in cls.__dict__
    assert [f.name for f in dataclasses.fields(cls)] == ["name", "url", "mirror"]
    assert cls(name="x", mirror="a") == cls(name="x", mirror="b")
    assert repr(cls(name="x")) == "Channel(name='x', url=None, mirror='m')"


def _named_tuples_of_envkit() -> list[type]:
    return [
        value
        for info in pkgutil.walk_packages(envkit.__path__, "envkit.")
        if not info.name.startswith(SKIP)
        for value in vars(sys.modules[info.name]).values()
        if isinstance(value, type)
        and value.__module__ == info.name
        and issubclass(value, tuple)
        and hasattr(value, "_fields")
    ]


NAMED_TUPLES = _named_tuples_of_envkit()


def test_envkit_named_tuples_are_found():
    names = {f"{c.__module__}.{c.__qualname__}" for c in NAMED_TUPLES}
    assert {"envkit.checks.core.Hit", "envkit.secrets.Secret", "envkit.checks.registry.RuleHome"} <= names
    from envkit.checks.core import Hit

    assert Hit.__doc__.startswith("What a rule function yields:")  # the class's own docstring
    assert Hit(3, "m").rank == 0 and Hit(3, "m", rank=2)[4] == 2


@pytest.mark.parametrize("cls", NAMED_TUPLES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_named_tuple_is_what_typing_makes_of_it(cls):
    ns = {
        k: v
        for k, v in cls.__dict__.items()
        if k not in vars(tuple) and k not in _NT_MADE and k not in cls._fields
    }
    ns["__annotations__"] = dict(cls.__annotations__)
    ns.update(cls._field_defaults)
    ns["__module__"] = cls.__module__
    ns["__qualname__"] = cls.__qualname__
    ns["__doc__"] = cls.__doc__
    made = types_new_class(cls.__name__, ns)
    assert cls._fields == made._fields
    assert cls._field_defaults == made._field_defaults
    assert cls.__doc__ == made.__doc__
    assert cls.__qualname__ == made.__qualname__ and cls.__module__ == made.__module__
    assert cls.__bases__ == made.__bases__ == (tuple,)
    values = [f"<{f}>" for f in cls._fields]
    a, b = cls(*values), made(*values)
    assert repr(a) == repr(b) and tuple(a) == tuple(b) and a == b and hash(a) == hash(b)
    assert a._asdict() == b._asdict() and a._replace(**{cls._fields[0]: 1}) == b._replace(
        **{cls._fields[0]: 1}
    )
    assert pickle.loads(pickle.dumps(a)) == a
    assert sorted(k for k in vars(cls) if not k.startswith("__")) == sorted(
        k for k in vars(made) if not k.startswith("__")
    )


_NT_MADE = {"__new__", "__slots__", "__getnewargs__", "__match_args__", "__doc__", "__repr__", "_fields"}
_NT_MADE |= {"_field_defaults", "_make", "_replace", "_asdict", "__module__", "__annotations__"}


def types_new_class(name: str, ns: dict) -> type:
    """`class name(typing.NamedTuple): <ns>` as a class statement makes it."""
    import types
    import typing

    return types.new_class(name, (typing.NamedTuple,), exec_body=lambda body: body.update(ns))


def test_a_named_tuple_refuses_what_typing_refuses():
    with pytest.raises(TypeError):

        class _Bad(_records.NamedTuple):
            a: int = 1
            b: int

    with pytest.raises(AttributeError):

        class _Worse(_records.NamedTuple):
            a: int

            def _asdict(self):
                return {}
