"""The CycloneDX SBOM as a kind of `envkit.render.render` (RENDERERS["sbom"]).

An SBOM is a file format envkit writes like pixi.lock or pylock.toml, so its writer lives with the
other formats (envkit.formats.cyclonedx); this module is where the renderer table finds it.
"""

from __future__ import annotations

from envkit.formats.cyclonedx import render_cyclonedx

__all__ = ["render_cyclonedx"]
