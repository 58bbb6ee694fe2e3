"""The catalogue serves a human label and a description for every option of every title (the
nested table options by their dotted path), so a front end never shows a raw key."""

from __future__ import annotations

from typing import Any

from domain.registry import production_games


def _keys(schema: dict[str, Any], node: dict[str, Any], prefix: str = "") -> list[str]:
    defs = schema.get("$defs", {})
    parts = [part for part in node.get("anyOf", [node]) if part.get("type") != "null"]
    for part in parts:
        if "$ref" in part:
            node = defs[part["$ref"].rsplit("/", 1)[-1]]
            break
    keys = []
    for name, property_ in node.get("properties", {}).items():
        keys.append(f"{prefix}{name}")
        keys.extend(_keys(schema, property_, f"{prefix}{name}."))
    return keys


async def test_every_option_has_a_label_and_a_description(client):
    catalogue = (await client.get("/v1/catalogue")).json()
    assert catalogue["games"]
    for entry in catalogue["games"]:
        if entry["kind"] not in production_games():
            continue  # the test fixture's title (bluff) describes nothing
        schema = entry["options_schema"]
        keys = _keys(schema, schema)
        assert "players" in keys and "table.clock.mode" in keys, keys
        labels = entry["option_labels"]
        assert set(keys) <= set(labels), set(keys) - set(labels)
        for key in keys:
            label, description = labels[key]["label"], labels[key]["description"]
            assert label and "_" not in label and label != key, (entry["kind"], key, label)
            assert description, (entry["kind"], key)
    pingyao = next(entry for entry in catalogue["games"] if entry["kind"] == "pingyao")
    assert pingyao["option_labels"]["table.takebacks"]["label"] == "Take-backs"
    assert pingyao["option_labels"]["crowdfunding"]["description"].startswith("Add the crowdfunding")
