"""CycloneDX 1.6 schema validation that is fast enough to run on every SBOM the tests write.

cyclonedx-python-lib's `JsonStrictValidator(V1_6)` is the CycloneDX 1.6 strict JSON schema under
jsonschema's Draft 7 validator with its default format checker.  Profiled: nearly all of its time
(about 0.35-1 s per component on the shared machine, 46 s for 43 components) is jsonschema's
`iri-reference` format check, which `rfc3987-syntax` answers with a general Earley parser (lark)
per string -- every component's distribution URL is one.  Building the validator is cheap
(cyclonedx caches it per instance).

`validate_sbom(text)` uses the same schema, registry and format checker with one change: `iri` and
`iri-reference` are checked by `IRI_REFERENCE`, a regular expression written from RFC 3987's
ABNF (section 2.2), compiled once.
tests/convert/test_convert_sbom_write.py::test_iri_reference_regex_agrees_with_rfc3987_syntax checks that it
answers as rfc3987-syntax does on valid and invalid strings.
"""

from __future__ import annotations

import functools
import json
import re

_UCS = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef\U00010000-\U0001fffd\U00020000-\U0002fffd"
    "\U00030000-\U0003fffd\U00040000-\U0004fffd\U00050000-\U0005fffd\U00060000-\U0006fffd"
    "\U00070000-\U0007fffd\U00080000-\U0008fffd\U00090000-\U0009fffd\U000a0000-\U000afffd"
    "\U000b0000-\U000bfffd\U000c0000-\U000cfffd\U000d0000-\U000dfffd\U000e1000-\U000efffd"
)
_PRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_UNRES = rf"A-Za-z0-9\-._~{_UCS}"  # iunreserved
_SUB = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRES}{_SUB}:@]|{_PCT})"  # ipchar
_H16 = r"[0-9A-Fa-f]{1,4}"
_DEC = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_V4 = rf"{_DEC}\.{_DEC}\.{_DEC}\.{_DEC}"
_LS32 = rf"(?:{_H16}:{_H16}|{_V4})"
_V6 = (
    "(?:"
    + "|".join(
        [
            rf"(?:{_H16}:){{6}}{_LS32}",
            rf"::(?:{_H16}:){{5}}{_LS32}",
            rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
            rf"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
            rf"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
            rf"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
            rf"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
            rf"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
            rf"(?:(?:{_H16}:){{0,6}}{_H16})?::",
        ]
    )
    + ")"
)
_IP_LITERAL = rf"\[(?:{_V6}|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~{_SUB}:]+)\]"
_AUTHORITY = (
    rf"(?:(?:[{_UNRES}{_SUB}:]|{_PCT})*@)?"  # iuserinfo@
    rf"(?:{_IP_LITERAL}|{_V4}|(?:[{_UNRES}{_SUB}]|{_PCT})*)"  # ihost (ireg-name covers IPv4)
    r"(?::[0-9]*)?"
)
_SEGMENT = rf"{_PCHAR}*"
_SEGMENT_NZ = rf"{_PCHAR}+"
_SEGMENT_NZ_NC = rf"(?:[{_UNRES}{_SUB}@]|{_PCT})+"
_ABEMPTY = rf"(?:/{_SEGMENT})*"
_ABSOLUTE = rf"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_QUERY = rf"(?:\?(?:{_PCHAR}|[{_PRIVATE}/?])*)?"
_FRAGMENT = rf"(?:#(?:{_PCHAR}|[/?])*)?"
_IRI = (
    rf"[A-Za-z][A-Za-z0-9+\-.]*:"
    rf"(?://{_AUTHORITY}{_ABEMPTY}|{_ABSOLUTE}|{_SEGMENT_NZ}(?:/{_SEGMENT})*|)" + _QUERY + _FRAGMENT
)
_RELATIVE = (
    rf"(?://{_AUTHORITY}{_ABEMPTY}|{_ABSOLUTE}|{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*|)" + _QUERY + _FRAGMENT
)
#: RFC 3987 `IRI-reference` (IRI / irelative-ref) and `IRI`
IRI_REFERENCE = re.compile(rf"(?:{_IRI}|{_RELATIVE})")
IRI = re.compile(_IRI)


@functools.cache
def strict_validator():
    """cyclonedx-python-lib's strict CycloneDX 1.6 JSON validator (schema and registry), with the
    IRI checks replaced by the regular expressions; built once per process."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator
    from jsonschema import Draft7Validator, FormatChecker

    base = JsonStrictValidator(SchemaVersion.V1_6)._validator  # its schema + registry
    checker = FormatChecker()
    for name, func in Draft7Validator.FORMAT_CHECKER.checkers.items():
        checker.checkers[name] = func
    checker.checkers["iri-reference"] = (
        lambda s: not isinstance(s, str) or bool(IRI_REFERENCE.fullmatch(s)),
        (),
    )
    checker.checkers["iri"] = (lambda s: not isinstance(s, str) or bool(IRI.fullmatch(s)), ())
    return base.evolve(format_checker=checker)


def sbom_errors(text: str) -> list[str]:
    """Every schema error of the CycloneDX 1.6 JSON `text` (`path: message`); [] when valid."""
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in strict_validator().iter_errors(json.loads(text))
    ]


def validate_sbom(text: str) -> None:
    errors = sbom_errors(text)
    assert errors == [], "\n".join(errors[:10])
