"""The compiled core (waymark.engine._core): optional, so a machine without a C compiler or
xxhash.h still installs Waymark and runs the pure-Python path (docs/architecture.md)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "waymark.engine._core",
            ["language_server/waymark/engine/_core.c"],
            optional=True,
        )
    ]
)
