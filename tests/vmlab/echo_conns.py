#!/usr/bin/env python3
# Connections with every byte checked, for the VM lab's interop tests: run
# under smcr_run (libsmcr) or ksmc_run (the kernel's AF_SMC) so that each
# end may be either implementation. The server echoes; the client compares
# what comes back with what it sent, byte for byte. Every end of a
# connection is printed with how it ended (eof or the errno's name) and
# when, so a test can tell an orderly close from an abort and see how long
# the peer took to notice. The kernel waits in close() for its peer's answer
# to the DELETE_RKEY it sends as it frees the connection (up to 2 s,
# SMC_LLC_WAIT_TIME), so how long close() took is printed too: the server's
# "closed close_ms=N" after each end line, the client's "close_ms max=N".
#
#   echo_conns.py server ADDR PORT [--close-after BYTES]
#   echo_conns.py client ADDR PORT [--conns N] [--parallel P] [--bytes B] [--server-closes]
#   echo_conns.py stream ADDR PORT [--pid-file FILE]
import argparse
import errno
import os
import random
import socket
import sys
import threading
import time

TIMEOUT_S = 20  # longer than any wait a test allows, so a hang shows as a timeout line


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def ended(how, sent, received, since):
    return "end %s sent=%d received=%d after_ms=%d" % (how, sent, received, (time.monotonic() - since) * 1000)


def error_name(e):
    if isinstance(e, socket.timeout):
        return "timeout"
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__


def serve(args):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.addr, args.port))
    listener.listen(256)
    say("listening pid=%d" % os.getpid())

    def echo(conn):
        conn.settimeout(None)
        received = 0
        sent = 0
        start = time.monotonic()
        how = "eof"
        try:
            while True:
                want = 65536
                if args.close_after:
                    want = min(want, args.close_after - received)
                    if want == 0:
                        conn.shutdown(socket.SHUT_WR)  # we close first
                        while conn.recv(65536):
                            pass
                        how = "closed-first"
                        break
                data = conn.recv(want)
                if not data:
                    break
                received += len(data)
                conn.sendall(data)
                sent += len(data)
        except OSError as e:
            how = "error " + error_name(e)
        say(ended(how, sent, received, start))
        closing = time.monotonic()
        conn.close()
        say("closed close_ms=%d" % ((time.monotonic() - closing) * 1000))

    while True:
        conn, _ = listener.accept()
        say("accepted")
        threading.Thread(target=echo, args=(conn,), daemon=True).start()


connect_ms = [0]  # the slowest connect (the SMC handshake happens in it)
close_ms = [0]  # the slowest close (the kernel's DELETE_RKEY happens in it)


def one_connection(args, index, failures):
    payload = random.Random(index).randbytes(args.bytes)
    began = time.monotonic()
    sock = socket.create_connection((args.addr, args.port), timeout=TIMEOUT_S)
    connect_ms[0] = max(connect_ms[0], (time.monotonic() - began) * 1000)
    back = bytearray()
    try:
        sender = threading.Thread(target=sock.sendall, args=(payload,))
        sender.start()
        while len(back) < len(payload):
            data = sock.recv(65536)
            if not data:
                break
            back += data
        sender.join()
        if back != payload:
            at = next((i for i in range(min(len(back), len(payload))) if back[i] != payload[i]), len(back))
            failures.append("connection %d: %d of %d bytes back, first difference at %d" %
                            (index, len(back), len(payload), at))
            return
        if not args.server_closes:
            sock.shutdown(socket.SHUT_WR)  # we close first: the server sees eof, then closes
        try:
            if sock.recv(1) != b"":
                failures.append("connection %d: bytes after the echo" % index)
        except OSError as e:
            failures.append("connection %d: all %d bytes back, then %s at the close" % (index, len(back), error_name(e)))
    except OSError as e:
        failures.append("connection %d: %s after %d of %d bytes back" % (index, error_name(e), len(back), len(payload)))
    finally:
        closing = time.monotonic()
        sock.close()
        close_ms[0] = max(close_ms[0], (time.monotonic() - closing) * 1000)


def client(args):
    failures = []
    lock = threading.Lock()
    next_index = [0]

    def worker():
        while True:
            with lock:
                index = next_index[0]
                next_index[0] += 1
            if index >= args.conns:
                return
            try:
                one_connection(args, index, failures)
            except OSError as e:
                failures.append("connection %d: %s" % (index, error_name(e)))

    start = time.monotonic()
    workers = [threading.Thread(target=worker) for _ in range(args.parallel)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    say("connect_ms max=%d" % connect_ms[0])
    say("close_ms max=%d" % close_ms[0])
    for f in failures[:10]:
        say("FAIL " + f)
    if failures:
        say("FAIL %d of %d connections" % (len(failures), args.conns))
        return 1
    say("ok connections=%d bytes=%d each, checked, in %d ms" %
        (args.conns, args.bytes, (time.monotonic() - start) * 1000))
    return 0


def stream(args):
    # One connection that keeps both directions busy until it breaks.
    sock = socket.create_connection((args.addr, args.port), timeout=TIMEOUT_S)
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(str(os.getpid()))
    chunk = random.Random(7).randbytes(4096)
    sent = 0
    received = 0
    start = time.monotonic()
    try:
        while True:
            sock.sendall(chunk)
            sent += len(chunk)
            back = bytearray()
            while len(back) < len(chunk):
                data = sock.recv(len(chunk) - len(back))
                if not data:
                    say(ended("eof", sent, received, start))
                    return 0
                back += data
            if back != chunk:
                say("FAIL the echo differs after %d bytes" % received)
                return 1
            received += len(back)
            if received == 32 * len(chunk):
                say("streaming")
                start = time.monotonic()
    except OSError as e:
        say(ended("error " + error_name(e), sent, received, start))
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["server", "client", "stream"])
    parser.add_argument("addr")
    parser.add_argument("port", type=int)
    parser.add_argument("--close-after", type=int, default=0)
    parser.add_argument("--conns", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--bytes", type=int, default=4096)
    parser.add_argument("--server-closes", action="store_true")
    parser.add_argument("--pid-file")
    args = parser.parse_args()
    if args.mode == "server":
        serve(args)
        return 0
    if args.mode == "client":
        return client(args)
    return stream(args)


if __name__ == "__main__":
    sys.exit(main())
