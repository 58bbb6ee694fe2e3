"""The command line explains itself: every command and option has help text, and `yamen serve`
says where it listens."""

from __future__ import annotations

import argparse

from service.cli import build_parser


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_command_and_option_has_help_text():
    parser = build_parser()
    commands = _commands(parser)
    assert {"serve", "migrate", "openapi", "verify", "replay", "components"} <= set(commands)
    missing = []
    for name, command in commands.items():
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if not (action.help and action.help.strip()):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for choice in subparsers._choices_actions:
        if not (choice.help and choice.help.strip()):
            missing.append(f"command {choice.dest}")
    assert not missing, f"without help text: {missing}"


def test_serve_help_names_its_environment():
    text = _commands(build_parser())["serve"].format_help()
    for name in ("DATABASE_URL", "REDIS_URL", "YAMEN_CORS_ORIGINS", "YAMEN_RATE_LIMIT", "--port", "--host"):
        assert name in text
