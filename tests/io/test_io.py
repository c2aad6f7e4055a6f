import os
import stat

import pytest

from envkit.errors import EnvkitError, ParseError
from envkit.io import atomic_write, read_text


def test_atomic_write_replaces_and_keeps_mode(tmp_path):
    f = tmp_path / "environment.yml"
    f.write_text("old\n")
    os.chmod(f, 0o640)
    atomic_write(f, "new\n")
    assert f.read_text() == "new\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["environment.yml"]


def test_atomic_write_to_a_device_writes_through_without_replacing_it():
    atomic_write("/dev/null", "anything\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_atomic_write_to_a_fifo_writes_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        atomic_write(fifo, "through the pipe\n")
        assert os.read(r, 100) == b"through the pipe\n"
    finally:
        os.close(r)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_atomic_write_into_a_missing_directory_is_a_clean_error(tmp_path):
    with pytest.raises(EnvkitError, match="cannot write"):
        atomic_write(tmp_path / "nope" / "x.yml", "x")


def test_read_text_errors(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        read_text(tmp_path / "missing.yml")
    big = tmp_path / "big.yml"
    big.write_bytes(b"a" * 2048)
    with pytest.raises(ParseError, match="larger than"):
        read_text(big, max_bytes=1024)
    bad = tmp_path / "latin1.yml"
    bad.write_bytes(b"name: x\n# caf\xe9\n")
    with pytest.raises(ParseError) as exc:
        read_text(bad)
    assert str(exc.value) == f"{bad}:2: not UTF-8 text"
    bom = tmp_path / "bom.yml"
    bom.write_bytes(b"\xef\xbb\xbfname: x\n")
    assert read_text(bom) == "name: x\n"


def test_atomic_write_through_a_symlink_keeps_the_link(tmp_path):
    target = tmp_path / "real.yml"
    target.write_text("old\n")
    link = tmp_path / "environment.yml"
    link.symlink_to("real.yml")
    atomic_write(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == "real.yml"
    assert target.read_text() == "new\n"


def test_errors_quote_at_most_200_characters_of_input():
    from envkit.conda.matchspec import parse_spec
    from envkit.errors import InvalidSpecError, Where

    with pytest.raises(InvalidSpecError) as exc:
        parse_spec("numpy>=1.2,,<2" + "x" * 100_000, where=Where(file="environment.yml", line=7))
    text = str(exc.value)
    # refused for its length before it is parsed; the quote is still cut
    assert text.startswith(
        "environment.yml:7: match spec is 100,014 characters long; envkit reads specs of at "
        "most 4,096: 'numpy>=1.2,,<2xxx"
    )
    assert len(text) < 600


POWERSHELL_EXPORTS = [
    "67_daveshap__raven__environment.yml",
    "68_csce585-mlsystems__project-athena__environment.yml",
]


@pytest.mark.parametrize("name", POWERSHELL_EXPORTS, ids=lambda n: n[:2])
def test_a_powershell_export_is_read_by_its_byte_order_mark(name):
    from conftest import CORPUS

    data = (CORPUS / name).read_bytes()
    assert data[:2] == b"\xff\xfe" and "\r\n" in data.decode("utf-16")  # as committed: BOM, CR LF
    text = read_text(CORPUS / name)
    assert text == data[2:].decode("utf-16-le") and text.startswith("name: ")
    assert read_text(CORPUS / name, keep_bom=True) == "\ufeff" + text


def test_utf16_and_utf32_by_their_marks_and_their_decoding_errors(tmp_path):
    text = "name: x\r\ndependencies:\r\n  - numpy  # café\r\n"
    for codec, bom in (
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
        ("utf-32-be", b"\x00\x00\xfe\xff"),
    ):
        f = tmp_path / f"{codec}.yml"
        f.write_bytes(bom + text.encode(codec))
        assert read_text(f) == text, codec
    odd = tmp_path / "odd.yml"
    odd.write_bytes(b"\xff\xfe" + "a: 1\nb: 2\n".encode("utf-16-le") + b"\x00\xd8")  # a lone surrogate
    with pytest.raises(ParseError) as exc:
        read_text(odd)
    assert str(exc.value) == f"{odd}:3: not UTF-16LE text, although it starts with a UTF-16LE byte-order mark"
    assert exc.value.hint == "save the file as UTF-8"


@pytest.mark.parametrize("name", POWERSHELL_EXPORTS, ids=lambda n: n[:2])
def test_cli_notes_the_encoding_once_and_reads_the_export(name, envkit_cli, tmp_path):
    from conftest import CORPUS

    path = CORPUS / name
    note = f"note: {path}: read as UTF-16LE (it starts with a UTF-16LE byte-order mark)\n"
    r = envkit_cli("validate", str(path))
    assert (r.exit_code, r.stderr) == (0, note)
    assert r.stdout.startswith(f"ok: {path}: environment export, ")
    r = envkit_cli("diff", str(path), str(path))  # read twice, noted once
    assert (r.exit_code, r.stderr) == (0, note)
    assert "Same: no differences" in r.stdout
    out = tmp_path / "environment.yml"
    r = envkit_cli("normalize", str(path), "-o", str(out))
    assert (r.exit_code, r.stderr) == (0, note)
    assert out.read_bytes().decode("utf-8") == out.read_text() and "\r" not in out.read_text()  # UTF-8, LF
    r = envkit_cli("check", "-", input=path.read_bytes())
    assert r.stderr.startswith("note: <stdin>: read as UTF-16LE")


def test_library_reads_say_nothing(capsys):
    from conftest import CORPUS

    from envkit.formats import read_file

    read_file(CORPUS / POWERSHELL_EXPORTS[0])
    assert capsys.readouterr() == ("", "")
