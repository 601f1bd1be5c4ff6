"""Which declines are by design: the line's result is not determined by the line and the
files (the coverage bench counts them apart from constructs not simulated yet)."""

from __future__ import annotations

import pytest

from waymark.engine.sed import SedDecline, parse_command_line


@pytest.mark.parametrize(
    ("line", "needs_shell"),
    [
        ('sed -i "s/VERSION=.*/VERSION=$NEW/" .env', True),
        ('NEW=2.0 sed -i "s/x/$NEW/" f', True),  # $NEW expands before the assignment applies
        ('sed -i "s/x/$(date +%F)/" f', True),
        ('sed -i "s/x/`whoami`/" f', True),
        ("sed -i s/x/`whoami`/ f", True),
        ("sed -i 's/foo/bar/e' f", True),
        ("sed -i '1e date' f", True),
        ('NEW=2.0; sed -i "s/x/$NEW/" f', False),  # determined, just not simulated
        ('NEW=2.0 && sed -i "s/x/$NEW/" f', False),
        ("sed -i 'l' f", False),
        ("sed -i 's/a/b/' f | cat", False),
    ],
)
def test_needs_shell(line: str, needs_shell: bool) -> None:
    with pytest.raises(SedDecline) as caught:
        parse_command_line(line)
    assert caught.value.needs_shell is needs_shell
