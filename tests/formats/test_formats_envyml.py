"""environment.yml reading and writing (hand-written specs and `conda env export`)."""

from __future__ import annotations

import pytest
from conftest import CORPUS, DATA, corpus_files, known_wrong

from envkit.errors import InvalidSpecError, ParseError
from envkit.formats import read_file, read_text, write_text
from envkit.formats.envyml import read_env, write_env


def _export_lock(spec, platform=None):
    """An export's resolved view, as the Lock convert and diff read."""
    from envkit.model import resolved_view

    view = resolved_view(spec, platform)
    assert view is not None and view.lock is not None
    return view.lock


def test_reads_every_part_of_a_hand_written_spec():
    spec = read_file(DATA / "normalize" / "messy-environment.yml")
    assert spec.kind == "spec"
    assert spec.name == "train"
    assert spec.prefix == "/home/alice/miniconda3/envs/train"
    assert [c.name for c in spec.channels] == ["conda-forge", "private-chan", "defaults"]
    assert spec.channels[1].had_credentials is True
    assert "tk-1234abcd" not in repr(spec)
    assert [d.spec() for d in spec.conda] == [
        "numpy>=1.26,<2",
        "python=3.11",
        "conda-forge::scipy",
        "pip",
        "numpy>=1.26,<2",
    ]
    assert [p.text for p in spec.pip] == [
        "torch==2.3.1",
        "--extra-index-url https://<USER>:<PASSWORD>@pypi.example.com/simple",
        "Pillow>=9",
        "requests",
        "requests",
    ]
    assert spec.variables == (("OMP_NUM_THREADS", "4"),)
    assert spec.line_of("dependencies") == 3 and spec.line_of("pip") == 4
    assert spec.conda[0].line == 11


def test_channel_prefix_brackets_nodefaults_and_platforms():
    spec = read_file(CORPUS / "01_FSadrieh__BERTchen__environment.yml")
    assert [c.name for c in spec.channels] == ["conda-forge", "nvidia", "nodefaults"]
    torch = spec.conda_by_name()["pytorch"]
    assert (torch.channel, torch.version) == ("pytorch", "2.1.0.*")
    assert spec.platforms == ("linux-64", "osx-arm64", "win-64")
    assert spec.pip[2].name == "print-on-steroids" and spec.pip[2].extras == ("exceptions",)


def test_export_is_detected_and_converts_to_a_lock():
    spec = read_file(CORPUS / "37_Fury1__DeepRL-Tennis__environment.yml")  # CRLF, Windows export
    assert spec.kind == "export"
    assert spec.prefix == r"C:\Users\Fury\Miniconda3\envs\drlnd"
    lock = _export_lock(spec, "win-64")
    assert lock.kind == "export" and lock.platforms == ("win-64",)
    torch = next(p for p in lock.packages if p.name == "pytorch")
    assert (torch.version, torch.build, torch.platform) == ("0.4.1", "py36_cuda90_cudnn7he774522_1", "win-64")


def test_no_builds_export_with_prefix_is_an_export():
    spec = read_file(CORPUS / "26_WikiGenius__NeRF-SLAM__environment.yml")
    assert spec.kind == "export"
    lock = _export_lock(spec)
    assert all(p.build is None for p in lock.packages if p.manager == "conda")
    assert lock.platforms == ()


def test_export_keeps_unpinned_pip_entries():
    lock = _export_lock(read_file(CORPUS / "25_CORE-SNU__CANVAS__environment_full.yml"), "linux-64")
    gdown = [p for p in lock.packages if p.name == "gdown"]
    assert len(gdown) == 1 and gdown[0].manager == "pip" and gdown[0].version == ""


def test_from_history_export_is_a_spec():
    assert read_file(CORPUS / "28_SatoshiYamazaki__TransFG__env_export.yml").kind == "spec"


def test_legacy_pip_pin_is_kept_as_text():
    spec = read_file(CORPUS / "18_MKorablyov__LambdaZero__environment-linux.yml")
    scatter = next(p for p in spec.pip if p.name == "torch-scatter")
    assert (scatter.kind, scatter.text, scatter.specifier) == (
        "requirement",
        "torch-scatter==latest+cu101",
        "",
    )


@pytest.mark.parametrize("text", ["numpy>=>1", "numpy==<2", "torch>=1.0,<=>2", "pkg==*"])
def test_an_operator_typo_is_not_a_legacy_pin(text):
    # the legacy-pin fallback once took `numpy>=>1` as version '>1' and normalize wrote it back
    with pytest.raises(InvalidSpecError) as err:
        read_env(f"dependencies:\n  - pip:\n    - {text}\n", "environment.yml")
    assert str(err.value).startswith(f"environment.yml:3: invalid pip requirement '{text}': ")


def test_per_requirement_options_stay_with_the_entry():
    spec = read_file(CORPUS / "03_JonasGeiping__breaching__environment.yml")
    kmc = next(p for p in spec.pip if p.name == "k-means-constrained")
    assert kmc.text == "k-means-constrained --no-binary 0.6.0"


def test_bad_match_spec_names_file_line_and_text():
    with pytest.raises(InvalidSpecError) as err:
        read_file(DATA / "normalize" / "bad-spec.yml")
    assert str(err.value) == (
        "{}:7: invalid match spec 'numpy>=1.2,,<2': unable to parse version spec: >=1.2,,<2"
    ).format(DATA / "normalize" / "bad-spec.yml")


def test_bad_pip_requirement_names_line():
    text = "dependencies:\n  - pip\n  - pip:\n    - requests\n    - numpy>=1.2,,<2\n"
    with pytest.raises(InvalidSpecError) as err:
        read_env(text, "environment.yml")
    assert str(err.value).startswith("environment.yml:5: invalid pip requirement 'numpy>=1.2,,<2'")


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "empty environment file"),
        ("- a\n- b\n", "an environment file must be a mapping, got a list"),
        (
            "dependencies:\n  - {conda: [x]}\n",
            "unknown section 'conda' in dependencies (only `pip:` is allowed)",
        ),
        ("dependencies:\n  - 3\n", "a dependency must be a match spec, got int 3"),
        ("channels: conda-forge\n", "`channels:` must be a list, got text 'conda-forge'"),
    ],
)
def test_structural_errors(text, message):
    with pytest.raises(ParseError) as err:
        read_env(text, "e.yml")
    assert err.value.message == message


def test_duplicate_key_names_both_lines():
    with pytest.raises(ParseError) as err:
        read_env("name: a\ndependencies:\n  - x\ndependencies:\n  - y\n", "e.yml")
    assert "duplicate key 'dependencies': first at line 2, again at line 4" in str(err.value)


def test_unknown_top_level_keys_are_kept():
    spec = read_env("name: a\ndescription: my env\nextras:\n  k: [1, 2]\ndependencies:\n  - x\n")
    assert spec.extra == (("description", '"my env"'), ("extras", '{"k":[1,2]}'))
    text = write_env(spec)
    assert "description: my env\nextras:\n  k:\n    - 1\n    - 2\n" in text
    assert read_env(text) == spec


def test_unknown_keys_with_any_value_read_back_the_same():
    text = (
        'name: a\nmeta:\n  big: 1.0e+20\n  none: null\n  ctl: "a\\x7fb\\u2028"\n  nested:\n    - [1, [2]]\n'
        "    - {x: 1.5}\n    - {}\ndependencies:\n  - x\n"
    )
    spec = read_env(text)
    assert spec.extra == (
        ("meta", '{"big":1e+20,"none":null,"ctl":"a\x7fb\u2028","nested":[[1,[2]],{"x":1.5},{}]}'),
    )
    out = write_env(spec)
    assert "\x7f" not in out and 'ctl: "a\\u007fb\\u2028"' in out
    assert read_env(out) == spec and write_env(read_env(out)) == out


#: environment files; the one `conda list --export` text among the "export" kind (a .lock) is read
#: as such in test_formats_locks
ENV_FILES = corpus_files("envyml") + [p for p in corpus_files("export") if p.suffix != ".lock"]


#: strict xfail until envkit reads them (then drop the entry)
KNOWN_WRONG: dict[str, str] = {}


@pytest.mark.parametrize("path", known_wrong(ENV_FILES, KNOWN_WRONG), ids=lambda p: p.name[:12])
def test_round_trip_on_corpus(path):
    spec = read_file(path)
    text = write_env(spec)
    again = read_text(text, filename=path.name, format="env")
    assert again == spec
    assert write_env(again) == text


def test_writer_key_order_and_quoting():
    spec = read_env(
        "variables: {B: 'yes', A: '1'}\nprefix: C:\\x y\ndependencies: [python >=3.10]\n"
        "channels: [conda-forge]\nname: n\n"
    )
    assert write_env(spec) == (
        "name: n\nchannels:\n  - conda-forge\ndependencies:\n  - python>=3.10\n"
        'variables:\n  B: "yes"\n  A: "1"\nprefix: "C:\\\\x y"\n'
    )


def test_write_text_writes_a_lock_as_an_export():
    lock = read_file(CORPUS / "46_CHARM-Tx__python-ci__environment.lock")
    out = write_text(lock, "env")
    assert out == "channels:\n  - main\ndependencies:\n  - pytz=2022.1=py39h06a4308_0\n"
    assert [c.name for c in read_env(out).channels] == ["main"]


@pytest.mark.parametrize(
    "entry, version, build",
    [
        ("pkk=1!1.0=h0_0", "1!1.0", "h0_0"),  # an epoch
        ("torch=2.0.1+cu118=py3.10_0", "2.0.1+cu118", "py3.10_0"),  # a local version
        ("openssl=1.1.1w=hd590300_0", "1.1.1w", "hd590300_0"),  # letters
        ("tzdata=2023c=h71feb2d_0", "2023c", "h71feb2d_0"),
        ("libjpeg=9_e=h0_0", "9_e", "h0_0"),  # an underscore
        ("conda-forge::pkk=12!3.4a1.post2=0", "12!3.4a1.post2", "0"),
    ],
)
def test_export_entries_with_any_legal_version_character(entry, version, build):
    spec = read_env(f"name: e\ndependencies:\n  - python=3.11.4=h0_0\n  - {entry}\n", "e.yml")
    assert spec.kind == "export"
    pkg = _export_lock(spec, "linux-64").packages[1]
    assert (pkg.version, pkg.build) == (version, build)


def test_no_builds_export_with_an_epoch_and_a_prefix():
    spec = read_env("name: e\ndependencies:\n  - pkk=1!1.0\n  - python=3.11.4\nprefix: /opt/e\n", "e.yml")
    assert spec.kind == "export"
    assert [p.version for p in _export_lock(spec).packages] == ["1!1.0", "3.11.4"]


@pytest.mark.parametrize("entry", ["pkk=1.0|2.0=h0", "pkk=1.*=h0", "pkk=1.0,<2=h0", "pkk=1.0=h0*"])
def test_operators_are_not_export_entries(entry):
    assert read_env(f"name: e\ndependencies:\n  - python=3.11.4=h0_0\n  - {entry}\n", "e.yml").kind == "spec"


@pytest.mark.parametrize("entry", ["pkk=!=1.0", "pkk=1!=1.0", "pkk=>1=h0", "pkk=1.0!=h0", "pkk=!1.0=h0"])
def test_a_bang_outside_an_epoch_is_no_export_version(entry):
    # conda refuses these specs anyway; the export pattern must not take `!` for a version part
    from envkit.model import EXPORT_ENTRY as _EXPORT_ENTRY

    assert _EXPORT_ENTRY.match(entry) is None


_EXPORT_A = """name: a
channels: [conda-forge]
dependencies:
  - python=3.10.12=hd12c33a_0_cpython
  - numpy=1.26.4=py310hb13e2d6_0
  - openssl=3.2.1=hd590300_1
  - mkl=2023.2.0=h84fe81f_50496
  - scipy=1.11.4=py310hb13e2d6_0
"""


def test_an_export_with_one_hand_added_loose_entry_is_still_an_export(envkit_cli, tmp_path):
    b = _EXPORT_A.replace("numpy=1.26.4", "numpy=2.0.0") + "  - pip\n"
    spec = read_env(b, "b.yml")
    assert spec.kind == "export"
    pip = [p for p in _export_lock(spec, "linux-64").packages if p.name == "pip"]
    assert [(p.manager, p.version, p.build) for p in pip] == [("conda", "", None)]
    (tmp_path / "a.yml").write_text(_EXPORT_A)
    (tmp_path / "b.yml").write_text(b)
    r = envkit_cli("diff", str(tmp_path / "a.yml"), str(tmp_path / "b.yml"))
    # ranked as two exports (not "spec B against A"), the loose line shown as added
    assert "(export, " in r.stdout.splitlines()[1] and "Spec B against A" not in r.stdout
    assert "numpy 1.x → 2.x" in r.stdout and "added (1): pip" in r.stdout


def test_two_loose_entries_in_an_export_of_163(tmp_path):
    spec = read_file(CORPUS / "34_ncsa__NEAT__dev-environment.yml")  # `- pytest` twice, by hand
    assert spec.kind == "export"
    pytest_pkgs = [p for p in _export_lock(spec).packages if p.name == "pytest"]
    assert [(p.version, p.line) for p in pytest_pkgs] == [("", 137), ("", 169)]


@pytest.mark.parametrize(
    "extra, kind",
    [
        ("", "spec"),  # 4 exact entries: too few to tell
        ("  - zlib=1.3=h0_0\n", "export"),  # 5 exact + 1 loose
        ("  - zlib=1.3=h0_0\n  - pip\n", "spec"),  # 5 exact + 2 loose: a hand-written file
    ],
)
def test_how_many_loose_entries_an_export_may_have(extra, kind):
    text = "dependencies:\n  - a=1=h0_0\n  - b=1=h0_0\n  - c=1=h0_0\n  - d=1=h0_0\n  - numpy>=1.2\n" + extra
    assert read_env(text, "e.yml").kind == kind
