"""Property tests (Hypothesis): match specs, names, channels, pip entries and format round trips."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.hostilefiles import BAD_HASHES, HOSTILE

from envkit.conda.channels import parse_channel
from envkit.conda.matchspec import format_spec, parse_spec
from envkit.conda.names import pep503
from envkit.errors import EnvkitError
from envkit.formats import read_text
from envkit.formats.canonical import normalize_spec, normalize_text
from envkit.formats.condalock import read_conda_lock, sort_lock, write_conda_lock
from envkit.formats.envyml import channel_out, read_env, write_env
from envkit.formats.pipreq import parse_pip_entry
from envkit.model import EnvSpec, Lock, LockedPackage

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.from_regex(r"[a-z][a-z0-9]{0,6}(?:[-_.][a-z0-9]{1,5}){0,2}", fullmatch=True)
nums = st.integers(min_value=0, max_value=30).map(str)
versions = st.lists(nums, min_size=1, max_size=4).map(".".join)
builds = st.from_regex(r"(?:py3[0-9]{1,2}h[0-9a-f]{6}_[0-9]|[a-z]{1,4}_[0-9]|[0-9])", fullmatch=True)
channels = st.sampled_from(["conda-forge", "pytorch", "nvidia", "bioconda", "nvidia/label/cuda-11.8.0"])
platforms = st.sampled_from(["linux-64", "osx-arm64", "win-64", "linux-aarch64"])


@st.composite
def conda_specs(draw):
    name = draw(names)
    form = draw(st.integers(0, 7))
    v, v2 = draw(versions), draw(versions)
    text = {
        0: name,
        1: f"{name}={v}",
        2: f"{name}=={v}",
        3: f"{name}={v}={draw(builds)}",
        4: f"{name}>={v},<{v2}",
        5: f"{name} >={v}",
        6: f"{name}=*={draw(builds)}",
        7: f"{name}={v}.*",
    }[form]
    if draw(st.booleans()):
        text = f"{draw(channels)}::{text}"
    return text


@SETTINGS
@given(conda_specs())
def test_match_spec_canonical_form_is_a_fixpoint(text):
    dep = parse_spec(text)
    canonical = format_spec(dep)
    again = parse_spec(canonical)
    assert again == dep
    assert format_spec(again) == canonical


@SETTINGS
@given(st.from_regex(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,12}[A-Za-z0-9])?", fullmatch=True))
def test_pep503_is_idempotent_and_canonical(name):
    key = pep503(name)
    assert pep503(key) == key
    assert key == key.lower() and "_" not in key and "." not in key and "--" not in key


CHANNEL_FORMS = {  # as written -> the credential's placeholder in the written-back form
    "https://conda.anaconda.org/t/{tok}/{ch}": "/t/<TOKEN>/",
    "https://u:{tok}@mirror.example/{ch}": "<USER>:<PASSWORD>@",
    "https://{tok}@mirror.example/{ch}/": "https://<TOKEN>@",
    "https://mirror.example/{ch}?token={tok}": "?token=<TOKEN>",
    "https://u:{tok}@conda.anaconda.org/t/{tok}/{ch}/noarch": (
        "<USER>:<PASSWORD>@conda.anaconda.org/t/<TOKEN>/"
    ),
    "https://conda.anaconda.org/{ch}/": "",
    "{ch}": "",
    "https://conda.anaconda.org/{ch}/linux-64": "",
}


@SETTINGS
@given(channels, st.from_regex(r"[A-Za-z0-9]{4,16}", fullmatch=True), st.sampled_from(sorted(CHANNEL_FORMS)))
# issue 40: a 400 KB channel made the credential patterns rescan it from every position (minutes)
@example("a" * 400_000, "tok3n42", "https://u:{tok}@mirror.example/{ch}")
@example("a" * 400_000, "tok3n42", "https://mirror.example/{ch}?token={tok}")
def test_channels_canonical_and_redacted(ch, tok, pattern):
    raw = pattern.format(tok=tok, ch=ch)
    parsed = parse_channel(raw)
    out = channel_out(parsed)
    assert tok not in out and tok not in parsed.name and tok not in parsed.url
    assert CHANNEL_FORMS[pattern] in out and out.endswith(ch) == ("?" not in out)
    assert parse_channel(out) == parsed
    assert channel_out(parse_channel(out)) == out


pip_texts = st.one_of(
    st.builds(lambda n, v: f"{n}=={v}", names, versions),
    st.builds(lambda n, v, w: f"{n}>={v},<{w}", names, versions, versions),
    st.builds(lambda n, e: f"{n}[{e}]", names, names),
    st.builds(lambda n, v: f"{n}>={v}; python_version < '3.12'", names, versions),
    st.builds(lambda n: f"git+https://github.com/o/{n}.git@main#egg={n}", names),
    st.builds(lambda n, v: f"-e ./src/{n}", names, versions),
    # pip's hash-checking mode: a --hash pip verifies (sha256, 64 hex digits), read and written back
    st.builds(
        lambda n, v, h: f"{n}=={v} --hash=sha256:{h}",
        names,
        versions,
        st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
    ),
    st.sampled_from(
        ["--pre", "-r requirements.txt", "--extra-index-url https://download.pytorch.org/whl/cu121"]
    ),
)


@SETTINGS
@given(pip_texts)
def test_pip_entry_text_is_a_fixpoint(text):
    dep = parse_pip_entry(text)
    again = parse_pip_entry(dep.text)
    assert again == dep


@st.composite
def env_specs(draw):
    conda = tuple(parse_spec(t) for t in draw(st.lists(conda_specs(), max_size=8)))
    pip = tuple(parse_pip_entry(t) for t in draw(st.lists(pip_texts, max_size=6)))
    chans = tuple(parse_channel(c) for c in draw(st.lists(channels, max_size=3, unique=True)))
    variables = tuple(
        draw(
            st.dictionaries(
                st.from_regex(r"[A-Z][A-Z0-9_]{0,8}", fullmatch=True),
                st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12),
                max_size=3,
            )
        ).items()
    )
    return EnvSpec(
        name=draw(st.none() | names),
        channels=chans,
        conda=conda,
        pip=pip,
        variables=variables,
        has_pip_section=bool(pip) or draw(st.booleans()),
        platforms=tuple(draw(st.lists(platforms, max_size=2, unique=True))),
    )


@SETTINGS
@given(env_specs())
def test_environment_yml_round_trip(spec):
    text = write_env(spec)
    again = read_env(text)
    assert again.conda == spec.conda and again.pip == spec.pip
    assert (again.name, again.channels, again.variables, again.platforms) == (
        spec.name,
        spec.channels,
        spec.variables,
        spec.platforms,
    )
    assert write_env(again) == text


@SETTINGS
@given(env_specs())
def test_normalize_is_idempotent_and_reparses_to_the_normalized_model(spec):
    text = write_env(spec)
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert read_env(once).conda == normalize_spec(read_env(text)).conda
    assert read_env(once).pip == normalize_spec(read_env(text)).pip


@st.composite
def locks(draw):
    plats = tuple(draw(st.lists(platforms, min_size=1, max_size=3, unique=True)))
    pkgs = []
    for plat in plats:
        for name in draw(st.lists(names, max_size=6, unique=True)):
            v, b = draw(versions), draw(builds)
            sub = draw(st.sampled_from([plat, "noarch"]))
            deps = tuple(
                (n, s)
                for n, s in draw(
                    st.lists(
                        st.tuples(names, st.sampled_from(["", ">=1", "1.2.*"])),
                        max_size=3,
                        unique_by=lambda t: t[0],
                    )
                )
            )
            pkgs.append(
                LockedPackage(
                    manager="conda",
                    name=name,
                    version=v,
                    build=b,
                    channel="conda-forge",
                    platform=plat,
                    subdir=sub,
                    url=f"https://conda.anaconda.org/conda-forge/{sub}/{name}-{v}-{b}.conda",
                    md5="0" * 32,
                    sha256=draw(st.none() | st.just("f" * 64)),
                    depends=deps,
                )
            )
        if draw(st.booleans()):
            pkgs.append(
                LockedPackage(
                    manager="pip",
                    name="torch",
                    version="2.3.1",
                    platform=plat,
                    url="https://files.pythonhosted.org/t/torch-2.3.1-py3-none-any.whl",
                    sha256="e" * 64,
                )
            )
    return Lock(
        kind="conda-lock",
        platforms=plats,
        packages=tuple(pkgs),
        channels=(parse_channel("conda-forge"),),
        content_hash=tuple((p, "a" * 64) for p in plats),
        sources=("environment.yml",),
    )


@SETTINGS
@given(locks())
def test_conda_lock_round_trip(lock):
    text = write_conda_lock(lock)
    assert read_conda_lock(text) == sort_lock(lock)
    assert write_conda_lock(read_conda_lock(text)) == text


yaml_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)  # controls too: escaped
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=False) | yaml_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(yaml_text, inner, max_size=3),
    max_leaves=10,
)


@SETTINGS
@given(
    locks(),
    st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True).filter(
            lambda k: k not in ("content_hash", "channels", "platforms", "sources", "version")
        ),
        json_values,
        max_size=3,
    ),
)
def test_conda_lock_metadata_sections_round_trip(lock, extra):
    # a metadata key conda-lock's schema lacks is kept in custom_metadata (conda-lock forbids other
    # keys; its custom values are strings) under `conda-lock.KEY`, and stays there
    import json
    from dataclasses import replace

    from envkit.formats._util import to_json

    lock = replace(lock, metadata=tuple((k, to_json(v)) for k, v in extra.items()))
    text = write_conda_lock(lock)
    custom = {
        f"conda-lock.{k}": v if isinstance(v, str) else json.dumps(v, sort_keys=True)
        for k, v in extra.items()
    }
    expected = (("custom_metadata", json.dumps(custom, ensure_ascii=False, separators=(",", ":"))),)
    assert read_conda_lock(text).metadata == (expected if extra else ())
    assert write_conda_lock(read_conda_lock(text)) == text


#: what each reader's document nests, `{}` standing for the nested part, and the levels open around
#: it that are not brackets (YAML's block mappings, TOML's document table)
_NESTS = {
    "environment.yml": ("name: t\ndependencies:\n  - python\nx: {}\n", "[", "]", 1),
    "conda-lock.yml": ("version: 1\nmetadata:\n  x: {}\npackage: []\n", "{a: ", "}", 2),
    "pixi.lock": ("version: 6\nenvironments:\n  default: {}\npackages: []\n", "[", "]", 2),
    "conda-list.json": ("[{}]", "[", "]", 0),
    "pylock.toml": ('lock-version = "1.0"\nx = {}\n', "[", "]", 1),
    "uv.lock": ("version = 1\nx = {}\n", "{a = ", "}", 1),
}


@st.composite
def nested_documents(draw):
    """(file name, text) of a document of one of the readers' formats nesting 1 to 200 levels."""
    file_name = draw(st.sampled_from(sorted(_NESTS)))
    frame, opening, closing, _ = _NESTS[file_name]
    depth = draw(st.integers(1, 200))
    return file_name, frame.replace("{}", opening * depth + "1" + closing * depth, 1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nested_documents())
@example(HOSTILE["alias-cycle-env"])
@example(HOSTILE["alias-cycle-conda-lock"])
@example(HOSTILE["alias-cycle-pixi"])
@example(HOSTILE["billion-laughs-env"])
@example(HOSTILE["deep-json"])
@example(HOSTILE["deep-toml-arrays"])
@example(HOSTILE["deep-toml-tables"])
def test_every_reader_reads_or_refuses_deep_and_aliased_documents(document):
    # a document is read, or refused with a ParseError naming its file: never a RecursionError, a
    # hang or memory without bound; nesting deeper than 64 levels is refused in every format
    file_name, text = document
    try:
        read_text(text, filename=file_name)
    except EnvkitError as exc:  # a ParseError, or a lock without the environment read
        assert exc.where is not None and exc.where.file == file_name, str(exc)
        nested_error = "nested more than 64 levels" in str(exc) or "maximum nesting depth" in str(exc)
        assert nested_error == (_depth(file_name, text) > 64), str(exc)
        assert exc.where.line or not nested_error
    else:
        assert _depth(file_name, text) <= 64


def _depth(file_name: str, text: str) -> int:
    """How deep the collections of `text` nest (the generated documents have no string holding a
    bracket; the hostile ones nest in brackets only)."""
    deepest = depth = _NESTS[file_name][3]
    for c in text:
        depth += (c in "[{") - (c in "]}")
        deepest = max(deepest, depth)
    return deepest


@SETTINGS
@given(names, versions, st.text("0123456789abcdefXYZ:", max_size=70))
@example("pkg", "1.0", BAD_HASHES[0].removeprefix("sha256:"))
@example("pkg", "1.0", BAD_HASHES[1].removeprefix("sha256:"))
@example("pkg", "1.0", BAD_HASHES[2].removeprefix("sha256:"))
@example("pkg", "1.0", "")
def test_a_pip_hash_pip_cannot_verify_is_refused(name, version, digest):
    """A `--hash` that is not sha256/384/512 with that many hex digits (`create` refuses it): an
    InvalidSpecError naming the entry, never accepted (issue 40: `validate` took `sha256:abc`)."""
    from envkit.errors import InvalidSpecError
    from envkit.formats._digest import pip_hash_problem

    text = f"{name}=={version} --hash=sha256:{digest}"
    if pip_hash_problem(f"sha256:{digest}") is None:  # 64 hex digits (Hypothesis finds them rarely)
        assert parse_pip_entry(text).text == text
        return
    with pytest.raises(InvalidSpecError, match=r"--hash="):
        parse_pip_entry(text)
