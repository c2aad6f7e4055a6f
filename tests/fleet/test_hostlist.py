"""Host-list expressions (Slurm / ClusterShell syntax) and folding hosts back into one."""

import pytest

from envkit.errors import UsageError
from envkit.fleet.hostlist import expand, fold


@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("node[001-003]", ["node001", "node002", "node003"]),
        ("node[1-3,7]", ["node1", "node2", "node3", "node7"]),
        ("rack[1-2]-n[01-02]", ["rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"]),
        ("login1,gpu[8-9]", ["login1", "gpu8", "gpu9"]),
        ("gpu[01-07/3]", ["gpu01", "gpu04", "gpu07"]),
        ("127.0.0.[2-4]", ["127.0.0.2", "127.0.0.3", "127.0.0.4"]),
        ("node[1-2],node1", ["node1", "node2", "node1"]),  # duplicates are the caller's to report
    ],
)
def test_expand(text, hosts):
    assert expand(text) == hosts


def test_128_nodes_keep_their_padding():
    hosts = expand("node[001-128]")
    assert len(hosts) == 128 and hosts[0] == "node001" and hosts[-1] == "node128"


@pytest.mark.parametrize(
    ("text", "what", "col"),
    [
        ("node[5-1]", "the range 5-1 runs backwards", 5),
        ("node[1-3", "a `[` that is never closed", 4),
        ("node[001-12O]", "'12O' is not a number", 9),
        ("node1-3]", "a `]` without its `[`", 7),
        ("a,,b", "an empty host name", 2),
        ("n[]", "an empty bracket", 2),
        ("n[1-4/0]", "step '0' is not a positive number", 6),
    ],
)
def test_typos_are_errors_that_point_at_the_typo(text, what, col):
    with pytest.raises(UsageError) as e:
        expand(text, where="hosts.txt:3")
    lines = str(e.value).splitlines()
    assert lines[0] == f"hosts.txt:3: bad host list {text!r}: {what}"
    assert lines[1] == f"  {text}" and lines[2] == "  " + " " * col + "^"


def test_a_huge_range_is_refused():
    with pytest.raises(UsageError, match="more than 100,000 hosts"):
        expand("node[1-1000000]")


def test_fold_is_expand_backwards():
    hosts = ["node001", "node002", "node003", "node007", "gpu7", "login", "127.0.0.2", "127.0.0.3"]
    assert fold(hosts) == "node[001-003,007],gpu7,login,127.0.0.[2-3]"
    assert expand(fold(hosts)) == [
        "node001",
        "node002",
        "node003",
        "node007",
        "gpu7",
        "login",
        "127.0.0.2",
        "127.0.0.3",
    ]
