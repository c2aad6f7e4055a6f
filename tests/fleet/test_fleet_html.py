"""`envkit fleet --format html` loaded in a real headless Chromium (Debian's `chromium` package):
the DOM it renders holds the groups, the hosts x packages view with the outliers' differing cells
marked, and the page fetches nothing.  Skipped, saying why, without chromium (`make fleet-tools`
installs it)."""

import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from conftest import REPO

COLLECTED = REPO / "examples" / "fleet" / "collected"


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class _Dom(HTMLParser):
    """Rows of the tables, as (table id, tr attributes, [(td class, text)])."""

    def __init__(self):
        super().__init__()
        self.rows, self.table, self.row, self.cell = [], None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("id")
        elif tag == "tr":
            self.row = (self.table, a, [])
        elif tag in ("td", "th") and self.row is not None:
            self.cell = [a.get("class"), ""]

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row[2].append(tuple(self.cell))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None


def test_html_report_in_headless_chromium(envkit_cli, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip(
            "chromium is not installed (`make fleet-tools INSTALL_FLEET_TOOLS=1` installs it, as root)"
        )
    page = tmp_path / "fleet.html"
    r = envkit_cli("fleet", str(COLLECTED), "--format", "html", "-o", str(page))
    assert r.exit_code == 1, r.stderr
    html = page.read_text()
    # self-contained: nothing is loaded from anywhere
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script" not in html
    proc = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = _Dom()
    dom.feed(proc.stdout)
    groups = [
        (a["class"], a["data-members"], [t for _, t in cells][:3])
        for t, a, cells in dom.rows
        if t == "groups" and a.get("class")
    ]
    assert groups == [
        ("group majority", "gpu01,gpu02,gpu03,gpu04,gpu08", ["majority", "5", "gpu[01-04,08]"]),
        ("group outlier", "gpu05", ["outlier 1", "1", "gpu05"]),
        ("group outlier", "gpu06", ["outlier 2", "1", "gpu06"]),
        ("group outlier", "gpu07", ["outlier 3", "1", "gpu07"]),
    ]
    hosts = [(a.get("class"), cells) for t, a, cells in dom.rows if t == "hosts"]
    header = [text for _, text in hosts[0][1]]
    assert header[:4] == ["host", "group", "pytorch", "pytorch-mutex"]
    by_host = {cells[0][1]: (cls, cells) for cls, cells in hosts[1:]}
    assert len(by_host) == 8
    cls, cells = by_host["gpu07"]
    assert cls == "outlier"
    assert cells[2] == ("differs", "2.2.2 py3.11_cpu_0")
    numpy = header.index("numpy")
    assert by_host["gpu05"][1][numpy] == ("differs", "1.26.3 py311h64a7726_0")
    assert by_host["gpu01"][1][numpy] == ("same", "1.26.4 py311h64a7726_0")
    assert by_host["gpu06"][1][numpy] == ("same", "1.26.4 py311h64a7726_0")
