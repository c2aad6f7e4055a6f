"""`envkit.urls.strip_credentials` as a property: one pass removes every credential, so a second
pass changes nothing, and no user part, `/t/` token or query secret survives, however nested
(`https://a:b@c:d@host`, a URL inside a query value); and the redaction envkit prints
(`envkit check`'s leaked-secret) hides every part of a nested user part."""

from __future__ import annotations

from conftest import run_envkit
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from envkit.urls import redact_url, strip_credentials

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_PIECES = st.sampled_from(
    ["http:", "https://", "://", "a", "t", "t/", "/t/", "@", ":", "/", "?", "&", "=", "#", " ", "%40",
     "tok", "?token=x", "&password=y", "u:p@", "git@"]
)  # fmt: skip


@SETTINGS
@given(st.lists(_PIECES, max_size=40))
@example(["https://", "http:", "@", "http:", "@", "x"])
@example(["https:", "/t/", "x", "/", "/", "u:p@", "h"])
@example(["https://", "?token=x", "/", "b", "&", "u:p@", "h"])
@example(["https://", "u:p@", "t/", "x", "/", "y"])
def test_one_pass_strips_everything(pieces):
    text = "".join(pieces)
    once = strip_credentials(text)
    assert strip_credentials(once) == once
    assert len(once) <= len(text)


# no `x`: `xxx` is a placeholder (an already redacted value), not a secret
_SECRET = st.text("abcdefghijklmnopqrstuvwy0123456789:", min_size=1, max_size=8).map(lambda s: "S" + s + "Q")


@SETTINGS
@given(st.lists(_SECRET, min_size=1, max_size=4), st.booleans(), st.booleans())
def test_no_secret_survives_in_a_nested_user_part(parts, t_token, inner_url):
    path = "/t/zzxtokzz/chan" if t_token else "/chan"
    query = "?u=https://zzyinzz:zzzinzz@mirror/x&token=zzqtokzz" if inner_url else ""
    url = "https://" + "@".join(parts) + "@host.example" + path + query
    stripped = strip_credentials(url)
    redacted, found = redact_url(url)
    assert found
    for out in (stripped, redacted):
        assert "zz" not in out, out
    assert stripped == "https://host.example/chan" + ("?u=https://mirror/x" if inner_url else "")


def test_concrete_urls():
    cases = {
        "https://a:b@c:d@host/x": "https://host/x",
        "https://user:tok@host/x?u=https://x:y@z": "https://host/x?u=https://z",
        "https://http:@http:@x": "https://x",
        "https://u:p@conda.example/t/tk-1/t/tk-2/chan": "https://conda.example/chan",
        "https://h/x?a=1&token=a&token=b": "https://h/x?a=1",
        "https://?token=a/b&u@h/c": "https://h/c",
        "https://u@t/x/y": "https://t/x/y",  # a host named t is no token path
        "/t/https://t/https://": "//t/https://",  # what the removal joins is a host: stripped once
        "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-0.conda": (
            "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-0.conda"
        ),
    }
    assert {u: strip_credentials(u) for u in cases} == cases
    assert redact_url("https://a:b@c:d@host/x") == ("https://<USER>:<PASSWORD>@host/x", True)
    assert redact_url("git+https://git@github.com/o/r") == ("git+https://git@github.com/o/r", False)
    assert redact_url("https://git@tok:en@host/x") == ("https://<USER>:<PASSWORD>@host/x", True)


def test_check_hides_every_part_of_a_nested_user_part(tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "name: x\nchannels:\n  - https://alice:pw1secret@bob:pw2secret@host.example/chan\n"
        "dependencies:\n  - python=3.11\n  - pip\n  - pip:\n"
        "    - --index-url https://user:tokA1@idx:tokB2@pypi.example/simple\n"
    )
    r = run_envkit("check", str(spec), "--format", "json")
    for secret in ("pw1secret", "pw2secret", "bob", "tokA1", "tokB2", "idx:"):
        assert secret not in r.stdout + r.stderr
    assert "https://<USER>:<PASSWORD>@host.example/chan" in r.stdout
    assert "https://<USER>:<PASSWORD>@pypi.example/simple" in r.stdout
