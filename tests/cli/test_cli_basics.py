import subprocess
import sys

from conftest import REPO

from envkit import __version__


def test_version(envkit_cli):
    r = envkit_cli("--version")
    assert r.exit_code == 0
    assert r.stdout == f"envkit {__version__}\n"


def test_help_lists_every_command_without_importing_them(envkit_cli):
    r = envkit_cli("--help")
    assert r.exit_code == 0
    for name in ("normalize", "export", "lock", "create", "diff", "check", "template", "smoke"):
        assert f"  {name} " in r.stdout


def _command_modules_loaded(*args: str) -> tuple[str, list[str]]:
    """Run `envkit ARGS` in a fresh interpreter: its exit code and the envkit.commands modules loaded."""
    code = (
        "import sys\n"
        "from envkit.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as exc:\n"
        "    rc = exc.code\n"
        "print('RC', rc, 'LOADED', *sorted(m for m in sys.modules if m.startswith('envkit.commands.')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    rc, loaded = proc.stdout.splitlines()[-1].split(" LOADED")
    return rc, loaded.split()


def test_help_imports_no_command_and_a_command_imports_only_its_module():
    assert _command_modules_loaded("--help") == ("RC 0", [])
    explain = _command_modules_loaded("explain", "pip-lock-missing-hash")
    assert explain == ("RC 0", ["envkit.commands.explain"])


def test_unknown_command_is_a_usage_error(envkit_cli):
    r = envkit_cli("frobnicate")
    assert r.exit_code == 2
    assert "No such command 'frobnicate'" in r.stderr


def test_version_and_help_import_nothing_heavy():
    code = (
        "import sys\n"
        "from envkit.cli import main\n"
        "for args in (['--version'], ['--help']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = sorted(m for m in ('yaml', 'rattler', 'conda_lock', 'torch', 'ruamel', 'pydantic', 'numpy')"
        " if m in sys.modules)\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in proc.stderr


def test_version_imports_neither_click_nor_the_error_records():
    code = (
        "import sys\n"
        "from envkit.__main__ import main\n"
        "sys.argv[1:] = ['--version']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('LOADED', sorted(m for m in ('click', 'envkit.errors', 'dataclasses') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines()[-1] == "LOADED []"


def test_python_dash_m(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "envkit", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"envkit {__version__}"


def test_spec_versions_keep_their_text():
    from envkit.conda.matchspec import format_spec, parse_spec

    # py-rattler prints 3.000 as 3.0 (equal in conda's order); the file keeps what the user wrote.
    for text in (
        "font-ttf-inconsolata=3.000=h77eed37_0",
        "x>=2.038,<3.00",
        "openssl=1.0.2u",
        "7zip=19.00=h0_2",
    ):
        assert format_spec(parse_spec(text)) == text


def test_a_bug_is_reported_without_a_traceback_and_exit_3(envkit_cli, monkeypatch):
    import envkit.commands.normalize as mod

    def boom(*a, **k):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("envkit.formats.canonical.render_normalized", boom)
    r = envkit_cli("normalize", "examples/pytorch/environment-cpu.yml", cwd=str(REPO))
    assert r.exit_code == 3
    assert r.stderr.splitlines()[0] == "error: internal error: ZeroDivisionError: division by zero"
    assert "Traceback" not in r.stderr
    assert mod is not None


def test_an_unexpected_os_error_is_a_clean_error(envkit_cli, monkeypatch, tmp_path):
    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / "x.yml"))

    monkeypatch.setattr("envkit.formats.canonical.render_normalized", refuse)
    src = tmp_path / "environment.yml"
    src.write_text("name: x\ndependencies:\n  - numpy\n")
    r = envkit_cli("normalize", str(src))
    assert r.exit_code == 2
    assert r.stderr == f"error: {tmp_path / 'x.yml'}: Permission denied\n"


def test_ctrl_c_in_a_command_exits_130_without_a_traceback(envkit_cli, monkeypatch, tmp_path):
    def interrupt(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("envkit.formats.canonical.render_normalized", interrupt)
    src = tmp_path / "environment.yml"
    src.write_text("name: x\ndependencies:\n  - numpy\n")
    r = envkit_cli("normalize", str(src))
    assert r.exit_code == 130
    # click's blank line closes the terminal's ^C echo
    assert r.stderr == "\nInterrupted.\n"
