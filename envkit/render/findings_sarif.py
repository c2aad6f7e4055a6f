"""`envkit check --format sarif`: SARIF 2.1.0, as GitHub code scanning (`upload-sarif`) accepts it.

One run; the driver lists every rule (id, name, descriptions, help, default level), each result
names its rule by id and index, its level, message, location (a repository-relative URI under
`%SRCROOT%` and the start line when known) and a partial fingerprint that ignores the line (so an
alert survives lines moving).  Levels: error -> error, warning -> warning, info -> note.
The test suite validates this output against the OASIS SARIF 2.1.0 JSON schema.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from urllib.parse import quote

from envkit.checks.core import Finding

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> tuple[str, str | None]:
    """(uri, uriBaseId): repository-relative paths become `%SRCROOT%`-relative URIs; absolute
    paths (a live environment's prefix) become `file://` URIs."""
    p = path.replace("\\", "/")
    if os.path.isabs(path) or p.startswith("/") or (len(p) > 2 and p[1] == ":"):
        if not p.startswith("/"):
            p = "/" + p
        return "file://" + quote(p), None
    while p.startswith("./"):
        p = p[2:]
    return quote(p), "%SRCROOT%"


def render_findings_sarif(findings: Sequence[Finding], *, rules: dict | None = None) -> str:
    """The SARIF log as JSON text (ends with a newline)."""
    from envkit import __version__
    from envkit.checks.registry import all_rules

    rules = rules if rules is not None else all_rules()
    index = {name: i for i, name in enumerate(rules)}
    driver_rules = [_driver_rule(r) for r in rules.values()]
    results = [_result(f, index) for f in findings]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "envkit",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": driver_rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
                "results": results,
                "columnKind": "utf16CodeUnits",
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _driver_rule(r) -> dict:
    """SARIF's description of rule `r` (a reportingDescriptor)."""
    text = f"{r.summary}\n\n{r.description}"
    return {
        "id": r.name,
        "name": "".join(part.capitalize() for part in r.name.split("-")),  # CondaPipDuplicate
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.description.strip()},
        "help": {
            "text": text.strip(),
            "markdown": f"**{r.name}**: {r.summary}\n\n{r.description.strip()}\n\n"
            f"`envkit explain {r.name}` shows an example.",
        },
        "defaultConfiguration": {"level": LEVEL[r.severity]},
        "properties": {"tags": ["conda", "environment"], "fixable": r.fixable},
    }


def _result(f: Finding, index: dict[str, int]) -> dict[str, object]:
    """SARIF's result for finding `f`; `index`: each rule's place in the driver's rules."""
    uri, base = _uri(f.file)
    artifact = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    physical: dict = {"artifactLocation": artifact}
    if f.line:
        physical["region"] = {"startLine": f.line}
    fingerprint = hashlib.sha256(f"{f.rule}\0{f.file}\0{f.message}".encode()).hexdigest()
    result: dict[str, object] = {
        "ruleId": f.rule,
        "level": LEVEL[f.severity],
        "message": {"text": f.message},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {"envkitFinding/v1": fingerprint},
    }
    if f.rule in index:
        result["ruleIndex"] = index[f.rule]
    if f.packages:
        result["properties"] = {"packages": list(f.packages)}
    return result
