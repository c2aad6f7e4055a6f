"""`envkit check --fix` on every real file of the corpus that has something to fix: checked again
after fixing, no rule finds more than before (a fix never adds a finding)."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest
from conftest import CORPUS, corpus_files

import envkit


def _fixable() -> list:
    out = []
    for path in corpus_files():
        if path.suffix not in (".yml", ".yaml") or path.read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff"):
            continue
        result = envkit.check([str(path)])
        if any(f.fixable for f in result.findings):
            out.append(path)
    return out


@pytest.mark.parametrize("path", _fixable(), ids=lambda p: p.name.split("_", 1)[0])
def test_a_fix_never_adds_a_finding(path, tmp_path):
    copy = tmp_path / path.name
    shutil.copyfile(path, copy)
    before = envkit.check([str(copy)])
    fixed = envkit.check([str(copy)], fix=True)
    after = envkit.check([str(copy)])
    assert fixed.fixed and after.findings == fixed.findings
    grown = Counter(f.rule for f in after.findings) - Counter(f.rule for f in before.findings)
    assert grown == Counter()
    assert not any(f.fixable for f in after.findings)


def test_the_pip_section_pinning_pip_gets_that_version_from_conda(tmp_path):
    # 30: an export whose pip section pins pip==24.0 and whose conda list has no pip
    [src] = sorted(CORPUS.glob("30_*"))
    copy = tmp_path / "environment.yml"
    shutil.copyfile(src, copy)
    result = envkit.check([str(copy)], fix=True)
    assert [(f.rule, f.description) for f in result.fixed] == [
        ("pip-without-pip", "added `pip==24.0` to the conda dependencies"),
        ("leaked-prefix", "removed `prefix: /home/eremy/miniconda3/envs/torch`"),
    ]
    assert [f.rule for f in result.findings] == ["mixed-channels"]
    copy.write_text("name: x\ndependencies:\n  - python\n  - pip:\n    - pip>=23\n")
    [f] = envkit.check([str(copy)], config=envkit.Config(select=("pip-without-pip",))).findings
    assert f.message.endswith("add `- pip` and drop `pip>=23` from the pip section (line 5)")
    assert (f.fixable, envkit.check([str(copy)], fix=True).fixed) == (False, ())
