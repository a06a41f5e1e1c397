"""``gui-gym webshop``: the embedded WebShop's shop in a browser and its catalog as files.

::

    gui-gym webshop serve [--port 3000] [--data-dir DIR | --num-products 1000] [--goals human|synthetic]
                          [--replay EPISODES.jsonl ...] [--request-timeout 10] [--max-connections 64]
    gui-gym webshop generate DIR [--num-products 1000] [--seed 0] [--names full|small]

``serve`` starts the shop on a loopback port (:mod:`gui_gym.webshop.server`): shop for a goal and
read the score of the purchase, or step through recorded episodes (the trajectory JSON Lines that
``gui-gym rollout --out`` writes). A connection must send its whole request within
``--request-timeout`` seconds (default 10) or is dropped; past ``--max-connections`` at once
(default 64) a connection gets 503. ``generate`` writes the embedded catalog in upstream WebShop's
file formats (``items_shuffle.json``, ``items_ins_v2.json``, ``items_human_ins.json``; with
``--names small`` the ``*_1000.json`` names upstream's code reads by default) plus its title
nouns, for ``WebShop-v0(data_dir=DIR)`` or upstream's own code.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "cmd_generate", "cmd_serve"]


def _shop(args: argparse.Namespace):
    from gui_gym.webshop.engine import Shop

    if args.data_dir:
        return Shop.from_directory(args.data_dir, goals=args.goals, seed=args.seed_prices)
    return Shop.generated(num_products=args.num_products, goals=args.goals, seed=args.seed_prices)


def cmd_serve(args: argparse.Namespace) -> int:
    from gui_gym.webshop.server import read_replays, serve

    replays = [r for path in args.replay for r in read_replays(path)]
    shop = _shop(args)
    # unset limits keep the server's defaults (importing them for argparse would slow every command)
    limits = {k: v for k in ("request_timeout", "max_connections") if (v := getattr(args, k)) is not None}
    server = serve(shop, host=args.host, port=args.port, replays=replays, **limits)
    print(f"WebShop: {len(shop.catalog.products)} products, {len(shop.goals)} {shop.goal_kind} goals at {server.url}/")
    print("Ctrl-C stops it.", flush=True)
    try:
        assert server.thread is not None
        server.thread.join()
    finally:
        server.shutdown()
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from gui_gym.webshop.generator import generate, write

    written = write(generate(num_products=args.num_products, seed=args.seed), args.directory, names=args.names)
    for name, path in written.items():
        print(f"{name}: {path}")
    return 0


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("webshop", help="the WebShop shop in a browser; its catalog as files", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    commands = parser.add_subparsers(dest="webshop_command", required=True)
    serve = commands.add_parser("serve", help="serve the shop on a loopback port")
    serve.add_argument("--host", default="127.0.0.1", help="the address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=3000)
    serve.add_argument("--data-dir", default=None, help="a WebShop data directory instead of the embedded catalog")
    serve.add_argument("--num-products", type=int, default=1000)
    serve.add_argument("--goals", choices=("human", "synthetic"), default="human")
    serve.add_argument("--seed-prices", type=int, default=0)
    serve.add_argument("--replay", action="append", default=[], metavar="FILE", help="recorded episodes to replay")
    serve.add_argument(
        "--request-timeout", type=_positive(float), default=None, metavar="SECONDS",
        help="a connection that has not sent its whole request by then is dropped (default 10)",
    )  # fmt: skip
    serve.add_argument(
        "--max-connections", type=_positive(int), default=None,
        help="connections served at once; more get 503 (default 64)",
    )  # fmt: skip
    serve.set_defaults(func=cmd_serve)
    gen = commands.add_parser("generate", help="write the embedded catalog in upstream's file formats")
    gen.add_argument("directory")
    gen.add_argument("--num-products", type=int, default=1000)
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument(
        "--names",
        choices=("full", "small"),
        default="full",
        help="file names: upstream's full-data ones, or the *_1000.json ones its code reads by default",
    )
    gen.set_defaults(func=cmd_generate)
