"""The checkpoint schema: minims' ``checkpoint.proto`` matches MindSpore's, and the generated module is
up to date with it and with the protobuf pinned for the project."""
import hashlib
import json
import re
from pathlib import Path

from minims.checkpoint import checkpoint_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "minims" / "checkpoint" / "checkpoint.proto"
PB2 = ROOT / "minims" / "checkpoint" / "checkpoint_pb2.py"
FACTS = json.loads((ROOT / "tests" / "data" / "oracle_checkpoint_facts.json").read_text(encoding="utf-8"))


def label(field):
    return "repeated" if field.is_repeated else "required" if field.is_required else "optional"


def test_every_message_and_field_is_mindspores():
    """Names, numbers, labels and types as in MindSpore 2.10's checkpoint_pb2 (recorded by the oracle)."""
    mine = {}
    for message in checkpoint_pb2.DESCRIPTOR.message_types_by_name.values():
        for m in [message, *message.nested_types]:
            mine[m.name] = [{"name": f.name, "number": f.number, "label": label(f), "type": f.type,
                             "message_type": f.message_type.name if f.message_type else None,
                             "oneof": f.containing_oneof.name if f.containing_oneof else None}
                            for f in m.fields]
    assert mine == FACTS["schema"]


def test_the_generated_module_was_made_from_the_current_schema():
    header = re.search(r"^# schema sha256: ([0-9a-f]{64})$", PB2.read_text(encoding="utf-8"), re.M)
    digest = hashlib.sha256(PROTO.read_bytes().replace(b"\r\n", b"\n")).hexdigest()
    assert header and header.group(1) == digest, \
        "checkpoint.proto changed: regenerate with tools/make_checkpoint_pb2.py (docs/checkpoints.md)"


def test_the_protobuf_lower_bound_is_the_generated_modules_version():
    """The module refuses an older protobuf runtime at import, so pyproject must require at least its version,
    and the pin must satisfy that."""
    gencode = re.search(r"^# Protobuf Python Version: ([\d.]+)$", PB2.read_text(encoding="utf-8"), re.M).group(1)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"protobuf>={gencode}"' in pyproject
    pin = re.search(r"^protobuf==([\d.]+)$", (ROOT / "constraints.txt").read_text(encoding="utf-8"), re.M).group(1)
    assert tuple(map(int, pin.split("."))) >= tuple(map(int, gencode.split(".")))
