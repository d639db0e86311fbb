"""gRPC server reflection, as both `grpc.reflection.v1` and `grpc.reflection.v1alpha`.

grpcio-reflection serves only v1alpha, while current grpcurl and Postman ask v1 first. The
two protocols are the same messages under another package, byte for byte, so v1 is the
same servicer with its descriptors registered under the v1 names.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE = f"{V1_PACKAGE}.ServerReflection"


def _register_v1_descriptors() -> None:
    """The v1 file in the default pool, so that reflection describes itself as v1 too."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(V1_SERVICE)
        return
    except KeyError:
        pass
    alpha = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(alpha)
    alpha.name = "grpc/reflection/v1/reflection.proto"
    alpha.package = V1_PACKAGE
    alpha.options.Clear()
    for message in alpha.message_type:
        for field in message.field:
            if field.type_name.startswith(".grpc.reflection.v1alpha."):
                field.type_name = field.type_name.replace(".v1alpha.", ".v1.")
    for method in alpha.service[0].method:
        method.input_type = method.input_type.replace(".v1alpha.", ".v1.")
        method.output_type = method.output_type.replace(".v1alpha.", ".v1.")
    pool.Add(alpha)


def handlers(service_names: Iterable[str]) -> list[grpc.GenericRpcHandler]:
    """Reflection for `service_names` (and itself, in both versions)."""
    _register_v1_descriptors()
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE)
    servicer = reflection.aio.ReflectionServicer(names)
    method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    return [
        grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": method})
        for name in (reflection.SERVICE_NAME, V1_SERVICE)
    ]
