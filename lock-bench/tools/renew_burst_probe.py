#!/usr/bin/env python3
"""Runs renew.lua the way the watchdog sends it, without the JVM, to tell the script's cost from the machine's.

Starts its own redis-server on a free port (never touches another), sets N lock keys, then renews
them all in ROUNDS rounds: each round is N/BATCH calls of BATCH leases, sent at once (pipelined), as
the engine sends a round. For every call it reads the server's wall-clock duration from SLOWLOG, and
it reads how often the OS preempted redis-server (involuntary context switches, /proc/<pid>/status).

    python3 lock-bench/tools/renew_burst_probe.py [--leases 10000] [--rounds 20] [--batch 180] [--realtime]

--realtime starts redis-server under SCHED_FIFO (chrt -f 10; needs root), so that no other process
can preempt it: what is left of a long call is then the script's own work (and the machine's noise
below the scheduler). Standard library only; RESP spoken by hand.
"""
import argparse, os, socket, subprocess, sys, time

SCRIPT = os.path.join(os.path.dirname(__file__), '..', '..', 'lock-api', 'src', 'main', 'resources',
                      'io', 'leasehold', 'lock', 'scripts', 'renew.lua')


def encode(*args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(out)


class Resp:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.buf = b''

    def _fill(self, n):
        while len(self.buf) < n:
            self.buf += self.sock.recv(1 << 20)

    def _line(self):
        while b'\r\n' not in self.buf:
            self.buf += self.sock.recv(1 << 20)
        i = self.buf.index(b'\r\n')
        line, self.buf = self.buf[:i], self.buf[i + 2:]
        return line

    def read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b'+':
            return rest.decode()
        if kind == b'-':
            raise RuntimeError(rest.decode())
        if kind == b':':
            return int(rest)
        if kind == b'$':
            n = int(rest)
            if n < 0:
                return None
            self._fill(n + 2)
            value, self.buf = self.buf[:n], self.buf[n + 2:]
            return value
        if kind == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError('unexpected reply ' + repr(line))

    def call(self, *args):
        self.sock.sendall(encode(*args))
        return self.read()


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def preemptions(pid):
    with open('/proc/%d/status' % pid) as status:
        for line in status:
            if line.startswith('nonvoluntary_ctxt_switches:'):
                return int(line.split(':')[1])
    return -1


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--leases', type=int, default=10000)
    p.add_argument('--rounds', type=int, default=20)
    p.add_argument('--batch', type=int, default=180)
    p.add_argument('--realtime', action='store_true')
    o = p.parse_args()

    port = free_port()
    command = ['redis-server', '--port', str(port), '--save', '', '--appendonly', 'no']
    if o.realtime:
        command = ['chrt', '-f', '10'] + command
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                redis = Resp(port)
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit('redis-server did not start')
        redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', '20')  # the scripts, not what they run
        redis.call('CONFIG', 'SET', 'slowlog-max-len', '100000')
        sha = redis.call('SCRIPT', 'LOAD', open(SCRIPT).read())
        keys = ['leasehold:{bench:%d}' % i for i in range(o.leases)]
        values = ['owner%d:%d' % (i % 7, i) for i in range(o.leases)]
        redis.sock.sendall(b''.join(encode('SET', k, v, 'PX', 30000) for k, v in zip(keys, values)))
        for _ in keys:
            redis.read()

        runs = []
        before = preemptions(server.pid)
        for seq in range(1, o.rounds + 1):
            redis.call('SLOWLOG', 'RESET')
            calls = []
            for first in range(0, o.leases, o.batch):
                args = ['30000']
                for i in range(first, min(first + o.batch, o.leases)):
                    renewed = '%s:%d' % (':'.join(values[i].split(':')[:2]), seq)
                    args += [values[i], renewed]
                    values[i] = renewed
                batch = keys[first:first + o.batch]
                calls.append(encode('EVALSHA', sha, len(batch), *batch, *args))
            redis.sock.sendall(b''.join(calls))
            for _ in calls:
                codes = redis.read()[0]
                assert all(code == 1 for code in codes), codes
            runs += [entry[2] for entry in redis.call('SLOWLOG', 'GET', '-1') if entry[3][0].upper() == b'EVALSHA']
            time.sleep(0.05)
        preempted = preemptions(server.pid) - before
        runs.sort()
        print('%d leases, %d calls of %d: median %d µs, p99 %d µs, longest %d µs, %d over 1 ms; '
              'redis-server preempted %d times%s' % (
                  o.leases, len(runs), o.batch, runs[len(runs) // 2], runs[int(len(runs) * 0.99)], runs[-1],
                  sum(1 for r in runs if r > 1000), preempted, ' (SCHED_FIFO)' if o.realtime else ''))
    finally:
        server.terminate()
        server.wait()


if __name__ == '__main__':
    main()
