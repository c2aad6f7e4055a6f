"""Reading the lock (or spec) file a command was given, with hints in the commands' option names."""

from __future__ import annotations


def read_lock_file(
    path: str, input_format: str | None, environment: str | None, *, format_hint: str | None = None
):
    """(text, model) of the file at `path`, read as `input_format` (detected when None), with the
    pixi.lock `environment`.

    The readers' remedies are worded as flags by the CLI (`--input-format`, `--env`).  A command
    without --input-format passes `format_hint`, which replaces the hint of format detection.
    """
    from envkit.errors import EnvkitError, Remedy
    from envkit.formats import read_text
    from envkit.formats.condalock import apply_editable
    from envkit.io import read_text as read_file_text
    from envkit.model import Lock

    try:
        text = read_file_text(path)
        model = read_text(text, filename=path, format=input_format, environment=environment)
        if isinstance(model, Lock) and model.kind == "pixi":
            from envkit.lock.pixi_out import apply_pixi_record

            model = apply_pixi_record(model, text)  # what envkit recorded in a pixi.lock it wrote
        # what envkit recorded in conda-lock.yml's custom_metadata (editable pip packages)
        return text, apply_editable(model) if isinstance(model, Lock) else model
    except EnvkitError as exc:
        if format_hint and exc.remedies == (Remedy(option="format"),):
            exc.hint = format_hint
        raise
