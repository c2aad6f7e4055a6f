"""Comparing what two YAML loaders return: values, types and the line numbers envkit keeps."""


def same(a, b, path="$"):
    """None when a and b are equal values with equal types and line numbers, else where they differ."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, (dict, list)):
        if (a.line, a.lines) != (b.line, b.lines):
            return f"{path}: lines differ"
        if len(a) != len(b) or (isinstance(a, dict) and list(a) != list(b)):
            return f"{path}: keys/length differ"
        pairs = zip(a.values(), b.values(), strict=False) if isinstance(a, dict) else zip(a, b, strict=False)
        keys = list(a) if isinstance(a, dict) else range(len(a))
        for k, (x, y) in zip(keys, pairs, strict=False):
            r = same(x, y, f"{path}.{k}")
            if r:
                return r
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"
