"""The kernel's component data files: decoded into typed entries, every entry sourced, and a
broken file refused naming what is wrong."""

from __future__ import annotations

import msgspec
import pytest

from domain.kernel import ComponentDataError, ComponentFile, Entry


class Tile(Entry, frozen=True):
    name: str
    value: int

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.value < 0:
            raise ValueError(f"tile {self.name}: a value is never negative")


class Data(msgspec.Struct, frozen=True):
    tiles: list[Tile]


FILE = ComponentFile(package="tests.domain", filename="-", type=Data)


def test_a_valid_file_decodes_into_typed_sourced_entries():
    data = FILE.check(
        b'{"tiles": [{"name": "A1", "value": 3, "printed": true, "source": "rulebook p.4"},'
        b' {"name": "A2", "value": 5, "source": "assumed: the rulebook shows only the icon"}]}'
    )
    assert [t.value for t in data.tiles] == [3, 5]
    assert [t.printed for t in data.tiles] == [True, False]


@pytest.mark.parametrize(
    ("blob", "names"),
    [
        (b'{"tiles": [{"name": "A1", "value": "three", "source": "p.4"}]}', "$.tiles[0].value"),
        (b'{"tiles": [{"name": "A1", "value": 3}]}', "source"),
        (b'{"tiles": [{"name": "A1", "value": -1, "source": "p.4"}]}', "never negative"),
        (b'{"tiles": [', "truncated"),
    ],
)
def test_a_broken_file_is_refused_naming_what_is_wrong(blob, names):
    with pytest.raises(ComponentDataError) as refused:
        FILE.check(blob, origin="owner.json")
    assert str(refused.value).startswith("owner.json: ") and names.lower() in str(refused.value).lower()


def test_the_schema_of_a_file_is_published():
    schema = FILE.schema()
    assert "Tile" in schema["$defs"] and "source" in schema["$defs"]["Tile"]["properties"]
