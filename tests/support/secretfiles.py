"""Credentials of every shape envkit detects, and well-formed files seeded with them (shared by the
property test and the redaction tests)."""

from __future__ import annotations

from typing import NamedTuple


class Secrets(NamedTuple):
    t_token: str  # /t/<token>/
    password: str  # user:password@
    query: str  # ?token=
    gh: str  # https://ghp_...@github.com
    pypi: str  # __token__:pypi-AgE...@
    hf: str  # variables: HF_TOKEN
    twine: str  # variables: TWINE_PASSWORD (plain text)


def conda_lock_text(s: Secrets) -> str:
    """A conda-lock.yml whose channel, conda URL and pip URL carry the credentials of `s`."""
    return f"""version: 1
metadata:
  content_hash:
    linux-64: c031fb5637d749cf717581bf1f085dcb09a29604904921e7461ef3c8be70623e
  channels:
  - url: https://conda.anaconda.org/t/{s.t_token}/private
    used_env_vars: []
  - url: conda-forge
    used_env_vars: []
  platforms:
  - linux-64
  sources:
  - environment.yml
package:
- name: numpy
  version: 1.26.4
  manager: conda
  platform: linux-64
  dependencies: {{}}
  url: https://conda.anaconda.org/t/{s.t_token}/private/linux-64/numpy-1.26.4-py311h64a7726_0.conda
  hash:
    md5: bab72fc87928c9313c31a9d41604e433
    sha256: 0e09be56bfb2ab85b213e5edf9af10df37bda472547395c36baa44bc3926101a
  category: main
  optional: false
- name: internal-tool
  version: "1.0"
  manager: pip
  platform: linux-64
  dependencies: {{}}
  url: https://deploy:{s.password}@pypi.example.org/packages/internal_tool-1.0-py3-none-any.whl
  hash:
    sha256: 0e09be56bfb2ab85b213e5edf9af10df37bda472547395c36baa44bc3926101a
  category: main
  optional: false
"""
