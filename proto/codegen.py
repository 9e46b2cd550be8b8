"""Generate the Python code of the public API from ``proto/``.

The proto tree mirrors the Python package (``proto/referee/api/v1/*.proto`` is package
``referee.api.v1``), so generated imports need no patching. Run from anywhere:

    python proto/codegen.py            # writes referee/api/v1/*_pb2*.py(i)
    python proto/codegen.py --out DIR  # writes DIR/referee/api/v1/... (freshness test)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PROTO_ROOT.parent


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
    return generated


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT)
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
