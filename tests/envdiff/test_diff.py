"""The pure diff core (envkit.envdiff) on models built here: classification, ranking, platforms,
spec checks, channels."""

from __future__ import annotations

import pytest

from envkit.envdiff import (
    blas_of,
    category_of,
    compare_versions,
    diff,
    guess_platform,
    is_platform_only,
    pick_platforms,
)
from envkit.errors import UsageError
from envkit.model import Channel, CondaDep, EnvSpec, LiveEnv, Lock, LockedPackage, PipDep


def P(name, version, build=None, *, manager="conda", channel="conda-forge", platform="linux-64"):
    if manager == "pip":
        channel = None
    return LockedPackage(
        manager=manager, name=name, version=version, build=build, channel=channel, platform=platform
    )


def lock(*pkgs, platforms=("linux-64",), channels=("conda-forge",), kind="conda-lock", pip_options=()):
    return Lock(
        kind=kind,
        platforms=tuple(platforms),
        packages=tuple(pkgs),
        channels=tuple(Channel(name=c) for c in channels),
        pip_options=tuple(pip_options),
    )


def by_name(d):
    return {c.name: c for c in d.changes}


BASE = (
    P("python", "3.11.8", "hab00c5b_0_cpython"),
    P("numpy", "1.26.4", "py311h64a7726_0"),
    P("zlib", "1.2.13", "hd590300_5"),
    P("requests", "2.31.0", "pyhd8ed1ab_0"),
)


def test_identical_locks_are_the_same():
    d = diff(lock(*BASE), lock(*BASE))
    assert d.same
    assert d.changes == ()
    assert [s.name for s in d.unchanged] == ["numpy", "python", "requests", "zlib"]
    assert d.summary()["changes"] == 0


def test_added_removed_upgraded_downgraded_rebuilt():
    a = lock(*BASE, P("six", "1.16.0", "pyh6c4a22f_0"))
    b = lock(
        P("python", "3.11.8", "hab00c5b_0_cpython"),
        P("numpy", "1.26.3", "py311h64a7726_0"),
        P("zlib", "1.2.13", "hd590300_6"),
        P("requests", "2.32.3", "pyhd8ed1ab_0"),
        P("idna", "3.7", "pyhd8ed1ab_0"),
    )
    d = diff(a, b)
    kinds = {c.name: c.kind for c in d.changes}
    assert kinds == {
        "six": "removed",
        "idna": "added",
        "numpy": "downgraded",
        "requests": "upgraded",
        "zlib": "rebuilt",
    }
    assert not d.same
    assert d.summary()["kinds"]["rebuilt"] == 1


def test_conda_version_order_not_string_order():
    # string order says 1.10 < 1.9; conda (and py-rattler) say 1.10 > 1.9
    d = diff(lock(P("foo", "1.9", "h0_0")), lock(P("foo", "1.10", "h0_0")))
    assert by_name(d)["foo"].kind == "upgraded"
    # conda order (py-rattler): dev < alpha < release < post; letters order after digits compare
    assert compare_versions("1.1.0h", "1.1.0i") == -1
    assert compare_versions("1.2.0a1", "1.2.0") == -1
    assert compare_versions("1.2.0dev1", "1.2.0") == -1
    assert compare_versions("1.2.0", "1.2.0.post1") == -1
    assert compare_versions("2024a", "2023c") == 1
    assert compare_versions("1.0", "1.0.0") == 0


def test_pip_versions_use_pep440_and_local_versions_are_variants():
    a = lock(P("torch", "2.2.2+cpu", manager="pip"), P("tqdm", "4.66.1", manager="pip"))
    b = lock(P("torch", "2.2.2+cu121", manager="pip"), P("tqdm", "4.66.10", manager="pip"))
    d = by_name(diff(a, b))
    assert d["torch"].kind == "variant"
    assert d["torch"].impact == "high"
    assert d["torch"].a.labels == ("cpu",) and d["torch"].b.labels == ("CUDA 12.1",)
    assert d["tqdm"].kind == "upgraded"


def test_cpu_vs_cuda_pytorch_is_a_high_variant_change_with_decoded_builds():
    a = lock(P("pytorch", "2.2.2", "py3.11_cpu_0", channel="pytorch"))
    b = lock(P("pytorch", "2.2.2", "py3.11_cuda12.1_cudnn8.9.2_0", channel="pytorch"))
    c = diff(a, b).changes[0]
    assert (c.kind, c.impact, c.group, c.category) == ("variant", "high", "matter", "torch")
    assert c.a.labels == ("cpu", "py3.11")
    assert c.b.labels == ("CUDA 12.1", "cuDNN 8.9.2", "py3.11")
    assert c.reason.startswith("PyTorch cpu build → CUDA 12.1 build")
    assert set(c.tags) >= {"variant", "torch"}


def test_mkl_vs_openblas():
    a = lock(
        P("libblas", "3.9.0", "20_linux64_mkl"),
        P("mkl", "2023.2.0", "h84fe81f_50496"),
        P("numpy", "1.26.4", "py311h64a7726_0"),
    )
    b = lock(
        P("libblas", "3.9.0", "20_linux64_openblas"),
        P("libopenblas", "0.3.27", "pthreads_h413a1c8_0"),
        P("numpy", "1.26.4", "py311h64a7726_0"),
    )
    d = diff(a, b)
    assert blas_of(a.packages) == "MKL" and blas_of(b.packages) == "OpenBLAS"
    ch = by_name(d)
    assert ch["libblas"].kind == "variant"
    for name in ("libblas", "mkl", "libopenblas"):
        assert ch[name].impact == "high"
        assert ch[name].reason == "different BLAS (MKL → OpenBLAS): numerical results and speed may differ"
    assert ("BLAS", "MKL", "OpenBLAS") in d.highlights
    # defaults' selector: blas=1.0=mkl vs blas=1.0=openblas
    d2 = diff(
        lock(P("blas", "1.0", "mkl", channel="pkgs/main")),
        lock(P("blas", "1.0", "openblas", channel="pkgs/main")),
    )
    assert d2.changes[0].kind == "variant" and "BLAS" in d2.changes[0].reason


def test_conda_to_pip_move_maps_pypi_names():
    a = lock(
        P("pytorch", "2.2.2", "py3.11_cuda12.1_cudnn8.9.2_0", channel="pytorch"),
        P("pyyaml", "6.0.1", "py311h459d7ec_1"),
        P("msgpack-python", "1.0.7", "py311h9547e67_0"),
        P("opencv", "4.9.0", "py311h0_0"),
    )
    b = lock(
        P("torch", "2.2.2", manager="pip"),
        P("PyYAML", "6.0.1", manager="pip"),
        P("msgpack", "1.0.8", manager="pip"),
        P("opencv-python", "4.9.0.80", manager="pip"),
    )
    ch = by_name(diff(a, b))
    assert set(ch) == {"pytorch", "pyyaml", "msgpack-python", "opencv"}
    assert all(c.kind == "manager" for c in ch.values())
    assert ch["pytorch"].impact == "high" and ch["pytorch"].b.name == "torch"
    assert "version" in ch["msgpack-python"].tags
    assert ch["pyyaml"].a.manager == "conda" and ch["pyyaml"].b.manager == "pip"
    # and back: pip on A, conda on B
    back = by_name(diff(b, a))
    assert back["pytorch"].kind == "manager" and back["pytorch"].a.manager == "pip"


def test_duplicates_on_one_side_only_are_changes_on_both_sides_are_not():
    both = lock(P("numpy", "1.26.4", "py311h64a7726_0"), P("numpy", "1.26.4", manager="pip"))
    single = lock(P("numpy", "1.26.4", "py311h64a7726_0"))
    d = diff(single, both)
    c = by_name(d)["numpy"]
    assert c.kind == "duplicate" and c.impact == "high" and c.b.manager == "pip"
    assert "on B only" in c.reason
    assert [x.project for x in d.duplicates_b] == ["numpy"] and d.duplicates_a == ()
    same = diff(both, both)
    assert same.same and [x.conda for x in same.duplicates_a] == ["numpy"]


def test_channel_changed():
    d = diff(
        lock(P("numpy", "1.26.4", "py311h0_0", channel="conda-forge")),
        lock(P("numpy", "1.26.4", "py311h0_0", channel="https://conda.anaconda.org/pytorch/linux-64")),
    )
    c = d.changes[0]
    assert c.kind == "channel" and c.a.channel == "conda-forge"
    assert "(conda-forge → https://conda.anaconda.org/pytorch/linux-64)" in c.reason
    # the same channel written as a URL is not a change
    d2 = diff(
        lock(P("zlib", "1.3", "h0_0", channel="conda-forge")),
        lock(P("zlib", "1.3", "h0_0", channel="https://conda.anaconda.org/conda-forge/")),
    )
    assert d2.same


def test_channel_list_and_order():
    a = lock(*BASE, channels=("pytorch", "nvidia", "conda-forge"))
    b = lock(*BASE, channels=("conda-forge", "pytorch", "nvidia"))
    d = diff(a, b)
    assert d.channels.order_changed and not d.channels.added and not d.channels.removed
    assert not d.same and d.changes == ()
    c = diff(a, lock(*BASE, channels=("pytorch", "conda-forge", "defaults"))).channels
    assert (c.added, c.removed, c.order_changed) == (("defaults",), ("nvidia",), False)
    assert diff(a, a).channels.changed is False


def test_channel_priority_and_pip_options():
    live = LiveEnv(
        prefix="/p",
        name="p",
        platform="linux-64",
        packages=BASE,
        channels=(Channel(name="conda-forge"),),
        channel_priority="strict",
    )
    live2 = LiveEnv(
        prefix="/q",
        name="q",
        platform="linux-64",
        packages=BASE,
        channels=(Channel(name="conda-forge"),),
        channel_priority="flexible",
    )
    d = diff(live, live2)
    assert d.channels.changed and (d.channels.priority_a, d.channels.priority_b) == ("strict", "flexible")
    a = lock(*BASE, pip_options=("--index-url https://download.pytorch.org/whl/cu121",))
    b = lock(*BASE, pip_options=("--index-url https://download.pytorch.org/whl/cpu",))
    assert diff(a, b).pip_options.changed and not diff(a, a).pip_options.changed


def test_channel_priority_is_reported_only_when_the_values_differ():
    from envkit.render.diff_markdown import render_markdown
    from envkit.render.diff_text import render_text

    def live(channels, priority):
        return LiveEnv(
            prefix="/p",
            name="p",
            platform="linux-64",
            packages=BASE,
            channels=tuple(Channel(name=c) for c in channels),
            channel_priority=priority,
        )

    # the channels differ, the priority does not: no `flexible → flexible` line
    d = diff(live(("conda-forge",), "flexible"), live(("conda-forge", "bioconda"), "flexible"))
    assert d.channels.changed and not d.channels.priority_changed
    text = render_text(d)
    assert "channel_priority" not in text and "only on B: bioconda" in text
    assert "channel_priority" not in render_markdown(d)
    assert "  channel_priority: flexible (both)\n" in render_text(d, show_all=True)
    # unknown on one side is not a difference either
    d = diff(live(("conda-forge",), "flexible"), lock(*BASE, channels=("bioconda",)))
    assert not d.channels.priority_changed and "channel_priority" not in render_text(d)
    d = diff(live(("conda-forge",), "strict"), live(("conda-forge",), "flexible"))
    assert "  channel_priority: strict → flexible\n" in render_text(d)
    assert "| channel_priority | strict | flexible |" in render_markdown(d)


def test_ranking_puts_python_torch_cuda_blas_first():
    a = lock(
        P("python", "3.10.14", "h0_cpython"),
        P("zlib", "1.2.13", "h0_0"),
        P("pytorch", "2.1.0", "py3.10_cpu_0", channel="pytorch"),
        P("aaa", "1", "h0_0"),
    )
    b = lock(
        P("python", "3.11.8", "h0_cpython"),
        P("zlib", "1.3.1", "h0_0"),
        P("pytorch", "2.2.2", "py3.11_cuda12.1_cudnn8.9.2_0", channel="pytorch"),
        P("aaa", "2", "h0_0"),
        P("cuda-version", "12.1", "h0_0"),
    )
    d = diff(a, b)
    assert [c.name for c in d.changes] == ["python", "pytorch", "cuda-version", "aaa", "zlib"]
    assert [c.group for c in d.changes] == ["matter", "matter", "matter", "other", "other"]
    assert d.changes[0].reason.startswith("a different Python (3.10 → 3.11)")


def test_numpy_major_is_high_minor_is_medium():
    d = by_name(diff(lock(P("numpy", "1.26.4", "py311h0_0")), lock(P("numpy", "2.0.1", "py311h0_0"))))
    assert d["numpy"].impact == "high" and "ABI break" in d["numpy"].reason
    d = by_name(diff(lock(P("numpy", "1.25.2", "py311h0_0")), lock(P("numpy", "1.26.4", "py311h0_0"))))
    assert d["numpy"].impact == "medium"


def test_platform_only_packages_are_grouped_when_platforms_differ():
    a = lock(
        P("libcxx", "16.0.6", "h4653b0c_0", platform="osx-arm64"),
        P("zlib", "1.2.13", "h53f4e23_5", platform="osx-arm64"),
        P("tqdm", "4.66.2", "pyhd8ed1ab_0", platform="osx-arm64"),
        platforms=("osx-arm64",),
    )
    b = lock(
        P("_libgcc_mutex", "0.1", "conda_forge"),
        P("libgcc-ng", "13.2.0", "h77fa898_7"),
        P("zlib", "1.2.13", "hd590300_5"),
        P("tqdm", "4.66.2", "pyhd8ed1ab_0"),
        P("tbb", "2021.12.0", "h0_0"),
    )
    d = diff(a, b)
    assert d.cross_platform
    groups = {c.name: c.group for c in d.changes}
    assert groups == {
        "libcxx": "platform",
        "_libgcc_mutex": "platform",
        "libgcc-ng": "platform",
        "zlib": "platform",
        "tbb": "other",
    }
    assert by_name(d)["zlib"].reason == "same version, built per platform"
    # on one platform, libgcc-ng changing is a compiler runtime that matters
    same_plat = diff(lock(P("libgcc-ng", "12.3.0", "h0_0")), lock(P("libgcc-ng", "13.2.0", "h0_0")))
    assert same_plat.changes[0].group == "matter" and "GLIBCXX" in same_plat.changes[0].reason


def test_categories_and_platform_only_names():
    assert category_of("pytorch") == "torch" and category_of("torch") == "torch"
    assert category_of("nvidia-cudnn-cu12") == "cudnn" and category_of("nvidia-nccl-cu12") == "nccl"
    assert category_of("libcublas") == "cuda" and category_of("nvidia-cublas-cu12") == "cuda"
    assert (
        category_of("libstdcxx-ng") == "compiler-runtime" and category_of("llvm-openmp") == "compiler-runtime"
    )
    assert category_of("libopenblas") == "blas" and category_of("requests") is None
    assert is_platform_only("xorg-libx11") and is_platform_only("ld_impl_linux-64")
    assert is_platform_only("vs2015_runtime") and not is_platform_only("numpy")


def test_multi_platform_lock_picks_the_other_sides_platform_else_host():
    multi = lock(
        P("zlib", "1.3", "h0_0", platform="linux-64"),
        P("zlib", "1.3", "h1_0", platform="osx-arm64"),
        platforms=("linux-64", "osx-arm64"),
    )
    single = lock(P("zlib", "1.3", "h1_0", platform="osx-arm64"), platforms=("osx-arm64",))
    assert pick_platforms(multi, single, host_platform="linux-64") == ("osx-arm64", "osx-arm64")
    assert diff(multi, single, host_platform="linux-64").same
    assert pick_platforms(multi, multi, host_platform="linux-64") == ("linux-64", "linux-64")
    assert pick_platforms(multi, multi, platform="osx-arm64") == ("osx-arm64", "osx-arm64")
    with pytest.raises(UsageError, match="has no platform win-64"):
        pick_platforms(multi, single, platform="win-64")
    with pytest.raises(UsageError, match="several platforms"):
        pick_platforms(multi, multi, host_platform="win-64")


def test_guess_platform_of_an_export():
    assert guess_platform([("ld_impl_linux-64", "h0_0")]) == "linux-64"
    assert guess_platform([("libblas", "22_osxarm64_accelerate")]) == "osx-arm64"
    assert guess_platform([("libcxx", "h0_0")]) == "osx"
    assert guess_platform([("vc", "h0_0")]) == "win"
    assert guess_platform([("zlib", "h0_0")], prefix="/Users/a/env") == "osx"
    assert guess_platform([("zlib", "h0_0")]) is None


def spec(*conda, pip=(), channels=("conda-forge",), kind="spec"):
    from envkit.conda.matchspec import parse_spec
    from envkit.formats.pipreq import parse_pip_entry

    return EnvSpec(
        name="x",
        channels=tuple(Channel(name=c) for c in channels),
        conda=tuple(parse_spec(s) for s in conda),
        pip=tuple(parse_pip_entry(p) for p in pip),
        kind=kind,
        has_pip_section=bool(pip),
    )


def test_spec_against_lock_in_both_directions():
    s = spec(
        "python=3.11",
        "numpy>=2",
        "scipy",
        "__cuda",
        "conda-forge::zlib",
        pip=["requests==2.31.0", "tqdm>=5", "torch", "rich; sys_platform == 'win32'"],
    )
    conc = lock(*BASE, P("tqdm", "4.66.2", manager="pip"), P("pytorch", "2.2.2", "py3.11_cpu_0"))
    for d, side in ((diff(s, conc), "a"), (diff(conc, s), "b")):
        assert d.spec_side == side
        status = {c.spec: c.status for c in d.spec_checks}
        assert status == {
            "python=3.11": "satisfied",
            "numpy>=2": "not-satisfied",
            "scipy": "missing",
            "__cuda": "skipped",
            "conda-forge::zlib": "satisfied",
            "requests==2.31.0": "satisfied",
            "tqdm>=5": "not-satisfied",
            "torch": "satisfied",
            'rich; sys_platform == "win32"': "skipped",
        }
        notes = {c.spec: c.note for c in d.spec_checks}
        assert notes["torch"] == "installed by conda as pytorch"
        assert notes["requests==2.31.0"] == "installed by conda"  # same name: no "as requests"
        assert [p.name for p in d.unmentioned] == []
        assert not d.same
    ok = diff(spec("python>=3.10", "numpy"), lock(*BASE))
    assert ok.same and [p.name for p in ok.unmentioned] == ["requests", "zlib"]


def test_spec_against_spec():
    a = spec("python=3.10", "numpy", pip=["torch==2.1.0"])
    b = spec("python=3.11", "numpy", "scipy", pip=["torch==2.2.2"])
    d = diff(a, b)
    assert {c.name: c.kind for c in d.changes} == {"python": "changed", "scipy": "added", "torch": "changed"}
    assert by_name(d)["python"].reason == "spec changed: python=3.10 → python=3.11"
    assert diff(a, a).same


def test_spec_against_spec_url_entries_are_shown_once():
    a = spec("numpy", pip=["git+https://github.com/x/y", "-e git+https://github.com/a/b#egg=bee"])
    b = spec("numpy", pip=["-e git+https://github.com/a/c#egg=bee"])
    ch = by_name(diff(a, b))
    url = ch["git+https://github.com/x/y"]
    assert (url.kind, url.a.version) == ("removed", "")  # the text is its name, not repeated
    assert ch["bee"].kind == "changed"
    assert ch["bee"].reason == (
        "spec changed: -e git+https://github.com/a/b#egg=bee → -e git+https://github.com/a/c#egg=bee"
    )
    from envkit.render.diff_text import render_text

    out = render_text(diff(a, b))
    assert "  removed (1): git+https://github.com/x/y [pip]\n" in out
    assert "Different: 2 packages differ (2 other).\n" in out


def test_blas_only_on_one_side_says_none_not_unknown():
    mkl = lock(
        P("blas", "1.0", "mkl", channel="pkgs/main"),
        P("mkl", "2021.4.0", "h06a4308_640"),
        P("numpy", "1.23.3", "py39h14f4228_0"),
        P("zlib", "1.2.13", "h0_0"),
    )
    bare = lock(P("zlib", "1.2.13", "h0_0"))
    assert (
        by_name(diff(mkl, bare))["mkl"].reason
        == "different BLAS (MKL → none): numerical results and speed may differ"
    )
    # a numpy whose BLAS envkit cannot tell is "unknown"
    odd = lock(P("numpy", "1.23.3", "py39h0_0"), P("zlib", "1.2.13", "h0_0"))
    assert (
        by_name(diff(odd, mkl))["mkl"].reason
        == "different BLAS (unknown → MKL): numerical results and speed may differ"
    )


def test_export_is_compared_as_concrete():
    a = spec("numpy=1.26.4=py311h64a7726_0", "libgcc-ng=13.2.0=h77fa898_7", kind="export")
    b = spec("numpy=1.26.3=py311h64a7726_0", "libgcc-ng=13.2.0=h77fa898_7", kind="export")
    d = diff(a, b)
    assert d.a.concrete and d.a.platform == "linux" and d.a.platform_guessed
    assert by_name(d)["numpy"].kind == "downgraded"


def test_variables_differ():
    a = LiveEnv(
        prefix="/p", name="p", platform="linux-64", packages=BASE, variables=(("OMP_NUM_THREADS", "1"),)
    )
    b = LiveEnv(prefix="/q", name="q", platform="linux-64", packages=BASE)
    d = diff(a, b)
    assert d.variables.changed and not d.same


def test_secret_variables_are_compared_but_never_shown():
    from envkit.render.diff_json import render_json
    from envkit.render.diff_markdown import render_markdown
    from envkit.render.diff_text import render_text

    a = LiveEnv(
        prefix="/p",
        name="p",
        platform="linux-64",
        packages=BASE,
        variables=(
            ("API_TOKEN", "hunter2"),
            ("OMP_NUM_THREADS", "4"),
            ("PIP_INDEX_URL", "https://u:s3cret@pypi.example.org/simple"),
        ),
    )
    b = LiveEnv(
        prefix="/q",
        name="q",
        platform="linux-64",
        packages=BASE,
        variables=(
            ("API_TOKEN", "hunter3"),
            ("OMP_NUM_THREADS", "4"),
            ("PIP_INDEX_URL", "https://u:other@pypi.example.org/simple"),
        ),
    )
    d = diff(a, b)
    assert d.variables.a == (
        "API_TOKEN=<TOKEN>",
        "OMP_NUM_THREADS=4",
        "PIP_INDEX_URL=https://<USER>:<PASSWORD>@pypi.example.org/simple",
    )
    assert d.variables.a == d.variables.b
    assert d.variables.secrets_changed == ("API_TOKEN", "PIP_INDEX_URL")
    assert d.variables.changed and not d.same
    for text in (render_text(d), render_json(d), render_markdown(d)):
        assert "hunter" not in text and "s3cret" not in text and "other@" not in text
    assert "  value changed (a credential, not shown): API_TOKEN, PIP_INDEX_URL\n" in render_text(d)
    # the same secret on both sides: the same
    assert diff(a, a).same and diff(a, a).variables.secrets_changed == ()
    # a real token against a placeholder (an export wrote it redacted) is unknown, not a change
    c = LiveEnv(
        prefix="/r",
        name="r",
        platform="linux-64",
        packages=BASE,
        variables=(
            ("API_TOKEN", "<TOKEN>"),
            ("OMP_NUM_THREADS", "4"),
            ("PIP_INDEX_URL", "https://u:s3cret@pypi.example.org/simple"),
        ),
    )
    assert diff(a, c).variables.secrets_changed == () and diff(a, c).variables.secrets_unknown == (
        "API_TOKEN",
    )
    assert diff(a, c).same and diff(c, a).same
    # against `${VAR}` the redacted texts differ
    e = LiveEnv(
        prefix="/r",
        name="r",
        platform="linux-64",
        packages=BASE,
        variables=(
            ("API_TOKEN", "${API_TOKEN}"),
            ("OMP_NUM_THREADS", "4"),
            ("PIP_INDEX_URL", "https://u:s3cret@pypi.example.org/simple"),
        ),
    )
    assert diff(a, e).variables.changed and diff(a, e).variables.secrets_unknown == ()


def test_pip_packages_against_a_format_that_cannot_record_them():
    explicit = lock(*BASE, kind="explicit")
    with_pip = lock(*BASE, P("rich", "13.7.1", manager="pip"), P("numpy", "1.26.4", manager="pip"))
    d = diff(with_pip, explicit)
    assert d.same and d.changes == ()
    assert d.pip_not_recorded.as_dict() == {"side": "b", "kind": "explicit", "skipped": 2}
    assert [(c.name, c.kind) for c in diff(lock(*BASE, kind="conda-lock"), with_pip).changes] == [
        ("numpy", "duplicate"),
        ("rich", "added"),
    ]
    # conda-lock's rendered explicit files carry `# pip` lines: those record pip packages
    rendered = lock(*BASE, P("rich", "13.7.1", manager="pip"), kind="explicit")
    d = diff(with_pip, rendered)
    assert d.pip_not_recorded is None and [(c.name, c.kind) for c in d.changes] == [("numpy", "duplicate")]
    # a spec's pip entries are skipped, not missing, against an explicit file
    d = diff(spec("python=3.11", pip=["rich>=13"]), explicit)
    assert [(c.name, c.status, c.note) for c in d.spec_checks] == [
        ("python", "satisfied", ""),
        ("rich", "skipped", "an explicit file cannot record pip packages"),
    ]


def test_diff_does_not_touch_its_inputs():
    pkgs = [P("b", "1", "h0_0"), P("a", "1", "h0_0")]
    a = lock(*pkgs)
    diff(a, lock(P("a", "2", "h0_0")))
    assert [p.name for p in a.packages] == ["b", "a"]


def test_dep_types_are_the_models():
    # the spec helper builds the real model types the format readers produce
    s = spec("numpy", pip=["x==1"])
    assert isinstance(s.conda[0], CondaDep) and isinstance(s.pip[0], PipDep)


def test_export_picks_its_platform_of_a_multi_platform_lock():
    exp = spec("libblas=3.9.0=22_osxarm64_accelerate", "zlib=1.3=h1_0", kind="export")
    multi = lock(
        P("libblas", "3.9.0", "22_osxarm64_accelerate", platform="osx-arm64"),
        P("zlib", "1.3", "h1_0", platform="osx-arm64"),
        P("zlib", "1.3", "h0_0", platform="linux-64"),
        platforms=("linux-64", "osx-arm64"),
    )
    d = diff(exp, multi, host_platform="linux-64")
    assert (d.a.platform, d.b.platform) == ("osx-arm64", "osx-arm64")
    assert d.a.platform_guessed and not d.b.platform_guessed
    assert d.changes == ()


def test_export_naming_only_its_os_family_takes_the_locks_platform_of_that_family():
    # `libcxx` says macOS but not which; the lock has both: the one sharing the export's builds wins
    exp = spec("libcxx=16.0.6=h4653b0c_0", "zlib=1.3=h1_0", kind="export")
    multi = lock(
        P("libcxx", "16.0.6", "h4653b0c_0", platform="osx-arm64"),
        P("zlib", "1.3", "h1_0", platform="osx-arm64"),
        P("libcxx", "16.0.6", "hd57cbcb_0", platform="osx-64"),
        P("zlib", "1.3", "h2_0", platform="osx-64"),
        P("zlib", "1.3", "h0_0", platform="linux-64"),
        platforms=("linux-64", "osx-64", "osx-arm64"),
    )
    assert pick_platforms(exp, multi, host_platform="linux-64") == ("osx-arm64", "osx-arm64")
    assert pick_platforms(multi, exp, host_platform="linux-64") == ("osx-arm64", "osx-arm64")
    d = diff(exp, multi, host_platform="linux-64")
    assert (d.a.platform, d.a.platform_guessed, d.b.platform) == ("osx-arm64", True, "osx-arm64")
    assert d.same
    # --platform of the export's family is taken by both sides; of another family only by the lock
    assert pick_platforms(exp, multi, platform="osx-64", host_platform="linux-64") == ("osx-64", "osx-64")
    assert pick_platforms(exp, multi, platform="linux-64", host_platform="linux-64") == (
        "osx-arm64",
        "linux-64",
    )
    # a lock without that family: the export keeps its family, the lock falls back to the host
    linux = lock(
        P("zlib", "1.3", "h0_0", platform="linux-64"),
        P("zlib", "1.3", "h9_0", platform="linux-aarch64"),
        platforms=("linux-64", "linux-aarch64"),
    )
    assert pick_platforms(exp, linux, host_platform="linux-64") == (None, "linux-64")


def test_same_version_variant_reasons_say_what_changed_not_a_version():
    a = lock(
        P("python", "3.11.8", "hab00c5b_0_cpython"),
        P("numpy", "1.26.4", "py311h64a7726_0"),
        P("mkl-service", "2.4.0", "py311h5eee18b_1", channel="pkgs/main"),
        P("cudnn", "8.9.2.26", "cuda11_0", channel="pkgs/main"),
    )
    b = lock(
        P("python", "3.12.2", "hab00c5b_0_cpython"),
        P("numpy", "1.26.4", "py312heda63a1_0"),
        P("mkl-service", "2.4.0", "py312h5eee18b_1", channel="pkgs/main"),
        P("cudnn", "8.9.2.26", "cuda12_0", channel="pkgs/main"),
    )
    ch = by_name(diff(a, b))
    # a package that only follows the Python change is not itself "likely to matter"
    assert (ch["numpy"].kind, ch["numpy"].impact, ch["numpy"].group, ch["numpy"].reason) == (
        "variant",
        "low",
        "other",
        "same version, built for another Python (py3.11 → py3.12)",
    )
    assert ch["mkl-service"].reason == "same version, built for another Python (py3.11 → py3.12)"
    # defaults' cudnn for CUDA 11 and for CUDA 12 (the major alone: `_0` is the build number)
    assert (ch["cudnn"].kind, ch["cudnn"].impact, ch["cudnn"].reason) == (
        "variant",
        "high",
        "same version, built for another GPU stack (CUDA 11 → CUDA 12)",
    )
    assert ch["python"].impact == "high"


def test_manager_change_reasons_name_the_versions_and_the_project():
    a = lock(
        P("pytorch", "2.2.1", "py3.12_cuda12.1_cudnn8.9.2_0", channel="pytorch"),
        P("numpy", "1.26.4", "py312hc5e2394_0"),
        P("six", "1.16.0", "pyh6c4a22f_0"),
    )
    b = lock(
        P("torch", "2.2.1", manager="pip"),
        P("numpy", "1.23.3", manager="pip"),
        P("six", "1.16.0", manager="pip"),
    )
    ch = by_name(diff(a, b))
    assert ch["pytorch"].reason == (
        "installed by conda on A, pip on B: PyTorch's pip wheels bundle "
        "their own CUDA libraries; pip's copy is invisible to the conda solver"
    )
    assert ch["numpy"].reason == (
        "1.26.4 → 1.23.3, installed by conda on A, pip on B: a different "
        "build (compiler flags, linked libraries); pip's copy is invisible "
        "to the conda solver"
    )
    assert (ch["six"].impact, ch["six"].reason) == (
        "low",
        "installed by conda on A, pip on B: pip's copy is invisible to the conda solver",
    )


def test_pytorch_release_and_accelerator_change_are_both_said():
    a = lock(P("pytorch", "2.2.1", "py3.12_cuda12.1_cudnn8.9.2_0", channel="pytorch"))
    b = lock(P("pytorch", "1.12.1", "py3.12_cuda11.6_cudnn8.3.2_0", channel="pytorch"))
    c = by_name(diff(a, b))["pytorch"]
    assert (c.kind, c.impact) == ("downgraded", "high")
    assert c.reason == (
        "PyTorch 2.2.1 → 1.12.1, CUDA 12.1 build → CUDA 11.6 build: GPU support, kernels and numerics differ"
    )


def test_defaults_numpy_base_is_numpy():
    assert category_of("numpy-base") == "numpy" and category_of("pytorch-base") == "torch"
    a = lock(
        P("numpy", "1.19.2", "py37h54aff64_0", channel="pkgs/main"),
        P("numpy-base", "1.19.2", "py37hfa32c7d_0", channel="pkgs/main"),
    )
    b = lock(P("numpy", "1.19.5", manager="pip"))
    ch = by_name(diff(a, b))
    assert ch["numpy"].kind == "manager"
    assert (ch["numpy-base"].kind, ch["numpy-base"].impact, ch["numpy-base"].reason) == (
        "removed",
        "medium",
        "numpy-base (the compiled part of defaults' numpy) only on A",
    )


def test_spec_entry_is_checked_against_pip_installed_over_conda():
    s = spec("pytorch>=1.10,<2.0", "numpy")
    conc = lock(
        P("pytorch", "1.13.1", "cuda112py39hb0b7ed5_200"),
        P("torch", "2.3.1", manager="pip"),
        P("numpy", "1.26.4", "py311h64a7726_0"),
        P("numpy", "1.26.4", manager="pip"),
    )
    d = diff(s, conc)
    checks = {c.spec: (c.status, c.found.version, c.note) for c in d.spec_checks}
    assert checks == {
        "pytorch>=1.10,<2.0": ("not-satisfied", "1.13.1", "pip's torch 2.3.1 is installed over it"),
        "numpy": ("satisfied", "1.26.4", "pip's numpy 1.26.4 is installed over it"),
    }
    assert not d.same and d.unmentioned == ()
    assert dict((label, b) for label, _a, b in d.highlights)["PyTorch"] == ("2.3.1 [pip] over conda's 1.13.1")


# ---------------------------------------------------------------------------------------------
# pip provenance: VCS commit, editable flag, URL


C1 = "3f1c0a9d0e7b6f2a1c4d5e6f7a8b9c0d1e2f3a4b"
C2 = "bbbbbbbccccccccccccccccccccccccccccccccc"
REPO = "https://github.com/me/mylib.git"


def live_pip(*pkgs, dists=(), prefix="/p"):
    from envkit.model import PipDist

    return LiveEnv(
        prefix=prefix,
        name="p",
        platform="linux-64",
        packages=BASE + tuple(pkgs),
        pip_dists=tuple(PipDist(**d) for d in dists),
    )


def pip_pkg(name, version, url=None, editable=False):
    return LockedPackage(
        manager="pip", name=name, version=version, platform="linux-64", url=url, editable=editable
    )


@pytest.mark.parametrize("form", ["direct_url", "git+url@commit"])
def test_a_vcs_commit_change_is_a_medium_rebuild_naming_both_commits(form):
    def side(commit):
        if form == "direct_url":  # today's live model: the URL, the commit in the PipDist
            return live_pip(
                pip_pkg("mylib", "0.3", REPO),
                dists=[dict(name="mylib", version="0.3", url=REPO, vcs="git", commit=commit)],
            )
        return live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{commit}"))

    d = diff(side(C1), side(C2))
    (c,) = d.changes
    assert (c.kind, c.impact, c.group) == ("rebuilt", "medium", "matter")
    assert "commit" in c.tags and not d.same
    assert c.reason == (
        "same version, another git commit (3f1c0a9 → bbbbbbb) of "
        "git+https://github.com/me/mylib.git: the code may differ"
    )
    assert (c.a.labels, c.b.labels) == (("git 3f1c0a9",), ("git bbbbbbb",))
    assert c.a.url == f"git+{REPO}@{C1}" and c.b.url == f"git+{REPO}@{C2}"
    assert diff(side(C1), side(C1)).same
    # either model form on either side: the same commit is the same install
    other = (
        live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"))
        if form == "direct_url"
        else live_pip(
            pip_pkg("mylib", "0.3", REPO),
            dists=[dict(name="mylib", version="0.3", url=REPO, vcs="git", commit=C1)],
        )
    )
    assert diff(side(C1), other).same
    # a short hash names the full one
    assert diff(side(C1), live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{C1[:7]}"))).same


def test_editable_flag_turned_off_is_a_source_change():
    a = live_pip(pip_pkg("tool", "0.1", "file:///home/me/src/tool", editable=True))
    b = live_pip(pip_pkg("tool", "0.1", "file:///home/me/src/tool"))
    (c,) = diff(a, b).changes
    assert (c.kind, c.impact, c.tags) == ("source", "medium", ("source",))
    assert c.reason == (
        "an editable install on A (runs the code in /home/me/src/tool as it is now), "
        "a regular install on B (a copy made when it was installed)"
    )
    assert (c.a.editable, c.b.editable, c.a.labels, c.b.labels) == (
        True,
        False,
        ("local", "editable"),
        ("local",),
    )
    (back,) = diff(b, a).changes
    assert back.reason.startswith("a regular install on A") and back.kind == "source"


def test_vcs_against_index_and_another_repository():
    vcs = live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"))
    index = live_pip(pip_pkg("mylib", "0.3"))
    (c,) = diff(vcs, index).changes
    assert c.kind == "source" and c.reason == (
        f"installed from git+{REPO}@3f1c0a9 on A, from a package index on B: the code may differ"
    )
    (c,) = diff(vcs, live_pip(pip_pkg("mylib", "0.3", f"git+https://github.com/fork/mylib@{C1}"))).changes
    assert c.kind == "source" and "from git+https://github.com/fork/mylib@3f1c0a9 on B" in c.reason
    # the same repository written with or without .git, another host case, a token: the same source
    assert diff(vcs, live_pip(pip_pkg("mylib", "0.3", f"git+https://GitHub.com/me/mylib@{C1}"))).same
    assert diff(
        live_pip(pip_pkg("mylib", "0.3", f"git+https://tok-123@github.com/me/mylib.git@{C1}")),
        live_pip(pip_pkg("mylib", "0.3", f"git+https://<TOKEN>@github.com/me/mylib.git@{C1}")),
    ).same


def test_a_version_change_keeps_its_kind_and_names_the_commit():
    a = live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"))
    b = live_pip(pip_pkg("mylib", "0.4", f"git+{REPO}@{C2}"))
    (c,) = diff(a, b).changes
    assert (c.kind, c.impact) == ("upgraded", "medium")
    assert set(c.tags) == {"version", "commit"}
    assert c.reason == "newer on B; another git commit (3f1c0a9 → bbbbbbb)"


def test_sources_are_compared_only_where_both_sides_record_them():
    vcs = live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"), pip_pkg("six", "1.16.0"))
    # `conda env export` writes every pip package as name==version: no source recorded at all
    conda_export = lock(*BASE, pip_pkg("mylib", "0.3"), pip_pkg("six", "1.16.0"), kind="export")
    assert diff(vcs, conda_export).same
    # a lock records an index package's artifact URL: not another source than an index install
    wheel = "https://files.pythonhosted.org/packages/xx/six-1.16.0-py2.py3-none-any.whl"
    locked = lock(*BASE, pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"), pip_pkg("six", "1.16.0", wheel))
    assert diff(vcs, locked).same
    # but a lock that records the VCS source of one and an index URL of the other does say so
    (c,) = diff(
        vcs,
        lock(
            *BASE,
            pip_pkg("mylib", "0.3", "https://example.org/mylib-0.3.tar.gz"),
            pip_pkg("six", "1.16.0", wheel),
        ),
    ).changes
    assert c.kind == "source" and "from https://example.org/mylib-0.3.tar.gz on B" in c.reason


def test_a_commit_change_across_platforms_is_not_a_platform_rebuild():
    a = live_pip(pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"))
    b = LiveEnv(
        prefix="/q",
        name="q",
        platform="osx-arm64",
        packages=(
            P("python", "3.11.8", "h0_cpython", platform="osx-arm64"),
            LockedPackage(
                manager="pip", name="mylib", version="0.3", platform="osx-arm64", url=f"git+{REPO}@{C2}"
            ),
        ),
    )
    c = by_name(diff(a, b))["mylib"]
    assert (c.kind, c.group, c.impact) == ("rebuilt", "matter", "medium")


def test_a_live_env_against_a_file_compares_the_channels_its_packages_came_from():
    from envkit.envdiff import DiffNote
    from envkit.render.diff_notes import note_sentences
    from envkit.render.diff_text import render_text

    pkgs = (
        P("python", "3.11.8", "hab00c5b_0_cpython"),
        P("pytorch", "2.3.1", "py3.11_cpu_0", channel="pytorch"),
    )
    live = LiveEnv(
        prefix="/p",
        name="p",
        platform="linux-64",
        packages=pkgs,
        channel_priority="strict",
        channels=tuple(Channel(name=c) for c in ("pytorch", "bioconda", "conda-forge", "private")),
    )
    export = lock(*pkgs, channels=("pytorch", "conda-forge"), kind="export")
    for a, b in ((live, export), (export, live)):
        d = diff(a, b)
        assert d.same and not d.channels.changed
        unused = d.channels.unused_a or d.channels.unused_b
        assert unused == ("bioconda", "private")
        letter = "A" if d.channels.unused_a else "B"
        assert d.notes() == (
            DiffNote(kind="unused-channels", side=letter.lower(), values=("bioconda", "private")),
        )
        assert note_sentences(d) == [
            f"channels configured for {letter} that no installed package came from "
            "(not compared): bioconda, private."
        ]
        assert "note: channels configured for" in render_text(d)
    # a channel packages came from that the file lacks is still a difference
    d = diff(live, lock(*pkgs, channels=("conda-forge",)))
    assert d.channels.removed == ("pytorch",) and (d.channels.a, d.channels.b) == (
        ("pytorch", "conda-forge"),
        ("conda-forge",),
    )
    # two prefixes compare their configurations
    other = LiveEnv(
        prefix="/q",
        name="q",
        platform="linux-64",
        packages=pkgs,
        channel_priority="strict",
        channels=(Channel(name="pytorch"), Channel(name="conda-forge")),
    )
    d = diff(live, other)
    assert d.channels.removed == ("bioconda", "private") and d.channels.unused_a == () and d.notes() == ()


@pytest.mark.parametrize(
    "source, name",
    [
        ("/home/me/src/tool", "tool"),
        ("/home/me/src/tool/", "tool"),
        ("file:///home/me/src/my-tool", "my-tool"),
        ("git+https://github.com/me/mylib.git@3f1c0a9", "mylib"),
        ("git+https://github.com/me/repo.git#egg=realname&subdirectory=py", "realname"),
        ("./dist/tinyreq-2.0-py3-none-any.whl", "tinyreq"),
        ("https://example.org/pkgs/foo_bar-1.2.tar.gz", "foo_bar"),
        (".", None),
    ],
)
def test_name_from_source(source, name):
    from envkit.envdiff import name_from_source

    assert name_from_source(source) == name


def test_entry_source_strips_editable_and_resolves_relative_paths():
    from envkit.envdiff import entry_source

    assert entry_source("-e /home/me/src/tool") == "/home/me/src/tool"
    assert entry_source("--editable=../tool", "/home/me/proj") == "/home/me/tool"
    assert entry_source("-e .", "/home/me/proj") == "/home/me/proj"
    assert entry_source("-e git+https://h/x.git@v1#egg=x", "/d") == "git+https://h/x.git@v1#egg=x"


def test_nameless_pip_entries_of_an_export_match_the_installed_package():
    tool = pip_pkg("tool", "0.1", "file:///home/me/src/tool", editable=True)
    mylib = pip_pkg("mylib", "0.3", REPO)
    live = live_pip(tool, mylib, dists=[dict(name="mylib", version="0.3", url=REPO, vcs="git", commit=C1)])
    # as envkit export writes them: `-e PATH` has no name, `name @ git+URL@commit` no version
    exported = lock(
        *BASE,
        pip_pkg("-e /home/me/src/tool", "", editable=True),
        pip_pkg("mylib", "", f"git+{REPO}@{C1}"),
        kind="export",
    )
    d = diff(live, exported)
    assert d.same, [(c.name, c.kind, c.reason) for c in d.changes]
    assert d == diff(live, exported) and diff(exported, live).same
    # matched by path even when the project name is not the folder's
    renamed = live_pip(
        pip_pkg("my-tool", "0.1", "file:///home/me/src/tool", editable=True),
        mylib,
        dists=[dict(name="mylib", version="0.3", url=REPO, vcs="git", commit=C1)],
    )
    assert diff(renamed, exported).same
    # a nameless VCS URL without #egg= is matched by its repository (and a short commit)
    nameless_vcs = lock(
        *BASE,
        pip_pkg("-e /home/me/src/tool", "", editable=True),
        pip_pkg(f"git+{REPO}@{C1[:7]}", "", f"git+{REPO}@{C1[:7]}"),
        kind="export",
    )
    assert diff(live, nameless_vcs).same
    # another path: named by its last component, and reported as another source
    moved = lock(
        *BASE,
        pip_pkg("-e /srv/tool", "", editable=True),
        pip_pkg("mylib", "", f"git+{REPO}@{C1}"),
        kind="export",
    )
    (c,) = diff(live, moved).changes
    assert (c.name, c.kind) == ("tool", "source")
    assert c.reason == (
        "installed from /home/me/src/tool (editable) on A, from /srv/tool (editable) on B: "
        "the code may differ"
    )
    # another commit in the export: a rebuild with both commits
    (c,) = diff(
        live,
        lock(
            *BASE,
            pip_pkg("-e /home/me/src/tool", "", editable=True),
            pip_pkg("mylib", "", f"git+{REPO}@{C2}"),
            kind="export",
        ),
    ).changes
    assert (c.name, c.kind, c.impact) == ("mylib", "rebuilt", "medium") and "(3f1c0a9 → bbbbbbb)" in c.reason


def test_spec_entries_with_a_source_are_checked_against_where_it_was_installed():
    tool = pip_pkg("tool", "0.1", "file:///home/me/src/tool", editable=True)
    live = live_pip(tool, pip_pkg("mylib", "0.3", f"git+{REPO}@{C1}"), pip_pkg("six", "1.16.0"))
    spec = EnvSpec(
        pip=(
            PipDep(kind="path", text="-e /home/me/src/tool", editable=True, line=1),
            PipDep(kind="vcs", text=f"git+{REPO}@3f1c0a9", url=f"git+{REPO}@3f1c0a9", line=2),
            PipDep(
                kind="vcs",
                text="six @ git+https://github.com/x/six.git",
                name="six",
                url="git+https://github.com/x/six.git",
                line=3,
            ),
            PipDep(kind="path", text="-e /srv/other", editable=True, line=4),
        )
    )
    d = diff(spec, live)
    got = [(c.name, c.status, c.note) for c in d.spec_checks]
    assert got == [
        ("tool", "satisfied", ""),
        ("mylib", "satisfied", ""),
        ("six", "not-satisfied", "installed from a package index"),
        ("other", "missing", ""),
    ]
    other = diff(
        EnvSpec(
            pip=(PipDep(kind="vcs", text=f"mylib @ git+{REPO}@{C2}", name="mylib", url=f"git+{REPO}@{C2}"),)
        ),
        live,
    ).spec_checks
    assert [(c.status, c.note) for c in other] == [("not-satisfied", "installed at git commit 3f1c0a9")]
    # a concrete side that records no pip source says nothing about it
    plain = lock(*BASE, pip_pkg("mylib", "0.3"), kind="export")
    assert [(c.status, c.note) for c in diff(EnvSpec(pip=spec.pip[1:2]), plain).spec_checks] == [
        ("satisfied", "source not compared")
    ]


def _two_platforms(osx_version: str, *more):
    """zlib locked for linux-64 and osx-arm64 (at `osx_version` there), and `more` packages."""
    plats = ("linux-64", "osx-arm64", *dict.fromkeys(p.platform for p in more))
    return lock(
        P("zlib", "1.3", "h0_0", platform="linux-64"),
        P("zlib", osx_version, "h1_0", platform="osx-arm64"),
        *more,
        platforms=plats,
    )


def test_two_multi_platform_locks_are_compared_on_every_shared_platform():
    """A change only on osx-arm64 is a difference, said per platform; a platform only one side locks
    is named; the platform shown in full is still the one picked as before."""
    a = _two_platforms("1.3")
    b = _two_platforms("1.3.1", P("zlib", "1.3", "h2_0", platform="win-64"))
    d = diff(a, b, host_platform="linux-64")
    assert (d.a.platform, d.changes) == ("linux-64", ())
    assert (d.other_platforms, d.platforms_only_a, d.platforms_only_b) == (
        (("osx-arm64", 1),),
        (),
        ("win-64",),
    )
    assert not d.same
    assert diff(a, a, host_platform="linux-64").same
    assert diff(a, a, host_platform="linux-64").other_platforms == (("osx-arm64", 0),)
    # --platform compares that one platform only, as before
    assert diff(a, b, platform="linux-64").same


def test_the_report_says_which_platforms_differ(envkit_cli, tmp_path):
    from dataclasses import replace

    from envkit.formats.condalock import write_conda_lock

    a, b = _two_platforms("1.3"), _two_platforms("1.3.1")

    def with_urls(lk):
        cf = "https://conda.anaconda.org/conda-forge"
        return replace(
            lk,
            packages=tuple(
                replace(p, url=f"{cf}/{p.platform}/{p.name}-{p.version}-{p.build}.conda", md5="0" * 32)
                for p in lk.packages
            ),
        )

    fa, fb = tmp_path / "a.conda-lock.yml", tmp_path / "b.conda-lock.yml"
    fa.write_text(write_conda_lock(with_urls(a)))
    fb.write_text(write_conda_lock(with_urls(b)))
    r = envkit_cli("diff", str(fa), str(fb))
    assert r.exit_code == 1, r.stdout + r.stderr
    assert (
        "note: compared on every platform both lock: linux-64 (above), osx-arm64 (1 package differs: "
        "--platform osx-arm64 lists them)." in r.stdout.splitlines()
    )
    assert r.stdout.endswith("Different: osx-arm64: 1 package differs.\n")
