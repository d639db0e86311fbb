"""TLS on the API's ports, from a certificate and a key on disk, reloaded when they change.

Kubernetes mounts a Secret as a folder whose files it swaps (a symbolic link renamed), so
a renewed certificate (cert-manager's, say) appears under the same names. `Certificates`
looks at the files every `CHECK_SECONDS`; when they changed it reads them, checks that the
key fits the certificate, and from then on new connections get the new pair on both
transports: the HTTP server's `ssl.SSLContext` is loaded again in place (a context hands
its certificate to each connection it opens), and gRPC's certificate fetcher, which grpc
calls at each handshake, answers the new pair. Connections already open keep theirs. A
pair that does not load (a key written before its certificate) is ignored until the next
change, and the old one serves on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
from pathlib import Path

import grpc

from .settings import Settings

log = logging.getLogger("genial.tls")

CHECK_SECONDS = 1.0
Stamp = tuple[tuple[int, int, int, int], ...]


class Certificates:
    """The certificate and key of `settings`, as both servers use them."""

    def __init__(self, cert_file: str, key_file: str) -> None:
        self.cert_file = Path(cert_file)
        self.key_file = Path(key_file)
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self.context.set_alpn_protocols(["http/1.1"])
        self._stamp = self._stamps()
        self.pair = self._read()
        self.context.load_cert_chain(self.cert_file, self.key_file)
        self.version = 0
        """Counts the reloads; gRPC's fetcher compares it with the version it handed out."""

    @classmethod
    def of(cls, settings: Settings) -> Certificates | None:
        """The settings' pair, or None without TLS; one file without the other is an error."""
        if not settings.tls_cert_file and not settings.tls_key_file:
            return None
        if not (settings.tls_cert_file and settings.tls_key_file):
            raise ValueError("TLS needs both tls_cert_file and tls_key_file")
        return cls(settings.tls_cert_file, settings.tls_key_file)

    def _stamps(self) -> Stamp:
        """What changes when a file is replaced or rewritten (through symbolic links)."""
        stats = (os.stat(self.cert_file), os.stat(self.key_file))
        return tuple((s.st_dev, s.st_ino, s.st_mtime_ns, s.st_size) for s in stats)

    def _read(self) -> tuple[bytes, bytes]:
        return self.key_file.read_bytes(), self.cert_file.read_bytes()

    def reload(self) -> bool:
        """Load the files again if they changed; whether a new pair is in use now."""
        try:
            stamp = self._stamps()
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            pair = self._read()
            # Loaded into a scratch context first: a bad pair leaves the live one alone.
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                self.cert_file, self.key_file
            )
            self.context.load_cert_chain(self.cert_file, self.key_file)
            if self._read() != pair:  # rewritten meanwhile: load both again next time
                self._stamp = ()
                return False
        except (OSError, ssl.SSLError) as err:
            log.warning("TLS files not loaded, the previous ones serve on: %s", err)
            return False
        self.pair = pair
        self.version += 1
        log.info("TLS certificate reloaded", extra={"file": str(self.cert_file)})
        return True

    async def watch(self) -> None:
        """Reload on change, until cancelled."""
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            self.reload()

    def grpc_credentials(self) -> grpc.ServerCredentials:
        """Server credentials whose certificate follows the files."""
        handed_out = self.version

        def fetch() -> grpc.ServerCertificateConfiguration | None:
            # Called by grpc at every handshake, on one of its threads: cheap, no I/O.
            nonlocal handed_out
            if handed_out == self.version:
                return None  # unchanged
            handed_out = self.version
            return grpc.ssl_server_certificate_configuration([self.pair])

        initial = grpc.ssl_server_certificate_configuration([self.pair])
        # grpc's stubs leave out the None the fetcher may answer ("unchanged").
        return grpc.dynamic_ssl_server_credentials(initial, fetch)  # type: ignore[arg-type]
