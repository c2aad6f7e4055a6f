"""`envkit check` and `envkit explain` from the command line: discovery, exit codes, output formats
(SARIF validated against the OASIS 2.1.0 schema), --fix, configuration and suppressions."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from conftest import DATA, REPO

BAD = textwrap.dedent("""\
    name: demo
    channels:
      - conda-forge
      - defaults
    dependencies:
      - python=3.11
      - numpy>=1.24
      - pip:
        - numpy==1.26.4
        - --extra-index-url https://deploy:s3cr3t@pypi.example.org/simple
    prefix: /home/alice/miniconda3/envs/demo
    """)

GOOD = textwrap.dedent("""\
    name: demo
    channels:
      - conda-forge
      - nodefaults
    dependencies:
      - python=3.11
      - numpy>=1.24
      - pip
    """)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".git").mkdir()  # the config search stops here
    return tmp_path


def test_discovers_files_and_exits_1_on_errors(repo, envkit_cli):
    (repo / "environment.yml").write_text(BAD)
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "environment.yml:4: warning mixed-channels: defaults channels (defaults) are mixed with "
        "conda-forge; their builds are not binary-compatible: use conda-forge with nodefaults (or only "
        "defaults)",
        "environment.yml:8: warning pip-without-pip: the pip section is installed with pip, but pip is "
        "not among the conda dependencies; add `- pip`",
        "environment.yml:9: error conda-pip-duplicate: numpy is installed by conda (>=1.24) and pip "
        "(==1.26.4)",
        "environment.yml:10: error leaked-secret: a user name and password in a URL: "
        "https://<USER>:<PASSWORD>@pypi.example.org/simple",
        "environment.yml:11: warning leaked-prefix: `prefix: /home/alice/miniconda3/envs/demo` is the "
        "path of one machine's environment; remove it (conda uses -n/-p or `name:` instead)",
        "5 findings (2 errors, 3 warnings) in 1 file checked",
    ]
    assert "installed by both conda" not in r.stderr  # the finding, not also a warning


def test_exit_codes_and_fail_on(repo, envkit_cli):
    (repo / "environment.yml").write_text(GOOD)
    assert envkit_cli("check", cwd=repo).exit_code == 0
    (repo / "environment.yml").write_text(GOOD.replace("  - nodefaults\n", "  - defaults\n"))
    (repo / ".envkit.toml").write_text('[severity]\nmixed-channels = "info"\n')  # one info finding
    assert envkit_cli("check", cwd=repo).exit_code == 0
    assert envkit_cli("check", "--fail-on", "warning", cwd=repo).exit_code == 0
    r = envkit_cli("check", "--fail-on", "info", cwd=repo)
    assert r.exit_code == 1
    assert r.stdout.splitlines()[-1] == "1 finding (1 info) in 1 file checked"


def test_usage_and_parse_errors_exit_2(repo, envkit_cli):
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 2 and "nothing to check" in r.stderr
    (repo / "environment.yml").write_text("dependencies: [python\n")
    r = envkit_cli("check", "environment.yml", cwd=repo)
    assert r.exit_code == 2 and r.stderr.startswith("error: environment.yml:")
    (repo / "environment.yml").write_text(GOOD)
    r = envkit_cli("check", "--select", "no-such-rule", cwd=repo)
    assert r.exit_code == 2 and "unknown rule 'no-such-rule'" in r.stderr
    r = envkit_cli("check", "-n", "a", "-p", "b", cwd=repo)
    assert r.exit_code == 2
    # an empty --select (an unset CI variable: --select "$RULES") would run no rule and pass anything
    (repo / "environment.yml").write_text(BAD)
    for empty in ("", " , "):
        r = envkit_cli("check", "--select", empty, cwd=repo)
        assert (r.exit_code, r.stdout) == (2, "")
        assert r.stderr.startswith("error: --select names no rule, so no rule would run\n")
    assert envkit_cli("check", "--ignore", "", cwd=repo).exit_code == 1  # ignoring nothing is fine


def test_select_ignore_and_inline_suppression(repo, envkit_cli):
    (repo / "environment.yml").write_text(
        BAD.replace("  - numpy==1.26.4", "  - numpy==1.26.4  # envkit: ignore[conda-pip-duplicate]")
    )
    r = envkit_cli("check", "--select", "conda-pip-duplicate,leaked-prefix", cwd=repo)
    assert [ln.split(": ")[1] for ln in r.stdout.splitlines()[:-1]] == ["warning leaked-prefix"]
    r = envkit_cli(
        "check", "--ignore", "leaked-prefix", "--ignore", "mixed-channels,pip-without-pip", cwd=repo
    )
    assert [ln.split(": ")[1] for ln in r.stdout.splitlines()[:-1]] == ["error leaked-secret"]
    (repo / "environment.yml").write_text(GOOD.replace("- pip", "- pip  # envkit: ignore[no-such]"))
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: environment.yml:8: unknown rule 'no-such' in an inline suppression")


def test_pyproject_and_envkit_toml_configuration(repo, envkit_cli):
    (repo / "environment.yml").write_text(BAD)
    (repo / "pyproject.toml").write_text(
        textwrap.dedent("""\
        [project]
        name = "x"

        [tool.envkit]
        ignore = ["leaked-secret"]
        fail-on = "warning"
        allowed-channels = ["conda-forge", "nodefaults"]

        [tool.envkit.severity]
        conda-pip-duplicate = "warning"

        [tool.envkit.pypi-names]
        python = ["my-python-dist"]
        """)
    )
    r = envkit_cli("check", "--format", "json", cwd=repo)
    doc = json.loads(r.stdout)
    assert [(f["rule"], f["severity"]) for f in doc["findings"]] == [
        ("mixed-channels", "warning"),
        ("mixed-channels", "warning"),
        ("pip-without-pip", "warning"),
        ("conda-pip-duplicate", "warning"),
        ("leaked-prefix", "warning"),
    ]
    assert [f["message"] for f in doc["findings"][:2]] == [
        "channel defaults (listed) is not in allowed-channels (conda-forge, nodefaults)",
        "defaults channels (defaults) are mixed with conda-forge; their builds are not binary-compatible: "
        "use conda-forge with nodefaults (or only defaults)",
    ]
    assert r.exit_code == 1 and doc["summary"]["fail_on"] == "warning"
    (repo / ".envkit.toml").write_text('select = ["leaked-prefix"]\n')  # found first
    r = envkit_cli("check", "--format", "json", cwd=repo)
    assert [f["rule"] for f in json.loads(r.stdout)["findings"]] == ["leaked-prefix"]
    assert r.exit_code == 0
    (repo / ".envkit.toml").write_text('ignore = ["conda-pip-duplicat"]\n')
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 2 and "unknown rule 'conda-pip-duplicat' in ignore" in r.stderr
    (repo / ".envkit.toml").write_text("select = []\n")
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {repo / '.envkit.toml'}:1 (select): select is empty, so no rule would run\n"
        "hint: list rule names, or remove `select` to run every rule\n"
    )
    (repo / ".envkit.toml").write_text("ignroe = []\n")
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 2 and "unknown configuration key 'ignroe'" in r.stderr


def test_json_output_is_documented_shape(repo, envkit_cli):
    (repo / "environment.yml").write_text(BAD)
    doc = json.loads(envkit_cli("check", "--format", "json", cwd=repo).stdout)
    assert list(doc) == ["version", "findings", "fixed", "summary"]
    assert doc["findings"][2] == {
        "rule": "conda-pip-duplicate",
        "severity": "error",
        "file": "environment.yml",
        "line": 9,
        "message": "numpy is installed by conda (>=1.24) and pip (==1.26.4)",
        "packages": ["numpy"],
        "fixable": False,
    }  # once; the message tells conda's from pip's
    assert doc["summary"] == {
        "checked": ["environment.yml"],
        "environments": [],
        "findings": 5,
        "error": 2,
        "warning": 3,
        "info": 0,
        "fixed": 0,
        "fail_on": "error",
        "failed": True,
    }


def test_github_workflow_commands_are_escaped(repo, envkit_cli):
    (repo / "environment.yml").write_text(BAD)
    lines = envkit_cli("check", "--format", "github", cwd=repo).stdout.splitlines()
    assert lines[2] == (
        "::error file=environment.yml,line=9,title=envkit conda-pip-duplicate (error)::"
        "numpy is installed by conda (>=1.24) and pip (==1.26.4)"
    )
    assert lines[0].startswith("::warning file=environment.yml,line=4,title=envkit mixed-channels")
    from envkit.checks.core import Finding
    from envkit.render.findings_github import render_findings_github

    odd = Finding(rule="r", severity="info", file="a,b:c.yml", line=None, message="50%\nsecond")
    assert (
        render_findings_github([odd]).splitlines()[0]
        == "::notice file=a%2Cb%3Ac.yml,title=envkit r (info)::50%25%0Asecond"
    )
    # CR too (a CRLF file's text in a message), and %, CR, LF in a property; `::` cannot end it early
    odd = Finding(rule="r", severity="error", file="C:\\w\r\n%.yml", line=3, message="a\r\nb::c")
    assert (
        render_findings_github([odd]).splitlines()[0]
        == "::error file=C%3A\\w%0D%0A%25.yml,line=3,title=envkit r (error)::a%0D%0Ab::c"
    )


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(repo, envkit_cli):
    import jsonschema

    (repo / "environment.yml").write_text(BAD)
    r = envkit_cli("check", "--format", "sarif", "-o", "results.sarif", cwd=repo)
    assert r.exit_code == 1 and r.stdout == ""
    doc = json.loads((repo / "results.sarif").read_text())
    schema = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(doc, schema)
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "envkit"
    assert [rl["id"] for rl in run["tool"]["driver"]["rules"]][:2] == [
        "conda-pip-duplicate",
        "pip-overwrote-conda",
    ]
    res = run["results"][2]
    assert res["ruleId"] == "conda-pip-duplicate" and res["ruleIndex"] == 0 and res["level"] == "error"
    assert res["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "environment.yml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 9},
    }
    assert res["properties"] == {"packages": ["numpy"]}
    assert res["message"]["text"] == "numpy is installed by conda (>=1.24) and pip (==1.26.4)"
    # a finding without a line and on an absolute path (a live environment) is valid too
    from envkit.checks.core import Finding
    from envkit.render.findings_sarif import render_findings_sarif

    live = Finding(rule="env-drift", severity="error", file="/opt/conda/envs/x y", line=None, message="m")
    doc = json.loads(render_findings_sarif([live]))
    jsonschema.validate(doc, schema)
    assert doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "file:///opt/conda/envs/x%20y"}
    }


def test_sarif_schema_is_the_oasis_one():
    schema = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text())
    assert schema["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert schema["required"] == ["version", "runs"]


def test_fix_rewrites_atomically_and_reports(repo, envkit_cli):
    text = BAD.replace("\n", "\r\n")  # CRLF survives the fix
    (repo / "environment.yml").write_bytes(text.encode())
    r = envkit_cli("check", "--fix", cwd=repo)
    assert r.stdout.splitlines()[:3] == [
        "environment.yml:8: fixed pip-without-pip: added `pip` to the conda dependencies",
        "environment.yml:10: fixed leaked-secret: replaced the credential with a placeholder",
        "environment.yml:11: fixed leaked-prefix: removed `prefix: /home/alice/miniconda3/envs/demo`",
    ]
    assert r.stdout.splitlines()[-1] == "2 findings (1 error, 1 warning) in 1 file checked, 3 fixed"
    assert r.exit_code == 1  # conda-pip-duplicate is not mechanical: it remains
    new = (repo / "environment.yml").read_bytes().decode()
    assert new == text.replace("  - pip:\r\n", "  - pip\r\n  - pip:\r\n").replace(
        "deploy:s3cr3t", "<USER>:<PASSWORD>"
    ).replace("prefix: /home/alice/miniconda3/envs/demo\r\n", "")
    assert envkit_cli("check", "--fix", "--format", "json", cwd=repo).exit_code == 1
    assert (repo / "environment.yml").read_bytes().decode() == new  # nothing more to fix
    assert list(repo.glob(".environment.yml.*")) == []  # no temporary file left


def test_list_rules_and_explain(envkit_cli):
    r = envkit_cli("check", "--list-rules")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0].split()[:2] == ["conda-pip-duplicate", "error"]
    assert len(r.stdout.splitlines()) == 40 + 2  # the rules, a blank line, the footer
    r = envkit_cli("explain", "pip-without-pip")
    assert r.exit_code == 0
    assert r.stdout.startswith("pip-without-pip (default severity: warning)\n")
    assert (
        "    environment.yml:4: warning pip-without-pip: the pip section is installed with pip, but "
        "pip is not among the conda dependencies; add `- pip`"
    ) in r.stdout
    r = envkit_cli("explain", "pip-without")
    assert r.exit_code == 2 and "did you mean 'pip-without-pip'?" in r.stderr


def test_lock_pairing_by_sources_and_multiple_files(repo, envkit_cli):
    from envkit.formats import read_text as read_model
    from envkit.formats.condalock import write_conda_lock
    from envkit.lock import spec_content_hash
    from envkit.model import Lock, LockedPackage

    (repo / "environment.yml").write_text(GOOD)
    spec = read_model(GOOD, filename="environment.yml")
    pkgs = tuple(
        LockedPackage(
            manager="conda",
            name=n,
            version=v,
            build=b,
            platform="linux-64",
            url=f"https://conda.anaconda.org/conda-forge/linux-64/{n}-{v}-{b}.conda",
            md5="0" * 32,
            sha256="1" * 64,
        )
        for n, v, b in [
            ("python", "3.11.9", "hb806964_0_cpython"),
            ("numpy", "1.26.4", "py311h64a7726_0"),
            ("pip", "24.0", "pyhd8ed1ab_0"),
        ]
    )
    lock = Lock(
        kind="conda-lock",
        platforms=("linux-64",),
        packages=pkgs,
        channels=spec.channels[:1],
        content_hash=(("linux-64", spec_content_hash(spec, "linux-64")),),
        sources=("environment.yml",),
    )
    (repo / "conda-lock.yml").write_text(write_conda_lock(lock))
    r = envkit_cli("check", cwd=repo)
    assert (r.exit_code, r.stdout) == (0, "no findings (2 files checked)\n")
    (repo / "environment.yml").write_text(GOOD.replace("numpy>=1.24", "numpy>=2"))
    r = envkit_cli("check", cwd=repo)
    assert r.exit_code == 1
    assert [ln.split(": ")[1] for ln in r.stdout.splitlines()[:-1]] == [
        "error lock-unsatisfied",
        "error stale-lock",
    ]


def test_docs_rules_md_is_generated_from_the_registry():
    out = subprocess.run(
        [sys.executable, "-m", "envkit.render.rule_docs"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    ).stdout
    assert (REPO / "docs" / "rules.md").read_text() == out, (
        "docs/rules.md is stale: run `python -m envkit.render.rule_docs > docs/rules.md`"
    )


def test_pre_commit_hooks_file():
    from envkit.formats._yaml import load

    hooks = load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert [(h["id"], h["entry"]) for h in hooks] == [
        ("envkit-check", "envkit check"),
        ("envkit-normalize", "envkit normalize --write"),
    ]
    for h in hooks:
        assert h["language"] == "python" and h["files"]


def test_example_ci_repo_is_clean_and_its_lock_up_to_date(envkit_cli):
    ci = REPO / "examples" / "ci-repo"
    r = envkit_cli("check", cwd=ci)
    assert (r.exit_code, r.stdout) == (0, "no findings (2 files checked)\n")
    r = envkit_cli("lock", "--check", "-f", "environment.yml", "--lock", "conda-lock.yml", cwd=ci)
    assert r.exit_code == 0, r.stdout + r.stderr
    from envkit.formats._yaml import load

    hooks = {h["id"] for h in load((REPO / ".pre-commit-hooks.yaml").read_text())}
    config = load((ci / ".pre-commit-config.yaml").read_text())
    assert [h["id"] for h in config["repos"][0]["hooks"]] == ["envkit-check", "envkit-normalize"]
    assert hooks == {"envkit-check", "envkit-normalize"}


def test_example_workflow_would_run_on_github(envkit_cli, tmp_path):
    """The workflow's actions are current majors (Node 24: GitHub removes Node 20 from its runners),
    the job may upload SARIF (security-events: write; actions: read in private repositories), and
    every `envkit` command it runs works in the example repository, with the exit code the step
    accepts."""
    import shlex
    import shutil

    import yaml

    ci = tmp_path / "ci-repo"
    shutil.copytree(REPO / "examples" / "ci-repo", ci)
    wf = yaml.safe_load((ci / ".github" / "workflows" / "envkit.yml").read_text())
    job = wf["jobs"]["check"]
    assert job["permissions"] == {"contents": "read", "security-events": "write", "actions": "read"}
    uses = [s["uses"] for s in job["steps"] if "uses" in s]
    assert uses == ["actions/checkout@v5", "actions/setup-python@v6", "github/codeql-action/upload-sarif@v4"]
    upload = next(s for s in job["steps"] if s.get("uses", "").endswith("upload-sarif@v4"))
    assert upload["with"]["sarif_file"] == "envkit.sarif"
    assert "!cancelled()" in upload["if"] and "head.repo.full_name == github.repository" in upload["if"]
    ran = []
    for step in job["steps"]:
        command = step.get("run", "")
        if not command.startswith("envkit "):
            continue
        command, _, tolerated = command.partition(" || ")
        args = shlex.split(command)[1:]
        r = envkit_cli(*args, cwd=ci)
        allowed = {0, 1} if tolerated == "test $? -eq 1" else {0}
        assert r.exit_code in allowed, (command, r.stdout, r.stderr)
        ran.append(args[0])
    assert ran == ["lock", "check", "check"]
    doc = json.loads((ci / "envkit.sarif").read_text())  # what upload-sarif would send
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"] == []


@pytest.mark.parametrize(
    "path, check, normalize",
    [
        ("environment.yml", True, True),
        ("envs/environment-cuda.yaml", True, True),
        ("conda-lock.yml", True, False),
        ("ci/linux-64.conda-lock.yml", True, False),
        ("pixi.lock", True, False),
        ("requirements.txt", False, False),
        (".github/workflows/environment.yml", False, False),
    ],
)
def test_pre_commit_hooks_run_on_the_right_files(path, check, normalize):
    # pre-commit matches `files` and `exclude` with re.search on the repository-relative path
    import re

    from envkit.formats._yaml import load

    hooks = {h["id"]: h for h in load((REPO / ".pre-commit-hooks.yaml").read_text())}

    def runs(h):
        return bool(re.search(h["files"], path)) and not re.search(h.get("exclude", "^$"), path)

    assert (runs(hooks["envkit-check"]), runs(hooks["envkit-normalize"])) == (check, normalize)


def test_fix_with_a_machine_format_reports_fixes_on_stderr(repo, envkit_cli):
    (repo / "environment.yml").write_text(GOOD.replace("  - pip\n", "  - pip:\n    - requests==2.32.3\n"))
    r = envkit_cli("check", "--fix", "--format", "github", cwd=repo)
    assert r.exit_code == 0
    assert r.stderr == "environment.yml:8: fixed pip-without-pip: added `pip` to the conda dependencies\n"
    assert r.stdout == "no findings (1 file checked, 1 fixed)\n"
    assert "  - pip\n  - pip:\n" in (repo / "environment.yml").read_text()


def test_stdin_is_a_file_source_read_once(repo, envkit_cli):
    r = envkit_cli("check", "-", input=BAD, cwd=repo)
    assert r.exit_code == 1
    assert r.stdout.splitlines()[0].startswith("<stdin>:4: warning mixed-channels: ")
    assert r.stdout.splitlines()[-1] == "5 findings (2 errors, 3 warnings) in 1 file checked"
    data = json.loads(envkit_cli("check", "-", "--format", "json", input=BAD, cwd=repo).stdout)
    assert {f["file"] for f in data["findings"]} == {"<stdin>"}
    # a lock on stdin, paired with its spec by --lock
    lock = (DATA / "corpus" / "52_CNES__lenapy__conda-lock.yml").read_text()
    (repo / "environment.yml").write_text((DATA / "corpus" / "40_CNES__lenapy__environment.yml").read_text())
    r = envkit_cli(
        "check", "environment.yml", "--lock", "-", "--select", "conda-pip-duplicate", input=lock, cwd=repo
    )
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "<stdin>:2086: error conda-pip-duplicate: numpy is installed by conda (2.2.4) and pip (2.1.3) on "
        "linux-64",
        "1 finding (1 error) in 2 files checked",
    ]
    for args in (("-", "-"), ("-", "--lock", "-")):
        r = envkit_cli("check", *args, input=GOOD, cwd=repo)
        assert r.exit_code == 2 and "standard input (-) can be read only once" in r.stderr
    r = envkit_cli("check", "--fix", "-", input=BAD, cwd=repo)
    assert r.exit_code == 2 and "--fix cannot rewrite standard input" in r.stderr
    r = envkit_cli("check", "-", input="dependencies: [python\n", cwd=repo)
    assert r.exit_code == 2 and r.stderr.startswith("error: <stdin>:")


PIXI_TWO_ENVS = textwrap.dedent("""\
    version: 6
    environments:
      default:
        channels:
        - url: https://conda.anaconda.org/conda-forge/
        packages:
          linux-64:
          - conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
          - pypi: https://files.pythonhosted.org/packages/aa/bb/numpy-2.0.0-cp311-cp311-manylinux_2_17_x86_64.whl
      test:
        channels:
        - url: https://conda.anaconda.org/conda-forge/
        packages:
          linux-64:
          - conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
          - pypi: https://files.pythonhosted.org/packages/aa/bb/numpy-2.0.0-cp311-cp311-manylinux_2_17_x86_64.whl
    packages:
    - conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
      sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149
      md5: a502d7aad449a1206efb366d6a12c52d
      depends: []
    - pypi: https://files.pythonhosted.org/packages/aa/bb/numpy-2.0.0-cp311-cp311-manylinux_2_17_x86_64.whl
      name: numpy
      version: 2.0.0
      sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149
    """)


def test_a_duplicate_is_a_finding_per_environment_and_no_stderr_warning(repo, envkit_cli):
    (repo / "pixi.lock").write_text(PIXI_TWO_ENVS)
    r = envkit_cli("check", "pixi.lock", cwd=repo)
    assert r.stderr == ""
    assert [ln.split(":")[1] for ln in r.stdout.splitlines()[:-1]] == ["9", "16"]
    (repo / "pixi.lock").unlink()
    # a lock discovered here and given again by --lock under another spelling is read once
    (repo / "environment.yml").write_text((DATA / "corpus" / "40_CNES__lenapy__environment.yml").read_text())
    (repo / "conda-lock.yml").write_text((DATA / "corpus" / "52_CNES__lenapy__conda-lock.yml").read_text())
    r = envkit_cli(
        "check", "--lock", str(repo / "conda-lock.yml"), "--select", "conda-pip-duplicate", cwd=repo
    )
    assert r.stderr == ""
    assert r.stdout.splitlines() == [
        "conda-lock.yml:2086: error conda-pip-duplicate: numpy is installed by conda (2.2.4) and pip (2.1.3) "
        "on linux-64",
        "1 finding (1 error) in 2 files checked",
    ]


@pytest.mark.parametrize(
    "path, keys, line",
    [
        (".pre-commit-config.yaml", "(repos)", 3),
        (".github/workflows/envkit.yml", "(on, permissions, jobs)", 7),
    ],
)
def test_a_yaml_file_that_is_not_an_environment_file_is_an_error(envkit_cli, repo, path, keys, line):
    f = REPO / "examples" / "ci-repo" / path
    r = envkit_cli("check", str(f))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines()[0] == (
        f"error: {f}:{line}: not an environment file: no channels: or dependencies:, and top-level keys "
        f"an environment file does not have {keys}"
    )
    # an environment file with only some of its keys is still one
    for text in ("name: empty\n", "name: x\nvariables: {A: b}\n"):
        (repo / "environment.yml").write_text(text)
        assert envkit_cli("check", "environment.yml", cwd=repo).exit_code == 0
    # on stdin there is no file name to go by: --input-format says what it is
    r = envkit_cli("check", "-", input="name: empty\n")
    assert r.exit_code == 2 and "hint: pass --input-format" in r.stderr
    r = envkit_cli("check", "-", "--input-format", "env", input="name: empty\n")
    assert r.exit_code == 0 and r.stdout == "no findings (1 file checked)\n"


def test_pyproject_counts_as_config_only_with_a_tool_envkit_table(tmp_path):
    from envkit.config import find_config

    (tmp_path / ".git").mkdir()
    py = tmp_path / "pyproject.toml"
    py.write_text("[project]\nname = 'x'\n# we might add [tool.envkit] later\n")
    assert find_config(tmp_path) is None
    py.write_text("[project]\nname = 'x'\n\n[tool.envkit.severity]\nfuzzy-pin = 'warning'\n")
    assert find_config(tmp_path) == py


def test_a_configuration_error_names_the_line_in_tool_envkit_not_another_tools_table(tmp_path, envkit_cli):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ruff]\nignore = ["E501"]\n\n[tool.envkit]\nignore = ["no-such-rule"]\n', encoding="utf-8"
    )
    (tmp_path / "environment.yml").write_text(
        "name: t\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n", encoding="utf-8"
    )
    r = envkit_cli("check", "environment.yml", cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"error: {tmp_path / 'pyproject.toml'}:5 (tool.envkit.ignore): unknown rule 'no-such-rule' in ignore"
    )
