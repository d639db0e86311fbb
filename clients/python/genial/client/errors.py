"""The one exception the SDK raises for a call the service refused."""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from google.rpc import error_details_pb2, status_pb2

RATE_LIMITED = "RATE_LIMITED"
"""The reason of a call refused by a rate limit (with RESOURCE_EXHAUSTED and a retry_after)."""
STATUS_DETAILS_KEY = "grpc-status-details-bin"
"""The trailer that carries the call's google.rpc.Status, with its ErrorInfo."""


class GenialError(Exception):
    """A call the service refused.

    Attributes:
        code: the gRPC status code, such as ``grpc.StatusCode.FAILED_PRECONDITION``.
        reason: the stable reason of the service's ErrorInfo, such as ``"NOT_YOUR_TURN"``
            (see docs/api.md); empty when the call failed before reaching the service.
        message: the service's message, for people.
        metadata: the ErrorInfo's metadata, such as ``{"current_version": "12"}`` for
            ``STALE_VERSION``.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{code.name} {reason or '-'}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})

    @property
    def retry_after(self) -> float | None:
        """For a call refused by a rate limit (RESOURCE_EXHAUSTED, reason RATE_LIMITED), the
        seconds the service asked to wait; None for any other error, or a wait not given."""
        if self.code != grpc.StatusCode.RESOURCE_EXHAUSTED or self.reason != RATE_LIMITED:
            return None
        try:
            return float(self.metadata["retry_after"])
        except (KeyError, ValueError):
            return None

    @classmethod
    def from_rpc_error(cls, err: grpc.aio.AioRpcError) -> GenialError:
        """The error of a failed call, with the reason read from its status details."""
        reason, metadata = "", {}
        for key, value in err.trailing_metadata() or ():
            if key != STATUS_DETAILS_KEY:
                continue
            assert isinstance(value, bytes)  # a "-bin" trailer is always bytes
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    reason, metadata = info.reason, dict(info.metadata)
        return cls(err.code(), reason, err.details() or "", metadata)
