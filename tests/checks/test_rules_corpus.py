"""`envkit check` on every real file of tests/data/corpus: no rule crashes, and the findings are
exactly the ones below - each reviewed against the file and justified.  A new finding on a real
file is a false alarm until someone justifies it here."""

from __future__ import annotations

import os

import pytest
from conftest import CORPUS, corpus_files, known_wrong

from envkit.checks import load_targets, run_checks
from envkit.config import Config

# file number -> [(rule, line)], in output order.  Each comment says why the finding is right.
EXPECTED: dict[str, list[tuple[str, int]]] = {
    # channels: nodefaults is listed; pytorch/pytorch-cuda pins agree (2.1.0 with CUDA 11.8).
    "01": [],
    # channels conda-forge, pytorch, nvidia and no nodefaults: what conda adds behind them is each
    # user's .condarc, not the file's; nothing says defaults is in play.
    "02": [],
    # channels pytorch + defaults only; cudatoolkit 11.3 with pytorch 1.10.1 is a real pairing.
    "03": [("vcs-unpinned", 40)],  # git+https://github.com/fbcotter/pytorch_wavelets, no @rev
    # matplotlib is a conda dependency (line 8) and pinned again in the pip section (line 14):
    # pip's matplotlib 3.5.1 replaces conda's files.
    "04": [("conda-pip-duplicate", 14)],
    # channels list defaults (line 3) and conda-forge (line 7): both families in one env.
    "06": [("mixed-channels", 7), ("vcs-unpinned", 20)],  # 20: git+https://.../submitit, no @rev
    # channels pytorch, conda-forge (line 3), defaults (line 5): mixed; and a `pip:` section
    # (line 14, `-r requirements.txt`) with no `pip` in the conda dependencies (conda warns too).
    # The corpus holds the environment file alone: its `-r requirements.txt` (line 15) is not beside
    # it, and conda runs pip from the file's folder, so `conda env create` on this copy fails.
    "07": [("mixed-channels", 5), ("pip-without-pip", 14), ("missing-requirements-file", 15)],
    # channels pytorch, conda-forge (line 14), defaults (line 15).
    "08": [("mixed-channels", 15)],
    # pytorch + defaults only, pip listed, pytorch 1.11.0 with torchvision 0.12.0 (a real pair).
    "09": [],
    # pytorch + nvidia channels only (no conda-forge), pip listed.
    "10": [],
    # conda-forge, bioconda, pytorch, nvidia without nodefaults (as for 02).
    "11": [("vcs-unpinned", 39)],  # 39: git+https://.../dllogger.git, no @rev
    # conda-forge + nodefaults; nothing pinned in a conflicting way.  The file lived in conda/ of
    # its repository, next to ../requirements/; copied alone, its `-r ../requirements/uv/all.txt`
    # (line 41) and `-r ../requirements/conda.txt` (line 42) point at nothing.
    # `h5py` (27) and `h5py==3.13.0` (32) in the conda list: listed twice.
    "13": [("listed-twice", 32), ("missing-requirements-file", 41), ("missing-requirements-file", 42)],
    # conda-forge only, no nodefaults (as for 02).  torch/torchaudio 2.10.0+cu128 agree.
    "14": [],
    # conda-forge only, no nodefaults (as for 02).  Unpinned torch (line 9) searched on the cu126
    # index and on PyPI (extra): pip takes PyPI's newer torch, not a cu126 build.
    "15": [("wheel-index", 9)],
    # a `pip:` section (line 6) and no `pip` conda dependency; conda prints the same warning for
    # this file (it is meant to be layered on another env, which does not change what conda says).
    "17": [("pip-without-pip", 6)],
    # channels pytorch, conda-forge (line 5), defaults (line 6).
    "18": [("mixed-channels", 6), ("vcs-unpinned", 61)],  # 61: chemprop.git#egg=chemprop, no @rev
    # channels conda-forge (line 24), defaults (line 25).
    "19": [("mixed-channels", 25)],
    # menpo (full URL) + conda-forge, no nodefaults (as for 02).
    "21": [],
    # conda-forge + pytorch, no nodefaults (as for 02).  Unpinned torch (line 11) with the cu124
    # index only as --extra-index-url: pip takes PyPI's newer torch, not a cu124 build.
    "22": [("wheel-index", 11)],
    # export of a Windows base env: channels anaconda (a defaults alias, line 3), plotly,
    # conda-forge (line 5, where the mix starts), defaults;
    # conda pyqt 5.9.2 and pip PyQt5 5.15.4 are the same project (line 371), conda ruamel_yaml and
    # pip ruamel-yaml too (line 375, noted in the corpus index); the `prefix: C:\Users\liu\...`
    # line (386) publishes a user's path.
    "23": [
        ("mixed-channels", 5),
        ("conda-pip-duplicate", 371),
        ("conda-pip-duplicate", 375),
        ("leaked-prefix", 386),
    ],
    # export: conda-forge + defaults (packages from both: `_libgcc_mutex=0.1=main`); prefix line
    # /home/user/... at 173.
    "24": [("mixed-channels", 4), ("vcs-unpinned", 144), ("leaked-prefix", 173)],  # 144: roc-utils.git
    # export: defaults, conda-forge, pkgs/main, pkgs/r - mixed; `gdown` hand-appended without a
    # version to the pinned pip list (line 206, noted in the corpus index).
    "25": [("mixed-channels", 4), ("unpinned", 206)],
    # `conda env export --no-builds`: every conda entry is `name=version`, which conda reads as
    # `version.*` (one finding listing all 75, at the first); prefix line 229. The pip section pins
    # torch 1.13.1+cu117 and torchvision 0.14.1+cu117 (211, 213) with no PyTorch index: PyPI has neither.
    "26": [("fuzzy-pin", 6), ("wheel-index", 211), ("wheel-index", 213), ("leaked-prefix", 229)],
    # --from-history export: loose pins are intended (not a lock); the prefix line (10) remains.
    "28": [("leaked-prefix", 10)],
    # 2017 export: defaults + conda-forge; prefix line 14.
    "29": [("mixed-channels", 4), ("leaked-prefix", 14)],
    # export: pytorch, nvidia, conda-forge (line 5), defaults (line 6); pip is installed by pip
    # itself (pip==24.0 in the pip section), not by conda, so the `pip:` section (line 140) has no
    # conda pip; prefix line 171.
    "30": [("mixed-channels", 6), ("pip-without-pip", 140), ("leaked-prefix", 171)],
    # export: bioconda, conda-forge, defaults (line 5); prefix line 209 (not under /home, still
    # one machine's path).  pytorch is a CPU build but nothing pins CUDA: no cuda-mismatch.
    "31": [("mixed-channels", 5), ("leaked-prefix", 209)],
    # export: pytorch, conda-forge, defaults (line 5).  conda pytorch 1.12.1 and pip torch==1.12.1
    # (line 101), conda typing_extensions 4.3.0 and pip typing-extensions==4.3.0 (line 105): the same
    # versions, so recreating the export pip finds conda's copies installed and installs nothing.
    # torchaudio 0.12.1+cu116 agrees with cudatoolkit 11.6 and with torch 1.12, but the export names
    # no PyTorch index for it (line 102): only download.pytorch.org/whl/cu116 has that build.
    "33": [("mixed-channels", 5), ("wheel-index", 102)],
    # export: bioconda, conda-forge, defaults (line 5); prefix line 198.
    # `pytest` at 137 and again at 169: listed twice.
    "34": [
        ("mixed-channels", 5),
        ("unpinned", 137),
        ("listed-twice", 169),
        ("unpinned", 169),
        ("leaked-prefix", 198),
    ],
    # export: conda-forge + defaults (line 4); pip installed by pip (pip==21.2.4 under `pip:`,
    # line 84); prompt_toolkit 1.0.15 (conda) / prompt-toolkit 3.0.8 (pip, 141) are one project in
    # two versions (corpus index); jupyter_client / jupyter-client 6.1.7 (113) and jupyter_core /
    # jupyter-core 4.6.3 (114) are the same versions: pip installs nothing for them.
    # `PyYAML` without a version in the pinned pip list (185).
    "35": [
        ("mixed-channels", 4),
        ("pip-without-pip", 84),
        ("conda-pip-duplicate", 141),
        ("unpinned", 185),
    ],
    # Windows export (CRLF): python 3.6 with pytorch py36 builds; prefix line 25.
    "37": [("leaked-prefix", 25)],
    # export: pytorch, conda-forge, defaults (line 5), pkgs/main, pkgs/r.
    "40": [("mixed-channels", 5)],
    # `conda list --export`: no channels, no URLs, cannot carry hashes.
    "41": [],
    # `conda list --explicit` without md5 (one finding, at the first URL, line 5);
    # packages from conda-forge and pkgs/main (first main package at line 38).
    "42": [("missing-hash", 5), ("mixed-channels", 38)],
    # explicit without md5.
    "43": [("missing-hash", 6)],
    # explicit without md5.
    "45": [("missing-hash", 5)],
    # explicit with #md5 on its one entry.
    "46": [],
    # conda-lock rendered explicit, md5 on every URL.
    "48": [],
    # conda-lock rendered explicit, md5 on every URL.
    "50": [],
    # conda-lock v1, 4 platforms, hashes everywhere, conda-forge only.
    "51": [],
    # conda-lock: metadata channels defaults, pkgs/main, pkgs/r with conda-forge (line 17); numpy
    # locked for conda (2.2.4) and pip (2.1.3) on linux-64 (pip entry at line 2086; corpus index).
    "52": [("mixed-channels", 17), ("conda-pip-duplicate", 2086)],
    # conda-lock: the solver took conda-forge's pytorch 1.13.1 (`cuda112py39..._200`, line 3514),
    # which pytorch-cuda (the legacy pytorch channel's selector) does not constrain - cuda112 runs on
    # the locked cudatoolkit 11.8 (its dependency `cudatoolkit >=11.2,<12`) - so the warning at 3514
    # says pytorch-cuda has no effect there.  It is not harmless: pytorch-cuda=11.7 (line 3545)
    # pulled the nvidia channel's CUDA 11.7 runtime (cuda-cudart 11.7.99, line 593) beside
    # cuda-version 11.8 / cudatoolkit 11.8.0: contradicting CUDA pins (error at 3545).
    # And pip torch 2.3.1 (line 4595) on top of conda pytorch 1.13.1 (corpus index).
    # pip torchaudio 2.3.1 goes with pip torch 2.3.1.  That pip torch is PyPI's CUDA 12.1 wheel (its
    # locked dependencies pin nvidia-cuda-runtime-cu12 12.1.105) while conda pins CUDA 11.x
    # (cuda-version 11.8, cudatoolkit 11.8.0, pytorch-cuda 11.7): one cuda-mismatch at line 4595.
    "53": [
        ("cuda-mismatch", 3514),
        ("cuda-mismatch", 3545),
        ("conda-pip-duplicate", 4595),
        ("cuda-mismatch", 4595),
    ],
    # conda-lock (ppc64le): channels conda-forge, open-ce, defaults (metadata line 17).
    "55": [("mixed-channels", 17)],
    # pixi.lock v6: conda-forge only, hashes everywhere.
    "57": [],
    # pixi.lock v6 with an empty default environment.
    "58": [],
    # pixi.lock v7: pyzmq's `py312` builds are conda-forge abi3 builds (they depend on
    # `_python_abi3_support` and `cpython >=3.12`), fine with Python 3.13/3.14: no finding.
    "59": [],  # pixi.lock v7, pixi's default: no note
    # pixi.lock version 1 (2023, conda-lock shaped, `dependencies:` a list): conda-forge only,
    # md5 and sha256 on every package.
    "60": [],
    "61": [],
    # pixi.lock version 1 with `dependencies:` as a mapping: the same judgment.
    "62": [],
    # pixi.lock v7 with pixi-build source packages (`conda_source:`): the v7 note as for 59; a
    # source package is built from its path, so it has no archive hash to miss.
    "63": [],
    "64": [],
    # pixi.lock v6 whose only package is built from an out-of-tree path: nothing to hash.
    "65": [],
    # pixi.lock v6 with git-sourced packages (`package_build_source` pins the git rev): no archive
    # hash exists for them; every binary package has its sha256.
    "66": [],
    # PowerShell export (UTF-16LE, BOM, CRLF): defaults only, no prefix line.
    "67": [],
    # PowerShell export (UTF-16LE): channels pytorch, conda-forge, defaults (line 5); the prefix
    # C:\Users\andre\... (line 289).
    "68": [("mixed-channels", 5), ("leaked-prefix", 289)],
    # selectors (`# [osx]` / `# [linux]`) with conda-forge + nodefaults: nothing to report alone.
    "69": [],
    "70": [],
    # selectors, conda-forge + nvidia + nodefaults, channel::package specs.
    "71": [],
    # On win-64 the nvidia channel's cuda-libraries-dev 11.8.0 asks for `cuda-cccl >=11.8.89`
    # (line 5198), so the solver took CUDA 12.1's cuda-cccl and cuda-profiler-api (12.1.55, from
    # line 4811) beside pytorch-cuda 11.8's runtime: two CUDA versions' headers in one environment.
    "72": [("cuda-mismatch", 4811)],
    # channels umccr, conda-forge, bioconda without nodefaults (as for 02).
    "73": [],
    # conda-lock 1.0.x lock alone: umccr/conda-forge/bioconda recorded, hashes everywhere.
    "74": [],
    "75": [],
    "76": [],
    # conda-forge + nodefaults, and its lock.
    "77": [],
    "78": [],
    # pixi.lock v6 with duplicate-name depends (`python >=3.10` and `python`): nothing wrong.
    "79": [],
    # uv.lock revisions 1-3 with forks (sphinx 8.1.3 / 8.2.3 under resolution markers).
    "80": [],
    "81": [],
    "82": [],
    # pylock.toml from uv and from PDM.
    "83": [],
    "84": [],
    "85": [],
    "86": [],
    # pip-compile output: its `# via -r /Users/david/...` annotations name the author's home
    # (first at line 9).  A comment installs nothing: one finding for the file, not one per line.
    "87": [("leaked-prefix", 9)],
    "88": [],
    # conda-lock explicit files with python 3.13 and conda-forge abi3 builds (py39/py311/py312
    # builds beside `_python_abi3_support`): an abi3 build runs on every later CPython.
    "89": [],
    "90": [],
    # pixi.lock v7 with abi3 builds (their depends say `_python_abi3_support`, `cpython >=3.10`):
    # no ABI finding.  Its platforms p1 (win-64) and p2 (linux-64) are pixi.toml's `cuda-win-64` /
    # `cuda-linux-64` (`cuda = "12"`, whose tasks run `train.py --cuda`), solved with __cuda=12,
    # yet both lock conda-forge's CPU pytorch (`cpu_mkl_...`, lines 279 and 369).
    "91": [("cuda-unused", 279), ("cuda-unused", 369)],
}

#: Corpus files envkit judges wrongly today: EXPECTED holds the right answer and the test is a
#: strict xfail until envkit gives it (then drop the entry).
KNOWN_WRONG: dict[str, str] = {}


def _number(path) -> str:
    return path.name.split("_", 1)[0]


def test_expectations_cover_the_whole_corpus():
    assert sorted(_number(p) for p in corpus_files()) == sorted(EXPECTED)


@pytest.mark.parametrize("path", known_wrong(corpus_files(), KNOWN_WRONG), ids=_number)
def test_corpus_findings_are_exactly_the_reviewed_ones(path):
    old = os.getcwd()
    os.chdir(CORPUS)
    try:
        targets = load_targets([path.name])
        found = run_checks(targets, Config())
    finally:
        os.chdir(old)
    assert [(f.rule, f.line) for f in found] == EXPECTED[_number(path)]
    for f in found:
        assert f.file == path.name and f.message


def test_corpus_spec_and_its_conda_lock_are_consistent():
    # 53 was generated by conda-lock from 02 (same commit): every entry of the spec is satisfied,
    # and the conda-lock content hash (not envkit's) is not compared.
    old = os.getcwd()
    os.chdir(CORPUS)
    try:
        targets = load_targets(
            ["02_EthanMarx__ztf-lfi-demo__environment.yaml", "53_EthanMarx__ztf-lfi-demo__conda-lock.yml"]
        )
        found = run_checks(targets, Config(select=("stale-lock", "lock-unsatisfied")))
    finally:
        os.chdir(old)
    assert targets[0].lock is targets[1] and targets[1].spec is targets[0]
    assert found == []


#: spec and lock committed together (same commit, both files changed there).  None is stale: 78's
#: hash is exactly conda-lock 2.4.2's with `--with-cuda=11.8` (the command its README gives); the
#: others' hashes match no conda-lock release tried (1.0.2, 1.0.5, 1.1.0 for 74/76; 2.5.1, 2.5.4,
#: 2.5.6, 2.5.7 with and without `--with-cuda=12.0` for 70; 72 untried), and a hash envkit cannot
#: reproduce is "not comparable", never "stale".  Selectors (`# [linux]`, `# [win]`) leave osx-arm64 without
#: pytorch-cuda in 71/72.
SPEC_LOCK_PAIRS = {
    "69": "70_Clay-foundation__model__conda-lock.yml",
    "71": "72_konstantinjdobler__nlp-research-template__conda-lock.yml",
    "73": "74_umccr__gpgr__conda-lock.yml",
    "75": "76_umccr__dracarys__conda-lock.yml",
    "77": "78_Clay-foundation__model__conda-lock.yml",
}
KNOWN_WRONG_PAIRS = {}


@pytest.mark.parametrize(
    "spec",
    known_wrong([p for p in corpus_files() if _number(p) in SPEC_LOCK_PAIRS], KNOWN_WRONG_PAIRS),
    ids=_number,
)
def test_spec_and_the_lock_committed_with_it_are_consistent(spec):
    old = os.getcwd()
    os.chdir(CORPUS)
    try:
        targets = load_targets([spec.name, SPEC_LOCK_PAIRS[_number(spec)]])
        found = run_checks(targets, Config(select=("stale-lock", "lock-unsatisfied")))
    finally:
        os.chdir(old)
    assert targets[0].lock is targets[1]
    assert [(f.rule, f.line) for f in found] == []
