"""What several ``gui-gym`` commands share: ``--env``, ``--env-kwargs``, ``--threads`` and task selections."""

from __future__ import annotations

import argparse
import dataclasses
import json
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

#: The env id every command uses unless ``--env`` names another.
DEFAULT_ENV = "GuiAndroid-v0"

__all__ = [
    "DEFAULT_ENV",
    "add_config_flags",
    "add_env_arguments",
    "add_threads_argument",
    "config_values",
    "env_kwargs",
    "lm_screen",
    "parse_env_kwarg",
    "task_arg",
]


def parse_env_kwarg(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with ``VALUE`` read as JSON, or as a string where it is not JSON.

    >>> parse_env_kwarg("max_steps=12"), parse_env_kwarg("ui_format=compressed"), parse_env_kwarg('size=[540, 1200]')
    (('max_steps', 12), ('ui_format', 'compressed'), ('size', [540, 1200]))
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (a gym.make argument), got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def env_kwargs(pairs: Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    """The ``gym.make`` arguments of ``--env-kwargs`` (a later key wins)."""
    return dict(pairs or ())


def lm_screen(values: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with the screen an LM policy reads on the phone by default (MobileRL App. C:
    ~10x fewer characters than the dump, in the pixels the env's taps take), for the config
    ``values`` of ``gui-gym train`` and ``gui-gym sft``.

    >>> lm_screen({"policy": "lm"}, {}), lm_screen({"policy": "candidate"}, {})
    ({'ui_format': 'mobilerl_appc'}, {})
    """
    if values.get("env_id", DEFAULT_ENV) == DEFAULT_ENV and values.get("policy") == "lm":
        return {"ui_format": "mobilerl_appc", **kwargs}
    return kwargs


ENV_HELP = f"env id, or module:EnvId to import the module that registers it (default: {DEFAULT_ENV})"
ENV_KWARGS_HELP = "more gym.make arguments, values as JSON (e.g. max_steps=12 ui_format=compressed)"


def add_env_arguments(p: argparse.ArgumentParser, kwargs: bool = True) -> None:
    """``--env ID`` (a registered id or gymnasium's ``module:EnvId``), and ``--env-kwargs KEY=VALUE ...``."""
    p.add_argument("--env", default=DEFAULT_ENV, metavar="ID", help=ENV_HELP)
    if kwargs:
        p.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, metavar="KEY=VALUE", help=ENV_KWARGS_HELP)


def task_arg(value: str | None) -> str | list[str] | None:
    """A ``--task`` value as the env's ``task=`` takes it: one id or tier, or a list of ids."""
    if value is None:
        return None
    parts = [v.strip() for v in value.split(",") if v.strip()]
    return parts[0] if len(parts) == 1 else parts


THREADS_HELP = (
    "torch CPU threads of this process (default: the cores it may use, shared among its workers, less "
    "those busy; or GUI_GYM_THREADS / OMP_NUM_THREADS). Training results do not depend on it"
)


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    """``--threads N`` on a command (absent unless given, so a parent command's value stands)."""
    parser.add_argument("--threads", type=int, default=argparse.SUPPRESS, metavar="N", help=THREADS_HELP)


def _flag_type(tp: Any) -> Any:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if args else str
    return tp


def add_config_flags(
    p: argparse.ArgumentParser, cls: type, helps: Mapping[str, str] | None = None, skip: Sequence[str] = ()
) -> None:
    """One flag per field of the dataclass ``cls`` (``--field-name``; booleans as ``--x/--no-x``),
    defaulting to ``None`` so that only the flags given override (a preset, the class's defaults)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        flag = "--" + f.name.replace("_", "-")
        tp = _flag_type(hints[f.name])
        default_text = f"default: {f.default}" if f.default is not dataclasses.MISSING else ""
        text = "; ".join(t for t in ((helps or {}).get(f.name, ""), default_text) if t)
        if tp is bool:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=text)
        else:
            p.add_argument(flag, type=tp, default=None, help=text)


def config_values(args: argparse.Namespace, cls: type, skip: Sequence[str] = ()) -> dict[str, Any]:
    """The fields of the dataclass ``cls`` that flags of :func:`add_config_flags` gave (not None)."""
    out = {}
    for f in dataclasses.fields(cls):
        v = getattr(args, f.name, None)
        if v is not None and f.name not in skip:
            out[f.name] = v
    return out
