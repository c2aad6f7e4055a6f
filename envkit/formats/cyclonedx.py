"""CycloneDX 1.6 JSON for any Lock: an SBOM of an environment or a lock file (`write_text(lock,
"cyclonedx")`, `envkit convert -o sbom.cdx.json`).

Each package is a `library` component with its package URL (`pkg:conda/NAME@VERSION?build=...&
channel=...&subdir=...&type=conda|tar.bz2`, `pkg:pypi/NAME@VERSION`, with `repository_url` for an
index other than PyPI), its hashes (SHA-256, MD5), its artifact URL as a `distribution` reference,
and the channel / index and platform as properties.  Dependencies are resolved by name within the
package's platform (conda `depends`, pip `requires_dist`); names that no locked package has are
left out (virtual packages such as `__glibc`).  A package locked for several platforms with the
same artifact (a noarch one) is one component.  Deterministic: no timestamp, and the serial number
is derived from the content (uuid5), so the same lock gives the same document.

Credentials are taken out before anything is encoded: a purl's qualifiers lose them
(`repository_url=https%3A%2F%2Fpypi.example.org%2Fsimple`), other URLs show placeholders.
"""

from __future__ import annotations

import json
import uuid
from urllib.parse import quote

from envkit.model import Lock, LockedPackage, pep503
from envkit.urls import redact_url, strip_credentials

SPEC_VERSION = "1.6"
SCHEMA = "http://cyclonedx.org/schema/bom-1.6.schema.json"
PYPI_INDEXES = ("https://pypi.org/simple", "https://pypi.org/simple/", "https://pypi.python.org/simple")


def _q(value: str) -> str:
    # a purl names a package: its qualifiers carry no credential, not even a placeholder
    return quote(strip_credentials(value), safe="")


def purl(p: LockedPackage) -> str:
    """The package URL of a locked package (the purl spec's `conda` and `pypi` types)."""
    if p.manager == "pip":
        head = f"pkg:pypi/{_q(pep503(p.name))}" + (f"@{_q(p.version)}" if p.version else "")
        quals = {}
        if p.index and p.index not in PYPI_INDEXES:
            quals["repository_url"] = p.index
        if p.url and "://" in p.url and not p.url.startswith("file:"):
            fn = p.url.split("#", 1)[0].rsplit("/", 1)[-1]
            if fn.endswith((".whl", ".tar.gz", ".zip")):
                quals["file_name"] = fn
    else:
        head = f"pkg:conda/{_q(p.name)}@{_q(p.version)}"
        quals = {k: v for k, v in (("build", p.build), ("channel", p.channel), ("subdir", p.subdir)) if v}
        if p.url:
            quals["type"] = "tar.bz2" if p.url.endswith(".tar.bz2") else "conda"
    if not quals:
        return head
    return head + "?" + "&".join(f"{k}={_q(v)}" for k, v in sorted(quals.items()))


def _component(p: LockedPackage, ref: str, platforms: list[str]) -> dict:
    c: dict = {"type": "library", "bom-ref": ref, "name": p.name}
    if p.version:
        c["version"] = p.version
    c["purl"] = ref if ref.startswith("pkg:") else purl(p)
    hashes = [{"alg": alg, "content": h.lower()} for alg, h in (("SHA-256", p.sha256), ("MD5", p.md5)) if h]
    if hashes:
        c["hashes"] = hashes
    if p.url and "://" in p.url:
        c["externalReferences"] = [{"type": "distribution", "url": redact_url(p.url)[0]}]
    props = [{"name": "envkit:manager", "value": p.manager}]
    source = p.channel if p.manager == "conda" else p.index
    if source:
        props.append(
            {
                "name": "envkit:channel" if p.manager == "conda" else "envkit:index",
                "value": redact_url(source)[0],
            }
        )
    props += [{"name": "envkit:platform", "value": pl} for pl in platforms]
    if p.marker:
        props.append({"name": "envkit:marker", "value": p.marker})
    if p.editable:
        props.append({"name": "envkit:editable", "value": "true"})
    c["properties"] = props
    return c


def render_cyclonedx(lock: Lock, *, name: str | None = None) -> str:
    """The CycloneDX 1.6 JSON document (text) of `lock`; `name` names the environment (metadata)."""
    refs, by_ref = _refs(lock)
    deps = _dependencies(lock, refs, by_ref)
    doc = {
        "$schema": SCHEMA,
        "bomFormat": "CycloneDX",
        "specVersion": SPEC_VERSION,
        "serialNumber": "",
        "version": 1,
        "metadata": _metadata(lock, name),
        "components": [_component(p, ref, plats) for ref, (p, plats) in sorted(by_ref.items())],
        "dependencies": [{"ref": r, "dependsOn": sorted(d)} for r, d in sorted(deps.items())],
    }
    body = json.dumps(doc, sort_keys=False, ensure_ascii=False)
    doc["serialNumber"] = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, body)}"
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _refs(lock: Lock) -> tuple[list[str], dict[str, tuple[LockedPackage, list[str]]]]:
    """(the bom-ref of each package of `lock`, in lock order; ref -> (the package, its platforms)):
    one component for a package locked for several platforms with the same artifact."""
    refs: list[str] = []
    by_ref: dict[str, tuple[LockedPackage, list[str]]] = {}
    for p in lock.packages:
        ref = purl(p)
        if p.manager == "pip" and not p.version and p.url:
            ref = f"{ref}#{redact_url(p.url)[0]}"  # an install without a version: the URL tells them apart
        prev = by_ref.get(ref)
        if prev is not None and (prev[0].sha256, prev[0].url) != (p.sha256, p.url):
            ref = f"{ref}#{p.platform}"
            prev = by_ref.get(ref)
        if prev is None:
            by_ref[ref] = (p, [p.platform] if p.platform else [])
        elif p.platform and p.platform not in prev[1]:
            prev[1].append(p.platform)
        refs.append(ref)
    return refs, by_ref


def _dependencies(lock: Lock, refs: list[str], by_ref: dict) -> dict[str, list[str]]:
    """ref -> the refs it depends on, resolved by name within the package's platform."""
    names: dict[tuple[str | None, str, str], str] = {}
    for p, ref in zip(lock.packages, refs, strict=True):
        key = p.name if p.manager == "conda" else pep503(p.name)
        names.setdefault((p.platform, p.manager, key), ref)
    deps: dict[str, list[str]] = {ref: [] for ref in by_ref}
    for p, ref in zip(lock.packages, refs, strict=True):
        for n, _spec in p.depends:
            key = n if p.manager == "conda" else pep503(n)
            target = names.get((p.platform, p.manager, key))
            if target and target != ref and target not in deps[ref]:
                deps[ref].append(target)
    return deps


def _metadata(lock: Lock, name: str | None) -> dict:
    """The document's `metadata`: the tool, the environment, what the lock was made for."""
    from envkit import __version__

    meta: dict = {
        "tools": {"components": [{"type": "application", "name": "envkit", "version": __version__}]}
    }
    env_name = name or lock.environment
    if env_name or lock.source:
        meta["component"] = {
            "type": "application",
            "bom-ref": "envkit:environment",
            "name": env_name or (lock.source or "").rsplit("/", 1)[-1],
        }
    meta["properties"] = (
        [{"name": "envkit:lock-kind", "value": lock.kind}]
        + [{"name": "envkit:platform", "value": pl} for pl in lock.platforms]
        + [{"name": "envkit:channel", "value": redact_url(c.name)[0]} for c in lock.channels]
        + [  # in priority order
            {"name": "envkit:index", "value": redact_url(o.split(None, 1)[1])[0]}
            for o in lock.pip_options
            if o.startswith(("--index-url ", "--extra-index-url ", "--find-links ")) and " " in o
        ]
    )
    return meta
