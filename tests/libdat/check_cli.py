#!/usr/bin/python3
"""dat-providers against a known dat.conf: listing and --open."""
import os
import re
import subprocess
import sys


def run(cmd, conf, pattern):
    env = dict(os.environ, DAT_OVERRIDE=conf)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    print('$ %s\n%s%s' % (' '.join(cmd), p.stdout, p.stderr))
    if p.returncode != 0:
        print('FAIL: exit status %d' % p.returncode)
        return False
    if not re.search(pattern, p.stdout, re.M):
        print('FAIL: output does not match %r' % pattern)
        return False
    return True


def main(tool, conf):
    ok = run([tool], conf, r'^fake0\s+u1\.2\s+nonthreadsafe$')
    ok &= run([tool, '--open', 'fake0'], conf, r'^\s+provider\s+fakeprov 0\.1$')
    p = subprocess.run([tool, '--open', 'nosuch'], env=dict(os.environ, DAT_OVERRIDE=conf),
                       capture_output=True, text=True)
    print('$ %s --open nosuch\n%s' % (tool, p.stderr))
    if p.returncode == 0 or 'DAT_PROVIDER_NOT_FOUND' not in p.stderr \
            or 'DAT_NAME_NOT_REGISTERED' not in p.stderr:
        print('FAIL: unknown IA must fail and name the code')
        ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
