"""The public Python API (`import envkit`): every name in `envkit.__all__` checks its arguments and
answers misuse with TypeError (a wrong Python type, naming what it wanted and what it got) or an
EnvkitError (a bad value) — never AttributeError, never a silent success."""
from __future__ import annotations

import pytest

import envkit
from envkit.config import ConfigError


# --- Config ----------------------------------------------------------------------------------

def test_config_normal_use_normalizes_lists_and_channel_names():
    cfg = envkit.Config(select=["unpinned", "leaked-secret"], ignore=["fuzzy-pin"],
                        severity={"unpinned": "error"}, fail_on="warning",
                        allowed_channels=["https://conda.anaconda.org/conda-forge/", "nodefaults"],
                        pypi_names={"My-Tool": ["my_tool"]})
    assert cfg.select == ("unpinned", "leaked-secret") and cfg.ignore == ("fuzzy-pin",)
    assert cfg.allowed_channels == ("conda-forge", "nodefaults")
    assert cfg.pypi_names == {"my-tool": ("my_tool",)}
    assert cfg.merged(ignore=("unpinned",)).is_selected("unpinned") is False
    assert envkit.Config() == envkit.Config(select=None, ignore=(), severity={})


@pytest.mark.parametrize("kwargs, message", [
    (dict(fail_on="bogus"), "fail-on must be one of error, warning, info, not 'bogus'"),
    (dict(select=["no-such-rule"]), "unknown rule 'no-such-rule' in select"),
    (dict(ignore=("nope",)), "unknown rule 'nope' in ignore"),
    (dict(severity={"nope": "error"}), "unknown rule 'nope' in severity"),
    (dict(severity={"unpinned": "fatal"}), "severity of unpinned must be one of error, warning, info, not 'fatal'"),
    (dict(select=()), "select is empty, so no rule would run"),
    (dict(allowed_channels=[" "]), "allowed-channels holds an empty channel name"),
])
def test_config_bad_values_are_config_errors(kwargs, message):
    with pytest.raises(ConfigError) as exc:
        envkit.Config(**kwargs)
    assert str(exc.value) == message
    assert isinstance(exc.value, envkit.EnvkitError)


@pytest.mark.parametrize("kwargs, message", [
    (dict(select="unpinned"), "Config select must be a tuple or list of rule names, not str "
                              "(one name goes in a tuple: ('unpinned',))"),
    (dict(ignore=[1]), "Config ignore must hold rule names (str), not int"),
    (dict(fail_on=1), "Config fail_on must be a str or None, not int"),
    (dict(severity=["unpinned"]), "Config severity must be a dict of rule name -> severity, not list"),
    (dict(allowed_channels="conda-forge"), "Config allowed_channels must be a tuple or list of channel names, "
                                           "not str (one name goes in a tuple: ('conda-forge',))"),
    (dict(pypi_names={"x": "y"}), "Config pypi_names['x'] must be a tuple or list of PyPI names, not str "
                                  "(one name goes in a tuple: ('y',))"),
    (dict(source=3), "Config source must be a str or None, not int"),
])
def test_config_wrong_types_are_type_errors(kwargs, message):
    with pytest.raises(TypeError) as exc:
        envkit.Config(**kwargs)
    assert str(exc.value) == message
