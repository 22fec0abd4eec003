"""The MASTER_PORT check: a port in use is refused, one the previous run left in TIME_WAIT is not."""

import socket

from torchlift.runtime.environments import is_port_in_use


def test_a_listening_port_is_in_use():
    with socket.socket() as server:
        server.bind(("", 0))
        server.listen()
        assert is_port_in_use(server.getsockname()[1])


def test_a_port_left_in_time_wait_is_free():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    conn, _ = server.accept()
    conn.close()  # the side that closes first keeps the port in TIME_WAIT
    server.close()
    client.recv(1)
    client.close()
    assert not is_port_in_use(port)
