import subprocess
import sys

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


def test_python_dash_m(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "envkit", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"envkit {__version__}"
