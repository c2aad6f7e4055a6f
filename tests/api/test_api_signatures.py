"""The facade in envkit.api cannot drift from the cores: every public function names its core, and
its parameters (names, kinds, defaults) are the core's, except the defaults api.py lists as
deliberate conveniences."""

import importlib
import inspect

import pytest

import envkit
from envkit import api


def _params(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def test_every_public_function_names_its_core():
    assert sorted(api.CORES) == sorted(api.__all__)
    for name in api.__all__:
        assert getattr(api, name).__envkit_core__ == api.CORES[name]


@pytest.mark.parametrize("name", api.__all__)
def test_facade_signature_is_the_cores(name):
    module, _, attr = api.CORES[name].partition(":")
    core = getattr(importlib.import_module(module), attr)
    facade = getattr(api, name)
    # a deliberate convenience default is None in the facade (it fills in the core's value)
    expected = [
        (n, kind, None if (name, n) in api.CONVENIENCE_DEFAULTS else default)
        for n, kind, default in _params(core)
    ]
    assert _params(facade) == expected


def test_convenience_defaults_name_real_parameters():
    # the listed exceptions are parameters of both functions, whose facade default is None
    for name, param in api.CONVENIENCE_DEFAULTS:
        facade = inspect.signature(getattr(api, name)).parameters
        assert facade[param].default is None


def test_the_package_exports_the_facade():
    assert envkit.solve_spec is api.solve_spec
    assert envkit.check_lock is api.check_lock


def test_the_package_exports_lock_spec_and_convert_model_with_their_result_types():
    from envkit.lock.cutoff import ExcludeNewer
    from envkit.ops.convert import ConvertResult
    from envkit.ops.lock import SpecLockResult

    assert (envkit.lock_spec, envkit.convert_model) == (api.lock_spec, api.convert_model)
    assert (api.CORES["lock_spec"], api.CORES["convert_model"]) == (
        "envkit.ops.lock:lock_spec",
        "envkit.ops.convert:convert_model",
    )
    assert (envkit.SpecLockResult, envkit.ConvertResult, envkit.ExcludeNewer) == (
        SpecLockResult,
        ConvertResult,
        ExcludeNewer,
    )
    assert {"lock_spec", "convert_model", "SpecLockResult", "ConvertResult", "ExcludeNewer"} <= set(
        envkit.__all__
    )
    # what the facades take beyond their cores: paths, text for a cutoff, virtual packages as text
    hints = {n: p.annotation for n, p in inspect.signature(api.lock_spec).parameters.items()}
    assert (hints["spec"], hints["previous"], hints["exclude_newer"]) == (
        "EnvSpec | Path",
        "Lock | Path | None",
        "ExcludeNewer | str | None",
    )
    assert inspect.signature(api.convert_model).return_annotation == "ConvertResult"
