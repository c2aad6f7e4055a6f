"""VEX statements from a CycloneDX document: which advisories do not affect this product.

The file is validated against the CycloneDX JSON schema of its `specVersion` (cyclonedx-python-lib's
validator, the schema the format's owner publishes) and then read as JSON.  A vulnerability whose
`analysis.state` is `not_affected` or `false_positive` silences the advisory with that id (or
alias) for the packages its `affects` name -- purls (`pkg:pypi/requests@2.19.0`, the version
optional) or bom-refs of the document's components -- or for every package when it names none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envkit.errors import ParseError, Where, clip
from envkit.model import pep503

SILENCING = ("not_affected", "false_positive")


@dataclass(frozen=True, slots=True, kw_only=True)
class VexStatement:
    """One silencing statement: advisory `id`, `state`, why (`justification`/`detail`), and the
    (type, name, version-or-None) packages it covers (empty: all)."""

    id: str
    state: str
    reason: str
    packages: tuple[tuple[str, str, str | None], ...] = ()

    def covers(self, ids: Sequence[str], manager: str, name: str, version: str) -> bool:
        if self.id not in ids:
            return False
        if not self.packages:
            return True
        kind = "pypi" if manager == "pip" else "conda"
        key = pep503(name)
        return any(
            t in (kind, "pypi") and pep503(n) == key and (v is None or v == version)
            for t, n, v in self.packages
        )


def _purl(text: str) -> tuple[str, str, str | None] | None:
    """(type, name, version) of a purl `pkg:TYPE/[NAMESPACE/]NAME[@VERSION][?...]`."""
    from urllib.parse import unquote

    if not text.startswith("pkg:"):
        return None
    body = text[4:].split("#", 1)[0].split("?", 1)[0]
    kind, _, rest = body.partition("/")
    path, _, version = rest.partition("@")
    name = unquote(path.rsplit("/", 1)[-1])
    return (kind.lower(), name, unquote(version) or None) if name else None


def read_vex(path: str) -> list[VexStatement]:
    """The silencing statements of the CycloneDX VEX file `path`.  Raises ParseError (naming the
    file and the schema's complaint) for what is not a valid CycloneDX JSON document."""
    from envkit.formats._json import load_json
    from envkit.io import read_text

    text = read_text(path)
    where = Where(file=path)
    doc = load_json(text, path)
    if not isinstance(doc, dict) or doc.get("bomFormat") != "CycloneDX":
        raise ParseError("not a CycloneDX document (no `bomFormat: CycloneDX`)", where=where)
    _validate(text, str(doc.get("specVersion") or ""), where, vex="vulnerabilities" in doc)
    refs = {
        str(c.get("bom-ref")): str(c.get("purl"))
        for c in doc.get("components") or ()
        if isinstance(c, dict) and c.get("bom-ref") and c.get("purl")
    }
    out = []
    for v in doc.get("vulnerabilities") or ():
        analysis = v.get("analysis") or {}
        # the schema lets a vulnerability go without an id: such a statement names no advisory,
        # so it silences none
        if analysis.get("state") not in SILENCING or "id" not in v:
            continue
        why = "; ".join(str(x) for x in (analysis.get("justification"), analysis.get("detail")) if x)
        packages = [_purl(refs.get(str(a.get("ref")), str(a.get("ref")))) for a in v.get("affects") or ()]
        out.append(
            VexStatement(
                id=str(v["id"]),
                state=str(analysis["state"]),
                reason=why or str(analysis["state"]),
                packages=tuple(p for p in packages if p is not None),
            )
        )
    return out


def _validate(text: str, spec_version: str, where: Where, *, vex: bool) -> None:
    """ParseError unless `text` is valid against the CycloneDX JSON schema of `spec_version`: the
    schema's complaint (clipped: it may quote the whole offending value) and its path, not the
    schema.  `vex`: the document has `vulnerabilities` (which CycloneDX holds from 1.4)."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    hint = "VEX in CycloneDX JSON has specVersion 1.4 or later"
    try:
        schema = SchemaVersion.from_version(spec_version)
    except ValueError:
        raise ParseError(
            f"unknown CycloneDX specVersion {clip(repr(spec_version))}", where=where, hint=hint
        ) from None
    try:
        validator = JsonStrictValidator(schema)
    except ValueError:  # 1.0 and 1.1: CycloneDX wrote those in XML only
        raise ParseError(f"CycloneDX {spec_version} has no JSON form", where=where, hint=hint) from None
    error = validator.validate_str(text)
    if error is None:
        return
    data = error.data  # jsonschema's ValidationError: the complaint, and where in the document
    path = str(getattr(data, "json_path", "$")).removeprefix("$").removeprefix(".")
    raise ParseError(
        f"not a valid CycloneDX {spec_version} document: {clip(str(getattr(data, 'message', data)))}",
        where=Where(file=where.file, key=path or None),
        hint=hint if vex and schema < SchemaVersion.V1_4 else None,
    )
