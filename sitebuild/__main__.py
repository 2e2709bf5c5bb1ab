"""python -m sitebuild finish [SITE] | serve --builder zensical — see sitebuild/__init__.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sitebuild import finish as step


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitebuild", description="Os passos de build do site da lição.")
    commands = parser.add_subparsers(dest="command", required=True)
    done = commands.add_parser("finish", help="completa e verifica a pasta gerada por mkdocs ou zensical")
    done.add_argument("site", nargs="?", default="site", type=Path, help="a pasta do site (padrão: site)")
    done.add_argument("--config", default="mkdocs.yml", type=Path, help="o mkdocs.yml do projeto")
    done.add_argument("--service-worker", choices=("on", "off"),
                      help="padrão: extra.service_worker do mkdocs.yml (SERVICE_WORKER=0 desliga)")
    serve = commands.add_parser("serve", help="constrói, completa e serve o site, reconstruindo a cada mudança")
    serve.add_argument("--builder", choices=("mkdocs", "zensical"), default="zensical")
    serve.add_argument("--config", default="mkdocs.yml", type=Path, help="o mkdocs.yml do projeto")
    serve.add_argument("--dev-addr", default="127.0.0.1:8000", metavar="HOST:PORTA")
    args = parser.parse_args(argv)

    root = args.config.resolve().parent
    if args.command == "serve":
        from sitebuild.serve import serve as run

        host, _, port = args.dev_addr.rpartition(":")
        run(args.builder, root, host or "127.0.0.1", int(port))
        return 0
    on = step.service_worker_setting(args.config) if args.service_worker is None else args.service_worker == "on"
    try:
        finished = step.finish(args.site, service_worker=on, root=root)
    except step.BuildError as exc:
        print(f"ERRO: {exc}", file=sys.stderr)
        return 1
    print(finished.summary(args.site))
    return 0


if __name__ == "__main__":
    sys.exit(main())
