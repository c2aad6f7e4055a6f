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
