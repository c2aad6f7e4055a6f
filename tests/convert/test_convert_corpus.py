"""Every lock of the corpus converted to every writer that applies: the loss report (`changes_install`
of `--format json`) is what `envkit diff SOURCE OUTPUT` finds, and every pixi.lock written reads in
py-rattler.  (The SBOMs are validated by
test_convert_sbom_write.py::test_sbom_of_every_corpus_lock_validates.)"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from conftest import CORPUS, run_envkit

from envkit.convert import TARGETS
from envkit.formats import read_file

LOCKS = sorted(
    p.name
    for p in CORPUS.iterdir()
    if p.name.endswith((".lock", "conda-lock.yml", "pylock.toml", "uv.lock"))
    or "explicit" in p.name
    or "spec-file" in p.name
)

#: (file number, target) -> the start of the error: conversions envkit refuses, saying why
REFUSED = {
    # (80, 81 and 82 fork sphinx by Python version in their `docs` groups, which `uv export`, and so
    # convert, leave out by default: tests/convert/test_convert_verify.py converts them with --all-groups)
    # pixi v7 platforms of their own names (`p1` for win-64): pixi.lock v6 and conda-lock.yml name
    # platforms by conda subdir
    **{
        ("91", t): "error: conda-lock.yml names platforms by conda subdir; p1, p2, p3 are not one"
        for t in ["conda-lock"]
    },
    ("91", "pixi"): "error: pixi.lock v6 names platforms by conda subdir; p1, p2, p3 are not one",
    # PEP 751 lock-file markers (`"default" in dependency_groups`) that pip cannot evaluate
    (
        "85",
        "requirements",
    ): "error: the lock installs certifi, chardet, charset-normalizer, ... (10 in all) under",
    (
        "86",
        "requirements",
    ): "error: the lock installs mypy, pre-commit-hooks, ruff, ... (38 in all) under markers",
    # several environments: a pixi target keeps them all, another holds one (--env NAME picks it);
    # 58's `default` is empty, its packages are in `format`
    **{
        (n, t): f"error: {CORPUS / name}: " + why
        for n, name, why in (
            ("58", "58_16bit-ykiko__about-me__pixi.lock", "pixi.lock environment 'default' has no packages"),
            ("59", "59_43ravens__NEMO_Nowcast__pixi.lock", "the pixi.lock has 7 environments"),
            ("79", "79_prefix-dev__pixi__pixi.lock", "the pixi.lock has 2 environments"),
        )
        for t in (
            "env",
            "explicit",
            "conda-lock",
            "pylock",
            "requirements",
            "conda-list-json",
            "conda-list-export",
        )
    },
}

#: output names `envkit diff` detects the format from
NAMES = {
    "env": "environment.yml",
    "explicit": "explicit.txt",
    "conda-lock": "conda-lock.yml",
    "pixi": "pixi.lock",
    "pixi-v7": "pixi.lock",
    "pylock": "pylock.toml",
    "conda-list-json": "list.json",
    "conda-list-export": "list.txt",
}

#: record fields that differ after a round trip without another artifact (the target holds them
#: otherwise, or not at all): convert notes them, `envkit diff` lists them
_QUIET = ("depends", "constrains", "subdir")


def _quiet(change: dict) -> bool:
    m = re.search(r"package records differ \((.*)\): conda", change["reason"])
    return m is not None and all(f.split(" ", 1)[0] in _QUIET for f in m.group(1).split("; "))


def _platform(model) -> str | None:
    plats = tuple(getattr(model, "platforms", ()) or ())
    if not plats:
        return "linux-64"
    return "linux-64" if "linux-64" in plats else plats[0]


@pytest.mark.parametrize("name", LOCKS)
def test_the_loss_report_is_the_diff_of_the_read_back(name, tmp_path):
    src = CORPUS / name
    model = read_file(src)
    plat = _platform(model)
    view_pkgs = [p for p in model.packages if p.platform in (plat, None)]
    forked = {n for n, k in Counter(p.name.lower() for p in view_pkgs if p.manager == "pip").items() if k > 1}
    number = name.split("_", 1)[0]
    bad = []
    for target in TARGETS:
        if target == "cyclonedx":
            continue
        out = tmp_path / target / NAMES.get(target, "out")
        out.parent.mkdir()
        r = run_envkit(
            "convert",
            str(src),
            "-o",
            str(out),
            "--to",
            target,
            "--platform",
            plat,
            "--allow-loss",
            "--format",
            "json",
        )
        if (number, target) in REFUSED:
            if r.exit_code != 2 or not r.stderr.startswith(REFUSED[number, target]):
                bad.append(f"{target}: expected a refusal, got {r.exit_code}: {r.stderr[:200]}")
            continue
        if r.exit_code != 0:
            bad.append(f"{target}: exit {r.exit_code}: {r.stderr[:300]}")
            continue
        doc = json.loads(r.stdout)
        if not doc["verified"]:
            bad.append(f"{target}: not verified: {doc.get('unverified_because')}")
            continue
        if target.startswith("pixi"):
            from rattler import LockFile

            LockFile.from_path(out)  # py-rattler reads every pixi.lock envkit writes
        if target == "conda-lock":
            from conda_lock.lockfile import parse_conda_lock_file

            parse_conda_lock_file(
                out
            )  # and conda-lock its format (pixi's metadata kept as its schema allows)
        got = {
            (c["name"].lower(), c["kind"])
            for c in doc["changes_install"]
            if c["platform"] in (plat, None) and c["kind"] != "marker" and c["name"].lower() not in forked
        }
        if target == "requirements" or not view_pkgs:
            continue  # `envkit diff` checks a requirements file as a spec; an empty lock has nothing
        rd = run_envkit("diff", str(src), str(out), "--platform", plat, "--format", "json")
        if "empty environment file" in rd.stderr:  # nothing written (only what the target cannot hold)
            want = {(p.name.lower(), "removed") for p in view_pkgs}
            if got != want:
                bad.append(f"{target}: an empty output, convert reports {sorted(got)}")
            continue
        d = json.loads(rd.stdout)
        want = {
            (c["name"].lower(), c["kind"])
            for c in d["changes"]
            if not _quiet(c) and not ((c["a"] or c["b"])["manager"] == "pip" and c["name"].lower() in forked)
        }
        if d["pip_not_recorded"] and d["pip_not_recorded"]["side"] == "b":
            want |= {(p.name.lower(), "removed") for p in view_pkgs if p.manager == "pip"}
        if got != want:
            bad.append(
                f"{target}: convert reports {sorted(got - want)}, the diff {sorted(want - got)} besides"
            )
        if want and doc["lossless"]:
            bad.append(f"{target}: lossless while its diff finds {len(want)} changes")
    assert bad == [], f"{name}:\n" + "\n".join(bad)
