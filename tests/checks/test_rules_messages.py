"""Rule messages that must say what conda does (through the CLI)."""

from __future__ import annotations

import textwrap


def test_fuzzy_pin_says_a_single_equals_is_a_prefix_not_later_patches(tmp_path, envkit_cli):
    (tmp_path / ".git").mkdir()
    (tmp_path / "environment.yml").write_text(
        textwrap.dedent("""\
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - tensorflow=2.12.1
          - numpy=1.26.4
        prefix: /opt/envs/analysis
        """)
    )
    r = envkit_cli("check", "--select", "fuzzy-pin", "environment.yml", cwd=tmp_path)
    assert r.stdout.splitlines()[0] == (
        "environment.yml:4: info fuzzy-pin: 2 conda entries pin with a single '=' (tensorflow, numpy); conda "
        "reads 'tensorflow=2.12.1' as 2.12.1.*, which matches 2.12.1 and the versions that extend it (such "
        "as "
        "2.12.1.1), not exactly 2.12.1"
    )
    assert "later patch" not in r.stdout
