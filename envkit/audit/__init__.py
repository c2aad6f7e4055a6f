"""`envkit audit`'s core: known vulnerabilities (an OSV database on disk) and licences of the
packages of an environment, and what cannot be known about them.

    osv.py       one OSV record -> the Advisory entries the index keeps (PyPI ECOSYSTEM ranges)
    cvss.py      a CVSS 3.x vector -> its base score and rating
    index.py     an OSV database (all.zip or a directory of records) -> an index, cached by content
    match.py     packages + index -> vulnerabilities, unknowns, clean packages
    licences.py  conda `license` / wheel METADATA -> SPDX expression -> allowed, denied, unknown
    config.py    `[tool.envkit.audit]` / `.envkit.toml [audit]`: ignores, licence lists, fail-on
    fetch.py     the one download: OSV's PyPI all.zip, only when asked
"""
