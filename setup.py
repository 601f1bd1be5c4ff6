"""The compiled core (waymark.engine._core) and the one-call no-symlink walk
(waymark.store._nofollow): both optional, so a machine without a C compiler or xxhash.h still
installs Waymark and runs the pure-Python path (docs/architecture.md)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "waymark.engine._core",
            [
                f"language_server/waymark/engine/{name}.c"
                for name in (
                    "_core",
                    "_core_text",
                    "_core_index",
                    "_core_annotate",
                    "_core_columns",
                    "_core_render",
                    "_core_page",
                    "_core_edit",
                    "_core_span",
                    "_core_respan",
                    "_core_near",
                    "_core_kept",
                    "_core_stretch",
                    "_core_sed",
                    "_core_sed_lines",
                    "_core_rows",
                    "_core_plain",
                )
            ],
            depends=[
                "language_server/waymark/engine/_core.h",
                "language_server/waymark/engine/_core_cols.h",
                "language_server/waymark/engine/_core_sed.h",
            ],
            optional=True,
        ),
        Extension(
            "waymark.store._nofollow",
            ["language_server/waymark/store/_nofollow.c"],
            optional=True,
        ),
    ]
)
