"""Property tests (Hypothesis) seeded with the hostile inputs of tests/support/hostilefiles.py that
once ended in exit 3, a hang or a silent misreading: lock entries conda cannot link, a 400 KB
channel, truncated and mistyped conda-meta records.  Each is refused with an EnvkitError naming the
file (and line or key), or read; never another exception."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.hostilefiles import (
    BAD_LOCK_ENTRIES,
    BAD_RECORDS,
    LONG_CHANNEL,
    LONG_CHANNEL_SCHEMES,
    _lock_entry,
)

from envkit.errors import EnvkitError, ParseError

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: characters of names, versions and URLs that YAML reads as plain text, path characters included
_PLAIN = st.text(st.sampled_from("abcz019._-+/!~"), min_size=1, max_size=12).map(lambda s: "x" + s)
_URLS = st.sampled_from(
    [
        "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h4ab18f5_1.conda",
        "https://conda.anaconda.org/conda-forge/linux-64/",
        "https://conda.anaconda.org/conda-forge/linux-64/zlib.zip",
        "https://conda.anaconda.org/conda-forge/linux-64/../../zlib-1.3.1-0.tar.bz2",
    ]
)


@SETTINGS
@given(_PLAIN, _PLAIN, _URLS)
@example(*BAD_LOCK_ENTRIES["name-escapes"][0])
@example(*BAD_LOCK_ENTRIES["version-escapes"][0])
@example(*BAD_LOCK_ENTRIES["url-not-an-archive"][0])
def test_a_lock_entry_conda_cannot_link_is_a_lock_error(name, version, url):
    from envkit.create import to_repodata_records
    from envkit.formats.condalock import read_conda_lock

    lock = read_conda_lock(_lock_entry(name, version, url), filename="conda-lock.yml")
    try:
        to_repodata_records(list(lock.packages), "linux-64", source="conda-lock.yml")
    except ParseError as exc:
        assert (exc.where.file, exc.where.line) == ("conda-lock.yml", 8), str(exc)
        assert exc.where.key in ("name", "version", "build", "url"), str(exc)
        assert str(exc).endswith("nothing was installed") or "nothing was installed" in exc.message


def test_the_issues_lock_entries_name_their_key():
    from envkit.create import to_repodata_records
    from envkit.formats.condalock import read_conda_lock

    for entry, key in BAD_LOCK_ENTRIES.values():
        lock = read_conda_lock(_lock_entry(*entry), filename="conda-lock.yml")
        try:
            to_repodata_records(list(lock.packages), "linux-64", source="conda-lock.yml")
        except ParseError as exc:
            assert (exc.where.line, exc.where.key) == (8, key)
        else:
            raise AssertionError(f"{entry} was accepted")


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["http:", "https://", "a", "@", ":", "/", "t/", "tok", "?token=x", "%40"]),
        max_size=60,
    )
)
@example([LONG_CHANNEL])
@example([LONG_CHANNEL_SCHEMES])
@example(["https://user:", "a" * 200_000, "@host/conda-forge"])
def test_stripping_credentials_ends_at_any_length(pieces):
    from envkit.urls import strip_credentials

    text = "".join(pieces)
    # bounded and linear: it ends, only removes, and one pass removes all
    once = strip_credentials(text)
    assert len(once) <= len(text)
    assert strip_credentials(once) == once


_RECORD = {
    "name": "zlib",
    "version": "1.3.1",
    "build": "h4ab18f5_1",
    "build_number": 0,
    "channel": "https://conda.anaconda.org/conda-forge/linux-64",
    "subdir": "linux-64",
    "url": "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h4ab18f5_1.conda",
    "depends": [],
    "files": [],
}
_WRONG = st.sampled_from([5, 1.5, True, None, [], {}, [5], {"a": 1}, "x"])


@st.composite
def bad_records(draw):
    """The text of a conda-meta record cut short, or with one field of another JSON type."""
    full = json.dumps(_RECORD)
    if draw(st.booleans()):
        return full[: draw(st.integers(0, len(full) - 1))]
    key = draw(st.sampled_from(sorted(_RECORD)))
    return json.dumps({**_RECORD, key: draw(_WRONG)})


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(bad_records())
@example(BAD_RECORDS["truncated"][0])
@example(BAD_RECORDS["name-is-a-number"][0])
def test_a_truncated_or_mistyped_record_is_refused_naming_it(tmp_path_factory, text):
    from envkit.backends import open_env

    prefix = tmp_path_factory.mktemp("env")
    (prefix / "conda-meta").mkdir()
    record = prefix / "conda-meta" / "zlib-1.3.1-h4ab18f5_1.json"
    record.write_text(text)
    try:
        env = open_env(prefix=str(prefix))
    except EnvkitError as exc:
        assert exc.where is not None and exc.where.file == str(record), str(exc)
        assert "corrupt conda package record" in exc.message
        for name, (seed, said) in BAD_RECORDS.items():
            if text == seed:
                assert str(exc).startswith(f"{record}{said}"), (name, str(exc))
    else:
        # a field of another type that the record may hold (a null `url`, `build_number` true...)
        assert len(env.packages) == 1
