"""Generate ``minims/checkpoint/checkpoint_pb2.py`` from ``minims/checkpoint/checkpoint.proto``.

Usage: python tools/make_checkpoint_pb2.py

It needs the ``protoc`` extra (grpcio-tools, which bundles the protobuf compiler as a Python module):
``.venv/bin/pip install -e ".[protoc]" -c constraints.txt``.  protoc runs from the repository root
with relative paths, so nothing of this machine ends up in the generated file.  A header is put in
front saying how the file was made and the SHA-256 of the schema it was made from;
``tests/checkpoint/test_checkpoint_schema.py`` fails when the schema changes and the module is not regenerated.

The generated module checks at import that the installed protobuf runtime is not older than the
compiler that wrote it: the lower bound of ``protobuf`` in pyproject.toml must follow the protoc
version printed below.
"""
import hashlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO = Path("minims/checkpoint/checkpoint.proto")
OUT = Path("minims/checkpoint/checkpoint_pb2.py")


def schema_digest(text: bytes) -> str:
    """SHA-256 of the schema with LF line ends (as git may check it out with CRLF)."""
    return hashlib.sha256(text.replace(b"\r\n", b"\n")).hexdigest()


def main() -> int:
    try:
        from importlib.metadata import version
        tools_version = version("grpcio-tools")
    except Exception:
        print("grpcio-tools is not installed. Fix: .venv/bin/pip install -e \".[protoc]\" -c constraints.txt",
              file=sys.stderr)
        return 1
    run = [sys.executable, "-m", "grpc_tools.protoc", "-I.", "--python_out=.", str(PROTO)]
    subprocess.run(run, cwd=ROOT, check=True)
    protoc = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "--version"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout.strip()
    digest = schema_digest((ROOT / PROTO).read_bytes())
    header = (
        f"# minims: generated from {PROTO.as_posix()} by tools/make_checkpoint_pb2.py\n"
        f"# (grpcio-tools {tools_version}, {protoc}). Do not edit; edit the .proto and run the tool again.\n"
        f"# schema sha256: {digest}\n"
    )
    path = ROOT / OUT
    path.write_text(header + path.read_text(encoding="utf-8"), encoding="utf-8")
    print(f"wrote {OUT.as_posix()} ({protoc}, grpcio-tools {tools_version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
