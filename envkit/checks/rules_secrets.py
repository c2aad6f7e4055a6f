"""Rules that read a file's raw text: credentials and machine paths that should not be committed.

They scan text, not the model, so they also find a token in a comment or in a commented-out
channel line, and they run on files whose YAML could not be read (a duplicated key).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from envkit._text import first_of
from envkit.checks.core import Context, Hit, Target, rule
from envkit.secrets import find_all_secrets, secret_lines, secret_variables
from envkit.textscan import candidate_lines

#: How leaked-secret's findings on a `variables:` value begin (their fix rewrites the value).
VARIABLE_SECRET = "a credential in a variable"
#: A `prefix:` line with a value (what leaked-prefix reports and --fix drops).
PREFIX_LINE = r"^prefix\s*:\s*\S"


def _variables_block_lines(target: Target) -> list[int]:
    """Line numbers of a top-level `variables:` mapping, read from the raw text (for a file whose
    YAML could not be read): the `variables:` line itself and the indented lines under it."""
    out: list[int] = []
    inside = False
    for n, line in enumerate(target.lines, 1):
        if inside:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line[:1] in (" ", "\t"):
                out.append(n)
                continue
            inside = False
        if line.startswith("variables") and re.match(r"^variables\s*:", line):
            out.append(n)
            inside = True
    return out


def _variable_hits(target: Target) -> Iterator[Hit]:
    """leaked-secret's findings on `variables:` values: secret-looking names (`HF_TOKEN`,
    `WANDB_API_KEY`, `*PASSWORD*`) with a real value (not `${VAR}`, not a placeholder)."""
    from envkit.urls import TOKEN, is_secret_variable

    m = target.env_file
    if m is not None:
        for k, v in m.variables:
            if is_secret_variable(k, v):
                line = m.line_of(f"variable:{k}") or m.line_of("variables")
                yield Hit(line, f"{VARIABLE_SECRET}: {k}: {TOKEN}")
        return
    if target.parse_error is None or "variables" not in (target.text or ""):
        return
    for n in _variables_block_lines(target):
        for p in secret_variables(target.line_text(n)):
            yield Hit(n, f"{VARIABLE_SECRET}: {p.key}: {TOKEN}")


@rule(
    "leaked-secret",
    order=17,
    severity="error",
    summary="A credential in a committed file: a `/t/<token>/` channel, `user:password@`, a token "
    "in a pip index URL, a GitHub/Hugging Face/Slack/PyPI token anywhere, a secret in `variables:`.",
    description="""
        Private channels and package indexes are often written with their credentials in the
        URL: `https://conda.anaconda.org/t/<token>/my-channel`, `https://user:pass@pypi.example.org/simple`,
        `https://ghp_...@github.com/org/repo.git`, `...?token=...`.  Committed, the file hands the
        credential to everyone who can read the repository (and to its forks, CI logs and
        caches).  Well-known token formats are found wherever they stand, URL or not: GitHub
        (`ghp_...`, `github_pat_...`), GitLab (`glpat-...`), Hugging Face (`hf_...`), Slack
        (`xoxb-...`), PyPI (`pypi-AgE...`) and npm (`npm_...`) tokens.  Comments are scanned too:
        a commented-out channel line leaks just as well.  What this rule reports is exactly what
        envkit redacts in everything it prints and writes.
        `variables:` (what `conda env config vars` sets on activation) is checked too: a variable
        whose name says it holds a credential (`HF_TOKEN`, `API_TOKEN`, `WANDB_API_KEY`,
        `AWS_SECRET_ACCESS_KEY`, `*PASSWORD*`, `*SECRET*`, `*CREDENTIAL*`) must not have its
        value in the file.

        Not reported: environment-variable references (`${PIP_TOKEN}`), placeholders
        (`<TOKEN>`), ssh user names (`git+ssh://git@github.com/...`), `git@` and the user
        names services pair with a token (`oauth2`, `__token__`) standing alone, variables that
        only name where a credential is (`HF_TOKEN_PATH`, a key file's path) or merely contain
        the word (`TOKENIZERS_PARALLELISM`).

        Fix: `--fix` replaces the credential with a placeholder (`<TOKEN>`, `<USER>:<PASSWORD>`);
        then revoke it, and supply it at install time (`conda token set`, `PIP_INDEX_URL`, a
        `.netrc`, or `${VAR}` references, which conda and pip expand), or for a variable set it
        on each machine (`conda env config vars set HF_TOKEN=...`) instead of in the file.
        """,
    example="""
        channels:
          - https://conda.anaconda.org/t/ab-12345678-abcd-1234-abcd-1234567890ab/my-private
          - conda-forge
        dependencies:
          - python=3.11
          - pip
          - pip:
            - --extra-index-url https://deploy:s3cr3t@pypi.example.org/simple
            - internal-tool==1.0
        variables:
          HF_TOKEN: hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345
        """,
    example_fixed="""
        channels:
          - https://conda.anaconda.org/t/${ANACONDA_TOKEN}/my-private
          - conda-forge
        dependencies:
          - python=3.11
          - pip
          - pip:
            - --extra-index-url https://${PIP_USER}:${PIP_PASSWORD}@pypi.example.org/simple
            - internal-tool==1.0
        """,
    applies_to=("spec", "lock"),
    fixable=True,
    fix_summary="replaces the credential with a placeholder",
    raw_text=True,
    per_file=True,
)
def leaked_secret(target: Target, ctx: Context) -> Iterator[Hit]:
    text = target.text
    if not text:
        return
    variable_hits = list(_variable_hits(target))
    variable_lines = {h.line for h in variable_hits}
    for n in secret_lines(text):
        for s in find_all_secrets(target.line_text(n)):
            kind, encoded = s.kind.removesuffix(" (percent-encoded)"), s.kind.endswith("(percent-encoded)")
            what = _URL_KINDS.get(kind)
            if what is None:  # a well-known token format, wherever it stands
                if n in variable_lines and not s.in_comment:
                    continue  # the value of a secret variable, reported as that
                where = "in a comment" if s.in_comment else "in the text"
                prefix = re.match(r"[A-Za-z]+[_-]", s.url)
                yield Hit(n, f"a {kind} {where} ({prefix.group(0) if prefix else ''}...)")
            else:
                yield Hit(n, f"{what} in a {'percent-encoded ' if encoded else ''}URL: {s.redacted}")
    yield from variable_hits


_URL_KINDS = {
    "token": "an access token",
    "user:password": "a user name and password",
    "query token": "a token",
}


_HOME = (
    r"(?<![\w.~])(?:/home/|/Users/|[A-Za-z]:[\\/]{1,2}Users[\\/]{1,2})(?![<$%{~*])"
    r"(?P<user>[^/\\\s'\"<>]+)"
)
_HOME_QUICK = r"/home/|/Users/|:\\{1,2}Users\\"
_HOME_GUARD = ("/home/", "/Users/", "Users\\")


@rule(
    "leaked-prefix",
    order=18,
    severity="warning",
    summary="A `prefix:` line or an absolute home path in a committed file.",
    description="""
        `conda env export` ends with `prefix: /home/alice/miniconda3/envs/project`.  That path
        exists on one machine only; it publishes a user name and directory layout, and
        `conda env create -f` uses it as the install location when no `-n`/`-p` is given, which
        fails (or writes into someone else's path) everywhere else.  Other absolute home paths
        (`/home/<user>/...`, `/Users/<user>/...`, `C:\\Users\\<user>\\...`), such as a local wheel or an
        editable install, have the same problem.

        Fix: `--fix` removes the `prefix:` line (conda then uses `-n`/`-p` or the `name:`); replace
        other home paths with relative paths or URLs.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - /home/alice/src/mytool
        prefix: /home/alice/miniconda3/envs/analysis
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - ./src/mytool
        """,
    applies_to=("spec", "lock"),
    fixable=True,
    fix_summary="removes the `prefix:` line",
    raw_text=True,
    per_file=True,
)
def leaked_prefix(target: Target, ctx: Context) -> Iterator[Hit]:
    text = target.text
    if not text:
        return
    prefix_lines = set()
    if target.kind == "spec" and "prefix" in text:
        for n, line in enumerate(target.lines, 1):
            if line.startswith("prefix") and re.match(PREFIX_LINE, line):
                prefix_lines.add(n)
                path = line.split(":", 1)[1].strip().strip("'\"")
                yield Hit(
                    n,
                    f"`prefix: {path}` is the path of one machine's environment; remove "
                    f"it (conda uses -n/-p or `name:` instead)",
                )
    # One user's home is one cause: pip-compile writes it into every `# via -r /Users/...` line,
    # so each user's paths are one finding at the first line, with the count and the lines.
    by_user: dict[str, list[tuple[int, str]]] = {}
    for n in candidate_lines(text, re.compile(_HOME_QUICK), _HOME_GUARD):
        if n in prefix_lines:
            continue
        m = re.search(_HOME, target.line_text(n))
        if m:
            path = target.line_text(n)[m.start() :].split()[0].strip("'\",")
            by_user.setdefault(m.group("user"), []).append((n, path))
    for user, hits in by_user.items():
        n, path = hits[0]
        more = ""
        if len(hits) > 1:
            more = f"; {len(hits)} lines name this home (lines {first_of([str(h[0]) for h in hits], 10)})"
        yield Hit(n, f"absolute home path {path} (user {user}) only exists on one machine{more}")
