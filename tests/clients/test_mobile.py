"""The Java, Kotlin and Objective-C code for mobile apps is generated on demand, not
committed: `npx buf generate` (buf.gen.yaml) with Debian's protoc and gRPC Java plugin must
work, and write code for every message and every method of the API."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from google.protobuf.descriptor import FileDescriptor

from genial.v1 import cards_pb2, color_pb2, dice_pb2, game_service_pb2, tiles_pb2, types_pb2

ROOT = Path(__file__).resolve().parents[2]
BUF = ROOT / "node_modules/.bin/buf"
FILES: list[FileDescriptor] = [
    m.DESCRIPTOR for m in (cards_pb2, color_pb2, dice_pb2, game_service_pb2, tiles_pb2, types_pb2)
]
SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]


def camel(name: str) -> str:
    """A proto file's base name as protoc's generators spell it: game_service is
    GameService."""
    return "".join(part.capitalize() for part in name.split("_"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the documented command writes, in a folder of the test's own."""
    for tool in ("protoc", "grpc_java_plugin"):
        assert shutil.which(tool), f"{tool} is missing: run make protoc"
    assert BUF.exists(), "buf is missing: run make node_modules/.bin/buf"
    out = tmp_path_factory.mktemp("mobile")
    subprocess.run([BUF, "generate", "--output", out], cwd=ROOT, check=True, capture_output=True)
    return out / "build/gen"


def messages(file: FileDescriptor) -> list[str]:
    return list(file.message_types_by_name)


def test_nothing_generated_is_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "clients/java", "clients/kotlin", "clients/objc"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert tracked.stdout == ""


def test_java_has_every_message_and_a_stub_for_every_method(generated: Path) -> None:
    java = generated / "java/genial/v1"
    for file in FILES:
        # One class per file, its messages nested in it: named after the file, with
        # OuterClass after it where a type of the file has that name (ColorOuterClass).
        base = camel(Path(file.name).stem)
        types = {*file.message_types_by_name, *file.enum_types_by_name, *file.services_by_name}
        source = java / (f"{base}OuterClass.java" if base in types else f"{base}.java")
        for message in messages(file):
            assert re.search(rf"public static final class {message}\b", source.read_text())
    stub = (java / "GameServiceGrpc.java").read_text()
    for method in SERVICE.methods:
        assert f"get{method.name}Method()" in stub, method.name
    assert "public static GameServiceStub newStub(" in stub


def test_kotlin_has_a_builder_for_every_message(generated: Path) -> None:
    kotlin = generated / "kotlin/genial/v1"
    for file in FILES:
        for message in messages(file):
            builder = kotlin / f"{message}Kt.kt"
            assert builder.exists(), message
            assert f"public inline fun {message[0].lower()}{message[1:]}(" in builder.read_text()


def test_objective_c_has_every_message_under_the_package_prefix(generated: Path) -> None:
    objc = generated / "objc"
    for file in FILES:
        header = objc / "genial/v1" / f"{camel(Path(file.name).stem)}.pbobjc.h"
        assert (header.with_suffix("").with_suffix(".pbobjc.m")).exists()
        for message in messages(file):
            assert f"@interface Genial_V1_{message} : GPBMessage" in header.read_text()
    # No package ships google/api for Objective-C: its classes come along.
    assert (objc / "google/api/Annotations.pbobjc.h").exists()
    assert (objc / "google/api/HTTP.pbobjc.m").exists()
