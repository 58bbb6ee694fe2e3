"""A client generated from the committed OpenAPI document gets real types: the commands, events and
views of every game decode into the generated classes through the discriminators, each class named
by its game (``YangtzePass``, ``JiangnanPass``: no numbered duplicates).

(``tests/clients`` generates whole clients, Python and TypeScript, and plays complete games.)"""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import msgspec

from tests.http.helpers import bearer, create

OPENAPI = pathlib.Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def _generate(tmp: pathlib.Path):
    out = tmp / "yamen_models.py"
    codegen = pathlib.Path(sys.executable).with_name("datamodel-codegen")
    subprocess.run(
        [
            str(codegen),
            "--input",
            str(OPENAPI),
            "--input-file-type",
            "openapi",
            "--output",
            str(out),
            "--output-model-type",
            "msgspec.Struct",
            "--use-msgspec-tagged-unions",
            "--formatters",
            "builtin",
        ],
        check=True,
        capture_output=True,
    )
    spec = importlib.util.spec_from_file_location("yamen_models", out)
    module = importlib.util.module_from_spec(spec)
    sys.modules["yamen_models"] = module
    spec.loader.exec_module(module)
    return module


async def test_generated_models_decode_live_answers(client, tmp_path):
    models = _generate(tmp_path)
    for kind, players in (("yangtze", 3), ("pingyao", 3), ("jiangnan", 4)):
        created = await create(client, kind, {"players": players})
        game_id = created["game_id"]
        token = created["tokens"][0]["token"]
        document = msgspec.json.decode(
            (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).content,
            type=models.GameDocument,
        )
        prefix = kind.capitalize()
        assert type(document.view).__name__ == f"{prefix}View"
        seat = document.to_act[0]
        seat_token = created["tokens"][seat]["token"]
        legal = msgspec.json.decode(
            (await client.get(f"/v1/games/{game_id}/legal-moves", headers=bearer(seat_token))).content,
            type=models.LegalMoves,
        )
        assert legal.moves and all(
            type(m).__struct_config__.tag == f"{kind}.{type(m).__name__.removeprefix(prefix)}"
            for m in legal.moves
        )
        # The generated command round-trips into a move the service accepts.
        body = msgspec.json.encode(legal.moves[0])
        answer = await client.post(
            f"/v1/games/{game_id}/moves",
            content=body,
            headers={**bearer(seat_token), "content-type": "application/json"},
        )
        assert answer.status_code == 200, answer.text
        result = msgspec.json.decode(answer.content, type=models.MoveResult)
        assert result.events and all(
            e.event is None
            or type(e.event).__struct_config__.tag == f"{kind}.{type(e.event).__name__.removeprefix(prefix)}"
            for e in result.events
        )
        history = msgspec.json.decode(
            (await client.get(f"/v1/games/{game_id}/events")).content, type=models.History
        )
        assert len(history.events) == result.version
