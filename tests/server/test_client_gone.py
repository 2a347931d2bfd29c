"""A client that has gone (its pipe closed after `exit`) costs the server nothing more.

pygls reports a failed send by sending an error message; when the pipe is closed that send
fails as well, and each failure was reported again, a thousand calls deep, each logging its
traceback: a minute of CPU (41 s per test teardown here) before the process could end, and
a server process left running after the editor closed.
"""

from __future__ import annotations

from lsprotocol import types

from prism_lsp.server.prism_server import PrismServer


class ClosedPipe:
    """A writer whose reader has gone, as stdout is after `exit`: counts what was tried."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, data: bytes) -> None:
        self.writes += 1
        raise ValueError("write to closed file")

    def close(self) -> None:
        pass


def _server_with(pipe: ClosedPipe) -> PrismServer:
    ls = PrismServer()
    ls.protocol.set_writer(pipe, include_headers=True)
    return ls


def test_a_failed_send_is_reported_once_not_a_thousand_times_deep():
    pipe = ClosedPipe()
    ls = _server_with(pipe)
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message="run finished"))
    # the message itself, then one attempt to say that it failed; nothing after that
    assert pipe.writes == 2


def test_after_shutdown_a_failed_send_is_only_logged():
    pipe = ClosedPipe()
    ls = _server_with(pipe)
    ls.close()
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri="file:///t.py", diagnostics=[]))
    assert pipe.writes == 1
