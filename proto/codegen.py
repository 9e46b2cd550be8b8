"""Generate the Python code of the public API from ``proto/``.

The proto tree mirrors the Python package (``proto/referee/api/v1/*.proto`` is package
``referee.api.v1``), so the server's generated imports need no patching. The SDK (its own
distribution, ``clients/``) carries a copy as ``trick_referee_client.api.v1``: the same files
with their imports of each other rewritten to that package. Run from anywhere:

    python proto/codegen.py            # writes referee/api/v1/*_pb2*.py(i) and the SDK's copy
    python proto/codegen.py --out DIR  # writes both under DIR (freshness test)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PROTO_ROOT.parent
#: Where the SDK's copy goes (relative to the output root) and its package.
SDK_API = Path("clients", "trick_referee_client", "api", "v1")
SDK_PACKAGE = "trick_referee_client.api.v1"
#: Python module paths of the generated code (``from referee.api.v1 import x_pb2``,
#: ``'referee.api.v1.x_pb2'``), not the proto package of message and service names.
_MODULE = re.compile(r"\breferee\.api\.v1(?= import |\.\w+_pb2\b)")


def proto_files() -> list[Path]:
    """Every .proto file of the public API, sorted."""
    return sorted((PROTO_ROOT / "referee").rglob("*.proto"))


def generate(out: Path = REPO_ROOT) -> list[Path]:
    """Compile every proto file into ``out``; return the generated files."""
    from grpc_tools import protoc

    files = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    include = Path(protoc.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    generated = []
    for f in files:
        stem = Path(f).with_suffix("")
        for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py"):
            generated.append(out / f"{stem}{suffix}")
    return generated + sdk_copy(generated, out)


def sdk_copy(generated: list[Path], out: Path) -> list[Path]:
    """The SDK's copy of ``generated`` under ``out/clients/trick_referee_client/api/v1``."""
    copies = []
    for path in generated:
        target = out / SDK_API / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        text = _MODULE.sub(SDK_PACKAGE, path.read_text())
        target.write_text(text.replace("referee/api/v1/", f"{SDK_API.as_posix()}/", 1)
                          if path.name.endswith("_grpc.py") else text)
        copies.append(target)
    return copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT)
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
